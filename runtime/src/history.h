/* Internal: execution-time history per (task name, device kind, size class), the
 * calibration of the cost model (StarPU's history-based performance models). */
#ifndef FW_RUNTIME_SRC_HISTORY_H_
#define FW_RUNTIME_SRC_HISTORY_H_

#include <pthread.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_HISTORY_SAMPLES 32 /* the most recent samples kept per entry */
#define FW_HISTORY_MIN_SAMPLES 3 /* fewer: the device model is used instead */

typedef struct fw_history_entry_t {
  char *name;
  uint32_t kind;
  uint32_t size_class; /* floor(log2(bytes touched)) */
  uint64_t count;      /* samples ever recorded (the ring keeps the last 32) */
  double samples[FW_HISTORY_SAMPLES];
  double median, mad;  /* robust centre and spread of the kept samples */
} fw_history_entry_t;

typedef struct fw_history_t {
  pthread_mutex_t lock;
  fw_history_entry_t *entries; /* open addressing */
  size_t size, capacity;
} fw_history_t;

void fw_history_init(fw_history_t *h);
void fw_history_fini(fw_history_t *h);
uint32_t fw_history_size_class(uint64_t bytes);
void fw_history_record(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                       double seconds);
/* The median of the kept samples when there are enough of them. */
int fw_history_estimate(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                        double *out_seconds);
/* Merges the entries of a history file (a missing file is not an error). */
fw_status_t fw_history_load(fw_history_t *h, const char *path);
fw_status_t fw_history_save(fw_history_t *h, const char *path);

#ifdef __cplusplus
}
#endif

#endif
