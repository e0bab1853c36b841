/* Internal: the runtime, buffer and module objects shared between translation units. */
#ifndef FW_RUNTIME_SRC_RUNTIME_INTERNAL_H_
#define FW_RUNTIME_SRC_RUNTIME_INTERNAL_H_

#include <stdatomic.h>

#include "device.h"
#include "division.h"
#include "fw/runtime.h"
#include "history.h"
#include "memory.h"
#include "metadata.h"
#include "power.h"
#include "profile.h"
#include "scheduler.h"
#include "sim_bound.h"
#include "sim_links.h"
#include "trace.h"
#include "tuner.h"

struct fw_runtime_t {
  /* One reference for the caller (dropped by fw_runtime_destroy) and one per live buffer,
   * module and task, so destroying the runtime first never leaves them dangling. */
  atomic_size_t refcount;
  atomic_uint_fast64_t next_buffer_serial; /* fw_buffer_t.serial */
  fw_runtime_options_t options; /* simulate points at `machine` below */
  fw_device_t *cpu_device;
  /* The devices kernels run on: [0] is the CPU, then each GPU found (not when
   * simulating), with its description and its memory node. */
  uint32_t num_devices;
  fw_device_t *devices[FW_MAX_DEVICES];
  fw_device_info_t device_info[FW_MAX_DEVICES];
  uint32_t device_node[FW_MAX_DEVICES];
  uint32_t use_kinds;    /* bit per device kind FW_DEVICES allows (the CPU always) */
  uint32_t prefer_kinds; /* kinds that take every kernel they have code for (FW_DEVICES
                            without "cpu"); 0 when the scheduler chooses freely */
  uint32_t num_workers;
  uint32_t prefetch_threads;
  uint32_t gpu_pipeline; /* tasks a GPU worker keeps in flight (FW_GPU_PIPELINE) */
  /* How long an idle worker, or a thread waiting for tasks, polls before it sleeps
   * (FW_SPIN_US; 0: it sleeps at once). */
  uint64_t spin_ns;
  int autotune; /* measure the candidate variants of executables (FW_AUTOTUNE) */
  /* A thread waiting for tasks runs some in a sleeping worker's place (FW_CALLER_RUNS). */
  int caller_runs;
  int buffered_storage; /* the storage tier never uses direct I/O (FW_STORAGE_IO) */
  /* fw_task_submit waits while more than submit_max tasks are unfinished, until at most
   * submit_resume are (FW_MAX_SUBMITTED_TASKS, FW_MIN_SUBMITTED_TASKS; 0: no limit). */
  uint32_t submit_max, submit_resume;
  fw_scheduler_kind_t scheduler;
  char *history_path;
  fw_history_t history;
  fw_trace_t trace;
  fw_profile_t profile;
  fw_power_monitor_t power; /* profiling with NVIDIA GPUs */
  fw_memory_t memory;
  fw_scheduler_t sched;
  /* Simulation: an owned copy of the machine, the memory node of each device, the
   * links, and the running totals for the report. */
  fw_sim_machine_t machine;
  uint32_t sim_device_node[FW_MAX_MEMORY_NODES * 4];
  fw_sim_links_t sim_links[FW_MAX_MEMORY_NODES];
  uint64_t sim_move_seq;
  double sim_makespan, sim_critical_path;
  fw_sim_bound_t sim_bound;
  uint64_t sim_tasks, sim_measured_tasks;
  fw_status_t sim_stall; /* why the last run left tasks that never started (simulator.c) */
};

struct fw_buffer_t {
  atomic_size_t refcount;
  fw_runtime_t *runtime;
  uint64_t serial; /* creation order in its runtime (commute.c takes buffers by it) */
  fw_tensor_type_t type; /* all dims static */
  size_t element_count;
  size_t byte_size;
  int wrapped;                    /* the host replica is caller memory, never freed */
  fw_buffer_release_fn_t release; /* wrapped only: called once when the last ref goes */
  void *user_data;
  fw_buffer_memory_t mem;
  /* Dependency inference (sched.lock): the unfinished tasks that last wrote it and that
   * read it since, in submission order. Readers are numbered over the buffer's life:
   * reader n is readers[n % cap_readers] while first_reader <= n < end_readers, NULL once
   * it completed (first_reader then moves past the leading NULLs). A task keeps its
   * number, so completing it touches no other task (moving the last reader into its slot
   * read and wrote that task's memory, a cache miss per completion). */
  fw_task_t *last_writer;
  fw_task_t **readers;
  uint64_t first_reader, end_readers;
  size_t cap_readers; /* a power of two */
  size_t num_readers; /* not NULL among them */
  /* The error of the last task that was to write it and failed: its contents are not what
   * the program says, so later tasks that read it fail too, until a task overwrites it
   * (sched.lock). */
  fw_status_t poisoned;
  /* Commutative updates (sched.lock). While a group of them is open (submitted one after
   * another, some unfinished), the join that completes after them all (last_writer and
   * the readers above stay those before the group, which each of its updates follows)
   * and the group's number; the task holding the buffer, and the tasks waiting for it,
   * first come first; the last group one of whose updates failed, and with what. */
  fw_task_t *commute_join;
  uint64_t commute_group;
  fw_task_t *commute_holder;
  fw_task_t *parked_head, *parked_tail;
  uint64_t failed_group;
  fw_status_t group_failure;
  /* heft_plan.c, while it reads a batch: the last update of group plan_group of it seen
   * in the batch with serial plan_mark. */
  uint64_t plan_mark, plan_group;
  size_t plan_member;
  /* Reductions (FW_ACCESS_REDUCE, redux.c): whether one was set (read without the lock
   * when a task is created; never unset), the one set, and while a group of
   * contributions is open, the task that will combine them into it (sched.lock). */
  atomic_int has_reduction;
  fw_reduction_t reduction;
  fw_task_t *redux_join;
};

typedef struct fw_module_gpu_kernel_t {
  const void *kernel;
  uint32_t variant;
} fw_module_gpu_kernel_t;

struct fw_module_t {
  atomic_size_t refcount;
  fw_runtime_t *runtime;
  fw_metadata_t md;
  void *dl_handle;
  int fd; /* the memfd backing the loaded object, -1 when none */
  uint64_t build_id; /* FNV-1a of the file */
  fw_host_entry_fn_t *entries;      /* per function */
  fw_cpu_kernel_fn_t *cpu_kernels;  /* per variant; NULL for non-CPU variants */
  char **task_names; /* per executable: "module.executable", the name of its tasks */
  fw_tuner_t tuner;                 /* which CPU candidate each dispatch runs */
  fw_division_t division; /* whether a CPU kernel that divides runs whole or divided */
  /* GPU code, per runtime device (index into fw_runtime_t.devices; none for the CPU):
   * the images loaded there, and per executable the kernel it runs there (NULL: no
   * variant fits that device, or its image failed to load) and that kernel's variant. */
  fw_device_module_t **gpu_images[FW_MAX_DEVICES];      /* per image */
  fw_module_gpu_kernel_t *gpu_kernels[FW_MAX_DEVICES];  /* per executable */
  /* Per variant, its kernel loaded there: the variant each executable runs and, for
   * executables with candidates (fwc --autotune), every variant for the same target. */
  const void **gpu_variant_kernels[FW_MAX_DEVICES];
  fw_tuner_t gpu_tuners[FW_MAX_DEVICES]; /* which candidate each run there takes */
  char gpu_load_error[FW_MAX_DEVICES][160]; /* the first image that failed to load there */
};

/* The tasks of one module call. */
struct fw_call_t {
  fw_module_t *module;
  size_t function_index;
  fw_buffer_t **args; /* one reference each */
  size_t num_args;
  fw_buffer_t **results; /* one reference each once set */
  size_t num_results;
  fw_task_group_t group;
  fw_status_t status; /* an error of the host code itself */
  /* Who still needs the call: the caller's handle (until fw_call_wait or fw_call_detach)
   * and its tasks (until the group is done); the last one frees it. */
  atomic_uint owners;
  atomic_int detached; /* fw_call_detach: its first error goes to fw_runtime_wait_all */
  /* fw_module_call: the calling thread waits for the call as soon as its host code
   * returns (and may run its tasks: fw_engine_help). */
  int caller_waits;
};

/* Runs a function's host code, submitting its tasks into `call->group`. */
void fw_call_run_host(fw_call_t *call);

/* Reference counting of the runtime by the objects created from it. */
void fw_runtime_retain_internal(fw_runtime_t *runtime);
void fw_runtime_release_internal(fw_runtime_t *runtime);

/* Number of entries of the host-call function table of ABI version 4 (version 1 has the
 * first 9, versions 2 and 3 the first 10). */
#define FW_HOST_ABI_TABLE_SIZE 12
static inline size_t fw_host_abi_table_size(uint32_t abi_version) {
  return abi_version >= 4 ? FW_HOST_ABI_TABLE_SIZE : abi_version >= 2 ? 10 : 9;
}
/* Fills a module's `__fw_rt_table` with the host-call ABI functions, in the order of
 * docs/runtime.md: as many as the module's ABI version has. */
void fw_host_abi_fill_table(void **table, uint32_t abi_version);

/* Allocates a zero-filled buffer on the runtime's CPU device after validating the type
 * (known element type, rank <= 8, dims >= 0, overflow-checked byte size). */
fw_status_t fw_buffer_allocate(fw_runtime_t *runtime, fw_element_type_t element_type,
                               size_t rank, const int64_t *dims, fw_buffer_t **out_buffer);

/* "4x784xf32" into buf. */
void fw_type_string(const fw_tensor_type_t *type, char *buf, size_t capacity);

/* Whether `actual` (all dims static) matches `expected` (element type, rank, static dims). */
int fw_type_matches(const fw_tensor_type_t *expected, const fw_tensor_type_t *actual);

#endif
