/* GPU power through NVML (power.h). */
#define _GNU_SOURCE
#include "power.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "device_cuda.h"
#include "runtime_internal.h"

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_shutdown_fn)(void);
typedef const char *(*nvml_error_string_fn)(int);
typedef int (*nvml_handle_by_pci_fn)(const char *pci_bus_id, void **device);
typedef int (*nvml_power_usage_fn)(void *device, unsigned int *milliwatts);
enum { kInit, kShutdown, kErrorString, kHandleByPci, kPowerUsage };
static const char *const kNames[5] = {"nvmlInit_v2", "nvmlShutdown", "nvmlErrorString",
                                      "nvmlDeviceGetHandleByPciBusId_v2",
                                      "nvmlDeviceGetPowerUsage"};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One sample of every device (lock held). */
static void sample(fw_power_monitor_t *m) {
  nvml_power_usage_fn usage = (nvml_power_usage_fn)m->fns[kPowerUsage];
  for (uint32_t i = 0; i < m->num_devices; ++i) {
    fw_power_device_t *d = &m->devices[i];
    unsigned int mw = 0;
    if (usage(d->handle, &mw) != 0) continue;
    uint64_t t = now_ns();
    double w = mw * 1e-3;
    if (d->last_ns) {
      double dt = (double)(t - d->last_ns) * 1e-9;
      d->joules += 0.5 * (w + d->last_watts) * dt; /* trapezoids */
      d->seconds += dt;
    }
    d->last_ns = t;
    d->last_watts = w;
    ++d->samples;
    d->sum_watts += w;
    if (w > d->max_watts) d->max_watts = w;
  }
}

static void *monitor_main(void *arg) {
  fw_power_monitor_t *m = arg;
  pthread_mutex_lock(&m->lock);
  while (!m->stop) {
    sample(m);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += FW_POWER_PERIOD_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_nsec -= 1000000000L;
      ++until.tv_sec;
    }
    pthread_cond_timedwait(&m->cv, &m->lock, &until);
  }
  pthread_mutex_unlock(&m->lock);
  return NULL;
}

void fw_power_start(fw_power_monitor_t *m, fw_runtime_t *rt) {
  memset(m, 0, sizeof(*m));
  pthread_mutex_init(&m->lock, NULL);
  pthread_cond_init(&m->cv, NULL);
  m->initialized = 1;
  int gpus = 0;
  for (uint32_t d = 1; d < rt->num_devices; ++d)
    gpus += rt->devices[d]->vtable->target_kind == FW_TARGET_KIND_CUDA;
  if (!gpus) return; /* nothing to measure, nothing to say */
  m->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m->library) {
    snprintf(m->why, sizeof(m->why), "%s", dlerror()); /* names the library */
    return;
  }
  for (int i = 0; i < 5; ++i)
    if (!(m->fns[i] = dlsym(m->library, kNames[i]))) {
      snprintf(m->why, sizeof(m->why), "libnvidia-ml.so.1 has no %s", kNames[i]);
      dlclose(m->library);
      m->library = NULL;
      return;
    }
  int r = ((nvml_init_fn)m->fns[kInit])();
  if (r != 0) {
    snprintf(m->why, sizeof(m->why), "nvmlInit failed: %s",
             ((nvml_error_string_fn)m->fns[kErrorString])(r));
    dlclose(m->library);
    m->library = NULL;
    return;
  }
  for (uint32_t d = 1; d < rt->num_devices && m->num_devices < FW_MAX_POWER_DEVICES; ++d) {
    if (rt->devices[d]->vtable->target_kind != FW_TARGET_KIND_CUDA) continue;
    char bus[32];
    void *handle = NULL;
    if (fw_cuda_pci_bus_id(rt->devices[d], bus, sizeof(bus)) != 0 ||
        ((nvml_handle_by_pci_fn)m->fns[kHandleByPci])(bus, &handle) != 0)
      continue;
    fw_power_device_t *p = &m->devices[m->num_devices++];
    snprintf(p->name, sizeof(p->name), "%s", rt->memory.nodes[rt->device_node[d]].name);
    p->handle = handle;
  }
  if (!m->num_devices) {
    snprintf(m->why, sizeof(m->why), "NVML knows none of the GPUs by their PCI bus id");
  } else if (pthread_create(&m->thread, NULL, monitor_main, m) == 0) {
    m->running = 1;
    return;
  } else {
    snprintf(m->why, sizeof(m->why), "cannot start the power monitor thread");
  }
  ((nvml_shutdown_fn)m->fns[kShutdown])();
  dlclose(m->library);
  m->library = NULL;
  m->num_devices = 0;
}

void fw_power_stop(fw_power_monitor_t *m) {
  if (!m->initialized) return;
  if (m->running) {
    pthread_mutex_lock(&m->lock);
    m->stop = 1;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    m->running = 0;
    ((nvml_shutdown_fn)m->fns[kShutdown])();
    dlclose(m->library);
    m->library = NULL;
  }
  pthread_cond_destroy(&m->cv);
  pthread_mutex_destroy(&m->lock);
  m->initialized = 0;
}

void fw_power_read(fw_power_monitor_t *m, fw_profile_info_t *info) {
  if (!m->initialized) return;
  info->power_note = m->why[0] ? m->why : NULL;
  if (!m->running) return;
  pthread_mutex_lock(&m->lock);
  sample(m); /* up to now */
  info->num_power = m->num_devices;
  for (uint32_t i = 0; i < m->num_devices; ++i) {
    const fw_power_device_t *d = &m->devices[i];
    fw_power_info_t *p = &info->power[i];
    snprintf(p->device, sizeof(p->device), "%s", d->name);
    p->samples = d->samples;
    p->seconds = d->seconds;
    p->average_watts = d->samples ? d->sum_watts / (double)d->samples : 0;
    p->max_watts = d->max_watts;
    p->joules = d->joules;
  }
  pthread_mutex_unlock(&m->lock);
}
