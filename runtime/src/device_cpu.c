/* The CPU device: host memory and synchronous kernel calls through MLIR ranked memref
 * descriptors (CPU kernel ABI, docs/runtime.md). */
#include "device.h"

#include <stdlib.h>
#include <string.h>

#include "status_internal.h"

typedef struct {
  fw_device_t base;
} cpu_device_t;

/* The MLIR ranked memref descriptor: {allocated, aligned, offset, sizes[r], strides[r]}.
 * For rank r the sizes occupy shape[0, r) and the strides shape[r, 2r). */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t shape[2 * FW_MAX_RANK];
} memref_descriptor_t;

static void cpu_destroy(fw_device_t *device) { free(device); }

static fw_status_t cpu_alloc(fw_device_t *device, size_t size, void **out_ptr) {
  (void)device;
  *out_ptr = NULL;
  size_t rounded = size == 0 ? FW_BUFFER_ALIGNMENT : size;
  if (rounded > SIZE_MAX - (FW_BUFFER_ALIGNMENT - 1))
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "buffer of %zu bytes is too large",
                          size);
  rounded = (rounded + FW_BUFFER_ALIGNMENT - 1) & ~(size_t)(FW_BUFFER_ALIGNMENT - 1);
  void *p = aligned_alloc(FW_BUFFER_ALIGNMENT, rounded);
  if (!p)
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                          "out of memory allocating a %zu-byte buffer", size);
  memset(p, 0, rounded);
  *out_ptr = p;
  return FW_OK;
}

static void cpu_free(fw_device_t *device, void *ptr) {
  (void)device;
  free(ptr);
}

static fw_status_t cpu_copy(fw_device_t *device, void *dst, const void *src, size_t size) {
  (void)device;
  if (size) memmove(dst, src, size);
  return FW_OK;
}

static fw_status_t cpu_launch(fw_device_t *device, const fw_device_launch_t *launch) {
  (void)device;
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
  for (uint32_t x = 0; x < launch->workgroup_count[0]; ++x)
    for (uint32_t y = 0; y < launch->workgroup_count[1]; ++y)
      for (uint32_t z = 0; z < launch->workgroup_count[2]; ++z) {
        wg.id[0] = x, wg.id[1] = y, wg.id[2] = z;
        memcpy(wg.count, launch->workgroup_count, sizeof(wg.count));
        launch->kernel.cpu((void *const *)ptrs, &wg);
      }
  free(descs);
  free(ptrs);
  return FW_OK;
}

static const fw_device_vtable_t kCpuDeviceVtable = {
    .name = "cpu",
    .target_kind = FW_TARGET_KIND_CPU,
    .destroy = cpu_destroy,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy = cpu_copy,
    .launch = cpu_launch,
};

fw_status_t fw_device_cpu_create(fw_device_t **out_device) {
  *out_device = NULL;
  cpu_device_t *d = calloc(1, sizeof(*d));
  if (!d) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  d->base.vtable = &kCpuDeviceVtable;
  *out_device = &d->base;
  return FW_OK;
}
