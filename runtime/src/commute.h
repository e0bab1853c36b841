/* Internal: commutative updates in the task graph (commute.c). Called by scheduler.c with
 * sched.lock held. */
#ifndef FW_RUNTIME_SRC_COMMUTE_H_
#define FW_RUNTIME_SRC_COMMUTE_H_

#include <stddef.h>
#include <stdint.h>

#include "scheduler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Access i of `t`, a commutative update of its buffer, joins the buffer's open group (or
 * opens one): after what came before the group, before the group's join. */
void fw_commute_join_group(fw_scheduler_t *s, fw_task_t *t, size_t i);
/* The first other access after an open group of `b`: the group's join becomes the last
 * writer, and the readers before the group are done with. */
void fw_commute_close_group(fw_buffer_t *b);
/* Ready task `t` takes the buffers of its commutative updates, one at a time in the order
 * they were created (1: all taken), or waits in the queue of the next, which another task holds,
 * keeping those it took (0: make it ready again when handed it). It leaves its heft plan
 * either way; it is cancelled (1) when its group failed. */
int fw_commute_take_buffers(fw_task_t *t);
/* Completing `t` (run by `w`, or NULL) hands the buffers it took to the tasks waiting for
 * them. */
void fw_commute_let_buffers_go(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w);
/* Cancels update `t` when an update of one of its groups failed; whether it did. */
int fw_commute_cancel_after_failure(fw_task_t *t);
/* An update of group `group` of `b` failed with `status` (borrowed). */
void fw_commute_note_failure(fw_buffer_t *b, uint64_t group, fw_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_COMMUTE_H_ */
