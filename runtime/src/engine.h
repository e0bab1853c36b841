/* Internal: what the threaded engine's CPU workers (engine.c) and GPU workers
 * (gpu_worker.c) share: the launch operands of a kernel task, and the record of a run
 * (profile, history, autotuning, trace). */
#ifndef FW_RUNTIME_SRC_ENGINE_H_
#define FW_RUNTIME_SRC_ENGINE_H_

#include <stdint.h>

#include "device.h"
#include "profile.h"
#include "runtime_internal.h"
#include "scheduler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tasks a GPU worker keeps launched on its GPU (FW_GPU_PIPELINE): with 2, the next
 * kernel waits on the GPU's queue while one runs, so the GPU does not idle between
 * kernels while its worker completes one task and launches the next. */
#define FW_DEFAULT_GPU_PIPELINE 2u
#define FW_MAX_GPU_PIPELINE 8u

/* How long an idle worker polls for new work before it sleeps, and a thread waiting for
 * tasks polls before it sleeps (FW_SPIN_US): short enough not to burn a core, long
 * enough that a stream of small tasks, or a call of a few, never pays for a wake-up (10
 * to 20 us on a virtual machine whose core went idle). A poller yields its core every 32
 * polls: with a worker per core, the thread that submits and waits is one thread more
 * than the cores, and a task for a worker left off the cores waited up to tens of
 * microseconds behind the pollers that held them (docs/performance.md). 0: sleep at
 * once (no core is ever taken by a poll; each wait and each new task pays a wake-up). */
#define FW_DEFAULT_SPIN_US 50u
#define FW_MAX_SPIN_US 1000000u

/* A kernel that divides its work is offered to the other CPU workers only when the
 * device model (its FLOPs and bytes at the CPU's nominal speeds, which real cores beat)
 * expects it to take FW_SPLIT_MIN_SECONDS or more, and sleeping workers are woken for it
 * only from FW_SPLIT_WAKE_SECONDS (a wake-up takes 10-20 us before the helper starts).
 * Smaller ones run whole on the worker that took them: offering a 2x1024 elementwise
 * kernel, and waking the other worker for it, doubled the time of a call of it
 * (docs/performance.md). */
#define FW_SPLIT_MIN_SECONDS 5e-6
#define FW_SPLIT_WAKE_SECONDS 50e-6

#define FW_ENGINE_STACK_BINDINGS 16

/* Sets up `launch` for kernel task `t` whose access i is at data[i]: its operands (in
 * `stack` when there are at most FW_ENGINE_STACK_BINDINGS, else allocated) and a grid of
 * one workgroup; 0 when out of memory. fw_engine_launch_fini frees what it allocated. */
int fw_engine_launch_init(fw_device_launch_t *launch, const fw_task_t *t, void *const *data,
                          fw_device_binding_t *stack);
void fw_engine_launch_fini(fw_device_launch_t *launch, const fw_device_binding_t *stack);

/* Whether the kernels of task `t` check what they compute (its executable lists checks):
 * their launches take an error word. */
int fw_engine_has_checks(const fw_task_t *t);
/* The failure of `t`, whose kernel left `word` (not 0) in its error word: n + 1 - k for
 * check k of the executable's n (the first that failed, in the kernel's order); the
 * message of that check in its module's metadata, naming the task. */
fw_status_t fw_engine_check_failed(const fw_task_t *t, uint32_t word);

/* The candidate `tuner` has a run of `t` take among the variants loaded where it runs
 * (`kernels`, per variant), and whether that run is a trial; -1 (and FW_TUNE_NONE) when
 * the executable has no candidates there. */
int64_t fw_engine_pick_variant(fw_tuner_t *tuner, const fw_task_t *t,
                               const void *const *kernels, fw_tune_state_t *state);

/* Calls C task `t`'s GPU implementation `fn` with the device addresses of its accesses
 * (data[i]: access i) and `stream`, as a task body (it may submit tasks, not wait);
 * returns what it returned, or the error it failed its task with (fw_task_fail).
 * `*returned_error`: whether it returned an error itself (a refused launch). */
fw_status_t fw_engine_run_gpu_fn(fw_task_t *t, fw_task_gpu_fn_t fn, void *const *data,
                                 void *stream, int *returned_error);

/* One run of a task on a worker, as the engine measured it. */
typedef struct fw_run_record_t {
  uint64_t t0;            /* when its inputs were asked for */
  uint64_t stall_ns;      /* of which spent waiting for them (or for room) */
  uint64_t start, end;    /* the run itself */
  double device_seconds;  /* GPU: the kernel alone, between two events; < 0: unknown */
  uint32_t workgroups;    /* CPU kernels: how many workgroups its code divides it into */
  int profiled;           /* counters and moves below were read (profiling) */
  uint64_t before[FW_PROFILE_MAX_COUNTERS], after[FW_PROFILE_MAX_COUNTERS];
  uint64_t moved[FW_NUM_TIERS][FW_NUM_TIERS];
} fw_run_record_t;

/* Records a run that ended with `status` (not consumed): the profile, the history and an
 * autotuning trial when it succeeded; the trace in any case. Sets the task's start and
 * end for the scheduler's statistics. */
void fw_engine_record_run(fw_runtime_t *rt, fw_worker_t *w, fw_task_t *t, fw_status_t status,
                          const fw_run_record_t *r);

/* Runs `t` on GPU worker `w`, then whatever else it is given, with up to the runtime's
 * gpu_pipeline tasks launched at a time; returns when none is in flight and none is ready
 * for it. */
void fw_gpu_worker_run(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t);

#ifdef __cplusplus
}
#endif

#endif
