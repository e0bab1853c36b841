/* The CPU device: host memory and synchronous kernel calls through MLIR ranked memref
 * descriptors (CPU kernel ABI, docs/runtime.md). */
#define _GNU_SOURCE
#include "device.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "block_pool.h"
#include "cpu_features.h"
#include "host_cpus.h"
#include "kernel_scratch.h"
#include "storage.h"

#include "status_internal.h"

/* Freed blocks of at least kPoolMinBytes are kept, up to pool_limit bytes in all
 * (kPoolMaxBytes unless set lower), and handed out again for the same rounded size: a program called repeatedly reuses memory whose
 * pages are already mapped, instead of taking a page fault per 4 KiB on every call. Blocks
 * of 2 MiB and more are 2 MiB-aligned and advised for transparent huge pages; smaller
 * ones large enough for the storage tier's direct I/O are aligned as it needs
 * (storage.h). */
enum {
  kPoolMinBytes = 256u << 10,
  kHugePage = 2u << 20,
};
static const size_t kPoolMaxBytes = (size_t)1 << 30;

typedef struct {
  fw_device_t base;
  fw_block_pool_t pool;
  /* Buffers kernels had allocated and not freed when their workgroup returned, which the
   * device freed (kernel_scratch.h). */
  _Atomic uint64_t kernel_buffers_freed;
} cpu_device_t;

/* The alignment of a block of `size` bytes. */
static size_t block_alignment(size_t size) {
  return size >= kHugePage               ? kHugePage
         : size >= FW_STORAGE_DIRECT_MIN ? FW_STORAGE_DIRECT_ALIGN
                                         : FW_BUFFER_ALIGNMENT;
}

/* The size actually allocated for a request of `size` bytes. */
static size_t block_size(size_t size) {
  size_t align = block_alignment(size);
  return (size + align - 1) & ~(size_t)(align - 1);
}

static void release_block(void *context, void *ptr, size_t size) {
  (void)context;
  (void)size;
  free(ptr);
}

/* The MLIR ranked memref descriptor: {allocated, aligned, offset, sizes[r], strides[r]}.
 * For rank r the sizes occupy shape[0, r) and the strides shape[r, 2r). */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t shape[2 * FW_MAX_RANK];
} memref_descriptor_t;

static void cpu_destroy(fw_device_t *device) {
  cpu_device_t *d = (cpu_device_t *)device;
  fw_block_pool_fini(&d->pool);
  free(d);
}

static fw_status_t cpu_alloc(fw_device_t *device, size_t size, void **out_ptr) {
  cpu_device_t *d = (cpu_device_t *)device;
  *out_ptr = NULL;
  if (size > SIZE_MAX - kHugePage)
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "buffer of %zu bytes is too large",
                          size);
  size_t rounded = block_size(size == 0 ? 1 : size);
  if ((*out_ptr = fw_block_pool_take(&d->pool, rounded))) return FW_OK;
  void *p = aligned_alloc(block_alignment(rounded), rounded);
  if (!p)
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                          "out of memory allocating a %zu-byte buffer", size);
  if (rounded >= kHugePage) madvise(p, rounded, MADV_HUGEPAGE); /* a hint; may be refused */
  *out_ptr = p;
  return FW_OK;
}

static void cpu_free(fw_device_t *device, void *ptr, size_t size) {
  cpu_device_t *d = (cpu_device_t *)device;
  if (!ptr) return;
  size_t rounded = block_size(size == 0 ? 1 : size);
  if (!fw_block_pool_put(&d->pool, ptr, rounded)) free(ptr);
}

/* Staging memory for copies: plain memory on the CPU. */
static fw_status_t cpu_alloc_host(fw_device_t *device, size_t size, void **out_ptr) {
  (void)device;
  *out_ptr = aligned_alloc(FW_BUFFER_ALIGNMENT, block_size(size == 0 ? 1 : size));
  return *out_ptr ? FW_OK
                  : fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                                   "out of memory allocating %zu bytes of host memory", size);
}

static void cpu_free_host(fw_device_t *device, void *ptr) {
  (void)device;
  free(ptr);
}

static fw_status_t cpu_fill_zero(fw_device_t *device, void *ptr, size_t size) {
  (void)device;
  memset(ptr, 0, size);
  return FW_OK;
}

static fw_status_t cpu_query(fw_device_t *device, fw_device_info_t *out) {
  (void)device;
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "cpu");
  static const char *const kLevels[] = {"x86-64-v4", "x86-64-v3", "x86-64-v2", "x86-64"};
  snprintf(out->arch, sizeof(out->arch), "unknown");
  for (size_t i = 0; i < sizeof(kLevels) / sizeof(kLevels[0]); ++i) {
    fw_status_t status = fw_cpu_check_isa_level(kLevels[i]);
    if (status == FW_OK) {
      snprintf(out->arch, sizeof(out->arch), "%s", kLevels[i]);
      break;
    }
    fw_status_free(status);
  }
  out->compute_units = fw_host_cpus();
  return FW_OK;
}

/* Host memory is the CPU's memory: copies in every direction are one memmove, complete
 * when they return (the queue is ignored). */
static fw_status_t cpu_copy(fw_device_t *device, fw_device_queue_t *queue, void *dst,
                            const void *src, size_t size) {
  (void)device, (void)queue;
  if (size) memmove(dst, src, size);
  return FW_OK;
}

static fw_status_t cpu_queue_create(fw_device_t *device, fw_device_queue_t **out_queue) {
  (void)device;
  *out_queue = NULL;
  return FW_OK;
}

static void cpu_queue_destroy(fw_device_t *device, fw_device_queue_t *queue) {
  (void)device, (void)queue;
}

static fw_status_t cpu_queue_synchronize(fw_device_t *device, fw_device_queue_t *queue) {
  (void)device, (void)queue;
  return FW_OK;
}

/* An event is the time it was recorded: everything before it has completed by then. */
struct fw_device_event_t {
  uint64_t ns;
};

static fw_status_t cpu_event_create(fw_device_t *device, fw_device_event_t **out_event) {
  (void)device;
  *out_event = calloc(1, sizeof(**out_event));
  return *out_event ? FW_OK : fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}

static void cpu_event_destroy(fw_device_t *device, fw_device_event_t *event) {
  (void)device;
  free(event);
}

static fw_status_t cpu_event_record(fw_device_t *device, fw_device_event_t *event,
                                    fw_device_queue_t *queue) {
  (void)device, (void)queue;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  event->ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  return FW_OK;
}

static fw_status_t cpu_queue_wait_event(fw_device_t *device, fw_device_queue_t *queue,
                                        fw_device_event_t *event) {
  (void)device, (void)queue, (void)event;
  return FW_OK;
}

static fw_status_t cpu_event_synchronize(fw_device_t *device, fw_device_event_t *event) {
  (void)device, (void)event;
  return FW_OK;
}

static int cpu_event_is_complete(fw_device_t *device, fw_device_event_t *event) {
  (void)device, (void)event;
  return 1;
}

static fw_status_t cpu_event_elapsed(fw_device_t *device, fw_device_event_t *start,
                                     fw_device_event_t *end, double *out_seconds) {
  (void)device;
  *out_seconds = end->ns >= start->ns ? (double)(end->ns - start->ns) * 1e-9 : 0.0;
  return FW_OK;
}

static fw_status_t cpu_module_load(fw_device_t *device, const void *image, size_t size,
                                   fw_device_module_t **out_module) {
  (void)device, (void)image, (void)size;
  *out_module = NULL;
  return fw_status_make(FW_STATUS_UNSUPPORTED,
                        "the CPU device runs kernels of the loaded module, not device images");
}

static void cpu_module_unload(fw_device_t *device, fw_device_module_t *module) {
  (void)device, (void)module;
}

static fw_status_t cpu_module_get_kernel(fw_device_t *device, fw_device_module_t *module,
                                         const char *name, const void **out_kernel) {
  (void)device, (void)module;
  *out_kernel = NULL;
  return fw_status_make(FW_STATUS_UNSUPPORTED, "the CPU device has no device image for '%s'",
                        name ? name : "");
}

static fw_status_t cpu_launch(fw_device_t *device, fw_device_queue_t *queue,
                              const fw_device_launch_t *launch) {
  (void)queue;
  if (!launch->kernel.cpu)
    return fw_status_make(FW_STATUS_INTERNAL, "CPU launch without a kernel");
  size_t n = launch->num_bindings;
  memref_descriptor_t *descs = calloc(n ? n : 1, sizeof(*descs));
  void **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
  if (!descs || !ptrs) {
    free(descs);
    free(ptrs);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (size_t i = 0; i < n; ++i) {
    const fw_device_binding_t *b = &launch->bindings[i];
    memref_descriptor_t *d = &descs[i];
    uint32_t rank = b->rank <= FW_MAX_RANK ? b->rank : FW_MAX_RANK;
    d->allocated = b->data;
    d->aligned = b->data;
    d->offset = 0;
    int64_t stride = 1;
    for (uint32_t k = rank; k-- > 0;) {
      d->shape[k] = b->dims[k];
      d->shape[rank + k] = stride;
      stride *= b->dims[k] > 0 ? b->dims[k] : 1;
    }
    ptrs[i] = d;
  }
  fw_workgroup_t wg;
  memcpy(wg.count, launch->workgroup_count, sizeof(wg.count));
  wg.error = launch->error;
  uint64_t total = (uint64_t)wg.count[0] * wg.count[1] * wg.count[2];
  uint64_t first = launch->first_workgroup;
  uint64_t end = launch->num_workgroups ? first + launch->num_workgroups : total;
  fw_kernel_scratch_t scratch;
  fw_kernel_scratch_begin(&scratch);
  size_t left = 0;
  for (uint64_t linear = first; linear < end && linear < total; ++linear) {
    wg.id[0] = (uint32_t)(linear % wg.count[0]);
    wg.id[1] = (uint32_t)(linear / wg.count[0] % wg.count[1]);
    wg.id[2] = (uint32_t)(linear / wg.count[0] / wg.count[1]);
    launch->kernel.cpu((void *const *)ptrs, &wg);
    left += fw_kernel_scratch_collect(&scratch);
  }
  left += fw_kernel_scratch_end(&scratch);
  if (left) ((cpu_device_t *)device)->kernel_buffers_freed += left;
  free(descs);
  free(ptrs);
  return FW_OK;
}

static const fw_device_vtable_t kCpuDeviceVtable = {
    .name = "cpu",
    .target_kind = FW_TARGET_KIND_CPU,
    .destroy = cpu_destroy,
    .query = cpu_query,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .fill_zero = cpu_fill_zero,
    .alloc_host = cpu_alloc_host,
    .free_host = cpu_free_host,
    .copy_to_device = cpu_copy,
    .copy_to_host = cpu_copy,
    .copy_on_device = cpu_copy,
    .queue_create = cpu_queue_create,
    .queue_destroy = cpu_queue_destroy,
    .queue_synchronize = cpu_queue_synchronize,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .queue_wait_event = cpu_queue_wait_event,
    .event_synchronize = cpu_event_synchronize,
    .event_is_complete = cpu_event_is_complete,
    .event_elapsed = cpu_event_elapsed,
    .module_load = cpu_module_load,
    .module_unload = cpu_module_unload,
    .module_get_kernel = cpu_module_get_kernel,
    .launch = cpu_launch,
};

fw_status_t fw_device_cpu_create(fw_device_t **out_device) {
  *out_device = NULL;
  cpu_device_t *d = calloc(1, sizeof(*d));
  if (!d) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  d->base.vtable = &kCpuDeviceVtable;
  fw_block_pool_init(&d->pool, kPoolMinBytes, kPoolMaxBytes, release_block, NULL);
  *out_device = &d->base;
  return FW_OK;
}

void fw_device_cpu_set_pool_limit(fw_device_t *device, size_t bytes) {
  cpu_device_t *d = (cpu_device_t *)device;
  fw_block_pool_set_limit(&d->pool, bytes < kPoolMaxBytes ? bytes : kPoolMaxBytes);
}

size_t fw_device_cpu_pool_bytes(fw_device_t *device) {
  return fw_block_pool_bytes(&((cpu_device_t *)device)->pool);
}

uint64_t fw_device_cpu_kernel_buffers_freed(fw_device_t *device) {
  return ((cpu_device_t *)device)->kernel_buffers_freed;
}
