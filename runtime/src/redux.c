/* Reductions (FW_ACCESS_REDUCE, docs/task-graph.md): groups of contributions to a buffer,
 * each group with a reduction task that runs after the group's tasks and after what came
 * before the group, and combines into the buffer the accumulators, one per worker (in a
 * GPU's memory for a GPU worker, brought to host memory to be combined), that the group's
 * tasks wrote their contributions into. The contributions are kept apart from a task's
 * accesses: the dependency inference and the planners see the buffer accessed by the
 * reduction task alone. An accumulator is a buffer of the runtime's that no task
 * accesses: the memory manager takes it with the task that writes or folds it
 * (fw_task_extra_t), where that task runs (a GPU's contributions: in the GPU's memory), so
 * that it counts in that tier and moves between the tiers like any buffer (a GPU's comes
 * to host memory for the task that folds it as any input does). */
#include "redux.h"

#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commute.h"
#include "runtime_internal.h"
#include "status_internal.h"
#include "task_queue.h"
#include "trace.h"

/* A group's accumulators are combined in pairs by tasks of the graph (`acc_a op= acc_b`,
 * which frees acc_b; the reduction task folds the last into the buffer) when the passes
 * over the buffer that this takes off the critical path outweigh the tasks it adds: for
 * k accumulators, a tree of L = ceil(log2 k) levels instead of k passes in the reduction
 * task, when (k - L - 1) * size >= L * FW_REDUX_TREE_LEVEL_BYTES. A level cost 50-150 us
 * on a 2-core machine with 4 workers (fw-runtime-bench --only=reduce: at 512 KiB per
 * level, four accumulators of 1 MiB took 2.6-3x a serial fold under eager), some 1 MiB
 * of passes at 5-25 GB/s. So four accumulators need 2 MiB, eight 768 KiB, sixteen
 * 373 KiB; two or three never do. Else the reduction task combines them one after
 * another. */
#define FW_REDUX_TREE_LEVEL_BYTES (1024.0 * 1024)

/* An accumulator of a group: a worker's while its contributions write it, then, once no
 * contribution of the group can write it any more (`done`), folded into another by a
 * pair task or by the reduction task. It is `buffer`, set to the neutral element by its
 * worker's first contribution: on the host for a CPU worker; for a GPU worker in the
 * GPU's memory (copied there from the neutral element made on the host; a built-in sum's
 * is zeroed there), where the memory manager took it with the contribution. One that no
 * launch wrote is not folded (`filled` drops back to 0): the next contribution of its GPU
 * sets it again. */
struct fw_redux_acc_t {
  fw_buffer_t *buffer; /* NULL in simulations; none left once folded */
  int written;         /* a contribution's work was enqueued on it */
  int filled;          /* set to the neutral element (simulation: a contribution ran) */
  atomic_uint running; /* contributions writing it now (their worker's, no lock) */
  /* sched.lock: no contribution will write it any more; folded into another (by a pair
   * task made or done); the pair task folding another into it, while there is one. */
  int done, folded;
  fw_task_t *writer;
  uint64_t last_seq;   /* 1 + the seq of the last task that wrote it (the trace) */
  /* Simulation: when it is in host memory; for a GPU worker's, the worker, when it is in
   * the GPU's memory, and whether its copy back to host memory is on the link. */
  double sim_home;
  const fw_worker_t *sim_gpu;
  double sim_there;
  int sim_carried;
  double sim_ready[FW_SIM_MAX_CLASSES]; /* simulation: when its data could be out (bounds) */
  fw_redux_acc_t *next; /* the group's, newest first */
};

static int is_builtin_sum(const fw_reduction_t *r); /* (below, with the built-in ones) */

/* A pair task's user data: folds `src` into `dst`, the task's extra buffers 0 and 1
 * (`extra`; none in simulations). */
typedef struct fw_redux_pair_t {
  fw_redux_group_t *group;
  fw_redux_acc_t *dst, *src;
  fw_task_t *task; /* the pair task (no reference: it owns this) */
  fw_task_extra_t extra[2];
} fw_redux_pair_t;

/* A group's accumulators: one per worker while the worker may run more of the group's
 * contributions (a CPU worker runs one task at a time, also when a waiting thread runs
 * it in the worker's place, and a GPU worker's contributions follow each other on its
 * stream: each is written by one thread or stream at a time). A worker makes its
 * accumulator (`current`, no lock) when it starts its first contribution of the group;
 * it is taken from the worker, under the lock, once every contribution of the group
 * started and none runs on it, so that a pair task may fold it; a contribution that
 * runs again after a refused launch makes a new one. */
struct fw_redux_group_t {
  fw_reduction_t reduction; /* the buffer's when the group opened */
  fw_memory_t *memory;      /* its runtime's, which counts a GPU's accumulator's copies */
  size_t size;              /* bytes */
  uint64_t elements;
  /* sched.lock: tasks in the group, those of them that completed, whether one failed;
   * whether the group is closed (no task joins it any more), and whether its
   * accumulators are combined in pairs (`paired`: decided once the tasks started). */
  size_t contributors, finished, pairs_running;
  int failed, closed, ended, paired;
  /* A built-in sum: the neutral element is zero bytes, which a GPU sets in its own memory
   * (no copy over the link). */
  int zero;
  /* A pass over the buffer on a CPU worker, expected; once heft first weighs a new
   * accumulator (fw_redux_accumulator_cost), not on every reduction's submission. */
  double pass_seconds;
  int pass_known;
  /* The host tier's fixed capacity (0: none, or minimal): the reduction task takes the
   * accumulators it folds with its buffer, so those fold in pairs first when more than
   * fit (tree_levels). */
  uint64_t host_capacity;
  int wrapped; /* the buffer is the caller's memory (fw_buffer_wrap) */
  /* The reduction task (no reference: it owns the group), and once it is ready the
   * accumulators it folds: its extra buffers (sched.lock). */
  fw_task_t *join;
  fw_redux_acc_t **folds;
  fw_task_extra_t *fold_extra;
  atomic_size_t started;    /* contributions that took their accumulators (no lock) */
  atomic_size_t closed_contributors; /* `contributors` once closed (0 before; no lock) */
  _Atomic(fw_redux_acc_t *) accumulators; /* all of them, newest first */
  size_t num_workers;
  _Atomic(fw_redux_acc_t *) current[]; /* per worker index */
};

fw_status_t fw_redux_check_access(const char *name, const fw_task_access_t *accesses,
                                  size_t num_accesses, size_t i) {
  const fw_task_access_t *a = &accesses[i];
  if (a->access != FW_ACCESS_REDUCE) return FW_OK;
  if (!atomic_load_explicit(&a->buffer->has_reduction, memory_order_acquire))
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "task '%s': access %zu reduces a buffer that has no reduction "
                          "(fw_buffer_set_reduction)",
                          name, i);
  for (size_t j = 0; j < num_accesses; ++j)
    if (accesses[j].buffer == a->buffer && accesses[j].access != FW_ACCESS_REDUCE)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "task '%s': access %zu reduces the buffer that access %zu names "
                            "another way (a contribution sees an accumulator, not the buffer)",
                            name, i, j);
  return FW_OK;
}

void fw_redux_take_accesses(fw_task_t *t, const fw_task_access_t *accesses,
                            size_t num_accesses) {
  for (size_t i = 0; i < num_accesses; ++i) {
    if (accesses[i].access != FW_ACCESS_REDUCE) continue;
    uint32_t r = 0;
    while (r < t->num_reduces && t->reduces[r].buffer != accesses[i].buffer) ++r;
    if (r < t->num_reduces) continue; /* named twice: one accumulator */
    fw_buffer_retain(accesses[i].buffer);
    t->reduces[t->num_reduces++].buffer = accesses[i].buffer;
  }
}

void fw_redux_release_contributions(fw_task_t *t) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_buffer_release(t->reduces[r].buffer);
    fw_task_release(t->reduces[r].combine);
  }
  t->num_reduces = 0;
}

void fw_redux_release(fw_task_t *t) {
  fw_redux_release_contributions(t);
  fw_redux_group_t *g = t->reduction;
  if (!g) return;
  for (fw_redux_acc_t *a = atomic_load(&g->accumulators), *next; a; a = next) {
    next = a->next;
    if (a->buffer) fw_buffer_release(a->buffer);
    free(a);
  }
  free(g->folds);
  free(g->fold_extra);
  free(g);
}

/* The accumulator that is extra buffer k of the running task `t` was folded: its memory
 * goes now, not when the task ends. */
static void folded(fw_redux_group_t *g, fw_task_t *t, uint32_t k) {
  fw_memory_discard_extra(g->memory, t, k, FW_NODE_HOST);
}

/* The reduction task's body: data[0] is the buffer in host memory, data[1 + k] the k-th
 * accumulator it folds (g->folds; those pair tasks folded are gone already), in host
 * memory too (a GPU's came back as the task took it). */
static void combine_accumulators(void *user_data, void *const *data, size_t num_data) {
  (void)num_data;
  fw_redux_group_t *g = user_data;
  for (uint32_t k = 0; k < g->join->num_extra; ++k) {
    if (g->size) g->reduction.combine(g->reduction.user_data, data[0], data[1 + k], g->size);
    folded(g, g->join, k);
  }
}

/* A pair task's body: data[0] and data[1], its extra buffers, are the accumulators. */
void fw_redux_combine_pair(void *user_data, void *const *data, size_t num_data) {
  (void)num_data;
  const fw_redux_pair_t *p = user_data;
  fw_redux_group_t *g = p->group;
  if (g->size) g->reduction.combine(g->reduction.user_data, data[0], data[1], g->size);
  folded(g, p->task, 1);
}

/* What the cost model knows of the reduction task when it combines `passes` accumulators:
 * a pass over the buffer each, and the buffer read and written; its history is kept by
 * the passes too (one after pairs, k without, are not one task's times). */
static void set_passes(fw_task_t *t, const fw_redux_group_t *g, size_t passes) {
  t->bytes = (double)g->size * (double)(2 * passes + 1);
  t->flops = (double)g->elements * (double)passes;
  t->history_bytes = (uint64_t)g->size * (passes ? passes : 1);
}

/* The depth of the tree over `n` accumulators of `g` (0: none pays). With a host tier too
 * small for the buffer and all of them, the reduction task could not take them at once:
 * pairs fold them (two at a time) until one is left, whether they pay or not. */
static size_t tree_levels(const fw_redux_group_t *g, size_t n) {
  size_t levels = 0;
  while (((size_t)1 << levels) < n) ++levels;
  size_t taken = n + !g->wrapped; /* the caller's memory is outside the tier */
  if (g->host_capacity && n >= 2 && (double)taken * (double)g->size > (double)g->host_capacity)
    return levels;
  if (n < levels + 2) return 0;
  double saved = (double)(n - levels - 1) * (double)g->size;
  return saved >= (double)levels * FW_REDUX_TREE_LEVEL_BYTES ? levels : 0;
}

size_t fw_redux_passes(const fw_task_t *join, size_t accumulators) {
  size_t levels = tree_levels(join->reduction, accumulators);
  return levels ? levels + 1 : accumulators;
}

double fw_redux_join_seconds(fw_scheduler_t *s, fw_task_t *join, const fw_worker_t *w,
                             size_t passes) {
  double bytes = join->bytes, flops = join->flops;
  uint64_t history_bytes = join->history_bytes;
  set_passes(join, join->reduction, passes);
  double seconds = fw_scheduler_estimate(s, join, w);
  join->bytes = bytes;
  join->flops = flops;
  join->history_bytes = history_bytes;
  return seconds;
}

/* Opens a group of contributions to `b` for its first contributor `first` (lock held):
 * its reduction task, ordered after the buffer's last writer and readers, which counts
 * in `first`'s group of tasks (a wait for them waits for it). NULL when out of memory. */
static fw_task_t *open_group(fw_scheduler_t *s, fw_buffer_t *b, const fw_task_t *first) {
  size_t n = s->num_workers;
  fw_redux_group_t *g = calloc(1, sizeof(*g) + n * sizeof(g->current[0]));
  if (!g) return NULL;
  g->reduction = b->reduction;
  g->zero = is_builtin_sum(&b->reduction);
  g->memory = &s->runtime->memory;
  const fw_memory_node_t *host = &g->memory->nodes[FW_NODE_HOST];
  g->host_capacity = host->minimal ? 0 : host->capacity; /* a cap, or the machine's */
  g->wrapped = b->wrapped;
  g->size = b->byte_size;
  g->elements = b->element_count;
  g->num_workers = n;
  char name[160];
  snprintf(name, sizeof(name), "%s.reduce", first->name);
  fw_task_t *join = fw_scheduler_graph_task(s, name, b, first);
  if (!join) {
    free(g);
    return NULL;
  }
  join->reduction = g;
  g->join = join;
  join->fn = combine_accumulators;
  join->user_data = g;
  join->reads_buffer = 1;
  ++s->tasks_submitted;
  fw_scheduler_lookahead_append(s, join); /* its buffer is an input the window counts */
  join->uses_counted = fw_scheduler_counts_uses(s); /* (as infer_dependencies does) */
  if (join->uses_counted) atomic_fetch_add_explicit(&b->mem.future_uses, 1, memory_order_relaxed);
  /* It updates the buffer in place: after its last writer (whose failure it reads) and
   * the readers since. */
  if (b->last_writer) {
    join->accesses[0].source = b->last_writer->seq + 1;
    fw_task_depend(b->last_writer, join);
  }
  fw_task_depend_on_readers(b, join);
  if (b->poisoned) fw_task_cancel_with(join, b->poisoned);
  b->redux_join = join;
  return join;
}

void fw_redux_join_group(fw_scheduler_t *s, fw_task_t *t, uint32_t r) {
  fw_buffer_t *b = t->reduces[r].buffer;
  if (b->commute_join) fw_commute_close_group(b);
  fw_task_t *join = b->redux_join ? b->redux_join : open_group(s, b, t);
  if (join && fw_task_add_successor(t, join)) {
    fw_task_retain(join);
    t->reduces[r].combine = join;
    if (t->priority > join->priority) join->priority = t->priority; /* what waits on it */
    /* What the cost model knows of it until its pairs are decided on: a pass per
     * accumulator, or per level of the tree and its own (the pair tasks do not exist
     * yet: the rank of what precedes it counts them so). */
    fw_redux_group_t *g = join->reduction;
    size_t members = ++g->contributors;
    size_t workers = t->kind_mask == 1u << FW_TARGET_KIND_CPU ? s->num_cpu_workers
                                                               : s->num_workers;
    size_t accumulators = members < workers ? members : workers;
    size_t levels = tree_levels(g, accumulators);
    set_passes(join, g, levels ? levels + 1 : accumulators);
    return;
  }
  fw_task_cancel_for_memory(t); /* the reduction would not wait for it */
  if (join && join->pending == 0)
    fw_scheduler_make_ready(s, join, NULL); /* a group of none: it ends */
}

/* Whether a task queued on `w` and not started contributes to `join`'s group: it will
 * make the worker's accumulator, if it has none yet. */
static int queued_contribution(const fw_worker_t *w, const fw_task_t *join) {
  for (size_t k = 0; k < w->heap.size; ++k) {
    const fw_task_t *q = fw_task_heap_at(&w->heap, k);
    for (uint32_t r = 0; r < q->num_reduces; ++r)
      if (q->reduces[r].combine == join) return 1;
  }
  return 0;
}

/* A pass over `join`'s buffer on the first CPU worker, expected (0: no CPU worker). */
static double pass_seconds(fw_scheduler_t *s, fw_task_t *join) {
  fw_redux_group_t *g = join->reduction;
  if (!g->pass_known && s->num_cpu_workers) {
    const fw_worker_t *cpu = &s->workers[0];
    while (cpu->kind != FW_TARGET_KIND_CPU) ++cpu;
    g->pass_seconds = fmax(0, fw_redux_join_seconds(s, join, cpu, 2) -
                                  fw_redux_join_seconds(s, join, cpu, 1));
    g->pass_known = 1;
  }
  return g->pass_seconds;
}

double fw_redux_accumulator_cost(const fw_task_t *t, const fw_worker_t *w) {
  double cost = 0;
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_task_t *join = t->reduces[r].combine;
    if (!join) continue;
    fw_redux_group_t *g = join->reduction;
    if (atomic_load_explicit(&g->current[w->index], memory_order_relaxed) ||
        queued_contribution(w, join))
      continue;
    cost += pass_seconds(w->sched, join);
    if (w->memory_node != FW_NODE_HOST) /* back, and there unless a sum's set there */
      cost += (g->zero ? 1 : 2) * fw_scheduler_hop_seconds(w, g->size);
  }
  return cost;
}

/* Makes a pair task that folds `src` into `dst` (both done, neither being written), which
 * reduction task `join` then waits for; 0 when out of memory (`join` folds both). */
static int make_pair(fw_scheduler_t *s, fw_task_t *join, fw_redux_acc_t *dst,
                     fw_redux_acc_t *src, fw_worker_t *from) {
  fw_redux_group_t *g = join->reduction;
  fw_redux_pair_t *pair = malloc(sizeof(*pair));
  char name[192];
  snprintf(name, sizeof(name), "%s.combine", join->name);
  fw_task_t *p = NULL;
  fw_status_t status = pair ? fw_task_create(s->runtime, name, NULL, 0, &p) : FW_OK;
  fw_status_free(status);
  if (!p) {
    free(pair);
    return 0;
  }
  pair->group = g;
  pair->dst = dst;
  pair->src = src;
  pair->task = p;
  if (dst->buffer && src->buffer) { /* (none in simulations) */
    pair->extra[0].buffer = dst->buffer;
    pair->extra[1].buffer = src->buffer;
    p->extra = pair->extra;
    p->num_extra = 2;
  }
  p->fn = fw_redux_combine_pair;
  p->user_data = pair;
  p->release_user_data = free;
  p->data_bytes = g->size; /* its history is kept by the buffer's size, as join's */
  p->bytes = 3.0 * (double)g->size;
  p->flops = (double)g->elements;
  p->priority = join->priority;
  p->seq = s->next_seq++;
  p->state = FW_TASK_PENDING;
  p->group = join->group;
  atomic_fetch_add(&p->group->outstanding, 1);
  atomic_fetch_add(&s->outstanding, 1);
  ++s->tasks_submitted;
  if (s->simulated)
    for (size_t c = 0; c < FW_SIM_MAX_CLASSES; ++c)
      p->sim_ready[c] = fmax(dst->sim_ready[c], src->sim_ready[c]);
  (void)fw_task_add_successor(p, join); /* join->pending += 1: it is not ready yet */
  fw_trace_t *trace = &s->runtime->trace;
  const fw_redux_acc_t *in[2] = {dst, src};
  for (size_t k = 0; k < 2; ++k) /* in the trace: after the last task that wrote each */
    if (in[k]->last_seq)
      fw_trace_add_edge(trace, fw_trace_task_id(in[k]->last_seq - 1), fw_trace_task_id(p->seq));
  dst->writer = p;
  src->folded = 1;
  ++g->pairs_running;
  p->placement_key = fw_task_placement_key(p);
  fw_scheduler_rank(s, p);
  fw_scheduler_make_ready(s, p, from);
  return 1;
}

/* Pairs the accumulators of `join`'s group that are done and idle, and folds the pairs
 * (lock held; `completing`: called as one of join's predecessors completes). The
 * reduction task waits for each pair task made (they precede it), and a pair task's
 * completion pairs again, so that they end as one accumulator when the last
 * contribution is done, which the reduction task folds into the buffer. */
static void pair_idle(fw_scheduler_t *s, fw_task_t *join, fw_worker_t *from, int completing) {
  fw_redux_group_t *g = join->reduction;
  if (g->finished == g->contributors && !g->pairs_running &&
      join->pending <= (uint32_t)completing) {
    /* The last few, when nothing but the task completing now (if any) holds the
     * reduction task back: folded one after another there, they take as many passes
     * and a task less (two), or the tree's levels no longer pay (tree_levels). */
    size_t n = 0;
    for (fw_redux_acc_t *a = atomic_load(&g->accumulators); a; a = a->next)
      n += a->filled && !a->folded;
    if (!tree_levels(g, n)) return;
  }
  fw_redux_acc_t *waiting = NULL;
  for (fw_redux_acc_t *a = atomic_load(&g->accumulators); a; a = a->next) {
    if (!a->done || !a->filled || a->folded || a->writer) continue;
    if (!waiting) {
      waiting = a;
    } else {
      if (!make_pair(s, join, waiting, a, from)) return; /* join folds the rest */
      waiting = NULL;
    }
  }
}

/* Simulation: accumulator `a` of `g` is done; a GPU's goes to host memory over the GPU's
 * link from now. */
static void sim_carry_home(fw_scheduler_t *s, const fw_redux_group_t *g, fw_redux_acc_t *a) {
  if (!s->simulated || !a->sim_gpu || a->sim_carried) return;
  a->sim_carried = 1;
  a->sim_home = fw_simulator_carry(s, a->sim_gpu, 0, g->size);
}

/* Accumulator `a` of `join`'s group, idle once every contribution started: one in a GPU's
 * memory starts home now, over the link in a simulation, on the prefetch threads in a
 * run, rather than when the task that folds it takes it and waits for the copy (in a run,
 * not once memory is contended, as for the outputs sent ahead: scheduler.c). Whether it
 * did: it is then set aside as done (combine_early), so that a contribution whose launch
 * a GPU refuses, run again on this one, makes another rather than write it after it left.
 * A CPU worker's, in host memory, stays (lock held). */
static int start_home(fw_scheduler_t *s, fw_task_t *join, fw_redux_acc_t *a) {
  fw_redux_group_t *g = join->reduction;
  if (s->simulated) {
    if (!a->sim_gpu || a->sim_carried) return 0;
    sim_carry_home(s, g, a);
    return 1;
  }
  fw_memory_t *m = &s->runtime->memory;
  if (!a->buffer || !a->filled || fw_memory_is_valid_on(a->buffer, FW_NODE_HOST) ||
      atomic_load_explicit(&m->spilled, memory_order_relaxed))
    return 0;
  fw_memory_prefetch(m, a->buffer, FW_NODE_HOST, fw_scheduler_need(s, join));
  return 1;
}

/* Once every contribution of `join`'s group started (and the group is closed), an
 * accumulator no contribution writes now will not be written again: it is taken from
 * its worker, done, and paired with another (lock held; `completing`: as pair_idle).
 * Whether pairs pay is decided then, on the accumulators there are. */
static void combine_early(fw_scheduler_t *s, fw_task_t *join, fw_worker_t *from,
                          int completing) {
  fw_redux_group_t *g = join->reduction;
  if (g->ended || !g->closed || g->failed || join->cancelled) return;
  int all_done = g->finished == g->contributors;
  if (!all_done && atomic_load(&g->started) < g->contributors) return;
  /* A contribution takes its worker's accumulator (`current`) and then counts itself
   * (`running`, then `started`, sequentially consistent): having seen them all started,
   * this sees each running one's count, and no other starts unless a refused launch
   * uncounted itself first (without the lock, its accumulator untouched: that one may
   * be set aside here meanwhile), to be queued again under the lock this holds. So an
   * accumulator none writes now is written no more unless such a one runs again on its
   * worker: a GPU's starts home, whether or not pairs pay, and is set aside. */
  for (size_t i = 0; i < g->num_workers; ++i) {
    fw_redux_acc_t *a = atomic_load(&g->current[i]);
    if (a && !atomic_load(&a->running) && start_home(s, join, a)) {
      atomic_store(&g->current[i], NULL);
      a->done = 1;
    }
  }
  if (!g->paired) {
    size_t n = 0;
    for (fw_redux_acc_t *a = atomic_load(&g->accumulators); a; a = a->next) n += !a->folded;
    /* (those one could not fill count too: a refused launch's, rare) */
    if (!tree_levels(g, n)) return; /* decided again with the next one done */
    g->paired = 1;
    set_passes(join, g, 2); /* the last two, most often (pair_idle) */
    join->placement_key = fw_task_placement_key(join);
    fw_scheduler_rank(s, join);
  }
  for (size_t i = 0; i < g->num_workers; ++i) {
    fw_redux_acc_t *a = atomic_load(&g->current[i]);
    if (!a || atomic_load(&a->running)) continue;
    atomic_store(&g->current[i], NULL);
    a->done = 1;
  }
  pair_idle(s, join, from, completing);
}

void fw_redux_close_group(fw_scheduler_t *s, fw_buffer_t *b, fw_worker_t *from) {
  fw_task_t *join = b->redux_join;
  b->first_reader = b->end_readers;
  b->num_readers = 0;
  b->last_writer = join;
  b->redux_join = NULL;
  join->reduction->closed = 1;
  atomic_store(&join->reduction->closed_contributors, join->reduction->contributors);
  combine_early(s, join, from, 0);
}

void fw_redux_contribution_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_task_t *join = t->reduces[r].combine;
    if (!join) continue; /* never joined (out of memory) */
    fw_redux_group_t *g = join->reduction;
    fw_redux_acc_t *a = t->reduces[r].acc;
    if (a) { /* (kept: the simulation's bounds read it next) */
      a->last_seq = t->seq + 1;
      atomic_fetch_sub(&a->running, 1);
    }
    ++g->finished;
    g->failed |= t->status != FW_OK;
    combine_early(s, join, w, 1);
  }
}

void fw_redux_pair_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w) {
  const fw_redux_pair_t *p = t->user_data;
  fw_redux_group_t *g = p->group;
  p->dst->writer = NULL;
  p->dst->last_seq = t->seq + 1;
  --g->pairs_running;
  g->failed |= t->status != FW_OK;
  fw_task_t *join = t->successors[0]; /* its only one */
  if (!g->failed && !join->cancelled) pair_idle(s, join, w, 1);
}

void fw_redux_sim_arrival(fw_task_t *t, const fw_task_t *join, const double *at,
                          size_t num_classes) {
  fw_redux_acc_t *a = NULL;
  if (fw_redux_is_pair(t)) {
    a = ((fw_redux_pair_t *)t->user_data)->dst;
  } else {
    for (uint32_t r = 0; r < t->num_reduces && !a; ++r)
      if (t->reduces[r].combine == join) a = t->reduces[r].acc;
  }
  for (size_t c = 0; a && c < num_classes; ++c)
    if (at[c] > a->sim_ready[c]) a->sim_ready[c] = at[c];
}

/* Reduction task `t` folds the `n` accumulators of `g` left: they are its extra buffers
 * (none in simulations). Out of memory, it fails rather than lose them (lock held). */
static void take_folds(const fw_scheduler_t *s, fw_task_t *t, fw_redux_group_t *g, size_t n) {
  if (!n || t->cancelled || s->simulated || g->folds) return; /* (once) */
  g->folds = malloc(n * sizeof(*g->folds));
  g->fold_extra = malloc(n * sizeof(*g->fold_extra));
  if (!g->folds || !g->fold_extra) {
    t->cancelled = 1;
    fw_task_fail_with(t, fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                                        "task @%s: out of memory", t->name));
    return;
  }
  for (fw_redux_acc_t *a = atomic_load(&g->accumulators); a; a = a->next) {
    if (!a->filled || a->folded) continue;
    g->folds[t->num_extra] = a;
    g->fold_extra[t->num_extra++].buffer = a->buffer;
  }
  t->extra = g->fold_extra;
}

int fw_redux_group_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from) {
  fw_buffer_t *b = t->accesses[0].buffer;
  if (b->redux_join == t) fw_redux_close_group(s, b, from); /* may pair accumulators */
  if (t->pending) return 1; /* waits for the pairs just made */
  fw_redux_group_t *g = t->reduction;
  g->ended = 1; /* a pair made from now on would not be waited for */
  size_t n = 0;
  for (fw_redux_acc_t *a = atomic_load(&g->accumulators); a; a = a->next) {
    if (!a->filled || a->folded) continue;
    ++n;
    sim_carry_home(s, g, a);
  }
  take_folds(s, t, g, n);
  set_passes(t, g, n);
  t->placement_key = fw_task_placement_key(t); /* of its work, known now */
  fw_scheduler_rank(s, t);
  return 0;
}

int fw_redux_contributes_to(const fw_task_t *t, const fw_task_t *succ) {
  if (fw_redux_is_pair(t)) return 1; /* into the reduction task */
  if (!succ->reduction) return 0;
  for (uint32_t r = 0; r < t->num_reduces; ++r)
    if (t->reduces[r].combine == succ) return 1;
  return 0;
}

uint64_t fw_redux_accumulator_bytes(const fw_task_t *t, const fw_task_t *next) {
  if (fw_redux_is_pair(t) || !fw_redux_contributes_to(t, next)) return 0;
  return next->reduction->size;
}

/* Worker `w`'s accumulator for group `g`, made when it has none, without its memory
 * (fill_accumulator sets that) but in a run with the buffer that will hold its host
 * memory (`rt`; NULL in a simulation), counting `running` contributions from the start
 * (before another worker could see it idle and take it over: adopt). NULL when out of
 * memory (no lock: on `w`'s thread, or the simulator's). */
static fw_redux_acc_t *worker_accumulator(fw_redux_group_t *g, const fw_worker_t *w,
                                          fw_runtime_t *rt, unsigned running) {
  fw_redux_acc_t *a = atomic_load(&g->current[w->index]);
  if (a) return a;
  a = calloc(1, sizeof(*a));
  if (!a) return NULL;
  atomic_store(&a->running, running);
  if (rt) {
    int64_t bytes = (int64_t)g->size;
    fw_status_t status = fw_buffer_allocate(rt, FW_ELEMENT_TYPE_I8, 1, &bytes, &a->buffer);
    if (status != FW_OK) {
      fw_status_free(status);
      free(a);
      return NULL;
    }
    /* Needed again (by its worker's next contribution, or the task that folds it): not
     * among the first copies to go when the host tier is full. */
    if (fw_scheduler_counts_uses(w->sched)) atomic_store(&a->buffer->mem.future_uses, 1);
  }
  a->next = atomic_load(&g->accumulators);
  while (!atomic_compare_exchange_weak(&g->accumulators, &a->next, a)) {
  }
  atomic_store(&g->current[w->index], a);
  return a;
}

/* Counts a contribution as started (no lock; see combine_early), having counted it among
 * those writing its accumulator: whether it is the last of its closed group to start,
 * whose start lets the others' accumulators be paired (combine_early, which the closing
 * also calls). */
static int count_started(fw_redux_group_t *g) {
  return atomic_fetch_add(&g->started, 1) + 1 == atomic_load(&g->closed_contributors);
}

/* Counts a contribution as writing accumulator `a` of `g`, and as started. */
static int count_start(fw_redux_group_t *g, fw_redux_acc_t *a) {
  atomic_fetch_add(&a->running, 1);
  return count_started(g);
}

/* In `running` while another worker takes the accumulator over (adopt). */
#define FW_REDUX_ADOPTING 0x80000000u

/* Counts a contribution of CPU worker `w` as writing `a`, its worker's accumulator of `g`
 * (a worker's contributions follow one another, but their completions may be deferred:
 * `running` may count the last ones still): 0 when another worker took it over. While one
 * is taking it over (a few instructions) this waits, and then looks at its slot again. */
static int own(fw_redux_group_t *g, const fw_worker_t *w, fw_redux_acc_t *a) {
  if (!a) return 0;
  unsigned running = atomic_load(&a->running);
  do {
    while (running & FW_REDUX_ADOPTING) {
      sched_yield();
      running = atomic_load(&a->running);
    }
  } while (!atomic_compare_exchange_weak(&a->running, &running, running + 1));
  if (atomic_load(&g->current[w->index]) == a) return 1;
  atomic_fetch_sub(&a->running, 1); /* taken over before this counted itself */
  return 0;
}

/* CPU worker `w` takes over an accumulator of another CPU worker of `g` that no
 * contribution counts (it moves from that worker's slot to `w`'s, counting the caller's
 * contribution: that worker's next contribution takes over another or makes one); NULL
 * when none is idle. Before every contribution of the group has started, combine_early
 * sets none aside, so the one taken is not done. */
static fw_redux_acc_t *adopt(fw_redux_group_t *g, const fw_worker_t *w) {
  const fw_scheduler_t *s = w->sched;
  for (size_t i = 0; i < g->num_workers; ++i) {
    if (i == w->index || s->workers[i].kind != FW_TARGET_KIND_CPU) continue;
    fw_redux_acc_t *a = atomic_load(&g->current[i]);
    unsigned idle = 0;
    if (!a || !atomic_compare_exchange_strong(&a->running, &idle, 1 | FW_REDUX_ADOPTING))
      continue;
    /* Taken only from the slot it was seen in: since then another worker may have taken
     * it over, used it and let it go idle (it is in that worker's slot now), or its worker
     * put another in this one; then it is not this worker's to take. */
    fw_redux_acc_t *expected = a;
    if (!atomic_compare_exchange_strong(&g->current[i], &expected, NULL)) {
      atomic_fetch_sub(&a->running, 1 | FW_REDUX_ADOPTING);
      continue;
    }
    atomic_store(&g->current[w->index], a);
    atomic_fetch_and(&a->running, ~FW_REDUX_ADOPTING);
    return a;
  }
  return NULL;
}

/* The accumulator of `g` that contribution `t` writes on CPU worker `w`, counting it: the
 * worker's own; else, when the host tier has no room for another without moving
 * something to storage, an idle one of another worker's; else a new one (NULL when out of
 * memory). */
static fw_redux_acc_t *cpu_accumulator(fw_redux_group_t *g, const fw_worker_t *w,
                                       fw_task_t *t) {
  fw_redux_acc_t *a = atomic_load(&g->current[w->index]);
  if (own(g, w, a)) return a;
  /* None, or another worker is taking it over now. */
  if (g->host_capacity && !fw_memory_has_room(g->memory, FW_NODE_HOST, g->size) &&
      (a = adopt(g, w)))
    return a;
  atomic_store(&g->current[w->index], NULL); /* (not that one: a new one) */
  return worker_accumulator(g, w, t->runtime, 1);
}

void fw_redux_note_worker(fw_scheduler_t *s, fw_task_t *t, const fw_worker_t *w) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_group_t *g = t->reduces[r].combine->reduction;
    fw_redux_acc_t *a = worker_accumulator(g, w, NULL, 0);
    if (!a) continue; /* out of memory: the simulation goes on without it */
    if (!a->filled && w->sim && w->kind != FW_TARGET_KIND_CPU) {
      a->sim_gpu = w; /* set on the host and copied there, or a sum's set there */
      a->sim_there = g->zero ? 0 : fw_simulator_carry(s, w, 1, g->size);
    }
    a->filled = 1;
    t->reduces[r].acc = a;
    if (count_start(g, a)) combine_early(s, t->reduces[r].combine, NULL, 0); /* (lock held) */
  }
}

/* Sets accumulator `a` of `g`, at `data` where worker `w` took it, to the neutral element:
 * in host memory for a CPU worker, in the GPU's memory for a GPU worker. */
static fw_status_t fill_accumulator(fw_redux_group_t *g, fw_redux_acc_t *a, const fw_task_t *t,
                                    const fw_worker_t *w, void *data) {
  if (w->kind == FW_TARGET_KIND_CPU) {
    g->reduction.init(g->reduction.user_data, data, g->size);
    a->filled = 1;
    return FW_OK;
  }
  fw_device_t *device = t->runtime->devices[w->device_index];
  fw_status_t status = FW_OK;
  if (g->zero) { /* a sum's: zero in the GPU's memory, nothing over the link */
    status = device->vtable->fill_zero(device, data, g->size);
  } else { /* made on the host (the GPU has no `init`) and copied over */
    void *neutral = malloc(g->size ? g->size : 1);
    status = neutral ? FW_OK : fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    uint64_t t0 = fw_now_ns();
    if (neutral) {
      g->reduction.init(g->reduction.user_data, neutral, g->size);
      status = device->vtable->copy_to_device(device, NULL, data, neutral, g->size);
      free(neutral);
    }
    if (status == FW_OK)
      fw_memory_note_copy(g->memory, FW_TIER_HOST, FW_TIER_DEVICE, g->size, t0, fw_now_ns(),
                          "copy (accumulator)");
  }
  if (status != FW_OK)
    return fw_status_annotate(status, "task @%s: setting an accumulator of %zu bytes in %s's "
                                      "memory (FW_ACCESS_REDUCE)",
                              t->name, g->size, t->runtime->device_info[w->device_index].name);
  a->filled = 1;
  return FW_OK;
}

void fw_redux_launched(const fw_task_t *t) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) t->reduces[r].acc->written = 1;
}

void fw_redux_launch_refused(fw_task_t *t) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_acc_t *a = t->reduces[r].acc;
    if (a) { /* uncounted before it can be queued again (combine_early) */
      fw_redux_group_t *g = t->reduces[r].combine->reduction;
      /* Set, but nothing launched on it (a GPU's contributions follow one another on its
       * worker: none launched before this one either): nothing to fold, and the GPU's
       * next contribution sets it again. */
      if (!a->written) a->filled = 0;
      atomic_fetch_sub(&g->started, 1);
      atomic_fetch_sub(&a->running, 1);
    }
    t->reduces[r].acc = NULL;
    t->reduces[r].data = NULL;
  }
}

void fw_redux_sim_finished(const fw_task_t *t, double finish) {
  if (fw_redux_is_pair(t)) {
    fw_redux_acc_t *dst = ((const fw_redux_pair_t *)t->user_data)->dst;
    dst->sim_home = fmax(dst->sim_home, finish);
    return;
  }
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_acc_t *a = t->reduces[r].acc;
    if (a && !a->sim_gpu) a->sim_home = fmax(a->sim_home, finish); /* (a GPU's: carried) */
  }
}

double fw_redux_sim_start(const fw_task_t *t, double start) {
  if (fw_redux_is_pair(t)) {
    const fw_redux_pair_t *p = t->user_data;
    return fmax(start, fmax(p->dst->sim_home, p->src->sim_home));
  }
  const fw_redux_group_t *g = t->reduction;
  if (!g) { /* a contribution: its accumulators on its worker */
    for (uint32_t r = 0; r < t->num_reduces; ++r)
      if (t->reduces[r].acc) start = fmax(start, t->reduces[r].acc->sim_there);
    return start;
  }
  /* The reduction task: those pairs folded came home before their pair tasks ran. */
  for (fw_redux_acc_t *a = atomic_load(&g->accumulators); a; a = a->next)
    if (!a->folded) start = fmax(start, a->sim_home);
  return start;
}

/* The error when worker `w` has no accumulator for contribution `t` (out of memory). */
static fw_status_t no_accumulator(const fw_task_t *t) {
  return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                        "task @%s: out of memory for an accumulator (FW_ACCESS_REDUCE)", t->name);
}

fw_status_t fw_redux_prepare_accumulators(fw_task_t *t, const fw_worker_t *w) {
  t->num_extra = 0;
  int cpu = w->kind == FW_TARGET_KIND_CPU;
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_group_t *g = t->reduces[r].combine->reduction;
    /* A CPU worker's is counted now (the contribution's end lets it go); a GPU worker's
     * once its launch is under way (fw_redux_take_accumulators), and until then it is
     * the worker's alone: its group's contributions have not all started. */
    fw_redux_acc_t *a = cpu ? cpu_accumulator(g, w, t) : worker_accumulator(g, w, t->runtime, 0);
    if (!a) return no_accumulator(t);
    if (cpu) t->reduces[r].acc = a;
    t->extra[r].buffer = a->buffer;
  }
  t->num_extra = t->num_reduces;
  return FW_OK;
}

fw_status_t fw_redux_take_accumulators(fw_task_t *t, const fw_worker_t *w, void *const *data) {
  int last = 0; /* it is the last of a group to start */
  int cpu = w->kind == FW_TARGET_KIND_CPU;
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_group_t *g = t->reduces[r].combine->reduction;
    /* A CPU worker's was counted before its buffers were taken (prepare); a GPU worker's
     * is the one prepare found, still its worker's. */
    fw_redux_acc_t *a = cpu ? t->reduces[r].acc : worker_accumulator(g, w, t->runtime, 0);
    void *data_r = data[t->num_accesses + r];
    fw_status_t status = a ? FW_OK : no_accumulator(t);
    if (status == FW_OK && a->buffer != t->extra[r].buffer)
      status = fw_status_make(FW_STATUS_INTERNAL, "task @%s: its worker's accumulator changed "
                                                  "while it took its buffers", t->name);
    if (status == FW_OK && !a->filled) status = fill_accumulator(g, a, t, w, data_r);
    if (status != FW_OK) return status;
    t->reduces[r].acc = a;
    t->reduces[r].data = data_r;
    last |= cpu ? count_started(g) : count_start(g, a);
  }
  if (last) { /* the others' accumulators may be paired while this one runs */
    fw_scheduler_t *s = w->sched;
    fw_sched_lock(s);
    for (uint32_t r = 0; r < t->num_reduces; ++r) /* (each checks its group) */
      combine_early(s, t->reduces[r].combine, NULL, 0);
    fw_sched_unlock(s);
  }
  return FW_OK;
}

/* ---- fw_buffer_set_reduction ------------------------------------------------------ */

fw_status_t fw_buffer_set_reduction(fw_buffer_t *buffer, const fw_reduction_t *reduction) {
  if (!buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "buffer is NULL");
  if (!reduction) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "reduction is NULL");
  if (!reduction->init || !reduction->combine)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "reduction: init and combine are both required");
  fw_scheduler_t *s = &buffer->runtime->sched;
  fw_sched_lock(s);
  buffer->reduction = *reduction;
  fw_sched_unlock(s);
  atomic_store_explicit(&buffer->has_reduction, 1, memory_order_release);
  return FW_OK;
}

/* The built-in reductions, per element type; user_data is the fw_reduction_op_t. Integer
 * sums and products are computed in unsigned arithmetic (they wrap around, never
 * overflow a signed type); a NaN wins a float minimum or maximum (s != s). */
#define FW_REDUX_BUILTIN(NAME, T, U, LOWEST, HIGHEST)                                    \
  static void init_##NAME(void *user_data, void *data, size_t size) {                    \
    fw_reduction_op_t op = (fw_reduction_op_t)(uintptr_t)user_data;                      \
    T v = op == FW_REDUCTION_SUM       ? (T)0                                            \
          : op == FW_REDUCTION_PRODUCT ? (T)1                                            \
          : op == FW_REDUCTION_MIN     ? (HIGHEST)                                       \
                                       : (LOWEST);                                       \
    T *p = data;                                                                         \
    for (size_t i = 0; i < size / sizeof(T); ++i) p[i] = v;                              \
  }                                                                                      \
  static void combine_##NAME(void *user_data, void *dst, const void *src, size_t size) { \
    fw_reduction_op_t op = (fw_reduction_op_t)(uintptr_t)user_data;                      \
    T *d = dst;                                                                          \
    const T *s = src;                                                                    \
    size_t n = size / sizeof(T);                                                         \
    switch (op) {                                                                        \
    case FW_REDUCTION_SUM:                                                               \
      for (size_t i = 0; i < n; ++i) d[i] = (T)((U)d[i] + (U)s[i]);                      \
      break;                                                                             \
    case FW_REDUCTION_PRODUCT:                                                           \
      for (size_t i = 0; i < n; ++i) d[i] = (T)((U)d[i] * (U)s[i]);                      \
      break;                                                                             \
    case FW_REDUCTION_MIN:                                                               \
      for (size_t i = 0; i < n; ++i)                                                     \
        if (s[i] < d[i] || s[i] != s[i]) d[i] = s[i];                                    \
      break;                                                                             \
    case FW_REDUCTION_MAX:                                                               \
      for (size_t i = 0; i < n; ++i)                                                     \
        if (s[i] > d[i] || s[i] != s[i]) d[i] = s[i];                                    \
      break;                                                                             \
    }                                                                                    \
  }

FW_REDUX_BUILTIN(f32, float, float, -INFINITY, INFINITY)
FW_REDUX_BUILTIN(f64, double, double, -INFINITY, INFINITY)
FW_REDUX_BUILTIN(i8, int8_t, unsigned, INT8_MIN, INT8_MAX)
FW_REDUX_BUILTIN(i16, int16_t, unsigned, INT16_MIN, INT16_MAX)
FW_REDUX_BUILTIN(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)
FW_REDUX_BUILTIN(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)

static int is_builtin_sum(const fw_reduction_t *r) {
  static void (*const kInits[])(void *, void *, size_t) = {init_f32, init_f64, init_i8,
                                                           init_i16, init_i32, init_i64};
  if ((fw_reduction_op_t)(uintptr_t)r->user_data != FW_REDUCTION_SUM) return 0;
  for (size_t i = 0; i < sizeof(kInits) / sizeof(kInits[0]); ++i)
    if (r->init == kInits[i]) return 1;
  return 0;
}

fw_status_t fw_buffer_set_reduction_op(fw_buffer_t *buffer, fw_reduction_op_t op) {
  if (!buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "buffer is NULL");
  static const char *const kOps[] = {"", "FW_REDUCTION_SUM", "FW_REDUCTION_PRODUCT",
                                     "FW_REDUCTION_MIN", "FW_REDUCTION_MAX"};
  if (op < FW_REDUCTION_SUM || op > FW_REDUCTION_MAX)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "unknown reduction op %d", (int)op);
  fw_reduction_t r = {NULL, NULL, (void *)(uintptr_t)op};
  switch (buffer->type.element_type) {
#define FW_REDUX_CASE(TYPE, NAME)                                                        \
  case TYPE:                                                                             \
    r.init = init_##NAME;                                                                \
    r.combine = combine_##NAME;                                                          \
    break;
    FW_REDUX_CASE(FW_ELEMENT_TYPE_F32, f32)
    FW_REDUX_CASE(FW_ELEMENT_TYPE_F64, f64)
    FW_REDUX_CASE(FW_ELEMENT_TYPE_I8, i8)
    FW_REDUX_CASE(FW_ELEMENT_TYPE_I16, i16)
    FW_REDUX_CASE(FW_ELEMENT_TYPE_I32, i32)
    FW_REDUX_CASE(FW_ELEMENT_TYPE_I64, i64)
#undef FW_REDUX_CASE
  default:
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "%s is not built in for %s buffers: give init and combine "
                          "functions (fw_buffer_set_reduction)",
                          kOps[op], fw_element_type_name(buffer->type.element_type));
  }
  return fw_buffer_set_reduction(buffer, &r);
}
