/* Internal: the task graph, the workers and the scheduling policies.
 *
 * Locking. `sched.lock` guards the graph (task states, edges, the per-buffer access
 * history used to infer dependencies), the policies' queues and the counters. A task
 * submitted while the lock is taken waits on a lock-free list (`staged`) for the holder
 * to insert it, so that the submitting thread never queues behind the workers. Sleepers
 * never hold it: a worker sleeps on its own `sleep_lock`, a waiter on `done_lock`; both are
 * taken alone or inside sched.lock, never the other way round. The order is
 * sched.lock, then the memory manager's lock, then its prefetch lock (memory.h): placing a
 * task queues prefetches under sched.lock. No task, buffer or runtime reference is ever
 * dropped with sched.lock held (the last one may tear things down). heft's plans of a
 * released batch are made with the lock let go, from tables taken under it (heft_plan.c);
 * the batch's tasks stay held meanwhile. */
#ifndef FW_RUNTIME_SRC_SCHEDULER_H_
#define FW_RUNTIME_SRC_SCHEDULER_H_

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "device.h"
#include "fw/runtime.h"
#include "history.h"
#include "memory.h"
#include "profile.h"
#include "sim_bound.h"
#include "task_pool.h"
#include "task_queue.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fw_worker_t fw_worker_t;
typedef struct fw_scheduler_t fw_scheduler_t;

typedef enum {
  FW_TASK_PENDING = 0, /* waiting for predecessors (or for its batch to be released) */
  FW_TASK_READY = 1,   /* in a policy queue */
  FW_TASK_RUNNING = 2,
  FW_TASK_DONE = 3,
} fw_task_state_t;

/* The tasks of one module call (or of fw_task_submit): how many are unfinished, and
 * the first error. */
typedef struct fw_task_group_t {
  atomic_size_t outstanding; /* raised under sched.lock, lowered without it */
  fw_status_t status;
  /* Called once, on the thread that saw it, when `outstanding` fell to 0 (NULL: nothing):
   * read before the count falls, so a waiter that frees the group meanwhile is no
   * matter. */
  void (*on_done)(void *arg);
  void *done_arg;
} fw_task_group_t;

typedef struct fw_task_access_internal_t {
  fw_buffer_t *buffer; /* one reference */
  fw_access_t access;
  uint64_t reader_index; /* its number among buffer->readers while it is a pending reader */
  /* The writer whose contents it reads: that task's seq + 1 when it had not finished at the
   * submission, else 0 (its failure cancels this task: see reads_output_of). */
  uint64_t source;
  /* A commutative update (FW_ACCESS_COMMUTE) and its group on the buffer
   * (fw_buffer_t.commute_group when it was submitted). */
  int commute;
  uint64_t commute_group;
} fw_task_access_internal_t;

typedef struct fw_sim_group_t fw_sim_group_t; /* simulator.c */
typedef struct fw_redux_group_t fw_redux_group_t; /* redux.c */
typedef struct fw_redux_acc_t fw_redux_acc_t; /* redux.c */

/* A contribution to a reduction (FW_ACCESS_REDUCE), kept apart from the accesses: the
 * dependency inference and the memory manager never see it as one of the buffer. */
typedef struct fw_task_reduce_t {
  fw_buffer_t *buffer; /* one reference */
  fw_task_t *combine;  /* its group's reduction task: one reference, from insertion */
  fw_redux_acc_t *acc; /* the accumulator it writes, from its start */
  void *data;          /* its memory (a GPU's copy on a GPU), while the task runs */
} fw_task_reduce_t;

/* A buffer the memory manager takes for a task beside its accesses, read and written
 * (redux.c: a contribution's accumulator on a CPU worker, those a pair or reduction task
 * folds). Never written, it is not filled: the task sets it. NULL once the task let it
 * go (fw_memory_discard_extra). */
typedef struct fw_task_extra_t {
  fw_buffer_t *buffer;
} fw_task_extra_t;

/* fw_task_t.binding_access[i] for a contribution: this bit and its index in `reduces`. */
#define FW_BINDING_REDUCE 0x80000000u

struct fw_task_t {
  /* What the scheduler reads and writes of every task under its lock (inserting it,
   * placing it, starting it, completing it) comes first, together: the lock's holder
   * finds it in few cache lines, which the submitting thread wrote last. */
  uint64_t seq; /* submission order */
  fw_task_state_t state;    /* sched.lock */
  uint32_t pending; /* unfinished predecessors, + 1 while the batch holds it (sched.lock) */
  int32_t priority;
  /* fw_task_placement_key of the masks and the work below, and whether an access reads:
   * set when it is submitted, the key again whenever its masks change (queue entries copy
   * both). */
  uint32_t placement_key;
  int reads_buffer;
  uint32_t kind_mask; /* bit (1 << fw_target_kind_t) per device kind that can run it */
  uint32_t prefer_mask; /* kinds that should run it while one of their workers is in
                           service (FW_DEVICES without "cpu"); 0: any of kind_mask */
  uint32_t gpu_mask;    /* bit per runtime device (fw_runtime_t.devices) whose GPU code
                           for it is loaded */
  double rank; /* upward rank in seconds (heft), computed when the batch is released */
  /* Placement. */
  fw_worker_t *worker; /* heft/ws: the worker whose queue holds it */
  /* heft: the worker a plan of its batch gave it (NULL: none), when the plan starts it
   * there, its place in that worker's plan list, and where it is in the batch while the
   * plan is made (plan_batch: which plan). */
  fw_worker_t *plan_worker;
  double plan_start;
  double expected_seconds;
  size_t num_accesses;
  fw_task_access_internal_t *accesses; /* distinct buffers, strongest access each; stored
                                          right after the task */
  uint64_t data_bytes; /* the accesses' buffers, in bytes */
  /* When not 0, the size its history is kept by instead (fw_task_bytes): a reduction
   * task's, its buffer times the accumulators it folds (redux.c). */
  uint64_t history_bytes;
  uint64_t name_hash;  /* fw_history_name_hash(name) */
  double flops, bytes;
  /* Graph state (sched.lock). */
  fw_task_t **successors; /* one reference each; inline_successors until it grows */
  size_t num_successors, cap_successors;
  fw_task_t *inline_successors[2];
  fw_task_group_t *group;
  /* Tasks it was submitted to run after (fw_task_desc_t.after): one reference each, from
   * the submission until it completes (the edges are made when it is inserted). */
  fw_task_t **after;
  size_t num_after;
  fw_status_t status; /* its own failure, or the failure of a predecessor */
  int cancelled;
  int fast_memory; /* acquired without the memory lock (memory.c) */
  int fast_stripe; /* then: its count in the node's fast_users, or -1 */
  /* Set once the task finished and its on_done returned (after state FW_TASK_DONE): a
   * waiter polls it without the lock. */
  atomic_int done;
  /* Submitted tasks that have not started, in submission order (the prefetch lookahead
   * window). */
  fw_task_t *lookahead_prev, *lookahead_next;
  int in_lookahead;
  /* Submitted, not in the graph yet: on fw_scheduler_t.staged, and whether it was
   * submitted with hold. */
  int staged_hold;
  fw_task_t *next_staged;
  fw_task_t *next_orphan; /* on fw_scheduler_t.orphans */
  /* Commutative updates (sched.lock): how many of its accesses are, whether it holds
   * their buffers (from when it is ready until it completes), and its place in the queue
   * of the buffer it waits for (fw_buffer_t.parked_head) while another task holds it. */
  uint32_t num_commute;
  int holds_buffers;
  fw_task_t *next_parked;
  /* The join of a group of commutative updates: no body, never queued; it completes when
   * the group's updates have (commute.c). While tracing, its updates' seqs. */
  int join;
  int uses_counted; /* its accesses count in their buffers' future_uses (scheduler.c) */
  uint64_t *members;
  size_t num_members, cap_members;
  fw_sim_group_t *sim_group; /* a join in a simulation (simulator.c); NULL: none */
  /* Its contributions to reductions (redux.c); and for the task that combines a group
   * of them into their buffer, the group. */
  fw_task_reduce_t *reduces;
  uint32_t num_reduces;
  fw_redux_group_t *reduction;
  /* Taken where it runs after its accesses, set before it runs (redux.c). */
  fw_task_extra_t *extra;
  uint32_t num_extra;
  size_t plan_slot;
  uint64_t plan_batch;
  size_t plan_index;

  /* What the submitting thread and the worker running it use. */
  atomic_size_t refcount;
  fw_runtime_t *runtime;
  size_t alloc_size; /* of the task's allocation (task_pool.h) */
  char *name; /* stored after the accesses, in the task's allocation */
  /* The body: a C function (fw_task_submit) or a compiled kernel. */
  fw_task_fn_t fn;
  fw_task_gpu_fn_t cuda_fn, hip_fn; /* C tasks' GPU implementations (fw_task_desc_t) */
  void *user_data;
  void (*release_user_data)(void *user_data); /* when the task is destroyed */
  void (*on_done)(void *user_data, fw_status_t status); /* when it finished */
  fw_cpu_kernel_fn_t cpu_kernel;
  int cpu_split; /* the kernel divides its work among any number of workgroups */
  uint32_t cpu_variant; /* the variant of cpu_kernel (compiled kernels) */
  int tune_state;       /* fw_tune_state_t: a trial of a candidate, or the chosen one */
  /* A kernel that divides its work, whose run counts in the measurement of running it
   * whole or divided (division.h): 1 + the way it ran (fw_division_way_t); 0: none. */
  int division_run;
  /* Set when a GPU worker runs it: the variant it launched, and the same for GPU
   * candidates (fwc --autotune measures them per GPU). */
  uint32_t gpu_variant;
  int gpu_tune_state;
  fw_module_t *module; /* one reference while the task lives */
  uint32_t executable;
  /* Compiled kernels: binding i of the executable is access binding_access[i]. C tasks
   * that name a buffer in several accesses (merged above): access i of the description is
   * access binding_access[i] (NULL when no access was merged). */
  size_t num_bindings;
  uint32_t *binding_access;
  int binding_inline; /* binding_access is in the task's allocation (contributions) */
  uint64_t start_ns, end_ns;
  /* Simulation: the earliest its inputs could be ready on each device class (the
   * critical path bound, sim_bound.h), and its id in the DAG the bounds keep (0: none
   * yet). */
  double sim_ready[FW_SIM_MAX_CLASSES];
  uint64_t sim_id;
};

typedef struct fw_policy_t {
  const char *name;
  /* Both called with sched.lock held. `from` is the worker whose task completion made the
   * task ready, NULL for the submitting thread. */
  /* Returns 0 when out of memory (the task then fails). */
  int (*push)(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *from);
  fw_task_t *(*pop)(fw_scheduler_t *s, fw_worker_t *worker);
  /* Optional: called when a batch of held tasks is released (their upward ranks set),
   * before any of them is pushed, with sched.lock held; it may let the lock go meanwhile
   * (the batch's tasks stay held) and takes it back before it returns. */
  void (*plan)(fw_scheduler_t *s, fw_task_t *const *tasks, size_t count);
  /* Optional: called after a run of submissions was inserted at once (sched.lock held);
   * during the run `inserting` is set, and push may leave placing to this. */
  void (*settle)(fw_scheduler_t *s);
  /* Optional: when (fw_scheduler_now) idle worker `worker`, about to sleep, is to look for
   * work again though nobody wakes it (sched.lock held; real runs); 0: only when woken. */
  double (*wake_at)(fw_scheduler_t *s, const fw_worker_t *worker);
} fw_policy_t;

extern const fw_policy_t fw_policy_eager, fw_policy_ws, fw_policy_heft;

/* Batches of short tasks on a CPU worker: at most this many popped at once; only when its
 * last task ran under FW_SHORT_TASK_NS; a completion deferred at most FW_DEFER_NS. */
#define FW_BATCH_MAX 8u
#define FW_SHORT_TASK_NS 5000ull
#define FW_DEFER_NS 10000ull

/* Padding that keeps the fields before it and after it off a common cache line (the
 * scheduler lives in a calloc'ed runtime, so the padding does not rely on alignment). */
#define FW_CACHE_LINE_PAD(name) char name[64]

struct fw_worker_t {
  /* What placing a task reads of every worker (heft's choice reads it for each worker,
   * for each task): who it is, and its queue and timing, written under sched.lock. Kept
   * together and apart from the lines its own thread or its wakers write without that
   * lock (below), so that a choice among 16 workers reads few lines and finds them where
   * the last holder of the lock left them. */
  uint32_t index;
  uint32_t device_index; /* into the runtime's device list */
  fw_target_kind_t kind;
  uint32_t memory_node;
  fw_scheduler_t *sched;
  const fw_sim_device_t *sim; /* simulation: the device description */
  int sleeping; /* sleeps or is about to, and was not woken yet (sched.lock) */
  int notified; /* told there is work and has not looked yet (sched.lock) */
  int running;  /* threads: runs a task it popped */
  int lost;     /* its device failed repeatedly: it takes no more tasks (sched.lock) */
  /* One past the last of the workers from this one on that every task finds alike but
   * for their queues (same kind, memory node, device and simulated device: the CPU
   * workers, a simulated device's workers): each can run a task or none can, but for those
   * out of service, and all expect the same run time and moves. Set once, at creation. */
  uint32_t alike_end;
  /* Policy state. */
  double expected_free_at; /* heft: when its queue is expected to drain */
  double queued_seconds;   /* heft: the expected run times of the tasks in `heap` */
  /* heft, real runs: since when the worker runs what it took (from when it went from idle
   * to running, or from its last completion), and that work's expected time (run times,
   * and the moves of inputs still to come when it took them): how late it runs. */
  double busy_since, busy_expected;
  double sim_free_at; /* simulation: when the worker becomes free */
  int sim_busy;
  uint32_t failures; /* launches failed in a row on its device */
  fw_task_heap_t heap;   /* heft: assigned tasks by priority */
  fw_task_deque_t deque; /* ws */
  /* heft: the tasks plans gave this worker that have not completed, by planned start
   * (entries from plan_head on; NULL where one completed out of order). */
  fw_task_t **plan;
  size_t plan_head, plan_len, plan_cap;
  /* Statistics (sched.lock). */
  uint64_t tasks, busy_ns;
  FW_CACHE_LINE_PAD(pad_placement);

  /* Asleep (fw_scheduler_sleep) until a wake-up leaves a token; on a lock of its own, so
   * that it lets the scheduler lock go like everyone else (fw_sched_unlock). */
  pthread_t thread;
  pthread_mutex_t sleep_lock;
  pthread_cond_t cv;
  int wake_token;   /* sleep_lock */
  atomic_uint mail; /* bumped when there is work for this worker (polled lock-free) */
  /* Lending a sleeping CPU worker's place to a thread that waits for tasks
   * (fw_scheduler_lend): its thread is away, from the moment it decides to sleep until it
   * is back under the lock (`parked`, sched.lock); has not left its wait for a wake-up yet
   * (`in_sleep`, sleep_lock); a waiting thread runs as this worker (`lent`, sched.lock), and
   * the worker's thread, back meanwhile, waits for it to be given back (`awaiting_return`,
   * sched.lock); the task the borrower popped last and left to it (`handoff`, sched.lock). */
  int parked, in_sleep, lent, awaiting_return;
  fw_task_t *handoff;
  FW_CACHE_LINE_PAD(pad_sleep);

  /* A CPU worker running short tasks takes several at a time: the ones after the current,
   * which it runs in order without the lock (batch[batch_head..batch_len)), and the ones it
   * ran since it last took the lock, which it completes together when it next does
   * (deferred; the oldest finished at deferred_since). Touched by its own thread alone. */
  fw_task_t *batch[FW_BATCH_MAX];
  uint32_t batch_head, batch_len;
  fw_task_t *deferred[FW_BATCH_MAX];
  uint32_t num_deferred;
  uint64_t deferred_since;
  uint64_t last_task_ns; /* how long its last task ran */
  fw_profile_counters_t counters; /* FW_RUNTIME_PROFILE: this thread's counters */
  /* GPU workers: their queue, events and the tasks launched and not yet complete
   * (gpu_worker.c; made by the worker's thread on its first task), and how many those
   * are (touched by its own thread alone). */
  struct fw_gpu_worker_t *gpu;
  uint32_t in_flight;
};

/* The workgroups of one kernel launch that idle CPU workers help run (engine.c). */
typedef struct fw_split_job_t fw_split_job_t;

/* A place where a running task offers its workgroups. A helper counts itself in `refs`
 * before it reads `job`, so the owner, which clears `job` and then waits for `refs` to
 * drop to zero, knows no helper still uses the job. */
typedef struct fw_split_slot_t {
  _Atomic(fw_split_job_t *) job;
  atomic_uint refs;
} fw_split_slot_t;

#define FW_SPLIT_SLOTS 16

/* heft's run-time estimates per kind of real worker, made for the last task it chose a
 * worker for, and what they were made for (the task's name hash, sizes and work, and the
 * history's generation): the tasks of a run alike get them without a history lookup each
 * (policy_heft.c). */
#define FW_ESTIMATE_MEMO_KINDS 8
typedef struct fw_estimate_memo_t {
  uint64_t name_hash, data_bytes, generation;
  double flops, bytes;
  double run[FW_ESTIMATE_MEMO_KINDS];
  uint32_t kinds; /* bit per kind with an estimate in `run`; 0: the memo is empty */
} fw_estimate_memo_t;

struct fw_scheduler_t {
  fw_runtime_t *runtime;
  fw_split_slot_t split[FW_SPLIT_SLOTS];
  atomic_uint split_active; /* jobs offered in `split`: idle workers poll it */
  /* The lock, the staged submissions and the counters each change hands between threads
   * on every task: a line of their own each, and none shared with what idle workers
   * poll. */
  FW_CACHE_LINE_PAD(pad_split);
  pthread_mutex_t lock;
  FW_CACHE_LINE_PAD(pad_lock);
  /* Tasks submitted while another thread held the lock, newest first: whoever holds the
   * lock next moves them into the graph (fw_sched_lock, fw_sched_unlock). Nobody gives the
   * lock up in a condition wait (waiters sleep on locks of their own), so every release
   * looks at this list. */
  _Atomic(fw_task_t *) staged;
  FW_CACHE_LINE_PAD(pad_staged);
  int inserting; /* staged submissions are being inserted (fw_policy_t.settle) */
  /* Threads waiting for completions sleep on done_cv with done_lock until done_epoch
   * moves (bumped by completions while someone waits). */
  pthread_mutex_t done_lock;
  pthread_cond_t done_cv;
  uint64_t done_epoch;
  /* Threads waiting (on done_cv): for a group (woken when one empties) and for a task or
   * a buffer (woken by every completion). */
  atomic_size_t group_waiters, other_waiters;
  int shutdown;
  int engine_running; /* the worker threads were started */
  const fw_policy_t *policy;
  size_t num_workers;
  fw_worker_t *workers;
  /* The first worker of each device memory node: whose link a copy off that node takes. */
  const fw_worker_t *node_worker[FW_MAX_MEMORY_NODES];
  uint32_t num_cpu_workers; /* workers of kind CPU: how many workgroups a divided kernel gets */
  /* The CPUs the process could use when the runtime started (heft's plans made side by
   * side): the CPU device's count, read once (fw_host_cpus reads files each time). */
  uint32_t host_cores;
  /* Bit per device kind some worker in service has (written under the lock, read
   * without it by a GPU worker deciding whether a failed task can run elsewhere). */
  _Atomic uint32_t kind_mask;
  uint32_t service_nodes; /* bit per memory node some worker in service has (lock) */
  /* The workers in service are all alike (fw_worker_t.alike_end: every CPU worker of a
   * machine without GPUs): heft places nothing ahead among them (lock). */
  int service_alike;
  /* fw_memory_may_evict: buffers count the unfinished tasks that use them (eviction weighs
   * them by it; fixed at setup). Also from when the host tier sized to the machine's
   * memory first fills (host_armed): fw_scheduler_counts_uses. */
  int count_uses;
  /* No device memory node and nothing can be evicted: every written buffer is valid in
   * host memory and nowhere else, so placing a task has nothing to start moving (fixed at
   * setup; until host_armed: fw_scheduler_host_only). */
  int host_only;
  const atomic_int *host_armed; /* the host node's fw_memory_node_t.armed */
  fw_task_heap_t ready; /* eager: the queue; heft: tasks not placed yet */
  /* heft: ready tasks that only workers alike can run, left for the first of them that
   * looks for work (nothing is placed ahead for them; policy_heft.c, left_to_take). */
  fw_task_heap_t alike_pool;
  atomic_size_t num_ready;
  uint64_t next_seq;
  FW_CACHE_LINE_PAD(pad_ready);
  atomic_size_t outstanding; /* submitted, not done */
  fw_task_group_t api_group;
  fw_task_t *lookahead_head, *lookahead_tail;
  /* Tasks no queue took (no worker can run them, or out of memory): completed with their
   * error once the lock is dropped, since completion may release the last references. */
  fw_task_t *orphans;
  /* CPU workers whose threads are parked and not lent (sched.lock; read without it by a
   * waiting thread deciding whether to look for one). */
  atomic_uint num_lendable;
  /* fw_scheduler_release_held for a thread that waits at once: the next wake-up of a
   * sleeping CPU worker is left out (that thread takes the worker's place instead). */
  int spare_wake;
  /* Threads in fw_scheduler_wait_below: the completion that brings the unfinished tasks
   * down to the runtime's submit_resume wakes them. */
  atomic_uint submit_waiters;
  /* Statistics. */
  uint64_t tasks_submitted, tasks_executed, tasks_failed, tasks_rerun;
  uint64_t tasks_by_waiters; /* CPU tasks that threads waiting for tasks ran (lent places) */
  uint64_t submit_waits, submit_wait_ns; /* fw_task_submit's waits (flow control) */
  uint32_t devices_lost;
  /* Simulation. */
  int simulated;
  double sim_now;
  fw_task_t **sim_held; /* submitted with hold, released when the simulation runs */
  size_t num_sim_held, cap_sim_held;
  uint32_t rr; /* round robin for pushes from the submitting thread */
  uint64_t plans; /* heft: batches planned so far */
  uint64_t plans_made; /* heft: plans made for them, complete (several per batch) */
  uint64_t planning_ns; /* heft: wall time planning took */
  /* Built with FW_RUNTIME_LOCK_STATS: how long `lock` was held, summed, and how often it
   * was taken (sched.lock); since when the holder holds it (scheduler.c). */
  uint64_t lock_held_ns, lock_acquisitions, lock_since_ns;
  uint32_t heft_plan_mask; /* heft: which of its plans to make, a bit each (heft_plan.c);
                              0: all. Tests set it to check one plan alone. */
  /* heft: place tasks ahead on the workers' queues even where only workers alike can run
   * them (policy_heft.c, left_to_take). Tests set it to run the placement and late-worker
   * paths, which otherwise run only for tasks an accelerator can run too, on CPU
   * workers. */
  int heft_place_alike;
  fw_estimate_memo_t heft_memo; /* heft: under the lock */
  FW_CACHE_LINE_PAD(pad_pool);
  fw_task_pool_t task_pool; /* the tasks' memory */
};

/* Whether buffers count their unfinished tasks now: from setup where a node is capped, and
 * from when the host tier sized to the machine's memory first fills (a task counts its
 * accesses only if they were counted when it was submitted: fw_task_t.uses_counted). */
static inline int fw_scheduler_counts_uses(const fw_scheduler_t *s) {
  return s->count_uses || atomic_load_explicit(s->host_armed, memory_order_relaxed);
}

/* Whether every written buffer is valid in host memory and nowhere else (host_only), as
 * long as nothing has had to leave the host tier. */
static inline int fw_scheduler_host_only(const fw_scheduler_t *s) {
  return s->host_only && !atomic_load_explicit(s->host_armed, memory_order_relaxed);
}

/* The scheduler lock. Whoever takes it first moves the staged submissions into the
 * graph, and whoever lets it go moves those staged meanwhile (and completes the orphans
 * that leaves), so that a thread holding it sees every task submitted before. Every use
 * of `lock` goes through these. */
void fw_sched_lock(fw_scheduler_t *s);
void fw_sched_unlock(fw_scheduler_t *s);
/* Worker `w` sleeps until it is woken (sched.lock held on entry and on return; let go
 * meanwhile). */
void fw_scheduler_sleep(fw_scheduler_t *s, fw_worker_t *w);

/* Takes a task off its plan worker's list (it completes, or goes elsewhere); that worker
 * looks at its queue again. */
void fw_scheduler_unplan(fw_task_t *t);
/* Expected time to move `bytes` from the memory of worker `from` (NULL: host memory) to
 * that of `to`: 0 on the same node, else a hop over each device's link (through host
 * memory between two devices). */
double fw_scheduler_link_seconds(const fw_worker_t *from, const fw_worker_t *to,
                                 uint64_t bytes);
/* Expected time of one hop of `bytes` over the link between worker `w`'s device memory
 * and host memory: at the rate its copies got (fw_memory_link_gbps) once measured, at a
 * nominal 16 GB/s before; a simulated device's link as described. */
double fw_scheduler_hop_seconds(const fw_worker_t *w, uint64_t bytes);
/* Creates the workers (threads unless simulating). */
fw_status_t fw_scheduler_init(fw_runtime_t *rt, fw_scheduler_t *s);
/* Bytes of all the buffers a task accesses, or its history_bytes (its size class:
 * fw_history_size_class). */
uint64_t fw_task_bytes(const fw_task_t *t);
/* Waits for every task and joins the workers. */
void fw_scheduler_fini(fw_scheduler_t *s);

/* Builds a task (not yet submitted) from its parts; the accesses are merged per buffer.
 * Retains the buffers. */
fw_status_t fw_task_create(fw_runtime_t *rt, const char *name,
                           const fw_task_access_t *accesses, size_t num_accesses,
                           fw_task_t **out_task);
void fw_task_retain(fw_task_t *task);
/* Drops the references a task holds on the tasks it runs after (fw_task_desc_t.after). */
void fw_task_release_after(fw_task_t *task);

/* Adds the task to the graph, with edges inferred from its accesses: at once when the
 * lock is free, else by the thread that holds it; either way before any later taking of
 * the lock. With `hold`, the task does not become ready before fw_scheduler_release_held.
 * Consumes no reference. */
/* Keeps `group` from being done while its tasks are still being submitted (a call's host
 * code), and lets it go (maybe done then: waiters wake, on_done runs). */
void fw_scheduler_group_hold(fw_task_group_t *group);
void fw_scheduler_group_release(fw_scheduler_t *s, fw_task_group_t *group);
/* Wakes the threads waiting for completions (waiting.c), after a completion lowered the
 * counters: those waiting for a task or a buffer always, those waiting for a group when
 * `group_done` or `all_done` (one emptied), submitters held back by flow control when
 * `left` (the unfinished tasks now) has just come down to where they resume (every way
 * down passes there, one completion at a time). */
void fw_scheduler_wake_waiters(fw_scheduler_t *s, int group_done, int all_done, size_t left);
void fw_scheduler_submit(fw_scheduler_t *s, fw_task_t *task, fw_task_group_t *group,
                         int hold);
/* Computes upward ranks over `tasks` (in submission order) and lets them run.
 * `caller_waits`: the calling thread waits for all of them right after, and may run them
 * in a sleeping worker's place (fw_engine_help): when no other task is ready, the first
 * CPU worker they would wake up is left asleep for it to take (fw_scheduler_t.spare_wake). */
void fw_scheduler_release_held(fw_scheduler_t *s, fw_task_t *const *tasks, size_t count,
                               int caller_waits);
/* Waits until the group (or, for NULL, every task) has no unfinished task. */
void fw_scheduler_wait_group(fw_scheduler_t *s, fw_task_group_t *group);
void fw_scheduler_wait_task(fw_scheduler_t *s, fw_task_t *task);
/* Waits until at most `count` tasks are unfinished (flow control of submission), running
 * tasks in a sleeping worker's place meanwhile. */
void fw_scheduler_wait_below(fw_scheduler_t *s, size_t count);
/* Waits for the tasks that access `buffer` (for writing, or at all when `all`). */
void fw_scheduler_wait_buffer(fw_scheduler_t *s, fw_buffer_t *buffer, int all);

/* Seconds now: the monotonic clock, or the virtual clock when simulating. */
double fw_scheduler_now(const fw_scheduler_t *s);
uint64_t fw_now_ns(void);
/* One poll of a thread that waits for work (an idle worker) or for tasks (a waiter), for
 * up to the runtime's spin time (FW_SPIN_US): a pause, and every 32nd poll a look at the
 * clock (0: `until` passed, stop polling) and a yield of the core (engine.h). */
static inline int fw_poll_again(unsigned polls, uint64_t until) {
  if (polls % 32 == 31) {
    if (fw_now_ns() >= until) return 0;
    sched_yield();
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  return 1;
}

/* Expected run time of `task` on `worker`: the history of its size class, else the
 * device model calibrated by the history of the nearest size classes, else the model. */
double fw_scheduler_estimate(fw_scheduler_t *s, const fw_task_t *task, const fw_worker_t *w);
/* The device model's estimate alone: FLOPs and bytes at the device's nominal speeds. */
double fw_scheduler_model_seconds(fw_scheduler_t *s, const fw_task_t *task,
                                  const fw_worker_t *w);
/* Expected time to bring the task's inputs to the worker's memory node. */
double fw_scheduler_transfer_estimate(fw_scheduler_t *s, const fw_task_t *task,
                                      const fw_worker_t *w);
/* Whether `w` can run the task: its device kind is allowed and has the task's code, and
 * the task's buffers fit the device's memory at once (a GPU's capacity, which falls when
 * its driver refuses memory below it). */
int fw_worker_can_run(const fw_worker_t *w, const fw_task_t *task);
/* Whether some worker can run the task. */
int fw_scheduler_can_run(const fw_scheduler_t *s, const fw_task_t *task);

/* Policy helpers (sched.lock held): a task was placed on `task->worker` (or, NULL, on
 * no worker yet): its inputs start moving there. */
void fw_scheduler_placed(fw_scheduler_t *s, fw_task_t *task);
/* Asks the prefetch threads to bring what `task` reads to `node` (unless memory is
 * contended: then the lookahead window decides). No lock needed. Returns whether it
 * asked (prefetch on, memory not contended). */
int fw_scheduler_prefetch_inputs(fw_scheduler_t *s, const fw_task_t *task, uint32_t node);
/* When task `t` needs its inputs, for the order of the copies (prefetch_queue.h): its
 * planned start, or now when no plan placed it. */
double fw_scheduler_need(const fw_scheduler_t *s, const fw_task_t *t);
/* Policy helpers (sched.lock held): tell worker `w` there is work for it (its mailbox;
 * a wake-up when it sleeps). Only the workers told retry the lock. */
void fw_scheduler_notify(fw_scheduler_t *s, fw_worker_t *w);
/* An idle worker that can run `task` and was not told about other work yet (polling ones
 * before sleeping ones); NULL when none. */
fw_worker_t *fw_scheduler_idle_worker(fw_scheduler_t *s, const fw_task_t *task);
/* Policy helpers (sched.lock held): wake the worker, or any sleeping worker. */
void fw_scheduler_wake(fw_scheduler_t *s, fw_worker_t *w);

/* Marks a popped task running (sched.lock held). */
void fw_scheduler_start_task(fw_scheduler_t *s, fw_task_t *task);
/* The simulated run time of a task on a device (`history`: the runtime's, for a device
 * with a history_speed; `*measured`, when not NULL, says whether it came from there). */
double fw_sim_task_seconds(const fw_sim_device_t *device, const fw_task_t *task,
                           fw_history_t *history, int *measured);
/* One simulated hop of `bytes` over a device's link to host memory. */
double fw_sim_hop_seconds(const fw_sim_device_t *device, uint64_t bytes);
/* Whether the calling thread is one of the runtime's own (worker or prefetch). */
int fw_runtime_is_own_thread(const fw_runtime_t *rt);
void fw_runtime_mark_own_thread(fw_runtime_t *rt);
/* FW_OK, or why `call` (a public function that waits for tasks: "fw_task_wait", ...) may
 * not wait on this thread: it runs the body of a task of `rt`, and the worker running it
 * may be the one the wait needs (the awaited task queued behind the body, or already run
 * in the worker's batch but not yet completed). */
fw_status_t fw_engine_check_wait(const fw_runtime_t *rt, const char *call);
/* Whether this thread runs the body of a task of `rt`. */
int fw_engine_in_body(const fw_runtime_t *rt);
/* Calls the task's on_done with its outcome; waits are refused inside it as in a body. */
void fw_engine_call_on_done(fw_task_t *task);
/* Whether this thread runs the on_done of a task of `rt`. */
int fw_engine_in_on_done(const fw_runtime_t *rt);
/* fw_task_fail: fails the task whose body runs on this thread with `status` (taken over)
 * once the body returns. */
fw_status_t fw_engine_fail_body(fw_status_t status);
/* The memory pins the task whose body runs on this thread holds (0 outside a body of
 * `rt`), pinning the buffers it took without the lock first (fw_memory_pin_fast). */
uint32_t fw_engine_body_pins(fw_runtime_t *rt);
/* Takes the next task for `w` from its policy and marks it running (sched.lock held): the
 * task a borrower left it first (fw_scheduler_give_back). */
fw_task_t *fw_scheduler_pop_locked(fw_scheduler_t *s, fw_worker_t *w);
/* A thread waiting for tasks (not a worker) takes the place of a CPU worker whose thread
 * is parked (asleep, or woken and not back yet) and that has a task to pop: the worker is
 * lent to it, with that task in *out_task, until fw_scheduler_give_back; the worker's
 * thread, if it comes back meanwhile, waits. NULL when no parked worker has a task
 * (sched.lock held). */
fw_worker_t *fw_scheduler_lend(fw_scheduler_t *s, fw_task_t **out_task);
/* Gives a lent worker back, with `next` (a task popped for it, or NULL) for its thread to
 * run first, after `ran` tasks run in its place: its thread is woken when it has work, and
 * otherwise sleeps on as it was (takes sched.lock). */
void fw_scheduler_give_back(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *next, uint64_t ran);
/* While `ready(arg)` is false, a thread waiting for tasks runs CPU tasks in the place of a
 * parked worker (fw_scheduler_lend) as long as that worker has one to run: the task's own
 * worker would be woken for it otherwise, and the waiting thread would sleep. Returns how
 * many it ran (0 when it may not: FW_CALLER_RUNS=0, profiling, a worker's or a task body's
 * thread, no engine). */
uint64_t fw_engine_help(fw_scheduler_t *s, int (*ready)(void *), void *arg);
/* Whether the calling thread may run tasks while it waits (fw_engine_help's conditions
 * but for a task being ready). */
int fw_engine_may_help(const fw_scheduler_t *s);
/* fw_scheduler_pop_locked for a worker that does not hold the lock (a GPU worker with
 * kernels in flight); NULL at shutdown. */
fw_task_t *fw_scheduler_pop(fw_scheduler_t *s, fw_worker_t *w);
/* fw_scheduler_complete, and in the same critical section the worker's next task (NULL
 * when none is ready for it). A CPU worker with a batch (FW_BATCH_MAX) returns the next
 * task of its batch, and may defer the completion to when it next takes the lock. */
fw_task_t *fw_scheduler_complete_and_next(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                                          fw_status_t status);
/* A popped task failed on GPU worker `w` with `status` (consumed): it goes back to the
 * policy for a device that has code for it, never `w`'s kind again; after
 * FW_GPU_MAX_FAILURES failures in a row `w` is taken out of service and the tasks queued
 * on it move elsewhere. Returns the worker's next task, like
 * fw_scheduler_complete_and_next. The caller checked fw_scheduler_can_rerun; when no
 * device can take it after all (one left service meanwhile), it fails with `status`. */
#define FW_GPU_MAX_FAILURES 3u
fw_task_t *fw_scheduler_rerun_and_next(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                                       fw_status_t status);
/* The same without taking a next task (a GPU worker completing a task in flight). */
void fw_scheduler_rerun(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w, fw_status_t status);
/* Whether a task that failed on `w` can run on another device in service: one with its
 * code whose memory holds its buffers (takes sched.lock). */
int fw_scheduler_can_rerun(fw_scheduler_t *s, const fw_task_t *task, const fw_worker_t *w);
/* fw_scheduler_can_rerun, after recording the attempt in the trace (when it records):
 * from `start_ns` to `end_ns` on `w`'s track, "failed" or "failed, runs elsewhere", with
 * the status's message as its reason. */
int fw_scheduler_trace_failure(fw_scheduler_t *s, const fw_task_t *task, const fw_worker_t *w,
                               fw_status_t status, uint64_t start_ns, uint64_t end_ns);
/* A launch succeeded on `w` (resets its failure count; lock-free). */
void fw_scheduler_launch_succeeded(fw_worker_t *w);
/* Marks a popped task finished with `status` (consumed) and makes its successors ready.
 * Takes sched.lock. */
void fw_scheduler_complete(fw_scheduler_t *s, fw_task_t *task, fw_worker_t *w,
                           fw_status_t status);
/* Collects up to `max` (buffer, node, position) triples for what the first `window`
 * unstarted tasks read, in submission order (position: the task's place in the window);
 * retains each buffer. Takes sched.lock. */
size_t fw_scheduler_lookahead(fw_scheduler_t *s, uint32_t window, fw_buffer_t **buffers,
                              uint32_t *nodes, uint32_t *positions, size_t max);
/* The execution engines: threads (engine.c) and virtual time (simulator.c). */
fw_status_t fw_engine_start(fw_scheduler_t *s);
void fw_engine_stop(fw_scheduler_t *s);
/* Releases a GPU worker's queue and events (after its thread was joined). */
void fw_gpu_worker_fini(fw_worker_t *w);
void fw_simulator_run(fw_scheduler_t *s);
/* Simulation: records a task submitted with hold = 1 for the next run (0: out of
 * memory). */
int fw_simulator_hold(fw_scheduler_t *s, fw_task_t *task);
/* Simulation: a task's predecessors are done; raises the earliest its inputs could be on
 * each device class (for the bounds) to where what it reads was written, or host memory. */
void fw_simulator_released(fw_scheduler_t *s, fw_task_t *task);
/* Calls `visit` for each successor of `t`, and for a join (commute.c) for each of the
 * join's successors instead, and for a reduction task (redux.c) for it and its
 * successors: the tasks that wait for `t` to finish, to a plan. */
void fw_task_visit_successors(const fw_task_t *t, void (*visit)(void *ctx, fw_task_t *succ),
                              void *ctx);
/* The task graph's edges (sched.lock; scheduler.c, used by commute.c too). */
/* Orders `succ` after `pred` (0: out of memory). */
int fw_task_add_successor(fw_task_t *pred, fw_task_t *succ);
/* Orders `t` after `pred` (an unfinished task), cancelling `t` when out of memory. */
void fw_task_depend(fw_task_t *pred, fw_task_t *t);
/* Orders `t` after the unfinished readers of `b` since its last writer. */
void fw_task_depend_on_readers(const fw_buffer_t *b, fw_task_t *t);
/* Records `status` (taken over) as the task's error unless it has one. */
void fw_task_fail_with(fw_task_t *t, fw_status_t status);
/* Cancels `t` (it will not run) with a copy of `cause`'s error (borrowed). */
void fw_task_cancel_with(fw_task_t *t, fw_status_t cause);
/* Cancels `t`: a dependency could not be recorded. */
void fw_task_cancel_for_memory(fw_task_t *t);
/* Task `t`'s predecessors are done (`from`: the worker that completed the last, NULL for
 * the submitting thread): into a policy's queue, or waiting for a buffer (commute.c). */
void fw_scheduler_make_ready(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *from);
/* A task the graph makes for a group of accesses to `b` (a join, commute.c; a reduction
 * task, redux.c): it updates `b` in place, comes next in submission order, and counts in
 * the group of tasks of `first`, the group's first task (a wait for them waits for it).
 * NULL when out of memory. */
fw_task_t *fw_scheduler_graph_task(fw_scheduler_t *s, const char *name, fw_buffer_t *b,
                                   const fw_task_t *first);
/* Adds `t` at the end of the lookahead window (the tasks submitted and not started). */
void fw_scheduler_lookahead_append(fw_scheduler_t *s, fw_task_t *t);
/* Sets the upward rank of `t` (heft): its expected time averaged over the workers that
 * can run it, plus the largest rank among its successors. */
void fw_scheduler_rank(fw_scheduler_t *s, fw_task_t *t);

/* Simulation: a group of commutative updates of `buffer` opens, `join` its join: what the
 * bounds count of the group (fw_sim_group_t). */
void fw_simulator_group_opened(fw_task_t *join, fw_buffer_t *buffer);
/* Simulation: a task without a body (a join, commute.c) completed: its successors'
 * inputs are ready when its own were, as far as the bounds go. */
void fw_simulator_pass_on(fw_scheduler_t *s, fw_task_t *task);
/* Simulation: starts the input copies of a task just placed on a worker. */
void fw_simulator_prefetch(fw_scheduler_t *s, fw_task_t *task);
/* Simulation: starts copying `buffer` to `node` for a reader that needs it at `need`
 * (virtual seconds; nothing when prefetch is off). */
void fw_simulator_prefetch_buffer(fw_scheduler_t *s, fw_buffer_t *buffer, uint32_t node,
                                  double need);
/* Simulation: a copy of `bytes` that is no buffer's (a GPU's accumulator, redux.c)
 * between host memory and the memory of GPU worker `w` (`to_device`: to it), on the
 * link from now or when the link frees: counted in the bytes moved and put on the
 * trace's copy track; returns when it lands. */
double fw_simulator_carry(fw_scheduler_t *s, const fw_worker_t *w, int to_device,
                          uint64_t bytes);
/* Frees the simulated links' queues. */
void fw_simulator_fini(fw_runtime_t *rt);

#ifdef __cplusplus
}
#endif

#endif
