/* Plans of released batches for the heft policy (policy_heft.c).
 *
 * A batch is planned the way HEFT plans a DAG: tasks in priority order each take the
 * worker where they would finish first, counting their inputs' moves from the workers
 * planned for their producers (queued on the links: plan_moves.c) and gaps between tasks
 * already planned there (insertion).
 * The priority is an upward rank (a task's cost plus the longest chain of costs after it),
 * and the tasks of the batch's critical path may be kept on one device class (CPOP).
 *
 * On a machine with one device class every such plan is the same; plain list scheduling
 * in time order (the affinity plan there) beats it on some DAGs, so both are made. With
 * several classes, no one priority wins everywhere: ranks from the mean over the workers
 * (16 CPU cores make the mean a CPU time) suit some DAGs, ranks from the fastest class
 * others, and keeping the critical path on one class helps small DAGs and costs large
 * ones a little. And where the
 * fast devices are the bottleneck, giving them every task they finish first is itself the
 * mistake: the affinity plans (affinity_plan.c) keep them for the tasks they speed up most.
 * So with several classes each of these is planned, and the plan that ends first is kept
 * (the plans are made with the same estimates the workers then follow). */
#include "heft_plan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "runtime_internal.h"

/* A plan: HEFT's list plan with a rank and CPOP or not, or an affinity plan. */
typedef struct {
  int affinity; /* an affinity plan (affinity_plan.c), as `affinity_variant` says */
  rank_cost_t cost;
  int critical_on_one_class; /* CPOP */
  affinity_variant_t affinity_variant;
  int one_class; /* made on a machine with one device class too */
} plan_variant_t;

/* Bit v of heft_plan_mask is kVariants[v]. The three affinity plans are those of the
 * combinations measured (docs/performance.md) that were best on some DAG and that the
 * others did not cover. On a machine with one class the HEFT plans are all the same plan,
 * and an affinity plan is plain list scheduling in time order (each free worker takes the
 * most urgent ready task: there is no other kind of device to compare with or take over
 * from), which is better on some DAGs: the first of each is made. */
static const plan_variant_t kVariants[] = {
    {0, RANK_MEAN, 1, {SPOLIATE_WHEN_IDLE, 1}, 1},
    {0, RANK_MEAN, 0, {SPOLIATE_WHEN_IDLE, 1}, 0},
    {0, RANK_FASTEST, 1, {SPOLIATE_WHEN_IDLE, 1}, 0},
    {0, RANK_FASTEST, 0, {SPOLIATE_WHEN_IDLE, 1}, 0},
    {1, RANK_FASTEST, 0, {SPOLIATE_CRITICAL_FIRST, 1}, 1},
    {1, RANK_FASTEST, 0, {SPOLIATE_FIRST, 4}, 0},
    {1, RANK_FASTEST, 0, {SPOLIATE_CRITICAL_FIRST, 4}, 0},
};
#define NUM_VARIANTS (sizeof(kVariants) / sizeof(kVariants[0]))

static int writes(const fw_task_t *t, const fw_buffer_t *buffer) {
  for (size_t i = 0; i < t->num_accesses; ++i)
    if (t->accesses[i].buffer == buffer && (t->accesses[i].access & FW_ACCESS_WRITE)) return 1;
  return 0;
}

/* The scratch of one plan: plans made at the same time each have their own. */
static int scratch_alloc(planner_t *p) {
  size_t n = p->count ? p->count : 1;
  p->ready_on = malloc(p->num_classes * sizeof(double));
  p->cost = malloc(n * sizeof(double));
  p->rank = malloc(n * sizeof(double));
  p->down = malloc(n * sizeof(double));
  p->critical = malloc(n);
  p->ranked = malloc(n * sizeof(*p->ranked));
  p->lines = calloc(p->s->num_workers, sizeof(*p->lines));
  int moves = fw_plan_moves_scratch_alloc(p);
  int redux = fw_plan_redux_scratch_alloc(p);
  return p->ready_on && p->cost && p->rank && p->down && p->critical && p->ranked &&
         p->lines && moves && redux;
}

static void scratch_free(planner_t *p) {
  fw_timelines_free(p->lines, p->s->num_workers);
  fw_plan_moves_scratch_free(p);
  fw_plan_redux_scratch_free(p);
  free(p->ranked);
  free(p->critical);
  free(p->down);
  free(p->rank);
  free(p->cost);
  free(p->ready_on);
  p->lines = NULL;
  p->ranked = NULL;
  p->critical = NULL;
  p->down = p->rank = p->cost = p->ready_on = NULL;
}

/* Edges of the batch, from its tasks' successors (through the joins of commutative
 * updates: the tasks after a group follow each of its updates). */
typedef struct {
  planner_t *p;
  uint64_t serial;
  size_t from;
  size_t *fill; /* NULL: counting */
} edge_walk_t;

static void add_edge(edge_walk_t *e, size_t to) {
  if (!e->fill) ++e->p->pred_at[to + 1];
  else e->p->preds[e->p->pred_at[to] + e->fill[to]++] = e->from;
}

static void walk_edge(void *ctx, fw_task_t *succ) {
  edge_walk_t *e = ctx;
  if (succ->plan_batch == e->serial) add_edge(e, succ->plan_index);
}

/* The edges of task i: to its successors in the batch, and to the next update of each
 * group of commutative updates it is in (`next_member`, by access): the plan runs a
 * group's updates one after another in submission order, since they cannot run side by
 * side (at run time they leave the plan and go in whichever order their inputs allow). */
static void walk_edges(edge_walk_t *e, size_t i, const size_t *next_member) {
  e->from = i;
  fw_task_visit_successors(e->p->batch[i], walk_edge, e);
  for (size_t a = e->p->access_at[i]; next_member && a < e->p->access_at[i + 1]; ++a)
    if (next_member[a] != NONE) add_edge(e, next_member[a]);
}

/* next_member[access slot]: the next update of that access's group in the batch (NONE:
 * none, or not a commutative update), from the buffers' plan marks (sched.lock). */
static size_t *next_members(fw_task_t *const *batch, size_t count, const size_t *access_at,
                            uint64_t serial) {
  size_t *next = malloc((access_at[count] ? access_at[count] : 1) * sizeof(size_t));
  if (!next) return NULL;
  for (size_t i = count; i-- > 0;) {
    const fw_task_t *t = batch[i];
    for (size_t a = 0; a < t->num_accesses; ++a) {
      const fw_task_access_internal_t *acc = &t->accesses[a];
      fw_buffer_t *b = acc->buffer;
      size_t slot = access_at[i] + a;
      next[slot] = NONE;
      if (!acc->commute) continue;
      if (b->plan_mark == serial && b->plan_group == acc->commute_group)
        next[slot] = b->plan_member;
      b->plan_mark = serial;
      b->plan_group = acc->commute_group;
      b->plan_member = i;
    }
  }
  return next;
}

static int planner_init(planner_t *p, fw_scheduler_t *s, fw_task_t *const *batch,
                        size_t count) {
  memset(p, 0, sizeof(*p));
  p->s = s;
  p->batch = batch;
  p->count = count;
  p->now = fw_scheduler_now(s);
  uint64_t serial = ++s->plans;
  for (size_t i = 0; i < count; ++i) {
    batch[i]->plan_batch = serial;
    batch[i]->plan_index = i;
    batch[i]->plan_worker = NULL;
  }
  if (!fw_plan_redux_extend(p, serial)) return 0;
  batch = p->batch; /* with the reduction tasks */
  count = p->count;
  p->pred_at = calloc(count + 1, sizeof(size_t));
  p->access_at = calloc(count + 1, sizeof(size_t));
  if (!p->pred_at || !p->access_at) return 0;
  for (size_t i = 0; i < count; ++i)
    p->access_at[i + 1] = p->access_at[i] + batch[i]->num_accesses;
  size_t *next_member = next_members(batch, count, p->access_at, serial);
  if (!next_member) return 0;
  edge_walk_t walk = {p, serial, 0, NULL};
  for (size_t i = 0; i < count; ++i) walk_edges(&walk, i, next_member);
  for (size_t i = 0; i < count; ++i) p->pred_at[i + 1] += p->pred_at[i];
  p->preds = malloc((p->pred_at[count] ? p->pred_at[count] : 1) * sizeof(size_t));
  p->producer = malloc((p->access_at[count] ? p->access_at[count] : 1) * sizeof(size_t));
  size_t *fill = calloc(count ? count : 1, sizeof(size_t));
  if (!p->preds || !p->producer || !fill) {
    free(next_member);
    free(fill);
    return 0;
  }
  walk.fill = fill;
  for (size_t i = 0; i < count; ++i) walk_edges(&walk, i, next_member);
  free(next_member);
  /* Successors in the batch: the predecessors turned around. */
  p->succ_at = calloc(count + 1, sizeof(size_t));
  p->succs = malloc((p->pred_at[count] ? p->pred_at[count] : 1) * sizeof(size_t));
  if (!p->succ_at || !p->succs) {
    free(fill);
    return 0;
  }
  for (size_t q = 0; q < p->pred_at[count]; ++q) ++p->succ_at[p->preds[q] + 1];
  for (size_t i = 0; i < count; ++i) p->succ_at[i + 1] += p->succ_at[i];
  memset(fill, 0, (count ? count : 1) * sizeof(size_t));
  for (size_t i = 0; i < count; ++i)
    for (size_t q = p->pred_at[i]; q < p->pred_at[i + 1]; ++q) {
      size_t j = p->preds[q];
      p->succs[p->succ_at[j] + fill[j]++] = i;
    }
  free(fill);
  /* The producer of an input: the last predecessor in the batch that writes it. */
  for (size_t i = 0; i < count; ++i) {
    const fw_task_t *t = batch[i];
    for (size_t a = 0; a < t->num_accesses; ++a) {
      size_t *producer = &p->producer[p->access_at[i] + a];
      *producer = NONE;
      if (!(t->accesses[a].access & FW_ACCESS_READ)) continue;
      for (size_t q = p->pred_at[i]; q < p->pred_at[i + 1]; ++q)
        if (writes(batch[p->preds[q]], t->accesses[a].buffer) &&
            (*producer == NONE || p->preds[q] > *producer))
          *producer = p->preds[q];
    }
  }
  p->classes = malloc(s->num_workers * sizeof(size_t));
  p->reps = malloc(s->num_workers * sizeof(*p->reps));
  p->free_at = malloc(s->num_workers * sizeof(double));
  p->lost = malloc(s->num_workers);
  if (!p->classes || !p->reps || !p->free_at || !p->lost) return 0;
  for (size_t w = 0; w < s->num_workers; ++w) {
    const fw_worker_t *x = &s->workers[w];
    p->free_at[w] = x->expected_free_at;
    p->lost[w] = (char)x->lost;
    size_t c = 0;
    while (c < p->num_classes && !(p->reps[c]->sim == x->sim && p->reps[c]->kind == x->kind &&
                                   p->reps[c]->device_index == x->device_index))
      ++c;
    if (c == p->num_classes) p->reps[p->num_classes++] = x;
    p->classes[w] = c;
  }
  if (!fw_plan_moves_init(p)) return 0;
  size_t cells = count * p->num_classes;
  p->run_on = malloc((cells ? cells : 1) * sizeof(double));
  p->class_usable = calloc(cells ? cells : 1, 1);
  if (!p->run_on || !p->class_usable) return 0;
  for (size_t i = 0; i < count; ++i) {
    for (size_t c = 0; c < p->num_classes; ++c)
      p->run_on[i * p->num_classes + c] = fw_worker_can_run(p->reps[c], batch[i])
                                              ? fw_scheduler_estimate(s, batch[i], p->reps[c])
                                              : -1;
    for (size_t w = 0; w < s->num_workers; ++w)
      if (!s->workers[w].lost && fw_worker_can_run(&s->workers[w], batch[i]))
        p->class_usable[i * p->num_classes + p->classes[w]] = 1;
  }
  return fw_plan_redux_costs(p) && scratch_alloc(p);
}

static void planner_fini(planner_t *p) {
  scratch_free(p);
  fw_plan_redux_fini(p);
  fw_plan_moves_fini(p);
  free(p->class_usable);
  free(p->run_on);
  free(p->lost);
  free(p->free_at);
  free(p->reps);
  free(p->classes);
  free(p->succs);
  free(p->succ_at);
  free(p->producer);
  free(p->access_at);
  free(p->preds);
  free(p->pred_at);
}

static int plan_alloc(plan_t *plan, size_t count) {
  size_t n = count ? count : 1;
  plan->order = malloc(n * sizeof(size_t));
  plan->worker = calloc(n, sizeof(*plan->worker));
  plan->start = calloc(n, sizeof(double));
  plan->finish = calloc(n, sizeof(double));
  return plan->order && plan->worker && plan->start && plan->finish;
}

static void plan_free(plan_t *plan) {
  free(plan->order);
  free(plan->worker);
  free(plan->start);
  free(plan->finish);
}

/* A task's cost for ranking: its mean run time over the workers that can run it (as
 * HEFT averages), or its run time on its fastest class. */
static double rank_cost(const planner_t *p, size_t i, rank_cost_t kind) {
  const double *run = p->run_on + i * p->num_classes;
  double sum = 0, fastest = -1;
  size_t n = 0;
  for (size_t w = 0; w < p->s->num_workers; ++w) {
    double r = run[p->classes[w]];
    if (r < 0) continue;
    sum += r;
    ++n;
  }
  for (size_t c = 0; c < p->num_classes; ++c)
    if (run[c] >= 0 && (fastest < 0 || run[c] < fastest)) fastest = run[c];
  if (kind == RANK_FASTEST) return fastest > 0 ? fastest : 0;
  return n ? sum / (double)n : 0;
}

/* Higher upward rank first, then the order of the batch (a predecessor's rank is at least
 * its successor's, and it comes first in the batch: submission order, with each reduction
 * task after its contributions; a reduction task's sequence number is its first
 * contribution's next, so sequence numbers would put it before the others). */
static int rank_order(const void *pa, const void *pb) {
  const ranked_t *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank > b->rank ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Ranks: upward (the task's cost and the longest chain of costs after it, in the batch)
 * and downward (the longest chain before it); the critical path is the tasks whose sum is
 * the longest. */
void fw_plan_rank_tasks(planner_t *p, rank_cost_t kind) {
  size_t n = p->count;
  for (size_t i = 0; i < n; ++i) {
    p->cost[i] = rank_cost(p, i, kind);
    p->rank[i] = 0; /* for now the longest rank among its successors */
    p->down[i] = 0;
  }
  for (size_t i = n; i-- > 0;) {
    /* From the mean: the rank release_held gave the task, which also counts successors
     * submitted since outside the batch and orders the queues; raised where the plan's
     * own edges (a group of commutative updates, one after another) make a longer chain,
     * so that each update still ranks above the next of its group (placed first, it would
     * be planned beside the earlier one), and never below a successor's: release_held
     * ranks no reduction task (it is not submitted), so its contributions' ranks leave
     * its cost out, and one cheaper than it kept a rank below the reduction task's (which
     * was then planned before them, on a worker that held back for it while it waited for
     * them: the simulation stalled). */
    if (kind == RANK_MEAN) {
      double successors = p->rank[i], chain = successors + p->cost[i];
      p->rank[i] = p->batch[i]->rank;
      if (chain > p->rank[i] * (1 + 1e-9)) p->rank[i] = chain;
      if (p->rank[i] < successors) p->rank[i] = successors;
    } else {
      p->rank[i] += p->cost[i];
    }
    for (size_t q = p->pred_at[i]; q < p->pred_at[i + 1]; ++q)
      if (p->rank[i] > p->rank[p->preds[q]]) p->rank[p->preds[q]] = p->rank[i];
  }
  double longest = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t q = p->pred_at[i]; q < p->pred_at[i + 1]; ++q) {
      size_t j = p->preds[q];
      if (p->down[j] + p->cost[j] > p->down[i]) p->down[i] = p->down[j] + p->cost[j];
    }
    if (p->rank[i] + p->down[i] > longest) longest = p->rank[i] + p->down[i];
  }
  for (size_t i = 0; i < n; ++i) p->critical[i] = p->rank[i] + p->down[i] >= longest * (1 - 1e-9);
}

/* The time to move task i's inputs to the memory of worker `w`, each on its own: from the
 * workers planned for their producers in the batch, else from host memory unless it was
 * valid there at release (planner_t.home). */
static double input_moves(const planner_t *p, const plan_t *plan, size_t i,
                          const fw_worker_t *w) {
  const fw_task_t *t = p->batch[i];
  double moves = 0;
  for (size_t a = 0; a < t->num_accesses; ++a) {
    const fw_buffer_t *b = t->accesses[a].buffer;
    size_t slot = p->access_at[i] + a, producer = p->producer[slot];
    if (!(t->accesses[a].access & FW_ACCESS_READ)) continue;
    if (producer != NONE)
      moves += fw_scheduler_link_seconds(plan->worker[producer], w, b->byte_size);
    else if (!((p->home[p->version[slot]] >> w->memory_node) & 1u))
      moves += fw_scheduler_link_seconds(NULL, w, b->byte_size);
  }
  return moves;
}

/* Makes one plan. Returns 0 when out of memory. */
static int make_plan(planner_t *p, plan_variant_t variant, plan_t *plan) {
  fw_scheduler_t *s = p->s;
  size_t nc = p->num_classes;
  fw_plan_rank_tasks(p, variant.cost);
  for (size_t i = 0; i < p->count; ++i)
    p->ranked[i] = (ranked_t){p->rank[i], i};
  qsort(p->ranked, p->count, sizeof(*p->ranked), rank_order);
  fw_plan_moves_reset(p);
  /* What the workers have queued already. */
  for (size_t w = 0; w < s->num_workers; ++w) {
    p->lines[w].n = 0;
    if (p->free_at[w] > p->now && !fw_timeline_add(&p->lines[w], p->now, p->free_at[w]))
      return 0;
  }
  plan->makespan = p->now;
  for (size_t k = 0; k < p->count; ++k) {
    size_t i = p->ranked[k].index;
    plan->order[k] = i;
    const double *runs = fw_plan_runs(p, plan, i);
    /* A critical task's class: the least run time plus moves of its inputs there, the
     * first of several as good (so that the chain neither goes to a slower device
     * because the best one is busy nor hops between two equal ones). */
    size_t only = nc;
    double only_cost = 0;
    for (size_t c = 0; variant.critical_on_one_class && p->critical[i] && c < nc; ++c) {
      double r = runs[c];
      if (r < 0 || !p->class_usable[i * nc + c]) continue;
      double cost = r + input_moves(p, plan, i, p->reps[c]);
      if (only == nc || cost < only_cost) {
        only = c;
        only_cost = cost;
      }
    }
    /* When its inputs can be there, per class (its workers share a memory). */
    for (size_t c = 0; c < nc; ++c)
      if (runs[c] >= 0 && (only == nc || c == only))
        p->ready_on[c] = fw_plan_inputs_ready(p, plan, i, p->reps[c]);
    fw_worker_t *best = NULL;
    double best_finish = 0, best_start = 0;
    for (size_t wi = 0; wi < s->num_workers; ++wi) {
      fw_worker_t *w = &s->workers[wi];
      double run = runs[p->classes[wi]];
      /* A class's workers run the same tasks, while in service (run_on). */
      if (run < 0 || p->lost[wi]) continue;
      if (only != nc && p->classes[wi] != only) continue;
      double start = fw_timeline_earliest_gap(&p->lines[wi], p->ready_on[p->classes[wi]], run);
      if (!best || start + run < best_finish) {
        best = w;
        best_finish = start + run;
        best_start = start;
      }
    }
    if (best) {
      /* The moves tried there, booked: the same start. */
      double run = best_finish - best_start;
      double ready = fw_plan_book_inputs(p, plan, i, best);
      best_start = fw_timeline_earliest_gap(&p->lines[best->index], ready, run);
      best_finish = best_start + run;
    }
    plan->worker[i] = best;
    plan->start[i] = best ? best_start : p->now;
    plan->finish[i] = best ? best_finish : p->now;
    if (plan->finish[i] > plan->makespan) plan->makespan = plan->finish[i];
    fw_plan_produced(p, plan, i);
    if (best && !fw_timeline_add(&p->lines[best->index], best_start, best_finish)) return 0;
  }
  return !p->failed;
}

/* Planned start order, then the order the plan placed them in. */
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

/* The plan counts on the batch's inputs from outside it moving to the devices planned to
 * read them from when the batch is released, each hop at the first gap on its link
 * (plan_moves.c), so they start moving now, in the order the plan needs them; those
 * produced in the batch move when their producers end (forward_outputs in scheduler.c).
 * Not once memory is contended (fw_scheduler_placed), nor while a task outside the batch
 * is still to write the buffer. */
static void prefetch_batch_inputs(planner_t *p) {
  fw_scheduler_t *s = p->s;
  if (atomic_load_explicit(&s->runtime->memory.spilled, memory_order_relaxed))
    return;
  for (size_t i = 0; i < p->count; ++i) {
    const fw_task_t *t = p->batch[i];
    const fw_worker_t *w = t->plan_worker;
    if (!w || w->memory_node == FW_NODE_HOST) continue;
    for (size_t a = 0; a < t->num_accesses; ++a) {
      fw_buffer_t *b = t->accesses[a].buffer;
      if (!(t->accesses[a].access & FW_ACCESS_READ) || p->producer[p->access_at[i] + a] != NONE ||
          b->last_writer || b->commute_join)
        continue;
      if (s->simulated) fw_simulator_prefetch_buffer(s, b, w->memory_node, t->plan_start);
      else fw_memory_prefetch(&s->runtime->memory, b, w->memory_node, t->plan_start);
    }
  }
}

/* Gives the tasks their planned workers and starts (`late`: seconds since the plan's
 * time zero, which it took to make), and the workers their lists in planned start order
 * (ties in the order the plan placed them). */
static void commit(planner_t *p, const plan_t *plan, double late) {
  fw_task_t **tasks = malloc(p->count * sizeof(*tasks));
  if (!tasks) return; /* out of memory: no plan, tasks are placed as they come */
  for (size_t k = 0; k < p->count; ++k) {
    fw_task_t *t = p->batch[plan->order[k]];
    fw_scheduler_unplan(t); /* a reduction task planned with an earlier batch */
    t->plan_worker = plan->worker[plan->order[k]];
    /* A worker lost while the plans were made: the task is placed as it comes. */
    if (t->plan_worker && t->plan_worker->lost) t->plan_worker = NULL;
    t->plan_start = plan->start[plan->order[k]] + late;
    t->plan_index = k;
    tasks[k] = t;
  }
  qsort(tasks, p->count, sizeof(*tasks), start_order);
  for (size_t k = 0; k < p->count; ++k)
    if (tasks[k]->plan_worker && !plan_append(tasks[k]->plan_worker, tasks[k]))
      tasks[k]->plan_worker = NULL; /* out of memory: placed as it comes */
  free(tasks);
  prefetch_batch_inputs(p);
}

/* Plans beyond the first are made only when they can pay for themselves: they are made
 * before any task of the batch starts, and shortened the first plan's schedule by 3-9 %
 * on the DAGs of docs/performance.md. So they are made when their time, at the first
 * plan's, is at most kPlanWorth of the first plan's schedule: a batch of long tasks (a
 * tiled factorization) gets all of them, a module call of microsecond kernels only the
 * first. A plan of kParallelPlanSeconds or more is worth a thread (about 0.03 ms to start
 * and join): such plans are made side by side, as many at a time as there are cores;
 * shorter ones one after another. A simulation takes each plan to cost
 * kPlanSecondsPerTask per task (1.4-2 us on the DAGs of docs/performance.md, on this
 * 2-core development machine) and its simulated machine's CPU workers as the cores, so
 * that which plans it makes does not depend on the host. */
static const double kPlanSecondsPerTask = 2e-6, kPlanWorth = 0.05, kParallelPlanSeconds = 1e-4;

/* Whether `extras` further plans are worth making (above), each taking `per_plan`
 * seconds, the first plan's schedule lasting `first_makespan`; `*parallel`: whether to
 * make them side by side. */
static int extra_plans_worth(const planner_t *p, size_t extras, double per_plan,
                             double first_makespan, int *parallel) {
  *parallel = per_plan >= kParallelPlanSeconds;
  if (extras == 0) return 0;
  size_t cores = 0;
  if (p->s->simulated) {
    for (size_t w = 0; w < p->s->num_workers; ++w)
      cores += p->s->workers[w].kind == FW_TARGET_KIND_CPU && !p->lost[w];
  } else {
    cores = p->s->host_cores;
  }
  size_t side_by_side = !*parallel || cores == 0 ? 1 : cores < extras ? cores : extras;
  size_t rounds = (extras + side_by_side - 1) / side_by_side;
  return (double)rounds * per_plan <= kPlanWorth * first_makespan;
}

/* A plan in the making: its variant, its own scratch beside the batch's shared tables
 * (read only while plans are made), and the result. */
typedef struct {
  planner_t p;
  const plan_variant_t *variant;
  plan_t plan;
  int ok;
  int threaded;
  pthread_t thread;
} trial_t;

static int make_variant(planner_t *p, const plan_variant_t *v, plan_t *plan) {
  return v->affinity ? fw_affinity_plan(p, v->affinity_variant, plan) : make_plan(p, *v, plan);
}

static void *trial_main(void *arg) {
  trial_t *t = arg;
  t->ok = make_variant(&t->p, t->variant, &t->plan);
  return NULL;
}

/* Makes the plans of `trials` (side by side when `parallel`; each that cannot have a
 * thread is made here). */
static void make_trials(trial_t *trials, size_t n, int parallel) {
  for (size_t k = 0; k < n; ++k)
    trials[k].threaded =
        parallel && pthread_create(&trials[k].thread, NULL, trial_main, &trials[k]) == 0;
  for (size_t k = 0; k < n; ++k)
    if (!trials[k].threaded) trial_main(&trials[k]);
  for (size_t k = 0; k < n; ++k)
    if (trials[k].threaded) pthread_join(trials[k].thread, NULL);
}

/* How many device classes some task of the batch can run on. Where that is one (a model
 * compiled for the CPU alone, on a machine with a GPU), every plan for several classes is
 * one of the plans for one: ranks by the mean and by the fastest class are the same, and
 * so is the critical path kept on one class. Counting the machine's classes, such a batch
 * had six more plans to weigh, three of them copies of its first: they were made when
 * their time seemed worth it (up to 6 plans per call of two kernels), and otherwise none
 * was, not even the list plan made without the GPU (docs/performance.md). */
static size_t classes_in_use(const planner_t *p) {
  size_t used = 0;
  for (size_t c = 0; c < p->num_classes; ++c)
    for (size_t i = 0; i < p->count; ++i)
      if (p->class_usable[i * p->num_classes + c]) {
        ++used;
        break;
      }
  return used;
}

void fw_heft_plan(fw_scheduler_t *s, fw_task_t *const *batch, size_t count) {
  uint64_t started = fw_now_ns();
  planner_t p;
  plan_t best = {0};
  trial_t trials[NUM_VARIANTS];
  size_t num_trials = 0, num_ready = 0; /* extra plans to try; those with their scratch */
  memset(trials, 0, sizeof(trials));
  int have_best = 0;
  if (planner_init(&p, s, batch, count) && plan_alloc(&best, p.count)) {
    const plan_variant_t *first = NULL;
    int one_class = classes_in_use(&p) <= 1;
    for (size_t v = 0; v < NUM_VARIANTS; ++v) {
      if (one_class && !kVariants[v].one_class) continue;
      if (s->heft_plan_mask && !((s->heft_plan_mask >> v) & 1u)) continue;
      if (!first) {
        first = &kVariants[v];
        continue;
      }
      trials[num_trials++].variant = &kVariants[v];
    }
    /* The plans are made from the planner's tables alone, without the lock, so that
     * workers finishing other tasks and other submitters do not wait for them. None of
     * the batch's tasks can start meanwhile: they are held until release_held, after
     * this, and the graph holds a reference to each; nor can a reduction task taken in
     * (plan_redux.c), which waits for its held contributions. */
    fw_sched_unlock(s);
    uint64_t first_started = fw_now_ns();
    have_best = first && make_variant(&p, first, &best);
    double per_plan = s->simulated ? (double)p.count * kPlanSecondsPerTask
                                   : (double)(fw_now_ns() - first_started) * 1e-9;
    int parallel = 0;
    int worth = have_best &&
                extra_plans_worth(&p, num_trials, per_plan, best.makespan - p.now, &parallel);
    if (worth) {
      /* Each extra plan's scratch, made only now (and without the lock): most batches of
       * a few tasks make the first plan alone, since more would not pay. */
      for (; num_ready < num_trials; ++num_ready) {
        trial_t *t = &trials[num_ready];
        t->p = p; /* the shared tables */
        if (!scratch_alloc(&t->p) || !plan_alloc(&t->plan, p.count)) {
          plan_free(&t->plan);
          scratch_free(&t->p);
          break; /* out of memory: the plans that have their scratch */
        }
      }
      make_trials(trials, num_ready, parallel);
    }
    uint64_t made = (uint64_t)have_best;
    /* The first that ends first, in the variants' order. */
    for (size_t k = 0; k < num_ready; ++k) {
      made += (uint64_t)trials[k].ok;
      if (!trials[k].ok || (have_best && trials[k].plan.makespan >= best.makespan)) continue;
      plan_t swap = best;
      best = trials[k].plan;
      trials[k].plan = swap;
      have_best = 1;
    }
    for (size_t k = 0; k < num_ready; ++k) { /* before the lock is taken again */
      plan_free(&trials[k].plan);
      scratch_free(&trials[k].p);
    }
    fw_sched_lock(s);
    s->plans_made += made;
    if (have_best) {
      double late = fw_scheduler_now(s) - p.now; /* the time planning took */
      commit(&p, &best, late > 0 ? late : 0);
    }
  }
  plan_free(&best);
  planner_fini(&p);
  s->planning_ns += fw_now_ns() - started;
}
