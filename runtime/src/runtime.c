/* The runtime object: options, devices, memory, scheduler, history and trace; and its
 * destruction, which may be triggered from one of its own threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "host_cpus.h"
#include "host_memory.h"
#include "runtime_internal.h"
#include "status_internal.h"

#define FW_MAX_WORKERS 1024u
#define FW_DEFAULT_PREFETCH_WINDOW 16u

uint32_t fw_runtime_abi_version(void) { return FW_RUNTIME_ABI_VERSION; }

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static fw_status_t parse_scheduler(const char *text, fw_scheduler_kind_t *out) {
  if (!strcmp(text, "eager")) *out = FW_SCHEDULER_EAGER;
  else if (!strcmp(text, "ws")) *out = FW_SCHEDULER_WS;
  else if (!strcmp(text, "heft")) *out = FW_SCHEDULER_HEFT;
  else
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "unknown scheduler '%s' (FW_SCHED): expected eager, ws or heft", text);
  return FW_OK;
}

static fw_status_t parse_count(const char *name, const char *text, uint32_t min, uint32_t max,
                               uint32_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(text, &end, 10);
  /* Digits only: strtoul would skip blanks and take a sign (" -1" wraps to a large one). */
  if (text[0] < '0' || text[0] > '9' || !end || *end || errno == ERANGE || v < min || v > max)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "%s='%s': expected a number from %u to %u",
                          name, text, min, max);
  *out = (uint32_t)v;
  return FW_OK;
}

/* Every device of a runtime, real or simulated, has its line in the statistics. */
_Static_assert(sizeof(((fw_runtime_t *)0)->sim_device_node) / sizeof(uint32_t) <=
                   FW_STATS_MAX_DEVICES,
               "more simulated devices than fw_runtime_stats_t holds");
_Static_assert(FW_MAX_DEVICES <= FW_STATS_MAX_DEVICES, "more devices than the stats hold");

/* Validates the simulated machine and copies it into the runtime. */
static fw_status_t copy_machine(fw_runtime_t *rt, const fw_sim_machine_t *in) {
  if (in->num_devices == 0 || !in->devices)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "the simulated machine has no devices");
  fw_sim_device_t *devices = calloc(in->num_devices, sizeof(*devices));
  if (!devices) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  rt->machine.devices = devices;
  rt->machine.num_devices = in->num_devices;
  size_t max_devices = sizeof(rt->sim_device_node) / sizeof(rt->sim_device_node[0]);
  if (in->num_devices > max_devices)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "the simulated machine has too many devices: %zu (at most %zu)",
                          in->num_devices, max_devices);
  uint64_t workers = 0;
  for (size_t d = 0; d < in->num_devices; ++d) {
    const fw_sim_device_t *src = &in->devices[d];
    fw_sim_device_t *dst = &devices[d];
    const char *name = src->name ? src->name : "device";
    if (src->kind != FW_TARGET_KIND_CPU && src->kind != FW_TARGET_KIND_CUDA &&
        src->kind != FW_TARGET_KIND_HIP)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "simulated device '%s': unknown kind %d",
                            name, (int)src->kind);
    if (src->workers == 0)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "simulated device '%s' needs at least one worker", name);
    if (!(src->gflops > 0) && !(src->memory_gbps > 0))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "simulated device '%s' needs a positive gflops or memory_gbps", name);
    const struct {
      const char *what;
      double value, min, max;
    } kRanges[] = {{"gflops", src->gflops, FW_SIM_MIN_RATE, FW_SIM_MAX_RATE},
                   {"memory_gbps", src->memory_gbps, FW_SIM_MIN_RATE, FW_SIM_MAX_RATE},
                   {"link_gbps", src->link_gbps, FW_SIM_MIN_RATE, FW_SIM_MAX_RATE},
                   {"link_latency_us", src->link_latency_us, 0, FW_SIM_MAX_US},
                   {"task_overhead_us", src->task_overhead_us, 0, FW_SIM_MAX_US},
                   {"history_speed", src->history_speed, FW_SIM_MIN_SPEED, FW_SIM_MAX_SPEED}};
    for (size_t r = 0; r < sizeof(kRanges) / sizeof(kRanges[0]); ++r)
      if (kRanges[r].value != 0 &&
          !(kRanges[r].value >= kRanges[r].min && kRanges[r].value <= kRanges[r].max))
        return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                              "simulated device '%s': %s is %g, outside %g to %g (or 0)", name,
                              kRanges[r].what, kRanges[r].value, kRanges[r].min,
                              kRanges[r].max);
    workers += src->workers;
    *dst = *src;
    dst->name = strdup(name);
    dst->num_kernel_speeds = 0;
    dst->kernel_names = NULL;
    dst->kernel_speeds = NULL;
    if (!dst->name) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    if (src->num_kernel_speeds && (!src->kernel_names || !src->kernel_speeds))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "simulated device '%s': %zu kernel speeds without their arrays",
                            name, src->num_kernel_speeds);
    if (src->num_kernel_speeds) {
      char **names = calloc(src->num_kernel_speeds, sizeof(*names));
      double *speeds = calloc(src->num_kernel_speeds, sizeof(*speeds));
      dst->kernel_names = (const char *const *)names;
      dst->kernel_speeds = speeds;
      if (!names || !speeds) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      dst->num_kernel_speeds = src->num_kernel_speeds;
      for (size_t k = 0; k < src->num_kernel_speeds; ++k) {
        names[k] = strdup(src->kernel_names[k] ? src->kernel_names[k] : "");
        speeds[k] = src->kernel_speeds[k];
        if (!names[k]) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
        if (!(speeds[k] >= FW_SIM_MIN_SPEED && speeds[k] <= FW_SIM_MAX_SPEED))
          return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                "simulated device '%s': the speed of kernel '%s' is %g, "
                                "outside %g to %g",
                                name, names[k], speeds[k], FW_SIM_MIN_SPEED, FW_SIM_MAX_SPEED);
      }
    }
  }
  if (workers > FW_MAX_WORKERS)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "the simulated machine has %llu workers (at most %u)",
                          (unsigned long long)workers, FW_MAX_WORKERS);
  rt->options.simulate = &rt->machine;
  fw_sim_bound_init(&rt->sim_bound, &rt->machine);
  return FW_OK;
}

static void free_machine(fw_runtime_t *rt) {
  fw_sim_device_t *devices = (fw_sim_device_t *)rt->machine.devices;
  for (size_t d = 0; devices && d < rt->machine.num_devices; ++d) {
    free((char *)devices[d].name);
    for (size_t k = 0; k < devices[d].num_kernel_speeds; ++k)
      free((char *)devices[d].kernel_names[k]);
    free((void *)devices[d].kernel_names);
    free((void *)devices[d].kernel_speeds);
  }
  free(devices);
}

/* Memory nodes of the simulated devices: CPUs compute in host memory, every other
 * device has its own node (device tier) behind its link. */
static fw_status_t add_sim_nodes(fw_runtime_t *rt, uint64_t device_limit) {
  for (size_t d = 0; d < rt->machine.num_devices; ++d) {
    const fw_sim_device_t *dev = &rt->machine.devices[d];
    if (dev->kind == FW_TARGET_KIND_CPU) {
      rt->sim_device_node[d] = FW_NODE_HOST;
      continue;
    }
    if (rt->memory.num_nodes == FW_MAX_MEMORY_NODES)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "the simulated machine has more than %d non-CPU devices",
                            FW_MAX_MEMORY_NODES - 2);
    uint32_t node = (uint32_t)rt->memory.num_nodes++;
    fw_memory_node_t *n = &rt->memory.nodes[node];
    snprintf(n->name, sizeof(n->name), "%s", dev->name);
    n->tier = FW_TIER_DEVICE;
    /* Its memory, or the device tier's cap where that is lower (as on a real device). */
    fw_memory_node_limit(n, fw_memory_device_limit(dev->memory_bytes, device_limit));
    n->lower = FW_NODE_HOST;
    rt->sim_device_node[d] = node;
  }
  return FW_OK;
}

/* "cpu,cuda": the device kinds kernels may run on. Without "cpu" in the list, kernels go
 * to the listed kinds whenever they have code there. */
static fw_status_t parse_devices(fw_runtime_t *rt, const char *text) {
  rt->use_kinds = ~0u;
  rt->prefer_kinds = 0;
  if (!text) return FW_OK;
  static const struct { const char *name; fw_target_kind_t kind; } kKinds[] = {
      {"cpu", FW_TARGET_KIND_CPU}, {"cuda", FW_TARGET_KIND_CUDA}, {"hip", FW_TARGET_KIND_HIP}};
  uint32_t listed = 0;
  const char *p = text;
  for (;;) {
    size_t len = strcspn(p, ",");
    size_t k = 0;
    while (k < 3 && !(strlen(kKinds[k].name) == len && !strncmp(p, kKinds[k].name, len))) ++k;
    if (k == 3)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "unknown device kind '%.*s' in the device list '%s' (FW_DEVICES): "
                            "expected a comma-separated list of cpu, cuda, hip",
                            (int)len, p, text);
    listed |= 1u << kKinds[k].kind;
    if (!p[len]) break;
    p += len + 1;
  }
  rt->use_kinds = listed | (1u << FW_TARGET_KIND_CPU);
  if (!(listed & (1u << FW_TARGET_KIND_CPU))) rt->prefer_kinds = listed;
  return FW_OK;
}

/* Opens the GPUs the device list allows (NVIDIA, then AMD): each gets a memory node of
 * the device tier, holding at most its memory (or the device tier's limit), whose copies
 * move down to host memory. A machine without a GPU driver simply has none. */
static fw_status_t add_gpus(fw_runtime_t *rt, uint64_t device_limit) {
  for (size_t k = 0; k < FW_NUM_GPU_DRIVERS; ++k) {
    const fw_gpu_driver_t *driver = &fw_gpu_drivers[k];
    if (!((rt->use_kinds >> driver->kind) & 1u)) continue;
    fw_device_t **gpus = NULL;
    size_t count = 0;
    char why[256];
    fw_status_t status = driver->discover(&gpus, &count, why, sizeof(why));
    if (status != FW_OK) return status;
    uint32_t ordinal = 0;
    for (size_t i = 0; i < count; ++i) {
      fw_device_info_t info;
      fw_status_t q = FW_OK;
      if (rt->num_devices == FW_MAX_DEVICES || rt->memory.num_nodes == FW_MAX_MEMORY_NODES ||
          (q = gpus[i]->vtable->query(gpus[i], &info)) != FW_OK) {
        fw_status_free(q); /* more GPUs than one runtime drives: the rest stay unused */
        gpus[i]->vtable->destroy(gpus[i]);
        continue;
      }
      uint32_t d = rt->num_devices++;
      rt->devices[d] = gpus[i];
      rt->device_info[d] = info;
      uint32_t node = (uint32_t)rt->memory.num_nodes++;
      fw_memory_node_t *n = &rt->memory.nodes[node];
      snprintf(n->name, sizeof(n->name), "%s:%u", driver->name, ordinal++);
      n->tier = FW_TIER_DEVICE;
      n->device = gpus[i];
      /* The driver, the kernels' code and other processes need some of it. */
      uint64_t usable = info.memory_bytes / 10 * 9;
      /* A cap (or "device=min") below what is usable, else what is usable. */
      fw_memory_node_limit(n, fw_memory_device_limit(usable, device_limit));
      n->lower = FW_NODE_HOST;
      rt->device_node[d] = node;
    }
    free(gpus);
  }
  return FW_OK;
}

/* The host tier's capacity when the tier limits set none: FW_HOST_MEMORY (a size, or
 * "unlimited" for none), else the machine's (host_memory.h); none in a simulation, which
 * models the device tiers only. */
static fw_status_t host_memory(const fw_runtime_options_t *o, const uint64_t limits[FW_NUM_TIERS],
                               uint64_t *out) {
  *out = 0;
  const char *v = o->host_memory ? o->host_memory : env("FW_HOST_MEMORY");
  uint64_t bytes = 0;
  if (v && strcmp(v, "unlimited") && (!fw_parse_byte_size(v, &bytes) || bytes == 0))
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "%s='%s': expected 'unlimited' or a positive size with an optional "
                          "unit (B; K, KiB or KB; M, MiB or MB; G, GiB or GB; T, TiB or TB)",
                          o->host_memory ? "host_memory" : "FW_HOST_MEMORY", v);
  if (limits[FW_TIER_HOST] || o->simulate) return FW_OK;
  *out = v ? bytes : fw_host_memory_capacity();
  return FW_OK;
}

static fw_status_t configure(fw_runtime_t *rt, const fw_runtime_options_t *o,
                             uint64_t limits[FW_NUM_TIERS], uint64_t *host_capacity,
                             const char **storage_dir, int *prefetch, uint32_t *window) {
  const char *v;
  fw_status_t status = FW_OK;
  rt->scheduler = o->scheduler;
  if (rt->scheduler == FW_SCHEDULER_DEFAULT && (v = env("FW_SCHED")))
    status = parse_scheduler(v, &rt->scheduler);
  if (status != FW_OK) return status;
  if (rt->scheduler == FW_SCHEDULER_DEFAULT) rt->scheduler = FW_SCHEDULER_HEFT;
  if ((unsigned)rt->scheduler > FW_SCHEDULER_HEFT)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "unknown scheduler kind %d",
                          (int)rt->scheduler);
  rt->num_workers = o->num_workers;
  if (!rt->num_workers && (v = env("FW_NUM_WORKERS")))
    status = parse_count("FW_NUM_WORKERS", v, 0, FW_MAX_WORKERS, &rt->num_workers);
  if (status != FW_OK) return status;
  if (rt->num_workers > FW_MAX_WORKERS)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "num_workers %u exceeds %u",
                          rt->num_workers, FW_MAX_WORKERS);
  if (!rt->num_workers) {
    uint32_t cpus = fw_host_cpus();
    rt->num_workers = cpus < FW_MAX_WORKERS ? cpus : FW_MAX_WORKERS;
  }
  const char *limits_text = o->tier_limits ? o->tier_limits : env("FW_TIER_LIMITS");
  status = fw_parse_tier_limits(limits_text, limits);
  if (status == FW_OK) status = host_memory(o, limits, host_capacity);
  if (status != FW_OK) return status;
  *storage_dir = o->storage_dir ? o->storage_dir : env("FW_STORAGE_DIR");
  *prefetch = !(o->flags & FW_RUNTIME_NO_PREFETCH);
  if (*prefetch && (v = env("FW_PREFETCH"))) {
    if (!strcmp(v, "0") || !strcmp(v, "off")) *prefetch = 0;
    else if (strcmp(v, "1") && strcmp(v, "on"))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "FW_PREFETCH='%s': expected 0, 1, off or on", v);
  }
  rt->autotune = !(o->flags & FW_RUNTIME_NO_AUTOTUNE);
  if (rt->autotune && (v = env("FW_AUTOTUNE"))) {
    if (!strcmp(v, "0") || !strcmp(v, "off")) rt->autotune = 0;
    else if (strcmp(v, "1") && strcmp(v, "on"))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "FW_AUTOTUNE='%s': expected 0, 1, off or on", v);
  }
  rt->caller_runs = !(o->flags & FW_RUNTIME_NO_CALLER_RUNS);
  if (rt->caller_runs && (v = env("FW_CALLER_RUNS"))) {
    if (!strcmp(v, "0") || !strcmp(v, "off")) rt->caller_runs = 0;
    else if (strcmp(v, "1") && strcmp(v, "on"))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "FW_CALLER_RUNS='%s': expected 0, 1, off or on", v);
  }
  /* The environment is checked even when the flag already asks for the page cache. */
  rt->buffered_storage = (o->flags & FW_RUNTIME_BUFFERED_STORAGE) != 0;
  if ((v = env("FW_STORAGE_IO"))) {
    if (!strcmp(v, "buffered")) rt->buffered_storage = 1;
    else if (strcmp(v, "direct"))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "FW_STORAGE_IO='%s': expected direct or buffered", v);
  }
  *window = o->prefetch_window;
  if (!*window && (v = env("FW_PREFETCH_WINDOW")))
    status = parse_count("FW_PREFETCH_WINDOW", v, 0, 1u << 20, window);
  if (status != FW_OK) return status;
  if (!*window) *window = FW_DEFAULT_PREFETCH_WINDOW;
  /* Copy threads: one per worker (1 to FW_MAX_PREFETCH_THREADS) unless
   * FW_PREFETCH_THREADS says. A copy thread reads about one buffer in the time a task
   * computes when the two are alike, so fewer threads than workers can prefetch only part
   * of the reads (docs/performance.md). */
  rt->prefetch_threads = rt->num_workers;
  if (rt->prefetch_threads < 1) rt->prefetch_threads = 1;
  if (rt->prefetch_threads > FW_MAX_PREFETCH_THREADS)
    rt->prefetch_threads = FW_MAX_PREFETCH_THREADS;
  if ((v = env("FW_PREFETCH_THREADS")))
    status = parse_count("FW_PREFETCH_THREADS", v, 1, FW_MAX_PREFETCH_THREADS,
                         &rt->prefetch_threads);
  if (status != FW_OK) return status;
  /* Kernels a GPU worker keeps launched ahead of the one its GPU runs (gpu_worker.c). */
  rt->gpu_pipeline = FW_DEFAULT_GPU_PIPELINE;
  if ((v = env("FW_GPU_PIPELINE")))
    status = parse_count("FW_GPU_PIPELINE", v, 1, FW_MAX_GPU_PIPELINE, &rt->gpu_pipeline);
  if (status != FW_OK) return status;
  /* Errors name where each value came from: the field or the environment. */
  const char *max_name = "max_submitted_tasks", *min_name = "min_submitted_tasks";
  rt->submit_max = o->max_submitted_tasks;
  if (!rt->submit_max && (v = env("FW_MAX_SUBMITTED_TASKS"))) {
    max_name = "FW_MAX_SUBMITTED_TASKS";
    status = parse_count(max_name, v, 0, UINT32_MAX, &rt->submit_max);
  }
  if (status != FW_OK) return status;
  rt->submit_resume = o->min_submitted_tasks;
  if (!rt->submit_resume && (v = env("FW_MIN_SUBMITTED_TASKS"))) {
    min_name = "FW_MIN_SUBMITTED_TASKS";
    status = parse_count(min_name, v, 0, UINT32_MAX, &rt->submit_resume);
  }
  if (status != FW_OK) return status;
  if (rt->submit_resume && !rt->submit_max)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "%s (%u) is set without a maximum (max_submitted_tasks or "
                          "FW_MAX_SUBMITTED_TASKS)",
                          min_name, rt->submit_resume);
  if (rt->submit_resume > rt->submit_max)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "%s (%u) exceeds %s (%u)", min_name,
                          rt->submit_resume, max_name, rt->submit_max);
  if (rt->submit_max && !rt->submit_resume)
    rt->submit_resume = (uint32_t)((uint64_t)rt->submit_max * 9 / 10);
  uint32_t spin_us = FW_DEFAULT_SPIN_US;
  if ((v = env("FW_SPIN_US"))) status = parse_count("FW_SPIN_US", v, 0, FW_MAX_SPIN_US, &spin_us);
  if (status != FW_OK) return status;
  rt->spin_ns = (uint64_t)spin_us * 1000u;
  status = parse_devices(rt, o->devices ? o->devices : env("FW_DEVICES"));
  if (status != FW_OK) return status;
  const char *history = o->history_path ? o->history_path : env("FW_HISTORY");
  if (history && !(rt->history_path = strdup(history)))
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  return FW_OK;
}

/* The history keeps each GPU's measured link under its node and device names ("cuda:0
 * NVIDIA H200"): a run on the same machine starts with the rate the last one measured. */
static void link_key(const fw_runtime_t *rt, uint32_t d, char *out, size_t size) {
  snprintf(out, size, "%s %s", rt->memory.nodes[rt->device_node[d]].name, rt->device_info[d].name);
}

static void load_links(fw_runtime_t *rt) {
  for (uint32_t d = 1; d < rt->num_devices; ++d) {
    char key[320];
    uint64_t bytes, ns;
    link_key(rt, d, key, sizeof(key));
    if (fw_history_link(&rt->history, key, &bytes, &ns))
      fw_memory_seed_link(&rt->memory, rt->device_node[d], bytes, ns);
  }
}

static void save_links(fw_runtime_t *rt) {
  for (uint32_t d = 1; d < rt->num_devices; ++d) {
    char key[320];
    uint64_t bytes, ns;
    link_key(rt, d, key, sizeof(key));
    if (fw_memory_link_measure(&rt->memory, rt->device_node[d], &bytes, &ns))
      fw_history_set_link(&rt->history, key, bytes, ns);
  }
}

/* Tears down what fw_runtime_create set up, in reverse; `stage` says how far it got. */
static void teardown(fw_runtime_t *rt, int stage) {
  if (stage >= 4) {
    fw_memory_stop_prefetch(&rt->memory); /* it reads the scheduler's lookahead */
    fw_scheduler_fini(&rt->sched);
  }
  if (stage >= 3) {
    if (rt->history_path && !rt->options.simulate) {
      save_links(rt);
      fw_status_t status = fw_history_save(&rt->history, rt->history_path);
      fw_status_free(status); /* nobody to report to at destruction */
    }
    fw_memory_fini(&rt->memory);
  }
  if (stage >= 4) fw_power_stop(&rt->power);
  fw_trace_fini(&rt->trace);
  fw_profile_fini(&rt->profile);
  fw_history_fini(&rt->history);
  /* devices[0] is the CPU device. */
  for (uint32_t d = 1; d < rt->num_devices; ++d) rt->devices[d]->vtable->destroy(rt->devices[d]);
  if (rt->cpu_device) rt->cpu_device->vtable->destroy(rt->cpu_device);
  free(rt->history_path);
  fw_simulator_fini(rt);
  fw_sim_bound_fini(&rt->sim_bound);
  free_machine(rt);
  free(rt);
}

fw_status_t fw_runtime_create(const fw_runtime_options_t *options, fw_runtime_t **out_runtime) {
  if (!out_runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_runtime is NULL");
  *out_runtime = NULL;
  fw_runtime_options_t defaults;
  memset(&defaults, 0, sizeof(defaults));
  const fw_runtime_options_t *o = options ? options : &defaults;
  if (o->flags & ~(FW_RUNTIME_NO_PREFETCH | FW_RUNTIME_TRACE | FW_RUNTIME_PROFILE |
                   FW_RUNTIME_NO_AUTOTUNE | FW_RUNTIME_BUFFERED_STORAGE |
                   FW_RUNTIME_NO_CALLER_RUNS))
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "unknown fw_runtime_options_t.flags 0x%x",
                          o->flags);
  fw_runtime_t *rt = calloc(1, sizeof(*rt));
  if (!rt) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  atomic_init(&rt->refcount, 1);
  atomic_init(&rt->next_buffer_serial, 0);
  rt->options = *o;
  rt->options.simulate = NULL;
  fw_history_init(&rt->history);
  fw_trace_init(&rt->trace, (o->flags & FW_RUNTIME_TRACE) != 0, o->simulate ? 0 : fw_now_ns());
  fw_profile_init(&rt->profile, (o->flags & FW_RUNTIME_PROFILE) && !o->simulate);
  uint64_t limits[FW_NUM_TIERS], host_capacity = 0;
  const char *storage_dir = NULL;
  int prefetch = 1;
  uint32_t window = 0;
  fw_status_t status =
      configure(rt, o, limits, &host_capacity, &storage_dir, &prefetch, &window);
  if (status == FW_OK && o->simulate) status = copy_machine(rt, o->simulate);
  if (status == FW_OK) status = fw_device_cpu_create(&rt->cpu_device);
  if (status == FW_OK) {
    rt->devices[0] = rt->cpu_device;
    rt->num_devices = 1;
    fw_status_t q = rt->cpu_device->vtable->query(rt->cpu_device, &rt->device_info[0]);
    fw_status_free(q); /* the CPU device's query cannot fail */
    rt->device_node[0] = FW_NODE_HOST;
  }
  /* The pool's blocks are memory the host tier does not count: a quarter of a cap more, an
   * eighth of the machine's (which leaves that much of what is available aside). */
  uint64_t pool = limits[FW_TIER_HOST] ? limits[FW_TIER_HOST] / 4 : host_capacity / 8;
  if (status == FW_OK && pool) fw_device_cpu_set_pool_limit(rt->cpu_device, (size_t)pool);
  /* A simulation reads the history (devices with a history_speed take their times from
   * it) but never writes it: nothing it runs is measured. */
  if (status == FW_OK && rt->history_path)
    status = fw_history_load(&rt->history, rt->history_path);
  if (status == FW_OK && rt->history_path && !o->simulate)
    status = fw_history_check_writable(rt->history_path);
  if (status != FW_OK) {
    teardown(rt, 0);
    return status;
  }
  status = fw_memory_init(&rt->memory, rt->cpu_device, limits, host_capacity, storage_dir,
                          rt->buffered_storage, prefetch, window);
  if (status != FW_OK) {
    teardown(rt, 0);
    return status;
  }
  rt->memory.trace = &rt->trace;
  status = o->simulate ? add_sim_nodes(rt, limits[FW_TIER_DEVICE])
                      : add_gpus(rt, limits[FW_TIER_DEVICE]);
  if (status != FW_OK) {
    teardown(rt, 3);
    return status;
  }
  if (!o->simulate) load_links(rt);
  status = fw_scheduler_init(rt, &rt->sched);
  if (status != FW_OK) {
    teardown(rt, 4);
    return status;
  }
  if (!o->simulate) status = fw_memory_start_prefetch(&rt->memory, rt, rt->prefetch_threads);
  if (status != FW_OK) {
    teardown(rt, 4);
    return status;
  }
  if (rt->profile.enabled) fw_power_start(&rt->power, rt);
  *out_runtime = rt;
  return FW_OK;
}

void fw_runtime_retain_internal(fw_runtime_t *runtime) {
  atomic_fetch_add_explicit(&runtime->refcount, 1, memory_order_relaxed);
}

static void *reaper_main(void *arg) {
  teardown(arg, 4);
  return NULL;
}

void fw_runtime_release_internal(fw_runtime_t *runtime) {
  if (atomic_fetch_sub_explicit(&runtime->refcount, 1, memory_order_acq_rel) != 1) return;
  if (fw_runtime_is_own_thread(runtime)) {
    /* The last reference went away on one of the runtime's own threads (a task held it),
     * which cannot join itself: a detached thread tears the runtime down. */
    pthread_t reaper;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create(&reaper, &attr, reaper_main, runtime);
    pthread_attr_destroy(&attr);
    (void)failed; /* without a thread the runtime is leaked rather than deadlocked */
    return;
  }
  teardown(runtime, 4);
}

void fw_runtime_destroy(fw_runtime_t *runtime) {
  if (!runtime) return;
  /* Queued prefetch requests hold buffers, and so the runtime: drop them, and when no task
   * is left (none can queue more) wait for the prefetch thread to let go of the rest, so
   * that a caller who waited and released everything tears the runtime down here (the
   * history saved, the storage directory removed), not later on the prefetch thread. */
  fw_scheduler_t *s = &runtime->sched;
  /* A simulation runs what is left in virtual time: its tasks hold the runtime. */
  if (s->simulated) fw_simulator_run(s);
  fw_sched_lock(s);
  int idle = atomic_load(&s->outstanding) == 0;
  fw_sched_unlock(s);
  fw_memory_drop_prefetches(&runtime->memory, idle);
  /* Buffers, modules and tasks still alive keep the runtime until they are released. */
  fw_runtime_release_internal(runtime);
}

/* ---- Statistics, traces, history, simulation ------------------------------------- */

/* "cpu", "cuda:0 NVIDIA H200", or the simulated device's name. */
static void worker_device_name(const fw_runtime_t *rt, const fw_worker_t *w, char *buf,
                               size_t size) {
  if (w->sim)
    snprintf(buf, size, "%s", w->sim->name);
  else if (w->kind == FW_TARGET_KIND_CPU)
    snprintf(buf, size, "cpu");
  else
    snprintf(buf, size, "%s %s", rt->memory.nodes[rt->device_node[w->device_index]].name,
             rt->device_info[w->device_index].name);
}

fw_status_t fw_runtime_get_stats(fw_runtime_t *rt, fw_runtime_stats_t *out) {
  if (!rt) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!out) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_stats is NULL");
  memset(out, 0, sizeof(*out));
  fw_scheduler_t *s = &rt->sched;
  uint32_t device_of[FW_STATS_MAX_DEVICES] = {0};
  fw_sched_lock(s);
  out->tasks_submitted = s->tasks_submitted;
  out->tasks_executed = s->tasks_executed;
  out->tasks_failed = s->tasks_failed;
  out->tasks_rerun = s->tasks_rerun;
  out->tasks_by_waiters = s->tasks_by_waiters;
  out->submit_waits = s->submit_waits;
  out->submit_wait_seconds = (double)s->submit_wait_ns * 1e-9;
  out->devices_lost = s->devices_lost;
  out->scheduler = s->policy->name;
  out->batches_planned = s->plans;
  out->plans_made = s->plans_made;
  out->planning_seconds = (double)s->planning_ns * 1e-9;
  if (rt->cpu_device)
    out->kernel_buffers_freed = fw_device_cpu_kernel_buffers_freed(rt->cpu_device);
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    char name[80];
    worker_device_name(rt, w, name, sizeof(name));
    /* Grouped by device (names may be longer than the field that shows them). */
    size_t d = 0;
    while (d < out->num_devices && device_of[d] != w->device_index) ++d;
    if (d == out->num_devices) {
      ++out->num_devices;
      device_of[d] = w->device_index;
      snprintf(out->devices[d].name, sizeof(out->devices[d].name), "%.*s",
               (int)sizeof(out->devices[d].name) - 1, name);
    }
    ++out->devices[d].workers;
    out->devices[d].tasks += w->tasks;
    out->devices[d].busy_seconds += (double)w->busy_ns * 1e-9;
    if (!w->sim && w->memory_node != FW_NODE_HOST)
      out->devices[d].link_gbps = fw_memory_link_gbps(&rt->memory, w->memory_node);
  }
  fw_sched_unlock(s);
  fw_memory_t *m = &rt->memory;
  pthread_mutex_lock(&m->lock);
  memcpy(out->bytes_moved, m->bytes_moved, sizeof(out->bytes_moved));
  fw_memory_copy_seconds(m, out->copy_seconds);
  out->evictions = m->evictions;
  out->prefetch_requests = m->prefetch_requests;
  out->prefetch_hits = m->prefetch_hits;
  out->demand_fetches = m->demand_fetches;
  out->stall_seconds = (double)m->stall_ns * 1e-9;
  out->storage_direct_bytes =
      atomic_load_explicit(&m->storage.direct_bytes, memory_order_relaxed);
  for (size_t n = 0; n < m->num_nodes; ++n) {
    fw_tier_t tier = m->nodes[n].tier;
    if (m->nodes[n].peak > out->peak_bytes[tier]) out->peak_bytes[tier] = m->nodes[n].peak;
    if (m->nodes[n].capacity > out->limit_bytes[tier]) out->limit_bytes[tier] = m->nodes[n].capacity;
  }
  pthread_mutex_unlock(&m->lock);
  return FW_OK;
}

fw_status_t fw_runtime_write_trace(fw_runtime_t *rt, const char *path) {
  if (!rt) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!path) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "path is NULL");
  fw_scheduler_t *s = &rt->sched;
  char (*names)[96] = calloc(s->num_workers ? s->num_workers : 1, sizeof(*names));
  const char **pointers = calloc(s->num_workers ? s->num_workers : 1, sizeof(*pointers));
  if (!names || !pointers) {
    free(names);
    free(pointers);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    char name[80];
    worker_device_name(rt, w, name, sizeof(name));
    snprintf(names[i], sizeof(names[i]), "%s worker %u", name, w->index);
    pointers[i] = names[i];
  }
  fw_status_t status = fw_trace_write(&rt->trace, path, pointers, s->num_workers);
  free(names);
  free(pointers);
  return status;
}

fw_status_t fw_runtime_save_history(fw_runtime_t *rt, const char *path) {
  if (!rt) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!path) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "path is NULL");
  save_links(rt); /* the links' measured rates, as at destruction */
  return fw_history_save(&rt->history, path);
}

fw_status_t fw_runtime_simulation_report(fw_runtime_t *rt, fw_sim_report_t *out) {
  if (!rt) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!out) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_report is NULL");
  if (!rt->options.simulate)
    return fw_status_make(FW_STATUS_FAILED_PRECONDITION,
                          "the runtime is not simulating (fw_runtime_options_t.simulate)");
  fw_simulator_run(&rt->sched);
  memset(out, 0, sizeof(*out));
  if (rt->sim_stall)
    return fw_status_create(fw_status_code(rt->sim_stall), fw_status_message(rt->sim_stall));
  out->makespan_seconds = rt->sim_makespan;
  out->critical_path_seconds = rt->sim_critical_path;
  out->work_bound_seconds = fw_sim_bound_area(&rt->sim_bound);
  double known = out->critical_path_seconds > out->work_bound_seconds
                     ? out->critical_path_seconds
                     : out->work_bound_seconds;
  out->window_bound_seconds = fw_sim_bound_windows(&rt->sim_bound, known);
  out->lower_bound_seconds = out->window_bound_seconds > known ? out->window_bound_seconds
                                                               : known;
  out->tasks = rt->sim_tasks;
  out->measured_tasks = rt->sim_measured_tasks;
  return FW_OK;
}

fw_status_t fw_runtime_profile(fw_runtime_t *rt, fw_profile_info_t *out_info,
                               fw_profile_visit_fn_t visit, void *user_data) {
  if (!rt) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  if (!rt->profile.enabled)
    return fw_status_make(FW_STATUS_FAILED_PRECONDITION,
                          "the runtime is not profiling (FW_RUNTIME_PROFILE)");
  fw_profile_t *p = &rt->profile;
  memset(out_info, 0, sizeof(*out_info));
  pthread_mutex_lock(&p->lock);
  out_info->source = p->source;
  out_info->num_counters = p->num_counters;
  out_info->cpu_workers = rt->sched.num_cpu_workers;
  for (uint32_t i = 0; i < p->num_counters; ++i)
    out_info->counter_names[i] = fw_profile_counter_name(p->source, i);
  for (size_t i = 0; visit && i < p->capacity; ++i)
    if (p->entries[i].task) visit(user_data, &p->entries[i]);
  pthread_mutex_unlock(&p->lock);
  fw_memory_t *m = &rt->memory;
  pthread_mutex_lock(&m->lock);
  memcpy(out_info->copy_bytes, m->bytes_moved, sizeof(out_info->copy_bytes));
  fw_memory_copy_seconds(m, out_info->copy_seconds);
  pthread_mutex_unlock(&m->lock);
  fw_power_read(&rt->power, out_info);
  return FW_OK;
}
