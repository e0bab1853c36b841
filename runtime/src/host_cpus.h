/* Internal: how many CPUs the process may use, the CPU device's default worker count.
 *
 * The processors online, bounded by the process's CPU affinity (taskset, numactl, a
 * container's or a batch job's cpuset) and by the CPU time its control groups allow (a
 * quota of 2.5 periods per period, `docker --cpus=2.5`, allows 3 CPUs' worth of threads
 * at most). A worker per online processor where the process may use two would crowd
 * them: each idle worker polls before it sleeps, and the quota throttles them all. */
#ifndef FW_RUNTIME_SRC_HOST_CPUS_H_
#define FW_RUNTIME_SRC_HOST_CPUS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs this process may use, as above; 1 at least. */
uint32_t fw_host_cpus(void);

/* The CPU time quota of the process's control groups under `root` ("" for the machine
 * itself; tests pass a directory holding proc/self/cgroup, proc/self/mountinfo and the
 * cgroup files those name), in CPUs rounded up: the tightest of cgroup v2's cpu.max and
 * v1's cpu.cfs_quota_us over cpu.cfs_period_us on the way up from the process's groups.
 * 0 when none limits it. */
uint32_t fw_host_cpu_quota_at(const char *root);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_HOST_CPUS_H_ */
