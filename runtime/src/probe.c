/* fw_probe_devices: what devices this machine has for fw, and for the kinds it lacks,
 * why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "device_cuda.h"
#include "device_hip.h"
#include "status_internal.h"

static void report(fw_device_report_t *r, fw_target_kind_t kind, fw_device_t *device) {
  memset(r, 0, sizeof(*r));
  r->kind = kind;
  fw_device_info_t info;
  fw_status_t s = device->vtable->query(device, &info);
  if (s) {
    snprintf(r->why, sizeof(r->why), "%s", fw_status_message(s));
    fw_status_free(s);
    return;
  }
  r->available = 1;
  snprintf(r->name, sizeof(r->name), "%s", info.name);
  snprintf(r->arch, sizeof(r->arch), "%s", info.arch);
  r->memory_bytes = info.memory_bytes;
  r->compute_units = info.compute_units;
}

const fw_gpu_driver_t fw_gpu_drivers[FW_NUM_GPU_DRIVERS] = {
    {FW_TARGET_KIND_CUDA, "cuda", fw_cuda_discover},
    {FW_TARGET_KIND_HIP, "hip", fw_hip_discover},
};

fw_status_t fw_probe_devices(fw_device_report_t *out, size_t capacity, size_t *out_count) {
  if (!out_count) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_count is NULL");
  *out_count = 0;
  if (capacity && !out) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out is NULL");
  size_t n = 0;
  fw_device_report_t r;

  fw_device_t *cpu = NULL;
  fw_status_t s = fw_device_cpu_create(&cpu);
  if (s) return s;
  report(&r, FW_TARGET_KIND_CPU, cpu);
  cpu->vtable->destroy(cpu);
  if (n < capacity) out[n] = r;
  ++n;

  /* Each GPU kind: its devices, or one line saying why there are none. */
  for (size_t k = 0; k < FW_NUM_GPU_DRIVERS; ++k) {
    const fw_gpu_driver_t *driver = &fw_gpu_drivers[k];
    fw_device_t **gpus = NULL;
    size_t count = 0;
    char why[sizeof(r.why)];
    s = driver->discover(&gpus, &count, why, sizeof(why));
    if (s) return s;
    for (size_t i = 0; i < count; ++i) {
      report(&r, driver->kind, gpus[i]);
      gpus[i]->vtable->destroy(gpus[i]);
      if (n < capacity) out[n] = r;
      ++n;
    }
    free(gpus);
    if (!count) {
      memset(&r, 0, sizeof(r));
      r.kind = driver->kind;
      snprintf(r.why, sizeof(r.why), "%s", why);
      if (n < capacity) out[n] = r;
      ++n;
    }
  }

  *out_count = n;
  return FW_OK;
}
