/* Freed device memory kept for reuse (block_pool.h). */
#include "block_pool.h"

#include <stdlib.h>

struct fw_pool_block_t {
  void *ptr;
  size_t size;
  fw_pool_block_t *next;
};

void fw_block_pool_init(fw_block_pool_t *pool, size_t min_block, size_t limit,
                        void (*release)(void *context, void *ptr, size_t size), void *context) {
  pthread_mutex_init(&pool->lock, NULL);
  pool->blocks = NULL;
  pool->bytes = 0;
  pool->limit = limit;
  pool->min_block = min_block;
  pool->release = release;
  pool->context = context;
}

/* Releases the least recently freed blocks until the pool holds at most `limit` bytes
 * (lock held). */
static void trim(fw_block_pool_t *pool, size_t limit) {
  fw_pool_block_t **link = &pool->blocks;
  size_t kept = 0;
  while (*link) {
    fw_pool_block_t *blk = *link;
    if (kept + blk->size <= limit) {
      kept += blk->size;
      link = &blk->next;
      continue;
    }
    *link = blk->next;
    pool->bytes -= blk->size;
    pool->release(pool->context, blk->ptr, blk->size);
    free(blk);
  }
}

void fw_block_pool_fini(fw_block_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  trim(pool, 0);
  pthread_mutex_unlock(&pool->lock);
  pthread_mutex_destroy(&pool->lock);
}

void *fw_block_pool_take(fw_block_pool_t *pool, size_t size) {
  if (size < pool->min_block) return NULL;
  pthread_mutex_lock(&pool->lock);
  for (fw_pool_block_t **link = &pool->blocks; *link; link = &(*link)->next)
    if ((*link)->size == size) {
      fw_pool_block_t *blk = *link;
      *link = blk->next;
      pool->bytes -= blk->size;
      pthread_mutex_unlock(&pool->lock);
      void *ptr = blk->ptr;
      free(blk);
      return ptr;
    }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

int fw_block_pool_put(fw_block_pool_t *pool, void *ptr, size_t size) {
  pthread_mutex_lock(&pool->lock);
  size_t limit = pool->limit;
  pthread_mutex_unlock(&pool->lock);
  if (size < pool->min_block || size > limit) return 0;
  fw_pool_block_t *blk = malloc(sizeof(*blk));
  if (!blk) return 0;
  blk->ptr = ptr;
  blk->size = size;
  pthread_mutex_lock(&pool->lock);
  blk->next = pool->blocks;
  pool->blocks = blk;
  pool->bytes += size;
  if (pool->bytes > pool->limit) trim(pool, pool->limit);
  pthread_mutex_unlock(&pool->lock);
  return 1;
}

void fw_block_pool_set_limit(fw_block_pool_t *pool, size_t limit) {
  pthread_mutex_lock(&pool->lock);
  pool->limit = limit;
  trim(pool, limit);
  pthread_mutex_unlock(&pool->lock);
}

void fw_block_pool_flush(fw_block_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  trim(pool, 0);
  pthread_mutex_unlock(&pool->lock);
}

size_t fw_block_pool_bytes(fw_block_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  size_t bytes = pool->bytes;
  pthread_mutex_unlock(&pool->lock);
  return bytes;
}

size_t fw_gpu_block_size(size_t size) {
  size_t align = size > ((size_t)1 << 20) ? (size_t)2 << 20 : 512;
  if (size == 0) size = 1;
  return (size + align - 1) & ~(align - 1);
}
