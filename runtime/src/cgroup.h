/* Internal: the Linux control groups the process is in, for what they still allow it (the
 * host tier's memory: host_memory.h; the CPUs its workers may use: host_cpus.h).
 *
 * Every path is read under a root ("" for the machine itself; tests pass a directory
 * holding the proc/self/cgroup, proc/self/mountinfo and cgroup files those name), and a
 * path that does not fit FW_CGROUP_PATH_MAX is not read. */
#ifndef FW_RUNTIME_SRC_CGROUP_H_
#define FW_RUNTIME_SRC_CGROUP_H_

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FW_CGROUP_PATH_MAX 4096

/* `a` then `b` in `out` (FW_CGROUP_PATH_MAX bytes); whether they fit. */
int fw_cgroup_join(char *out, const char *a, const char *b);

/* The file at `relative` under `root`, opened for reading (NULL when its path does not
 * fit or it cannot be opened). */
FILE *fw_cgroup_open_under(const char *root, const char *relative);

/* The first line of the file at `relative` under `dir`, without its end, in `line`
 * (`size` bytes); whether there was one. */
int fw_cgroup_read_line(const char *dir, const char *relative, char *line, size_t size);

/* A decimal number at `text` after blanks, up to a blank or the end of the line. */
int fw_cgroup_parse_number(const char *text, uint64_t *out);

/* The directory of the process's group (`dir`, under `root`) and of the hierarchy's mount
 * (`top`, `dir` or above it), each FW_CGROUP_PATH_MAX bytes: in the cgroup v2 hierarchy
 * (`controller` NULL) or in the v1 hierarchy of `controller` ("memory", "cpu"). 0 when the
 * process is in none. A group outside the mount's root (a container's view) is the
 * mount's. */
int fw_cgroup_dir(const char *root, const char *controller, char *dir, char *top);

/* Calls `visit` on `dir`, then on each directory above it up to `top` (fw_cgroup_dir's),
 * each a group whose limits bind the process. `dir` is cut as it goes up. */
void fw_cgroup_walk_up(char *dir, const char *top, void (*visit)(const char *dir, void *ctx),
                       void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_CGROUP_H_ */
