/* heft: list scheduling by earliest expected finish time (after HEFT and StarPU's dmda),
 * with bounded queues.
 *
 * Ready tasks wait in one pool ordered by priority, then upward rank. Whenever a worker
 * has room (fewer tasks placed and not started than its queue depth), the pool is
 * walked in that order and each task goes to the worker where
 *     finish = max(now, worker's queue drains) + input transfers + expected run time
 * is smallest — if that worker has room. When it has none, the task waits for it if
 * it is a faster device for the task (a GPU for a GEMM), and otherwise goes to the best
 * worker with room; the walk goes on with the next task. Placing a task starts its input copies (prefetch), and the
 * bounded queues keep placement late enough that a more critical task released later
 * still runs first (committing every ready task at once cannot do that). */
#include "scheduler.h"

/* Tasks placed on a worker and not started: one runs while the next one's inputs move.
 * CPU workers keep two. Accelerators, fast and few, keep one: every task queued there is
 * one more a critical task released later waits behind (in simulation, tiled Cholesky on
 * 16 CPU workers and 2 GPUs came 4-5 % closer to the lower bound; wide random DAGs moved
 * 0-1.5 % away). */
#define FW_HEFT_QUEUE_DEPTH_CPU 2
#define FW_HEFT_QUEUE_DEPTH_ACCELERATOR 1
/* How many pool tasks one placement pass looks at. */
#define FW_HEFT_SCAN 64

static int has_room(const fw_worker_t *w) {
  size_t depth = w->kind == FW_TARGET_KIND_CPU ? FW_HEFT_QUEUE_DEPTH_CPU
                                               : FW_HEFT_QUEUE_DEPTH_ACCELERATOR;
  return !w->lost && w->heap.size < depth;
}

static int any_room(const fw_scheduler_t *s) {
  for (size_t i = 0; i < s->num_workers; ++i)
    if (has_room(&s->workers[i])) return 1;
  return 0;
}

/* How much a worker is preferred among those with the same expected finish: the one
 * whose completion released the task (warm inputs, no wake-up), then an idle one
 * (sleeping first), then the lowest index. */
static int tie_rank(const fw_worker_t *w, const fw_worker_t *from) {
  if (w == from) return 3;
  if (w->running || w->sim_busy || w->heap.size > 0) return 0;
  return w->sleeping ? 2 : 1;
}

typedef struct {
  fw_worker_t *worker;
  double finish, run, transfer;
} choice_t;

/* The worker with the earliest expected finish for `task` (`best`), and the same among
 * the workers with room in their queue (`open`). */
static void choose(fw_scheduler_t *s, const fw_task_t *task, fw_worker_t *from, double now,
                   choice_t *best, choice_t *open) {
  best->worker = open->worker = NULL;
  double cached[8] = {0};
  unsigned cached_kinds = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *w = &s->workers[i];
    if (!fw_worker_can_run(w, task)) continue;
    /* Real workers of one kind share an estimate (one history lookup per kind);
     * simulated workers each have their device's model. */
    double run;
    if (!w->sim && w->kind < 8 && ((cached_kinds >> w->kind) & 1u)) {
      run = cached[w->kind];
    } else {
      run = fw_scheduler_estimate(s, task, w);
      if (!w->sim && w->kind < 8) {
        cached[w->kind] = run;
        cached_kinds |= 1u << w->kind;
      }
    }
    double start = w->expected_free_at > now ? w->expected_free_at : now;
    double transfer = fw_scheduler_transfer_estimate(s, task, w);
    choice_t c = {w, start + transfer + run, run, transfer};
    choice_t *targets[2] = {best, has_room(w) ? open : NULL};
    for (int k = 0; k < 2; ++k) {
      choice_t *t = targets[k];
      if (!t) continue;
      if (!t->worker || c.finish < t->finish ||
          (c.finish == t->finish && tie_rank(w, from) > tie_rank(t->worker, from)))
        *t = c;
    }
  }
}

static void place(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w, double now, double run,
                  double transfer) {
  task->worker = w;
  task->expected_seconds = run;
  double start = w->expected_free_at > now ? w->expected_free_at : now;
  w->expected_free_at = start + transfer + run;
  fw_scheduler_placed(s, task);
  if (!w->running) fw_scheduler_notify(s, w); /* a busy worker looks when it finishes */
}

/* Moves pool tasks onto workers with room, best first (a task whose worker queue cannot
 * grow for lack of memory stays in the pool). */
static void dispatch(fw_scheduler_t *s, fw_worker_t *from) {
  if (s->ready.size == 0 || !any_room(s)) return;
  double now = fw_scheduler_now(s);
  fw_task_t *waiting[FW_HEFT_SCAN];
  size_t num_waiting = 0;
  for (size_t scanned = 0; scanned < FW_HEFT_SCAN && s->ready.size > 0; ++scanned) {
    fw_task_t *task = fw_task_heap_pop(&s->ready);
    choice_t best, open;
    choose(s, task, from, now, &best, &open);
    /* The best worker is full: the task waits for it only if it costs less there
     * (faster device, or its inputs already there); when only the queues differ, the
     * earliest worker with room takes it. */
    int faster = best.worker && open.worker &&
                 best.run + best.transfer < open.run + open.transfer;
    choice_t *pick = best.worker && has_room(best.worker) ? &best
                     : open.worker && !faster                ? &open
                                                             : NULL;
    if (pick && fw_task_heap_push(&pick->worker->heap, task)) {
      place(s, task, pick->worker, now, pick->run, pick->transfer);
    } else {
      waiting[num_waiting++] = task;
    }
    if (!any_room(s)) break;
  }
  /* Back into the pool: it held them a moment ago, so this never needs to grow it. */
  for (size_t i = 0; i < num_waiting; ++i) (void)fw_task_heap_push(&s->ready, waiting[i]);
}

static int heft_push(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  if (!fw_scheduler_can_run(s, task) || !fw_task_heap_push(&s->ready, task)) return 0;
  dispatch(s, from);
  return 1;
}

static fw_task_t *heft_pop(fw_scheduler_t *s, fw_worker_t *worker) {
  fw_task_t *t = fw_task_heap_pop(&worker->heap);
  if (!t) {
    dispatch(s, worker);
    t = fw_task_heap_pop(&worker->heap);
  }
  if (t) {
    dispatch(s, worker); /* a slot opened: place the next task now, so its inputs move */
  } else {
    double now = fw_scheduler_now(s);
    if (worker->expected_free_at < now) worker->expected_free_at = now;
  }
  return t;
}

const fw_policy_t fw_policy_heft = {"heft", heft_push, heft_pop};
