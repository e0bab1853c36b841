/* Internal: the HIP device (device_hip.c). */
#ifndef FW_RUNTIME_SRC_DEVICE_HIP_H_
#define FW_RUNTIME_SRC_DEVICE_HIP_H_

#include <stddef.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens libamdhip64.so (once per process) and creates a device per AMD GPU. With none,
 * *out_count is 0 and `why` says why (no HIP runtime, no GPU, a failed query); that is
 * not an error. The caller destroys the devices and frees the array. */
fw_status_t fw_hip_discover(fw_device_t ***out_devices, size_t *out_count, char *why,
                            size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
