/* Internal: the area bound of a simulation — the least time in which the machine could
 * do all the work if tasks could be split freely between device classes. */
#ifndef FW_RUNTIME_SRC_SIM_BOUND_H_
#define FW_RUNTIME_SRC_SIM_BOUND_H_

#include <stddef.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_SIM_MAX_CLASSES 8

/* Devices with identical parameters form a class; `workers` is the class's total. */
typedef struct fw_sim_bound_t {
  size_t num_classes;
  double workers[FW_SIM_MAX_CLASSES];
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

#ifdef __cplusplus
}
#endif

#endif
