/* The runtime object: owns the devices. */
#include <stdlib.h>

#include "runtime_internal.h"
#include "status_internal.h"

fw_status_t fw_runtime_create(const fw_runtime_options_t *options, fw_runtime_t **out_runtime) {
  if (!out_runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_runtime is NULL");
  *out_runtime = NULL;
  if (options && options->flags != 0)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "fw_runtime_options_t.flags must be 0");
  fw_runtime_t *rt = calloc(1, sizeof(*rt));
  if (!rt) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  atomic_init(&rt->refcount, 1);
  if (options) rt->options = *options;
  fw_status_t status = fw_device_cpu_create(&rt->cpu_device);
  if (status != FW_OK) {
    free(rt);
    return status;
  }
  *out_runtime = rt;
  return FW_OK;
}

void fw_runtime_retain_internal(fw_runtime_t *runtime) {
  atomic_fetch_add_explicit(&runtime->refcount, 1, memory_order_relaxed);
}

void fw_runtime_release_internal(fw_runtime_t *runtime) {
  if (atomic_fetch_sub_explicit(&runtime->refcount, 1, memory_order_acq_rel) != 1) return;
  if (runtime->cpu_device) runtime->cpu_device->vtable->destroy(runtime->cpu_device);
  free(runtime);
}

void fw_runtime_destroy(fw_runtime_t *runtime) {
  if (!runtime) return;
  /* Buffers and modules still alive keep the devices until they are released. */
  fw_runtime_release_internal(runtime);
}
