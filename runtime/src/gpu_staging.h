/* Internal: copies between pageable host memory and a GPU through pinned staging
 * buffers, shared by the CUDA and HIP devices. Two buffers of 4 MiB: the CPU fills (or
 * drains) one while the DMA engine moves the other, on the device's copy queue. Only the
 * device interface is used, so the same code serves every GPU. */
#ifndef FW_RUNTIME_SRC_GPU_STAGING_H_
#define FW_RUNTIME_SRC_GPU_STAGING_H_

#include <pthread.h>
#include <stddef.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies of at least this many bytes go through the staging buffers. */
#define FW_GPU_STAGING_THRESHOLD ((size_t)1 << 20)
#define FW_GPU_STAGING_BYTES ((size_t)4 << 20)

typedef struct fw_gpu_staging_t {
  pthread_mutex_t lock;           /* one staged copy at a time per device */
  fw_device_queue_t *queue;       /* the device's copy queue (owned by the device) */
  void *buffer[2];                /* pinned, made on first use */
  fw_device_event_t *done[2];     /* the last transfer from or into each buffer */
} fw_gpu_staging_t;

void fw_gpu_staging_init(fw_gpu_staging_t *staging, fw_device_queue_t *queue);
void fw_gpu_staging_fini(fw_gpu_staging_t *staging, fw_device_t *device);
/* Complete before returning. */
fw_status_t fw_gpu_staged_to_device(fw_gpu_staging_t *staging, fw_device_t *device, void *dst,
                                    const void *host_src, size_t size);
fw_status_t fw_gpu_staged_to_host(fw_gpu_staging_t *staging, fw_device_t *device,
                                  void *host_dst, const void *src, size_t size);

#ifdef __cplusplus
}
#endif

#endif
