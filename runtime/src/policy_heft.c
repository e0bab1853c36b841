/* heft: list scheduling by earliest expected finish time (StarPU's dmda). When a task
 * becomes ready it is assigned at once to the worker where
 *     finish = max(now, worker's queue drains) + input transfers + expected run time
 * is smallest, which lets its inputs start moving immediately (prefetch). Each worker
 * runs its queue by priority: the compiler's or caller's priority, then upward rank. */
#include "scheduler.h"

/* How much a worker is preferred among those with the same expected finish: an idle one
 * (a task that overran its estimate makes a busy worker look free "now"), sleeping first
 * (as before: polling workers find work by themselves). */
static int tie_rank(const fw_worker_t *w) {
  if (w->running || w->sim_busy || w->heap.size > 0) return 0;
  return w->sleeping ? 2 : 1;
}

static int heft_push(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  double now = fw_scheduler_now(s);
  fw_worker_t *best = NULL;
  double best_finish = 0, best_run = 0, best_transfer = 0;
  double cached[8] = {0};
  unsigned cached_kinds = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *w = &s->workers[i];
    if (!fw_worker_can_run(w, task)) continue;
    /* Real workers of one kind share an estimate (one history lookup per kind);
     * simulated workers each have their device's model. */
    double run;
    if (w->sim) {
      run = fw_scheduler_estimate(s, task, w);
    } else if (w->kind < 8 && (cached_kinds >> w->kind) & 1u) {
      run = cached[w->kind];
    } else {
      run = fw_scheduler_estimate(s, task, w);
      if (w->kind < 8) {
        cached[w->kind] = run;
        cached_kinds |= 1u << w->kind;
      }
    }
    double start = w->expected_free_at > now ? w->expected_free_at : now;
    double transfer = fw_scheduler_transfer_estimate(s, task, w);
    double finish = start + transfer + run;
    /* Ties (homogeneous workers) go to the worker whose completion made the task ready
     * (its inputs are warm there and it needs no wake-up), then an idle worker, then the
     * lowest index. */
    if (!best || finish < best_finish ||
        (finish == best_finish && best != from &&
         (w == from || tie_rank(w) > tie_rank(best)))) {
      best = w;
      best_finish = finish;
      best_run = run;
      best_transfer = transfer;
    }
  }
  if (!best || !fw_task_heap_push(&best->heap, task)) return 0;
  task->worker = best;
  task->expected_seconds = best_run;
  double start = best->expected_free_at > now ? best->expected_free_at : now;
  best->expected_free_at = start + best_transfer + best_run;
  if (best->sleeping) fw_scheduler_wake(s, best);
  return 1;
}

static fw_task_t *heft_pop(fw_scheduler_t *s, fw_worker_t *worker) {
  fw_task_t *t = fw_task_heap_pop(&worker->heap);
  if (!t && worker->heap.size == 0) {
    double now = fw_scheduler_now(s);
    if (worker->expected_free_at < now) worker->expected_free_at = now;
  }
  return t;
}

const fw_policy_t fw_policy_heft = {"heft", heft_push, heft_pop};
