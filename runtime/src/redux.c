/* Reductions (FW_ACCESS_REDUCE, docs/task-graph.md): groups of contributions to a buffer,
 * each group with a reduction task that runs after the group's tasks and after what came
 * before the group, and combines into the buffer the accumulators, one per worker (in a
 * GPU's memory for a GPU worker, brought to host memory to be combined), that the group's
 * tasks wrote their contributions into. The contributions are kept
 * apart from a task's accesses: the dependency inference, the planners and the memory
 * manager see the buffer accessed by the reduction task alone. */
#include "redux.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commute.h"
#include "runtime_internal.h"
#include "status_internal.h"
#include "task_queue.h"
#include "trace.h"

/* A group's k accumulators are combined by a tree of tasks (pairs side by side, then pairs
 * of their results, the reduction task folding the last into the buffer: L = ceil(log2 k)
 * levels) when the k - L - 1 passes over the buffer it saves on the critical path take
 * longer than the L levels of tasks it adds, each a task made ready and often a worker
 * woken: when (k - L - 1) * size >= L * FW_REDUX_TREE_LEVEL_BYTES. A level cost 50-150 us
 * on a 2-core machine with 4 workers (fw-runtime-bench --only=reduce: at 512 KiB per
 * level, four accumulators of 1 MiB took 2.6-3x a serial fold under eager), some 1 MiB
 * of passes at 5-25 GB/s. So four accumulators need 2 MiB, eight 768 KiB, sixteen
 * 373 KiB; two or three never do. Else the reduction task combines them one after
 * another. */
#define FW_REDUX_TREE_LEVEL_BYTES (1024.0 * 1024)

/* One task of the tree: folds accumulator `src` into `dst` and frees `src`. */
typedef struct fw_redux_pair_t {
  fw_redux_group_t *group;
  uint32_t dst, src;
} fw_redux_pair_t;

/* A worker's accumulator for a group. A GPU worker's is in the GPU's memory (outside its
 * tier's count), set there from `data` (made and set to the neutral element on the host)
 * before its first contribution, and copied back into `data` before it is combined,
 * unless no launch went through (`data` still holds the neutral element then). */
typedef struct fw_redux_acc_t {
  void *data;          /* host memory; NULL until a task of the group ran on the worker */
  void *device_data;   /* the GPU's copy while its contributions write it, else NULL */
  fw_device_t *device; /* that GPU */
  int written;         /* a contribution's work was enqueued on it */
} fw_redux_acc_t;

/* A group's accumulators, one per worker (a CPU worker runs one task at a time, also
 * when a waiting thread runs it in the worker's place, and a GPU worker's contributions
 * follow each other on its stream: each is written by one thread or stream at a time,
 * and read by the tasks combining them after all of the group's tasks completed). */
struct fw_redux_group_t {
  fw_reduction_t reduction; /* the buffer's when the group opened */
  fw_memory_t *memory;      /* its runtime's, which counts a GPU's accumulator's copies */
  size_t size;              /* bytes */
  uint64_t elements;
  /* sched.lock: tasks in the group, those of them that completed, whether one failed;
   * whether the group is closed (no task joins it any more), and whether the tree was
   * decided on (made, `tree`, or not). */
  size_t contributors, finished;
  int failed, closed, decided, tree;
  double sim_ready[FW_SIM_MAX_CLASSES]; /* simulation: when its tasks' data could be out */
  size_t num_slots;
  uint8_t *ran;             /* per worker: a task of the group ran there (also simulated) */
  uint64_t *last_seq;       /* per worker: 1 + the seq of the last such task (the trace) */
  fw_redux_pair_t *pairs;   /* the tree's tasks' user data (num_slots - 1 at most) */
  double *sim_home;         /* simulation, per worker: when its accumulator is in host memory */
  fw_redux_acc_t slots[];   /* per worker index */
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

/* Frees a GPU's copy of an accumulator (no lock). */
static void drop_device_copy(fw_redux_group_t *g, fw_redux_acc_t *a) {
  if (!a->device_data) return;
  a->device->vtable->free(a->device, a->device_data, g->size);
  a->device_data = NULL;
}

static void drop_accumulator(fw_redux_group_t *g, fw_redux_acc_t *a) {
  drop_device_copy(g, a);
  free(a->data);
  a->data = NULL;
}

void fw_redux_release(fw_task_t *t) {
  fw_redux_release_contributions(t);
  fw_redux_group_t *g = t->reduction;
  if (!g) return;
  for (size_t i = 0; i < g->num_slots; ++i) drop_accumulator(g, &g->slots[i]);
  free(g);
}

/* Brings a GPU worker's accumulator to host memory (its contributions completed: their
 * work on the stream is done) and frees the GPU's copy; the task running this fails with
 * the device's error when the copy does (the contributions' sum is lost with the GPU). */
static int bring_home(fw_redux_group_t *g, fw_redux_acc_t *a) {
  if (!a->device_data) return 1;
  if (!a->written) { /* nothing was launched on it: `data` holds the neutral element */
    drop_device_copy(g, a);
    return 1;
  }
  uint64_t t0 = fw_now_ns();
  fw_status_t status =
      a->device->vtable->copy_to_host(a->device, NULL, a->data, a->device_data, g->size);
  drop_device_copy(g, a);
  if (status == FW_OK) {
    fw_memory_note_copy(g->memory, FW_TIER_DEVICE, FW_TIER_HOST, g->size, t0, fw_now_ns(),
                        "copy (accumulator)");
    return 1;
  }
  fw_status_free(fw_engine_fail_body(fw_status_annotate(
      status, "bringing a GPU's accumulator to host memory (FW_ACCESS_REDUCE)")));
  return 0;
}

/* The reduction task's body: data[0] is the buffer in host memory. The accumulators the
 * tree combined are gone already. */
static void combine_accumulators(void *user_data, void *const *data, size_t num_data) {
  (void)num_data;
  fw_redux_group_t *g = user_data;
  for (size_t i = 0; i < g->num_slots; ++i) {
    fw_redux_acc_t *a = &g->slots[i];
    if (!a->data) continue;
    if (!bring_home(g, a)) return; /* the rest go with the task */
    if (g->size) g->reduction.combine(g->reduction.user_data, data[0], a->data, g->size);
    drop_accumulator(g, a);
  }
}

/* A tree task's body (no data: accumulators are not buffers). */
static void combine_pair(void *user_data, void *const *data, size_t num_data) {
  (void)data;
  (void)num_data;
  const fw_redux_pair_t *p = user_data;
  fw_redux_group_t *g = p->group;
  fw_redux_acc_t *dst = &g->slots[p->dst], *src = &g->slots[p->src];
  if (!bring_home(g, dst) || !bring_home(g, src)) return;
  if (g->size) g->reduction.combine(g->reduction.user_data, dst->data, src->data, g->size);
  drop_accumulator(g, src);
}

/* What the cost model knows of the reduction task when it combines `passes` accumulators:
 * a pass over the buffer each, and the buffer read and written; its history is kept by
 * the passes too (one after a tree, k without, are not one task's times). */
static void set_passes(fw_task_t *t, const fw_redux_group_t *g, size_t passes) {
  t->bytes = (double)g->size * (double)(2 * passes + 1);
  t->flops = (double)g->elements * (double)passes;
  t->history_bytes = (uint64_t)g->size * (passes ? passes : 1);
}

/* The depth of the tree over `n` accumulators of `g` (0: none is made). */
static size_t tree_levels(const fw_redux_group_t *g, size_t n) {
  size_t levels = 0;
  while (((size_t)1 << levels) < n) ++levels;
  if (n < levels + 2) return 0;
  double saved = (double)(n - levels - 1) * (double)g->size;
  return saved >= (double)levels * FW_REDUX_TREE_LEVEL_BYTES ? levels : 0;
}

/* Opens a group of contributions to `b` for its first contributor `first` (lock held):
 * its reduction task, ordered after the buffer's last writer and readers, which counts
 * in `first`'s group of tasks (a wait for them waits for it). NULL when out of memory. */
static fw_task_t *open_group(fw_scheduler_t *s, fw_buffer_t *b, const fw_task_t *first) {
  size_t n = s->num_workers;
  fw_redux_group_t *g =
      calloc(1, sizeof(*g) + n * (sizeof(g->slots[0]) + sizeof(g->sim_home[0]) +
                                  sizeof(g->pairs[0]) + sizeof(g->last_seq[0]) + 1));
  if (!g) return NULL;
  g->reduction = b->reduction;
  g->memory = &s->runtime->memory;
  g->size = b->byte_size;
  g->elements = b->element_count;
  g->num_slots = n;
  g->sim_home = (double *)&g->slots[n];
  g->pairs = (fw_redux_pair_t *)&g->sim_home[n];
  g->last_seq = (uint64_t *)&g->pairs[n];
  g->ran = (uint8_t *)&g->last_seq[n];
  char name[160];
  snprintf(name, sizeof(name), "%s.reduce", first->name);
  fw_task_t *join = fw_scheduler_graph_task(s, name, b, first);
  if (!join) {
    free(g);
    return NULL;
  }
  join->reduction = g;
  join->fn = combine_accumulators;
  join->user_data = g;
  join->reads_buffer = 1;
  ++s->tasks_submitted;
  fw_scheduler_lookahead_append(s, join); /* its buffer is an input the window counts */
  if (s->count_uses) atomic_fetch_add_explicit(&b->mem.future_uses, 1, memory_order_relaxed);
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
    /* What the cost model knows of it until it is ready: a pass per accumulator, or per
     * level of the tree and its own (the tasks of the tree do not exist yet: the rank of
     * what precedes it counts them so). */
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

/* Makes the tree that combines the accumulators of reduction task `t` down to one, which
 * `t` then waits for (its group closed and its tasks done); 0 when there is none to make
 * (too few or too small, or out of memory: `t` combines them all). */
static int make_tree(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from) {
  fw_redux_group_t *g = t->reduction;
  uint32_t *held = malloc(g->num_slots * sizeof(*held)); /* accumulators, by worker index */
  fw_task_t **last = calloc(g->num_slots, sizeof(*last)); /* the tree task writing each */
  fw_task_t **made = calloc(g->num_slots, sizeof(*made));
  size_t n = 0, num_made = 0;
  int ok = held && last && made;
  for (size_t i = 0; ok && i < g->num_slots; ++i)
    if (g->ran[i]) held[n++] = (uint32_t)i;
  ok = ok && tree_levels(g, n) > 0;
  /* Every task first (nothing changes if one cannot be made), then their edges: each has
   * one successor, which takes no allocation. */
  char name[192];
  snprintf(name, sizeof(name), "%s.combine", t->name);
  for (size_t i = 0; ok && i + 1 < n; ++i) {
    fw_status_t status = fw_task_create(s->runtime, name, NULL, 0, &made[i]);
    fw_status_free(status);
    ok = status == FW_OK;
  }
  if (!ok) {
    for (size_t i = 0; made && i < g->num_slots; ++i) fw_task_release(made[i]);
    free(held);
    free(last);
    free(made);
    return 0;
  }
  /* Level by level: at stride d, accumulator i + d folds into i. */
  for (size_t d = 1; d < n; d *= 2) {
    for (size_t i = 0; i + d < n; i += 2 * d) {
      fw_task_t *p = made[num_made];
      fw_redux_pair_t *pair = &g->pairs[num_made++];
      pair->group = g;
      pair->dst = held[i];
      pair->src = held[i + d];
      p->fn = combine_pair;
      p->user_data = pair;
      p->data_bytes = g->size; /* its history is kept by the buffer's size, as t's */
      p->bytes = 3.0 * (double)g->size;
      p->flops = (double)g->elements;
      p->priority = t->priority;
      p->seq = s->next_seq++;
      p->state = FW_TASK_PENDING;
      p->group = t->group;
      atomic_fetch_add(&p->group->outstanding, 1);
      atomic_fetch_add(&s->outstanding, 1);
      ++s->tasks_submitted;
      if (s->simulated) memcpy(p->sim_ready, g->sim_ready, sizeof(p->sim_ready));
      fw_task_t *before[2] = {last[i], last[i + d]};
      uint32_t slot[2] = {held[i], held[i + d]};
      for (size_t k = 0; k < 2; ++k) {
        if (before[k]) (void)fw_task_add_successor(before[k], p); /* pending += 1 */
        else if (g->last_seq[slot[k]]) /* in the trace: after that worker's last part */
          fw_trace_add_edge(&s->runtime->trace, fw_trace_task_id(g->last_seq[slot[k]] - 1),
                            fw_trace_task_id(p->seq));
      }
      last[i] = p;
    }
  }
  (void)fw_task_add_successor(last[0], t); /* t waits for the root */
  set_passes(t, g, 1);
  t->placement_key = fw_task_placement_key(t);
  fw_scheduler_rank(s, t);
  for (size_t i = num_made; i-- > 0;) { /* successors first */
    made[i]->placement_key = fw_task_placement_key(made[i]);
    fw_scheduler_rank(s, made[i]);
  }
  for (size_t i = 0; i < num_made; ++i)
    if (made[i]->pending == 0) fw_scheduler_make_ready(s, made[i], from);
  free(held);
  free(last);
  free(made);
  return 1;
}

/* Decides on the tree of reduction task `t` once its group is closed and all of its
 * tasks completed (not waiting for `t` to be ready: `t` also follows the accesses before
 * the group, which the accumulators do not need). */
static void decide_tree(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from) {
  fw_redux_group_t *g = t->reduction;
  if (g->decided || !g->closed || g->finished < g->contributors) return;
  g->decided = 1;
  g->tree = !g->failed && !t->cancelled && make_tree(s, t, from);
}

void fw_redux_close_group(fw_scheduler_t *s, fw_buffer_t *b, fw_worker_t *from) {
  fw_task_t *join = b->redux_join;
  b->first_reader = b->end_readers;
  b->num_readers = 0;
  b->last_writer = join;
  b->redux_join = NULL;
  join->reduction->closed = 1;
  decide_tree(s, join, from);
}

void fw_redux_contribution_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_task_t *join = t->reduces[r].combine;
    if (!join) continue; /* never joined (out of memory) */
    fw_redux_group_t *g = join->reduction;
    ++g->finished;
    g->failed |= t->status != FW_OK;
    decide_tree(s, join, w);
  }
}

void fw_redux_sim_arrival(fw_task_t *t, const fw_task_t *join, const double *at,
                          size_t num_classes) {
  if (!fw_redux_contributes_to(t, join) || t->fn == combine_pair) return;
  fw_redux_group_t *g = join->reduction;
  for (size_t c = 0; c < num_classes; ++c)
    if (at[c] > g->sim_ready[c]) g->sim_ready[c] = at[c];
}

int fw_redux_group_done(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from) {
  fw_buffer_t *b = t->accesses[0].buffer;
  if (b->redux_join == t) fw_redux_close_group(s, b, from); /* may make its tree */
  if (t->pending) return 1; /* waits for the tree just made */
  fw_redux_group_t *g = t->reduction;
  g->decided = 1; /* a tree made from now on would not be waited for */
  if (!g->tree) {
    size_t n = 0;
    for (size_t i = 0; i < g->num_slots; ++i) n += g->ran[i];
    set_passes(t, g, n);
  }
  t->placement_key = fw_task_placement_key(t); /* of its work, known now */
  fw_scheduler_rank(s, t);
  return 0;
}

int fw_redux_contributes_to(const fw_task_t *t, const fw_task_t *succ) {
  if (t->fn == combine_pair) return 1; /* a tree task: into the next, or the reduction */
  if (!succ->reduction) return 0;
  for (uint32_t r = 0; r < t->num_reduces; ++r)
    if (t->reduces[r].combine == succ) return 1;
  return 0;
}

uint64_t fw_redux_accumulator_bytes(const fw_task_t *t, const fw_task_t *next) {
  if (t->fn == combine_pair || !fw_redux_contributes_to(t, next)) return 0;
  return next->reduction->size;
}

void fw_redux_note_worker(const fw_task_t *t, const fw_worker_t *w) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_group_t *g = t->reduces[r].combine->reduction;
    g->ran[w->index] = 1;
    g->last_seq[w->index] = t->seq + 1;
  }
}

/* Makes worker `w`'s accumulator `a` for group `g`: host memory set to the neutral
 * element, and for a GPU worker its copy in the GPU's memory. */
static fw_status_t make_accumulator(fw_redux_group_t *g, fw_redux_acc_t *a, const fw_task_t *t,
                                    const fw_worker_t *w) {
  /* Whole cache lines: accumulators of neighbouring workers never share one. */
  size_t size = (g->size + 63) / 64 * 64;
  void *data = aligned_alloc(64, size ? size : 64);
  if (!data)
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                          "task @%s: out of memory for an accumulator of %zu bytes "
                          "(FW_ACCESS_REDUCE)",
                          t->name, g->size);
  g->reduction.init(g->reduction.user_data, data, g->size);
  if (w->kind != FW_TARGET_KIND_CPU) {
    fw_device_t *device = t->runtime->devices[w->device_index];
    void *copy = NULL;
    fw_status_t status = device->vtable->alloc(device, g->size ? g->size : 1, &copy);
    if (status != FW_OK) { /* no room: no fault of the device's (it stays in service) */
      fw_status_t why = status;
      status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "%s", fw_status_message(why));
      fw_status_free(why);
    } else {
      uint64_t t0 = fw_now_ns();
      status = device->vtable->copy_to_device(device, NULL, copy, data, g->size);
      if (status != FW_OK) device->vtable->free(device, copy, g->size);
      else
        fw_memory_note_copy(g->memory, FW_TIER_HOST, FW_TIER_DEVICE, g->size, t0,
                            fw_now_ns(), "copy (accumulator)");
    }
    if (status != FW_OK) {
      free(data);
      return fw_status_annotate(status, "task @%s: an accumulator of %zu bytes in %s's memory "
                                        "(FW_ACCESS_REDUCE)",
                                t->name, g->size, t->runtime->device_info[w->device_index].name);
    }
    a->device_data = copy;
    a->device = device;
  }
  a->data = data;
  return FW_OK;
}

void fw_redux_launched(const fw_task_t *t, const fw_worker_t *w) {
  for (uint32_t r = 0; r < t->num_reduces; ++r)
    t->reduces[r].combine->reduction->slots[w->index].written = 1;
}

void fw_redux_launch_refused(fw_task_t *t) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) t->reduces[r].data = NULL;
}

void fw_redux_sim_finished(const fw_task_t *t, const fw_worker_t *w, double finish) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_group_t *g = t->reduces[r].combine->reduction;
    double home = finish;
    if (w->sim && w->kind != FW_TARGET_KIND_CPU) home += fw_sim_hop_seconds(w->sim, g->size);
    if (home > g->sim_home[w->index]) g->sim_home[w->index] = home;
  }
}

double fw_redux_sim_start(const fw_task_t *t, double start) {
  if (t->fn == combine_pair) {
    const fw_redux_pair_t *p = t->user_data;
    return fmax(start, fmax(p->group->sim_home[p->dst], p->group->sim_home[p->src]));
  }
  /* The reduction task: those a tree combined came home before its tasks ran. */
  const fw_redux_group_t *g = t->reduction;
  for (size_t i = 0; g && i < g->num_slots; ++i) start = fmax(start, g->sim_home[i]);
  return start;
}

fw_status_t fw_redux_take_accumulators(fw_task_t *t, const fw_worker_t *w) {
  for (uint32_t r = 0; r < t->num_reduces; ++r) {
    fw_redux_group_t *g = t->reduces[r].combine->reduction;
    fw_redux_acc_t *a = &g->slots[w->index];
    if (!a->data) {
      fw_status_t status = make_accumulator(g, a, t, w);
      if (status != FW_OK) return status;
    }
    g->ran[w->index] = 1;
    g->last_seq[w->index] = t->seq + 1;
    t->reduces[r].data = a->device_data ? a->device_data : a->data;
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
