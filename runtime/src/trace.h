/* Internal: recorded events for Chrome/Perfetto traces. */
#ifndef FW_RUNTIME_SRC_TRACE_H_
#define FW_RUNTIME_SRC_TRACE_H_

#include <pthread.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tracks: workers are 0..N-1; copies from tier a to tier b are FW_TRACE_COPY_TRACK(a, b). */
#define FW_TRACE_COPY_TRACK(from, to) (100000u + (uint32_t)(from) * FW_NUM_TIERS + (uint32_t)(to))

typedef struct fw_trace_event_t {
  char name[56];
  uint32_t track;
  uint64_t start_ns, end_ns;
  uint64_t bytes;
  double expected_seconds; /* a task's: the runtime's estimate of its run (0: none) */
  char *detail;            /* owned; written as "reason" (NULL: none) */
  uint64_t task;           /* a task's run: its id (fw_trace_task_id); 0 otherwise */
  uint8_t by_waiter;       /* a task's run by a waiting thread in the worker's place */
} fw_trace_event_t;

/* A dependency between two tasks (ids), drawn as a flow arrow from the end of the first's
 * run to the start of the second's. */
typedef struct fw_trace_edge_t {
  uint64_t from, to;
} fw_trace_edge_t;

typedef struct fw_trace_t {
  int enabled;
  pthread_mutex_t lock;
  fw_trace_event_t *events;
  size_t size, capacity;
  fw_trace_edge_t *edges;
  size_t num_edges, cap_edges;
  uint64_t origin_ns;
} fw_trace_t;

/* A task's id in the trace: its submission number + 1. */
#define fw_trace_task_id(seq) ((uint64_t)(seq) + 1)

void fw_trace_init(fw_trace_t *t, int enabled, uint64_t origin_ns);
void fw_trace_fini(fw_trace_t *t);
void fw_trace_add(fw_trace_t *t, uint32_t track, const char *name, uint64_t start_ns,
                  uint64_t end_ns, uint64_t bytes);
/* A task's run (task: its id), with what the runtime expected it to take (written as
 * "expected_us"; 0: nothing); `by_waiter`: a thread waiting for tasks ran it in the
 * worker's place (written as "run_by": "waiting thread"). */
void fw_trace_add_run(fw_trace_t *t, uint32_t track, const char *name, uint64_t task,
                      uint64_t start_ns, uint64_t end_ns, double expected_seconds,
                      int by_waiter);
/* Task `to` waited for task `from` (ids): written as a flow between their runs. */
void fw_trace_add_edge(fw_trace_t *t, uint64_t from, uint64_t to);
/* An event with a reason of any length (a failure's message), written as "reason". */
void fw_trace_add_detail(fw_trace_t *t, uint32_t track, const char *name, const char *detail,
                         uint64_t start_ns, uint64_t end_ns);
/* `worker_names[i]` names track i. */
fw_status_t fw_trace_write(fw_trace_t *t, const char *path, const char *const *worker_names,
                           size_t num_workers);

#ifdef __cplusplus
}
#endif

#endif
