/* Internal: the ready-task containers of the scheduling policies. */
#ifndef FW_RUNTIME_SRC_TASK_QUEUE_H_
#define FW_RUNTIME_SRC_TASK_QUEUE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fw_task_t fw_task_t;

/* A binary max-heap: higher priority first, then tasks a heft plan placed by planned
 * start, then higher upward rank, then submission order. Each entry holds a copy of its
 * task's keys, taken when it is pushed, so that sifting through a long queue reads the
 * heap's own array and not a task per comparison. */
typedef struct fw_task_heap_entry_t {
  int32_t priority;
  /* Equal for tasks that any worker would run alike: a hash of the name and of the work,
   * the data size and the devices it can and would run on (fw_task_placement_key). */
  uint32_t placement_key;
  double plan_start;
  double rank;
  uint64_t seq : 58;
  uint64_t kinds : 3; /* the device kinds that can run it: kind_mask >> FW_TARGET_KIND_CPU */
  uint64_t planned : 1;
  uint64_t reads : 1; /* the task reads a buffer */
  uint64_t holds : 1; /* it holds buffers other commutative updates may wait for */
  fw_task_t *task;
} fw_task_heap_entry_t; /* 40 bytes: a pool of 10^5 ready tasks is 4 MB of them */

/* The entries are in two parts: a binary heap, and a run of entries that were pushed in
 * the order they pop (each after the one pushed before it), in a ring. A queue filled in
 * order, as independent tasks of equal keys fill it in submission order, then pushes and
 * pops in constant time and in sequence through memory, where a heap of 10^5 entries
 * sifts through 17 levels of cache misses per pop. A push that does not extend the run
 * goes to the heap; a pop takes the first of the heap's root and the run's front. */
typedef struct fw_task_heap_t {
  size_t size;      /* all entries: heap_size + run_size */
  fw_task_heap_entry_t *items; /* the heap */
  size_t heap_size, capacity;
  fw_task_heap_entry_t *run;   /* the run: a ring of run_capacity (a power of two) */
  size_t run_head, run_size, run_capacity;
  size_t by_kinds[8]; /* entries per value of their `kinds` */
} fw_task_heap_t;

/* Returns 0 when out of memory. */
int fw_task_heap_push(fw_task_heap_t *h, fw_task_t *task);
fw_task_t *fw_task_heap_pop(fw_task_heap_t *h);
/* Removes and returns the best task for which `accept(ctx, task)` holds. The entries that
 * pop before it are looked at in the order they pop, so the cost grows with how many of
 * them there are, not with the size of the queue (up to FW_TASK_HEAP_WALK_MAX of them;
 * beyond, every entry is looked at). */
fw_task_t *fw_task_heap_pop_if(fw_task_heap_t *h, int (*accept)(const void *, const fw_task_t *),
                               const void *ctx);
/* Whether some entry's task can run on a device of `kind` (by its kind_mask when it was
 * pushed): a worker of a kind no queued task runs on need not look at each. */
int fw_task_heap_holds_kind(const fw_task_heap_t *h, unsigned kind);
void fw_task_heap_free(fw_task_heap_t *h);
/* The task in entry i < size (in no particular order). */
static inline fw_task_t *fw_task_heap_at(const fw_task_heap_t *h, size_t i) {
  if (i < h->heap_size) return h->items[i].task;
  return h->run[(h->run_head + (i - h->heap_size)) & (h->run_capacity - 1)].task;
}
/* Whether a runs before b. */
int fw_task_before(const fw_task_t *a, const fw_task_t *b);

/* What fw_task_heap_walk's visitor does with an entry: leaves it, takes it out, and/or
 * ends the walk. */
enum { FW_TASK_HEAP_LEAVE = 0, FW_TASK_HEAP_TAKE = 1, FW_TASK_HEAP_STOP = 2 };
#define FW_TASK_HEAP_WALK_MAX 64
typedef int (*fw_task_heap_visit_t)(void *ctx, fw_task_t *task,
                                    const fw_task_heap_entry_t *entry);
/* Visits the first `limit` (at most FW_TASK_HEAP_WALK_MAX) entries in the order they pop,
 * taking out those the visitor says to, which must not change `h` itself. Entries left
 * in place cost a read of the heap's own array, not a pop and a push: a placement pass
 * that leaves most of the tasks it looks at where they were stays cheap. */
void fw_task_heap_walk(fw_task_heap_t *h, size_t limit, fw_task_heap_visit_t visit, void *ctx);

/* Equal for tasks that every worker would run alike (the heap entries' placement_key);
 * two tasks that are not alike share it once in 2^32 (a placement a pass later, never a
 * wrong result). */
uint32_t fw_task_placement_key(const fw_task_t *t);

/* A growable double-ended queue (work stealing: the owner pops the back, thieves take
 * the front). */
typedef struct fw_task_deque_t {
  fw_task_t **items;
  size_t head, size, capacity;
} fw_task_deque_t;

int fw_task_deque_push_back(fw_task_deque_t *d, fw_task_t *task);
fw_task_t *fw_task_deque_pop_back(fw_task_deque_t *d);
fw_task_t *fw_task_deque_pop_front(fw_task_deque_t *d);
/* The front (oldest) task without removing it; NULL when empty. */
fw_task_t *fw_task_deque_front(const fw_task_deque_t *d);
void fw_task_deque_free(fw_task_deque_t *d);

#ifdef __cplusplus
}
#endif

#endif
