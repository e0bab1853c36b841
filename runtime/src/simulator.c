/* The simulated engine: the real graph and policies in virtual time. Each worker of each
 * simulated device takes tasks from the policy when idle; a task starts when its inputs
 * have arrived over the device's link and runs for the device model's time. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "runtime_internal.h"
#include "scheduler.h"
#include "trace.h"

static fw_tier_t node_tier(const fw_runtime_t *rt, uint32_t node) {
  return rt->memory.nodes[node].tier;
}

static const fw_sim_device_t *node_device(const fw_runtime_t *rt, uint32_t node) {
  const fw_sim_machine_t *m = rt->options.simulate;
  for (size_t d = 0; d < m->num_devices; ++d)
    if (rt->sim_device_node[d] == node) return &m->devices[d];
  return NULL;
}

/* One hop between host memory and a device node over that device's link; returns when
 * the copy lands. */
static double sim_hop(fw_runtime_t *rt, uint32_t device_node, int to_device, uint64_t bytes,
                      double ready) {
  const fw_sim_device_t *d = node_device(rt, device_node);
  /* One copy at a time per direction: 0 host -> device, 1 device -> host. */
  double *free_at = &rt->sim_links[device_node].link_free_at[to_device ? 0 : 1];
  double start = ready > *free_at ? ready : *free_at;
  double seconds = d ? fw_sim_hop_seconds(d, bytes)
                     : (double)bytes / (FW_SIM_DEFAULT_LINK_GBPS * 1e9);
  *free_at = start + seconds;
  fw_tier_t from = to_device ? FW_TIER_HOST : FW_TIER_DEVICE;
  fw_tier_t to = to_device ? FW_TIER_DEVICE : FW_TIER_HOST;
  rt->memory.bytes_moved[from][to] += bytes;
  fw_trace_add(&rt->trace, FW_TRACE_COPY_TRACK(from, to), "copy",
               (uint64_t)(start * 1e9), (uint64_t)((start + seconds) * 1e9), bytes);
  return start + seconds;
}

/* Frees room on a device node by dropping least recently used replicas no running task
 * uses; a replica that is the only valid copy is first written back to host memory. */
static void sim_make_room(fw_runtime_t *rt, uint32_t node, uint64_t need, double now) {
  fw_memory_node_t *n = &rt->memory.nodes[node];
  while (n->capacity && n->used + need > n->capacity) {
    fw_buffer_t *victim = NULL;
    for (fw_buffer_t *b = rt->memory.buffers; b; b = b->mem.next) {
      fw_replica_t *r = &b->mem.replicas[node];
      if (!r->allocated || r->pins) continue;
      if (!victim || r->last_use < victim->mem.replicas[node].last_use) victim = b;
    }
    if (!victim) return; /* over-subscribed: the model lets it run anyway */
    fw_replica_t *r = &victim->mem.replicas[node];
    if (r->valid && !victim->mem.replicas[FW_NODE_HOST].valid) {
      double at = sim_hop(rt, node, 0, victim->byte_size, now);
      fw_memory_set_valid(victim, FW_NODE_HOST, 1);
      victim->mem.sim_arrival[FW_NODE_HOST] = at;
      ++rt->memory.evictions;
    }
    fw_memory_set_valid(victim, node, 0);
    r->allocated = 0;
    n->used -= victim->byte_size;
  }
}

/* Starts moving `b` to `node` at `now` (if it is not there or on its way); returns when
 * it will be there. */
static double sim_fetch(fw_runtime_t *rt, fw_buffer_t *b, uint32_t node, double now) {
  fw_replica_t *r = &b->mem.replicas[node];
  if (r->valid) return b->mem.sim_arrival[node] > now ? b->mem.sim_arrival[node] : now;
  fw_memory_node_t *n = &rt->memory.nodes[node];
  if (!r->allocated && node != FW_NODE_HOST) {
    sim_make_room(rt, node, b->byte_size, now);
    r->allocated = 1;
    n->used += b->byte_size;
    if (n->used > n->peak) n->peak = n->used;
  }
  uint32_t source = FW_NODE_HOST;
  if (!b->mem.replicas[FW_NODE_HOST].valid) {
    source = rt->memory.num_nodes;
    for (uint32_t k = 0; k < rt->memory.num_nodes; ++k)
      if (b->mem.replicas[k].valid) source = k;
  }
  double at = now;
  if (source == rt->memory.num_nodes) {
    at = now; /* never written: zeros need no copy */
  } else {
    double ready = b->mem.sim_arrival[source] > now ? b->mem.sim_arrival[source] : now;
    if (source != FW_NODE_HOST && node_tier(rt, source) == FW_TIER_DEVICE) {
      ready = sim_hop(rt, source, 0, b->byte_size, ready); /* through host memory */
      fw_memory_set_valid(b, FW_NODE_HOST, 1);
      b->mem.sim_arrival[FW_NODE_HOST] = ready;
    }
    at = node == FW_NODE_HOST ? ready : sim_hop(rt, node, 1, b->byte_size, ready);
  }
  fw_memory_set_valid(b, node, 1);
  b->mem.sim_arrival[node] = at;
  return at;
}

void fw_simulator_prefetch_buffer(fw_scheduler_t *s, fw_buffer_t *b, uint32_t node) {
  fw_runtime_t *rt = s->runtime;
  if (!rt->memory.prefetch_enabled) return;
  if (!b->mem.replicas[node].valid) ++rt->memory.prefetch_requests;
  sim_fetch(rt, b, node, s->sim_now);
}

void fw_simulator_prefetch(fw_scheduler_t *s, fw_task_t *t) {
  if (!t->worker) return;
  for (size_t i = 0; i < t->num_accesses; ++i)
    if (t->accesses[i].access & FW_ACCESS_READ)
      fw_simulator_prefetch_buffer(s, t->accesses[i].buffer, t->worker->memory_node);
}

typedef struct {
  fw_task_t *task;
  fw_worker_t *worker;
  double finish;
} sim_running_t;

static void start_on(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t, sim_running_t *slot) {
  fw_runtime_t *rt = s->runtime;
  double start = s->sim_now;
  uint32_t node = w->memory_node;
  if (!t->cancelled) {
    for (size_t i = 0; i < t->num_accesses; ++i) {
      fw_buffer_t *b = t->accesses[i].buffer;
      fw_replica_t *r = &b->mem.replicas[node];
      if (t->accesses[i].access & FW_ACCESS_READ) {
        if (r->valid && b->mem.sim_arrival[node] <= s->sim_now) {
          if (r->prefetched) ++rt->memory.prefetch_hits;
        } else if (!r->valid) {
          ++rt->memory.demand_fetches;
        }
        double at = sim_fetch(rt, b, node, s->sim_now);
        if (at > start) start = at;
      } else if (!r->allocated && node != FW_NODE_HOST) {
        sim_make_room(rt, node, b->byte_size, s->sim_now);
        r->allocated = 1;
        rt->memory.nodes[node].used += b->byte_size;
      }
      ++r->pins;
    }
  }
  double run = t->cancelled ? 0 : fw_sim_task_seconds(w->sim, t);
  rt->memory.stall_ns += (uint64_t)((start - s->sim_now) * 1e9);
  w->sim_busy = 1;
  w->sim_free_at = start + run;
  w->busy_ns += (uint64_t)(run * 1e9);
  if (!t->cancelled) ++w->tasks;
  fw_trace_add(&rt->trace, w->index, t->name, (uint64_t)(start * 1e9),
               (uint64_t)((start + run) * 1e9), 0);
  slot->task = t;
  slot->worker = w;
  slot->finish = start + run;
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
  return bytes;
}

static void finish(fw_scheduler_t *s, sim_running_t *slot) {
  fw_runtime_t *rt = s->runtime;
  fw_task_t *t = slot->task;
  uint32_t node = slot->worker->memory_node;
  for (size_t i = 0; i < t->num_accesses && !t->cancelled; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    fw_replica_t *r = &b->mem.replicas[node];
    --r->pins;
    r->last_use = ++rt->memory.tick;
    if (t->accesses[i].access & FW_ACCESS_WRITE) {
      for (uint32_t k = 0; k < rt->memory.num_nodes; ++k)
        if (k != node) fw_memory_set_valid(b, k, 0);
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
    double x = fw_sim_task_seconds(w->sim, t);
    if (x < times[c]) times[c] = x;
  }
  for (size_t c = 0; c < bound->num_classes; ++c) {
    finish_on[c] = t->sim_ready[c] + times[c];
    if (finish_on[c] < earliest) earliest = finish_on[c];
  }
  if (!isfinite(earliest)) { /* no device can run it (it failed): passes its readiness on */
    for (size_t c = 0; c < bound->num_classes; ++c) {
      finish_on[c] = t->sim_ready[c];
      if (finish_on[c] < earliest) earliest = finish_on[c];
    }
    if (!isfinite(earliest)) earliest = 0;
  }
  if (earliest > rt->sim_critical_path) rt->sim_critical_path = earliest;
  /* Out of memory only loosens the bound (fewer tasks counted); it stays valid. */
  if (!t->cancelled) (void)fw_sim_bound_add(bound, times);
  for (size_t k = 0; k < t->num_successors; ++k) {
    fw_task_t *next = t->successors[k];
    uint64_t bytes = written_for(t, next);
    for (size_t c = 0; c < bound->num_classes; ++c) {
      double arrive = INFINITY;
      for (size_t from = 0; from < bound->num_classes; ++from) {
        double at = finish_on[from] + fw_sim_bound_move_seconds(bound, from, c, bytes);
        if (at < arrive) arrive = at;
      }
      if (arrive > next->sim_ready[c]) next->sim_ready[c] = arrive;
    }
  }
  slot->worker->sim_busy = 0;
  if (slot->finish > rt->sim_makespan) rt->sim_makespan = slot->finish;
  ++rt->sim_tasks;
  fw_scheduler_complete(s, t, slot->worker, FW_OK);
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

void fw_simulator_run(fw_scheduler_t *s) {
  if (s->num_sim_held) {
    /* Upward ranks over everything submitted, then the tasks may start. */
    size_t n = s->num_sim_held;
    s->num_sim_held = 0;
    fw_scheduler_release_held(s, s->sim_held, n);
  }
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
    if (num_running == 0) break; /* nothing runs and nothing is ready: all done */
    size_t first = 0;
    for (size_t i = 1; i < num_running; ++i)
      if (running[i].finish < running[first].finish) first = i;
    sim_running_t done = running[first];
    running[first] = running[--num_running];
    if (done.finish > s->sim_now) s->sim_now = done.finish;
    finish(s, &done);
  }
  free(running);
}
