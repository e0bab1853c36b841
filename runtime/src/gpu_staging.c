/* Copies through pinned staging buffers (gpu_staging.h). */
#include "gpu_staging.h"

#include <stdint.h>
#include <string.h>

void fw_gpu_staging_init(fw_gpu_staging_t *staging, fw_device_queue_t *queue) {
  memset(staging, 0, sizeof(*staging));
  pthread_mutex_init(&staging->lock, NULL);
  staging->queue = queue;
}

void fw_gpu_staging_fini(fw_gpu_staging_t *staging, fw_device_t *device) {
  for (int i = 0; i < 2; ++i) {
    if (staging->buffer[i]) device->vtable->free_host(device, staging->buffer[i]);
    if (staging->done[i]) device->vtable->event_destroy(device, staging->done[i]);
  }
  pthread_mutex_destroy(&staging->lock);
}

/* The buffers and events, made on first use (lock held). */
static fw_status_t ready(fw_gpu_staging_t *staging, fw_device_t *device) {
  const fw_device_vtable_t *v = device->vtable;
  for (int i = 0; i < 2; ++i) {
    fw_status_t s = FW_OK;
    if (!staging->buffer[i]) s = v->alloc_host(device, FW_GPU_STAGING_BYTES, &staging->buffer[i]);
    if (!s && !staging->done[i]) s = v->event_create(device, &staging->done[i]);
    if (s) return s;
  }
  return FW_OK;
}

static size_t chunk(size_t size, size_t off) {
  return size - off < FW_GPU_STAGING_BYTES ? size - off : FW_GPU_STAGING_BYTES;
}

/* Chunk i goes into buffer i % 2 once that buffer's previous transfer is done. */
static fw_status_t to_device(fw_gpu_staging_t *staging, fw_device_t *device, uint8_t *dst,
                             const uint8_t *src, size_t size) {
  const fw_device_vtable_t *v = device->vtable;
  fw_status_t s = ready(staging, device);
  for (size_t off = 0, i = 0; !s && off < size; off += FW_GPU_STAGING_BYTES, ++i) {
    int k = (int)(i % 2);
    size_t n = chunk(size, off);
    if (i >= 2) s = v->event_synchronize(device, staging->done[k]);
    if (s) break;
    memcpy(staging->buffer[k], src + off, n);
    s = v->copy_to_device(device, staging->queue, dst + off, staging->buffer[k], n);
    if (!s) s = v->event_record(device, staging->done[k], staging->queue);
  }
  fw_status_t drained = v->queue_synchronize(device, staging->queue);
  if (!s) return drained;
  fw_status_free(drained);
  return s;
}

/* While chunk i moves into one buffer, chunk i - 1 is copied out of the other. */
static fw_status_t to_host(fw_gpu_staging_t *staging, fw_device_t *device, uint8_t *dst,
                           const uint8_t *src, size_t size) {
  const fw_device_vtable_t *v = device->vtable;
  fw_status_t s = ready(staging, device);
  size_t chunks = (size + FW_GPU_STAGING_BYTES - 1) / FW_GPU_STAGING_BYTES;
  for (size_t i = 0; !s && i <= chunks; ++i) {
    if (i < chunks) {
      size_t off = i * FW_GPU_STAGING_BYTES;
      s = v->copy_to_host(device, staging->queue, staging->buffer[i % 2], src + off,
                          chunk(size, off));
      if (!s) s = v->event_record(device, staging->done[i % 2], staging->queue);
    }
    if (!s && i > 0) {
      size_t off = (i - 1) * FW_GPU_STAGING_BYTES;
      s = v->event_synchronize(device, staging->done[(i - 1) % 2]);
      if (!s) memcpy(dst + off, staging->buffer[(i - 1) % 2], chunk(size, off));
    }
  }
  if (s) fw_status_free(v->queue_synchronize(device, staging->queue));
  return s;
}

fw_status_t fw_gpu_staged_to_device(fw_gpu_staging_t *staging, fw_device_t *device, void *dst,
                                    const void *host_src, size_t size) {
  pthread_mutex_lock(&staging->lock);
  fw_status_t s = to_device(staging, device, dst, host_src, size);
  pthread_mutex_unlock(&staging->lock);
  return s;
}

fw_status_t fw_gpu_staged_to_host(fw_gpu_staging_t *staging, fw_device_t *device,
                                  void *host_dst, const void *src, size_t size) {
  pthread_mutex_lock(&staging->lock);
  fw_status_t s = to_host(staging, device, host_dst, src, size);
  pthread_mutex_unlock(&staging->lock);
  return s;
}
