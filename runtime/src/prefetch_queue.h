/* Internal: the copies the prefetch threads are asked for, served most needed first.
 *
 * A request says when its reader needs the data (`need`, seconds on the scheduler's
 * clock): a planned reader's planned start, or the time it was asked for. A link carries
 * one copy at a time, so the order in which the threads take requests is the order in
 * which data lands; first come, first served would let a burst of outputs sent ahead to
 * later readers hold up the input of the next task on the critical path (the simulator's
 * links serve in the same order: sim_links.h). Not thread-safe: the prefetch lock guards
 * it. */
#ifndef FW_RUNTIME_SRC_PREFETCH_QUEUE_H_
#define FW_RUNTIME_SRC_PREFETCH_QUEUE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fw_buffer_t;

typedef struct fw_prefetch_request_t {
  struct fw_buffer_t *buffer; /* one reference */
  uint32_t node;
  int64_t protect; /* keep window data needed at or before this place (INT64_MAX: all) */
  double need;     /* when its reader needs it: the smaller, the sooner it is served */
  uint64_t seq;    /* among equal needs, the first asked for */
} fw_prefetch_request_t;

/* A binary heap on (need, seq); each buffer is in it at most once (its
 * fw_buffer_memory_t.prefetch_slot says where). */
typedef struct fw_prefetch_queue_t {
  fw_prefetch_request_t *items;
  size_t size, capacity;
  uint64_t seq;
} fw_prefetch_queue_t;

/* Queues a request, taking over its buffer reference: 1. When the buffer is queued
 * already, that request is needed by the earlier of the two needs and 0 is returned (the
 * caller drops its reference); 0 also when out of memory (a prefetch is only a hint). */
int fw_prefetch_queue_push(fw_prefetch_queue_t *q, struct fw_buffer_t *buffer, uint32_t node,
                           int64_t protect, double need);
/* Takes the most needed request (0: none). */
int fw_prefetch_queue_pop(fw_prefetch_queue_t *q, fw_prefetch_request_t *out);
void fw_prefetch_queue_fini(fw_prefetch_queue_t *q);

#ifdef __cplusplus
}
#endif

#endif
