#define _POSIX_C_SOURCE 200809L
#include "cgroup.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kLineMax = 4096 };

int fw_cgroup_join(char *out, const char *a, const char *b) {
  int n = snprintf(out, FW_CGROUP_PATH_MAX, "%s%s", a, b);
  return n >= 0 && n < FW_CGROUP_PATH_MAX;
}

FILE *fw_cgroup_open_under(const char *root, const char *relative) {
  char path[FW_CGROUP_PATH_MAX];
  return fw_cgroup_join(path, root, relative) ? fopen(path, "re") : NULL;
}

int fw_cgroup_read_line(const char *dir, const char *relative, char *line, size_t size) {
  FILE *f = fw_cgroup_open_under(dir, relative);
  if (!f) return 0;
  int ok = fgets(line, (int)size, f) != NULL;
  fclose(f);
  if (ok) line[strcspn(line, "\n")] = '\0';
  return ok;
}

int fw_cgroup_parse_number(const char *text, uint64_t *out) {
  while (*text == ' ' || *text == '\t') ++text;
  if (*text < '0' || *text > '9') return 0;
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (*end && *end != ' ' && *end != '\t' && *end != '\n') return 0;
  *out = value;
  return 1;
}

/* Whether the comma-separated `list` names `item`. */
static int lists(char *list, const char *item) {
  char *save = NULL;
  for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save))
    if (!strcmp(c, item)) return 1;
  return 0;
}

/* The process's group path in the v2 hierarchy (`controller` NULL) or in v1's hierarchy of
 * `controller`, from /proc/self/cgroup ("0::/a/b", "4:memory:/a/b", "3:cpu,cpuacct:/a"). */
static int group_path(const char *root, const char *controller, char *out, size_t size) {
  FILE *f = fw_cgroup_open_under(root, "/proc/self/cgroup");
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
    found = controller ? lists(controllers, controller) : !strcmp(line, "0") && !*controllers;
    if (found) snprintf(out, size, "%s", group);
  }
  fclose(f);
  return found;
}

/* The mount of the v2 hierarchy (`controller` NULL) or of v1's hierarchy of `controller`,
 * from /proc/self/mountinfo: its root within the hierarchy and its mount point. */
static int group_mount(const char *root, const char *controller, char *mount_root,
                       char *mount_point, size_t size) {
  FILE *f = fw_cgroup_open_under(root, "/proc/self/mountinfo");
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
    if (!controller) found = !strcmp(type, "cgroup2");
    else found = !strcmp(type, "cgroup") && super && lists(super, controller);
    if (found) {
      snprintf(mount_root, size, "%s", field[3]);
      snprintf(mount_point, size, "%s", field[4]);
    }
  }
  fclose(f);
  return found;
}

int fw_cgroup_dir(const char *root, const char *controller, char *dir, char *top) {
  char group[FW_CGROUP_PATH_MAX], mount_root[FW_CGROUP_PATH_MAX];
  char mount_point[FW_CGROUP_PATH_MAX];
  if (!group_path(root, controller, group, sizeof(group)) ||
      !group_mount(root, controller, mount_root, mount_point, sizeof(mount_point)))
    return 0;
  /* The group as seen below the mount: its path less the mount's root ("/" for a whole
   * hierarchy); a group outside the mount's root (a container's view) is the mount. */
  const char *below = "";
  size_t root_len = strlen(mount_root);
  if (!strcmp(mount_root, "/")) below = group;
  else if (!strncmp(group, mount_root, root_len) && (!group[root_len] || group[root_len] == '/'))
    below = group + root_len;
  if (!strcmp(below, "/")) below = "";
  if (!fw_cgroup_join(top, root, mount_point)) return 0;
  if (!fw_cgroup_join(dir, top, below) || access(dir, F_OK) != 0)
    memcpy(dir, top, FW_CGROUP_PATH_MAX);
  return 1;
}

void fw_cgroup_walk_up(char *dir, const char *top, void (*visit)(const char *dir, void *ctx),
                       void *ctx) {
  size_t top_len = strlen(top);
  for (;;) {
    visit(dir, ctx);
    if (strlen(dir) <= top_len) return;
    char *slash = strrchr(dir, '/');
    if (!slash || (size_t)(slash - dir) < top_len) return;
    *slash = '\0';
  }
}
