/* Internal: the CUDA device (device_cuda.c). */
#ifndef FW_RUNTIME_SRC_DEVICE_CUDA_H_
#define FW_RUNTIME_SRC_DEVICE_CUDA_H_

#include <stddef.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens libcuda.so.1 (once per process) and creates a device per NVIDIA GPU. With none,
 * *out_count is 0 and `why` says why (no driver library, no GPU, a failed query); that
 * is not an error. The caller destroys the devices and frees the array. */
fw_status_t fw_cuda_discover(fw_device_t ***out_devices, size_t *out_count, char *why,
                             size_t why_size);

/* The PCI bus id of a device fw_cuda_discover created ("0000:41:00.0"), which NVML
 * identifies GPUs by; nonzero when the driver does not say. */
int fw_cuda_pci_bus_id(fw_device_t *device, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
