/* Internal: freed device memory kept for reuse. A device hands its freed blocks to the
 * pool and takes them back for an allocation of the same rounded size, so a program
 * called repeatedly neither faults its pages in again (CPU) nor pays the driver's
 * allocation and its implicit synchronization (GPU). The least recently freed blocks
 * go back to the device when the pool would exceed its limit. */
#ifndef FW_RUNTIME_SRC_BLOCK_POOL_H_
#define FW_RUNTIME_SRC_BLOCK_POOL_H_

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fw_pool_block_t fw_pool_block_t;

typedef struct fw_block_pool_t {
  pthread_mutex_t lock;
  fw_pool_block_t *blocks; /* most recently freed first */
  size_t bytes, limit;
  size_t min_block; /* smaller blocks are not kept */
  /* Gives a block back to the device. */
  void (*release)(void *context, void *ptr, size_t size);
  void *context;
} fw_block_pool_t;

void fw_block_pool_init(fw_block_pool_t *pool, size_t min_block, size_t limit,
                        void (*release)(void *context, void *ptr, size_t size), void *context);
/* Releases every block. */
void fw_block_pool_fini(fw_block_pool_t *pool);
/* A kept block of exactly `size` bytes (removed from the pool), or NULL. */
void *fw_block_pool_take(fw_block_pool_t *pool, size_t size);
/* Keeps a freed block of `size` bytes; returns 0 when the pool does not take it (too
 * small, larger than the limit, or out of memory), and the caller releases it. */
int fw_block_pool_put(fw_block_pool_t *pool, void *ptr, size_t size);
/* Sets the limit (releasing blocks beyond it); 0 empties the pool for good. */
void fw_block_pool_set_limit(fw_block_pool_t *pool, size_t limit);
/* Releases every kept block, keeping the limit (a device out of memory). */
void fw_block_pool_flush(fw_block_pool_t *pool);
size_t fw_block_pool_bytes(fw_block_pool_t *pool);
/* What a GPU allocates for `size` bytes: 2 MiB granules above 1 MiB (the drivers' own
 * granularity for large blocks), 512 bytes below, so that kept blocks fit later
 * requests of nearby sizes. */
size_t fw_gpu_block_size(size_t size);

#ifdef __cplusplus
}
#endif

#endif
