/* ws: work stealing. A task made ready by a worker goes to the back of that worker's
 * deque (its inputs are likely still warm there); a task from the submitting thread goes
 * to an idle worker that polls for work (then one that sleeps), and when none is idle the
 * tasks are dealt round robin. A worker pops the back of its own deque (depth first) and,
 * when it is empty, steals the front (oldest) task of the fullest deque whose front it
 * can run. */
#include "scheduler.h"

static fw_worker_t *home_for(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  if (from && fw_worker_can_run(from, task)) return from;
  /* Dealt round robin alone, a program's next call went to the worker that did not run
   * the last one, more often off a core: one task's round trip took 2.7 us with two
   * workers, against 0.7 under eager (docs/performance.md). */
  fw_worker_t *idle = from ? NULL : fw_scheduler_idle_worker(s, task);
  if (idle) return idle;
  for (size_t k = 0; k < s->num_workers; ++k) {
    fw_worker_t *w = &s->workers[(s->rr++) % s->num_workers];
    if (fw_worker_can_run(w, task)) return w;
  }
  return NULL;
}

static int ws_push(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  fw_worker_t *home = home_for(s, task, from);
  if (!home || !fw_task_deque_push_back(&home->deque, task)) return 0;
  task->worker = home;
  fw_scheduler_placed(s, task);
  if (!home->running) {
    fw_scheduler_notify(s, home);
  } else {
    /* The owner is busy: an idle worker that can run the task may steal it. */
    fw_worker_t *thief = fw_scheduler_idle_worker(s, task);
    if (thief) fw_scheduler_notify(s, thief);
  }
  return 1;
}

static fw_task_t *ws_pop(fw_scheduler_t *s, fw_worker_t *worker) {
  fw_task_t *t = fw_task_deque_pop_back(&worker->deque);
  if (t) return t;
  /* Steal from the fullest deque whose oldest task this worker can run (on a mixed
   * machine a GPU takes over work released on CPU workers, and the reverse). */
  fw_worker_t *victim = NULL;
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *w = &s->workers[i];
    if (w == worker || w->deque.size == 0) continue;
    if (!fw_worker_can_run(worker, fw_task_deque_front(&w->deque))) continue;
    if (!victim || w->deque.size > victim->deque.size) victim = w;
  }
  if (!victim) return NULL;
  t = fw_task_deque_pop_front(&victim->deque);
  t->worker = worker;
  return t;
}

const fw_policy_t fw_policy_ws = {"ws", ws_push, ws_pop, NULL, NULL, NULL};
