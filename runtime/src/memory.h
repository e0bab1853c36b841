/* Internal: memory nodes, coherent buffers and the tiers (device, host, storage).
 *
 * A buffer is one logical tensor with a replica per memory node. A replica is invalid or
 * valid; a valid replica is either the only valid copy ("modified": it must be written
 * down before it is dropped) or one of several ("shared": it can simply be dropped). A
 * task's buffers are made valid on the node where it runs before it starts; the buffers it
 * writes are then valid there only. When a node is full the least valuable unpinned
 * replicas move down a tier (device -> host -> storage); the storage tier keeps one file
 * per buffer in a directory. */
#ifndef FW_RUNTIME_SRC_MEMORY_H_
#define FW_RUNTIME_SRC_MEMORY_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "device.h"
#include "prefetch_queue.h"
#include "sim_bound.h"
#include "storage.h"
#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_MAX_MEMORY_NODES 8
#define FW_NODE_HOST 0u
#define FW_NODE_STORAGE 1u

typedef struct fw_replica_t {
  void *ptr;           /* memory of the node (NULL on the storage node: the file) */
  uint8_t allocated;   /* counts against the node's capacity */
  uint8_t valid;
  uint8_t busy;        /* a copy into or out of it is in flight */
  uint8_t prefetched;  /* filled by a prefetch and not used by a task since */
  uint32_t pins;       /* tasks running on it, or the caller's mapping */
  uint64_t last_use;
} fw_replica_t;

/* Per-buffer state of the memory manager (guarded by fw_memory_t.lock). */
typedef struct fw_buffer_memory_t {
  uint64_t id;
  fw_replica_t replicas[FW_MAX_MEMORY_NODES];
  atomic_int mapped;        /* the caller holds fw_buffer_data's pointer (set and cleared
                               under the lock; read without it to skip unmapping) */
  atomic_uint valid_mask;   /* bit per node with a valid replica (lock-free reads) */
  atomic_uint future_uses;  /* submitted, unfinished tasks that access it (counted only
                               where fw_memory_may_evict) */
  /* Running tasks that write it (set under the lock, but on the fast path of a runtime with
   * several memory nodes without it), and prefetch copies of it in flight: a prefetch
   * copies no buffer a running task writes (what it would copy is being overwritten; a
   * task that wrote it on the fast path would leave the copy valid). memory.c,
   * acquire_fast and prefetch_one. */
  atomic_uint writers;
  atomic_uint copying;
  uint64_t window_mark;      /* == fw_memory_t.window_epoch: used inside the window */
  uint32_t window_pos;       /* then: the place in the window of the first task using it */
  double sim_arrival[FW_MAX_MEMORY_NODES]; /* simulation: when a copy lands there */
  /* Simulation, for the bounds: once a task wrote it (sim_written), the earliest its data
   * could be on each device class (sim_bound.h); until then it moves from host memory. */
  double sim_bound_ready[FW_SIM_MAX_CLASSES];
  uint8_t sim_written;
  size_t prefetch_slot;     /* 1 + its place in the prefetch queue; 0: not queued
                               (prefetch_lock) */
  fw_buffer_t *prev, *next; /* the manager's list of owned buffers */
} fw_buffer_memory_t;

/* A count of tasks that took their buffers on a node without the lock, one per thread
 * (modulo FW_FAST_STRIPES) on a line of its own. */
#define FW_FAST_STRIPES 16
typedef struct fw_fast_stripe_t {
  atomic_int count;
  char pad[64 - sizeof(atomic_int)];
} fw_fast_stripe_t;

typedef struct fw_memory_node_t {
  char name[32];
  fw_tier_t tier;
  fw_device_t *device; /* allocates and copies its memory; NULL for storage */
  /* 0: unlimited. Changes (under the lock) only when minimal, or on a device when the
   * driver refuses memory below it (memory.c, lower_capacity and regain_capacity); read
   * without the lock only atomically (fw_memory_node_capacity). */
  uint64_t capacity;
  int minimal;         /* "TIER=min": grows only when nothing can be evicted */
  /* A device's capacity fell below `configured` after its driver refused an allocation
   * (written under the lock, read without it atomically); `refused_total` is what the
   * device had then: the bytes allocated here and what it could still allocate
   * (UINT64_MAX: it does not say). The capacity rises again once it has more. */
  int lowered;
  uint64_t configured, refused_total;
  int capped;          /* a cap, or a device's memory: capacity != 0 and eviction possible
                          from setup on (the flag is fixed then: read without the lock) */
  /* Whether eviction may happen, so that tasks take their buffers under the lock, pinned.
   * Set at setup on a capped node. A node with a capacity that is not a cap (the host
   * tier sized to the machine's memory) starts without it: tasks whose buffers are valid
   * there alone take them without the lock, counted in fast_users, until it first runs out
   * of room; eviction then sets it (for good) and waits until the tasks counted are done
   * (they hold replicas that no pin shows). memory.c, acquire_fast and evictable_now. */
  atomic_int armed;
  uint32_t lower;      /* the node replicas move down to when evicted */
  /* A device node's link: the bytes and time of its copies to and from host memory of
   * FW_LINK_SAMPLE_BYTES or more (lock-free: the scheduler's estimates read them). */
  _Atomic uint64_t link_bytes, link_ns;
  /* What follows is written often, apart from the above, which every task reads: the
   * bytes allocated (under the lock), and each stripe by its threads. */
  char pad_used[64];
  uint64_t used, peak;
  char pad_fast_users[64];
  fw_fast_stripe_t fast_users[FW_FAST_STRIPES];
} fw_memory_node_t;

#define FW_MAX_PREFETCH_THREADS 8

typedef struct fw_memory_t {
  pthread_mutex_t lock;
  pthread_cond_t cv; /* a replica stopped being busy or was unpinned (CLOCK_MONOTONIC) */
  uint64_t changes;  /* advanced with each broadcast of cv */
  size_t num_nodes;
  fw_memory_node_t nodes[FW_MAX_MEMORY_NODES];
  fw_storage_t storage; /* the storage node's files */
  uint64_t tick, next_id;
  uint64_t window_epoch; /* advanced by each lookahead pass */
  atomic_int spilled;    /* something was evicted since every sized node was last at most
                            half full: the lookahead has work (memory.c, note_room) */
  fw_buffer_t *buffers; /* owned buffers with memory, for eviction */
  uint32_t task_pins;   /* replicas pinned by running tasks */
  /* Of those, the pins of task bodies waiting for room (reserve_room) since the last
   * change: they go only when the body gets its room, so they are no room to come for
   * another waiter. Each change forgets them (every waiter looks again). */
  uint32_t waiting_pins;
  uint32_t transfers;   /* copies in flight */
  /* Buffer references the prefetch thread holds (queued requests, a lookahead pass):
   * dropping one may free a buffer (one the caller released while it was still mapped),
   * so running out of room waits for them like for copies in flight. */
  atomic_uint prefetch_refs;
  /* Eviction found a node's replicas held by tasks that took them without the lock
   * (evictable_now; cleared by each reserve_room before it makes room). */
  int fast_blocked;
  /* Statistics. */
  uint64_t bytes_moved[FW_NUM_TIERS][FW_NUM_TIERS];
  uint64_t copy_ns[FW_NUM_TIERS][FW_NUM_TIERS]; /* how long those copies took */
  uint64_t evictions, prefetch_requests, prefetch_hits, demand_fetches;
  uint64_t stall_ns;
  /* The prefetch thread. */
  int prefetch_enabled;
  uint32_t prefetch_window;
  pthread_t prefetch_threads[FW_MAX_PREFETCH_THREADS];
  uint32_t num_prefetch_threads; /* copy threads; one lookahead pass runs at a time */
  int prefetch_started;
  int lookahead_busy;
  pthread_mutex_t prefetch_lock;
  pthread_cond_t prefetch_cv;
  int prefetch_stop, prefetch_kick;
  fw_runtime_t *runtime;
  struct fw_trace_t *trace;
  fw_prefetch_queue_t queue;
} fw_memory_t;

/* Parses "host=64MiB,storage=1GiB,device=8GiB" (units B, KiB, MiB, GiB, TiB, K/M/G/T,
 * KB/MB/GB/TB) into limits per tier (0: none). "host=min" or "device=min"
 * (FW_TIER_LIMIT_MIN): as little as the tasks allow, everything else spills. */
#define FW_TIER_LIMIT_MIN UINT64_MAX
fw_status_t fw_parse_tier_limits(const char *text, uint64_t limits[FW_NUM_TIERS]);
/* "device", "host", "storage" (tier_limits.c, with the parser). */
const char *fw_tier_name(fw_tier_t tier);

/* The limit of a device's node: the device's own memory `own` (0: unbounded), or the
 * device tier's cap `cap` (0: none; FW_TIER_LIMIT_MIN: minimal) when that is lower. */
uint64_t fw_memory_device_limit(uint64_t own, uint64_t cap);
/* Sets a node's capacity from a parsed limit (FW_TIER_LIMIT_MIN: minimal). */
void fw_memory_node_limit(fw_memory_node_t *node, uint64_t limit);
/* A node's capacity read without the lock: fixed, or a device's that may fall and rise
 * again (not a minimal node's, which grows under the lock). */
static inline uint64_t fw_memory_node_capacity(const fw_memory_node_t *node) {
  return __atomic_load_n(&node->capacity, __ATOMIC_RELAXED);
}
/* Whether some node is capped (fixed once the nodes are set up). Without one, nothing
 * weighs a buffer's future uses, and the scheduler does not count them: the count is an
 * atomic on a line the workers read, taken twice per access of every task under the
 * scheduler lock. (The host tier sized to the machine's memory is not a cap: the
 * scheduler counts them from when it first fills, fw_scheduler_counts_uses.) */
int fw_memory_may_evict(const fw_memory_t *m);
/* Sets up the host and storage nodes. `host_memory`: the host tier's capacity when
 * `limits` sets none (the machine's, host_memory.h; 0: none). `storage_dir` may be NULL (a
 * fresh temporary directory is made on the first eviction); when given it must be a
 * writable directory. `buffered_storage`: the storage tier's files never use direct I/O
 * (storage.h). */
fw_status_t fw_memory_init(fw_memory_t *m, fw_device_t *host_device,
                           const uint64_t limits[FW_NUM_TIERS], uint64_t host_memory,
                           const char *storage_dir, int buffered_storage, int prefetch,
                           uint32_t prefetch_window);
void fw_memory_fini(fw_memory_t *m);
/* Joins the prefetch thread (before the scheduler it reads goes away). */
void fw_memory_stop_prefetch(fw_memory_t *m);
/* Drops the queued prefetch requests (hints) and their buffer references; with `wait`,
 * also waits until the prefetch thread holds none (the caller makes sure no task can
 * queue more). */
void fw_memory_drop_prefetches(fw_memory_t *m, int wait);

/* Registers an owned buffer; with `data`, copies `size` bytes into a new host replica
 * (which may evict other buffers, or wait for running tasks to free room: not for the
 * `own_pins` pins the caller's own task holds, a task body's, nor for those of other
 * bodies waiting for room: when only they hold the rest, it fails rather than wait for
 * them forever). Without, the buffer reads as zeros until written. */
fw_status_t fw_memory_buffer_init(fw_memory_t *m, fw_buffer_t *buffer, const void *data,
                                  uint32_t own_pins);
/* Registers a wrapped buffer: the caller's memory is its host replica, pinned. */
void fw_memory_buffer_init_wrapped(fw_memory_t *m, fw_buffer_t *buffer, void *data);
void fw_memory_buffer_free(fw_memory_t *m, fw_buffer_t *buffer);

/* Whether the buffers of `task` fit `node` at once: RESOURCE_EXHAUSTED, naming the task,
 * the node and both sizes, when they exceed its capacity (the task cannot run there
 * however much is evicted). fw_memory_acquire checks it first; the scheduler gives no
 * worker a task too large for its device memory, and says so when none is left. */
fw_status_t fw_memory_check_fits(const fw_memory_t *m, const fw_task_t *task, uint32_t node);
/* A device node whose capacity fell after its driver refused memory: lets it rise again
 * if the device has more room now (memory.c, regain_capacity). Takes the memory lock only
 * if it is free (the scheduler calls it holding its own); returns whether it rose. */
int fw_memory_try_regain(fw_memory_t *m, uint32_t node);
/* Makes every buffer of `task` valid on `node` and pins it, its accesses and then its
 * extra buffers (fw_task_extra_t); `out_data[i]` receives the i-th one's address there,
 * `*out_stall_ns` the time spent waiting for data or room (and evicting to make room),
 * and `out_moved[from][to]` (when given) grows by the bytes copied for it between tiers.
 * On failure nothing stays pinned. */
fw_status_t fw_memory_acquire(fw_memory_t *m, fw_task_t *task, uint32_t node, void **out_data,
                              uint64_t *out_stall_ns, uint64_t (*out_moved)[FW_NUM_TIERS]);
/* fw_memory_acquire when it needs neither to wait (for copies in flight or for room) nor
 * to evict or copy: `*out_taken` says whether it did. A GPU worker with kernels in flight
 * takes its next task's buffers this way, so that it never waits for what only the
 * completion of those kernels would give (the room their buffers hold). */
fw_status_t fw_memory_try_acquire(fw_memory_t *m, fw_task_t *task, uint32_t node,
                                  void **out_data, int *out_taken);
/* How many times the memory's state changed as fw_memory_acquire waits for (a copy landed,
 * a replica was unpinned or freed): fw_memory_wait_change waits for the next one. */
uint64_t fw_memory_changes(fw_memory_t *m);
/* Waits until the count has moved past `seen`, or for `timeout_ns` at most. */
void fw_memory_wait_change(fw_memory_t *m, uint64_t seen, uint64_t timeout_ns);
/* Whether `node` has room for `bytes` more without evicting anything (takes the lock). */
int fw_memory_has_room(fw_memory_t *m, uint32_t node, uint64_t bytes);
/* Extra buffer k of `task` (running on `node`, its buffers taken) is dead: unpinned and
 * its memory freed at once rather than kept until the task ends (a folded accumulator,
 * redux.c; no lock held). */
void fw_memory_discard_extra(fw_memory_t *m, fw_task_t *task, uint32_t k, uint32_t node);
/* Pins the buffers of `task`, running on `node`, if it took them without the lock (a body
 * about to ask for room: eviction would otherwise wait for it to end; no lock held). */
void fw_memory_pin_fast(fw_memory_t *m, fw_task_t *task, uint32_t node);
/* Unpins; written buffers become valid on `node` only. */
void fw_memory_release(fw_memory_t *m, fw_task_t *task, uint32_t node);
/* Unpins after the task failed there: nothing it was to write changes state (the other
 * copies stay valid, so the task can run again elsewhere). */
void fw_memory_release_failed(fw_memory_t *m, fw_task_t *task, uint32_t node);

/* The caller's view (fw_buffer_data): makes the host replica valid and the only valid
 * one (the caller may write it), pinned until the buffer is next used by a task. */
fw_status_t fw_memory_map_host(fw_memory_t *m, fw_buffer_t *buffer, void **out_data);
/* A task was submitted on the buffer: the caller's mapping ends. */
void fw_memory_unmap(fw_memory_t *m, fw_buffer_t *buffer);

/* Asks the prefetch threads to make the buffer valid on `node` for a reader that needs it
 * at `need` (seconds on the scheduler's clock; no-op when disabled). */
void fw_memory_prefetch(fw_memory_t *m, fw_buffer_t *buffer, uint32_t node, double need);
/* A task started: the lookahead window moved (wakes the prefetch thread only when
 * something was ever evicted). */
void fw_memory_window_moved(fw_memory_t *m);
/* Marks the replica on `node` valid or not (lock held, or the simulator's one thread). */
void fw_memory_set_valid(fw_buffer_t *buffer, uint32_t node, int valid);
/* How valuable a buffer's replicas are, for eviction: 0 when no submitted task needs the
 * buffer, 1 when one does but not within the prefetch window, 2 when a task in the window
 * does (lock held, or the simulator's one thread). */
unsigned fw_memory_value_class(const fw_memory_t *m, const fw_buffer_t *b);
/* Whether `task` (NULL: none) accesses `b`: a task making room keeps its own buffers. */
int fw_memory_task_accesses(const fw_task_t *task, const fw_buffer_t *b);
/* Whether `b`'s replica on `node` (value class `c`) is to be evicted before `best`'s
 * (class `best_class`; NULL: none chosen yet): the lower class first; in the window's
 * class, what it reads furthest ahead; else the least recently used. */
int fw_memory_better_victim(const fw_buffer_t *b, unsigned c, const fw_buffer_t *best,
                            unsigned best_class, uint32_t node);
/* Whether the buffer has a valid replica on `node` (lock-free, for estimates). */
int fw_memory_is_valid_on(const fw_buffer_t *buffer, uint32_t node);
/* Counts a copy made outside the buffers' replicas (a GPU's accumulator for a reduction,
 * redux.c) in bytes_moved and copy_ns, and puts it in the trace's copy track for its
 * tiers, named `what` (takes the lock). */
void fw_memory_note_copy(fw_memory_t *m, fw_tier_t from, fw_tier_t to, uint64_t bytes,
                         uint64_t start_ns, uint64_t end_ns, const char *what);
/* How long the copies counted in bytes_moved took, per tier pair (lock held). */
void fw_memory_copy_seconds(const fw_memory_t *m, double out[FW_NUM_TIERS][FW_NUM_TIERS]);
/* Copies this large or larger measure a link's bandwidth (smaller ones, its latency). */
#define FW_LINK_SAMPLE_BYTES (1u << 20)
/* A link is measured once this much went over it in such copies. */
#define FW_LINK_MEASURED_BYTES (8u << 20)
/* The bandwidth the copies between host memory and device node `node` got, in GB/s (0:
 * not measured yet). */
double fw_memory_link_gbps(const fw_memory_t *m, uint32_t node);
/* The bytes and time counted on device node `node`'s link (1 once it is measured). */
int fw_memory_link_measure(const fw_memory_t *m, uint32_t node, uint64_t *bytes, uint64_t *ns);
/* Starts the counts of `node`'s link from an earlier run's (`bytes` in `ns`), weighed as
 * at most FW_LINK_SEED_BYTES: the rate is known from the first estimate, and this run's
 * copies soon outweigh it. */
#define FW_LINK_SEED_BYTES (64u << 20)
void fw_memory_seed_link(fw_memory_t *m, uint32_t node, uint64_t bytes, uint64_t ns);
/* Starts `threads` prefetch threads (after the scheduler exists: the lookahead reads
 * it); nothing when prefetch is off. */
fw_status_t fw_memory_start_prefetch(fw_memory_t *m, fw_runtime_t *rt, uint32_t threads);

#ifdef __cplusplus
}
#endif

#endif
