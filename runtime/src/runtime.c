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
  if (options) rt->options = *options;
  fw_status_t status = fw_device_cpu_create(&rt->cpu_device);
  if (status != FW_OK) {
    free(rt);
    return status;
  }
  *out_runtime = rt;
  return FW_OK;
}

void fw_runtime_destroy(fw_runtime_t *runtime) {
  if (!runtime) return;
  if (runtime->cpu_device) runtime->cpu_device->vtable->destroy(runtime->cpu_device);
  free(runtime);
}
