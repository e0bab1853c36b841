/* The task graph: tasks, dependencies inferred from buffer accesses, completion, upward
 * ranks and cost estimates (sleeping workers and waiting threads: waiting.c). The engines
 * (engine.c: threads, simulator.c: virtual time) and the policies (policy_*.c) build on
 * it. */
#define _GNU_SOURCE
#include "scheduler.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commute.h"
#include "redux.h"
#include "history.h"
#include "memory.h"
#include "runtime_internal.h"
#include "status_internal.h"
#include "trace.h"

uint64_t fw_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double fw_scheduler_now(const fw_scheduler_t *s) {
  return s->simulated ? s->sim_now : (double)fw_now_ns() * 1e-9;
}

double fw_scheduler_need(const fw_scheduler_t *s, const fw_task_t *t) {
  return t->plan_worker ? t->plan_start : fw_scheduler_now(s);
}

/* ---- Tasks --------------------------------------------------------------------- */

fw_status_t fw_task_create(fw_runtime_t *rt, const char *name,
                           const fw_task_access_t *accesses, size_t num_accesses,
                           fw_task_t **out_task) {
  *out_task = NULL;
  if (num_accesses > 0 && !accesses)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "accesses is NULL");
  for (size_t i = 0; i < num_accesses; ++i) {
    const fw_task_access_t *a = &accesses[i];
    if (!a->buffer)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "task '%s': access %zu has no buffer",
                            name, i);
    if (a->buffer->runtime != rt)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "task '%s': the buffer of access %zu belongs to another runtime",
                            name, i);
    if (a->access == (FW_ACCESS_COMMUTE | FW_ACCESS_WRITE) || a->access == FW_ACCESS_COMMUTE ||
        a->access == (FW_ACCESS_COMMUTE | FW_ACCESS_READ))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "task '%s': access %zu is commutative but not FW_ACCESS_READ_WRITE "
                            "(a commutative update reads and writes its buffer)",
                            name, i);
    if (a->access != FW_ACCESS_READ && a->access != FW_ACCESS_WRITE &&
        a->access != FW_ACCESS_READ_WRITE && a->access != FW_ACCESS_READ_WRITE_COMMUTE &&
        a->access != FW_ACCESS_REDUCE)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "task '%s': access %zu has an unknown mode %d", name, i,
                            (int)a->access);
    fw_status_t reduce = fw_redux_check_access(name, accesses, num_accesses, i);
    if (reduce) return reduce;
  }
  /* One allocation: the task, then its accesses, then with contributions to reductions
   * those, room for their accumulators and the map from its description's accesses to
   * its own (redux.c), then its name. */
  const char *label = name && *name ? name : "task";
  size_t label_size = strlen(label) + 1;
  size_t per_access = sizeof(fw_task_access_internal_t) + sizeof(fw_task_reduce_t) +
                      sizeof(fw_task_extra_t) + sizeof(uint32_t);
  if (num_accesses > (SIZE_MAX - sizeof(fw_task_t) - label_size) / per_access)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "task '%s' has too many accesses", label);
  size_t num_reduces = 0;
  for (size_t i = 0; i < num_accesses; ++i) num_reduces += accesses[i].access == FW_ACCESS_REDUCE;
  size_t accesses_size = num_accesses * sizeof(fw_task_access_internal_t);
  size_t reduces_size = num_reduces * (sizeof(fw_task_reduce_t) + sizeof(fw_task_extra_t));
  size_t map_size = num_reduces ? num_accesses * sizeof(uint32_t) : 0;
  size_t alloc_size = sizeof(fw_task_t) + accesses_size + reduces_size + map_size + label_size;
  fw_task_t *t = fw_task_pool_alloc(&rt->sched.task_pool, alloc_size);
  if (!t) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  t->alloc_size = alloc_size;
  t->accesses = (fw_task_access_internal_t *)(t + 1);
  if (num_reduces) {
    t->reduces = (fw_task_reduce_t *)((char *)t->accesses + accesses_size);
    t->extra = (fw_task_extra_t *)(t->reduces + num_reduces); /* their accumulators */
    t->binding_access = (uint32_t *)((char *)t->reduces + reduces_size);
    t->binding_inline = 1;
  }
  t->name = (char *)(t + 1) + accesses_size + reduces_size + map_size;
  memcpy(t->name, label, label_size);
  t->name_hash = fw_history_name_hash(label);
  atomic_init(&t->refcount, 1);
  atomic_init(&t->done, 0);
  t->runtime = rt;
  fw_runtime_retain_internal(rt);
  t->kind_mask = 1u << FW_TARGET_KIND_CPU;
  /* One access per distinct buffer, with the union of the modes; commutative only when
   * every access to it is (a plain one orders it as usual). Contributions to reductions
   * apart (redux.c). */
  fw_redux_take_accesses(t, accesses, num_accesses);
  for (size_t i = 0; i < num_accesses; ++i) {
    if (accesses[i].access == FW_ACCESS_REDUCE) continue;
    size_t j = 0;
    int commute = (accesses[i].access & FW_ACCESS_COMMUTE) != 0;
    while (j < t->num_accesses && t->accesses[j].buffer != accesses[i].buffer) ++j;
    if (j == t->num_accesses) {
      t->accesses[j].buffer = accesses[i].buffer;
      t->accesses[j].commute = commute;
      fw_buffer_retain(accesses[i].buffer);
      t->data_bytes += accesses[i].buffer->byte_size;
      ++t->num_accesses;
    }
    t->accesses[j].access =
        (fw_access_t)((t->accesses[j].access | accesses[i].access) & FW_ACCESS_READ_WRITE);
    t->accesses[j].commute &= commute;
  }
  for (size_t j = 0; j < t->num_accesses; ++j) t->num_commute += t->accesses[j].commute;
  *out_task = t;
  return FW_OK;
}

void fw_task_retain(fw_task_t *task) {
  if (task) atomic_fetch_add_explicit(&task->refcount, 1, memory_order_relaxed);
}

void fw_task_release_after(fw_task_t *task) {
  size_t n = task->num_after;
  fw_task_t **after = task->after;
  task->num_after = 0;
  task->after = NULL;
  for (size_t i = 0; i < n; ++i) fw_task_release(after[i]);
  free(after);
}

void fw_task_release(fw_task_t *task) {
  if (!task) return;
  if (atomic_fetch_sub_explicit(&task->refcount, 1, memory_order_acq_rel) != 1) return;
  fw_task_release_after(task);
  for (size_t i = 0; i < task->num_accesses; ++i) fw_buffer_release(task->accesses[i].buffer);
  if (task->module) fw_module_release(task->module);
  fw_status_free(task->status);
  if (task->successors != task->inline_successors) free(task->successors);
  free(task->members);
  free(task->sim_group);
  if (!task->binding_inline) free(task->binding_access);
  fw_redux_release(task);
  void (*release_user_data)(void *) = task->release_user_data;
  void *user_data = task->user_data;
  fw_runtime_t *rt = task->runtime;
  fw_task_pool_free(&rt->sched.task_pool, task, task->alloc_size);
  /* The caller's code, with the task gone and the runtime still held (it may release the
   * last handle of the runtime: teardown then waits for this task's group). */
  if (release_user_data) release_user_data(user_data);
  fw_runtime_release_internal(rt);
}

/* Whether `w` is in service and has code for `task` (preferences aside). */
static int runs_code(const fw_worker_t *w, const fw_task_t *task) {
  if (!((task->kind_mask >> w->kind) & 1u) || w->lost) return 0;
  /* A real GPU runs the tasks whose code loaded on it. */
  return w->kind == FW_TARGET_KIND_CPU || w->sim || ((task->gpu_mask >> w->device_index) & 1u);
}

/* Whether another kind than `kind` is preferred for `task` and in service: then workers
 * of `kind` leave it to those. */
static int preferred_elsewhere(const fw_scheduler_t *s, const fw_task_t *task, unsigned kind) {
  return task->prefer_mask && !((task->prefer_mask >> kind) & 1u) &&
         (task->prefer_mask & atomic_load_explicit(&s->kind_mask, memory_order_relaxed));
}

/* fw_worker_can_run but for the memory. */
static int has_code(const fw_worker_t *w, const fw_task_t *task) {
  return runs_code(w, task) && !preferred_elsewhere(w->sched, task, w->kind);
}

/* Whether the task's buffers, and a contribution's accumulators, fit `w`'s device memory
 * at once: a task that does not would be refused there every time
 * (fw_memory_check_fits), so no policy plans it there. Host memory is left to
 * fw_memory_acquire (it may hold the caller's own buffers). */
static int fits(const fw_worker_t *w, const fw_task_t *task) {
  if (w->memory_node == FW_NODE_HOST) return 1;
  const fw_memory_node_t *n = &task->runtime->memory.nodes[w->memory_node];
  if (n->minimal) return 1;
  uint64_t capacity = fw_memory_node_capacity(n);
  if (!capacity) return 1;
  uint64_t bytes = task->data_bytes;
  for (uint32_t r = 0; r < task->num_reduces; ++r) bytes += task->reduces[r].buffer->byte_size;
  return bytes <= capacity;
}

int fw_worker_can_run(const fw_worker_t *w, const fw_task_t *task) {
  return has_code(w, task) && fits(w, task);
}

int fw_scheduler_can_run(const fw_scheduler_t *s, const fw_task_t *task) {
  uint32_t kinds = task->kind_mask & atomic_load_explicit(&s->kind_mask, memory_order_relaxed);
  if (!kinds) return 0;
  /* CPU workers never leave, and host memory holds what they run. */
  if (((kinds >> FW_TARGET_KIND_CPU) & 1u) && !preferred_elsewhere(s, task, FW_TARGET_KIND_CPU))
    return 1;
  for (size_t i = 0; i < s->num_workers; ++i)
    if (fw_worker_can_run(&s->workers[i], task)) return 1;
  return 0;
}

/* ---- Graph --------------------------------------------------------------------- */

fw_task_t *fw_scheduler_graph_task(fw_scheduler_t *s, const char *name, fw_buffer_t *b,
                                   const fw_task_t *first) {
  fw_task_access_t access = {b, FW_ACCESS_READ_WRITE};
  fw_task_t *t = NULL;
  fw_status_t status = fw_task_create(s->runtime, name, &access, 1, &t);
  if (status) {
    fw_status_free(status);
    return NULL;
  }
  t->seq = s->next_seq++;
  t->state = FW_TASK_PENDING;
  t->group = first->group;
  atomic_fetch_add(&t->group->outstanding, 1);
  atomic_fetch_add(&s->outstanding, 1);
  return t;
}

void fw_scheduler_lookahead_append(fw_scheduler_t *s, fw_task_t *t) {
  t->in_lookahead = 1;
  t->lookahead_prev = s->lookahead_tail;
  if (s->lookahead_tail) s->lookahead_tail->lookahead_next = t;
  else s->lookahead_head = t;
  s->lookahead_tail = t;
}

static void lookahead_remove(fw_scheduler_t *s, fw_task_t *t) {
  if (!t->in_lookahead) return;
  if (t->lookahead_prev) t->lookahead_prev->lookahead_next = t->lookahead_next;
  else s->lookahead_head = t->lookahead_next;
  if (t->lookahead_next) t->lookahead_next->lookahead_prev = t->lookahead_prev;
  else s->lookahead_tail = t->lookahead_prev;
  t->lookahead_prev = t->lookahead_next = NULL;
  t->in_lookahead = 0;
}

int fw_task_add_successor(fw_task_t *pred, fw_task_t *succ) {
  for (size_t i = 0; i < pred->num_successors; ++i)
    if (pred->successors[i] == succ) return 1; /* already ordered */
  if (!pred->successors) {
    pred->successors = pred->inline_successors;
    pred->cap_successors = sizeof(pred->inline_successors) / sizeof(pred->inline_successors[0]);
  }
  if (pred->num_successors == pred->cap_successors) {
    size_t cap = pred->cap_successors * 2;
    int inline_now = pred->successors == pred->inline_successors;
    fw_task_t **grown = realloc(inline_now ? NULL : pred->successors, cap * sizeof(*grown));
    if (!grown) return 0;
    if (inline_now) memcpy(grown, pred->successors, pred->num_successors * sizeof(*grown));
    pred->successors = grown;
    pred->cap_successors = cap;
  }
  pred->successors[pred->num_successors++] = succ;
  ++succ->pending;
  return 1;
}

void fw_task_fail_with(fw_task_t *t, fw_status_t status) {
  if (t->status == FW_OK) t->status = status;
  else fw_status_free(status);
}

void fw_task_cancel_with(fw_task_t *t, fw_status_t cause) {
  t->cancelled = 1;
  fw_task_fail_with(t, fw_status_create(fw_status_code(cause), fw_status_message(cause)));
}

void fw_task_cancel_for_memory(fw_task_t *t) {
  t->cancelled = 1;
  fw_task_fail_with(t, fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                                      "task @%s: out of memory recording a dependency",
                                      t->name));
}

void fw_task_depend(fw_task_t *pred, fw_task_t *t) {
  if (pred != t && !fw_task_add_successor(pred, t))
    fw_task_cancel_for_memory(t); /* unordered, it must not run */
}

/* Reader n's slot. */
static fw_task_t **reader_slot(const fw_buffer_t *b, uint64_t n) {
  return &b->readers[n & (b->cap_readers - 1)];
}

/* Makes room for one more reader: the list is renumbered without its NULLs when at most
 * half of it is live (each live reader is told its new number: amortized, one task
 * touched per reader added), and grows otherwise. */
static int reader_room(fw_buffer_t *b) {
  uint64_t span = b->end_readers - b->first_reader;
  if (span < b->cap_readers) return 1;
  size_t cap = !b->cap_readers                           ? 4
               : b->num_readers * 2 <= b->cap_readers ? b->cap_readers
                                                      : b->cap_readers * 2;
  fw_task_t **list = malloc(cap * sizeof(*list));
  if (!list) return 0;
  uint64_t next = b->first_reader;
  for (uint64_t n = b->first_reader; n < b->end_readers; ++n) {
    fw_task_t *t = *reader_slot(b, n);
    if (!t) continue;
    if (next != n)
      for (size_t k = 0; k < t->num_accesses; ++k)
        if (t->accesses[k].buffer == b) t->accesses[k].reader_index = next;
    list[next & (cap - 1)] = t;
    ++next;
  }
  free(b->readers);
  b->readers = list;
  b->cap_readers = cap;
  b->end_readers = next;
  return 1;
}

static int add_reader(fw_buffer_t *b, fw_task_t *t, size_t access) {
  if (!reader_room(b)) return 0;
  t->accesses[access].reader_index = b->end_readers;
  *reader_slot(b, b->end_readers++) = t;
  ++b->num_readers;
  return 1;
}

/* Takes `t` off the readers of `b`, if it is still there (a writer since then cleared
 * the list: its number is then below first_reader). */
static void remove_reader(fw_buffer_t *b, const fw_task_t *t, uint64_t n) {
  if (n < b->first_reader || n >= b->end_readers || *reader_slot(b, n) != t) return;
  *reader_slot(b, n) = NULL;
  --b->num_readers;
  while (b->first_reader < b->end_readers && !*reader_slot(b, b->first_reader))
    ++b->first_reader;
}

void fw_task_depend_on_readers(const fw_buffer_t *b, fw_task_t *t) {
  for (uint64_t n = b->first_reader; n < b->end_readers; ++n)
    if (*reader_slot(b, n)) fw_task_depend(*reader_slot(b, n), t);
}

/* ---- Dependencies ------------------------------------------------------------------- */

/* Sequential consistency per buffer: RAW and WAW on the last writer, WAR on the readers
 * since then; commutative updates as a group (commute.c). The buffer's lists hold unfinished
 * tasks only (completion removes them), so they need no references. Each access that
 * reads notes whose contents it reads, for failures (reads_output_of). */
static void infer_dependencies(fw_scheduler_t *s, fw_task_t *t) {
  t->uses_counted = fw_scheduler_counts_uses(s);
  for (size_t i = 0; i < t->num_accesses; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    fw_access_t mode = t->accesses[i].access;
    if (t->uses_counted)
      atomic_fetch_add_explicit(&b->mem.future_uses, 1, memory_order_relaxed);
    if (b->redux_join) fw_redux_close_group(s, b, NULL);
    if (b->commute_join && !t->accesses[i].commute) fw_commute_close_group(b);
    if ((mode & FW_ACCESS_READ) && b->poisoned) {
      fw_task_cancel_with(t, b->poisoned); /* never runs on garbage */
    }
    t->accesses[i].source =
        (mode & FW_ACCESS_READ) && b->last_writer ? b->last_writer->seq + 1 : 0;
    if (mode == FW_ACCESS_WRITE && b->poisoned) {
      fw_status_free(b->poisoned); /* overwritten: valid again once this task succeeds */
      b->poisoned = FW_OK;
    }
    if (t->accesses[i].commute) {
      fw_commute_join_group(s, t, i);
      continue;
    }
    if (mode == FW_ACCESS_READ) {
      if (b->last_writer) fw_task_depend(b->last_writer, t);
      if (!add_reader(b, t, i)) fw_task_cancel_for_memory(t); /* a later writer would not wait */
      continue;
    }
    if (b->num_readers > 0) {
      /* Every reader already runs after the last writer. */
      fw_task_depend_on_readers(b, t);
      b->first_reader = b->end_readers;
      b->num_readers = 0;
      /* An update in place reads the writer's contents too: ordered after it directly,
       * so that its failure reaches this task (it does not travel past the readers). */
      if (mode == FW_ACCESS_READ_WRITE && b->last_writer) fw_task_depend(b->last_writer, t);
    } else if (b->last_writer) {
      fw_task_depend(b->last_writer, t);
    }
    b->last_writer = t;
  }
  for (uint32_t r = 0; r < t->num_reduces; ++r) fw_redux_join_group(s, t, r);
}

/* The tasks `t` was submitted to run after (fw_task_desc_t.after). One that completed
 * orders nothing, unless it failed: then `t` fails with its error, as the edge would have
 * made it. */
static void depend_on_after(fw_task_t *t) {
  for (size_t i = 0; i < t->num_after; ++i) {
    fw_task_t *pred = t->after[i];
    if (pred->state != FW_TASK_DONE) {
      fw_task_depend(pred, t);
    } else if (pred->status != FW_OK && !t->cancelled) {
      fw_task_cancel_with(t, pred->status);
    }
  }
}

static void forget_accesses(fw_task_t *t) {
  for (size_t i = 0; i < t->num_accesses; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    if (t->uses_counted) /* (never a commutative group's join: infer_dependencies) */
      atomic_fetch_sub_explicit(&b->mem.future_uses, 1, memory_order_relaxed);
    if (b->last_writer == t) b->last_writer = NULL;
    if (t->accesses[i].access == FW_ACCESS_READ)
      remove_reader(b, t, t->accesses[i].reader_index);
  }
}

static void complete_locked(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w);
static void leave_group(fw_scheduler_t *s, fw_task_group_t *group);

/* Starts moving to `node` the inputs of `t` that are not valid there. When they all are
 * (every task placed on a CPU whose inputs a CPU wrote), the clock is not read: that is
 * most placements, each under the scheduler lock. */
static void prefetch_reads(fw_scheduler_t *s, const fw_task_t *t, uint32_t node) {
  fw_memory_t *m = &s->runtime->memory;
  if (!m->prefetch_started) return;
  int timed = 0;
  double need = 0;
  for (size_t i = 0; i < t->num_accesses; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    if (!(t->accesses[i].access & FW_ACCESS_READ) || fw_memory_is_valid_on(b, node)) continue;
    if (!timed) need = fw_scheduler_need(s, t);
    timed = 1;
    fw_memory_prefetch(m, b, node, need);
  }
}

void fw_scheduler_placed(fw_scheduler_t *s, fw_task_t *t) {
  if (t->cancelled) return;
  if (s->simulated) {
    fw_simulator_prefetch(s, t);
    return;
  }
  /* Each placement checks the task's inputs under the scheduler lock: the first touch of
   * its accesses, which the submitting thread wrote. */
  if (fw_scheduler_host_only(s)) return;
  uint32_t node = t->worker ? t->worker->memory_node : FW_NODE_HOST;
  if (fw_scheduler_prefetch_inputs(s, t, node) || node == FW_NODE_HOST) return;
  /* Memory is contended, and the task is to run on a device: its inputs still start
   * moving now, displacing nothing the lookahead window reads (fw_memory_prefetch). The
   * window lists tasks in submission order, and a plan runs a GPU's tasks in another:
   * without these copies the GPU waited for its next task's inputs (in simulation, tiled
   * Cholesky T=24 on two GPUs of 128 MiB ran 10 % longer; docs/performance.md). A host
   * tier under contention is left to the window: every ready task is placed at once
   * under eager and ws, and their copies would evict each other. */
  prefetch_reads(s, t, node);
}

int fw_scheduler_prefetch_inputs(fw_scheduler_t *s, const fw_task_t *t, uint32_t node) {
  fw_memory_t *m = &s->runtime->memory;
  /* Once anything was evicted, memory is contended: prefetching every placed task would
   * evict data the next tasks need, so the lookahead window (in execution order) decides
   * instead. */
  if (!m->prefetch_started || atomic_load_explicit(&m->spilled, memory_order_relaxed)) return 0;
  prefetch_reads(s, t, node);
  return 1;
}

/* Task t completed on `w` (NULL: on no worker). Its successors that a plan placed on
 * another memory node and that still wait for other predecessors get what t wrote for
 * them moving there now: a plan counts on each input leaving as soon as it is made
 * (plan_moves.c), not when the last one is, and when all of them would leave together
 * they would queue on the link behind one another. */
static void forward_to(fw_scheduler_t *s, const fw_task_t *t, const fw_task_t *succ,
                       uint32_t from) {
  /* Commutative updates leave their plans when ready (commute.c). */
  if (succ->pending < 2 || succ->cancelled || succ->num_commute || !succ->plan_worker ||
      succ->plan_worker->lost || succ->plan_worker->memory_node == from)
    return;
  uint32_t node = succ->plan_worker->memory_node;
  for (size_t a = 0; a < succ->num_accesses; ++a) {
    fw_buffer_t *b = succ->accesses[a].buffer;
    if (!(succ->accesses[a].access & FW_ACCESS_READ)) continue;
    int wrote = 0;
    for (size_t i = 0; i < t->num_accesses && !wrote; ++i)
      wrote = t->accesses[i].buffer == b && (t->accesses[i].access & FW_ACCESS_WRITE);
    if (!wrote) continue;
    if (s->simulated) fw_simulator_prefetch_buffer(s, b, node, succ->plan_start);
    else fw_memory_prefetch(&s->runtime->memory, b, node, succ->plan_start);
  }
}

static void forward_outputs(fw_scheduler_t *s, const fw_task_t *t, const fw_worker_t *w) {
  uint32_t from = w ? w->memory_node : FW_NODE_HOST;
  if (t->status != FW_OK) return;
  if (atomic_load_explicit(&s->runtime->memory.spilled, memory_order_relaxed))
    return; /* memory is contended (fw_scheduler_placed) */
  for (size_t k = 0; k < t->num_successors; ++k) {
    const fw_task_t *succ = t->successors[k];
    /* What follows a group gets what its last update to finish wrote (the earlier ones'
     * is overwritten). */
    if (!succ->join) {
      forward_to(s, t, succ, from);
      continue;
    }
    for (size_t j = 0; succ->pending == 1 && j < succ->num_successors; ++j)
      forward_to(s, t, succ->successors[j], from);
  }
}

/* Why no worker can run `t` when some device has its code: its buffers exceed that
 * device's memory (NULL: no device has its code). */
static fw_status_t too_large(const fw_scheduler_t *s, const fw_task_t *t) {
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    if (has_code(w, t) && !fits(w, t))
      return fw_memory_check_fits(&s->runtime->memory, t, w->memory_node);
  }
  return NULL;
}

/* A preferred kind none of whose devices in service can run the task (its code did not
 * load there, or its buffers exceed the device's memory) is preferred no longer: the task
 * may go elsewhere rather than nowhere. */
static void drop_preferences_that_cannot_hold(const fw_scheduler_t *s, fw_task_t *t) {
  uint32_t holding = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    if (((t->prefer_mask >> w->kind) & 1u) && runs_code(w, t) && fits(w, t))
      holding |= 1u << w->kind;
  }
  t->prefer_mask &= holding;
  t->placement_key = fw_task_placement_key(t);
}

/* A device whose capacity fell below the task (its driver refused memory) may have room
 * again: whether one such capacity rose. */
static int regained_for(fw_scheduler_t *s, const fw_task_t *t) {
  int rose = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    if (!w->sim && w->memory_node != FW_NODE_HOST && has_code(w, t) && !fits(w, t))
      rose |= fw_memory_try_regain(&s->runtime->memory, w->memory_node);
  }
  return rose;
}

void fw_scheduler_make_ready(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from) {
  fw_status_t reason;
  if (t->join) {
    /* Nothing to run: completed at once, as an orphan is. Its updates are done, so an
     * update submitted from now on opens a group of its own (joining this one, it would
     * make it ready a second time). */
    fw_buffer_t *b = t->accesses[0].buffer;
    if (b->commute_join == t) b->commute_join = NULL;
    t->state = FW_TASK_RUNNING;
    t->next_orphan = s->orphans;
    s->orphans = t;
    return;
  }
  if (t->num_commute && !fw_commute_take_buffers(t)) return; /* waits for a buffer */
  if (t->reduction && fw_redux_group_done(s, t, from)) return; /* waits for its pairs */
  t->state = FW_TASK_READY;
  if (t->prefer_mask) drop_preferences_that_cannot_hold(s, t);
  if (s->simulated) fw_simulator_released(s, t);
  if (s->policy->push(s, t, from) || (regained_for(s, t) && s->policy->push(s, t, from))) {
    atomic_fetch_add_explicit(&s->num_ready, 1, memory_order_release);
    return;
  }
  if (fw_scheduler_can_run(s, t)) {
    fw_task_fail_with(t, fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                                "task @%s: out of memory queueing it", t->name));
  } else if ((reason = too_large(s, t))) {
    fw_task_fail_with(t, reason);
  } else {
    static const char *const kKinds[] = {"", "cpu", "cuda", "hip"};
    char kinds[64] = "";
    for (unsigned k = 1; k < 4; ++k)
      if ((t->kind_mask >> k) & 1u)
        snprintf(kinds + strlen(kinds), sizeof(kinds) - strlen(kinds), "%s%s",
                 kinds[0] ? ", " : "", kKinds[k]);
    uint32_t lost = 0; /* devices that could have run it, out of service */
    for (size_t i = 0; i < s->num_workers; ++i)
      lost += s->workers[i].lost && ((t->kind_mask >> s->workers[i].kind) & 1u);
    fw_task_fail_with(t, fw_status_make(FW_STATUS_UNSUPPORTED,
                                "task @%s: no device here can run it (it runs on: %s)%s", t->name,
                                kinds[0] ? kinds : "nothing",
                                lost ? "; the devices of those kinds were taken out of service "
                                       "after failing"
                                     : ""));
  }
  (void)from;
  t->cancelled = 1;
  t->state = FW_TASK_RUNNING;
  lookahead_remove(s, t);
  t->next_orphan = s->orphans;
  s->orphans = t;
}

static int complete_task(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                         fw_status_t status, fw_task_t **out_next);

/* ---- The lock and staged submissions ------------------------------------------- */

/* Adds a submitted task to the graph (lock held). */
static void insert_locked(fw_scheduler_t *s, fw_task_t *task) {
  task->seq = s->next_seq++;
  task->state = FW_TASK_PENDING;
  task->pending = 1; /* the submission itself */
  ++s->tasks_submitted;
  /* Before the reduction tasks the inference makes for it, which come after it. */
  fw_scheduler_lookahead_append(s, task);
  infer_dependencies(s, task);
  if (task->num_after) depend_on_after(task);
  if (!task->staged_hold && --task->pending == 0) fw_scheduler_make_ready(s, task, NULL);
}

/* Moves the staged submissions into the graph, oldest first (lock held). */
static void drain_staged(fw_scheduler_t *s) {
  if (!atomic_load(&s->staged)) return;
  fw_task_t *newest = atomic_exchange(&s->staged, NULL);
  fw_task_t *oldest = NULL;
  while (newest) { /* the list is newest first: reverse it */
    fw_task_t *next = newest->next_staged;
    newest->next_staged = oldest;
    oldest = newest;
    newest = next;
  }
  /* Placing each task as it comes would look over the ready ones once per task. */
  int several = oldest->next_staged != NULL && s->policy->settle;
  s->inserting = several;
  while (oldest) {
    fw_task_t *next = oldest->next_staged;
    oldest->next_staged = NULL;
    insert_locked(s, oldest);
    oldest = next;
  }
  if (several) {
    s->inserting = 0;
    s->policy->settle(s);
  }
}

/* FW_RUNTIME_LOCK_STATS (cmake -DFW_RUNTIME_LOCK_STATS=ON): the time the lock is held,
 * which bounds how many tasks a second any number of workers complete; printed when the
 * scheduler goes (fw_scheduler_fini). Two clock readings per acquisition: off unless
 * asked for. */
#ifdef FW_RUNTIME_LOCK_STATS
static void lock_taken(fw_scheduler_t *s) {
  s->lock_since_ns = fw_now_ns();
  ++s->lock_acquisitions;
}
static void lock_releasing(fw_scheduler_t *s) {
  s->lock_held_ns += fw_now_ns() - s->lock_since_ns;
}
#else
static void lock_taken(fw_scheduler_t *s) { (void)s; }
static void lock_releasing(fw_scheduler_t *s) { (void)s; }
#endif

void fw_sched_lock(fw_scheduler_t *s) {
  pthread_mutex_lock(&s->lock);
  lock_taken(s);
  drain_staged(s);
}

/* Lets the lock go; when a submission was staged meanwhile and the lock is free again,
 * takes it back to insert it (a submitter that found the lock taken counts on that).
 * Returns whether orphans are waiting. The fence pairs with the submitter's: either it
 * sees the lock free, or this sees its task. */
static int unlock_and_drain(fw_scheduler_t *s) {
  int orphans = 0;
  for (;;) {
    orphans |= s->orphans != NULL;
    lock_releasing(s);
    pthread_mutex_unlock(&s->lock);
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&s->staged, memory_order_relaxed) ||
        pthread_mutex_trylock(&s->lock) != 0)
      return orphans;
    lock_taken(s);
    drain_staged(s);
  }
}

/* Completes the orphans (lock not held). Completing one may orphan its successors. */
static void flush_orphans(fw_scheduler_t *s) {
  for (;;) {
    fw_sched_lock(s);
    fw_task_t *t = s->orphans;
    s->orphans = NULL;
    int more = unlock_and_drain(s);
    if (!t && !more) return;
    while (t) {
      fw_task_t *next = t->next_orphan;
      (void)complete_task(s, t, NULL, FW_OK, NULL);
      t = next;
    }
  }
}

void fw_sched_unlock(fw_scheduler_t *s) {
  if (unlock_and_drain(s)) flush_orphans(s);
}

void fw_scheduler_submit(fw_scheduler_t *s, fw_task_t *task, fw_task_group_t *group, int hold) {
  fw_task_retain(task); /* the graph's reference, dropped after completion */
  task->placement_key = fw_task_placement_key(task);
  task->reads_buffer = 0;
  for (size_t i = 0; i < task->num_accesses; ++i)
    task->reads_buffer |= (task->accesses[i].access & FW_ACCESS_READ) != 0;
  task->group = group;
  task->staged_hold = hold;
  atomic_fetch_add(&group->outstanding, 1);
  atomic_fetch_add(&s->outstanding, 1);
  fw_task_t *head = atomic_load_explicit(&s->staged, memory_order_relaxed);
  do task->next_staged = head;
  while (!atomic_compare_exchange_weak(&s->staged, &head, task));
  if (s->simulated) { /* no workers to contend with: at once */
    fw_sched_lock(s);
    fw_sched_unlock(s);
    return;
  }
  /* Staged behind another submission: whatever inserts that one inserts this one too (a
   * list is always taken whole). */
  if (head) return;
  /* Taken: its holder inserts the task when it lets go. */
  atomic_thread_fence(memory_order_seq_cst);
  if (pthread_mutex_trylock(&s->lock) != 0) return;
  lock_taken(s);
  drain_staged(s);
  fw_sched_unlock(s);
}

static void raise_to_rank(void *longest, fw_task_t *succ) {
  if (succ->rank > *(double *)longest) *(double *)longest = succ->rank;
}

/* Average expected time over the workers that can run the task. */
static double average_estimate(fw_scheduler_t *s, const fw_task_t *t) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    if (!fw_worker_can_run(w, t)) continue;
    sum += fw_scheduler_estimate(s, t, w);
    ++n;
  }
  return n ? sum / (double)n : 0;
}

void fw_scheduler_rank(fw_scheduler_t *s, fw_task_t *t) {
  double longest = 0;
  fw_task_visit_successors(t, raise_to_rank, &longest);
  t->rank = average_estimate(s, t) + longest;
}

void fw_scheduler_release_held(fw_scheduler_t *s, fw_task_t *const *tasks, size_t count,
                               int caller_waits) {
  fw_sched_lock(s);
  /* Only when nothing else is ready: then the worker left asleep has only tasks of the
   * caller's, which it waits for and runs (spin_until) or which wake their workers as they
   * become ready. */
  s->spare_wake = caller_waits && atomic_load(&s->num_ready) == 0 && fw_engine_may_help(s);
  /* Successors were submitted later, so a reverse walk sees them first. */
  for (size_t i = count; i-- > 0;) fw_scheduler_rank(s, tasks[i]);
  if (s->policy->plan && count > 1) s->policy->plan(s, tasks, count);
  for (size_t i = 0; i < count; ++i)
    if (--tasks[i]->pending == 0) fw_scheduler_make_ready(s, tasks[i], NULL);
  s->spare_wake = 0;
  fw_sched_unlock(s);
}

void fw_scheduler_start_task(fw_scheduler_t *s, fw_task_t *t) {
  atomic_fetch_sub_explicit(&s->num_ready, 1, memory_order_relaxed);
  t->state = FW_TASK_RUNNING;
  lookahead_remove(s, t);
  /* An update that took its buffers before another of its group failed runs no more. */
  if (t->holds_buffers && !t->cancelled) fw_commute_cancel_after_failure(t);
}

void fw_scheduler_unplan(fw_task_t *t) {
  fw_worker_t *w = t->plan_worker;
  if (!w || t->plan_slot >= w->plan_len || w->plan[t->plan_slot] != t) return;
  w->plan[t->plan_slot] = NULL;
  /* It may have been what the worker held its queue back for. */
  if (w->heap.size && !w->lost && !w->running) fw_scheduler_notify(w->sched, w);
}

/* Whether `succ` (a successor of `t`) reads contents `t` was to write, or was named to
 * run after it: what a failure of `t` cancels. A successor that only overwrites what `t`
 * wrote, or only writes what `t` read, still runs. */
static int reads_output_of(const fw_task_t *succ, const fw_task_t *t) {
  for (size_t i = 0; i < succ->num_accesses; ++i)
    if ((succ->accesses[i].access & FW_ACCESS_READ) && succ->accesses[i].source == t->seq + 1)
      return 1;
  for (size_t i = 0; i < succ->num_after; ++i)
    if (succ->after[i] == t) return 1;
  return 0;
}

/* A failed task: what it was to write is garbage for the tasks submitted from now on that
 * read it, where no later task writes it (those submitted before are its successors and
 * are cancelled by complete_locked; a later writer's own outcome decides). Called before
 * the buffers forget it. */
static void poison_outputs(fw_task_t *t) {
  for (size_t i = 0; i < t->num_accesses; ++i) {
    const fw_task_access_internal_t *a = &t->accesses[i];
    fw_buffer_t *b = a->buffer;
    if (!(a->access & FW_ACCESS_WRITE)) continue;
    if (a->commute) fw_commute_note_failure(b, a->commute_group, t->status);
    /* The last to write it: its last writer, or an update of the group still open (once
     * the group is closed, its join fails with this error and poisons it). */
    int last = b->last_writer == t ||
               (a->commute && b->commute_join && a->commute_group == b->commute_group);
    if (!last || b->poisoned) continue;
    b->poisoned = fw_status_create(fw_status_code(t->status), fw_status_message(t->status));
  }
}

static void complete_locked(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w) {
  t->state = FW_TASK_DONE; /* `done` follows in finish_unlocked, after its on_done */
  fw_scheduler_unplan(t);
  if (t->status != FW_OK) {
    s->tasks_failed += !t->join;
    poison_outputs(t);
    if (t->group->status == FW_OK)
      t->group->status = fw_status_create(fw_status_code(t->status), fw_status_message(t->status));
  }
  if (t->join && s->simulated) fw_simulator_pass_on(s, t);
  /* Before its successors: both may add a pair task before the reduction task. */
  if (t->num_reduces) fw_redux_contribution_done(s, t, w);
  else if (fw_redux_is_pair(t)) fw_redux_pair_done(s, t, w);
  fw_commute_let_buffers_go(s, t, w);
  forget_accesses(t);
  if (!t->join) forward_outputs(s, t, w);
  fw_trace_t *trace = &s->runtime->trace;
  for (size_t k = 0; k < t->num_successors; ++k) {
    fw_task_t *succ = t->successors[k];
    /* A join is not in the trace: its updates' edges go to its successors. */
    if (trace->enabled && !succ->join) {
      if (!t->join)
        fw_trace_add_edge(trace, fw_trace_task_id(t->seq), fw_trace_task_id(succ->seq));
      for (size_t m = 0; m < t->num_members; ++m)
        fw_trace_add_edge(trace, fw_trace_task_id(t->members[m]), fw_trace_task_id(succ->seq));
    }
    /* A failed update fails its group's join, and so what follows the group and reads;
     * a failed contribution, its reduction. */
    if (t->status != FW_OK && !succ->cancelled &&
        (succ->join || reads_output_of(succ, t) || fw_redux_contributes_to(t, succ))) {
      fw_task_cancel_with(succ, t->status);
    }
    if (--succ->pending == 0) fw_scheduler_make_ready(s, succ, w);
  }
}

static void leave_group(fw_scheduler_t *s, fw_task_group_t *group) {
  void (*on_done)(void *) = group->on_done;
  void *done_arg = group->done_arg;
  int group_done = atomic_fetch_sub(&group->outstanding, 1) == 1;
  size_t left = atomic_fetch_sub(&s->outstanding, 1) - 1;
  fw_scheduler_wake_waiters(s, group_done, left == 0, left);
  if (group_done && on_done) on_done(done_arg);
}

void fw_scheduler_group_hold(fw_task_group_t *group) {
  atomic_fetch_add(&group->outstanding, 1);
}

void fw_scheduler_group_release(fw_scheduler_t *s, fw_task_group_t *group) {
  void (*on_done)(void *) = group->on_done;
  void *done_arg = group->done_arg;
  if (atomic_fetch_sub(&group->outstanding, 1) != 1) return;
  fw_scheduler_wake_waiters(s, 1, 0, SIZE_MAX);
  if (on_done) on_done(done_arg);
}

void fw_scheduler_complete(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                           fw_status_t status) {
  if (complete_task(s, task, w, status, NULL)) flush_orphans(s);
}

/* Whether two tasks run the same body on the same amount of data: a deferred completion
 * never waits behind a task that may run much longer than the ones before. Names are
 * told by their hashes, which lie with the fields read under the lock: the names
 * themselves lie at the end of the task, one more line the submitting thread wrote
 * (refill_batch asks this of every task it pops). */
static int like_task(const fw_task_t *a, const fw_task_t *b) {
  return a->name_hash == b->name_hash && fw_task_bytes(a) == fw_task_bytes(b) &&
         a->fn == b->fn && a->executable == b->executable && a->module == b->module;
}

fw_task_t *fw_scheduler_complete_and_next(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                                          fw_status_t status) {
  if (task->end_ns) w->last_task_ns = task->end_ns - task->start_ns;
  if (w->batch_head < w->batch_len && status == FW_OK && !task->cancelled &&
      w->num_deferred < FW_BATCH_MAX && like_task(task, w->batch[w->batch_head])) {
    /* More of the batch to run, and the next one is like this one (so presumably as
     * short): complete this one with the next lock taking, unless the oldest deferred
     * completion has waited long enough. */
    uint64_t now = task->end_ns ? task->end_ns : fw_now_ns();
    if (w->num_deferred == 0) w->deferred_since = now;
    if (now - w->deferred_since < FW_DEFER_NS) {
      w->deferred[w->num_deferred++] = task;
      return w->batch[w->batch_head++];
    }
  }
  fw_task_t *next = NULL;
  if (complete_task(s, task, w, status, &next)) flush_orphans(s);
  return next;
}

/* ---- GPU failures ---------------------------------------------------------------- */

int fw_scheduler_can_rerun(fw_scheduler_t *s, const fw_task_t *t, const fw_worker_t *w) {
  /* A contribution whose work on a GPU's accumulator failed (its launch went through) may
   * have written it: run again elsewhere, its part could count twice (and a fault loses
   * the GPU's accumulator anyway). */
  for (uint32_t r = 0; r < t->num_reduces; ++r)
    if (t->reduces[r].data) return 0;
  int any = 0;
  fw_sched_lock(s);
  for (size_t i = 0; i < s->num_workers && !any; ++i) {
    const fw_worker_t *o = &s->workers[i];
    any = o->device_index != w->device_index && runs_code(o, t) && fits(o, t);
  }
  fw_sched_unlock(s);
  return any;
}

int fw_scheduler_trace_failure(fw_scheduler_t *s, const fw_task_t *t, const fw_worker_t *w,
                               fw_status_t status, uint64_t start_ns, uint64_t end_ns) {
  int rerun = fw_scheduler_can_rerun(s, t, w);
  fw_trace_t *trace = &s->runtime->trace;
  fw_trace_add_detail(trace, w->index, rerun ? "failed, runs elsewhere" : "failed",
                      fw_status_message(status), start_ns, end_ns);
  return rerun;
}

void fw_scheduler_launch_succeeded(fw_worker_t *w) { w->failures = 0; }

/* Notes which workers are in service: their kinds, memory nodes, and whether they are all
 * alike. */
static void note_service(fw_scheduler_t *s) {
  uint32_t kinds = 0, nodes = 0, run = 0; /* run: the alike_end of those seen, 0: none */
  int alike = 1;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    if (w->lost) continue;
    kinds |= 1u << w->kind;
    nodes |= 1u << w->memory_node;
    if (run && w->alike_end != run) alike = 0;
    run = w->alike_end;
  }
  /* The kinds stored at once: never one missing meanwhile. */
  atomic_store_explicit(&s->kind_mask, kinds, memory_order_relaxed);
  s->service_nodes = nodes;
  s->service_alike = alike;
}

static int stranded(const void *s, const fw_task_t *t) {
  return !fw_scheduler_can_run((const fw_scheduler_t *)s, t);
}

/* Takes the tasks out of a queue the workers share that no device left in service can run,
 * and fails them (make_ready: no policy takes them), rather than leave them there for
 * good with their waiters (sched.lock held). */
static void fail_stranded(fw_scheduler_t *s, fw_task_heap_t *h) {
  fw_task_t *t;
  while ((t = fw_task_heap_pop_if(h, stranded, s))) {
    atomic_fetch_sub_explicit(&s->num_ready, 1, memory_order_relaxed);
    t->worker = NULL;
    fw_scheduler_make_ready(s, t, NULL);
  }
}

/* Takes `w` out of service (sched.lock held): the tasks queued on it go back to the
 * policy, those only it could run fail, and every worker looks again (a CPU worker may
 * now run tasks that preferred the lost device). */
static void lose_worker(fw_scheduler_t *s, fw_worker_t *w) {
  w->lost = 1;
  ++s->devices_lost;
  note_service(s);
  fw_task_t *t;
  while ((t = fw_task_heap_pop(&w->heap)) || (t = fw_task_deque_pop_back(&w->deque))) {
    atomic_fetch_sub_explicit(&s->num_ready, 1, memory_order_relaxed);
    t->worker = NULL;
    fw_scheduler_make_ready(s, t, NULL);
  }
  fail_stranded(s, &s->ready);
  fail_stranded(s, &s->alike_pool);
  w->queued_seconds = 0;
  for (size_t i = 0; i < s->num_workers; ++i)
    if (&s->workers[i] != w && !s->workers[i].lost) fw_scheduler_notify(s, &s->workers[i]);
}

/* fw_scheduler_rerun_and_next; with `pop` 0, pops nothing and returns NULL. */
static fw_task_t *rerun(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w, fw_status_t status,
                        int pop) {
  /* Running out of device memory says nothing about the device's health. */
  int counts = fw_status_code(status) != FW_STATUS_RESOURCE_EXHAUSTED;
  fw_sched_lock(s);
  ++s->tasks_rerun;
  t->gpu_mask &= ~(1u << w->device_index);
  int same_kind = 0;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *o = &s->workers[i];
    if (o->kind == w->kind && ((t->gpu_mask >> o->device_index) & 1u)) same_kind = 1;
  }
  if (!same_kind) t->kind_mask &= ~(1u << w->kind);
  t->prefer_mask &= t->kind_mask;
  t->placement_key = fw_task_placement_key(t);
  t->worker = NULL;
  w->running = w->in_flight > 0;
  if (counts && ++w->failures >= FW_GPU_MAX_FAILURES && !w->lost) lose_worker(s, w);
  /* When nothing can take it after all, it fails with what happened here, not with why
   * no device is left (make_ready keeps the first error). A preference no device in service
   * can meet goes first, as make_ready drops it: the CPU may take the task then. */
  if (t->prefer_mask) drop_preferences_that_cannot_hold(s, t);
  if (fw_scheduler_can_run(s, t)) fw_status_free(status);
  else fw_task_fail_with(t, status);
  fw_scheduler_make_ready(s, t, NULL);
  fw_task_t *next = s->shutdown || !pop ? NULL : fw_scheduler_pop_locked(s, w);
  fw_sched_unlock(s);
  return next;
}

fw_task_t *fw_scheduler_rerun_and_next(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w,
                                       fw_status_t status) {
  return rerun(s, t, w, status, 1);
}

void fw_scheduler_rerun(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w, fw_status_t status) {
  (void)rerun(s, t, w, status, 0);
}

fw_task_t *fw_scheduler_pop_locked(fw_scheduler_t *s, fw_worker_t *w) {
  w->notified = 0; /* it looks now */
  if (w->handoff) { /* popped by the thread it was lent to: started, and still running */
    fw_task_t *t = w->handoff;
    w->handoff = NULL;
    return t;
  }
  fw_task_t *t = s->policy->pop(s, w);
  if (!t) return NULL;
  fw_scheduler_start_task(s, t);
  w->running = 1;
  return t;
}

fw_task_t *fw_scheduler_pop(fw_scheduler_t *s, fw_worker_t *w) {
  fw_sched_lock(s);
  fw_task_t *t = s->shutdown ? NULL : fw_scheduler_pop_locked(s, w);
  fw_sched_unlock(s);
  return t;
}

/* The part of completing `task` (run by `w`, NULL for an orphan) under the lock. */
static void finish_locked(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                          fw_status_t status) {
  if (status != FW_OK) fw_task_fail_with(task, status);
  else if (!task->cancelled && !task->join) ++s->tasks_executed;
  if (w && !s->simulated && task->end_ns) {
    ++w->tasks;
    w->busy_ns += task->end_ns - task->start_ns;
  }
  complete_locked(s, task, w);
}

/* The part after the lock: drops the buffers, the module and the graph's reference to the
 * task (which holds the runtime) before the call is seen complete, so that a caller who
 * releases its own references right after waiting frees them at once, and the runtime is
 * torn down by its fw_runtime_destroy rather than later on a thread of its own. */
static void finish_unlocked(fw_scheduler_t *s, fw_task_t *task) {
  if (task->on_done) fw_engine_call_on_done(task);
  /* Sequentially consistent, as a sleeping waiter's look (fw_scheduler_wait_task) and the
   * wake-up in leave_group below are. */
  atomic_store(&task->done, 1);
  for (size_t i = 0; i < task->num_accesses; ++i) fw_buffer_release(task->accesses[i].buffer);
  task->num_accesses = 0;
  fw_redux_release_contributions(task); /* nor the buffers it contributed to */
  fw_task_release_after(task);
  fw_module_t *module = task->module;
  task->module = NULL;
  fw_module_release(module);
  fw_task_group_t *group = task->group;
  /* May free the task. A teardown this starts (on its own thread: this is a worker, or a
   * caller that still holds a reference) waits for the group below before it goes on. */
  fw_task_release(task);
  leave_group(s, group);
}

/* Pops more tasks for a CPU worker whose tasks are short (lock held), up to its share of
 * the ready ones, to run after `next` when `next` is like the task it just ran (`done`,
 * short): tasks like it, presumably as short, and at most one of another kind, last,
 * which may run longer. Nothing in a batch waits behind a task that may run longer than
 * those before it (a task batched behind a long one waited for all of it while other
 * workers idled). */
static void refill_batch(fw_scheduler_t *s, fw_worker_t *w, const fw_task_t *done,
                         const fw_task_t *next) {
  w->batch_head = w->batch_len = 0;
  if (w->kind != FW_TARGET_KIND_CPU || w->last_task_ns >= FW_SHORT_TASK_NS ||
      !like_task(next, done))
    return;
  size_t share = atomic_load_explicit(&s->num_ready, memory_order_relaxed) / s->num_workers;
  if (share > FW_BATCH_MAX) share = FW_BATCH_MAX;
  while (w->batch_len < share) {
    fw_task_t *t = s->policy->pop(s, w);
    if (!t) break;
    fw_scheduler_start_task(s, t);
    w->batch[w->batch_len++] = t;
    if (!like_task(t, next)) break;
  }
}

/* The completions worker `w` (or NULL) deferred: both parts. */
static void finish_deferred_locked(fw_scheduler_t *s, fw_worker_t *w) {
  for (uint32_t i = 0; w && i < w->num_deferred; ++i)
    finish_locked(s, w->deferred[i], w, FW_OK);
}

static void finish_deferred_unlocked(fw_scheduler_t *s, fw_worker_t *w) {
  if (!w) return;
  for (uint32_t i = 0; i < w->num_deferred; ++i) finish_unlocked(s, w->deferred[i]);
  w->num_deferred = 0;
}

/* Returns whether orphans are waiting. With `w`, also completes the worker's deferred
 * tasks; with `out_next`, also gives it its next task in the same critical section (one
 * lock round trip per task, or per batch, on a busy worker). */
static int complete_task(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                         fw_status_t status, fw_task_t **out_next) {
  fw_sched_lock(s);
  int more = w && w->batch_head < w->batch_len;
  /* Idle for the successors placed below, unless it has a batch or kernels in flight. */
  int busy = w && (more || w->in_flight > 0);
  if (w) w->running = busy;
  finish_deferred_locked(s, w);
  finish_locked(s, task, w, status);
  if (w && s->policy == &fw_policy_heft && (busy || w->heap.size == 0)) {
    double now = fw_scheduler_now(s);
    if (w->heap.size == 0 && !busy) w->expected_free_at = now; /* an empty queue drains now */
    if (busy) { /* what it still runs (a batch, kernels in flight) is late from now on */
      double done = task->expected_seconds; /* and the batch's deferred completions */
      for (uint32_t i = 0; i < w->num_deferred; ++i) done += w->deferred[i]->expected_seconds;
      w->busy_since = now;
      w->busy_expected = w->busy_expected > done ? w->busy_expected - done : 0;
    }
  }
  if (out_next) {
    if (more) {
      *out_next = w->batch[w->batch_head++];
    } else {
      *out_next = s->shutdown ? NULL : fw_scheduler_pop_locked(s, w);
      if (*out_next) refill_batch(s, w, task, *out_next);
    }
  }
  int orphans = unlock_and_drain(s);
  finish_deferred_unlocked(s, w);
  finish_unlocked(s, task);
  return orphans;
}

size_t fw_scheduler_lookahead(fw_scheduler_t *s, uint32_t window, fw_buffer_t **buffers,
                              uint32_t *nodes, uint32_t *positions, size_t max) {
  size_t count = 0;
  fw_sched_lock(s);
  uint32_t seen = 0;
  for (fw_task_t *t = s->lookahead_head; t && seen < window; t = t->lookahead_next, ++seen) {
    uint32_t node = t->worker ? t->worker->memory_node : FW_NODE_HOST;
    for (size_t i = 0; i < t->num_accesses && count < max; ++i) {
      if (!(t->accesses[i].access & FW_ACCESS_READ)) continue;
      fw_buffer_t *b = t->accesses[i].buffer;
      /* Those already in place too: the pass marks every buffer the window reads, so that
       * its prefetches do not evict one of them to make room for another. */
      fw_buffer_retain(b);
      atomic_fetch_add_explicit(&s->runtime->memory.prefetch_refs, 1, memory_order_relaxed);
      buffers[count] = b;
      positions[count] = seen;
      nodes[count++] = node;
    }
  }
  fw_sched_unlock(s);
  return count;
}

/* ---- Estimates ----------------------------------------------------------------- */

/* Nominal speeds of one CPU worker for tasks without history. */
#define FW_CPU_NOMINAL_GFLOPS 8.0
#define FW_CPU_NOMINAL_GBPS 8.0
#define FW_STORAGE_NOMINAL_GBPS 2.0
/* A GPU without history: what our generic kernels reach on a recent part (per SM or
 * CU, and its memory), a launch, and the host link (PCIe 4 x16). */
#define FW_GPU_NOMINAL_GFLOPS_PER_UNIT 100.0
#define FW_GPU_NOMINAL_GBPS 1000.0
#define FW_GPU_LAUNCH_SECONDS 10e-6
#define FW_LINK_NOMINAL_GBPS 16.0
#define FW_UNKNOWN_TASK_SECONDS 1e-6

uint64_t fw_task_bytes(const fw_task_t *t) {
  return t->history_bytes ? t->history_bytes : t->data_bytes;
}

static double kernel_speed(const fw_sim_device_t *d, const char *name) {
  for (size_t i = 0; i < d->num_kernel_speeds; ++i)
    if (d->kernel_names[i] && strcmp(d->kernel_names[i], name) == 0)
      return d->kernel_speeds[i] > 0 ? d->kernel_speeds[i] : 1.0;
  return 1.0;
}

double fw_sim_task_seconds(const fw_sim_device_t *d, const fw_task_t *t, fw_history_t *history,
                           int *measured) {
  double median;
  int from_history = d->history_speed > 0 && history &&
                     fw_history_estimate(history, t->name, d->kind, fw_task_bytes(t), &median);
  if (measured) *measured = from_history;
  if (from_history) return median / d->history_speed + d->task_overhead_us * 1e-6;
  double bytes = t->bytes > 0 ? t->bytes : (double)fw_task_bytes(t);
  double speed = kernel_speed(d, t->name);
  double compute = d->gflops > 0 ? t->flops / (d->gflops * 1e9 * speed) : 0;
  double memory = d->memory_gbps > 0 ? bytes / (d->memory_gbps * 1e9 * speed) : 0;
  double seconds = compute > memory ? compute : memory;
  return seconds + d->task_overhead_us * 1e-6;
}

double fw_sim_hop_seconds(const fw_sim_device_t *d, uint64_t bytes) {
  double gbps = d->link_gbps > 0 ? d->link_gbps : FW_SIM_DEFAULT_LINK_GBPS;
  return d->link_latency_us * 1e-6 + (double)bytes / (gbps * 1e9);
}

double fw_scheduler_estimate(fw_scheduler_t *s, const fw_task_t *t, const fw_worker_t *w) {
  if (w->sim) return fw_sim_task_seconds(w->sim, t, &s->runtime->history, NULL);
  fw_history_t *history = &s->runtime->history;
  double seconds, ratio;
  if (fw_history_estimate(history, t->name, w->kind, fw_task_bytes(t), &seconds))
    return seconds;
  seconds = fw_scheduler_model_seconds(s, t, w);
  /* A size class not seen yet: the model, as far off as it was for the nearest ones. */
  if (fw_history_model_ratio(history, t->name, w->kind, fw_task_bytes(t), &ratio))
    seconds *= ratio;
  return seconds;
}

double fw_scheduler_model_seconds(fw_scheduler_t *s, const fw_task_t *t, const fw_worker_t *w) {
  double seconds;
  double bytes = t->bytes > 0 ? t->bytes : (double)fw_task_bytes(t);
  double gflops = FW_CPU_NOMINAL_GFLOPS, gbps = FW_CPU_NOMINAL_GBPS, overhead = 0;
  if (w->kind != FW_TARGET_KIND_CPU) {
    uint32_t units = s->runtime->device_info[w->device_index].compute_units;
    gflops = FW_GPU_NOMINAL_GFLOPS_PER_UNIT * (units ? units : 1);
    gbps = FW_GPU_NOMINAL_GBPS;
    overhead = FW_GPU_LAUNCH_SECONDS;
  }
  double compute = t->flops / (gflops * 1e9);
  double memory = bytes / (gbps * 1e9);
  seconds = (compute > memory ? compute : memory) + overhead;
  return seconds > 0 ? seconds : FW_UNKNOWN_TASK_SECONDS;
}

double fw_scheduler_transfer_estimate(fw_scheduler_t *s, const fw_task_t *t,
                                      const fw_worker_t *w) {
  if (fw_scheduler_host_only(s)) return 0; /* every input is in host memory, or nowhere yet */
  double seconds = 0;
  for (size_t i = 0; i < t->num_accesses; ++i) {
    const fw_buffer_t *b = t->accesses[i].buffer;
    if (!(t->accesses[i].access & FW_ACCESS_READ) || fw_memory_is_valid_on(b, w->memory_node))
      continue;
    /* Up to host memory first when it is not there: from a device, over that device's
     * link (a copy between devices goes through host memory), or from storage (which a
     * simulation does not have). */
    unsigned mask = atomic_load_explicit(&b->mem.valid_mask, memory_order_relaxed);
    unsigned devices = mask & ~((1u << FW_NODE_HOST) | (1u << FW_NODE_STORAGE));
    if (!(mask & (1u << FW_NODE_HOST))) {
      const fw_worker_t *from = devices ? s->node_worker[__builtin_ctz(devices)] : NULL;
      if (from) seconds += fw_scheduler_hop_seconds(from, b->byte_size);
      else if ((mask & (1u << FW_NODE_STORAGE)) && !w->sim)
        seconds += (double)b->byte_size / (FW_STORAGE_NOMINAL_GBPS * 1e9);
    }
    /* Then down its own link. */
    if (w->memory_node != FW_NODE_HOST) seconds += fw_scheduler_hop_seconds(w, b->byte_size);
  }
  return seconds;
}

double fw_scheduler_hop_seconds(const fw_worker_t *w, uint64_t bytes) {
  if (w->sim) return fw_sim_hop_seconds(w->sim, bytes);
  /* The rate the link's copies got, once it is measured (the two bytes counts are read
   * apart: a copy that lands in between moves the rate by a hair). */
  double gbps = fw_memory_link_gbps(&w->sched->runtime->memory, w->memory_node);
  return (double)bytes / ((gbps > 0 ? gbps : FW_LINK_NOMINAL_GBPS) * 1e9);
}

double fw_scheduler_link_seconds(const fw_worker_t *from, const fw_worker_t *to,
                                 uint64_t bytes) {
  uint32_t a = from ? from->memory_node : FW_NODE_HOST, b = to->memory_node;
  if (a == b || bytes == 0) return 0;
  double seconds = 0;
  if (a != FW_NODE_HOST) seconds += fw_scheduler_hop_seconds(from, bytes);
  if (b != FW_NODE_HOST) seconds += fw_scheduler_hop_seconds(to, bytes);
  return seconds;
}

/* ---- Setup --------------------------------------------------------------------- */

/* The scheduler lock is taken by the submitting thread and by every worker, for a few
 * hundred nanoseconds at a time. Where the C library has one, it is an adaptive mutex: a
 * thread that finds it taken spins a little before sleeping in the kernel, which saves
 * the sleep and wake-up round trip under contention. */
static void init_scheduler_lock(pthread_mutex_t *lock) {
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
  pthread_mutexattr_t attr;
  if (pthread_mutexattr_init(&attr) == 0) {
    int ok = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP) == 0 &&
             pthread_mutex_init(lock, &attr) == 0;
    pthread_mutexattr_destroy(&attr);
    if (ok) return;
  }
#endif
  pthread_mutex_init(lock, NULL);
}

fw_status_t fw_scheduler_init(fw_runtime_t *rt, fw_scheduler_t *s) {
  memset(s, 0, sizeof(*s));
  s->runtime = rt;
  s->count_uses = fw_memory_may_evict(&rt->memory);
  s->host_only = !s->count_uses && rt->memory.num_nodes <= 2; /* host and storage */
  s->host_armed = &rt->memory.nodes[FW_NODE_HOST].armed;
  fw_task_pool_init(&s->task_pool);
  init_scheduler_lock(&s->lock);
  pthread_mutex_init(&s->done_lock, NULL);
  pthread_cond_init(&s->done_cv, NULL);
  switch (rt->scheduler) {
  case FW_SCHEDULER_EAGER: s->policy = &fw_policy_eager; break;
  case FW_SCHEDULER_WS: s->policy = &fw_policy_ws; break;
  default: s->policy = &fw_policy_heft; break;
  }
  s->host_cores = rt->device_info[0].compute_units; /* the CPU device's: fw_host_cpus */
  const fw_sim_machine_t *machine = rt->options.simulate;
  size_t n = 0;
  if (machine) {
    s->simulated = 1;
    for (size_t d = 0; d < machine->num_devices; ++d) n += machine->devices[d].workers;
  } else {
    n = rt->num_workers + (rt->num_devices - 1);
  }
  s->workers = calloc(n ? n : 1, sizeof(*s->workers));
  if (!s->workers) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  s->num_workers = n;
  size_t k = 0;
  if (machine) {
    for (size_t d = 0; d < machine->num_devices; ++d)
      for (uint32_t i = 0; i < machine->devices[d].workers; ++i, ++k) {
        fw_worker_t *w = &s->workers[k];
        w->sim = &machine->devices[d];
        w->kind = w->sim->kind;
        w->device_index = (uint32_t)d;
        w->memory_node = rt->sim_device_node[d];
      }
  } else {
    for (; k < rt->num_workers; ++k) {
      s->workers[k].kind = FW_TARGET_KIND_CPU;
      s->workers[k].memory_node = FW_NODE_HOST;
    }
    /* One worker drives each GPU. */
    for (uint32_t d = 1; d < rt->num_devices; ++d, ++k) {
      s->workers[k].kind = rt->devices[d]->vtable->target_kind;
      s->workers[k].device_index = d;
      s->workers[k].memory_node = rt->device_node[d];
    }
  }
  for (k = n; k-- > 0;) {
    const fw_worker_t *w = &s->workers[k], *next = k + 1 < n ? w + 1 : NULL;
    int alike = next && next->kind == w->kind && next->memory_node == w->memory_node &&
                next->device_index == w->device_index && next->sim == w->sim;
    s->workers[k].alike_end = alike ? next->alike_end : (uint32_t)(k + 1);
  }
  for (k = 0; k < n; ++k) {
    uint32_t node = s->workers[k].memory_node;
    if (node < FW_MAX_MEMORY_NODES && !s->node_worker[node]) s->node_worker[node] = &s->workers[k];
    s->num_cpu_workers += s->workers[k].kind == FW_TARGET_KIND_CPU;
    s->workers[k].index = (uint32_t)k;
    s->workers[k].sched = s;
    pthread_mutex_init(&s->workers[k].sleep_lock, NULL);
    pthread_condattr_t monotonic; /* fw_scheduler_now's clock, for wake_at */
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&s->workers[k].cv, &monotonic);
    pthread_condattr_destroy(&monotonic);
  }
  note_service(s);
  return s->simulated ? FW_OK : fw_engine_start(s);
}

void fw_scheduler_fini(fw_scheduler_t *s) {
#ifdef FW_RUNTIME_LOCK_STATS
  if (s->tasks_submitted)
    fprintf(stderr,
            "fw: scheduler lock held %.0f ns per task (%.2f acquisitions per task, %llu "
            "tasks)\n",
            (double)s->lock_held_ns / (double)s->tasks_submitted,
            (double)s->lock_acquisitions / (double)s->tasks_submitted,
            (unsigned long long)s->tasks_submitted);
#endif
  if (!s->workers) {
    fw_task_pool_fini(&s->task_pool);
    return;
  }
  if (s->engine_running) {
    fw_scheduler_wait_group(s, NULL);
    fw_engine_stop(s);
  }
  for (size_t k = 0; k < s->num_workers; ++k) {
    fw_profile_close_counters(&s->workers[k].counters);
    fw_gpu_worker_fini(&s->workers[k]);
    fw_task_heap_free(&s->workers[k].heap);
    free(s->workers[k].plan);
    fw_task_deque_free(&s->workers[k].deque);
    pthread_cond_destroy(&s->workers[k].cv);
    pthread_mutex_destroy(&s->workers[k].sleep_lock);
  }
  fw_task_heap_free(&s->ready);
  fw_task_heap_free(&s->alike_pool);
  free(s->sim_held);
  free(s->workers);
  s->workers = NULL;
  fw_status_free(s->api_group.status);
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->done_cv);
  pthread_mutex_destroy(&s->done_lock);
  fw_task_pool_fini(&s->task_pool); /* every task is gone: each held the runtime */
}
