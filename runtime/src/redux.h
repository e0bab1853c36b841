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
/* The first other access after an open group of `b`: the reduction task becomes the last
 * writer, and the readers before the group (which it follows) are done with. */
void fw_redux_close_group(fw_buffer_t *b);
/* Reduction task `t` is ready (`from`: the worker that completed its last predecessor):
 * its group ends (a contribution submitted from now on opens another), and it is ranked
 * over its successors. The first time, when enough workers ran the group's tasks on a
 * large enough buffer, a tree of tasks combining their accumulators pairwise is made and
 * `t` waits for it: returns 1 then (t is not ready after all), else 0. */
int fw_redux_group_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from);
/* Whether a failure of `t` fails `succ` as a reduction's: `t` contributes to the group
 * that reduction task `succ` combines, or is a task of its tree. */
int fw_redux_contributes_to(const fw_task_t *t, const fw_task_t *succ);
/* Simulation: contribution `t` runs on worker `w` (whose accumulator the reduction
 * would combine). */
void fw_redux_note_worker(const fw_task_t *t, const fw_worker_t *w);
/* Before `t` runs on CPU worker `w` (no lock): points each of its contributions at `w`'s
 * accumulator for the group, made and set to the neutral element on the worker's first
 * task of the group. The error when one cannot be allocated. */
fw_status_t fw_redux_take_accumulators(fw_task_t *t, const fw_worker_t *w);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_REDUX_H_ */
