/* heft: list scheduling by earliest expected finish time (after HEFT and StarPU's dmda),
 * with bounded queues.
 *
 * A batch released at once (a module call's tasks, a simulation) is first planned as a
 * whole (heft_plan): each task gets a worker and a planned start, and goes to that worker
 * when it is ready. Other ready tasks wait in one pool ordered by priority, then upward
 * rank. Whenever a worker has room (fewer tasks placed and not started than its queue
 * depth), the pool is walked in that order and each task goes to the worker where
 *     finish = max(now, worker's queue drains) + input transfers + expected run time
 * is smallest — if that worker has room. When it has none, the task waits for it if it
 * is a faster device for the task (a GPU for a GEMM), and otherwise goes to the best
 * worker with room; the walk goes on with the next task. Placing a task starts its input
 * copies (prefetch), and the bounded queues keep placement late enough that a more
 * critical task released later still runs first (committing every ready task at once
 * cannot do that). */
#include "scheduler.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"
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

/* ---- Plans of released batches ------------------------------------------------- */

/* A worker's planned busy intervals, sorted and disjoint. */
typedef struct {
  double *start, *end;
  size_t n, cap;
} timeline_t;

/* The earliest time from `ready` at which the timeline has `d` seconds free (a gap
 * between planned tasks will do: insertion-based HEFT). */
static double earliest_gap(const timeline_t *tl, double ready, double d) {
  double t = ready;
  for (size_t i = 0; i < tl->n; ++i) {
    if (tl->end[i] <= t) continue;
    if (tl->start[i] >= t + d) break;
    t = tl->end[i];
  }
  return t;
}

static int timeline_add(timeline_t *tl, double start, double end) {
  if (tl->n == tl->cap) {
    size_t cap = tl->cap ? tl->cap * 2 : 16;
    double *s = realloc(tl->start, cap * sizeof(double));
    if (!s) return 0;
    tl->start = s;
    double *e = realloc(tl->end, cap * sizeof(double));
    if (!e) return 0;
    tl->end = e;
    tl->cap = cap;
  }
  size_t i = tl->n;
  while (i > 0 && tl->start[i - 1] > start) {
    tl->start[i] = tl->start[i - 1];
    tl->end[i] = tl->end[i - 1];
    --i;
  }
  tl->start[i] = start;
  tl->end[i] = end;
  ++tl->n;
  return 1;
}

/* Batch order: higher upward rank first, then submission order (a predecessor's rank is
 * at least its successor's, and it was submitted first). */
static int plan_order(const void *pa, const void *pb) {
  const fw_task_t *a = *(fw_task_t *const *)pa, *b = *(fw_task_t *const *)pb;
  if (a->rank != b->rank) return a->rank > b->rank ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Planned start order (then batch order). */
static int start_order(const void *pa, const void *pb) {
  const fw_task_t *a = *(fw_task_t *const *)pa, *b = *(fw_task_t *const *)pb;
  if (a->plan_start != b->plan_start) return a->plan_start < b->plan_start ? -1 : 1;
  return a->plan_index < b->plan_index ? -1 : a->plan_index > b->plan_index;
}

/* Appends a planned task to its worker's list (compacted first). */
static int plan_append(fw_worker_t *w, fw_task_t *t) {
  if (w->plan_head > 0) {
    size_t n = 0;
    for (size_t i = w->plan_head; i < w->plan_len; ++i)
      if (w->plan[i]) {
        w->plan[n] = w->plan[i];
        w->plan[n]->plan_slot = n;
        ++n;
      }
    w->plan_head = 0;
    w->plan_len = n;
  }
  if (w->plan_len == w->plan_cap) {
    size_t cap = w->plan_cap ? w->plan_cap * 2 : 64;
    fw_task_t **grown = realloc(w->plan, cap * sizeof(*grown));
    if (!grown) return 0;
    w->plan = grown;
    w->plan_cap = cap;
  }
  t->plan_slot = w->plan_len;
  w->plan[w->plan_len++] = t;
  return 1;
}

/* Whether `t` writes `buffer`. */
static int writes(const fw_task_t *t, const fw_buffer_t *buffer) {
  for (size_t i = 0; i < t->num_accesses; ++i)
    if (t->accesses[i].buffer == buffer && (t->accesses[i].access & FW_ACCESS_WRITE)) return 1;
  return 0;
}

/* Time to move a task's inputs to worker `w`'s memory: from the workers planned for
 * their producers in the batch (`producers`, per access), else from where they are. */
static double input_moves(const fw_task_t *t, const fw_task_t *const *producers,
                          const fw_worker_t *w) {
  double moves = 0;
  for (size_t a = 0; a < t->num_accesses; ++a) {
    const fw_buffer_t *b = t->accesses[a].buffer;
    if (!(t->accesses[a].access & FW_ACCESS_READ)) continue;
    if (producers[a])
      moves += fw_scheduler_link_seconds(producers[a]->plan_worker, w, b->byte_size);
    else if (!fw_memory_is_valid_on(b, w->memory_node))
      moves += fw_scheduler_link_seconds(NULL, w, b->byte_size);
  }
  return moves;
}

/* A task's mean run time over the workers that can run it, from its times per class
 * (negative: cannot run there), as upward ranks average it. */
static double mean_run(const fw_scheduler_t *s, const double *run_per_class,
                       const size_t *classes) {
  double sum = 0;
  size_t n = 0;
  for (size_t w = 0; w < s->num_workers; ++w)
    if (run_per_class[classes[w]] >= 0) {
      sum += run_per_class[classes[w]];
      ++n;
    }
  return n ? sum / (double)n : 0;
}

/* Plans a released batch the way HEFT does, over the whole batch rather than the ready
 * pool: tasks in upward-rank order each take the worker where they would finish first,
 * counting their inputs' moves from the workers planned for their producers, and gaps
 * between tasks already planned there (insertion). A task then goes to its planned
 * worker as soon as it is ready (heft_push); tasks without a plan (C tasks, a worker
 * lost since) are placed as they come. A plan that cannot be made (out of memory) is
 * simply not made. */
static void heft_plan(fw_scheduler_t *s, fw_task_t *const *batch, size_t count) {
  double now = fw_scheduler_now(s);
  uint64_t serial = ++s->plans;
  fw_task_t **order = malloc(count * sizeof(*order));
  double *finish = malloc(count * sizeof(*finish));
  size_t *num_preds = calloc(count + 1, sizeof(*num_preds));
  timeline_t *lines = calloc(s->num_workers, sizeof(*lines));
  size_t *preds = NULL, *classes = NULL, num_classes = 0;
  const fw_worker_t **reps = NULL;
  double *run_on = NULL;
  const fw_task_t **producers = NULL;
  size_t cap_producers = 0;
  double *down = NULL;  /* downward rank: the longest chain of predecessors before it */
  char *critical = NULL;
  if (!order || !finish || !num_preds || !lines) goto done;
  memcpy(order, batch, count * sizeof(*order));
  qsort(order, count, sizeof(*order), plan_order);
  for (size_t i = 0; i < count; ++i) {
    order[i]->plan_batch = serial;
    order[i]->plan_index = i;
    order[i]->plan_worker = NULL;
    finish[i] = now;
  }
  /* Each task's predecessors in the batch: offsets (num_preds, as prefix sums), then
   * the lists. */
  for (size_t i = 0; i < count; ++i)
    for (size_t k = 0; k < order[i]->num_successors; ++k) {
      const fw_task_t *succ = order[i]->successors[k];
      if (succ->plan_batch == serial) ++num_preds[succ->plan_index + 1];
    }
  for (size_t i = 0; i < count; ++i) num_preds[i + 1] += num_preds[i];
  preds = malloc((num_preds[count] ? num_preds[count] : 1) * sizeof(*preds));
  size_t *fill = calloc(count, sizeof(*fill));
  if (!preds || !fill) {
    free(fill);
    goto done;
  }
  for (size_t i = 0; i < count; ++i)
    for (size_t k = 0; k < order[i]->num_successors; ++k) {
      const fw_task_t *succ = order[i]->successors[k];
      if (succ->plan_batch == serial)
        preds[num_preds[succ->plan_index] + fill[succ->plan_index]++] = i;
    }
  free(fill);
  /* Workers of one device are one class, with the same estimates: per task and class,
   * its expected run time there (-1: it cannot run there). */
  classes = malloc(s->num_workers * sizeof(*classes));
  reps = malloc(s->num_workers * sizeof(*reps));
  if (!classes || !reps) goto done;
  for (size_t w = 0; w < s->num_workers; ++w) {
    const fw_worker_t *x = &s->workers[w];
    size_t c = 0;
    while (c < num_classes && !(reps[c]->sim == x->sim && reps[c]->kind == x->kind &&
                                reps[c]->device_index == x->device_index))
      ++c;
    if (c == num_classes) reps[num_classes++] = x;
    classes[w] = c;
  }
  run_on = malloc(count * num_classes * sizeof(*run_on));
  if (!run_on) goto done;
  for (size_t i = 0; i < count; ++i)
    for (size_t c = 0; c < num_classes; ++c)
      run_on[i * num_classes + c] = fw_worker_can_run(reps[c], order[i])
                                        ? fw_scheduler_estimate(s, order[i], reps[c])
                                        : -1;
  /* The critical path (CPOP): tasks whose upward plus downward rank is the longest. Each
   * runs on the class where its run time plus its inputs' moves is least, the first of
   * several as good, so that the chain neither goes to a slower device because the best
   * one is busy nor hops between two equal ones. Downward ranks go in batch order, which
   * is topological. */
  down = calloc(count, sizeof(*down));
  critical = calloc(count, sizeof(*critical));
  if (!down || !critical) goto done;
  double longest = 0;
  for (size_t i = 0; i < count; ++i) {
    for (size_t p = num_preds[i]; p < num_preds[i + 1]; ++p) {
      double d = down[preds[p]] + mean_run(s, run_on + preds[p] * num_classes, classes);
      if (d > down[i]) down[i] = d;
    }
    if (order[i]->rank + down[i] > longest) longest = order[i]->rank + down[i];
  }
  for (size_t i = 0; i < count; ++i)
    critical[i] = order[i]->rank + down[i] >= longest * (1 - 1e-9);
  /* What the workers have queued already. */
  for (size_t w = 0; w < s->num_workers; ++w)
    if (s->workers[w].expected_free_at > now &&
        !timeline_add(&lines[w], now, s->workers[w].expected_free_at))
      goto done;

  for (size_t i = 0; i < count; ++i) {
    fw_task_t *t = order[i];
    if (t->num_accesses > cap_producers) {
      const fw_task_t **grown = realloc(producers, t->num_accesses * sizeof(*grown));
      if (!grown) goto unplan;
      producers = grown;
      cap_producers = t->num_accesses;
    }
    /* The producer in the batch of each input it reads (NULL: none). */
    for (size_t a = 0; a < t->num_accesses; ++a) {
      producers[a] = NULL;
      if (!(t->accesses[a].access & FW_ACCESS_READ)) continue;
      for (size_t p = num_preds[i]; p < num_preds[i + 1] && !producers[a]; ++p)
        if (writes(order[preds[p]], t->accesses[a].buffer)) producers[a] = order[preds[p]];
    }
    /* A critical task's class: the least run time plus moves of its inputs there. */
    size_t only = num_classes;
    double only_cost = 0;
    for (size_t c = 0; critical[i] && c < num_classes; ++c) {
      double r = run_on[i * num_classes + c];
      int usable = 0; /* a worker of the class in service that can run it */
      for (size_t wi = 0; wi < s->num_workers && !usable; ++wi)
        usable = classes[wi] == c && !s->workers[wi].lost &&
                 fw_worker_can_run(&s->workers[wi], t);
      if (r < 0 || !usable) continue;
      double cost = r + input_moves(t, producers, reps[c]);
      if (only == num_classes || cost < only_cost) {
        only = c;
        only_cost = cost;
      }
    }
    fw_worker_t *best = NULL;
    double best_finish = 0, best_start = 0;
    for (size_t wi = 0; wi < s->num_workers; ++wi) {
      fw_worker_t *w = &s->workers[wi];
      double run = run_on[i * num_classes + classes[wi]];
      if (run < 0 || w->lost || !fw_worker_can_run(w, t)) continue;
      if (only != num_classes && classes[wi] != only) continue;
      /* When its inputs can be there: produced in the batch, after their producer's
       * planned finish and the move from its worker; else moved from where they are. */
      double ready = now, moves = 0;
      for (size_t a = 0; a < t->num_accesses; ++a) {
        const fw_buffer_t *b = t->accesses[a].buffer;
        if (!(t->accesses[a].access & FW_ACCESS_READ)) continue;
        const fw_task_t *producer = producers[a];
        if (producer) {
          double at = finish[producer->plan_index] +
                      fw_scheduler_link_seconds(producer->plan_worker, w, b->byte_size);
          if (at > ready) ready = at;
        } else if (!fw_memory_is_valid_on(b, w->memory_node)) {
          moves += fw_scheduler_link_seconds(NULL, w, b->byte_size);
        }
      }
      for (size_t p = num_preds[i]; p < num_preds[i + 1]; ++p)
        if (finish[preds[p]] > ready) ready = finish[preds[p]];
      if (now + moves > ready) ready = now + moves;
      double start = earliest_gap(&lines[wi], ready, run);
      if (!best || start + run < best_finish) {
        best = w;
        best_finish = start + run;
        best_start = start;
      }
    }
    finish[i] = best ? best_finish : now;
    if (!best) continue;
    t->plan_worker = best;
    t->plan_start = best_start;
    if (!timeline_add(&lines[best->index], best_start, best_finish)) goto unplan;
  }
  /* Each worker's list gets its tasks in planned order. */
  qsort(order, count, sizeof(*order), start_order);
  for (size_t i = 0; i < count; ++i)
    if (order[i]->plan_worker && !plan_append(order[i]->plan_worker, order[i]))
      order[i]->plan_worker = NULL; /* out of memory: placed as it comes */
  goto done;
unplan: /* out of memory while planning: no plan */
  for (size_t i = 0; i < count; ++i) order[i]->plan_worker = NULL;
done:
  free(critical);
  free(down);
  free(producers);
  if (lines)
    for (size_t w = 0; w < s->num_workers; ++w) {
      free(lines[w].start);
      free(lines[w].end);
    }
  free(lines);
  free(run_on);
  free(reps);
  free(classes);
  free(preds);
  free(num_preds);
  free(finish);
  free(order);
}

static int heft_push(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from) {
  if (!fw_scheduler_can_run(s, task)) return 0;
  /* A planned task goes to its worker: the plan saw the whole batch. */
  fw_worker_t *planned = task->plan_worker;
  if (planned && !planned->lost && fw_worker_can_run(planned, task)) {
    if (!fw_task_heap_push(&planned->heap, task)) return 0;
    place(s, task, planned, fw_scheduler_now(s), fw_scheduler_estimate(s, task, planned),
          fw_scheduler_transfer_estimate(s, task, planned));
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
  if (!fw_task_heap_push(&s->ready, task)) return 0;
  task->worker = NULL;
  dispatch(s, from);
  if (!task->worker) /* still in the pool: a worker its plan holds back may take it */
    for (size_t i = 0; i < s->num_workers; ++i) {
      fw_worker_t *w = &s->workers[i];
      if (!w->lost && !w->running && w->heap.size && fw_worker_can_run(w, task)) {
        fw_scheduler_notify(s, w);
        break;
      }
    }
  return 1;
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
  return g->now + fw_scheduler_estimate(g->s, t, g->worker) <= g->head->plan_start;
}

/* Whether the task on a plan list is still to start on that worker. */
static int still_planned(const fw_worker_t *w, const fw_task_t *t) {
  return t && (t->state == FW_TASK_PENDING || (t->state == FW_TASK_READY && t->worker == w));
}

static fw_task_t *pop_planned(fw_scheduler_t *s, fw_worker_t *w) {
  while (w->plan_head < w->plan_len && !still_planned(w, w->plan[w->plan_head]))
    ++w->plan_head;
  if (w->plan_head == w->plan_len) {
    w->plan_head = w->plan_len = 0;
    return fw_task_heap_pop(&w->heap);
  }
  plan_gate_t gate = {s, w, w->plan[w->plan_head], fw_scheduler_now(s)};
  return fw_task_heap_pop_if(&w->heap, plan_allows, &gate);
}

static int worker_accepts(const void *ctx, const fw_task_t *t) {
  return fw_worker_can_run((const fw_worker_t *)ctx, t);
}

static int is_task(const void *ctx, const fw_task_t *t) { return (const void *)t == ctx; }

/* An idle worker takes a ready task planned on another worker when it would finish it
 * before that worker could (estimates were off: that worker is behind its plan, or this
 * one ran ahead), provided it still starts its own next planned task on time. */
static fw_task_t *steal_planned(fw_scheduler_t *s, fw_worker_t *w) {
  double now = fw_scheduler_now(s);
  const fw_task_t *head = w->plan_head < w->plan_len ? w->plan[w->plan_head] : NULL;
  if (head && head->state != FW_TASK_PENDING) return NULL;
  fw_task_t *best = NULL;
  fw_worker_t *victim = NULL;
  double best_run = 0, best_transfer = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *v = &s->workers[i];
    if (v == w) continue;
    for (size_t k = 0; k < v->heap.size; ++k) {
      fw_task_t *t = v->heap.items[k];
      if (t->plan_worker != v || !fw_worker_can_run(w, t) ||
          (best && !fw_task_before(t, best)))
        continue;
      double run = fw_scheduler_estimate(s, t, w);
      double transfer = fw_scheduler_transfer_estimate(s, t, w);
      double mine = now + transfer + run;
      double theirs = (t->plan_start > now ? t->plan_start : now) + fw_scheduler_estimate(s, t, v);
      if (mine >= theirs || (head && mine > head->plan_start)) continue;
      best = t;
      victim = v;
      best_run = run;
      best_transfer = transfer;
    }
  }
  if (!best) return NULL;
  (void)fw_task_heap_pop_if(&victim->heap, is_task, best);
  fw_scheduler_unplan(best);
  best->plan_worker = NULL;
  place(s, best, w, now, best_run, best_transfer);
  return best;
}

static fw_task_t *heft_pop(fw_scheduler_t *s, fw_worker_t *worker) {
  fw_task_t *t = pop_planned(s, worker);
  if (!t) {
    dispatch(s, worker);
    t = pop_planned(s, worker);
  }
  if (!t && s->ready.size && worker->heap.size) {
    /* Held back by its plan: rather than idle, it takes a pool task it can run (tasks
     * without a plan must not wait behind planned ones). */
    t = fw_task_heap_pop_if(&s->ready, worker_accepts, worker);
    if (t) {
      double now = fw_scheduler_now(s);
      place(s, t, worker, now, fw_scheduler_estimate(s, t, worker),
            fw_scheduler_transfer_estimate(s, t, worker));
    }
  }
  if (!t) t = steal_planned(s, worker);
  if (t) {
    dispatch(s, worker); /* a slot opened: place the next task now, so its inputs move */
  } else {
    double now = fw_scheduler_now(s);
    if (worker->expected_free_at < now) worker->expected_free_at = now;
  }
  return t;
}

const fw_policy_t fw_policy_heft = {"heft", heft_push, heft_pop, heft_plan};
