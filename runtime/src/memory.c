/* Memory nodes, coherent buffers and eviction down the tiers (memory.h); the storage
 * tier's files are storage.c's, FW_TIER_LIMITS tier_limits.c's, the prefetch threads
 * prefetch.c's. */
#define _GNU_SOURCE
#include "memory.h"
#include "memory_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime_internal.h"
#include "scheduler.h"
#include "status_internal.h"
#include "trace.h"

/* ---- Setup --------------------------------------------------------------------- */

uint64_t fw_memory_device_limit(uint64_t own, uint64_t cap) {
  return cap && (cap == FW_TIER_LIMIT_MIN || !own || cap < own) ? cap : own;
}

void fw_memory_node_limit(fw_memory_node_t *node, uint64_t limit) {
  node->minimal = limit == FW_TIER_LIMIT_MIN;
  node->capacity = node->minimal ? 1 : limit; /* grows with the first needs */
  node->configured = node->capacity;
  node->capped = node->capacity != 0;
  atomic_store(&node->armed, node->capped);
}

int fw_memory_may_evict(const fw_memory_t *m) {
  for (size_t n = 0; n < m->num_nodes; ++n)
    if (m->nodes[n].capped) return 1;
  return 0;
}

fw_status_t fw_memory_init(fw_memory_t *m, fw_device_t *host_device,
                           const uint64_t limits[FW_NUM_TIERS], uint64_t host_memory,
                           const char *storage_dir, int buffered_storage, int prefetch,
                           uint32_t prefetch_window) {
  memset(m, 0, sizeof(*m));
  fw_status_t status = fw_storage_init(&m->storage, storage_dir, buffered_storage);
  if (status != FW_OK) return status;
  pthread_mutex_init(&m->lock, NULL);
  pthread_condattr_t monotonic;
  pthread_condattr_init(&monotonic);
  pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
  pthread_cond_init(&m->cv, &monotonic);
  pthread_condattr_destroy(&monotonic);
  pthread_mutex_init(&m->prefetch_lock, NULL);
  pthread_cond_init(&m->prefetch_cv, NULL);
  m->num_nodes = 2;
  fw_memory_node_t *host = &m->nodes[FW_NODE_HOST];
  snprintf(host->name, sizeof(host->name), "host");
  host->tier = FW_TIER_HOST;
  host->device = host_device;
  fw_memory_node_limit(host, limits[FW_TIER_HOST]);
  if (!host->capacity) host->capacity = host_memory; /* not a cap: host->armed stays 0 */
  host->lower = FW_NODE_STORAGE;
  fw_memory_node_t *storage = &m->nodes[FW_NODE_STORAGE];
  snprintf(storage->name, sizeof(storage->name), "storage");
  storage->tier = FW_TIER_STORAGE;
  fw_memory_node_limit(storage, limits[FW_TIER_STORAGE]);
  storage->lower = FW_NODE_STORAGE;
  m->prefetch_enabled = prefetch;
  m->prefetch_window = prefetch_window;
  return FW_OK;
}

/* ---- Replicas ------------------------------------------------------------------ */

void fw_memory_set_valid(fw_buffer_t *b, uint32_t node, int valid) {
  b->mem.replicas[node].valid = (uint8_t)valid;
  if (valid) atomic_fetch_or(&b->mem.valid_mask, 1u << node);
  else atomic_fetch_and(&b->mem.valid_mask, ~(1u << node));
}

int fw_memory_is_valid_on(const fw_buffer_t *buffer, uint32_t node) {
  return (atomic_load_explicit(&((fw_buffer_t *)buffer)->mem.valid_mask,
                               memory_order_relaxed) >> node) & 1u;
}

/* The host replica of a view of the caller's memory (fw_buffer_wrap): never allocated,
 * evicted or counted against the host tier. */
int fw_memory_host_wrapped(const fw_buffer_t *b, uint32_t node) {
  return b->wrapped && node == FW_NODE_HOST;
}

int fw_memory_valid_elsewhere(const fw_memory_t *m, const fw_buffer_t *b, uint32_t node) {
  for (uint32_t n = 0; n < m->num_nodes; ++n)
    if (n != node && b->mem.replicas[n].valid) return 1;
  return 0;
}

/* What waiters on the memory's state wait for happened (lock held). */
void fw_memory_changed(fw_memory_t *m) {
  ++m->changes;
  m->waiting_pins = 0; /* every waiter looks again, and counts itself again if it waits */
  pthread_cond_broadcast(&m->cv);
}

/* Whether a copy into or out of any replica of the buffer is in flight. */
int fw_memory_any_busy(const fw_memory_t *m, const fw_buffer_t *b) {
  for (uint32_t n = 0; n < m->num_nodes; ++n)
    if (b->mem.replicas[n].busy) return 1;
  return 0;
}

/* The buffers a task takes where it runs: its accesses, then its extra buffers (an
 * accumulator is read and written; NULL: let go while it ran). */
static size_t num_taken(const fw_task_t *t) { return t->num_accesses + t->num_extra; }
static fw_buffer_t *taken(const fw_task_t *t, size_t i) {
  return i < t->num_accesses ? t->accesses[i].buffer : t->extra[i - t->num_accesses].buffer;
}
static uint32_t taken_access(const fw_task_t *t, size_t i) {
  return i < t->num_accesses ? t->accesses[i].access : FW_ACCESS_READ_WRITE;
}
/* Whether taking a never-written buffer fills it with zeros: read, or written by a C task
 * (which may write only part of it), but not a compiled kernel's output (every element
 * defined, tensor semantics) nor an extra buffer (the task sets it). */
static int fills_unwritten(const fw_task_t *t, size_t i) {
  return i < t->num_accesses && ((t->accesses[i].access & FW_ACCESS_READ) || !t->module);
}

static void account_alloc(fw_memory_node_t *node, uint64_t size) {
  node->used += size;
  if (node->used > node->peak) node->peak = node->used;
}

/* Frees a replica's memory (lock held, replica not busy). */
/* Memory is contended no more once freed buffers left every sized node above storage at
 * most half full (the half keeps a node that stays nearly full from switching at each
 * buffer; a minimal node, sized to what it must hold, stays contended): placed tasks'
 * inputs move at once again instead of through the lookahead window
 * (fw_scheduler_prefetch_inputs). Under the lock. */
static void note_room(fw_memory_t *m) {
  if (!atomic_load_explicit(&m->spilled, memory_order_relaxed)) return;
  for (size_t i = 0; i < m->num_nodes; ++i) {
    const fw_memory_node_t *n = &m->nodes[i];
    if (n->tier != FW_TIER_STORAGE && n->capacity && (n->minimal || n->used > n->capacity / 2))
      return;
  }
  atomic_store_explicit(&m->spilled, 0, memory_order_relaxed);
}

static void drop_replica(fw_memory_t *m, fw_buffer_t *b, uint32_t node) {
  fw_replica_t *r = &b->mem.replicas[node];
  if (!r->allocated) return;
  fw_memory_node_t *n = &m->nodes[node];
  if (n->device) n->device->vtable->free(n->device, r->ptr, b->byte_size);
  else if (node == FW_NODE_STORAGE) fw_storage_remove(&m->storage, b->mem.id);
  n->used -= b->byte_size;
  r->ptr = NULL;
  r->allocated = 0;
  r->prefetched = 0;
  fw_memory_set_valid(b, node, 0);
}

static void link_buffer(fw_memory_t *m, fw_buffer_t *b) {
  b->mem.next = m->buffers;
  if (m->buffers) m->buffers->mem.prev = b;
  m->buffers = b;
}

static void unlink_buffer(fw_memory_t *m, fw_buffer_t *b) {
  if (b->mem.prev) b->mem.prev->mem.next = b->mem.next;
  else if (m->buffers == b) m->buffers = b->mem.next;
  if (b->mem.next) b->mem.next->mem.prev = b->mem.prev;
  b->mem.prev = b->mem.next = NULL;
}

/* Copies the buffer into `to` from a valid replica (`*out_from`, when given: the source
 * node, UINT32_MAX when no copy was made); the lock is dropped during the copy
 * and both replicas are busy meanwhile. `to` must be allocated. A copy of the buffer
 * already in flight (a prefetch, or another task that reads it) is waited for first: its
 * source is valid data, not missing data, and its destination may be `to` itself, half
 * written; when that copy made `to` valid there is nothing left to do. */
fw_status_t fw_memory_copy_in(fw_memory_t *m, fw_buffer_t *b, uint32_t to,
                              uint32_t *out_from) {
  if (out_from) *out_from = UINT32_MAX; /* no copy */
  while (fw_memory_any_busy(m, b)) pthread_cond_wait(&m->cv, &m->lock);
  if (b->mem.replicas[to].valid) return FW_OK;
  uint32_t from = m->num_nodes;
  for (uint32_t n = 0; n < m->num_nodes; ++n)
    if (n != to && b->mem.replicas[n].valid) {
      from = n;
      if (n != FW_NODE_STORAGE) break; /* prefer memory over files */
    }
  if (from == m->num_nodes) return FW_OK; /* never written: reads as zeros */
  if (out_from) *out_from = from;
  fw_replica_t *src = &b->mem.replicas[from], *dst = &b->mem.replicas[to];
  src->busy = dst->busy = 1;
  ++m->transfers;
  pthread_mutex_unlock(&m->lock);
  uint64_t t0 = fw_now_ns();
  fw_status_t status;
  int direct = 0; /* a file moved with direct I/O */
  if (from == FW_NODE_STORAGE)
    status = fw_storage_read(&m->storage, b->mem.id, dst->ptr, b->byte_size, &direct);
  else if (to == FW_NODE_STORAGE)
    status = fw_storage_write(&m->storage, b->mem.id, src->ptr, b->byte_size, &direct);
  else if (m->nodes[from].tier == FW_TIER_HOST)
    status = m->nodes[to].device->vtable->copy_to_device(m->nodes[to].device, NULL, dst->ptr,
                                                         src->ptr, b->byte_size);
  else if (m->nodes[to].tier == FW_TIER_HOST)
    status = m->nodes[from].device->vtable->copy_to_host(m->nodes[from].device, NULL, dst->ptr,
                                                         src->ptr, b->byte_size);
  else
    status = m->nodes[to].device->vtable->copy_on_device(m->nodes[to].device, NULL, dst->ptr,
                                                         src->ptr, b->byte_size);
  uint64_t t1 = fw_now_ns();
  if (m->trace && m->trace->enabled)
    fw_trace_add(m->trace, FW_TRACE_COPY_TRACK(m->nodes[from].tier, m->nodes[to].tier),
                 from != FW_NODE_STORAGE && to != FW_NODE_STORAGE ? "copy"
                 : direct                                          ? "copy (direct I/O)"
                                                                   : "copy (page cache)",
                 t0, t1, b->byte_size);
  pthread_mutex_lock(&m->lock);
  --m->transfers;
  src->busy = dst->busy = 0;
  if (status == FW_OK) {
    fw_memory_set_valid(b, to, 1);
    m->bytes_moved[m->nodes[from].tier][m->nodes[to].tier] += b->byte_size;
    m->copy_ns[m->nodes[from].tier][m->nodes[to].tier] += t1 - t0;
    uint32_t device = m->nodes[to].tier == FW_TIER_DEVICE     ? to
                      : m->nodes[from].tier == FW_TIER_DEVICE ? from
                                                              : m->num_nodes;
    uint32_t other = device == to ? from : to;
    if (device < m->num_nodes && m->nodes[other].tier == FW_TIER_HOST &&
        b->byte_size >= FW_LINK_SAMPLE_BYTES) {
      atomic_fetch_add_explicit(&m->nodes[device].link_bytes, b->byte_size,
                                memory_order_relaxed);
      atomic_fetch_add_explicit(&m->nodes[device].link_ns, t1 - t0, memory_order_relaxed);
    }
  }
  fw_memory_changed(m);
  return status;
}

/* Gives a never-written buffer's replica on a memory node (pinned by the caller) its
 * value: zeros. A large fill drops the lock like a copy, the replica busy meanwhile, so
 * that other tasks and the prefetch threads are not held up; a copy or fill of the buffer
 * already in flight is waited for first, and when that one gave the replica its value
 * there is nothing left to do. */
#define FW_FILL_UNLOCKED_BYTES (256u << 10)
static fw_status_t fill_zero(fw_memory_t *m, fw_buffer_t *b, uint32_t node) {
  fw_device_t *device = m->nodes[node].device;
  if (!device) return FW_OK; /* storage: a file that was never written */
  fw_replica_t *r = &b->mem.replicas[node];
  if (b->byte_size < FW_FILL_UNLOCKED_BYTES)
    return device->vtable->fill_zero(device, r->ptr, b->byte_size);
  while (fw_memory_any_busy(m, b)) pthread_cond_wait(&m->cv, &m->lock);
  if (r->valid) return FW_OK;
  /* Written meanwhile: */
  if (fw_memory_valid_elsewhere(m, b, node)) return fw_memory_copy_in(m, b, node, NULL);
  r->busy = 1;
  ++m->transfers;
  pthread_mutex_unlock(&m->lock);
  fw_status_t status = device->vtable->fill_zero(device, r->ptr, b->byte_size);
  pthread_mutex_lock(&m->lock);
  --m->transfers;
  r->busy = 0;
  fw_memory_changed(m);
  return status;
}

/* What a device node's device could hold of ours now (lock held): the bytes allocated
 * here and what it could still allocate; 0 when it does not say. */
static uint64_t device_total(fw_memory_node_t *n) {
  uint64_t available = 0;
  if (!n->device || !n->device->vtable->available) return 0;
  fw_status_t status = n->device->vtable->available(n->device, &available);
  if (status != FW_OK) {
    fw_status_free(status);
    return 0;
  }
  return n->used + available;
}

static void set_capacity(fw_memory_node_t *n, uint64_t capacity, int lowered) {
  __atomic_store_n(&n->lowered, lowered, __ATOMIC_RELAXED);      /* capacity_source */
  __atomic_store_n(&n->capacity, capacity, __ATOMIC_RELAXED); /* fw_memory_node_capacity */
}

/* The driver refused `size` bytes of device memory with the node's `used` bytes allocated
 * (lock held): other processes, the driver or the kernels' code hold more than the
 * capacity allowed for, so the capacity falls to the most that could have fitted (less
 * where the device says it has less), and eviction makes room below it. Returns whether
 * it fell (the caller may try again). */
static int lower_capacity(fw_memory_node_t *n, uint64_t size) {
  if (n->tier != FW_TIER_DEVICE || !n->capped || n->minimal) return 0;
  uint64_t could_fit = n->used + size - 1, total = device_total(n);
  if (total && total < could_fit) could_fit = total;
  if (could_fit >= n->capacity) return 0;
  if (could_fit == 0) could_fit = 1; /* 0 would mean unlimited */
  n->refused_total = total ? total : UINT64_MAX;
  set_capacity(n, could_fit, 1);
  return 1;
}

/* A lowered device node's capacity rises again, up to the configured one, once its device
 * has clearly more than when it refused (another process freed memory; lock held). Its
 * own allocations and frees leave that total as it was, but for blocks rounded up, which
 * the margin of 1/64 of the configured capacity absorbs. */
static void regain_capacity(fw_memory_node_t *n) {
  if (!n->lowered || n->refused_total == UINT64_MAX) return;
  uint64_t total = device_total(n);
  if (total <= n->refused_total + n->configured / 64) return;
  if (total >= n->configured) set_capacity(n, n->configured, 0);
  else if (total > n->capacity) set_capacity(n, total, 1);
}

/* Allocates the replica on `node` (lock held); *out_lowered (when not NULL) says whether a
 * refusal lowered the node's capacity (lower_capacity). */
static fw_status_t allocate_replica_or_learn(fw_memory_t *m, fw_buffer_t *b, uint32_t node,
                                             int *out_lowered) {
  fw_replica_t *r = &b->mem.replicas[node];
  if (out_lowered) *out_lowered = 0;
  if (r->allocated) return FW_OK;
  fw_memory_node_t *n = &m->nodes[node];
  if (n->device) {
    fw_status_t status = n->device->vtable->alloc(n->device, b->byte_size, &r->ptr);
    if (status != FW_OK) {
      if (fw_status_code(status) == FW_STATUS_RESOURCE_EXHAUSTED &&
          lower_capacity(n, b->byte_size) && out_lowered)
        *out_lowered = 1;
      return status;
    }
  } else {
    fw_status_t status = fw_storage_ensure_dir(&m->storage);
    if (status != FW_OK) return status;
  }
  r->allocated = 1;
  account_alloc(n, b->byte_size);
  return FW_OK;
}

fw_status_t fw_memory_allocate_replica(fw_memory_t *m, fw_buffer_t *b, uint32_t node) {
  return allocate_replica_or_learn(m, b, node, NULL);
}

/* Whether the replica on `node` may be evicted now. */
static int evictable(const fw_memory_t *m, const fw_buffer_t *b, uint32_t node) {
  const fw_replica_t *r = &b->mem.replicas[node];
  /* Any copy of the buffer in flight: leave it (the copy may wait, and the buffer could be
   * freed meanwhile). */
  if (fw_memory_any_busy(m, b)) return 0;
  return r->allocated && r->pins == 0 &&
         !atomic_load_explicit(&((fw_buffer_t *)b)->mem.mapped, memory_order_relaxed) &&
         !fw_memory_host_wrapped(b, node);
}

unsigned fw_memory_value_class(const fw_memory_t *m, const fw_buffer_t *b) {
  if (atomic_load_explicit(&((fw_buffer_t *)b)->mem.future_uses, memory_order_relaxed) == 0)
    return 0;
  return b->mem.window_mark == m->window_epoch && m->window_epoch ? 2 : 1;
}

int fw_memory_better_victim(const fw_buffer_t *b, unsigned c, const fw_buffer_t *best,
                            unsigned best_class, uint32_t node) {
  if (!best || c != best_class) return !best || c < best_class;
  if (c == 2 && b->mem.window_pos != best->mem.window_pos)
    return b->mem.window_pos > best->mem.window_pos;
  return b->mem.replicas[node].last_use < best->mem.replicas[node].last_use;
}

/* Everything may go (a task needs the room now). */
#define FW_PROTECT_NONE (-1)

/* As `extra_below`: whatever room the node below lacks can be made there. */
#define FW_ANY_ROOM_BELOW UINT64_MAX

/* Whether the replica can leave `node` now: dropped (another valid copy, or none needed),
 * or written one tier down where there is room, counting `extra_below` bytes that could be
 * made there. */
static int can_leave(const fw_memory_t *m, const fw_buffer_t *b, uint32_t node,
                     uint64_t extra_below) {
  const fw_replica_t *r = &b->mem.replicas[node];
  if (!r->valid || fw_memory_valid_elsewhere(m, b, node)) return 1;
  uint32_t lower = m->nodes[node].lower;
  if (lower == node) return 0;
  if (fw_memory_host_wrapped(b, lower)) return 1; /* the caller's memory: always there */
  const fw_memory_node_t *ln = &m->nodes[lower];
  return !ln->capacity || b->mem.replicas[lower].allocated ||
         extra_below == FW_ANY_ROOM_BELOW ||
         ln->used + b->byte_size <= ln->capacity + extra_below;
}

/* Whether the replica on `node` could be dropped for room there without writing anything:
 * nothing uses it and another node holds a valid copy. */
static int droppable(const fw_memory_t *m, const fw_buffer_t *b, uint32_t node) {
  return evictable(m, b, node) && b->mem.replicas[node].valid &&
         fw_memory_valid_elsewhere(m, b, node);
}

/* The bytes such replicas hold on the node below `node` (0 at the bottom). */
static uint64_t droppable_below(const fw_memory_t *m, uint32_t node) {
  uint32_t lower = m->nodes[node].lower;
  uint64_t bytes = 0;
  if (lower == node) return 0;
  for (const fw_buffer_t *b = m->buffers; b; b = b->mem.next)
    if (droppable(m, b, lower)) bytes += b->byte_size;
  return bytes;
}

int fw_memory_task_accesses(const fw_task_t *task, const fw_buffer_t *b) {
  for (size_t i = 0; task && i < num_taken(task); ++i)
    if (taken(task, i) == b) return 1;
  return 0;
}

/* The least valuable evictable replica on `node` that `keep` does not access: class 0,
 * then class 1 (least recently used first), then class 2 needed furthest in the window
 * first (Belady's choice within what the window shows). Class-2 replicas needed at or
 * before window position `protect` are kept. Those that must be written below count
 * `extra_below` bytes more room there (can_leave). NULL when none. */
static fw_buffer_t *pick_victim(fw_memory_t *m, uint32_t node, int64_t protect,
                                const fw_task_t *keep, uint64_t extra_below) {
  fw_buffer_t *best = NULL;
  unsigned best_class = 0;
  for (fw_buffer_t *b = m->buffers; b; b = b->mem.next) {
    if (!evictable(m, b, node) || !can_leave(m, b, node, extra_below) ||
        fw_memory_task_accesses(keep, b))
      continue;
    unsigned c = fw_memory_value_class(m, b);
    if (c == 2 && (int64_t)b->mem.window_pos <= protect) continue;
    if (fw_memory_better_victim(b, c, best, best_class, node)) {
      best = b;
      best_class = c;
    }
  }
  return best;
}

/* Makes room for `b` on the node below `node` by dropping replicas there that have a
 * valid copy on another node (the least valuable first; nothing is written, and nothing
 * moves down a tier, so it is no eviction): the copies a tier keeps of what was brought
 * up from it. Whether the room is there. */
static int room_below(fw_memory_t *m, const fw_buffer_t *b, uint32_t node) {
  uint32_t lower = m->nodes[node].lower;
  fw_memory_node_t *ln = &m->nodes[lower];
  while (ln->capacity && ln->used + b->byte_size > ln->capacity) {
    fw_buffer_t *best = NULL;
    unsigned best_class = 0;
    for (fw_buffer_t *d = m->buffers; d; d = d->mem.next) {
      if (!droppable(m, d, lower)) continue;
      unsigned c = fw_memory_value_class(m, d);
      if (fw_memory_better_victim(d, c, best, best_class, lower)) {
        best = d;
        best_class = c;
      }
    }
    if (!best) return 0;
    drop_replica(m, best, lower);
  }
  return 1;
}

/* This thread's count on a node (the first FW_FAST_STRIPES threads have one each). */
static int thread_stripe(void) {
  static atomic_uint next_stripe;
  static _Thread_local int stripe = -1;
  if (stripe < 0) stripe = (int)(atomic_fetch_add(&next_stripe, 1) % FW_FAST_STRIPES);
  return stripe;
}

static int fast_users(const fw_memory_node_t *n) {
  int users = 0;
  for (int k = 0; k < FW_FAST_STRIPES; ++k) users += atomic_load(&n->fast_users[k].count);
  return users;
}

/* Tasks counted on a node where eviction is armed: those leaving wake waiters there
 * (leave_fast); elsewhere no eviction waits for them. */
static int any_fast_users(const fw_memory_t *m) {
  for (size_t n = 0; n < m->num_nodes; ++n)
    if (atomic_load(&m->nodes[n].armed) && fast_users(&m->nodes[n])) return 1;
  return 0;
}

/* The task stops counting on `n` (no lock held); once eviction is armed there, it may wait
 * for that. */
static void leave_fast(fw_memory_t *m, fw_memory_node_t *n, fw_task_t *task) {
  atomic_fetch_sub(&n->fast_users[task->fast_stripe].count, 1);
  task->fast_stripe = -1;
  if (atomic_load(&n->armed)) {
    pthread_mutex_lock(&m->lock);
    fw_memory_changed(m);
    pthread_mutex_unlock(&m->lock);
  }
}

/* Counts the task among those that hold buffers on `n` without pins, unless eviction is
 * armed there. The count is made before armed is read, and evictable_now sets armed before
 * it reads the count (all sequentially consistent): either the task sees armed and takes
 * the locked path, or eviction sees the task and waits for it. */
static int enter_fast(fw_memory_t *m, fw_memory_node_t *n, fw_task_t *task) {
  task->fast_stripe = thread_stripe();
  atomic_fetch_add(&n->fast_users[task->fast_stripe].count, 1);
  if (!atomic_load(&n->armed)) return 1;
  leave_fast(m, n, task);
  return 0;
}

/* Whether replicas on `n` may be evicted or dropped now (lock held): no task holds one
 * of them without a pin. The first time a node that is not capped runs out of room this
 * arms it: from then on tasks take their buffers there under the lock, and eviction
 * waits for those that took theirs before (m->fast_blocked says it had to). */
static int evictable_now(fw_memory_t *m, fw_memory_node_t *n) {
  if (!atomic_load(&n->armed)) atomic_store(&n->armed, 1);
  if (fast_users(n) == 0) return 1;
  m->fast_blocked = 1;
  return 0;
}

/* Moves one replica off `node`: dropped when another node holds a valid copy, else
 * written to the node below first (where duplicates are dropped for its room when there
 * is none, or else copies move down from there in turn: *evicted = 1 then counts those).
 * Returns FW_OK with *evicted = 0 when nothing could go. May drop the lock. */
static fw_status_t evict_one(fw_memory_t *m, uint32_t node, int64_t protect,
                             const fw_task_t *keep, int *evicted) {
  *evicted = 0;
  fw_buffer_t *b = pick_victim(m, node, protect, keep, 0);
  /* Every candidate lacks room below: dropping duplicates there may make it for one that
   * they can make it for (without them a full host tier over a full storage tier stayed
   * stuck while the storage tier held the copies of what had been brought up from it). */
  if (!b && evictable_now(m, &m->nodes[m->nodes[node].lower])) {
    uint64_t extra = droppable_below(m, node);
    if (extra && (b = pick_victim(m, node, protect, keep, extra)) && !room_below(m, b, node))
      b = NULL;
  }
  /* Still none: the tier below is full of copies that are the only ones. It makes room in
   * turn by moving its least valuable copies down (device → host → storage); the caller
   * then looks again, since doing so drops the lock. */
  if (!b) {
    fw_buffer_t *next = pick_victim(m, node, protect, keep, FW_ANY_ROOM_BELOW);
    if (!next) return FW_OK;
    int made = 0;
    unsigned below = 0;
    fw_status_t status =
        fw_memory_make_room(m, m->nodes[node].lower, next->byte_size, protect, keep, &made, &below);
    if (status != FW_OK) return status;
    *evicted = below > 0;
    return FW_OK;
  }
  fw_replica_t *r = &b->mem.replicas[node];
  if (r->valid && !fw_memory_valid_elsewhere(m, b, node)) {
    uint32_t lower = m->nodes[node].lower;
    if (lower == node) return FW_OK; /* the bottom tier keeps what it has */
    fw_memory_node_t *ln = &m->nodes[lower];
    int wrapped = fw_memory_host_wrapped(b, lower); /* written back to the caller's memory */
    if (!wrapped && ln->capacity && ln->used + b->byte_size > ln->capacity &&
        !b->mem.replicas[lower].allocated)
      return FW_OK; /* no room below: storage is not evicted further */
    fw_status_t status = wrapped ? FW_OK : fw_memory_allocate_replica(m, b, lower);
    if (status != FW_OK) return status;
    /* No reference is taken: fw_memory_buffer_free waits while a replica is busy. */
    status = fw_memory_copy_in(m, b, lower, NULL);
    if (status != FW_OK) {
      return fw_status_annotate(status, "evicting a %zu-byte buffer from %s", b->byte_size,
                                m->nodes[node].name);
    }
    ++m->evictions;
    atomic_store_explicit(&m->spilled, 1, memory_order_relaxed);
    /* The copy dropped the lock: the replica may have been pinned or rewritten since. */
    if (evictable(m, b, node) && r->valid) drop_replica(m, b, node);
    *evicted = 1;
    return FW_OK;
  }
  drop_replica(m, b, node); /* a valid copy exists below: nothing to write */
  ++m->evictions;
  *evicted = 1;
  return FW_OK;
}

/* Frees room for `need` more bytes on `node`, never evicting what `keep` (a task making
 * room for its inputs, or NULL) accesses: evicting one of its inputs would only bring it
 * back. Returns FW_OK and *made = 1 when there is room, *made = 0 when nothing more can be
 * evicted now; *evictions (when given) counts what it evicted. May drop the lock (when it
 * evicts): callers re-check their state afterwards. */
fw_status_t fw_memory_make_room(fw_memory_t *m, uint32_t node, uint64_t need,
                                int64_t protect, const fw_task_t *keep, int *made,
                                unsigned *evictions) {
  fw_memory_node_t *n = &m->nodes[node];
  *made = 1;
  if (evictions) *evictions = 0;
  while (n->capacity && n->used + need > n->capacity) {
    if (!evictable_now(m, n)) {
      *made = 0;
      return FW_OK;
    }
    int evicted = 0;
    fw_status_t status = evict_one(m, node, protect, keep, &evicted);
    if (status != FW_OK) return status;
    if (!evicted) {
      *made = 0;
      return FW_OK;
    }
    if (evictions) ++*evictions;
  }
  return FW_OK;
}

uint64_t fw_memory_changes(fw_memory_t *m) {
  pthread_mutex_lock(&m->lock);
  uint64_t changes = m->changes;
  pthread_mutex_unlock(&m->lock);
  return changes;
}

void fw_memory_wait_change(fw_memory_t *m, uint64_t seen, uint64_t timeout_ns) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  uint64_t ns = (uint64_t)deadline.tv_nsec + timeout_ns;
  deadline.tv_sec += (time_t)(ns / 1000000000u);
  deadline.tv_nsec = (long)(ns % 1000000000u);
  pthread_mutex_lock(&m->lock);
  while (m->changes == seen)
    if (pthread_cond_timedwait(&m->cv, &m->lock, &deadline) != 0) break; /* timed out */
  pthread_mutex_unlock(&m->lock);
}

static void wait_memory(fw_memory_t *m, uint64_t *stall_ns) {
  uint64_t t0 = fw_now_ns();
  pthread_cond_wait(&m->cv, &m->lock);
  if (stall_ns) *stall_ns += fw_now_ns() - t0;
}

/* Whether something in flight may still free room: running tasks unpin, copies finish,
 * the prefetch thread drops buffer references (lock held). `own_pins` of the pins are the
 * caller's (a task body's task), which cannot go while it waits. Nor can, for such a
 * caller, those of the bodies already waiting for room (waiting_pins): when they hold all
 * the pins, each would wait for the others for good, so this one fails instead (its
 * task's end then frees its pins for them). A caller holding no pins waits for theirs:
 * each change wakes the bodies, and one of them then gets its room or fails. */
static int room_may_come(const fw_memory_t *m, uint32_t own_pins) {
  uint32_t stuck = own_pins ? m->waiting_pins + own_pins : 0;
  return m->task_pins > stuck || m->transfers > 0 ||
         atomic_load_explicit(&((fw_memory_t *)m)->prefetch_refs, memory_order_relaxed) > 0 ||
         any_fast_users(m);
}

/* Where a node's capacity comes from, for messages. */
static const char *capacity_source(const fw_memory_node_t *n) {
  if (__atomic_load_n(&n->lowered, __ATOMIC_RELAXED))
    return "lowered when the driver refused an allocation";
  if (n->tier == FW_TIER_DEVICE) return "the device's memory, or FW_TIER_LIMITS";
  if (n->capped) return "FW_TIER_LIMITS";
  return "the memory available when the runtime started, or FW_HOST_MEMORY";
}

static fw_status_t nothing_to_evict(const fw_memory_t *m, uint32_t node, const char *who,
                                    uint64_t need) {
  const fw_memory_node_t *n = &m->nodes[node];
  return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                        "%s needs %llu bytes of %s memory that it does not have yet, but "
                        "%llu of the %s tier's %llu bytes (%s) are in use and nothing left in "
                        "it can be evicted (the caller holds it through fw_buffer_data, or a "
                        "task whose body asks for the room holds it, or it cannot move down a "
                        "tier); release buffers or raise the capacity",
                        who, (unsigned long long)need, n->name, (unsigned long long)n->used,
                        fw_tier_name(n->tier), (unsigned long long)n->capacity,
                        capacity_source(n));
}

/* Whether the fast path counts its writers: only where a copy of a buffer can start while
 * a task writes it, a prefetch to another memory node (fixed at setup). */
static int counts_fast_writers(const fw_memory_t *m) {
  return m->num_nodes > 2; /* host and storage, and a device */
}

static int all_valid_only_on(const fw_task_t *task, uint32_t node) {
  for (size_t i = 0; i < num_taken(task); ++i) {
    fw_buffer_t *b = taken(task, i);
    if (atomic_load_explicit(&b->mem.valid_mask, memory_order_acquire) != (1u << node))
      return 0;
  }
  return 1;
}

/* Counts the task among the writers of the buffers it writes, or (0) does not when a
 * prefetch copies one of them. A prefetch marks its copy and then looks for writers, this
 * counts itself and then looks for copies (all sequentially consistent), so one of the two
 * sees the other: the prefetch gives up, or this task takes the locked path (a copy that
 * landed meanwhile made the buffer valid elsewhere too). */
static void uncount_writers(fw_task_t *task) {
  for (size_t i = 0; i < num_taken(task); ++i)
    if ((taken_access(task, i) & FW_ACCESS_WRITE) && taken(task, i))
      atomic_fetch_sub(&taken(task, i)->mem.writers, 1);
}

static int count_fast_writers(fw_task_t *task, uint32_t node) {
  for (size_t i = 0; i < num_taken(task); ++i)
    if (taken_access(task, i) & FW_ACCESS_WRITE)
      atomic_fetch_add(&taken(task, i)->mem.writers, 1);
  int clear = 1;
  for (size_t i = 0; i < num_taken(task) && clear; ++i)
    clear = !(taken_access(task, i) & FW_ACCESS_WRITE) ||
            atomic_load(&taken(task, i)->mem.copying) == 0;
  if (clear && all_valid_only_on(task, node)) return 1;
  uncount_writers(task);
  return 0;
}

/* Until eviction is armed on the node nothing is evicted from it, so pins and recency do
 * not matter: when every buffer is already valid there and nowhere else, the task can run
 * without the lock (on a node with a capacity, counted in its fast_users: enter_fast).
 * The valid bit is set (atomically) after the replica's pointer, so seeing it makes the
 * pointer visible. */
static int acquire_fast(fw_memory_t *m, fw_task_t *task, uint32_t node, void **out_data) {
  fw_memory_node_t *n = &m->nodes[node];
  task->fast_stripe = -1;
  if (atomic_load_explicit(&n->armed, memory_order_relaxed)) return 0;
  /* The capacity of a node not armed at setup is fixed: read without the lock. */
  if (n->capacity && !enter_fast(m, n, task)) return 0;
  if (!all_valid_only_on(task, node) ||
      (counts_fast_writers(m) && !count_fast_writers(task, node))) {
    if (task->fast_stripe >= 0) leave_fast(m, n, task);
    return 0;
  }
  for (size_t i = 0; i < num_taken(task); ++i)
    out_data[i] = taken(task, i)->mem.replicas[node].ptr;
  return 1;
}

/* With the lock held: makes room for `need` more bytes on `node` by evicting, or waits
 * for running tasks and copies to free some. FW_OK with *again = 0: the room is there;
 * with *again = 1: the lock was dropped, so the caller checks its state again. An error
 * when nothing can be evicted and nothing will free room, except on a minimal node
 * ("TIER=min"), which grows by what is missing instead. */
static fw_status_t reserve_room(fw_memory_t *m, uint32_t node, uint64_t need,
                                const fw_task_t *task, const char *who, uint64_t *stall_ns,
                                uint32_t own_pins, int *again) {
  fw_memory_node_t *n = &m->nodes[node];
  *again = 0;
  if (!n->capacity || n->used + need <= n->capacity) return FW_OK;
  regain_capacity(n);
  if (n->used + need <= n->capacity) return FW_OK;
  int made = 0;
  unsigned evictions = 0;
  m->fast_blocked = 0;
  fw_status_t status = fw_memory_make_room(m, node, need, FW_PROTECT_NONE, task, &made, &evictions);
  if (status != FW_OK) return fw_status_annotate(status, "%s", who);
  /* Evicting dropped the lock: what the caller needs may have changed meanwhile (a
   * prefetch may have brought its inputs in), so it looks again before anything is
   * decided. */
  if (!made && evictions > 0) {
    *again = 1;
    return FW_OK;
  }
  /* (Without evictions the lock was held throughout, so fast_blocked is this call's.)
   * Tasks that took their buffers without the lock hold what could go: it waits for them
   * (each one leaving wakes it), or looks again at once when the last has just left. */
  if (!made && m->fast_blocked) {
    if (any_fast_users(m)) wait_memory(m, stall_ns);
    *again = 1;
    return FW_OK;
  }
  if (!made) {
    if (n->minimal && !room_may_come(m, own_pins)) {
      n->capacity = n->used + need;
      return FW_OK;
    }
    if (!room_may_come(m, own_pins)) return nothing_to_evict(m, node, who, need);
    /* Counted among the stuck until the next change wakes every waiter (fw_memory_changed() then
     * forgets them all): a body woken by an unpin that will get its room is not counted
     * as stuck by another that looks first. */
    uint64_t seen = m->changes;
    m->waiting_pins += own_pins;
    wait_memory(m, stall_ns); /* running tasks will unpin */
    if (m->changes == seen) m->waiting_pins -= own_pins; /* woken without a change */
  }
  *again = 1;
  return FW_OK;
}

/* Whether the task's buffers can be taken on `node` without waiting or copying (lock
 * held): no copy of them in flight, room for the ones not allocated there without
 * evicting, and each one valid there, or never written and either written whole or small
 * enough to fill in place. */
static int can_take_now(const fw_memory_t *m, const fw_task_t *task, uint32_t node) {
  uint64_t need = 0;
  for (size_t i = 0; i < num_taken(task); ++i) {
    const fw_buffer_t *b = taken(task, i);
    const fw_replica_t *r = &b->mem.replicas[node];
    if (fw_memory_any_busy(m, b)) return 0;
    if (!fw_memory_host_wrapped(b, node) && !r->allocated) need += b->byte_size;
    if (r->valid) continue;
    if (fw_memory_valid_elsewhere(m, b, node)) return 0;
    if (fills_unwritten(task, i) && b->byte_size >= FW_FILL_UNLOCKED_BYTES) return 0;
  }
  const fw_memory_node_t *n = &m->nodes[node];
  return !n->capacity || n->used + need <= n->capacity;
}

int fw_memory_try_regain(fw_memory_t *m, uint32_t node) {
  fw_memory_node_t *n = &m->nodes[node];
  if (!__atomic_load_n(&n->lowered, __ATOMIC_RELAXED) || pthread_mutex_trylock(&m->lock))
    return 0;
  uint64_t before = n->capacity;
  regain_capacity(n);
  int rose = n->capacity > before;
  pthread_mutex_unlock(&m->lock);
  return rose;
}

fw_status_t fw_memory_check_fits(const fw_memory_t *m, const fw_task_t *task, uint32_t node) {
  const fw_memory_node_t *n = &m->nodes[node];
  if (n->minimal) return FW_OK; /* it grows (under the lock) */
  uint64_t capacity = fw_memory_node_capacity(n); /* a device's may fall meanwhile */
  if (!capacity) return FW_OK; /* unbounded */
  uint64_t working_set = 0;
  for (size_t i = 0; i < task->num_accesses; ++i)
    if (!fw_memory_host_wrapped(task->accesses[i].buffer, node))
      working_set += task->accesses[i].buffer->byte_size;
  /* A contribution's accumulators, as large as the buffers they reduce, count before a
   * worker made them (its extra buffers are those, when made); another task's extra
   * buffers are accumulators it folds. */
  if (task->num_reduces) {
    for (uint32_t r = 0; r < task->num_reduces; ++r)
      working_set += task->reduces[r].buffer->byte_size;
  } else {
    for (size_t k = 0; k < task->num_extra; ++k)
      if (task->extra[k].buffer) working_set += task->extra[k].buffer->byte_size;
  }
  if (working_set <= capacity) return FW_OK;
  return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                        "task @%s needs %llu bytes of %s memory at once, but the %s tier holds "
                        "at most %llu bytes (%s)",
                        task->name, (unsigned long long)working_set, n->name,
                        fw_tier_name(n->tier), (unsigned long long)capacity, capacity_source(n));
}

/* Unpins the first `pinned` of the task's buffers on `node` (lock held). */
static void unpin_taken(fw_memory_t *m, fw_task_t *task, uint32_t node, size_t pinned) {
  for (size_t i = 0; i < pinned; ++i) {
    fw_buffer_t *b = taken(task, i);
    --b->mem.replicas[node].pins;
    --m->task_pins;
    if (taken_access(task, i) & FW_ACCESS_WRITE) atomic_fetch_sub(&b->mem.writers, 1);
  }
  fw_memory_changed(m);
}

/* fw_memory_acquire; with `nowait`, *out_refused = 1 and nothing done when it would have
 * to wait, evict or copy. */
static fw_status_t acquire(fw_memory_t *m, fw_task_t *task, uint32_t node, void **out_data,
                           uint64_t *out_stall_ns, uint64_t (*out_moved)[FW_NUM_TIERS],
                           int nowait, int *out_refused) {
  *out_stall_ns = 0;
  *out_refused = 0;
  size_t count = num_taken(task);
  if (count == 0) return FW_OK;
  if (acquire_fast(m, task, node, out_data)) {
    task->fast_memory = 1;
    return FW_OK;
  }
  task->fast_memory = 0;
  char who[200];
  snprintf(who, sizeof(who), "task @%s", task->name);
  fw_memory_node_t *n = &m->nodes[node];
  if (__atomic_load_n(&n->lowered, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&m->lock);
    regain_capacity(n); /* before it is found too small */
    pthread_mutex_unlock(&m->lock);
  }
  fw_status_t fits = fw_memory_check_fits(m, task, node);
  if (fits != FW_OK) return fits;
  /* The worker stalls from here until its inputs are in place: waits for copies in flight
   * and for room, evictions it makes, its own fetches. */
  uint64_t begin = fw_now_ns(), stall = 0;
  pthread_mutex_lock(&m->lock);
  uint64_t evictions_before = m->evictions;
  fw_status_t status;
  size_t pinned;
retry:
  if (nowait && !can_take_now(m, task, node)) {
    pthread_mutex_unlock(&m->lock);
    *out_refused = 1;
    return FW_OK;
  }
  for (;;) {
    /* The capacity may have fallen below the task meanwhile (lock let go). */
    status = n->lowered ? fw_memory_check_fits(m, task, node) : FW_OK;
    if (status != FW_OK) {
      pthread_mutex_unlock(&m->lock);
      return status;
    }
    int busy = 0;
    uint64_t need = 0;
    for (size_t i = 0; i < count; ++i) {
      fw_buffer_t *b = taken(task, i);
      busy |= fw_memory_any_busy(m, b);
      if (!fw_memory_host_wrapped(b, node) && !b->mem.replicas[node].allocated)
        need += b->byte_size;
    }
    if (busy) {
      wait_memory(m, &stall);
      continue;
    }
    int again = 0;
    status = reserve_room(m, node, need, task, who, &stall, 0, &again);
    if (status != FW_OK) {
      pthread_mutex_unlock(&m->lock);
      return status;
    }
    if (!again) break;
  }
  status = FW_OK;
  int fell = 0;
  for (pinned = 0; pinned < count; ++pinned) {
    fw_buffer_t *b = taken(task, pinned);
    if (!fw_memory_host_wrapped(b, node)) {
      status = allocate_replica_or_learn(m, b, node, &fell);
      if (status != FW_OK) break;
    }
    ++b->mem.replicas[node].pins;
    ++m->task_pins;
    if (taken_access(task, pinned) & FW_ACCESS_WRITE) atomic_fetch_add(&b->mem.writers, 1);
  }
  if (fell) {
    /* The device had less room than its capacity said, which is lower now: room is made
     * below it again (evicting), unless the task no longer fits at all. */
    unpin_taken(m, task, node, pinned);
    fw_status_free(status);
    goto retry;
  }
  for (size_t i = 0; status == FW_OK && i < count; ++i) {
    fw_buffer_t *b = taken(task, i);
    fw_replica_t *r = &b->mem.replicas[node];
    if (r->valid) {
      if (r->prefetched) ++m->prefetch_hits;
    } else if (fw_memory_valid_elsewhere(m, b, node)) {
      ++m->demand_fetches;
      uint64_t t0 = fw_now_ns();
      uint32_t from = UINT32_MAX;
      status = fw_memory_copy_in(m, b, node, &from);
      stall += fw_now_ns() - t0;
      if (out_moved && status == FW_OK && from != UINT32_MAX)
        out_moved[m->nodes[from].tier][m->nodes[node].tier] += b->byte_size;
    } else {
      /* Never written: it reads as zeros (fills_unwritten). */
      if (fills_unwritten(task, i)) status = fill_zero(m, b, node);
      if (status == FW_OK) fw_memory_set_valid(b, node, 1);
    }
    r->prefetched = 0;
    out_data[i] = r->ptr;
  }
  if (status != FW_OK) unpin_taken(m, task, node, pinned);
  /* Time spent here is a stall only when there was something to wait for or to move:
   * the lock and the bookkeeping alone are not. */
  if (stall || m->evictions != evictions_before) stall = fw_now_ns() - begin;
  m->stall_ns += stall;
  *out_stall_ns = stall;
  pthread_mutex_unlock(&m->lock);
  return status == FW_OK ? FW_OK : fw_status_annotate(status, "%s", who);
}

fw_status_t fw_memory_acquire(fw_memory_t *m, fw_task_t *task, uint32_t node, void **out_data,
                              uint64_t *out_stall_ns, uint64_t (*out_moved)[FW_NUM_TIERS]) {
  int refused;
  return acquire(m, task, node, out_data, out_stall_ns, out_moved, 0, &refused);
}

fw_status_t fw_memory_try_acquire(fw_memory_t *m, fw_task_t *task, uint32_t node,
                                  void **out_data, int *out_taken) {
  uint64_t stall;
  int refused;
  fw_status_t status = acquire(m, task, node, out_data, &stall, NULL, 1, &refused);
  *out_taken = status == FW_OK && !refused;
  return status;
}

/* Unpins; with `commit`, written buffers become valid on `node` only. */
static void release(fw_memory_t *m, fw_task_t *task, uint32_t node, int commit) {
  if (num_taken(task) == 0) return;
  /* Acquired without the lock: valid on this node only, nothing pinned, nothing to
   * invalidate (no copy can have appeared elsewhere: nothing is evicted here while a task
   * counted on the node runs, and no prefetch copies a buffer while a task writes it). */
  if (task->fast_memory) {
    if (counts_fast_writers(m)) uncount_writers(task);
    if (task->fast_stripe >= 0) leave_fast(m, &m->nodes[node], task);
    return;
  }
  pthread_mutex_lock(&m->lock);
  for (size_t i = 0; i < num_taken(task); ++i) {
    fw_buffer_t *b = taken(task, i);
    if (!b) continue; /* let go while it ran */
    uint32_t access = taken_access(task, i);
    fw_replica_t *r = &b->mem.replicas[node];
    if (commit && (access & FW_ACCESS_WRITE)) {
      /* A prefetch may be copying the buffer's old contents meanwhile (for a reader that
       * waits for this task): it lands first and is then invalidated with the rest, rather
       * than landing after and leaving the old contents valid there (or reading a file
       * dropped under it). The replica stays pinned while the wait drops the lock, so
       * that it cannot be evicted before it holds what the task wrote. */
      while (fw_memory_any_busy(m, b)) pthread_cond_wait(&m->cv, &m->lock);
      for (uint32_t k = 0; k < m->num_nodes; ++k)
        if (k != node && b->mem.replicas[k].valid) {
          if (k == FW_NODE_STORAGE) drop_replica(m, b, k); /* frees the file's room */
          else fw_memory_set_valid(b, k, 0);
        }
      fw_memory_set_valid(b, node, 1);
    }
    --r->pins;
    --m->task_pins;
    if (access & FW_ACCESS_WRITE) atomic_fetch_sub(&b->mem.writers, 1);
    r->last_use = ++m->tick;
    if (!commit && access == FW_ACCESS_WRITE) {
      /* What it held is dead (the task overwrites all of it) and may be garbage (acquire
       * did not fill it): the rerun must not fetch it from here. */
      fw_memory_set_valid(b, node, 0);
    } else if (!commit && (access & FW_ACCESS_WRITE) && fw_memory_valid_elsewhere(m, b, node)) {
      /* Updated in place by work that failed midway, perhaps: the rerun fetches the copy
       * from before it from elsewhere. (Where this was the only copy, there is none.) */
      fw_memory_set_valid(b, node, 0);
    }
  }
  fw_memory_changed(m);
  pthread_mutex_unlock(&m->lock);
}

int fw_memory_has_room(fw_memory_t *m, uint32_t node, uint64_t bytes) {
  pthread_mutex_lock(&m->lock);
  const fw_memory_node_t *n = &m->nodes[node];
  int room = !n->capacity || n->used + bytes <= n->capacity;
  pthread_mutex_unlock(&m->lock);
  return room;
}

void fw_memory_discard_extra(fw_memory_t *m, fw_task_t *task, uint32_t k, uint32_t node) {
  fw_buffer_t *b = task->extra[k].buffer;
  if (!b) return;
  task->extra[k].buffer = NULL;
  int pinned = !task->fast_memory;
  if (pinned || counts_fast_writers(m)) atomic_fetch_sub(&b->mem.writers, 1);
  pthread_mutex_lock(&m->lock);
  if (pinned) {
    --b->mem.replicas[node].pins;
    --m->task_pins;
  }
  while (fw_memory_any_busy(m, b)) pthread_cond_wait(&m->cv, &m->lock);
  for (uint32_t n = 0; n < m->num_nodes; ++n) drop_replica(m, b, n);
  fw_memory_changed(m);
  pthread_mutex_unlock(&m->lock);
}

void fw_memory_pin_fast(fw_memory_t *m, fw_task_t *task, uint32_t node) {
  if (!task->fast_memory) return;
  pthread_mutex_lock(&m->lock);
  for (size_t i = 0; i < num_taken(task); ++i) {
    fw_buffer_t *b = taken(task, i);
    if (!b) continue; /* let go while it ran */
    ++b->mem.replicas[node].pins;
    ++m->task_pins;
    /* As the locked path counts them (the fast path only where a prefetch may copy). */
    if ((taken_access(task, i) & FW_ACCESS_WRITE) && !counts_fast_writers(m))
      atomic_fetch_add(&b->mem.writers, 1);
  }
  task->fast_memory = 0;
  if (task->fast_stripe >= 0) {
    atomic_fetch_sub(&m->nodes[node].fast_users[task->fast_stripe].count, 1);
    task->fast_stripe = -1;
  }
  fw_memory_changed(m);
  pthread_mutex_unlock(&m->lock);
}

void fw_memory_release(fw_memory_t *m, fw_task_t *task, uint32_t node) {
  release(m, task, node, 1);
}

void fw_memory_release_failed(fw_memory_t *m, fw_task_t *task, uint32_t node) {
  release(m, task, node, 0);
}

/* ---- Buffers ------------------------------------------------------------------- */

fw_status_t fw_memory_buffer_init(fw_memory_t *m, fw_buffer_t *b, const void *data,
                                  uint32_t own_pins) {
  pthread_mutex_lock(&m->lock);
  b->mem.id = ++m->next_id;
  if (!data) {
    link_buffer(m, b);
    pthread_mutex_unlock(&m->lock);
    return FW_OK;
  }
  fw_memory_node_t *n = &m->nodes[FW_NODE_HOST];
  if (n->capacity && !n->minimal && b->byte_size > n->capacity) {
    pthread_mutex_unlock(&m->lock);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                          "a %zu-byte buffer does not fit the host tier's limit of %llu bytes "
                          "(%s)",
                          b->byte_size, (unsigned long long)n->capacity, capacity_source(n));
  }
  for (int again = 1; again;) {
    fw_status_t status =
        reserve_room(m, FW_NODE_HOST, b->byte_size, NULL, "a new buffer", NULL, own_pins, &again);
    if (status != FW_OK) {
      pthread_mutex_unlock(&m->lock);
      return status;
    }
  }
  fw_status_t status = fw_memory_allocate_replica(m, b, FW_NODE_HOST);
  if (status != FW_OK) {
    pthread_mutex_unlock(&m->lock);
    return status;
  }
  fw_replica_t *r = &b->mem.replicas[FW_NODE_HOST];
  memcpy(r->ptr, data, b->byte_size);
  fw_memory_set_valid(b, FW_NODE_HOST, 1);
  r->last_use = ++m->tick;
  link_buffer(m, b);
  pthread_mutex_unlock(&m->lock);
  return FW_OK;
}

void fw_memory_buffer_init_wrapped(fw_memory_t *m, fw_buffer_t *b, void *data) {
  pthread_mutex_lock(&m->lock);
  b->mem.id = ++m->next_id;
  b->mem.replicas[FW_NODE_HOST].ptr = data;
  fw_memory_set_valid(b, FW_NODE_HOST, 1);
  link_buffer(m, b); /* its copies on devices are evicted like any */
  pthread_mutex_unlock(&m->lock);
}

void fw_memory_buffer_free(fw_memory_t *m, fw_buffer_t *b) {
  pthread_mutex_lock(&m->lock);
  while (fw_memory_any_busy(m, b)) pthread_cond_wait(&m->cv, &m->lock);
  /* A view of the caller's memory ends holding the buffer's contents: what a task last
   * wrote on a device comes back first (nothing can report a failed copy here; the
   * memory then keeps what it held before). */
  if (b->wrapped && !b->mem.replicas[FW_NODE_HOST].valid &&
      fw_memory_valid_elsewhere(m, b, FW_NODE_HOST))
    fw_status_free(fw_memory_copy_in(m, b, FW_NODE_HOST, NULL));
  for (uint32_t k = 0; k < m->num_nodes; ++k)
    if (!fw_memory_host_wrapped(b, k)) drop_replica(m, b, k);
  unlink_buffer(m, b);
  note_room(m);
  fw_memory_changed(m);
  pthread_mutex_unlock(&m->lock);
}

fw_status_t fw_memory_map_host(fw_memory_t *m, fw_buffer_t *b, void **out_data) {
  *out_data = NULL;
  /* A view of the caller's memory (wrapped) is the caller's pointer, but what a task last
   * wrote on a device comes back into it first, as into a buffer of the runtime's own. */
  pthread_mutex_lock(&m->lock);
  fw_status_t status = FW_OK;
  for (;;) {
    if (fw_memory_any_busy(m, b)) {
      pthread_cond_wait(&m->cv, &m->lock);
      continue;
    }
    if (b->mem.replicas[FW_NODE_HOST].allocated || b->wrapped) break;
    int again = 0;
    status = reserve_room(m, FW_NODE_HOST, b->byte_size, NULL, "fw_buffer_data", NULL, 0, &again);
    if (status != FW_OK) break;
    if (again) continue;
    status = fw_memory_allocate_replica(m, b, FW_NODE_HOST);
    break;
  }
  if (status == FW_OK) {
    fw_replica_t *r = &b->mem.replicas[FW_NODE_HOST];
    ++r->pins; /* keeps it in place while the copy below drops the lock */
    if (!r->valid) {
      if (fw_memory_valid_elsewhere(m, b, FW_NODE_HOST))
        status = fw_memory_copy_in(m, b, FW_NODE_HOST, NULL);
      else if ((status = fill_zero(m, b, FW_NODE_HOST)) == FW_OK)
        fw_memory_set_valid(b, FW_NODE_HOST, 1);
    }
    --r->pins;
    if (status == FW_OK) {
      /* The caller may write through the pointer: the host replica becomes the only one. */
      for (uint32_t k = 0; k < m->num_nodes; ++k)
        if (k != FW_NODE_HOST) drop_replica(m, b, k);
      /* Held in place until the view ends, and copied nowhere meanwhile (prefetch_one):
       * a copy made before the caller writes would stay valid with what it replaced. */
      atomic_store_explicit(&b->mem.mapped, 1, memory_order_relaxed);
      b->mem.sim_written = 0; /* what a simulated task wrote: now from host memory */
      r->last_use = ++m->tick;
      *out_data = r->ptr;
    }
  }
  pthread_mutex_unlock(&m->lock);
  return status;
}

void fw_memory_unmap(fw_memory_t *m, fw_buffer_t *b) {
  if (!atomic_load_explicit(&b->mem.mapped, memory_order_relaxed)) return;
  pthread_mutex_lock(&m->lock);
  if (atomic_load_explicit(&b->mem.mapped, memory_order_relaxed)) {
    atomic_store_explicit(&b->mem.mapped, 0, memory_order_relaxed);
    fw_memory_changed(m);
  }
  pthread_mutex_unlock(&m->lock);
}

void fw_memory_fini(fw_memory_t *m) {
  fw_memory_stop_prefetch(m);
  fw_prefetch_queue_fini(&m->queue);
  fw_storage_fini(&m->storage);
  pthread_mutex_destroy(&m->lock);
  pthread_cond_destroy(&m->cv);
  pthread_mutex_destroy(&m->prefetch_lock);
  pthread_cond_destroy(&m->prefetch_cv);
}

int fw_memory_link_measure(const fw_memory_t *m, uint32_t node, uint64_t *bytes, uint64_t *ns) {
  if (node >= m->num_nodes) return 0;
  *bytes = atomic_load_explicit(&m->nodes[node].link_bytes, memory_order_relaxed);
  *ns = atomic_load_explicit(&m->nodes[node].link_ns, memory_order_relaxed);
  return *bytes >= FW_LINK_MEASURED_BYTES && *ns > 0;
}

double fw_memory_link_gbps(const fw_memory_t *m, uint32_t node) {
  uint64_t bytes, ns;
  if (!fw_memory_link_measure(m, node, &bytes, &ns)) return 0;
  return (double)bytes / (double)ns; /* bytes per ns = GB/s */
}

void fw_memory_seed_link(fw_memory_t *m, uint32_t node, uint64_t bytes, uint64_t ns) {
  if (node >= m->num_nodes || !bytes || !ns) return;
  if (bytes > FW_LINK_SEED_BYTES) {
    ns = (uint64_t)((double)ns * ((double)FW_LINK_SEED_BYTES / (double)bytes));
    bytes = FW_LINK_SEED_BYTES;
  }
  if (!ns) return; /* faster than a nanosecond for 64 MiB: not a link */
  atomic_store_explicit(&m->nodes[node].link_bytes, bytes, memory_order_relaxed);
  atomic_store_explicit(&m->nodes[node].link_ns, ns, memory_order_relaxed);
}

void fw_memory_note_copy(fw_memory_t *m, fw_tier_t from, fw_tier_t to, uint64_t bytes,
                         uint64_t start_ns, uint64_t end_ns, const char *what) {
  pthread_mutex_lock(&m->lock);
  m->bytes_moved[from][to] += bytes;
  m->copy_ns[from][to] += end_ns - start_ns;
  pthread_mutex_unlock(&m->lock);
  if (m->trace && m->trace->enabled)
    fw_trace_add(m->trace, FW_TRACE_COPY_TRACK(from, to), what, start_ns, end_ns, bytes);
}

void fw_memory_copy_seconds(const fw_memory_t *m, double out[FW_NUM_TIERS][FW_NUM_TIERS]) {
  for (int from = 0; from < FW_NUM_TIERS; ++from)
    for (int to = 0; to < FW_NUM_TIERS; ++to) out[from][to] = (double)m->copy_ns[from][to] * 1e-9;
}
