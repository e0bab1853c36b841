/* Internal: execution-time history per (task name, device kind, size class), the
 * calibration of the cost model (StarPU's history-based performance models). */
#ifndef FW_RUNTIME_SRC_HISTORY_H_
#define FW_RUNTIME_SRC_HISTORY_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_HISTORY_SAMPLES 32 /* the most recent samples kept per entry */
/* What a loaded history may hold: a task of more than a day, or a measurement more than
 * 10^6 times its model's estimate, is a damaged file (and would overflow the schedules
 * built on it). */
#define FW_HISTORY_MAX_SECONDS 86400.0
#define FW_HISTORY_MAX_RATIO 1e6
#define FW_HISTORY_MIN_SAMPLES 3 /* fewer: the device model is used instead */

typedef struct fw_history_entry_t {
  char *name;
  uint32_t kind;
  uint32_t size_class; /* floor(log2(bytes touched)); FW_HISTORY_SUMMARY: see below */
  uint64_t count;      /* samples ever recorded (the ring keeps the last 32) */
  double samples[FW_HISTORY_SAMPLES];
  /* Per sample, its time over the device model's estimate for that run (0: the model
   * had none). */
  double ratios[FW_HISTORY_SAMPLES];
  double median, mad;  /* robust centre and spread of the kept samples */
  double ratio;        /* the median of the kept ratios; 0 with fewer than 3 */
  /* The summary entry of a (name, kind), size class FW_HISTORY_SUMMARY (never saved):
   * bit c set when size class c has a ratio. */
  uint64_t ratio_classes;
} fw_history_entry_t;

#define FW_HISTORY_SUMMARY 255u

/* A measured link between host memory and a device: the bytes its large copies moved and
 * the time they took (StarPU's bus calibration), kept per device ("cuda:0 NVIDIA H200"). */
typedef struct fw_history_link_t {
  char *device;
  uint64_t bytes, ns;
} fw_history_link_t;

typedef struct fw_history_t {
  pthread_mutex_t lock;
  /* Moves whenever an estimate the history gives may have changed (read without the
   * lock by those who keep estimates). */
  atomic_uint_fast64_t generation;
  fw_history_entry_t *entries; /* open addressing */
  size_t size, capacity;
  fw_history_link_t *links;
  size_t num_links;
} fw_history_t;

void fw_history_init(fw_history_t *h);
void fw_history_fini(fw_history_t *h);
uint32_t fw_history_size_class(uint64_t bytes);
/* A 64-bit hash of a task name (the table's, and what tasks keep of their name). */
uint64_t fw_history_name_hash(const char *name);
/* Records a run of `seconds`; `model_seconds` is what the device model (the estimate
 * without history) expected of it (<= 0: it had no estimate). */
void fw_history_record(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                       double seconds, double model_seconds);
/* The median of the kept samples when there are enough of them. */
int fw_history_estimate(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                        double *out_seconds);
/* For a size class without enough samples: how far off the device model was for the
 * same task on the same kind of device at the nearest size classes that have enough
 * (the median of measured over modelled time), interpolated in the size class between
 * the nearest one below and the nearest one above (StarPU's regression-based models,
 * with the device model as the regression's shape). 0 when there is none. */
int fw_history_model_ratio(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                           double *out_ratio);
/* The link measured for `device` (1), if the history has one. */
int fw_history_link(fw_history_t *h, const char *device, uint64_t *bytes, uint64_t *ns);
/* Keeps (replaces) the link measured for `device`; nothing when out of memory. */
void fw_history_set_link(fw_history_t *h, const char *device, uint64_t bytes, uint64_t ns);
/* Merges the entries of a history file (a missing file is not an error). */
fw_status_t fw_history_load(fw_history_t *h, const char *path);
fw_status_t fw_history_save(fw_history_t *h, const char *path);
/* Whether fw_history_save could write `path` (its directory exists and is writable): a run
 * finds out at its start rather than lose its measurements at the end. */
fw_status_t fw_history_check_writable(const char *path);

#ifdef __cplusplus
}
#endif

#endif
