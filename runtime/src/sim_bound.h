/* Internal: the bounds of a simulation — the area bound (the least time in which the
 * machine could do all the work if tasks could be split freely between device classes)
 * and the moves a critical path must make between classes. */
#ifndef FW_RUNTIME_SRC_SIM_BOUND_H_
#define FW_RUNTIME_SRC_SIM_BOUND_H_

#include <stddef.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_SIM_MAX_CLASSES 8
/* A simulated device's link when its description gives none (fw_sim_device_t.link_gbps
 * = 0). */
#define FW_SIM_DEFAULT_LINK_GBPS 16.0

/* Devices with identical parameters form a class; `workers` is the class's total. */
typedef struct fw_sim_bound_t {
  size_t num_classes;
  double workers[FW_SIM_MAX_CLASSES];
  /* The quickest hop between host memory and the class's devices (0 when one of them is a
   * CPU, which works in host memory): latency, and the widest link. */
  int in_host_memory[FW_SIM_MAX_CLASSES];
  double link_latency_seconds[FW_SIM_MAX_CLASSES], link_gbps[FW_SIM_MAX_CLASSES];
  size_t device_class[FW_SIM_MAX_CLASSES * 4]; /* per simulated device */
  double *times; /* per task, num_classes run times (INFINITY: cannot run there) */
  size_t num_tasks, capacity;
} fw_sim_bound_t;

/* Groups the machine's devices into classes. */
void fw_sim_bound_init(fw_sim_bound_t *b, const fw_sim_machine_t *machine);
void fw_sim_bound_fini(fw_sim_bound_t *b);
/* Records one task's run time on each class (`times[c]`). Returns 0 when out of memory. */
int fw_sim_bound_add(fw_sim_bound_t *b, const double *times);
/* One class: total work / workers. Two classes: the exact optimum of the fractional
 * assignment (tasks sorted by relative speed, split at the balance point). More: the
 * work at each task's fastest class over all workers (valid, looser). */
double fw_sim_bound_area(const fw_sim_bound_t *b);
/* The least time to move `bytes` written by a task on class `from` to a task on class
 * `to`: nothing within a class (optimistic for devices of one class with memories of
 * their own) or between classes in host memory, else a hop over each device's link. */
double fw_sim_bound_move_seconds(const fw_sim_bound_t *b, size_t from, size_t to,
                                 uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif
