/* eager: one priority queue shared by every worker; an idle worker takes the best ready
 * task it can run. Nothing is placed ahead of time, so inputs move when a task starts. */
#include "scheduler.h"

static int can_run(const void *worker, const fw_task_t *task) {
  return fw_worker_can_run((const fw_worker_t *)worker, task);
}

static int eager_push(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  (void)from;
  if (!fw_scheduler_can_run(s, task) || !fw_task_heap_push(&s->ready, task)) return 0;
  fw_scheduler_placed(s, task); /* no worker yet: towards host memory */
  /* One idle worker per queued task is told; busy workers look again when they finish. */
  fw_worker_t *idle = fw_scheduler_idle_worker(s, task);
  if (idle) fw_scheduler_notify(s, idle);
  return 1;
}

static fw_task_t *eager_pop(fw_scheduler_t *s, fw_worker_t *worker) {
  if (!fw_task_heap_holds_kind(&s->ready, worker->kind)) return NULL;
  return fw_task_heap_pop_if(&s->ready, can_run, worker);
}

const fw_policy_t fw_policy_eager = {"eager", eager_push, eager_pop, NULL, NULL, NULL};
