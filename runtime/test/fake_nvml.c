/* A stand-in for NVIDIA's libnvidia-ml.so.1 (NVML), for tests of the runtime's power
 * monitor on machines without a GPU: the one GPU of fake_cuda.c (PCI bus 0000:41:00.0)
 * draws FW_FAKE_NVML_WATTS watts (default 300). Built as libnvidia-ml.so.1 next to the
 * stand-in libcuda.so.1; a test puts that directory on LD_LIBRARY_PATH. */
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

enum { NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_NOT_FOUND = 6 };

static int g_initialized;
static int g_device; /* the handle's target */

FAKE_EXPORT int nvmlInit_v2(void) {
  g_initialized = 1;
  return NVML_SUCCESS;
}

FAKE_EXPORT int nvmlShutdown(void) {
  g_initialized = 0;
  return NVML_SUCCESS;
}

FAKE_EXPORT const char *nvmlErrorString(int result) {
  return result == NVML_ERROR_NOT_FOUND ? "Not Found" : "Uninitialized";
}

FAKE_EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, void **device) {
  if (!g_initialized) return NVML_ERROR_UNINITIALIZED;
  if (strcmp(bus_id, "0000:41:00.0") != 0) return NVML_ERROR_NOT_FOUND;
  *device = &g_device;
  return NVML_SUCCESS;
}

FAKE_EXPORT int nvmlDeviceGetPowerUsage(void *device, unsigned int *milliwatts) {
  if (!g_initialized) return NVML_ERROR_UNINITIALIZED;
  if (device != &g_device) return NVML_ERROR_NOT_FOUND;
  const char *watts = getenv("FW_FAKE_NVML_WATTS");
  *milliwatts = (unsigned int)((watts ? atof(watts) : 300.0) * 1000.0);
  return NVML_SUCCESS;
}
