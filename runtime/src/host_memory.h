/* Internal: how much memory the host tier holds when FW_TIER_LIMITS does not cap it.
 *
 * The host tier's real capacity is the memory the machine can give the runtime's data:
 * what Linux reports as available when the runtime starts (MemAvailable: free memory and
 * the page cache it can reclaim), within what the process's control groups still allow
 * (their memory limit less what they use, not counting the file cache they can drop),
 * less an eighth left to the program and the system. A runtime whose data outgrows it moves
 * copies to the storage tier instead of being killed for want of memory or swapping. */
#ifndef FW_RUNTIME_SRC_HOST_MEMORY_H_
#define FW_RUNTIME_SRC_HOST_MEMORY_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The host tier's capacity as above, FW_HOST_MEMORY_FLOOR at least (a machine that
 * reports next to nothing available still runs what fits there, swapping rather than
 * failing every task); 0 (no capacity) when nothing could be read. */
#define FW_HOST_MEMORY_FLOOR ((uint64_t)64 << 20)
uint64_t fw_host_memory_capacity(void);

/* The memory available, read under `root` ("" for the machine itself; tests pass a
 * directory holding proc/meminfo, proc/self/cgroup, proc/self/mountinfo and the cgroup
 * files those name): MemAvailable, bounded by every control group limit on the way up
 * from the process's groups (cgroup v2 and v1). 0 when nothing could be read. */
uint64_t fw_host_memory_available_at(const char *root);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_HOST_MEMORY_H_ */
