/* Internal: the bounds of a simulation — the area bound (the least time in which the
 * machine could do all the work if tasks could be split freely between device classes),
 * the moves a critical path must make between classes, and the work that must fall
 * within time windows (sim_window.c). */
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
  /* The finished tasks, in the order they finished (an order of the DAG). Per task and
   * class (num_classes values per task): */
  double *times; /* run times (INFINITY: cannot run there) */
  double *heads; /* the earliest its inputs could be there (the critical path's) */
  /* Per task: */
  unsigned char *counted; /* 1: its work counts; 0: it failed, and passed readiness on */
  size_t *first_edge;     /* its first edge; its last is before the next task's first */
  size_t num_tasks, capacity;
  /* Each task's edges to its successors, by the successor's id (fw_sim_bound_new_id) and
   * the bytes it wrote for it. */
  struct fw_sim_edge_t {
    uint64_t to;
    uint64_t bytes;
  } *edges;
  size_t num_edges, cap_edges;
  /* Ids given so far, and the finished task of each (SIZE_MAX: not finished). */
  size_t *id_task;
  uint64_t num_ids, cap_ids;
  int dag_lost; /* out of memory while recording the DAG: no window bound */
} fw_sim_bound_t;

/* Groups the machine's devices into classes. */
void fw_sim_bound_init(fw_sim_bound_t *b, const fw_sim_machine_t *machine);
void fw_sim_bound_fini(fw_sim_bound_t *b);
/* A new task id (1, 2, ...; 0 when out of memory), for a task that is about to finish or
 * a successor of one. */
uint64_t fw_sim_bound_new_id(fw_sim_bound_t *b);
/* Records a finished task: its id, its run time on each class (`times[c]`, INFINITY:
 * cannot run there), the earliest its inputs could be ready there (`heads[c]`), and
 * whether its work counts (0: it failed, and its successors' inputs were ready when its
 * own were). Then fw_sim_bound_add_edge for each successor. Out of memory only loosens
 * the bounds. */
void fw_sim_bound_add(fw_sim_bound_t *b, uint64_t id, const double *times,
                      const double *heads, int counted);
/* An edge from the task added last to the task with id `to`, carrying `bytes`. */
void fw_sim_bound_add_edge(fw_sim_bound_t *b, uint64_t to, uint64_t bytes);
/* One class: total work / workers. Two classes: the exact optimum of the fractional
 * assignment (tasks sorted by relative speed, split at the balance point). More: the
 * work at each task's fastest class over all workers (valid, looser). */
double fw_sim_bound_area(const fw_sim_bound_t *b);
/* The same bound over `times` (n tasks, b->num_classes values each; tasks with 0 on
 * every class count nothing), with `scratch` room for n pairs. */
double fw_sim_bound_area_of(const fw_sim_bound_t *b, const double *times, size_t n,
                            void *scratch);
/* The least makespan the work that must fall within time windows allows (sim_window.c):
 * `known`, a valid lower bound, or more. */
double fw_sim_bound_windows(const fw_sim_bound_t *b, double known);
/* The least time to move `bytes` written by a task on class `from` to a task on class
 * `to`: nothing within a class (optimistic for devices of one class with memories of
 * their own) or between classes in host memory, else a hop over each device's link. */
double fw_sim_bound_move_seconds(const fw_sim_bound_t *b, size_t from, size_t to,
                                 uint64_t bytes);
/* The least time to move `bytes` from host memory to class `c` (0 when it works there). */
double fw_sim_bound_from_host_seconds(const fw_sim_bound_t *b, size_t c, uint64_t bytes);
/* The earliest `bytes` written by a task that could finish at `finish_on[k]` on class k
 * (over all classes) could be on class `to`. */
double fw_sim_bound_arrival(const fw_sim_bound_t *b, const double *finish_on, size_t to,
                            uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif
