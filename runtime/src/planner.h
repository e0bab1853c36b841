/* Internal: what the plans of a released batch share (heft_plan.c), and the plans other
 * than HEFT's list plans that heft_plan.c weighs against them (affinity_plan.c). */
#ifndef FW_RUNTIME_SRC_PLANNER_H_
#define FW_RUNTIME_SRC_PLANNER_H_

#include <stddef.h>
#include <stdint.h>

#include "scheduler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a plan ranks its tasks. */
typedef enum {
  RANK_MEAN,    /* the mean run time over the workers that can run the task */
  RANK_FASTEST, /* its run time on the fastest class */
} rank_cost_t;

/* A worker's planned busy intervals, sorted and disjoint. */
typedef struct {
  double *start, *end;
  size_t n, cap;
} timeline_t;

/* No task. */
#define NONE ((size_t)-1)

/* What trying a task's placement booked (plan_moves.c), taken back after: a hop over a
 * link, from `value` to `end` (line set), or an arrival that was `value` before (slot
 * set). */
typedef struct {
  timeline_t *line;
  double *slot;
  double value, end;
} plan_undo_t;

/* A task in priority order. */
typedef struct {
  double rank;
  size_t index;
} ranked_t;

/* What every plan of the batch shares. Tasks are named by their place in the batch,
 * which is submission order: a task's predecessors come before it. */
typedef struct {
  fw_scheduler_t *s;
  fw_task_t *const *batch;
  size_t count;
  double now;
  /* Predecessors in the batch: task i's are preds[pred_at[i] .. pred_at[i + 1]); and
   * successors in the batch, succs[succ_at[i] .. succ_at[i + 1]). */
  size_t *pred_at, *preds, *succ_at, *succs;
  /* Per worker, as it was when the batch was released: when it expects to be free, and
   * whether it is out of service. Plans are made without the scheduler lock, from these
   * tables alone (and the tasks' accesses, ranks and sequence numbers, which do not
   * change meanwhile). */
  double *free_at;
  char *lost;
  /* Per task and access (offsets access_at), for accesses that read: the last of its
   * predecessors in the batch that writes the buffer, whose output it reads; NONE when
   * no predecessor in the batch writes it (a read-write after readers depends on the
   * readers only: its data is then taken to move from where it is now). */
  size_t *access_at, *producer;
  /* The data the batch reads, per access slot that reads (NONE for the others): its
   * version. Version k < slots (slots: access_at[count]) is the output of the access in
   * slot k, a write; version slots + k is what the buffer read in slot k holds at
   * release, k being the first slot in the batch that reads that (the same buffer, with
   * no producer). home[v]: the nodes where version v is valid at release (a bit each). */
  size_t *version;
  unsigned *home;
  /* Memory nodes: those of host memory and the workers' devices (num_nodes: the highest
   * worker's plus one); node_rep: a worker on each device node (NULL: host, or none). */
  uint32_t num_nodes;
  const fw_worker_t **node_rep;
  /* Workers of one device form a class, with the same estimates. */
  size_t num_classes;
  size_t *classes;           /* per worker */
  const fw_worker_t **reps;  /* per class: its first worker */
  double *run_on;            /* per task and class: expected run time, -1: cannot run */
  char *class_usable;        /* per task and class: a worker in service can run it */
  double *ready_on;          /* scratch: per class, when a task's inputs can be there */
  /* Scratch for one plan. */
  double *cost, *rank, *down;
  char *critical;
  ranked_t *ranked;
  timeline_t *lines;
  /* Scratch of the moves (plan_moves.c): per version and node, when the version is there
   * (INFINITY: not); per device node, its link's bookings towards it (2 n) and away from
   * it (2 n + 1); the bookings made since the last for good. */
  double *arrive;
  timeline_t *links;
  plan_undo_t *undo;
  size_t num_undo, cap_undo;
  int trying; /* placing a task on trial: hops go to the undo log */
  int failed; /* out of memory while booking: the plan is not made */
  /* Reductions (plan_redux.c): the batch with the reduction tasks its contributions
   * precede (own_batch; NULL when there are none, and `batch` is the caller's); per
   * task, its place among those (NONE: not one; NULL when there are none); per
   * reduction task and class, its run time with one pass over the buffer, each pass
   * more, and a GPU's accumulator's trip to host memory from a worker of that class. */
  fw_task_t **own_batch;
  size_t num_joins;
  size_t *join_slot;
  double *join_base, *join_pass, *join_home;
  /* Scratch of one plan: a row of run times (fw_plan_runs), and a stamp per worker to
   * count a reduction's accumulators. */
  double *join_run;
  unsigned *stamp, stamp_now;
} planner_t;

/* One plan: the order it placed the tasks in, and per task (in batch order) its worker
 * (NULL: none), start and finish. */
typedef struct {
  size_t *order;
  fw_worker_t **worker;
  double *start, *finish;
  double makespan;
} plan_t;


/* Upward ranks from `kind` of cost (p->rank: the task's cost and the longest chain of
 * costs after it, in the batch), downward ranks (p->down), and the critical path
 * (p->critical: the tasks whose sum of the two is the longest). */
void fw_plan_rank_tasks(planner_t *p, rank_cost_t kind);

/* A worker's (or a link's) planned intervals: the earliest time from `ready` at which
 * it has `d` seconds free; adds one (0: out of memory). */
double fw_timeline_earliest_gap(const timeline_t *tl, double ready, double d);
int fw_timeline_add(timeline_t *tl, double start, double end);

/* Frees the timelines of `lines` (n of them) and the array. */
void fw_timelines_free(timeline_t *lines, size_t n);

/* The moves of a plan (plan_moves.c). fw_plan_moves_init makes the batch's tables (the
 * memory nodes, the versions and where they are at release) once the producers are
 * known; fw_plan_moves_scratch_alloc each plan's own (freed by ..._scratch_free); a plan
 * starts with fw_plan_moves_reset: every version where it is at release, the links
 * free. The init and the alloc return 0 when out of memory. */
int fw_plan_moves_init(planner_t *p);
void fw_plan_moves_fini(planner_t *p);
int fw_plan_moves_scratch_alloc(planner_t *p);
void fw_plan_moves_scratch_free(planner_t *p);
void fw_plan_moves_reset(planner_t *p);
/* When task i's inputs can be on worker `w`'s memory under `plan`, given the moves
 * booked so far (those produced in the batch from their producer's planned finish, the
 * others from where they are now; each hop over a link in its first gap), and its other
 * predecessors in the batch done. Books nothing. */
double fw_plan_inputs_ready(planner_t *p, const plan_t *plan, size_t i, const fw_worker_t *w);
/* The same, booking the moves: task i goes to `w`. */
double fw_plan_book_inputs(planner_t *p, const plan_t *plan, size_t i, const fw_worker_t *w);
/* Task i is placed (plan->worker[i], plan->finish[i]): its outputs are on its worker's
 * memory from its finish, and nowhere else (again when it moves). */
void fw_plan_produced(planner_t *p, const plan_t *plan, size_t i);

/* Reductions in the plans (plan_redux.c). fw_plan_redux_extend takes into the batch
 * (marked `serial`) the reduction tasks its contributions precede, each after its last
 * contribution there, before the edges are walked; fw_plan_redux_costs their estimates
 * per class, once run_on is known (both with the scheduler lock held; 0 when out of
 * memory); fw_plan_redux_fini frees them. Each plan has its scratch (..._scratch_alloc,
 * 0 when out of memory; ..._scratch_free). */
int fw_plan_redux_extend(planner_t *p, uint64_t serial);
int fw_plan_redux_costs(planner_t *p);
void fw_plan_redux_fini(planner_t *p);
int fw_plan_redux_scratch_alloc(planner_t *p);
void fw_plan_redux_scratch_free(planner_t *p);
/* Task i's expected run time per class (-1: cannot run there) under `plan`: run_on's,
 * but for a reduction task the passes that the accumulators of its contributions placed
 * so far take (a worker each), and the trip of a GPU's to host memory. */
const double *fw_plan_runs(planner_t *p, const plan_t *plan, size_t i);

/* When a free worker takes over a task that a slower kind of device started, in the
 * affinity plan: only when it has nothing to start; also rather than start a ready task
 * of lower rank when the running one is on the critical path; or rather than start a
 * ready task of lower rank, whatever the running one. */
typedef enum {
  SPOLIATE_WHEN_IDLE,
  SPOLIATE_CRITICAL_FIRST,
  SPOLIATE_FIRST,
} spoliation_t;

typedef struct {
  spoliation_t spoliation;
  /* A worker takes, of the ready tasks it runs faster than other kinds of device, the one
   * of highest rank whose affinity is within this factor of the best (1: the best). */
  double window;
} affinity_variant_t;

/* Makes the affinity plan (affinity_plan.c). Returns 0 when out of memory or when it
 * could not place every task. */
int fw_affinity_plan(planner_t *p, affinity_variant_t variant, plan_t *plan);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_PLANNER_H_ */
