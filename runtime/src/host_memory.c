#define _POSIX_C_SOURCE 200809L
#include "host_memory.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

enum { kLineMax = 4096 };

/* cgroup v1 writes "no limit" as its largest page count in bytes (a little under 2^63). */
static const uint64_t kV1NoLimit = (uint64_t)1 << 62;

/* The number after `key` on the first line of `path` that starts with `key` and a blank
 * ("MemAvailable:   24310096 kB", "inactive_file 4096"), times `scale`. */
static int read_keyed(const char *path, const char *key, uint64_t scale, uint64_t *out) {
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  char line[kLineMax];
  size_t n = strlen(key);
  int found = 0;
  while (!found && fgets(line, sizeof(line), f))
    if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == '\t'))
      found = fw_cgroup_parse_number(line + n, out);
  fclose(f);
  if (found) *out *= scale;
  return found;
}

/* A file of one number or "max" (*unlimited = 1), `relative` under `dir`. */
static int read_limit(const char *dir, const char *relative, uint64_t *out, int *unlimited) {
  char line[64];
  int ok = fw_cgroup_read_line(dir, relative, line, sizeof(line));
  *unlimited = ok && !strncmp(line, "max", 3);
  return ok && (*unlimited || fw_cgroup_parse_number(line, out));
}

typedef struct {
  const char *limit, *usage, *inactive, *inactive_fallback;
  uint64_t no_limit; /* values from this one up mean none */
} cgroup_files_t;

static const cgroup_files_t kV2 = {"/memory.max", "/memory.current", "inactive_file", NULL,
                                   UINT64_MAX};
static const cgroup_files_t kV1 = {"/memory.limit_in_bytes", "/memory.usage_in_bytes",
                                   "total_inactive_file", "inactive_file", kV1NoLimit};

/* What the group in `dir` still allows: its limit less what it uses beyond the file
 * cache it can drop. 0 when it has no limit (or none could be read). */
static int group_room(const char *dir, const cgroup_files_t *files, uint64_t *room) {
  char path[FW_CGROUP_PATH_MAX];
  uint64_t limit = 0, usage = 0, inactive = 0;
  int unlimited = 0;
  if (!read_limit(dir, files->limit, &limit, &unlimited) || unlimited ||
      limit >= files->no_limit)
    return 0;
  if (!read_limit(dir, files->usage, &usage, &unlimited) || unlimited) usage = 0;
  if (fw_cgroup_join(path, dir, "/memory.stat") &&
      !read_keyed(path, files->inactive, 1, &inactive) && files->inactive_fallback)
    read_keyed(path, files->inactive_fallback, 1, &inactive);
  uint64_t used = usage > inactive ? usage - inactive : 0;
  *room = limit > used ? limit - used : 0;
  return 1;
}

typedef struct {
  const cgroup_files_t *files;
  uint64_t *available;
} room_walk_t;

static void bound_by_group(const char *dir, void *ctx) {
  room_walk_t *walk = ctx;
  uint64_t room = 0;
  if (group_room(dir, walk->files, &room) && room < *walk->available)
    *walk->available = room;
}

/* Bounds `*available` by the groups of one hierarchy the process is in (v2, or v1's
 * memory controller), from its own up to the hierarchy's mount. */
static void bound_by_cgroups(const char *root, int v2, uint64_t *available) {
  char dir[FW_CGROUP_PATH_MAX], top[FW_CGROUP_PATH_MAX];
  if (!fw_cgroup_dir(root, v2 ? NULL : "memory", dir, top)) return;
  room_walk_t walk = {v2 ? &kV2 : &kV1, available};
  fw_cgroup_walk_up(dir, top, bound_by_group, &walk);
}

uint64_t fw_host_memory_available_at(const char *root) {
  char path[FW_CGROUP_PATH_MAX];
  uint64_t available = UINT64_MAX;
  if ((!fw_cgroup_join(path, root, "/proc/meminfo") ||
       !read_keyed(path, "MemAvailable:", 1024, &available)) &&
      !*root) {
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) available = (uint64_t)pages * (uint64_t)page;
  }
  bound_by_cgroups(root, 1, &available);
  bound_by_cgroups(root, 0, &available);
  if (available == UINT64_MAX) return 0;
  return available ? available : 1; /* a full group: nothing, which is not "unknown" */
}

uint64_t fw_host_memory_capacity(void) {
  uint64_t available = fw_host_memory_available_at("");
  if (!available) return 0;
  uint64_t capacity = available - available / 8;
  return capacity > FW_HOST_MEMORY_FLOOR ? capacity : FW_HOST_MEMORY_FLOOR;
}
