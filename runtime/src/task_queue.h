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
  int32_t planned;
  double plan_start;
  double rank;
  uint64_t seq;
  fw_task_t *task;
} fw_task_heap_entry_t;

typedef struct fw_task_heap_t {
  fw_task_heap_entry_t *items;
  size_t size, capacity;
} fw_task_heap_t;

/* Returns 0 when out of memory. */
int fw_task_heap_push(fw_task_heap_t *h, fw_task_t *task);
fw_task_t *fw_task_heap_pop(fw_task_heap_t *h);
/* Removes and returns the best task for which `accept(ctx, task)` holds. */
fw_task_t *fw_task_heap_pop_if(fw_task_heap_t *h, int (*accept)(const void *, const fw_task_t *),
                               const void *ctx);
void fw_task_heap_free(fw_task_heap_t *h);
/* The task in entry i (in heap order, not priority order). */
static inline fw_task_t *fw_task_heap_at(const fw_task_heap_t *h, size_t i) {
  return h->items[i].task;
}
/* Whether a runs before b. */
int fw_task_before(const fw_task_t *a, const fw_task_t *b);

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
