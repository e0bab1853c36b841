/* Internal: GPU power while profiling. NVIDIA GPUs through NVML (libnvidia-ml.so.1, opened
 * with dlopen): a monitor thread samples each GPU's power draw every FW_POWER_PERIOD_MS,
 * never on the task path, and integrates it into energy. GPUs are matched to NVML's by
 * PCI bus id, as the two number them independently. */
#ifndef FW_RUNTIME_SRC_POWER_H_
#define FW_RUNTIME_SRC_POWER_H_

#include <pthread.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_POWER_PERIOD_MS 20

typedef struct fw_power_device_t {
  char name[16];  /* the GPU's memory node, "cuda:0" */
  void *handle;   /* nvmlDevice_t */
  uint64_t samples;
  double sum_watts, max_watts, joules, seconds;
  double last_watts;
  uint64_t last_ns; /* 0 before the first sample */
} fw_power_device_t;

typedef struct fw_power_monitor_t {
  int initialized; /* fw_power_start ran */
  int running;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cv;
  int stop;
  void *library;
  void *fns[5]; /* NVML entry points (power.c) */
  uint32_t num_devices;
  fw_power_device_t devices[FW_MAX_POWER_DEVICES];
  char why[160]; /* no monitor: why */
} fw_power_monitor_t;

struct fw_runtime_t;
/* Starts sampling the runtime's NVIDIA GPUs; with none, or without NVML, records why and
 * starts nothing (not an error). */
void fw_power_start(fw_power_monitor_t *m, struct fw_runtime_t *rt);
/* Stops the thread and closes NVML. */
void fw_power_stop(fw_power_monitor_t *m);
/* The figures so far into the profile info. */
void fw_power_read(fw_power_monitor_t *m, fw_profile_info_t *info);

#ifdef __cplusplus
}
#endif

#endif
