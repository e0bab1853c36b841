#define _POSIX_C_SOURCE 200809L
#include "host_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kPathMax = 4096, kLineMax = 4096 };

/* cgroup v1 writes "no limit" as its largest page count in bytes (a little under 2^63). */
static const uint64_t kV1NoLimit = (uint64_t)1 << 62;

/* `a` then `b` in `out` (kPathMax bytes); whether they fit (a path that does not is not
 * read). */
static int join(char *out, const char *a, const char *b) {
  int n = snprintf(out, kPathMax, "%s%s", a, b);
  return n >= 0 && n < kPathMax;
}

/* A decimal number at `text` after blanks, up to a blank or the end of the line. */
static int parse_number(const char *text, uint64_t *out) {
  while (*text == ' ' || *text == '\t') ++text;
  if (*text < '0' || *text > '9') return 0;
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (*end && *end != ' ' && *end != '\t' && *end != '\n') return 0;
  *out = value;
  return 1;
}

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
      found = parse_number(line + n, out);
  fclose(f);
  if (found) *out *= scale;
  return found;
}

/* A file of one number or "max" (*unlimited = 1). */
static int read_limit(const char *path, uint64_t *out, int *unlimited) {
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  char line[64];
  int ok = fgets(line, sizeof(line), f) != NULL;
  fclose(f);
  *unlimited = ok && !strncmp(line, "max", 3);
  return ok && (*unlimited || parse_number(line, out));
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
  char path[kPathMax];
  uint64_t limit = 0, usage = 0, inactive = 0;
  int unlimited = 0;
  if (!join(path, dir, files->limit) || !read_limit(path, &limit, &unlimited) || unlimited ||
      limit >= files->no_limit)
    return 0;
  if (!join(path, dir, files->usage) || !read_limit(path, &usage, &unlimited) || unlimited)
    usage = 0;
  if (join(path, dir, "/memory.stat") && !read_keyed(path, files->inactive, 1, &inactive) &&
      files->inactive_fallback)
    read_keyed(path, files->inactive_fallback, 1, &inactive);
  uint64_t used = usage > inactive ? usage - inactive : 0;
  *room = limit > used ? limit - used : 0;
  return 1;
}

/* The least room of the groups from `dir` up to `top` (both under the mount point `top`). */
static void hierarchy_room(char *dir, const char *top, const cgroup_files_t *files,
                           uint64_t *available) {
  size_t top_len = strlen(top);
  for (;;) {
    uint64_t room = 0;
    if (group_room(dir, files, &room) && room < *available) *available = room;
    size_t len = strlen(dir);
    if (len <= top_len) return;
    char *slash = strrchr(dir, '/');
    if (!slash || (size_t)(slash - dir) < top_len) return;
    *slash = '\0';
  }
}

/* The file at `relative` under `root` (NULL when its path does not fit or it cannot be
 * opened). */
static FILE *open_under(const char *root, const char *relative) {
  char path[kPathMax];
  return join(path, root, relative) ? fopen(path, "re") : NULL;
}

/* The process's group path for cgroup v2 (`v2`) or for v1's memory controller, from
 * /proc/self/cgroup ("0::/a/b", "4:memory:/a/b"). */
static int group_path(const char *root, int v2, char *out, size_t size) {
  FILE *f = open_under(root, "/proc/self/cgroup");
  if (!f) return 0;
  char line[kLineMax];
  int found = 0;
  while (!found && fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = '\0';
    char *controllers = strchr(line, ':');
    char *group = controllers ? strchr(controllers + 1, ':') : NULL;
    if (!group) continue;
    *controllers++ = '\0';
    *group++ = '\0';
    if (v2) {
      found = !strcmp(line, "0") && !*controllers;
    } else {
      char *save = NULL;
      for (char *c = strtok_r(controllers, ",", &save); c && !found;
           c = strtok_r(NULL, ",", &save))
        found = !strcmp(c, "memory");
    }
    if (found) snprintf(out, size, "%s", group);
  }
  fclose(f);
  return found;
}

/* The mount of the cgroup v2 hierarchy (`v2`) or of v1's memory controller, from
 * /proc/self/mountinfo: its root within the hierarchy and its mount point. */
static int group_mount(const char *root, int v2, char *mount_root, char *mount_point,
                       size_t size) {
  FILE *f = open_under(root, "/proc/self/mountinfo");
  if (!f) return 0;
  char line[kLineMax];
  int found = 0;
  while (!found && fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = '\0';
    /* "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER" */
    char *save = NULL, *field[5] = {0};
    char *word = strtok_r(line, " ", &save);
    for (int i = 0; i < 5 && word; ++i, word = strtok_r(NULL, " ", &save)) field[i] = word;
    while (word && strcmp(word, "-")) word = strtok_r(NULL, " ", &save);
    char *type = word ? strtok_r(NULL, " ", &save) : NULL;
    char *source = type ? strtok_r(NULL, " ", &save) : NULL;
    char *super = source ? strtok_r(NULL, " ", &save) : NULL;
    if (!field[4] || !type) continue;
    if (v2) {
      found = !strcmp(type, "cgroup2");
    } else if (!strcmp(type, "cgroup") && super) {
      char *opt_save = NULL;
      for (char *o = strtok_r(super, ",", &opt_save); o && !found;
           o = strtok_r(NULL, ",", &opt_save))
        found = !strcmp(o, "memory");
    }
    if (found) {
      snprintf(mount_root, size, "%s", field[3]);
      snprintf(mount_point, size, "%s", field[4]);
    }
  }
  fclose(f);
  return found;
}

/* Bounds `*available` by the groups of one hierarchy the process is in. */
static void bound_by_cgroups(const char *root, int v2, uint64_t *available) {
  char group[kPathMax], mount_root[kPathMax], mount_point[kPathMax];
  if (!group_path(root, v2, group, sizeof(group)) ||
      !group_mount(root, v2, mount_root, mount_point, sizeof(mount_point)))
    return;
  /* The group as seen below the mount: its path less the mount's root ("/" for a whole
   * hierarchy); a group outside the mount's root (a container's view) is the mount. */
  const char *below = "";
  size_t root_len = strlen(mount_root);
  if (!strcmp(mount_root, "/")) below = group;
  else if (!strncmp(group, mount_root, root_len) && (!group[root_len] || group[root_len] == '/'))
    below = group + root_len;
  char top[kPathMax], dir[kPathMax];
  if (!strcmp(below, "/")) below = "";
  if (!join(top, root, mount_point)) return;
  if (!join(dir, top, below) || access(dir, F_OK) != 0) memcpy(dir, top, sizeof(dir));
  hierarchy_room(dir, top, v2 ? &kV2 : &kV1, available);
}

uint64_t fw_host_memory_available_at(const char *root) {
  char path[kPathMax];
  uint64_t available = UINT64_MAX;
  if ((!join(path, root, "/proc/meminfo") ||
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
