#define _GNU_SOURCE
#include "host_cpus.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

/* CPUs' worth of `quota` per `period` (both positive), rounded up. */
static uint64_t quota_cpus(uint64_t quota, uint64_t period) {
  return quota / period + (quota % period != 0);
}

/* cgroup v2: cpu.max is "QUOTA PERIOD" in microseconds, or "max PERIOD" for none. */
static void bound_v2(const char *dir, void *ctx) {
  uint64_t *cpus = ctx, quota = 0, period = 0;
  char line[128];
  if (!fw_cgroup_read_line(dir, "/cpu.max", line, sizeof(line)) || !strncmp(line, "max", 3))
    return;
  char *space = strchr(line, ' ');
  if (!space) return;
  *space = '\0';
  if (!fw_cgroup_parse_number(line, &quota) || !fw_cgroup_parse_number(space + 1, &period) ||
      !quota || !period)
    return;
  uint64_t n = quota_cpus(quota, period);
  if (!*cpus || n < *cpus) *cpus = n;
}

/* cgroup v1: cpu.cfs_quota_us (-1 for none) over cpu.cfs_period_us. */
static void bound_v1(const char *dir, void *ctx) {
  uint64_t *cpus = ctx, quota = 0, period = 0;
  char line[128];
  if (!fw_cgroup_read_line(dir, "/cpu.cfs_quota_us", line, sizeof(line)) ||
      !fw_cgroup_parse_number(line, &quota) || !quota ||
      !fw_cgroup_read_line(dir, "/cpu.cfs_period_us", line, sizeof(line)) ||
      !fw_cgroup_parse_number(line, &period) || !period)
    return;
  uint64_t n = quota_cpus(quota, period);
  if (!*cpus || n < *cpus) *cpus = n;
}

uint32_t fw_host_cpu_quota_at(const char *root) {
  uint64_t cpus = 0;
  char dir[FW_CGROUP_PATH_MAX], top[FW_CGROUP_PATH_MAX];
  if (fw_cgroup_dir(root, NULL, dir, top)) fw_cgroup_walk_up(dir, top, bound_v2, &cpus);
  if (fw_cgroup_dir(root, "cpu", dir, top)) fw_cgroup_walk_up(dir, top, bound_v1, &cpus);
  return cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
}

/* The CPUs in the process's affinity mask; 0 when it cannot be read. */
static uint32_t affinity_cpus(void) {
  for (int size = 1024; size <= 1 << 20; size *= 2) {
    cpu_set_t *set = CPU_ALLOC(size);
    if (!set) return 0;
    size_t bytes = CPU_ALLOC_SIZE(size);
    CPU_ZERO_S(bytes, set);
    int ok = sched_getaffinity(0, bytes, set) == 0;
    uint32_t count = ok ? (uint32_t)CPU_COUNT_S(bytes, set) : 0;
    CPU_FREE(set);
    if (ok) return count;
    if (errno != EINVAL) return 0; /* EINVAL: the kernel's mask is larger than this one */
  }
  return 0;
}

uint32_t fw_host_cpus(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  uint32_t cpus = online > 0 ? (uint32_t)online : 1;
  uint32_t allowed = affinity_cpus();
  if (allowed && allowed < cpus) cpus = allowed;
  uint32_t quota = fw_host_cpu_quota_at("");
  if (quota && quota < cpus) cpus = quota;
  return cpus ? cpus : 1;
}
