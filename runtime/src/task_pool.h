/* Internal: recycled task memory. Tasks are made by the submitting thread and freed by
 * whichever thread drops the last reference, usually a worker. With malloc that free
 * lands in the submitter's arena, under its lock, while the submitter allocates the next
 * tasks: the two contend on every task (about half of an empty task's cost with glibc,
 * docs/performance.md). The pool keeps freed blocks of one size on a lock-free stack that
 * any thread pushes to; allocating threads take the whole stack at once (so a pop never
 * races a push into reuse) into a list of their own under a lock that only they take.
 *
 * New blocks are cut from 2 MiB chunks aligned to 2 MiB and marked for transparent huge
 * pages: a program that submits a hundred thousand tasks before they run touches fresh
 * memory for each, and one fault per chunk replaces one per 4 KiB page (a fifth of an
 * empty task's time went to page faults). Blocks stay in the pool while any is out; when
 * the last one comes back, every chunk but the first is freed. */
#ifndef FW_RUNTIME_SRC_TASK_POOL_H_
#define FW_RUNTIME_SRC_TASK_POOL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of this size are pooled: a task with a few accesses and its name. Larger
 * requests go to calloc and free. A multiple of 64: blocks start on cache lines. */
#define FW_TASK_POOL_BLOCK 640u
/* Blocks are cut from chunks of this size (a huge page on x86-64 and most arm64). */
#define FW_TASK_POOL_CHUNK (2u << 20)
/* A chunk's header takes its first cache line; blocks follow. */
#define FW_TASK_POOL_CHUNK_HEADER 64u
/* Blocks per chunk. */
#define FW_TASK_POOL_CHUNK_BLOCKS ((FW_TASK_POOL_CHUNK - FW_TASK_POOL_CHUNK_HEADER) / FW_TASK_POOL_BLOCK)

typedef struct fw_pool_node_t fw_pool_node_t;
typedef struct fw_pool_chunk_t fw_pool_chunk_t;

typedef struct fw_task_pool_t {
  _Atomic(fw_pool_node_t *) returned; /* pushed by any thread */
  atomic_size_t outstanding;          /* blocks handed out and not yet back */
  char pad[64]; /* pushers and takers on separate cache lines */
  pthread_mutex_t lock;  /* allocating threads, and the trim */
  fw_pool_node_t *taken; /* taken from `returned` (lock) */
  fw_pool_chunk_t *chunks; /* newest first (lock) */
  size_t cut; /* offset in the newest chunk of its first block not cut yet (lock) */
  atomic_size_t num_chunks;
} fw_task_pool_t;

void fw_task_pool_init(fw_task_pool_t *pool);
/* Frees every chunk; nothing may use the pool afterwards. */
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
