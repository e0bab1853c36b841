/* Recycled task memory (task_pool.h). */
#include "task_pool.h"

#include <stdlib.h>
#include <string.h>

struct fw_pool_node_t {
  fw_pool_node_t *next;
};

void fw_task_pool_init(fw_task_pool_t *pool) {
  atomic_init(&pool->returned, NULL);
  atomic_init(&pool->pooled, 0);
  pthread_mutex_init(&pool->lock, NULL);
  pool->taken = NULL;
}

static void free_list(fw_pool_node_t *n) {
  while (n) {
    fw_pool_node_t *next = n->next;
    free(n);
    n = next;
  }
}

void fw_task_pool_fini(fw_task_pool_t *pool) {
  free_list(atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire));
  free_list(pool->taken);
  pool->taken = NULL;
  atomic_store_explicit(&pool->pooled, 0, memory_order_relaxed);
  pthread_mutex_destroy(&pool->lock);
}

void *fw_task_pool_alloc(fw_task_pool_t *pool, size_t size) {
  if (size > FW_TASK_POOL_BLOCK) return calloc(1, size);
  fw_pool_node_t *n = NULL;
  if (atomic_load_explicit(&pool->pooled, memory_order_relaxed)) {
    pthread_mutex_lock(&pool->lock);
    if (!pool->taken)
      pool->taken = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
    n = pool->taken;
    if (n) pool->taken = n->next;
    pthread_mutex_unlock(&pool->lock);
  }
  if (!n) return calloc(1, FW_TASK_POOL_BLOCK);
  atomic_fetch_sub_explicit(&pool->pooled, 1, memory_order_relaxed);
  memset(n, 0, size);
  return n;
}

void fw_task_pool_free(fw_task_pool_t *pool, void *block, size_t size) {
  if (!block) return;
  if (size > FW_TASK_POOL_BLOCK) { /* from calloc */
    free(block);
    return;
  }
  if (atomic_fetch_add_explicit(&pool->pooled, 1, memory_order_relaxed) >= FW_TASK_POOL_MAX) {
    atomic_fetch_sub_explicit(&pool->pooled, 1, memory_order_relaxed); /* full */
    free(block);
    return;
  }
  fw_pool_node_t *n = block;
  fw_pool_node_t *head = atomic_load_explicit(&pool->returned, memory_order_relaxed);
  do n->next = head;
  while (!atomic_compare_exchange_weak_explicit(&pool->returned, &head, n, memory_order_release,
                                                memory_order_relaxed));
}
