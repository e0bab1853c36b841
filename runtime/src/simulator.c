/* The simulated engine: the real graph and policies in virtual time. Each worker of each
 * simulated device takes tasks from the policy when idle; a task starts when its inputs
 * have arrived over the device's link and runs for the device model's time. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "redux.h"
#include "runtime_internal.h"
#include "scheduler.h"
#include "sim_links.h"
#include "status_internal.h"
#include "trace.h"

/* Virtual seconds in nanoseconds, saturated (a conversion out of range is undefined):
 * the machine's limits keep times finite, not below 585 years. */
static uint64_t sim_ns(double seconds) {
  if (!(seconds > 0)) return 0;
  return seconds < 1.8e10 ? (uint64_t)(seconds * 1e9) : UINT64_MAX;
}

static const fw_sim_device_t *node_device(const fw_runtime_t *rt, uint32_t node) {
  const fw_sim_machine_t *m = rt->options.simulate;
  for (size_t d = 0; d < m->num_devices; ++d)
    if (rt->sim_device_node[d] == node) return &m->devices[d];
  return NULL;
}

/* ---- Links ------------------------------------------------------------------------ */

static fw_sim_link_t *link_of(fw_runtime_t *rt, uint32_t source, uint32_t target) {
  return target == FW_NODE_HOST ? &rt->sim_links[source].dir[1] : &rt->sim_links[target].dir[0];
}

/* When a hop's data is at its source (INFINITY: not known yet). */
static double hop_ready_at(const fw_sim_move_t *m) {
  return isnan(m->ready) ? m->buffer->mem.sim_arrival[m->source] : m->ready;
}

/* Lowers the need of the hop bringing `b` to `node`, and of those before it (the hop to
 * host memory of a move between two devices). */
static void raise_need(fw_runtime_t *rt, fw_buffer_t *b, uint32_t node, double need) {
  for (uint32_t n = 0; n < rt->memory.num_nodes; ++n) {
    if (n == node || (n != FW_NODE_HOST && node != FW_NODE_HOST)) continue;
    fw_sim_link_t *link = link_of(rt, n, node);
    for (size_t i = 0; i < link->num_pending; ++i) {
      fw_sim_move_t *m = &link->pending[i];
      if (m->buffer != b || m->target != node) continue;
      if (need < m->need) {
        m->need = need;
        if (hop_ready_at(m) == INFINITY) raise_need(rt, b, m->source, need);
      }
      return;
    }
  }
}

/* Starts hop `m` on its link at `start`; it lands when the link has carried it. */
static void book(fw_runtime_t *rt, fw_sim_link_t *link, const fw_sim_move_t *m, double start) {
  fw_buffer_t *b = m->buffer;
  int to_device = m->target != FW_NODE_HOST;
  uint32_t device_node = to_device ? m->target : m->source;
  const fw_sim_device_t *d = node_device(rt, device_node);
  double seconds = d ? fw_sim_hop_seconds(d, b->byte_size)
                     : (double)b->byte_size / (FW_SIM_DEFAULT_LINK_GBPS * 1e9);
  link->free_at = start + seconds;
  b->mem.sim_arrival[m->target] = start + seconds;
  fw_tier_t from = to_device ? FW_TIER_HOST : FW_TIER_DEVICE;
  fw_tier_t to = to_device ? FW_TIER_DEVICE : FW_TIER_HOST;
  rt->memory.bytes_moved[from][to] += b->byte_size;
  fw_trace_add(&rt->trace, FW_TRACE_COPY_TRACK(from, to), "copy", sim_ns(start),
               sim_ns(start + seconds), b->byte_size);
}

double fw_simulator_carry(fw_scheduler_t *s, const fw_worker_t *w, int to_device,
                          uint64_t bytes) {
  fw_runtime_t *rt = s->runtime;
  fw_sim_link_t *link = &rt->sim_links[w->memory_node].dir[to_device ? 0 : 1];
  double start = link->free_at > s->sim_now ? link->free_at : s->sim_now;
  double end = start + fw_sim_hop_seconds(w->sim, bytes);
  link->free_at = end; /* the hops waiting for the link go after it */
  fw_tier_t from = to_device ? FW_TIER_HOST : FW_TIER_DEVICE;
  fw_tier_t to = to_device ? FW_TIER_DEVICE : FW_TIER_HOST;
  rt->memory.bytes_moved[from][to] += bytes;
  fw_trace_add(&rt->trace, FW_TRACE_COPY_TRACK(from, to), "copy (accumulator)", sim_ns(start),
               sim_ns(end), bytes);
  return end;
}

/* Asks for a hop of `b` from `source` to `target` (one of them host memory), needed at
 * `need`, its data at the source at `ready` (NAN: when the source's replica lands); the
 * target's replica is valid from now on and lands when the link has carried it (its
 * arrival is unknown until then). The replicas it moves between stay pinned while it
 * waits, and the buffer referenced: the task that asked may be cancelled, and complete,
 * before the link carries the hop. */
static void queue_hop(fw_runtime_t *rt, fw_buffer_t *b, uint32_t source, uint32_t target,
                      double need, double ready) {
  fw_sim_link_t *link = link_of(rt, source, target);
  fw_memory_set_valid(b, target, 1);
  if (link->num_pending == link->cap_pending) {
    size_t cap = link->cap_pending ? link->cap_pending * 2 : 16;
    fw_sim_move_t *grown = realloc(link->pending, cap * sizeof(*grown));
    if (!grown) { /* out of memory: it goes in turn, behind what the link carries */
      fw_sim_move_t m = {b, source, target, need, 0, ready};
      double at = hop_ready_at(&m);
      book(rt, link, &m, at > link->free_at ? at : link->free_at);
      return;
    }
    link->pending = grown;
    link->cap_pending = cap;
  }
  link->pending[link->num_pending++] =
      (fw_sim_move_t){b, source, target, need, ++rt->sim_move_seq, ready};
  fw_buffer_retain(b);
  b->mem.sim_arrival[target] = INFINITY;
  if (isnan(ready)) ++b->mem.replicas[source].pins;
  ++b->mem.replicas[target].pins;
}

/* Starts, on every idle link, the most needed hop whose data is at its source. */
static void serve_links(fw_runtime_t *rt, double now) {
  for (uint32_t n = 0; n < rt->memory.num_nodes; ++n) {
    for (int d = 0; d < 2; ++d) {
      fw_sim_link_t *link = &rt->sim_links[n].dir[d];
      while (link->num_pending && link->free_at <= now) {
        size_t best = link->num_pending;
        for (size_t i = 0; i < link->num_pending; ++i) {
          const fw_sim_move_t *m = &link->pending[i];
          if (hop_ready_at(m) > now) continue;
          if (best == link->num_pending || m->need < link->pending[best].need ||
              (m->need == link->pending[best].need && m->seq < link->pending[best].seq))
            best = i;
        }
        if (best == link->num_pending) break;
        fw_sim_move_t m = link->pending[best];
        link->pending[best] = link->pending[--link->num_pending];
        if (isnan(m.ready)) --m.buffer->mem.replicas[m.source].pins;
        --m.buffer->mem.replicas[m.target].pins;
        if (m.buffer->mem.replicas[m.target].valid) book(rt, link, &m, now);
        /* else it was overwritten meanwhile: nothing to carry */
        fw_buffer_release(m.buffer);
      }
    }
  }
}

/* Drops the hops still waiting when nothing is left to run: their data never comes (a
 * bug elsewhere, which the run survives). */
static void drop_pending(fw_runtime_t *rt) {
  for (uint32_t n = 0; n < rt->memory.num_nodes; ++n)
    for (int d = 0; d < 2; ++d) {
      fw_sim_link_t *link = &rt->sim_links[n].dir[d];
      while (link->num_pending) {
        fw_sim_move_t m = link->pending[--link->num_pending];
        if (isnan(m.ready)) --m.buffer->mem.replicas[m.source].pins;
        --m.buffer->mem.replicas[m.target].pins;
        fw_buffer_release(m.buffer);
      }
    }
}

/* When a link next has something to start (INFINITY: nothing waits whose data is known
 * to come). */
static double next_link_event(const fw_runtime_t *rt) {
  double next = INFINITY;
  for (uint32_t n = 0; n < rt->memory.num_nodes; ++n)
    for (int d = 0; d < 2; ++d) {
      const fw_sim_link_t *link = &rt->sim_links[n].dir[d];
      for (size_t i = 0; i < link->num_pending; ++i) {
        const fw_sim_move_t *m = &link->pending[i];
        double at = hop_ready_at(m);
        if (link->free_at > at) at = link->free_at;
        if (at < next) next = at;
      }
    }
  return next;
}

void fw_simulator_fini(fw_runtime_t *rt) {
  for (uint32_t n = 0; n < FW_MAX_MEMORY_NODES; ++n)
    for (int d = 0; d < 2; ++d) free(rt->sim_links[n].dir[d].pending);
  fw_status_free(rt->sim_stall);
  rt->sim_stall = FW_OK;
}

/* ---- Memory -------------------------------------------------------------------- */

/* Who asks for a copy, as in the runtime: a task about to run (may evict anything but
 * what running tasks hold), a placement's prefetch (keeps what the lookahead window reads
 * and other prefetches' unused copies), or a window prefetch (keeps what the window
 * reads no later than its own position). */
typedef enum { SIM_DEMAND, SIM_PLACEMENT, SIM_WINDOW } sim_asker_t;

/* Whether a replica of `b` on `node` may be dropped for room: no running task uses it,
 * and, for a placement's prefetch, no prefetch brought it for a task that has not run yet
 * (two prefetches would evict each other's copies before either is used). */
static int sim_evictable(const fw_buffer_t *b, uint32_t node, sim_asker_t prefetch) {
  const fw_replica_t *r = &b->mem.replicas[node];
  return r->allocated && !r->pins && !(prefetch == SIM_PLACEMENT && r->prefetched);
}

/* The replica to drop from `node` for room, as the runtime chooses (memory.c: pick_victim):
 * what no submitted task needs, then what the lookahead window does not read (least
 * recently used first), then what the window reads furthest ahead; a window prefetch for
 * position `protect` keeps what the window reads at or before it, and a task making room
 * for its own accesses (`keep`) keeps those (evicting one would only bring it back).
 * NULL: none. */
static fw_buffer_t *sim_victim(fw_runtime_t *rt, uint32_t node, sim_asker_t prefetch,
                               int64_t protect, const fw_task_t *keep) {
  fw_buffer_t *victim = NULL;
  unsigned victim_class = 0;
  for (fw_buffer_t *b = rt->memory.buffers; b; b = b->mem.next) {
    if (!sim_evictable(b, node, prefetch) || fw_memory_task_accesses(keep, b)) continue;
    unsigned c = fw_memory_value_class(&rt->memory, b);
    if (c == 2 && (int64_t)b->mem.window_pos <= protect) continue;
    if (fw_memory_better_victim(b, c, victim, victim_class, node)) {
      victim = b;
      victim_class = c;
    }
  }
  return victim;
}

/* Frees room for `need` bytes on a device node (sim_victim's choice); a replica that is
 * the only valid copy is first written back to host memory. Returns whether there is
 * room now. A prefetch evicts nothing unless it can make all the room (the runtime's
 * evicts what it may one replica at a time and gives up when nothing more can go, which
 * may leave some evicted for nothing); a task's own fetch over-subscribes the node when
 * replicas other workers' tasks hold leave too little (the runtime's would wait). */
static int sim_make_room(fw_runtime_t *rt, uint32_t node, uint64_t need, sim_asker_t prefetch,
                         int64_t protect, const fw_task_t *keep) {
  fw_memory_node_t *n = &rt->memory.nodes[node];
  if (!n->capacity || n->used + need <= n->capacity) return 1;
  if (prefetch != SIM_DEMAND) {
    uint64_t free = n->capacity > n->used ? n->capacity - n->used : 0;
    for (fw_buffer_t *b = rt->memory.buffers; b && free < need; b = b->mem.next)
      if (sim_evictable(b, node, prefetch) &&
          !(fw_memory_value_class(&rt->memory, b) == 2 &&
            (int64_t)b->mem.window_pos <= protect))
        free += b->byte_size;
    if (free < need) return 0;
  }
  while (n->used + need > n->capacity) {
    fw_buffer_t *victim = sim_victim(rt, node, prefetch, protect, keep);
    if (!victim) return 0;
    fw_replica_t *r = &victim->mem.replicas[node];
    if (r->valid && !victim->mem.replicas[FW_NODE_HOST].valid) {
      /* The write-back goes first: the room is needed now. Its data leaves with it. As
       * the runtime's, a write-back marks memory contended: from then on the lookahead
       * window's passes run (sim_window) and placements stop prefetching. */
      queue_hop(rt, victim, node, FW_NODE_HOST, -INFINITY, victim->mem.sim_arrival[node]);
      atomic_store_explicit(&rt->memory.spilled, 1, memory_order_relaxed);
    }
    /* As the runtime counts them: a replica dropped for room is an eviction, written
     * back or not. */
    ++rt->memory.evictions;
    fw_memory_set_valid(victim, node, 0);
    r->allocated = 0;
    r->prefetched = 0;
    n->used -= victim->byte_size;
  }
  return 1;
}

/* Gives `b` room on device node `node`, evicting what it must; a prefetch gets none when
 * that would take more than it may evict (returns 0). */
static int sim_allocate(fw_runtime_t *rt, fw_buffer_t *b, uint32_t node, sim_asker_t asker,
                        int64_t protect, const fw_task_t *keep) {
  fw_memory_node_t *n = &rt->memory.nodes[node];
  if (!sim_make_room(rt, node, b->byte_size, asker, protect, keep) && asker != SIM_DEMAND)
    return 0;
  b->mem.replicas[node].allocated = 1;
  n->used += b->byte_size;
  if (n->used > n->peak) n->peak = n->used;
  return 1;
}

/* Makes `b` valid on `node`, moving it there if it is not there or on its way, needed at
 * `need`; returns when it will be there (INFINITY: it waits for its link; NAN: a prefetch
 * that found no room and gave up). */
static double sim_fetch(fw_runtime_t *rt, fw_buffer_t *b, uint32_t node, double now, double need,
                        sim_asker_t asker, int64_t protect, const fw_task_t *keep) {
  fw_replica_t *r = &b->mem.replicas[node];
  if (r->valid) {
    double at = b->mem.sim_arrival[node];
    if (at == INFINITY) raise_need(rt, b, node, need);
    return at > now ? at : now;
  }
  if (!r->allocated && node != FW_NODE_HOST && !sim_allocate(rt, b, node, asker, protect, keep))
    return NAN;
  uint32_t source = FW_NODE_HOST;
  if (!b->mem.replicas[FW_NODE_HOST].valid) {
    source = rt->memory.num_nodes;
    for (uint32_t k = 0; k < rt->memory.num_nodes; ++k)
      if (b->mem.replicas[k].valid) source = k;
  }
  if (source == rt->memory.num_nodes) { /* never written: zeros need no copy */
    fw_memory_set_valid(b, node, 1);
    b->mem.sim_arrival[node] = now;
    return now;
  }
  if (source != FW_NODE_HOST && rt->memory.nodes[source].tier == FW_TIER_DEVICE)
    queue_hop(rt, b, source, FW_NODE_HOST, need, NAN); /* through host memory */
  source = FW_NODE_HOST;
  if (node != FW_NODE_HOST) queue_hop(rt, b, source, node, need, NAN);
  return INFINITY;
}

static void sim_prefetch(fw_scheduler_t *s, fw_buffer_t *b, uint32_t node, double need,
                         sim_asker_t asker, int64_t protect) {
  fw_runtime_t *rt = s->runtime;
  fw_replica_t *r = &b->mem.replicas[node];
  if (!rt->memory.prefetch_enabled) return;
  if (r->valid) {
    (void)sim_fetch(rt, b, node, s->sim_now, need, asker, protect, NULL); /* needed sooner */
    return;
  }
  if (sim_fetch(rt, b, node, s->sim_now, need, asker, protect, NULL) == INFINITY) { /* a copy */
    ++rt->memory.prefetch_requests;
    r->prefetched = 1;
  }
}

void fw_simulator_prefetch_buffer(fw_scheduler_t *s, fw_buffer_t *b, uint32_t node,
                                  double need) {
  sim_prefetch(s, b, node, need, SIM_PLACEMENT, INT64_MAX);
}

void fw_simulator_prefetch(fw_scheduler_t *s, fw_task_t *t) {
  /* As fw_scheduler_placed: a task placed on a device has its inputs move, memory
   * contended or not (simulated host memory has no limit). */
  if (!t->worker) return;
  for (size_t i = 0; i < t->num_accesses; ++i)
    if (t->accesses[i].access & FW_ACCESS_READ)
      fw_simulator_prefetch_buffer(s, t->accesses[i].buffer, t->worker->memory_node,
                                   fw_scheduler_need(s, t));
}

/* The window moved (a task started), memory being contended: as the runtime's lookahead
 * pass (memory.c), marks what the first `prefetch_window` submitted tasks read, where
 * first, then brings what their devices lack, in window order, each copy displacing only
 * what is read later than itself. */
static void sim_window(fw_scheduler_t *s) {
  fw_memory_t *m = &s->runtime->memory;
  if (!m->prefetch_enabled || !m->prefetch_window ||
      !atomic_load_explicit(&m->spilled, memory_order_relaxed))
    return;
  ++m->window_epoch;
  uint32_t seen = 0;
  for (fw_task_t *t = s->lookahead_head; t && seen < m->prefetch_window;
       t = t->lookahead_next, ++seen)
    for (size_t i = 0; i < t->num_accesses; ++i) {
      fw_buffer_t *b = t->accesses[i].buffer;
      if ((t->accesses[i].access & FW_ACCESS_READ) && b->mem.window_mark != m->window_epoch) {
        b->mem.window_mark = m->window_epoch;
        b->mem.window_pos = seen;
      }
    }
  seen = 0;
  for (fw_task_t *t = s->lookahead_head; t && seen < m->prefetch_window;
       t = t->lookahead_next, ++seen) {
    if (!t->worker || t->cancelled || t->worker->memory_node == FW_NODE_HOST) continue;
    for (size_t i = 0; i < t->num_accesses; ++i) {
      fw_buffer_t *b = t->accesses[i].buffer;
      uint32_t node = t->worker->memory_node;
      if ((t->accesses[i].access & FW_ACCESS_READ) && !b->mem.replicas[node].valid)
        sim_prefetch(s, b, node, s->sim_now, SIM_WINDOW, (int64_t)b->mem.window_pos);
    }
  }
}

/* ---- Tasks ------------------------------------------------------------------------ */

/* A task a simulated worker took: waiting for its inputs (`waiting`), then running. */
typedef struct {
  fw_task_t *task;
  fw_worker_t *worker;
  double taken; /* when the worker took it */
  double finish;
  int waiting;
} sim_running_t;

/* The task starts running at `start`, its inputs there. */
static void run_from(fw_scheduler_t *s, sim_running_t *slot, double start) {
  fw_runtime_t *rt = s->runtime;
  fw_task_t *t = slot->task;
  fw_worker_t *w = slot->worker;
  int measured = 0;
  double run = t->cancelled ? 0 : fw_sim_task_seconds(w->sim, t, &rt->history, &measured);
  rt->sim_measured_tasks += (uint64_t)measured;
  rt->memory.stall_ns += sim_ns(start - slot->taken);
  w->sim_free_at = start + run;
  w->busy_ns += sim_ns(run);
  if (!t->cancelled) ++w->tasks;
  fw_trace_add_run(&rt->trace, w->index, t->name, fw_trace_task_id(t->seq), sim_ns(start),
                   sim_ns(start + run), 0, 0);
  slot->waiting = 0;
  slot->finish = start + run;
}

/* When the inputs of a taken task are all where it runs (INFINITY: some still wait for a
 * link). */
static double inputs_there(const sim_running_t *slot) {
  const fw_task_t *t = slot->task;
  uint32_t node = slot->worker->memory_node;
  double start = slot->taken;
  for (size_t i = 0; i < t->num_accesses && !t->cancelled; ++i) {
    if (!(t->accesses[i].access & FW_ACCESS_READ)) continue;
    double at = t->accesses[i].buffer->mem.sim_arrival[node];
    if (at > start) start = at;
  }
  return t->cancelled ? start : fw_redux_sim_start(t, start);
}

static void start_on(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t, sim_running_t *slot) {
  fw_runtime_t *rt = s->runtime;
  uint32_t node = w->memory_node;
  double need = fw_scheduler_need(s, t); /* the worker waits: no later than now */
  if (need > s->sim_now) need = s->sim_now;
  if (!t->cancelled) {
    fw_redux_note_worker(s, t, w);
    for (size_t i = 0; i < t->num_accesses; ++i) {
      fw_buffer_t *b = t->accesses[i].buffer;
      fw_replica_t *r = &b->mem.replicas[node];
      if (t->accesses[i].access & FW_ACCESS_READ) {
        /* As the runtime counts: a prefetched copy, landed or still on its way, is a hit. */
        if (r->valid && r->prefetched) ++rt->memory.prefetch_hits;
        else if (!r->valid) ++rt->memory.demand_fetches;
        (void)sim_fetch(rt, b, node, s->sim_now, need, SIM_DEMAND, -1, t);
      } else if (!r->allocated && node != FW_NODE_HOST) {
        (void)sim_allocate(rt, b, node, SIM_DEMAND, -1, t);
      }
      r->prefetched = 0;
      ++r->pins;
    }
  }
  w->sim_busy = 1;
  slot->task = t;
  slot->worker = w;
  slot->taken = s->sim_now;
  slot->waiting = 1;
  slot->finish = INFINITY;
  double start = inputs_there(slot);
  if (start < INFINITY) run_from(s, slot, start);
  sim_window(s);
}

/* Bytes of the buffers `t` writes that `next` reads: what must move from where `t` ran to
 * where `next` runs. */
static uint64_t written_for(const fw_task_t *t, const fw_task_t *next) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < next->num_accesses; ++i) {
    if (!(next->accesses[i].access & FW_ACCESS_READ)) continue;
    for (size_t j = 0; j < t->num_accesses; ++j)
      if (t->accesses[j].buffer == next->accesses[i].buffer &&
          (t->accesses[j].access & FW_ACCESS_WRITE))
        bytes += next->accesses[i].buffer->byte_size;
  }
  return bytes + fw_redux_accumulator_bytes(t, next);
}

/* What the bounds count of a group of commutative updates (kept by its join): its
 * updates follow only what came before the group (the order among them is the
 * simulation's choice, not a dependency), and they run one at a time, so the group ends
 * no sooner than the earliest of them could start plus all of their run times. */
struct fw_sim_group_t {
  double ready[FW_SIM_MAX_CLASSES]; /* where what came before the group is, on each class */
  int written;                      /* a task wrote it before the group (else host memory) */
  double first_head; /* the earliest an update of it could start (INFINITY: none ran) */
  double work;       /* the sum of its updates' least run times */
};

void fw_simulator_group_opened(fw_task_t *join, fw_buffer_t *b) {
  fw_sim_group_t *g = calloc(1, sizeof(*g));
  if (!g) return; /* its updates then count nothing before the group: looser bounds */
  memcpy(g->ready, b->mem.sim_bound_ready, sizeof(g->ready));
  g->written = b->mem.sim_written;
  g->first_head = INFINITY;
  join->sim_group = g;
}

/* The join of `t`'s group on `b` (a commutative access of t), if it has a simulation
 * record. */
static fw_sim_group_t *group_of(const fw_task_t *t, const fw_buffer_t *b) {
  for (size_t k = 0; k < t->num_successors; ++k) {
    const fw_task_t *j = t->successors[k];
    if (j->join && j->accesses[0].buffer == b) return j->sim_group;
  }
  return NULL;
}

/* The task that wrote `b` last before the open group of updates of it (its last writer
 * while the group is open) finished: the group's updates that did not wait for it (those
 * submitted after it finished) count it too. */
static void raise_open_group(const fw_task_t *t, const fw_buffer_t *b, const double *at,
                             size_t num_classes) {
  if (!b->commute_join || b->last_writer != t || !b->commute_join->sim_group) return;
  fw_sim_group_t *g = b->commute_join->sim_group;
  for (size_t c = 0; c < num_classes; ++c)
    if (at[c] > g->ready[c]) g->ready[c] = at[c];
  g->written = 1;
}

static void finish(fw_scheduler_t *s, sim_running_t *slot) {
  fw_runtime_t *rt = s->runtime;
  fw_task_t *t = slot->task;
  uint32_t node = slot->worker->memory_node;
  if (!t->cancelled) fw_redux_sim_finished(t, slot->finish);
  for (size_t i = 0; i < t->num_accesses && !t->cancelled; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    fw_replica_t *r = &b->mem.replicas[node];
    --r->pins;
    r->last_use = ++rt->memory.tick;
    if (t->accesses[i].access & FW_ACCESS_WRITE) {
      for (uint32_t k = 0; k < rt->memory.num_nodes; ++k)
        if (k != node) {
          fw_memory_set_valid(b, k, 0);
          b->mem.replicas[k].prefetched = 0;
        }
      fw_memory_set_valid(b, node, 1);
      b->mem.sim_arrival[node] = slot->finish;
    }
  }
  /* The task's time on each device class, for the area bound and the critical path: the
   * earliest it could finish on each class, given when its inputs could be there. */
  fw_sim_bound_t *bound = &rt->sim_bound;
  double times[FW_SIM_MAX_CLASSES], finish_on[FW_SIM_MAX_CLASSES], earliest = INFINITY;
  for (size_t c = 0; c < bound->num_classes; ++c) times[c] = INFINITY;
  for (size_t i = 0; i < s->num_workers; ++i) {
    const fw_worker_t *w = &s->workers[i];
    if (!fw_worker_can_run(w, t)) continue;
    size_t c = bound->device_class[w->device_index];
    double x = fw_sim_task_seconds(w->sim, t, &rt->history, NULL);
    if (x < times[c]) times[c] = x;
  }
  for (size_t c = 0; c < bound->num_classes; ++c) {
    finish_on[c] = t->sim_ready[c] + times[c];
    if (finish_on[c] < earliest) earliest = finish_on[c];
  }
  int runs = isfinite(earliest);
  if (!runs) { /* no device can run it (it failed): passes its readiness on */
    for (size_t c = 0; c < bound->num_classes; ++c) {
      finish_on[c] = t->sim_ready[c];
      if (finish_on[c] < earliest) earliest = finish_on[c];
    }
    if (!isfinite(earliest)) earliest = 0;
  }
  if (earliest > rt->sim_critical_path) rt->sim_critical_path = earliest;
  /* The DAG as it ran, for the window bound (sim_window.c). */
  if (!t->sim_id) t->sim_id = fw_sim_bound_new_id(bound);
  fw_sim_bound_add(bound, t->sim_id, times, t->sim_ready, runs && !t->cancelled);
  for (size_t k = 0; k < t->num_successors; ++k) {
    fw_task_t *next = t->successors[k];
    uint64_t bytes = written_for(t, next);
    if (!next->sim_id) next->sim_id = fw_sim_bound_new_id(bound);
    fw_sim_bound_add_edge(bound, next->sim_id, bytes);
    double arrive[FW_SIM_MAX_CLASSES];
    for (size_t c = 0; c < bound->num_classes; ++c) {
      arrive[c] = fw_sim_bound_arrival(bound, finish_on, c, bytes);
      if (arrive[c] > next->sim_ready[c]) next->sim_ready[c] = arrive[c];
    }
    if (next->reduction) fw_redux_sim_arrival(t, next, arrive, bound->num_classes);
  }
  /* What it wrote, for the tasks that read it later without an edge from it (submitted
   * after it finished). */
  for (size_t i = 0; i < t->num_accesses && runs && !t->cancelled; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    if (!(t->accesses[i].access & FW_ACCESS_WRITE)) continue;
    /* A group's updates: the latest of them (each could be the last to run). */
    int latest = t->accesses[i].commute && b->mem.sim_written;
    double at[FW_SIM_MAX_CLASSES];
    for (size_t c = 0; c < bound->num_classes; ++c) {
      at[c] = fw_sim_bound_arrival(bound, finish_on, c, b->byte_size);
      if (!latest || at[c] > b->mem.sim_bound_ready[c]) b->mem.sim_bound_ready[c] = at[c];
    }
    b->mem.sim_written = 1;
    fw_sim_group_t *g = t->accesses[i].commute ? group_of(t, b) : NULL;
    if (g) { /* its start and least run time count in its group's */
      double head = INFINITY, least = INFINITY;
      for (size_t c = 0; c < bound->num_classes; ++c)
        if (isfinite(times[c])) {
          if (t->sim_ready[c] < head) head = t->sim_ready[c];
          if (times[c] < least) least = times[c];
        }
      if (head < g->first_head) g->first_head = head;
      g->work += least;
    } else if (!t->accesses[i].commute) {
      raise_open_group(t, b, at, bound->num_classes);
    }
  }
  slot->worker->sim_busy = 0;
  if (slot->finish > rt->sim_makespan) rt->sim_makespan = slot->finish;
  ++rt->sim_tasks;
  fw_scheduler_complete(s, t, slot->worker, FW_OK);
}

void fw_simulator_pass_on(fw_scheduler_t *s, fw_task_t *t) {
  fw_sim_bound_t *bound = &s->runtime->sim_bound;
  double times[FW_SIM_MAX_CLASSES];
  for (size_t c = 0; c < bound->num_classes; ++c) times[c] = INFINITY;
  const fw_sim_group_t *g = t->sim_group;
  if (g && isfinite(g->first_head)) { /* its updates, one at a time */
    double end = g->first_head + g->work;
    for (size_t c = 0; c < bound->num_classes; ++c)
      if (end > t->sim_ready[c]) t->sim_ready[c] = end;
    if (end > s->runtime->sim_critical_path) s->runtime->sim_critical_path = end;
  }
  raise_open_group(t, t->accesses[0].buffer, t->sim_ready, bound->num_classes);
  if (!t->sim_id) t->sim_id = fw_sim_bound_new_id(bound);
  fw_sim_bound_add(bound, t->sim_id, times, t->sim_ready, 0);
  for (size_t k = 0; k < t->num_successors; ++k) {
    fw_task_t *next = t->successors[k];
    if (!next->sim_id) next->sim_id = fw_sim_bound_new_id(bound);
    fw_sim_bound_add_edge(bound, next->sim_id, 0);
    for (size_t c = 0; c < bound->num_classes; ++c)
      if (t->sim_ready[c] > next->sim_ready[c]) next->sim_ready[c] = t->sim_ready[c];
  }
}

void fw_simulator_released(fw_scheduler_t *s, fw_task_t *t) {
  const fw_sim_bound_t *bound = &s->runtime->sim_bound;
  for (size_t i = 0; i < t->num_accesses; ++i) {
    if (!(t->accesses[i].access & FW_ACCESS_READ)) continue;
    const fw_buffer_t *b = t->accesses[i].buffer;
    const fw_sim_group_t *g = t->accesses[i].commute ? group_of(t, b) : NULL;
    if (t->accesses[i].commute && !g) continue; /* counts nothing before the group */
    int written = g ? g->written : b->mem.sim_written;
    const double *ready = g ? g->ready : b->mem.sim_bound_ready;
    /* Data no task wrote came from host memory, unless it is nowhere yet (zeros). */
    int from_host =
        !written && atomic_load_explicit(&b->mem.valid_mask, memory_order_relaxed) != 0;
    for (size_t c = 0; c < bound->num_classes; ++c) {
      double at = written     ? ready[c]
                  : from_host ? fw_sim_bound_from_host_seconds(bound, c, b->byte_size)
                              : 0;
      if (at > t->sim_ready[c]) t->sim_ready[c] = at;
    }
  }
}

int fw_simulator_hold(fw_scheduler_t *s, fw_task_t *task) {
  fw_sched_lock(s);
  int ok = 1;
  if (s->num_sim_held == s->cap_sim_held) {
    size_t cap = s->cap_sim_held ? s->cap_sim_held * 2 : 256;
    fw_task_t **grown = realloc(s->sim_held, cap * sizeof(*grown));
    if (grown) {
      s->sim_held = grown;
      s->cap_sim_held = cap;
    } else {
      ok = 0;
    }
  }
  if (ok) s->sim_held[s->num_sim_held++] = task;
  fw_sched_unlock(s);
  return ok;
}

/* The running task that ends first (the first of equals; `n`: none runs). */
static size_t first_to_finish(const sim_running_t *running, size_t n) {
  size_t first = n;
  for (size_t i = 0; i < n; ++i)
    if (!running[i].waiting && (first == n || running[i].finish < running[first].finish))
      first = i;
  return first;
}

/* Lets the held tasks start, with upward ranks over them: those submitted before the
 * run, and those that completion callbacks (on_done) submitted while it ran, at the
 * virtual time they were submitted. Whether there were any. */
static int release_sim_held(fw_scheduler_t *s) {
  fw_sched_lock(s);
  size_t n = s->num_sim_held;
  s->num_sim_held = 0;
  fw_sched_unlock(s);
  if (n) fw_scheduler_release_held(s, s->sim_held, n, 0);
  return n != 0;
}

/* The run ended with tasks that never started: no worker would take those ready (a
 * scheduling bug: a plan that holds a worker back for a task that waits on work planned
 * behind it, say). Rather than a run that returns as if complete, the waits for their
 * groups fail naming them (once per stall), and so does the report until a run gets
 * through (lock taken here). */
static void note_stall(fw_scheduler_t *s) {
  fw_runtime_t *rt = s->runtime;
  fw_sched_lock(s);
  size_t left = 0;
  char names[160] = "";
  for (fw_task_t *t = s->lookahead_head; t; t = t->lookahead_next, ++left)
    if (left < 3)
      snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", left ? ", " : "",
               t->name);
  if (left) {
    int noted = rt->sim_stall != FW_OK; /* by an earlier run: its waits failed already */
    fw_status_free(rt->sim_stall);
    rt->sim_stall = fw_status_make(FW_STATUS_INTERNAL,
                                   "simulation stalled: %zu submitted tasks never started "
                                   "(%s%s): no worker would take the ready ones",
                                   left, names, left > 3 ? ", ..." : "");
    for (fw_task_t *t = s->lookahead_head; t && !noted; t = t->lookahead_next)
      if (t->group->status == FW_OK)
        t->group->status =
            fw_status_create(fw_status_code(rt->sim_stall), fw_status_message(rt->sim_stall));
  }
  fw_sched_unlock(s);
}

void fw_simulator_run(fw_scheduler_t *s) {
  fw_runtime_t *rt = s->runtime;
  release_sim_held(s);
  /* A task too large for a worker's memory is never given to it (fw_worker_can_run). */
  sim_running_t *running = calloc(s->num_workers ? s->num_workers : 1, sizeof(*running));
  if (!running) return;
  size_t num_running = 0;
  for (;;) {
    fw_sched_lock(s);
    for (size_t i = 0; i < s->num_workers; ++i) {
      fw_worker_t *w = &s->workers[i];
      if (w->sim_busy) continue;
      fw_task_t *t = s->policy->pop(s, w);
      if (!t) continue;
      fw_scheduler_start_task(s, t);
      start_on(s, w, t, &running[num_running++]);
    }
    fw_sched_unlock(s);
    size_t first = first_to_finish(running, num_running);
    if (first == num_running || running[first].finish > s->sim_now) {
      /* Every task ending at this instant has ended, so what was asked for at this
       * instant is in: the links pick from all of it. */
      serve_links(rt, s->sim_now);
      for (size_t i = 0; i < num_running; ++i)
        if (running[i].waiting) {
          double start = inputs_there(&running[i]);
          if (start < INFINITY) run_from(s, &running[i], start);
        }
      first = first_to_finish(running, num_running);
      double link_next = next_link_event(rt);
      if (first == num_running && link_next == INFINITY) {
        /* A task waiting for a copy that no link will carry would be a bug here; it runs
         * with what is there rather than hang the run. */
        for (size_t i = 0; i < num_running; ++i)
          if (running[i].waiting) run_from(s, &running[i], s->sim_now);
        if (num_running == 0) { /* all done, unless callbacks submitted more */
          if (release_sim_held(s)) continue;
          drop_pending(rt);
          if (atomic_load(&s->outstanding)) {
            note_stall(s);
          } else { /* a run that stalled before got through since */
            fw_status_free(rt->sim_stall);
            rt->sim_stall = FW_OK;
          }
          break;
        }
        continue;
      }
      if (first == num_running || link_next < running[first].finish) {
        if (link_next > s->sim_now) s->sim_now = link_next;
        continue;
      }
      if (running[first].finish > s->sim_now) s->sim_now = running[first].finish;
    }
    sim_running_t done = running[first];
    running[first] = running[--num_running];
    finish(s, &done);
    release_sim_held(s); /* what its on_done submitted, from now on */
  }
  free(running);
}
