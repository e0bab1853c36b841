/* Recycled task memory (task_pool.h). */
#define _GNU_SOURCE /* posix_memalign, madvise */
#include "task_pool.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

struct fw_pool_node_t {
  fw_pool_node_t *next;
};

/* At the start of each chunk (FW_TASK_POOL_CHUNK_HEADER bytes kept for it). */
struct fw_pool_chunk_t {
  fw_pool_chunk_t *next;
};

void fw_task_pool_init(fw_task_pool_t *pool) {
  atomic_init(&pool->returned, NULL);
  atomic_init(&pool->outstanding, 0);
  pthread_mutex_init(&pool->lock, NULL);
  pool->taken = NULL;
  pool->chunks = NULL;
  pool->cut = FW_TASK_POOL_CHUNK; /* no room: the first block needs a chunk */
  atomic_init(&pool->num_chunks, 0);
}

static void free_chunks(fw_pool_chunk_t *c) {
  while (c) {
    fw_pool_chunk_t *next = c->next;
    free(c);
    c = next;
  }
}

void fw_task_pool_fini(fw_task_pool_t *pool) {
  free_chunks(pool->chunks);
  pool->chunks = NULL;
  pool->taken = NULL;
  atomic_store_explicit(&pool->returned, NULL, memory_order_relaxed);
  atomic_store_explicit(&pool->num_chunks, 0, memory_order_relaxed);
  pthread_mutex_destroy(&pool->lock);
}

/* A fresh chunk to cut blocks from (lock held); 0 when out of memory. */
static int new_chunk(fw_task_pool_t *pool) {
  void *memory = NULL;
  if (posix_memalign(&memory, FW_TASK_POOL_CHUNK, FW_TASK_POOL_CHUNK)) return 0;
#ifdef MADV_HUGEPAGE
  /* A hint: where transparent huge pages are off, the chunk has small pages. */
  (void)madvise(memory, FW_TASK_POOL_CHUNK, MADV_HUGEPAGE);
#endif
  fw_pool_chunk_t *c = memory;
  c->next = pool->chunks;
  pool->chunks = c;
  pool->cut = FW_TASK_POOL_CHUNK_HEADER;
  atomic_fetch_add_explicit(&pool->num_chunks, 1, memory_order_relaxed);
  return 1;
}

void *fw_task_pool_alloc(fw_task_pool_t *pool, size_t size) {
  if (size > FW_TASK_POOL_BLOCK) return calloc(1, size);
  pthread_mutex_lock(&pool->lock);
  if (!pool->taken)
    pool->taken = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
  fw_pool_node_t *n = pool->taken;
  if (n) {
    pool->taken = n->next;
  } else if (pool->cut + FW_TASK_POOL_BLOCK <= FW_TASK_POOL_CHUNK || new_chunk(pool)) {
    n = (fw_pool_node_t *)((char *)pool->chunks + pool->cut);
    pool->cut += FW_TASK_POOL_BLOCK;
  }
  if (n) atomic_fetch_add_explicit(&pool->outstanding, 1, memory_order_relaxed);
  pthread_mutex_unlock(&pool->lock);
  if (n) memset(n, 0, size);
  return n;
}

/* Every block is back (`outstanding` was 0 under the lock, so no allocation runs and no
 * free is in flight: each block pushed before it counted itself back): all chunks but the
 * oldest go, and the oldest is cut again from its start. */
static void trim(fw_task_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  if (atomic_load_explicit(&pool->outstanding, memory_order_acquire) == 0 && pool->chunks &&
      pool->chunks->next) {
    fw_pool_chunk_t *newer = pool->chunks; /* the chunk just newer than the oldest */
    while (newer->next->next) newer = newer->next;
    fw_pool_chunk_t *rest = pool->chunks;
    pool->chunks = newer->next;
    newer->next = NULL;
    free_chunks(rest);
    pool->cut = FW_TASK_POOL_CHUNK_HEADER;
    pool->taken = NULL;
    atomic_store_explicit(&pool->returned, NULL, memory_order_relaxed);
    atomic_store_explicit(&pool->num_chunks, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&pool->lock);
}

void fw_task_pool_free(fw_task_pool_t *pool, void *block, size_t size) {
  if (!block) return;
  if (size > FW_TASK_POOL_BLOCK) { /* from calloc */
    free(block);
    return;
  }
  fw_pool_node_t *n = block;
  fw_pool_node_t *head = atomic_load_explicit(&pool->returned, memory_order_relaxed);
  do n->next = head;
  while (!atomic_compare_exchange_weak_explicit(&pool->returned, &head, n, memory_order_release,
                                                memory_order_relaxed));
  /* The last block home after a burst that needed several chunks: they go back. */
  if (atomic_fetch_sub_explicit(&pool->outstanding, 1, memory_order_acq_rel) == 1 &&
      atomic_load_explicit(&pool->num_chunks, memory_order_relaxed) > 1)
    trim(pool);
}
