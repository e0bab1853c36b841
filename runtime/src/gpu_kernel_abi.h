/* Internal: the GPU kernel ABI (docs/fat-binary.md), shared by the CUDA and HIP devices.
 * A kernel takes, per binding of rank r, the fields of its memref descriptor as separate
 * 64-bit parameters: allocated, aligned, offset, sizes[r], strides[r] (row-major); a
 * kernel with an error word takes its descriptor last: allocated, aligned, offset. */
#ifndef FW_RUNTIME_SRC_GPU_KERNEL_ABI_H_
#define FW_RUNTIME_SRC_GPU_KERNEL_ABI_H_

#include <stdint.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel parameters of a launch: `values` holds them, `params` points at each (the
 * driver's `void **kernelParams`). */
typedef struct fw_gpu_kernel_params_t {
  int64_t *values;
  void **params;
  size_t count;
} fw_gpu_kernel_params_t;

fw_status_t fw_gpu_kernel_params_make(const fw_device_launch_t *launch,
                                      fw_gpu_kernel_params_t *out);
void fw_gpu_kernel_params_free(fw_gpu_kernel_params_t *params);

/* The launch shape: the variant's block size (256 when it has none) and, since kernels
 * walk their work with a grid-stride loop, a grid of 8 blocks per multiprocessor unless
 * the launch asks for more. */
void fw_gpu_launch_shape(const fw_device_launch_t *launch, uint32_t multiprocessors,
                         unsigned *out_grid, unsigned *out_block);

#ifdef __cplusplus
}
#endif

#endif
