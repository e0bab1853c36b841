/* The GPU kernel ABI: parameters and launch shape (gpu_kernel_abi.h). */
#include "gpu_kernel_abi.h"

#include <stdlib.h>

#include "status_internal.h"

fw_status_t fw_gpu_kernel_params_make(const fw_device_launch_t *launch,
                                      fw_gpu_kernel_params_t *out) {
  size_t count = launch->error ? 3 : 0; /* the error word: a memref<i32> */
  for (size_t i = 0; i < launch->num_bindings; ++i)
    count += 3 + 2 * (size_t)launch->bindings[i].rank;
  out->count = count;
  out->values = calloc(count ? count : 1, sizeof(int64_t));
  out->params = calloc(count ? count : 1, sizeof(void *));
  if (!out->values || !out->params) {
    fw_gpu_kernel_params_free(out);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  size_t k = 0;
  for (size_t i = 0; i < launch->num_bindings; ++i) {
    const fw_device_binding_t *b = &launch->bindings[i];
    out->values[k++] = (int64_t)(uintptr_t)b->data; /* allocated */
    out->values[k++] = (int64_t)(uintptr_t)b->data; /* aligned */
    out->values[k++] = 0;                           /* offset */
    int64_t stride = 1;
    for (uint32_t r = 0; r < b->rank; ++r) out->values[k + r] = b->dims[r];
    for (uint32_t r = b->rank; r-- > 0;) {
      out->values[k + b->rank + r] = stride;
      stride *= b->dims[r] > 0 ? b->dims[r] : 1;
    }
    k += 2 * (size_t)b->rank;
  }
  if (launch->error) {
    out->values[k++] = (int64_t)(uintptr_t)launch->error;
    out->values[k++] = (int64_t)(uintptr_t)launch->error;
    out->values[k++] = 0;
  }
  for (size_t i = 0; i < count; ++i) out->params[i] = &out->values[i];
  return FW_OK;
}

void fw_gpu_kernel_params_free(fw_gpu_kernel_params_t *params) {
  free(params->values);
  free(params->params);
  params->values = NULL;
  params->params = NULL;
  params->count = 0;
}

void fw_gpu_launch_shape(const fw_device_launch_t *launch, uint32_t multiprocessors,
                         unsigned *out_grid, unsigned *out_block) {
  *out_block = launch->workgroup_size[0] ? launch->workgroup_size[0] : 256;
  *out_grid = launch->workgroup_count[0] > 1 ? launch->workgroup_count[0]
                                             : (multiprocessors ? multiprocessors * 8 : 1);
}
