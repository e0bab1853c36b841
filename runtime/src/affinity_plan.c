/* The affinity plan of a released batch (planner.h), after HeteroPrio (Beaumont,
 * Eyraud-Dubois, Kumar: list scheduling on multicores and GPUs by acceleration factor).
 *
 * HEFT's list plans send each task to the worker that would finish it first, so the fast
 * devices take everything they finish first, including tasks they barely speed up, and
 * the tasks they speed up most wait behind them. This plan moves through time instead: a
 * free worker takes, of the tasks whose inputs can be with it by then, the one its device
 * suits best compared with the other kinds of device (the lowest ratio of the task's run
 * time there to its least on another kind), the most urgent (highest upward rank) among
 * equals. A worker with nothing to take may take over a task that another kind of device
 * started, when it would finish it sooner (spoliation); of several, the most urgent. The
 * variants differ in when a fast worker takes over before starting a ready task, and in
 * how far it looks past the best-suited tasks for an urgent one (planner.h).
 *
 * heft_plan.c weighs this plan against HEFT's by their planned ends and keeps the one
 * that ends first: it wins on tiled Cholesky with GPUs, where the GPUs are the bottleneck
 * and their time is best spent on the updates they speed up 20 times, and loses on
 * random DAGs (docs/performance.md). On a machine with one kind of device every ratio is
 * 1 and there is nothing to take over from: it is plain list scheduling in time order,
 * which beats HEFT's insertion on some wide DAGs.
 *
 * It reads only the planner's tables (it runs without the scheduler lock, beside other
 * plans on other threads) and writes only its own state, its planner's scratch (ranks)
 * and `plan`. */
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "runtime_internal.h"

/* Task i's affinity for class c: its run time there over its least on another kind of
 * device (1 when no other kind can run it, or runs it in no time). Below 1: the class
 * suits it. */
static double affinity(const planner_t *p, size_t i, size_t c) {
  const double *run = p->run_on + i * p->num_classes;
  double other = -1;
  for (size_t d = 0; d < p->num_classes; ++d)
    if (run[d] >= 0 && p->class_usable[i * p->num_classes + d] &&
        p->reps[d]->kind != p->reps[c]->kind && (other < 0 || run[d] < other))
      other = run[d];
  return other > 0 ? run[c] / other : 1;
}

/* Task a before task b: higher rank, then submission order. */
static int more_urgent(const planner_t *p, size_t a, size_t b) {
  if (p->rank[a] != p->rank[b]) return p->rank[a] > p->rank[b];
  return p->batch[a]->seq < p->batch[b]->seq;
}

typedef struct {
  planner_t *p;
  plan_t *plan;
  affinity_variant_t variant;
  double *affinity;  /* per task and class: affinity() */
  double *ready;     /* per task and class: fw_plan_inputs_ready there, once available
                      * (-1: not known yet) */
  double *free_at;   /* per worker: when it is free */
  size_t *running;   /* per worker: the task it runs until free_at (NONE: none) */
  char *stalled;     /* per worker: no available task can run there */
  size_t *waiting;   /* per task: predecessors in the batch not yet placed */
  /* The tasks whose predecessors are all placed, per class that can run them, in the
   * order its workers prefer them (by_preference): class c's are queue[c][0 .. len[c]). */
  size_t **queue;
  size_t *len;
  size_t *unrunnable; /* available tasks that no worker can run, to place with none */
  size_t num_unrunnable;
  size_t placed;
  double clock; /* the time of the current step: steps never go back in time */
} state_t;

static void became_available(state_t *st, size_t i);

/* Whether class c's workers prefer task a to task b: the lower affinity, then the more
 * urgent (a strict order: no two tasks tie). */
static int by_preference(const state_t *st, size_t c, size_t a, size_t b) {
  size_t nc = st->p->num_classes;
  double fa = st->affinity[a * nc + c], fb = st->affinity[b * nc + c];
  if (fa != fb) return fa < fb;
  return more_urgent(st->p, a, b);
}

/* Where task i is, or goes, in class c's queue. */
static size_t queue_position(const state_t *st, size_t c, size_t i) {
  size_t lo = 0, hi = st->len[c];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (by_preference(st, c, st->queue[c][mid], i)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Task i joins (or leaves) the queues of the classes that can run it. */
static void enqueue(state_t *st, size_t i) {
  size_t nc = st->p->num_classes;
  for (size_t c = 0; c < nc; ++c) {
    if (st->p->run_on[i * nc + c] < 0) continue;
    size_t at = queue_position(st, c, i);
    memmove(&st->queue[c][at + 1], &st->queue[c][at], (st->len[c] - at) * sizeof(size_t));
    st->queue[c][at] = i;
    ++st->len[c];
  }
}

static void dequeue(state_t *st, size_t i) {
  size_t nc = st->p->num_classes;
  for (size_t c = 0; c < nc; ++c) {
    if (st->p->run_on[i * nc + c] < 0) continue;
    size_t at = queue_position(st, c, i);
    --st->len[c];
    memmove(&st->queue[c][at], &st->queue[c][at + 1], (st->len[c] - at) * sizeof(size_t));
  }
}

static void place(state_t *st, size_t i, fw_worker_t *w, double start, double finish) {
  planner_t *p = st->p;
  plan_t *plan = st->plan;
  plan->order[st->placed++] = i;
  plan->worker[i] = w;
  plan->start[i] = start;
  plan->finish[i] = finish;
  fw_plan_produced(p, plan, i);
  for (size_t q = p->succ_at[i]; q < p->succ_at[i + 1]; ++q)
    if (--st->waiting[p->succs[q]] == 0) became_available(st, p->succs[q]);
}

/* Task i's predecessors are all placed: it may be taken from now on. A task that no
 * worker can run is placed with no worker (place_unrunnable), as HEFT's plans place it. */
static void became_available(state_t *st, size_t i) {
  planner_t *p = st->p;
  int runnable = 0;
  for (size_t c = 0; c < p->num_classes; ++c)
    if (p->run_on[i * p->num_classes + c] >= 0 && p->class_usable[i * p->num_classes + c])
      runnable = 1;
  if (!runnable) {
    st->unrunnable[st->num_unrunnable++] = i;
    return;
  }
  enqueue(st, i);
  for (size_t w = 0; w < p->s->num_workers; ++w)
    if (st->stalled[w]) {
      st->stalled[w] = 0;
      if (st->free_at[w] < st->clock) st->free_at[w] = st->clock;
    }
}

/* Places the tasks no worker can run (and those they make available in turn). */
static void place_unrunnable(state_t *st) {
  while (st->num_unrunnable > 0) {
    size_t i = st->unrunnable[--st->num_unrunnable];
    place(st, i, NULL, st->p->now, st->p->now);
  }
}

/* When task i's inputs can be with worker `wi` (known once its predecessors are placed;
 * a predecessor taken over elsewhere changes it). */
static double ready_at(state_t *st, size_t wi, size_t i) {
  size_t cell = i * st->p->num_classes + st->p->classes[wi];
  if (st->ready[cell] < 0)
    st->ready[cell] = fw_plan_inputs_ready(st->p, st->plan, i, &st->p->s->workers[wi]);
  return st->ready[cell];
}

/* Whether worker `wi` can run task i. */
static int can_run(const planner_t *p, size_t wi, size_t i) {
  /* A class's workers run the same tasks, while in service (run_on). */
  return p->run_on[i * p->num_classes + p->classes[wi]] >= 0 && !p->lost[wi];
}

/* The task worker `wi` takes at time t, or NONE: the first of its class's queue whose
 * inputs can be there by then; `*next`: when there is none, the earliest time at which
 * one's can (-1: none). */
static size_t choose_ready(state_t *st, size_t wi, double t, double *next) {
  planner_t *p = st->p;
  size_t c = p->classes[wi], nc = p->num_classes, at = 0, len = st->len[c];
  const size_t *queue = st->queue[c];
  *next = -1;
  if (p->lost[wi]) return NONE;
  for (; at < len; ++at) {
    double ready = ready_at(st, wi, queue[at]);
    if (ready <= t) {
      /* Known to be ready by then before moves booked since may have taken its link. */
      size_t cell = queue[at] * nc + c;
      ready = st->ready[cell] = fw_plan_inputs_ready(p, st->plan, queue[at], &p->s->workers[wi]);
      if (ready <= t) break;
    }
    if (*next < 0 || ready < *next) *next = ready;
  }
  if (at == len) return NONE;
  size_t pick = queue[at];
  /* Among the tasks this device speeds up, the most urgent within the window (they follow
   * the pick in the queue: those before it are not ready). */
  double affinity = st->affinity[pick * nc + c];
  if (st->variant.window <= 1 || affinity >= 1) return pick;
  double limit = affinity * st->variant.window;
  for (size_t k = at + 1; k < len; ++k) {
    size_t i = queue[k];
    double aff = st->affinity[i * nc + c];
    if (aff > limit || aff >= 1) break;
    if (more_urgent(p, i, pick) && ready_at(st, wi, i) <= t) pick = i;
  }
  return pick;
}

/* The task worker `wi` would take over at time t (the worker running it in `*from`), or
 * NONE: one started on another kind of device, which it would finish sooner; the most
 * urgent of several. */
static size_t choose_victim(state_t *st, size_t wi, double t, size_t *from) {
  planner_t *p = st->p;
  const fw_worker_t *w = &p->s->workers[wi];
  size_t victim = NONE;
  for (size_t v = 0; v < p->s->num_workers; ++v) {
    size_t i = st->running[v];
    if (i == NONE || p->s->workers[v].kind == w->kind || st->plan->start[i] > t ||
        st->plan->finish[i] <= t || !can_run(p, wi, i))
      continue;
    double ready = ready_at(st, wi, i);
    double finish = (ready > t ? ready : t) + fw_plan_runs(p, st->plan, i)[p->classes[wi]];
    if (finish < st->plan->finish[i] && (victim == NONE || more_urgent(p, i, victim))) {
      victim = i;
      *from = v;
    }
  }
  return victim;
}

/* Task i moves: when its successors' inputs can be ready changes. */
static void forget_ready_after(state_t *st, size_t i) {
  const planner_t *p = st->p;
  for (size_t q = p->succ_at[i]; q < p->succ_at[i + 1]; ++q)
    for (size_t c = 0; c < p->num_classes; ++c) st->ready[p->succs[q] * p->num_classes + c] = -1;
}

/* Whether worker `wi` takes over `victim` rather than start the ready task `pick`. */
static int spoliate_first(const state_t *st, size_t victim, size_t pick) {
  if (pick == NONE) return 1;
  switch (st->variant.spoliation) {
    case SPOLIATE_WHEN_IDLE: return 0;
    case SPOLIATE_CRITICAL_FIRST:
      return st->p->critical[victim] && more_urgent(st->p, victim, pick);
    case SPOLIATE_FIRST: return more_urgent(st->p, victim, pick);
  }
  return 0;
}

/* One step: the worker free first takes a task, takes one over, or waits. */
static void step(state_t *st, size_t wi) {
  planner_t *p = st->p;
  plan_t *plan = st->plan;
  fw_worker_t *w = &p->s->workers[wi];
  double t = st->free_at[wi], next;
  st->clock = t;
  double run_here;
  size_t pick = choose_ready(st, wi, t, &next);
  size_t from = 0, victim = NONE;
  if (pick == NONE || st->variant.spoliation != SPOLIATE_WHEN_IDLE)
    victim = choose_victim(st, wi, t, &from);
  if (victim != NONE && spoliate_first(st, victim, pick)) {
    /* Its successors are not placed yet: their inputs are ready no sooner than its
     * planned finish, which is after t, and no worker has moved past t. */
    double ready = fw_plan_book_inputs(p, plan, victim, w);
    double start = ready > t ? ready : t;
    run_here = fw_plan_runs(p, plan, victim)[p->classes[wi]];
    forget_ready_after(st, victim);
    plan->worker[victim] = w;
    plan->start[victim] = start;
    plan->finish[victim] = start + run_here;
    fw_plan_produced(p, plan, victim);
    st->free_at[from] = t;
    st->running[from] = NONE;
    st->free_at[wi] = start + run_here;
    st->running[wi] = victim;
    return;
  }
  if (pick != NONE) {
    dequeue(st, pick);
    double ready = fw_plan_book_inputs(p, plan, pick, w);
    double start = ready > t ? ready : t;
    run_here = fw_plan_runs(p, plan, pick)[p->classes[wi]];
    st->free_at[wi] = start + run_here;
    st->running[wi] = pick;
    place(st, pick, w, start, start + run_here);
    place_unrunnable(st);
    return;
  }
  if (next >= 0) {
    st->free_at[wi] = next; /* a task's inputs arrive then */
    return;
  }
  /* Nothing here to run: the next worker to be free may make tasks available. */
  double later = -1;
  for (size_t v = 0; v < p->s->num_workers; ++v)
    if (v != wi && !st->stalled[v] && !p->lost[v] && st->free_at[v] > t &&
        (later < 0 || st->free_at[v] < later))
      later = st->free_at[v];
  if (later >= 0) st->free_at[wi] = later;
  else st->stalled[wi] = 1;
}

int fw_affinity_plan(planner_t *p, affinity_variant_t variant, plan_t *plan) {
  fw_scheduler_t *s = p->s;
  size_t nw = s->num_workers, n = p->count;
  state_t st = {.p = p, .plan = plan, .variant = variant};
  st.free_at = malloc(nw * sizeof(double));
  st.running = malloc(nw * sizeof(size_t));
  st.stalled = calloc(nw, 1);
  st.waiting = malloc((n ? n : 1) * sizeof(size_t));
  st.queue = calloc(p->num_classes, sizeof(*st.queue));
  st.len = calloc(p->num_classes, sizeof(size_t));
  int queues = st.queue && st.len;
  for (size_t c = 0; queues && c < p->num_classes; ++c)
    queues = (st.queue[c] = malloc((n ? n : 1) * sizeof(size_t))) != NULL;
  st.unrunnable = malloc((n ? n : 1) * sizeof(size_t));
  size_t cells = (n ? n : 1) * p->num_classes;
  st.affinity = malloc(cells * sizeof(double));
  st.ready = malloc(cells * sizeof(double));
  int ok = st.free_at && st.running && st.stalled && st.waiting && queues &&
           st.unrunnable && st.affinity && st.ready;
  if (ok) {
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < p->num_classes; ++c) {
        st.affinity[i * p->num_classes + c] = affinity(p, i, c);
        st.ready[i * p->num_classes + c] = -1;
      }
    fw_plan_rank_tasks(p, RANK_FASTEST);
    fw_plan_moves_reset(p);
    for (size_t w = 0; w < nw; ++w) {
      st.free_at[w] = p->free_at[w] > p->now ? p->free_at[w] : p->now;
      st.running[w] = NONE;
    }
    st.clock = p->now;
    for (size_t i = 0; i < n; ++i) st.waiting[i] = p->pred_at[i + 1] - p->pred_at[i];
    /* The tasks with no predecessor in the batch (not those whose count reaches 0 on
     * the way, which became_available already had). */
    for (size_t i = 0; i < n; ++i)
      if (p->pred_at[i + 1] == p->pred_at[i]) became_available(&st, i);
    place_unrunnable(&st);
    /* Until every worker is done: once all tasks are placed, free workers may still take
     * over the last ones from slower devices. */
    for (;;) {
      size_t wi = nw;
      for (size_t w = 0; w < nw; ++w)
        if (!st.stalled[w] && !p->lost[w] &&
            (wi == nw || st.free_at[w] < st.free_at[wi]))
          wi = w;
      if (wi == nw) break;
      step(&st, wi);
    }
    plan->makespan = p->now;
    for (size_t i = 0; i < st.placed; ++i) {
      size_t k = plan->order[i];
      if (plan->finish[k] > plan->makespan) plan->makespan = plan->finish[k];
    }
    ok = st.placed == n && !p->failed;
  }
  free(st.ready);
  free(st.affinity);
  free(st.unrunnable);
  for (size_t c = 0; st.queue && c < p->num_classes; ++c) free(st.queue[c]);
  free(st.queue);
  free(st.len);
  free(st.waiting);
  free(st.stalled);
  free(st.running);
  free(st.free_at);
  return ok;
}
