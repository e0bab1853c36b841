/* heft: list scheduling by earliest expected finish time (after HEFT and StarPU's dmda),
 * with bounded queues.
 *
 * A batch released at once (a module call's tasks, a simulation) is first planned as a
 * whole (heft_plan.c): each task gets a worker and a planned start, and goes to that worker
 * when it is ready. Other ready tasks wait in one pool ordered by priority, then upward
 * rank. Whenever a worker has room (fewer tasks placed and not started than its queue
 * depth), the pool is walked in that order and each task goes to the worker where
 *     finish = max(now, worker's queue drains) + input transfers + expected run time
 * is smallest — if that worker has room. When it has none, the task waits for it if it
 * is a faster device for the task (a GPU for a GEMM), and otherwise goes to the best
 * worker with room; the walk goes on with the next task. Placing a task starts its input
 * copies (prefetch), and the bounded queues keep placement late enough that a more
 * critical task released later still runs first (committing every ready task at once
 * cannot do that). A task only workers alike can run (one kind, one memory node: the CPU
 * workers; every task on a machine without accelerators, a C task beside a GPU) has the
 * same run time and moves on each, so its earliest finish is on the worker that frees
 * first: it is not placed ahead but waits in a pool of its own, and a worker that looks
 * for work takes the first it can run (list scheduling in heft's order; see
 * left_to_take). Submissions inserted together (those staged while another thread held
 * the scheduler lock) go into the pool first and are placed in one pass. A pass per task
 * looked over up to 64 pool tasks each time; when none could be placed (a worker waiting
 * for the lock still had a task queued, so every task waited for the other, full one) the
 * inserting thread held the lock through the whole run, up to a second for 200000 empty
 * tasks on two workers. */
#include "scheduler.h"

#include "heft_plan.h"
#include "redux.h"
#include "runtime_internal.h"

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

/* The first worker in service of the alike workers from `i` on (to fw_worker_t.alike_end)
 * when it can run `task` (they all can, or none), or NULL. */
static fw_worker_t *alike_runner(const fw_scheduler_t *s, size_t i, const fw_task_t *task) {
  size_t end = s->workers[i].alike_end;
  while (i < end && s->workers[i].lost) ++i;
  return i < end && fw_worker_can_run(&s->workers[i], task) ? &s->workers[i] : NULL;
}

/* Whether `task` is left for a worker to take (alike_pool) rather than placed ahead: of
 * the workers in service only alike ones can run it (every task where all of them are
 * alike, the CPU workers of a machine without GPUs; beside a GPU, a C task or a kernel
 * without code for it). Its run time and moves are then the same on each, so its
 * earliest finish is on the one that frees first, which finds it by looking for work.
 * Placing ahead chose among every worker (its drain time, room and tie rank) under the
 * scheduler lock for that answer: the lock was held 1.6-2.6x as long per task as under
 * eager, a task of higher priority released later waited behind the ones queued, and
 * with a GPU in service CPU tasks took up to 7x as long as without (docs/performance.md).
 * A task only a device's workers can run is still placed: placing it starts moving its
 * inputs there. Module calls' batches are planned whatever their tasks (heft_plan.c). */
static int left_to_take(const fw_scheduler_t *s, const fw_task_t *task) {
  if (s->heft_place_alike) return 0;
  if (s->service_alike) return 1;
  const fw_worker_t *group = NULL; /* the first in service of the workers that can run it */
  for (size_t i = 0; i < s->num_workers; i = s->workers[i].alike_end) {
    const fw_worker_t *runner = alike_runner(s, i, task);
    if (!runner) continue;
    if (group) return 0;
    group = runner;
  }
  return group && group->memory_node == FW_NODE_HOST;
}

/* How much a worker is preferred among those with the same expected finish: the one
 * whose completion released the task (warm inputs, no wake-up), then an idle one that
 * polls for work (it takes the task at once), then one that sleeps (a wake-up: 10-20 us
 * on a virtual machine), then the lowest index. Sleepers came first once, when polling
 * workers looked for work by themselves; a task placed on a sleeper then cost a call of
 * one task a wake-up while the worker that ran the last one polled (docs/performance.md). */
static int tie_rank(const fw_worker_t *w, const fw_worker_t *from) {
  if (w == from) return 3;
  if (w->running || w->sim_busy || w->heap.size > 0) return 0;
  return w->sleeping ? 1 : 2;
}

typedef struct {
  fw_worker_t *worker;
  double start, finish, run, transfer;
  /* A contribution to a reduction on a worker without an accumulator for it: what the
   * new accumulator costs (fw_redux_accumulator_cost), counted in `finish`. */
  double accumulator;
} choice_t;

/* A running worker is late once what it took since it was last idle (or since its last
 * completion) has run more than twice its expected time, and by more than this. Tasks of
 * a few microseconds count too: a task no history knows yet is expected to take 1 us. */
#define FW_HEFT_LATE_SECONDS 200e-6

/* How long worker `w` may run what it took before it is late. */
static double late_after(const fw_worker_t *w) {
  double e = w->busy_expected;
  return e + (e > FW_HEFT_LATE_SECONDS ? e : FW_HEFT_LATE_SECONDS);
}

/* How much longer real worker `w` is expected to run what it has taken, when it runs
 * late: as long again as it has run so far (the estimate was wrong, and a task that has
 * run for t is as likely as not to need another t); 0 otherwise (its expected drain time
 * holds). Without this a worker whose task overran its estimate looked free at once, and
 * tasks queued behind it (a task taught 2 ms that ran 80 held the one behind it for 80
 * while the other worker idled). */
static double late_remaining(const fw_scheduler_t *s, const fw_worker_t *w, double now) {
  if (s->simulated || !w->running) return 0;
  double elapsed = now - w->busy_since;
  return elapsed > late_after(w) ? elapsed : 0;
}

/* When worker `w` could start a task placed now: when its queue is expected to drain, and
 * in a real run not before the tasks waiting in its queue have had their expected time
 * from now, after what it runs late (late_remaining). A queue runs late when its thread
 * was preempted or its tasks ran longer than expected; without the second bound such a
 * worker, full and seemingly free since long ago, looked best for every task, which then
 * waited for it while the others idled (empty tasks with estimates 20x their run time,
 * two workers: 4.7 us each, 2.0-2.6 with this bound, 0.6 with true estimates). Simulated
 * workers run exactly as planned. */
static double expected_start(const fw_scheduler_t *s, const fw_worker_t *w, double now) {
  double start = w->expected_free_at > now ? w->expected_free_at : now;
  if (s->simulated) return start;
  double drain = now + late_remaining(s, w, now) + w->queued_seconds;
  return drain > start ? drain : start;
}

/* A task left worker `w`'s queue (to run, or taken by another worker). */
static void dequeued(fw_worker_t *w, const fw_task_t *t) {
  w->queued_seconds = w->heap.size ? w->queued_seconds - t->expected_seconds : 0;
}

/* Points the estimate memo at `task`: kept when the memo was made for a task alike (same
 * name, sizes and work) and the history has not changed since, emptied otherwise. Names
 * are compared by their 64-bit hash, which the task keeps: its name is not read again
 * (a different name with the same hash, sizes and work would get the other's estimate,
 * a placement a little off, never a wrong result). */
static void memo_for(fw_scheduler_t *s, const fw_task_t *task) {
  fw_estimate_memo_t *m = &s->heft_memo;
  uint64_t generation =
      atomic_load_explicit(&s->runtime->history.generation, memory_order_acquire);
  if (m->kinds && m->generation == generation && m->name_hash == task->name_hash &&
      m->data_bytes == task->data_bytes && m->flops == task->flops && m->bytes == task->bytes)
    return;
  m->kinds = 0;
  m->generation = generation;
  m->name_hash = task->name_hash;
  m->data_bytes = task->data_bytes;
  m->flops = task->flops;
  m->bytes = task->bytes;
}

/* Worker `w`'s expected run time for the task memo_for last pointed the memo at. Real
 * workers of one kind share an estimate (one history lookup per kind, and none for a
 * task alike the last); simulated workers each have their device's model. */
static double run_estimate(fw_scheduler_t *s, const fw_task_t *task, const fw_worker_t *w) {
  fw_estimate_memo_t *m = &s->heft_memo;
  if (w->sim || w->kind >= FW_ESTIMATE_MEMO_KINDS) return fw_scheduler_estimate(s, task, w);
  if ((m->kinds >> w->kind) & 1u) return m->run[w->kind];
  double run = fw_scheduler_estimate(s, task, w);
  m->run[w->kind] = run;
  m->kinds |= 1u << w->kind;
  return run;
}

/* Worker `w`'s expected run time for `task`, through the memo. */
static double estimate(fw_scheduler_t *s, const fw_task_t *task, const fw_worker_t *w) {
  memo_for(s, task);
  return run_estimate(s, task, w);
}

/* The worker with the earliest expected finish for `task` (`best`), and the same among
 * the workers with room in their queue (`open`). Alike workers (fw_worker_t.alike_end)
 * are asked once whether they can run it and for its run time and moves, and each only
 * when it could start: with 16 CPU workers a choice read each one's code, memory and
 * estimate for the same answer. */
static void choose(fw_scheduler_t *s, const fw_task_t *task, fw_worker_t *from, double now,
                   choice_t *best, choice_t *open) {
  best->worker = open->worker = NULL;
  memo_for(s, task);
  for (size_t i = 0; i < s->num_workers; i = s->workers[i].alike_end) {
    const fw_worker_t *like = alike_runner(s, i, task);
    if (!like) continue;
    size_t end = s->workers[i].alike_end, first = (size_t)(like - s->workers);
    double run = run_estimate(s, task, like);
    double transfer = fw_scheduler_transfer_estimate(s, task, like);
    for (size_t k = first; k < end; ++k) {
      fw_worker_t *w = &s->workers[k];
      if (w->lost) continue;
      double start = expected_start(s, w, now);
      double accumulator = task->num_reduces ? fw_redux_accumulator_cost(task, w) : 0;
      choice_t c = {w, start, start + transfer + run + accumulator, run, transfer, accumulator};
      choice_t *targets[2] = {best, has_room(w) ? open : NULL};
      for (int t = 0; t < 2; ++t) {
        choice_t *o = targets[t];
        if (!o) continue;
        if (!o->worker || c.finish < o->finish ||
            (c.finish == o->finish && tie_rank(w, from) > tie_rank(o->worker, from)))
          *o = c;
      }
    }
  }
}

/* Gives `task` to worker `w`; `queued`: it waits in the worker's queue (else `w` is the
 * worker looking for work, and runs it now: it needs no telling). */
static void place(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w, double now, double run,
                  double transfer, int queued) {
  task->worker = w;
  task->expected_seconds = run;
  w->expected_free_at = expected_start(s, w, now) + transfer + run;
  if (queued) w->queued_seconds += run;
  fw_scheduler_placed(s, task);
  if (queued && !w->running) fw_scheduler_notify(s, w); /* a busy one looks when it finishes */
}

/* Whether every input of `task` is valid in each memory node of `nodes` (a bit each):
 * moving its inputs costs nothing on any worker there. */
static int inputs_valid_on(const fw_task_t *task, unsigned nodes) {
  for (size_t i = 0; i < task->num_accesses; ++i) {
    const fw_buffer_t *b = task->accesses[i].buffer;
    if ((task->accesses[i].access & FW_ACCESS_READ) &&
        (atomic_load_explicit(&b->mem.valid_mask, memory_order_relaxed) & nodes) != nodes)
      return 0;
  }
  return 1;
}

/* A placement pass over the pool (dispatch). */
typedef struct {
  fw_scheduler_t *s;
  fw_worker_t *from;
  double now;
  unsigned nodes; /* the memory nodes of the workers in service */
  /* The last task to wait with nothing to move, since a placement: its placement key. */
  int waited;
  uint32_t waited_key;
} dispatch_t;

/* Whether none of the inputs of `task` (pool entry `e`) has to move to any worker. */
static int nothing_to_move(const dispatch_t *d, const fw_task_t *task,
                           const fw_task_heap_entry_t *e) {
  return !e->reads || inputs_valid_on(task, d->nodes);
}

/* Places `task` (pool entry `e`) or leaves it in the pool. A task alike the last that
 * waited (the same placement key: the same estimates, the same workers that can and would
 * run it; and no input to move for either) waits too without a choice of its own: no task
 * was placed in between, so the workers look the same to it. */
static int place_from_pool(void *ctx, fw_task_t *task, const fw_task_heap_entry_t *e) {
  dispatch_t *d = ctx;
  fw_scheduler_t *s = d->s;
  if (d->waited && e->placement_key == d->waited_key && nothing_to_move(d, task, e) &&
      !task->num_reduces) /* (a contribution's accumulators differ from worker to worker) */
    return FW_TASK_HEAP_LEAVE;
  choice_t best, open;
  choose(s, task, d->from, d->now, &best, &open);
  /* The best worker is full: the task waits for it if it costs less there (faster
   * device, its inputs already there, or a contribution's accumulator). When only the
   * queues differ, the earliest worker with room takes it if that worker would start it
   * at once, or finish it no later; not one with a long task queued, which the full one
   * will finish before. */
  int faster = best.worker && open.worker &&
               best.run + best.transfer + best.accumulator <
                   open.run + open.transfer + open.accumulator;
  int open_now = open.worker && (open.start <= d->now || open.finish <= best.finish);
  choice_t *pick = best.worker && has_room(best.worker) ? &best
                   : open.worker && !faster && open_now   ? &open
                                                           : NULL;
  if (pick && fw_task_heap_push(&pick->worker->heap, task)) {
    place(s, task, pick->worker, d->now, pick->run, pick->transfer, 1);
    d->waited = 0;
    return FW_TASK_HEAP_TAKE | (any_room(s) ? 0 : FW_TASK_HEAP_STOP);
  }
  d->waited = !s->simulated && nothing_to_move(d, task, e);
  d->waited_key = e->placement_key;
  return FW_TASK_HEAP_LEAVE;
}

/* Moves pool tasks onto workers with room, best first, looking at FW_HEFT_SCAN of them at
 * most (a task whose worker queue cannot grow for lack of memory stays in the pool). With
 * 8 workers a task used to be chosen for 3 times on average, most of them to wait again
 * behind one like it; those now wait without a choice (place_from_pool), and where they
 * are (fw_task_heap_walk: taking each out of the pool and putting it back cost more than
 * the choice, 13 of them per task placed with 8 workers on 2 cores). */
static void dispatch(fw_scheduler_t *s, fw_worker_t *from, double now) {
  if (s->ready.size == 0 || !any_room(s)) return;
  dispatch_t d = {s, from, now, s->service_nodes, 0, 0};
  fw_task_heap_walk(&s->ready, FW_HEFT_SCAN, place_from_pool, &d);
}

/* `task` waits in the pool: a worker its plan holds back (idle, with tasks queued) may
 * take it. */
static void wake_held_back(fw_scheduler_t *s, const fw_task_t *task) {
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *w = &s->workers[i];
    if (!w->lost && !w->running && w->heap.size && fw_worker_can_run(w, task)) {
      fw_scheduler_notify(s, w);
      return;
    }
  }
}

static int heft_push(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  if (!fw_scheduler_can_run(s, task)) return 0;
  /* A planned task goes to its worker: the plan saw the whole batch. */
  fw_worker_t *planned = task->plan_worker;
  if (planned && !planned->lost && fw_worker_can_run(planned, task)) {
    if (!fw_task_heap_push(&planned->heap, task)) return 0;
    place(s, task, planned, fw_scheduler_now(s), estimate(s, task, planned),
          fw_scheduler_transfer_estimate(s, task, planned), 1);
    if (planned->running && !s->simulated) { /* an idle worker may do it sooner */
      fw_worker_t *idle = fw_scheduler_idle_worker(s, task);
      if (idle) fw_scheduler_notify(s, idle);
    }
    return 1;
  }
  if (planned) { /* that worker was lost, or the task failed there: placed as it comes */
    fw_scheduler_unplan(task);
    task->plan_worker = NULL;
  }
  task->worker = NULL;
  if (left_to_take(s, task)) { /* as under eager: one idle worker is told */
    if (!fw_task_heap_push(&s->alike_pool, task)) return 0;
    fw_scheduler_placed(s, task);
    fw_worker_t *idle = fw_scheduler_idle_worker(s, task);
    if (idle) fw_scheduler_notify(s, idle);
    return 1;
  }
  if (!fw_task_heap_push(&s->ready, task)) return 0;
  if (s->inserting) return 1; /* heft_settle places the run of submissions */
  dispatch(s, from, fw_scheduler_now(s));
  if (!task->worker) wake_held_back(s, task);
  return 1;
}

/* After a run of submissions went into the pool: one placement pass, then a worker held
 * back by its plan may take what is left. */
static void heft_settle(fw_scheduler_t *s) {
  dispatch(s, NULL, fw_scheduler_now(s));
  if (s->ready.size) wake_held_back(s, fw_task_heap_at(&s->ready, 0));
}

/* What a worker may start now, given the next task its plans give it (`head`: the first
 * on its list that has not started). */
typedef struct {
  fw_scheduler_t *s;
  const fw_worker_t *worker;
  const fw_task_t *head;
  double now;
} plan_gate_t;

/* The head itself; a task no plan placed here; one planned to start no later than the
 * head; or, while the head waits for its inputs, one expected to finish before the head
 * is planned to start (a gap the plan left). Anything else would hold up the head, which
 * the plan started there for a reason (a successor on the critical path waits for it).
 * The head's inputs come from tasks planned earlier, so a worker that holds back never
 * waits for itself. */
static int plan_allows(const void *ctx, const fw_task_t *t) {
  const plan_gate_t *g = ctx;
  if (!g->head || t == g->head || t->plan_worker != g->worker ||
      t->plan_start <= g->head->plan_start)
    return 1;
  if (g->head->state != FW_TASK_PENDING) return 0;
  return g->now + estimate(g->s, t, g->worker) <= g->head->plan_start;
}

/* Whether the task on a plan list is still to start on that worker. */
static int still_planned(const fw_worker_t *w, const fw_task_t *t) {
  return t && (t->state == FW_TASK_PENDING || (t->state == FW_TASK_READY && t->worker == w));
}

static fw_task_t *pop_planned(fw_scheduler_t *s, fw_worker_t *w, double now) {
  while (w->plan_head < w->plan_len && !still_planned(w, w->plan[w->plan_head]))
    ++w->plan_head;
  fw_task_t *t;
  if (w->plan_head == w->plan_len) {
    w->plan_head = w->plan_len = 0;
    t = fw_task_heap_pop(&w->heap);
  } else {
    plan_gate_t gate = {s, w, w->plan[w->plan_head], now};
    t = fw_task_heap_pop_if(&w->heap, plan_allows, &gate);
  }
  if (t) dequeued(w, t);
  return t;
}

static int worker_accepts(const void *ctx, const fw_task_t *t) {
  return fw_worker_can_run((const fw_worker_t *)ctx, t);
}

static int is_task(const void *ctx, const fw_task_t *t) { return (const void *)t == ctx; }

/* The time what `t` writes would reach the successors planned on other memory nodes, were
 * it to end on `w` at `finish`: the latest of those moves. */
static double delivered(const fw_task_t *t, const fw_worker_t *w, double finish) {
  double latest = finish;
  for (size_t k = 0; k < t->num_successors; ++k) {
    const fw_task_t *succ = t->successors[k];
    const fw_worker_t *to = succ->plan_worker;
    if (!to || to->memory_node == w->memory_node) continue;
    double moves = 0;
    for (size_t a = 0; a < succ->num_accesses; ++a) {
      if (!(succ->accesses[a].access & FW_ACCESS_READ)) continue;
      for (size_t i = 0; i < t->num_accesses; ++i)
        if (t->accesses[i].buffer == succ->accesses[a].buffer &&
            (t->accesses[i].access & FW_ACCESS_WRITE)) {
          moves += fw_scheduler_link_seconds(w, to, succ->accesses[a].buffer->byte_size);
          break;
        }
    }
    if (finish + moves > latest) latest = finish + moves;
  }
  return latest;
}

/* An idle worker takes a ready task queued on another worker when it would finish it
 * before that worker could, counting the moves of its outputs to the successors planned
 * elsewhere, provided it still starts its own next planned task on time: a task a plan
 * put there (estimates were off: that worker is behind its plan, or this one ran ahead),
 * or any task queued on a worker that runs late (late_remaining). */
static fw_task_t *steal_queued(fw_scheduler_t *s, fw_worker_t *w, double now) {
  const fw_task_t *head = w->plan_head < w->plan_len ? w->plan[w->plan_head] : NULL;
  if (head && head->state != FW_TASK_PENDING) return NULL;
  fw_task_t *best = NULL;
  fw_worker_t *victim = NULL;
  double best_run = 0, best_transfer = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *v = &s->workers[i];
    if (v == w || v->heap.size == 0) continue;
    double late = late_remaining(s, v, now);
    for (size_t k = 0; k < v->heap.size; ++k) {
      fw_task_t *t = fw_task_heap_at(&v->heap, k);
      int planned = t->plan_worker == v;
      if ((!planned && late == 0) || !fw_worker_can_run(w, t) ||
          (best && !fw_task_before(t, best)))
        continue;
      double run = estimate(s, t, w);
      double transfer = fw_scheduler_transfer_estimate(s, t, w);
      double mine = now + transfer + run;
      double v_start = planned && t->plan_start > now + late ? t->plan_start : now + late;
      double theirs = v_start + estimate(s, t, v);
      /* A contribution taken by a worker without an accumulator for its reduction adds
       * one (a pass over the buffer; a GPU's copies): only worth it when that costs less
       * than what the victim gives away, its run and how late it runs. */
      if (t->num_reduces) {
        double cost = fw_redux_accumulator_cost(t, w);
        if (cost > 0 && cost >= estimate(s, t, v) + late) continue;
      }
      if (delivered(t, w, mine) >= delivered(t, v, theirs) || (head && mine > head->plan_start))
        continue;
      best = t;
      victim = v;
      best_run = run;
      best_transfer = transfer;
    }
  }
  if (!best) return NULL;
  (void)fw_task_heap_pop_if(&victim->heap, is_task, best);
  dequeued(victim, best);
  if (best->plan_worker) {
    fw_scheduler_unplan(best);
    best->plan_worker = NULL;
  }
  place(s, best, w, now, best_run, best_transfer, 0);
  return best;
}

/* Worker `w` took `t` to run (late_remaining's account): its expected run time, and the
 * moves of its inputs still to come (a task waiting for its inputs is not late). */
static void taken(fw_scheduler_t *s, fw_worker_t *w, const fw_task_t *t, double now) {
  if (!w->running) {
    w->busy_since = now;
    w->busy_expected = 0;
  }
  w->busy_expected += t->expected_seconds + fw_scheduler_transfer_estimate(s, t, w);
}

static fw_task_t *heft_pop(fw_scheduler_t *s, fw_worker_t *worker) {
  double now = fw_scheduler_now(s); /* one reading for the whole pop */
  fw_task_t *t = pop_planned(s, worker, now);
  if (!t) {
    dispatch(s, worker, now);
    t = pop_planned(s, worker, now);
  }
  /* The first task it can run of those left to take (its own queue's come first: they
   * were placed to start there by now), or, held back by its plan, of the pool rather
   * than idle (tasks without a plan must not wait behind planned ones). */
  if (!t) {
    if (fw_task_heap_holds_kind(&s->alike_pool, worker->kind))
      t = fw_task_heap_pop_if(&s->alike_pool, worker_accepts, worker);
    if (!t && worker->heap.size && fw_task_heap_holds_kind(&s->ready, worker->kind))
      t = fw_task_heap_pop_if(&s->ready, worker_accepts, worker);
    if (t)
      place(s, t, worker, now, estimate(s, t, worker),
            fw_scheduler_transfer_estimate(s, t, worker), 0);
  }
  if (!t) t = steal_queued(s, worker, now);
  if (t) {
    taken(s, worker, t, now);
    dispatch(s, worker, now); /* a slot opened: place the next task now, so its inputs move */
  } else if (worker->expected_free_at < now) {
    worker->expected_free_at = now;
  }
  return t;
}

/* A worker about to sleep looks again when a worker with tasks queued that it could take
 * runs late (late_remaining), or, where that one runs late already, when it has run as
 * long again: nobody wakes it for that, and without this it slept while the tasks waited
 * behind the late one. A worker with such tasks that has not started yet (woken, it has
 * not had the lock since) cannot be timed: the sleeper looks again after the shortest
 * time to run late (FW_HEFT_LATE_SECONDS), when that one has started. Without this a
 * worker slept for good when it found the other not started (a loaded machine): the
 * other then ran a task far longer than its estimate with the next one queued behind it
 * (2 times in 400 runs of IdleWorkerLooksAgainWhenAnotherRunsLate beside two busy loops). */
static double heft_wake_at(fw_scheduler_t *s, const fw_worker_t *w) {
  double now = fw_scheduler_now(s), at = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *v = &s->workers[i];
    if (v == w || v->heap.size == 0) continue;
    int takes = 0;
    for (size_t k = 0; k < v->heap.size && !takes; ++k) {
      const fw_task_t *t = fw_task_heap_at(&v->heap, k);
      takes = t->plan_worker != v && fw_worker_can_run(w, t);
    }
    if (!takes) continue;
    double when;
    if (!v->running) {
      when = now + FW_HEFT_LATE_SECONDS;
    } else {
      when = v->busy_since + late_after(v) + 1e-6;
      if (when <= now) when = now + (now - v->busy_since);
    }
    if (at == 0 || when < at) at = when;
  }
  return at;
}

const fw_policy_t fw_policy_heft = {"heft",      heft_push,   heft_pop,
                                    fw_heft_plan, heft_settle, heft_wake_at};
