/* Kernel profiles (profile.h). */
#define _GNU_SOURCE
#include "profile.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "history.h"

/* The counters of each source, in the order they are read. */
static const struct {
  uint32_t type;
  uint64_t config;
  const char *name;
} kHardware[FW_PROFILE_MAX_COUNTERS] =
    {{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
     {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
     {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses"},
     {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses"}},
  kSoftware[3] = {{PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock-ns"},
                  {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults"},
                  {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches"}};

const char *fw_profile_counter_name(fw_counter_source_t source, uint32_t i) {
  if (source == FW_COUNTERS_HARDWARE && i < FW_PROFILE_MAX_COUNTERS) return kHardware[i].name;
  if (source == FW_COUNTERS_SOFTWARE && i < 3) return kSoftware[i].name;
  return NULL;
}

void fw_profile_init(fw_profile_t *p, int enabled) {
  memset(p, 0, sizeof(*p));
  p->enabled = enabled;
  pthread_mutex_init(&p->lock, NULL);
}

void fw_profile_fini(fw_profile_t *p) {
  for (size_t i = 0; i < p->capacity; ++i) {
    free((char *)p->entries[i].task);
    free((char *)p->entries[i].config);
    free((char *)p->entries[i].arch);
  }
  free(p->entries);
  pthread_mutex_destroy(&p->lock);
}

static int open_event(uint32_t type, uint64_t config, int group) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.disabled = group < 0; /* the leader starts disabled, the group with it */
  attr.exclude_kernel = type == PERF_TYPE_HARDWARE;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP;
  return (int)syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1, group, 0);
}

/* Opens a group of the first `n` events of a source for the calling thread; -1 when any
 * is refused. */
static int open_group(uint32_t n, int hardware) {
  int leader = -1;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t type = hardware ? kHardware[i].type : kSoftware[i].type;
    uint64_t config = hardware ? kHardware[i].config : kSoftware[i].config;
    int fd = open_event(type, config, leader);
    if (fd < 0) {
      if (leader >= 0) close(leader); /* closing the leader releases the group */
      return -1;
    }
    if (leader < 0) leader = fd;
  }
  ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  return leader;
}

/* The source the whole runtime uses, decided by the first worker: hardware where the
 * machine allows it, else software, else none (lock held). */
static void probe(fw_profile_t *p) {
  int fd = open_group(FW_PROFILE_MAX_COUNTERS, 1);
  if (fd >= 0) {
    p->source = FW_COUNTERS_HARDWARE;
    p->num_counters = FW_PROFILE_MAX_COUNTERS;
  } else if ((fd = open_group(3, 0)) >= 0) {
    p->source = FW_COUNTERS_SOFTWARE;
    p->num_counters = 3;
  } else {
    p->source = FW_COUNTERS_NONE;
    p->num_counters = 0;
  }
  if (fd >= 0) close(fd);
  p->probed = 1;
}

void fw_profile_open_counters(fw_profile_t *p, fw_profile_counters_t *c) {
  if (c->opened || !p->enabled) return;
  c->opened = 1;
  c->group_fd = -1;
  pthread_mutex_lock(&p->lock);
  if (!p->probed) probe(p);
  pthread_mutex_unlock(&p->lock);
  if (p->source != FW_COUNTERS_NONE)
    c->group_fd = open_group(p->num_counters, p->source == FW_COUNTERS_HARDWARE);
}

void fw_profile_close_counters(fw_profile_counters_t *c) {
  if (c->opened && c->group_fd >= 0) close(c->group_fd);
  c->group_fd = -1;
  c->opened = 0;
}

void fw_profile_read(const fw_profile_t *p, const fw_profile_counters_t *c, uint64_t *values) {
  memset(values, 0, FW_PROFILE_MAX_COUNTERS * sizeof(uint64_t));
  if (c->group_fd < 0) return;
  uint64_t buffer[1 + FW_PROFILE_MAX_COUNTERS];
  ssize_t got = read(c->group_fd, buffer, sizeof(buffer));
  if (got < (ssize_t)sizeof(uint64_t) || buffer[0] != p->num_counters) return;
  memcpy(values, buffer + 1, p->num_counters * sizeof(uint64_t));
}

uint32_t fw_profile_bucket(double seconds) {
  double ns = seconds * 1e9;
  if (!(ns >= 1)) return 0;
  double b = floor(log2(ns) * FW_PROFILE_BUCKETS_PER_OCTAVE);
  return b >= FW_PROFILE_BUCKETS - 1 ? FW_PROFILE_BUCKETS - 1 : (uint32_t)b;
}

double fw_profile_bucket_seconds(uint32_t bucket) {
  return exp2((bucket + 0.5) / FW_PROFILE_BUCKETS_PER_OCTAVE) * 1e-9;
}

static uint64_t hash_key(const char *task, uint32_t device, uint32_t size_class,
                         const char *arch, const char *config, int selected) {
  uint64_t h = 1469598103934665603ull;
  for (const char *c = task; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;
  for (const char *c = arch; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;
  for (const char *c = config; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  h = (h ^ (unsigned)selected) * 1099511628211ull;
  h = (h ^ device) * 1099511628211ull;
  return (h ^ size_class) * 1099511628211ull;
}

static fw_profile_entry_t *find(fw_profile_t *p, const char *task, uint32_t device,
                                uint32_t size_class, const char *arch, const char *config,
                                int selected) {
  if ((p->size + 1) * 4 > p->capacity * 3) {
    size_t cap = p->capacity ? p->capacity * 2 : 32;
    fw_profile_entry_t *grown = calloc(cap, sizeof(*grown));
    if (!grown) return NULL;
    for (size_t i = 0; i < p->capacity; ++i) {
      fw_profile_entry_t *e = &p->entries[i];
      if (!e->task) continue;
      size_t j = hash_key(e->task, e->device, e->size_class, e->arch, e->config, e->selected) &
                 (cap - 1);
      while (grown[j].task) j = (j + 1) & (cap - 1);
      grown[j] = *e;
    }
    free(p->entries);
    p->entries = grown;
    p->capacity = cap;
  }
  size_t j = hash_key(task, device, size_class, arch, config, selected) & (p->capacity - 1);
  for (;; j = (j + 1) & (p->capacity - 1)) {
    fw_profile_entry_t *e = &p->entries[j];
    if (!e->task) break;
    if (e->device == (fw_target_kind_t)device && e->size_class == size_class &&
        e->selected == selected && strcmp(e->task, task) == 0 && strcmp(e->arch, arch) == 0 &&
        strcmp(e->config, config) == 0)
      return e;
  }
  fw_profile_entry_t *e = &p->entries[j];
  char *owned_task = strdup(task), *owned_arch = strdup(arch), *owned_config = strdup(config);
  if (!owned_task || !owned_arch || !owned_config) {
    free(owned_task);
    free(owned_arch);
    free(owned_config);
    return NULL;
  }
  e->task = owned_task;
  e->arch = owned_arch;
  e->config = owned_config;
  e->selected = selected;
  e->device = (fw_target_kind_t)device;
  e->size_class = size_class;
  e->min_seconds = INFINITY;
  ++p->size;
  return e;
}

void fw_profile_record(fw_profile_t *p, const char *task, const char *arch, const char *config,
                       int selected, uint32_t device, uint32_t workgroups, uint64_t bytes,
                       double seconds,
                       double device_seconds, const uint64_t *before, const uint64_t *after,
                       const uint64_t (*moved)[FW_NUM_TIERS]) {
  if (!(seconds >= 0) || !isfinite(seconds)) return;
  pthread_mutex_lock(&p->lock);
  fw_profile_entry_t *e = find(p, task, device, fw_history_size_class(bytes), arch ? arch : "",
                               config ? config : "", selected != 0);
  if (e) {
    ++e->count;
    if (workgroups > e->workgroups) e->workgroups = workgroups;
    if (device_seconds >= 0 && isfinite(device_seconds)) {
      e->device_seconds += device_seconds;
      ++e->device_runs;
    }
    e->total_seconds += seconds;
    if (seconds < e->min_seconds) e->min_seconds = seconds;
    if (seconds > e->max_seconds) e->max_seconds = seconds;
    ++e->histogram[fw_profile_bucket(seconds)];
    for (uint32_t i = 0; i < p->num_counters; ++i)
      if (after[i] >= before[i]) e->counters[i] += (double)(after[i] - before[i]);
    for (int from = 0; from < FW_NUM_TIERS; ++from)
      for (int to = 0; to < FW_NUM_TIERS; ++to) e->bytes_moved[from][to] += moved[from][to];
  }
  pthread_mutex_unlock(&p->lock);
}
