/* Internal: recycled task memory. Tasks are made by the submitting thread and freed by
 * whichever thread drops the last reference, usually a worker. With malloc that free
 * lands in the submitter's arena, under its lock, while the submitter allocates the next
 * tasks: the two contend on every task (about half of an empty task's cost with glibc,
 * docs/performance.md). The pool keeps freed blocks of one size on a lock-free stack that
 * any thread pushes to; allocating threads take the whole stack at once (so a pop never
 * races a push into reuse) into a list of their own under a lock that only they take. */
#ifndef FW_RUNTIME_SRC_TASK_POOL_H_
#define FW_RUNTIME_SRC_TASK_POOL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of this size are pooled: a task with a few accesses and its name. Larger
 * requests go to calloc and free. */
#define FW_TASK_POOL_BLOCK 640u
/* Freed blocks kept at most (2.5 MiB); beyond that they go back to free. */
#define FW_TASK_POOL_MAX 4096u

typedef struct fw_pool_node_t fw_pool_node_t;

typedef struct fw_task_pool_t {
  _Atomic(fw_pool_node_t *) returned; /* pushed by any thread */
  atomic_uint pooled;                 /* blocks in `returned` and `taken` (approximate) */
  char pad[64]; /* pushers and takers on separate cache lines */
  pthread_mutex_t lock; /* allocating threads */
  fw_pool_node_t *taken; /* taken from `returned` (lock) */
} fw_task_pool_t;

void fw_task_pool_init(fw_task_pool_t *pool);
/* Frees every kept block; nothing may use the pool afterwards. */
void fw_task_pool_fini(fw_task_pool_t *pool);
/* `size` zeroed bytes (NULL when out of memory); from the pool when size <=
 * FW_TASK_POOL_BLOCK. */
void *fw_task_pool_alloc(fw_task_pool_t *pool, size_t size);
/* Gives back a block from fw_task_pool_alloc of the same `size`; any thread. */
void fw_task_pool_free(fw_task_pool_t *pool, void *block, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_TASK_POOL_H_ */
