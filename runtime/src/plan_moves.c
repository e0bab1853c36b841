/* The data moves of a plan (planner.h): when a task's inputs can be on a worker's memory.
 *
 * The plans follow each piece of data the batch reads (a version): the output of a task
 * in the batch, or what a buffer holds when the batch is released (planner.h: version). Each
 * version is somewhere from some time on: its producer's memory from the producer's
 * planned finish, or where the buffer is valid at release from then. Moving it takes one
 * hop per device link crossed, as the runtime moves data (a device's memory to another's
 * through host memory), and each direction of each link carries one copy at a time, as
 * the devices' copy queues do: a hop takes the earliest gap on its link from when the data
 * is at its source. Once a version is on a memory it stays there for the batch, so a
 * second task reading it there moves nothing (the runtime keeps the replica).
 *
 * The queues matter where the links are the bottleneck. Planned as if each move had its
 * link to itself, a GPU behind a slow link looked free to take every task it runs fast,
 * and then waited for their inputs one after another: with the benchmark's GPUs on 2 GB/s
 * links, tiled Cholesky of 24 x 24 tiles ran at 1.58x the lower bound that way, 1.21x
 * with the queues. On 25 GB/s links they change little (docs/performance.md).
 *
 * What a buffer holds at release is taken to move from release on, though the runtime
 * moves it only once its reader is placed: modelling that made the plans closer to the
 * runs and the runs no better (docs/performance.md).
 *
 * A task's placement is tried with its moves booked in an undo log, then taken back; the
 * place chosen books them for good. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "planner.h"
#include "runtime_internal.h"

/* The earliest time from `ready` at which the timeline has `d` seconds free (a gap
 * between planned tasks will do: insertion-based HEFT). */
double fw_timeline_earliest_gap(const timeline_t *tl, double ready, double d) {
  /* The first interval that ends after `ready` (the ends are sorted too). */
  size_t lo = 0, hi = tl->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tl->end[mid] <= ready) lo = mid + 1;
    else hi = mid;
  }
  double t = ready;
  for (size_t i = lo; i < tl->n; ++i) {
    if (tl->start[i] >= t + d) break;
    t = tl->end[i];
  }
  return t;
}

int fw_timeline_add(timeline_t *tl, double start, double end) {
  /* A task that takes no time holds nothing up (and would break the order of the ends,
   * which fw_timeline_earliest_gap relies on). */
  if (end <= start) return 1;
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

static void log_undo(planner_t *p, timeline_t *line, double *slot, double value, double end) {
  if (p->num_undo == p->cap_undo) {
    size_t cap = p->cap_undo ? p->cap_undo * 2 : 64;
    plan_undo_t *grown = realloc(p->undo, cap * sizeof(*grown));
    if (!grown) {
      p->failed = 1;
      return;
    }
    p->undo = grown;
    p->cap_undo = cap;
  }
  p->undo[p->num_undo++] = (plan_undo_t){line, slot, value, end};
}

/* Where version v is on `node` from (INFINITY: not there). */
static double *arrival(planner_t *p, size_t v, uint32_t node) {
  return &p->arrive[v * p->num_nodes + node];
}

static void set_arrival(planner_t *p, size_t v, uint32_t node, double at) {
  double *slot = arrival(p, v, node);
  log_undo(p, NULL, slot, *slot, 0);
  *slot = at;
}

/* Books one hop of `bytes` over device node `device`'s link, towards it or away from it,
 * from `ready` on; returns when it lands. A try (p->trying) keeps its hops in the undo
 * log rather than in the link's timeline, and sees them there. */
static double book_hop(planner_t *p, uint32_t device, int to_device, uint64_t bytes,
                       double ready) {
  const fw_worker_t *rep = p->node_rep[device];
  double d = rep ? fw_scheduler_hop_seconds(rep, bytes) : 0;
  if (d <= 0) return ready;
  timeline_t *line = &p->links[device * 2 + (to_device ? 0 : 1)];
  double start = ready;
  for (int moved = 1; moved;) {
    start = fw_timeline_earliest_gap(line, start, d);
    moved = 0;
    for (size_t k = 0; k < p->num_undo; ++k) {
      const plan_undo_t *u = &p->undo[k];
      if (u->line == line && u->value < start + d && u->end > start) {
        start = u->end;
        moved = 1;
      }
    }
  }
  if (p->trying) log_undo(p, line, NULL, start, start + d);
  else if (!fw_timeline_add(line, start, start + d)) p->failed = 1;
  return start + d;
}

/* When version v (of `bytes`) can be on `node`, booking the hops that takes. */
static double book_version(planner_t *p, size_t v, uint32_t node, uint64_t bytes) {
  double here = *arrival(p, v, node);
  if (here < INFINITY) return here;
  double host = *arrival(p, v, FW_NODE_HOST);
  if (host == INFINITY) {
    /* On devices only: up the link of the one it is on first. */
    uint32_t from = FW_NODE_HOST;
    for (uint32_t n = 0; n < p->num_nodes; ++n)
      if (n != FW_NODE_HOST && *arrival(p, v, n) < INFINITY &&
          (from == FW_NODE_HOST || *arrival(p, v, n) < *arrival(p, v, from)))
        from = n;
    /* Nowhere the plans model (on storage only, or never written): taken from host
     * memory at release, as the estimates take it. */
    host = from == FW_NODE_HOST ? p->now : book_hop(p, from, 0, bytes, *arrival(p, v, from));
    set_arrival(p, v, FW_NODE_HOST, host);
  }
  if (node == FW_NODE_HOST) return host;
  double at = book_hop(p, node, 1, bytes, host);
  set_arrival(p, v, node, at);
  return at;
}

/* Books task i's inputs' moves to worker `w`'s memory; returns when they are all there,
 * and its predecessors in the batch done. */
static double book_inputs(planner_t *p, const plan_t *plan, size_t i, const fw_worker_t *w) {
  const fw_task_t *t = p->batch[i];
  double ready = p->now;
  for (size_t a = 0; a < t->num_accesses; ++a) {
    size_t v = p->version[p->access_at[i] + a];
    if (v == NONE) continue;
    double at = book_version(p, v, w->memory_node, t->accesses[a].buffer->byte_size);
    if (at > ready) ready = at;
  }
  for (size_t q = p->pred_at[i]; q < p->pred_at[i + 1]; ++q)
    if (plan->finish[p->preds[q]] > ready) ready = plan->finish[p->preds[q]];
  return ready;
}

/* A read of what a buffer holds at release: its buffer, and its slot. */
typedef struct {
  uintptr_t buffer;
  size_t slot;
} home_read_t;

static int by_buffer_then_slot(const void *pa, const void *pb) {
  const home_read_t *a = pa, *b = pb;
  if (a->buffer != b->buffer) return a->buffer < b->buffer ? -1 : 1;
  return a->slot < b->slot ? -1 : a->slot > b->slot;
}

int fw_plan_moves_init(planner_t *p) {
  fw_scheduler_t *s = p->s;
  size_t slots = p->access_at[p->count];
  p->num_nodes = FW_NODE_HOST + 1;
  for (size_t w = 0; w < s->num_workers; ++w)
    if (s->workers[w].memory_node >= p->num_nodes) p->num_nodes = s->workers[w].memory_node + 1;
  p->node_rep = calloc(p->num_nodes, sizeof(*p->node_rep));
  p->version = malloc((slots ? slots : 1) * sizeof(size_t));
  p->home = calloc(2 * slots + 1, sizeof(unsigned));
  home_read_t *reads = malloc((slots ? slots : 1) * sizeof(*reads));
  if (!p->node_rep || !p->version || !p->home || !reads) {
    free(reads);
    return 0;
  }
  unsigned modelled = 1u << FW_NODE_HOST;
  for (size_t w = 0; w < s->num_workers; ++w) {
    uint32_t node = s->workers[w].memory_node;
    if (node != FW_NODE_HOST && !p->node_rep[node]) {
      p->node_rep[node] = &s->workers[w];
      modelled |= 1u << node;
    }
  }
  size_t num_reads = 0;
  for (size_t i = 0; i < p->count; ++i) {
    const fw_task_t *t = p->batch[i];
    for (size_t a = 0; a < t->num_accesses; ++a) {
      size_t slot = p->access_at[i] + a, producer = p->producer[slot];
      p->version[slot] = NONE;
      if (!(t->accesses[a].access & FW_ACCESS_READ)) continue;
      if (producer == NONE) {
        reads[num_reads++] = (home_read_t){(uintptr_t)t->accesses[a].buffer, slot};
        continue;
      }
      /* The producer's (last) access that writes the buffer. */
      const fw_task_t *from = p->batch[producer];
      for (size_t b = 0; b < from->num_accesses; ++b)
        if (from->accesses[b].buffer == t->accesses[a].buffer &&
            (from->accesses[b].access & FW_ACCESS_WRITE))
          p->version[slot] = p->access_at[producer] + b;
    }
  }
  qsort(reads, num_reads, sizeof(*reads), by_buffer_then_slot);
  for (size_t k = 0; k < num_reads; ++k) {
    size_t first = k > 0 && reads[k].buffer == reads[k - 1].buffer
                       ? p->version[reads[k - 1].slot] - slots
                       : reads[k].slot;
    p->version[reads[k].slot] = slots + first;
    if (first == reads[k].slot) {
      const fw_buffer_t *b = (const fw_buffer_t *)reads[k].buffer;
      p->home[slots + first] =
          atomic_load_explicit(&((fw_buffer_t *)b)->mem.valid_mask, memory_order_relaxed) &
          modelled;
    }
  }
  free(reads);
  return 1;
}

void fw_plan_moves_fini(planner_t *p) {
  free(p->home);
  free(p->version);
  free(p->node_rep);
  p->home = NULL;
  p->version = NULL;
  p->node_rep = NULL;
}

void fw_timelines_free(timeline_t *lines, size_t n) {
  for (size_t k = 0; lines && k < n; ++k) {
    free(lines[k].start);
    free(lines[k].end);
  }
  free(lines);
}

int fw_plan_moves_scratch_alloc(planner_t *p) {
  p->arrive = malloc((2 * p->access_at[p->count] * p->num_nodes + 1) * sizeof(double));
  p->links = calloc(2 * (size_t)p->num_nodes, sizeof(*p->links));
  p->undo = NULL;
  p->num_undo = p->cap_undo = 0;
  p->trying = p->failed = 0;
  return p->arrive && p->links;
}

void fw_plan_moves_scratch_free(planner_t *p) {
  fw_timelines_free(p->links, 2 * (size_t)p->num_nodes);
  free(p->undo);
  free(p->arrive);
  p->links = NULL;
  p->undo = NULL;
  p->arrive = NULL;
}

void fw_plan_moves_reset(planner_t *p) {
  size_t versions = 2 * p->access_at[p->count];
  for (size_t k = 0; k < versions; ++k)
    for (uint32_t n = 0; n < p->num_nodes; ++n)
      p->arrive[k * p->num_nodes + n] = (p->home[k] >> n) & 1u ? p->now : INFINITY;
  for (size_t l = 0; l < p->num_nodes * 2; ++l) p->links[l].n = 0;
  p->num_undo = 0;
}

double fw_plan_inputs_ready(planner_t *p, const plan_t *plan, size_t i, const fw_worker_t *w) {
  p->trying = 1;
  double ready = book_inputs(p, plan, i, w);
  while (p->num_undo > 0) {
    const plan_undo_t *u = &p->undo[--p->num_undo];
    if (u->slot) *u->slot = u->value;
  }
  p->trying = 0;
  return ready;
}

double fw_plan_book_inputs(planner_t *p, const plan_t *plan, size_t i, const fw_worker_t *w) {
  double ready = book_inputs(p, plan, i, w);
  p->num_undo = 0; /* for good */
  return ready;
}

void fw_plan_produced(planner_t *p, const plan_t *plan, size_t i) {
  const fw_task_t *t = p->batch[i];
  uint32_t node = plan->worker[i] ? plan->worker[i]->memory_node : FW_NODE_HOST;
  for (size_t a = 0; a < t->num_accesses; ++a) {
    if (!(t->accesses[a].access & FW_ACCESS_WRITE)) continue;
    size_t v = p->access_at[i] + a;
    for (uint32_t n = 0; n < p->num_nodes; ++n)
      *arrival(p, v, n) = n == node ? plan->finish[i] : INFINITY;
  }
}
