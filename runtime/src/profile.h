/* Internal: profiles of the kernels a runtime ran (FW_RUNTIME_PROFILE). Per (task, variant
 * target and knobs, trial or chosen, device kind, size class): how many runs, a log-scale histogram of their times (mergeable
 * across runs, so medians and spreads survive merging), and the sums of the counters read
 * around each run on its worker: hardware counters through perf_event_open where the
 * machine allows them, else the kernel's software counters. */
#ifndef FW_RUNTIME_SRC_PROFILE_H_
#define FW_RUNTIME_SRC_PROFILE_H_

#include <pthread.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The counters of one worker thread (a perf_event_open group); -1 when none. */
typedef struct fw_profile_counters_t {
  int group_fd;
  int opened; /* tried on this thread */
} fw_profile_counters_t;

typedef struct fw_profile_t {
  int enabled;
  pthread_mutex_t lock;
  fw_profile_entry_t *entries; /* open addressing on (task, device, size class) */
  size_t size, capacity;
  /* Which counters the workers read: fixed by the first worker that opens a group. */
  int probed;
  fw_counter_source_t source;
  uint32_t num_counters;
} fw_profile_t;

void fw_profile_init(fw_profile_t *p, int enabled);
void fw_profile_fini(fw_profile_t *p);
/* Opens the calling worker's counters (once per thread). */
void fw_profile_open_counters(fw_profile_t *p, fw_profile_counters_t *c);
void fw_profile_close_counters(fw_profile_counters_t *c);
/* Reads the counters into values[FW_PROFILE_MAX_COUNTERS] (zeros when none). */
void fw_profile_read(const fw_profile_t *p, const fw_profile_counters_t *c, uint64_t *values);
/* Records one run of `task` with its variant for target `arch` ("" for C tasks) and knobs
 * `config` ("" for the defaults; `selected`: autotuning chose it): its time, its time on
 * the GPU between events around the launch (`device_seconds`; < 0 when not measured), the
 * counter values before and after, the bytes copied between tiers to bring its inputs
 * where it ran, and the workgroups its CPU run was divided into (0 on a GPU). */
void fw_profile_record(fw_profile_t *p, const char *task, const char *arch, const char *config,
                       int selected, uint32_t device, uint32_t workgroups, uint64_t bytes,
                       double seconds,
                       double device_seconds, const uint64_t *before, const uint64_t *after,
                       const uint64_t (*moved)[FW_NUM_TIERS]);
/* The name of counter i of a source ("cycles", "task-clock-ns"); NULL past the last. */
const char *fw_profile_counter_name(fw_counter_source_t source, uint32_t i);
/* The histogram bucket of a time, and the time at a bucket's centre. */
uint32_t fw_profile_bucket(double seconds);
double fw_profile_bucket_seconds(uint32_t bucket);

#ifdef __cplusplus
}
#endif

#endif
