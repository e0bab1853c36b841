/* Internal: plans of released batches for the heft policy (heft_plan.c). */
#ifndef FW_RUNTIME_SRC_HEFT_PLAN_H_
#define FW_RUNTIME_SRC_HEFT_PLAN_H_

#include <stddef.h>

#include "scheduler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plans a released batch (in submission order, sched.lock held; it is let go while the
 * plans are made, from tables taken under it, and taken back): each task gets a worker
 * (fw_task_t.plan_worker) and a planned start, and each worker its planned tasks in start
 * order (fw_worker_t.plan). Tasks it could not plan (out of memory, no worker can run
 * them) keep plan_worker NULL and are placed as they become ready. */
void fw_heft_plan(fw_scheduler_t *s, fw_task_t *const *batch, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_HEFT_PLAN_H_ */
