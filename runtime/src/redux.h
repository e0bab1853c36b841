/* Internal: reductions in the task graph (redux.c, FW_ACCESS_REDUCE). Unless said
 * otherwise, called by scheduler.c with sched.lock held. */
#ifndef FW_RUNTIME_SRC_REDUX_H_
#define FW_RUNTIME_SRC_REDUX_H_

#include <stddef.h>

#include "fw/runtime.h"
#include "scheduler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* When access i of a task being created is a contribution: NULL when it may be (its
 * buffer has a reduction and the task names it no other way), else the error (no lock). */
fw_status_t fw_redux_check_access(const char *name, const fw_task_access_t *accesses,
                                  size_t num_accesses, size_t i);
/* Notes the contributions among the accesses of `t` being created in `t->reduces` (room
 * for each), one per buffer (no lock). */
void fw_redux_take_accesses(fw_task_t *t, const fw_task_access_t *accesses,
                            size_t num_accesses);
/* Drops the buffers and reduction tasks of `t`'s contributions (no lock; once it
 * finished, so that a handle kept on it keeps neither). */
void fw_redux_release_contributions(fw_task_t *t);
/* Drops what `t` holds of reductions: that, and for a reduction task its group's
 * accumulators (no lock; the last reference). */
void fw_redux_release(fw_task_t *t);
/* Contribution r of `t` joins the open group of its buffer (or opens one): before the
 * group's reduction task, which follows what came before the group. */
void fw_redux_join_group(fw_scheduler_t *s, fw_task_t *t, uint32_t r);
/* The first other access after an open group of `b` (or its reduction task ready): the
 * reduction task becomes the last writer, and the readers before the group (which it
 * follows) are done with. When the group's tasks have all started, the accumulators no
 * task writes any more are paired (`from`: the worker that completed the last
 * predecessor, NULL for none). */
void fw_redux_close_group(fw_scheduler_t *s, fw_buffer_t *b, fw_worker_t *from);
/* Contribution `t` completed on worker `w` (before its successors are released): once
 * its group is closed and all of its tasks started, the accumulators no task writes any
 * more are combined in pairs by tasks that the reduction task waits for (large buffers,
 * enough accumulators), without waiting for the accesses before the group, which the
 * reduction task waits for too. */
void fw_redux_contribution_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w);
/* The body of the tasks that combine two accumulators (no lock). */
void fw_redux_combine_pair(void *user_data, void *const *data, size_t num_data);
/* Whether `t` combines two accumulators of a reduction (lock-free). */
static inline int fw_redux_is_pair(const fw_task_t *t) { return t->fn == fw_redux_combine_pair; }
/* Pair task `t` completed on worker `w` (before its successor, the reduction task, is
 * released): its result is paired again with an accumulator done meanwhile. */
void fw_redux_pair_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w);
/* Simulation: the data of `t`, a predecessor of reduction task `join`, could be out on
 * each device class at `at` (the bounds): a pair task folding the accumulator `t` wrote
 * (a contribution's, or a pair task's result) starts no sooner. */
void fw_redux_sim_arrival(fw_task_t *t, const fw_task_t *join, const double *at,
                          size_t num_classes);
/* Reduction task `t` is ready (`from`: the worker that completed its last predecessor):
 * its group ends (a contribution submitted from now on opens another), and it is ranked
 * over its successors. When closing the group makes pair tasks (fw_redux_close_group),
 * `t` waits for them: returns 1 then (t is not ready after all), else 0. */
int fw_redux_group_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from);
/* The passes over the buffer that combining `accumulators` accumulators takes on the
 * critical path of reduction task `join`'s group: one each, or with pairs a level each
 * and the reduction task's own (no lock: what it reads does not change). */
size_t fw_redux_passes(const fw_task_t *join, size_t accumulators);
/* The expected run time on worker `w` of reduction task `join` when it makes `passes`
 * passes over its buffer (the plans' estimates for other numbers of accumulators). */
double fw_redux_join_seconds(fw_scheduler_t *s, fw_task_t *join, const fw_worker_t *w,
                             size_t passes);
/* What running contribution `t` on worker `w` adds to its reductions when `w` has no
 * accumulator for one of them, nor a contribution to it queued (heft's queues): a pass
 * over the buffer to fold it, and for a GPU worker its copies over the link (seconds; 0
 * for other tasks). */
double fw_redux_accumulator_cost(const fw_task_t *t, const fw_worker_t *w);
/* Whether a failure of `t` fails `succ` as a reduction's: `t` contributes to the group
 * that reduction task `succ` combines, or is a pair task of it. */
int fw_redux_contributes_to(const fw_task_t *t, const fw_task_t *succ);
/* The bytes `t` hands `next` as a contribution to its reduction: an accumulator (else 0;
 * a pair task's move nothing, on CPU workers). */
uint64_t fw_redux_accumulator_bytes(const fw_task_t *t, const fw_task_t *next);
/* Simulation: contribution `t` runs on worker `w` (whose accumulator the reduction
 * would combine); a GPU worker's new accumulator goes over its link first. */
void fw_redux_note_worker(fw_scheduler_t *s, fw_task_t *t, const fw_worker_t *w);
/* A GPU worker launched contribution `t` (its work may add into the accumulators it took,
 * which are then brought back to be combined; no lock, on that worker's thread). */
void fw_redux_launched(const fw_task_t *t);
/* `t`'s launch on a GPU was refused (nothing enqueued): it may run again elsewhere (no
 * lock). */
void fw_redux_launch_refused(fw_task_t *t);
/* Simulation: contribution or pair task `t` finished at `finish`: the
 * accumulators it wrote are in host memory then (a GPU's once it is done and carried
 * over the GPU's link). */
void fw_redux_sim_finished(const fw_task_t *t, double finish);
/* Simulation: when reduction or pair task `t`, its other inputs there at `start`, has the
 * accumulators it folds in host memory, or contribution `t` its accumulators where it
 * runs (`start` for any other task). */
double fw_redux_sim_start(const fw_task_t *t, double start);
/* Before contribution `t`'s buffers are taken on worker `w` (no lock; on a GPU worker, on
 * its thread): its extra buffers are `w`'s accumulators for its groups, made when `w` has
 * none (without memory yet), which the memory manager takes with the task where it runs.
 * The error when one cannot be made. */
fw_status_t fw_redux_prepare_accumulators(fw_task_t *t, const fw_worker_t *w);
/* Before `t` runs on worker `w`, its buffers taken at `data` (no lock; on a GPU worker, on
 * its thread): points each of its contributions at `w`'s accumulator for the group, at
 * data[num_accesses + r] (host memory for a CPU worker, the GPU's for a GPU worker), set
 * to the neutral element on the worker's first task of the group; the last contribution
 * of a closed group to start takes the lock to let the others' accumulators be paired.
 * The error when one cannot be set. */
fw_status_t fw_redux_take_accumulators(fw_task_t *t, const fw_worker_t *w, void *const *data);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_REDUX_H_ */
