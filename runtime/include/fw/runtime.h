/* fw runtime: public C API (docs/runtime.md, docs/fat-binary.md).
 *
 * Ownership. Every object is created by a `fw_<object>_create`/`_wrap`/`_load_*` call
 * that returns it through an `out_...` parameter, and the caller then owns one reference.
 * A runtime (`fw_runtime_t`) is created with `fw_runtime_create` and destroyed with
 * `fw_runtime_destroy`, which drops the caller's reference: modules and buffers created
 * from it hold references of their own, so they stay usable and the runtime is freed
 * with the last of them.
 * Modules (`fw_module_t`) and buffers (`fw_buffer_t`) are reference counted:
 * `fw_module_retain`/`fw_module_release` and `fw_buffer_retain`/`fw_buffer_release`;
 * the object is freed when its last reference is released. A buffer made by
 * `fw_buffer_create` owns its memory; one made by `fw_buffer_wrap` is a view of memory
 * the caller owns: the runtime never frees that memory, the caller keeps it alive and
 * does not move it until the buffer's last reference is released, at which point the
 * runtime calls the wrap's release callback (if any) exactly once. `fw_module_call`
 * borrows its argument buffers (the caller keeps its references) and, on success only,
 * stores one new reference per result in `out_results` that the caller must release; a
 * result may be the same buffer as an argument or as another result (so a result can be
 * a wrapped buffer, which keeps it alive). An error is a `fw_status_t` that the caller
 * owns and frees with `fw_status_free` (`NULL`, `FW_OK`, means success and needs no
 * freeing). Strings and arrays returned in info structs are borrowed from the module and
 * stay valid while the module is alive. Embedded modules (`fw_embedded_module_t`) are
 * owned by the object that registers them and must stay registered while listed; a
 * module loaded from one copies its bytes. Releasing or destroying `NULL` is a no-op.
 * Objects may be used from several threads as long as each call's arguments are not
 * destroyed concurrently; reference counts are atomic.
 */
#ifndef FW_RUNTIME_H_
#define FW_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define FW_API __declspec(dllexport)
#else
#define FW_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The binary interface of this header: the layout of its structs and the signatures of
 * its functions. The shared library is libfwruntime.so.FW_RUNTIME_ABI_VERSION; any
 * change that a program compiled against the previous header would misread (a field
 * added to a struct, a parameter changed) raises it, and runtime/test/abi_test.cc fails
 * until it is raised. */
#define FW_RUNTIME_ABI_VERSION 10u
/* FW_RUNTIME_ABI_VERSION of the library the program runs with. */
FW_API uint32_t fw_runtime_abi_version(void);

/* ---- Status ------------------------------------------------------------- */

typedef enum fw_status_code_t {
  FW_STATUS_OK = 0,
  FW_STATUS_INVALID_ARGUMENT = 1,
  FW_STATUS_OUT_OF_RANGE = 2,
  FW_STATUS_NOT_FOUND = 3,
  FW_STATUS_DATA_LOSS = 4,      /* corrupt or truncated file / table */
  FW_STATUS_UNSUPPORTED = 5,    /* valid but not supported here (ISA level, version) */
  FW_STATUS_RESOURCE_EXHAUSTED = 6,
  FW_STATUS_FAILED_PRECONDITION = 7, /* e.g. a failed fw_rt_assert */
  FW_STATUS_INTERNAL = 8,
  FW_STATUS_IO = 9,
} fw_status_code_t;

typedef struct fw_status_object_t *fw_status_t;
#define FW_OK ((fw_status_t)0)

FW_API fw_status_code_t fw_status_code(fw_status_t status); /* FW_STATUS_OK for NULL */
FW_API const char *fw_status_message(fw_status_t status);   /* "OK" for NULL */
FW_API void fw_status_free(fw_status_t status);
/* A new error status with `code` and a copy of `message` (NULL: ""), for callers that
 * report their own errors as values (the C++ API does); FW_OK for FW_STATUS_OK. */
FW_API fw_status_t fw_status_create(fw_status_code_t code, const char *message);
FW_API const char *fw_status_code_name(fw_status_code_t code);

/* ---- Element types ------------------------------------------------------ */

typedef enum fw_element_type_t {
  FW_ELEMENT_TYPE_F32 = 1,
  FW_ELEMENT_TYPE_F16 = 2,
  FW_ELEMENT_TYPE_F64 = 3,
  FW_ELEMENT_TYPE_BF16 = 4,
  FW_ELEMENT_TYPE_I1 = 5, /* one byte per element, 0 or 1 */
  FW_ELEMENT_TYPE_I8 = 6,
  FW_ELEMENT_TYPE_I16 = 7,
  FW_ELEMENT_TYPE_I32 = 8,
  FW_ELEMENT_TYPE_I64 = 9,
} fw_element_type_t;

#define FW_MAX_RANK 8
#define FW_DYNAMIC_DIM ((int64_t)-1)

/* Size in bytes, 0 for an unknown type. */
FW_API size_t fw_element_type_size(fw_element_type_t type);
/* "f32", ...; "unknown" for an unknown type. */
FW_API const char *fw_element_type_name(fw_element_type_t type);
/* Parses "f32", ...; returns 0 (not a valid type) when unknown. */
FW_API fw_element_type_t fw_element_type_parse(const char *name);

/* A tensor type from the module signature; dims[i] == FW_DYNAMIC_DIM is dynamic. */
typedef struct fw_tensor_type_t {
  fw_element_type_t element_type;
  uint32_t rank;
  int64_t dims[FW_MAX_RANK];
} fw_tensor_type_t;

/* Formats a type as "4x?x784xf32" ("f32" for rank 0) into `buffer` (always
 * NUL-terminated when capacity > 0); returns the length it needed. */
FW_API size_t fw_tensor_type_format(const fw_tensor_type_t *type, char *buffer,
                                    size_t capacity);

/* ---- Runtime ------------------------------------------------------------ */

typedef struct fw_runtime_t fw_runtime_t;
typedef struct fw_module_t fw_module_t;
typedef struct fw_buffer_t fw_buffer_t;

typedef enum fw_scheduler_kind_t {
  FW_SCHEDULER_DEFAULT = 0, /* FW_SCHED from the environment, else heft */
  FW_SCHEDULER_EAGER = 1,   /* one shared priority queue */
  FW_SCHEDULER_WS = 2,      /* a deque per worker, idle workers steal */
  FW_SCHEDULER_HEFT = 3,    /* by upward rank, onto the worker of earliest expected finish */
} fw_scheduler_kind_t;

/* fw_runtime_options_t.flags */
#define FW_RUNTIME_NO_PREFETCH 0x1u /* as FW_PREFETCH=0: no prefetch threads, no lookahead */
#define FW_RUNTIME_TRACE 0x2u       /* record events for fw_runtime_write_trace */
#define FW_RUNTIME_PROFILE 0x4u     /* profile every kernel run (fw_runtime_profile) */
#define FW_RUNTIME_NO_AUTOTUNE 0x8u /* as FW_AUTOTUNE=0: always run an executable's first
                                       CPU variant, never measure its candidates */
#define FW_RUNTIME_BUFFERED_STORAGE 0x10u /* as FW_STORAGE_IO=buffered: the storage tier's
                                             files go through the page cache (default:
                                             direct I/O for large buffers where the file
                                             system allows it) */
#define FW_RUNTIME_NO_CALLER_RUNS 0x20u /* as FW_CALLER_RUNS=0: a thread that waits for
                                           tasks (a module call, fw_task_wait,
                                           fw_runtime_wait_all, fw_buffer_data) never runs
                                           CPU tasks itself in a sleeping worker's place */

typedef struct fw_sim_machine_t fw_sim_machine_t;

/* Every field has a default when zero/NULL; the environment variable named next to a
 * field is read only when the field is left at its default. */
typedef struct fw_runtime_options_t {
  uint32_t flags;                /* FW_RUNTIME_* */
  uint32_t num_workers;          /* CPU worker threads; FW_NUM_WORKERS, else the CPUs
                                    the process may use (its affinity mask and its
                                    control groups' CPU quota bound the processors
                                    online) */
  fw_scheduler_kind_t scheduler; /* FW_SCHED=eager|ws|heft */
  const char *tier_limits;       /* "host=64MiB,storage=1GiB"; "host=min": as little as
                                    the tasks allow; FW_TIER_LIMITS. Without a host cap
                                    the host tier holds the memory available when the
                                    runtime is created (Linux's MemAvailable within the
                                    process's cgroup limits, less an eighth), or
                                    host_memory (below) */
  const char *storage_dir;       /* the storage tier's directory; FW_STORAGE_DIR, else
                                    a new directory under $TMPDIR (or /tmp) */
  uint32_t prefetch_window;      /* tasks of lookahead; FW_PREFETCH_WINDOW, else 16 */
  const char *history_path;      /* execution-time history file, loaded at creation and
                                    saved at destruction; FW_HISTORY, else none */
  const fw_sim_machine_t *simulate; /* non-NULL: run in virtual time on this machine
                                       (see "Simulation" below) */
  const char *devices;           /* the device kinds kernels run on, "cpu,cuda"; FW_DEVICES,
                                    else every device found. The CPU always runs host
                                    code, and kernels and C tasks no listed device has
                                    code for; a list without "cpu" sends every kernel
                                    with a variant for a listed device, and every C task
                                    with an implementation for one (cuda_fn, hip_fn),
                                    there (the CPU takes it back when that device
                                    fails) */
  /* Flow control of submission (StarPU's STARPU_LIMIT_MAX/MIN_SUBMITTED_TASKS): once more
   * than max_submitted_tasks tasks are submitted and unfinished, fw_task_submit waits
   * (running tasks in a sleeping worker's place meanwhile) until at most
   * min_submitted_tasks are, so a program that submits faster than the tasks run keeps
   * its memory bounded. Not on the runtime's own threads (task bodies, release_user_data
   * run as a task completes), nor for a module call's tasks or in a simulation. A task
   * that waits for something the submitting thread does only later would then wait for
   * good: leave it off for such programs. 0: no limit; FW_MAX_SUBMITTED_TASKS. */
  uint32_t max_submitted_tasks;
  uint32_t min_submitted_tasks; /* FW_MIN_SUBMITTED_TASKS, else 9/10 of the maximum */
  /* The host tier's capacity when tier_limits does not cap it: a size ("4GiB", the units of
   * tier_limits), or "unlimited" for none; FW_HOST_MEMORY, else the memory available
   * when the runtime is created. Unlike a cap, tasks take their buffers without the lock
   * until the tier first fills (docs/task-graph.md). */
  const char *host_memory;
} fw_runtime_options_t;

/* A byte size as tier limits and machine descriptions write it: digits and an optional
 * unit (B; K, KiB or KB; M, MiB or MB; G, GiB or GB; T, TiB or TB: K, M, G, T are
 * binary), the whole of `text`. Returns 0 when malformed or above 2^64 - 1. */
FW_API int fw_parse_byte_size(const char *text, uint64_t *out_bytes);

/* `options` may be NULL for defaults. */
FW_API fw_status_t fw_runtime_create(const fw_runtime_options_t *options,
                                     fw_runtime_t **out_runtime);
FW_API void fw_runtime_destroy(fw_runtime_t *runtime);

/* ---- Buffers ------------------------------------------------------------ */

/* Creates a dense row-major host buffer (64-byte aligned). `dims` may be NULL when
 * rank == 0. `data` may be NULL (zero-filled); otherwise `data_size` must equal the
 * buffer's byte size. */
FW_API fw_status_t fw_buffer_create(fw_runtime_t *runtime, fw_element_type_t element_type,
                                    size_t rank, const int64_t *dims, const void *data,
                                    size_t data_size, fw_buffer_t **out_buffer);
/* Called once with the wrap's `user_data` and `data` when the last reference to a
 * wrapped buffer is released, on the thread that releases it. */
typedef void (*fw_buffer_release_fn_t)(void *user_data, void *data);

/* Creates a buffer that is a view of caller memory, without copying: `data` must hold
 * exactly the buffer's byte size (`data_size`), be aligned to the element size, and
 * stay valid until `release` is called (or, when `release` is NULL, until the caller
 * has released the buffer and every reference a call result holds on it). `data` may be
 * NULL only when the byte size is 0. Type checks as for fw_buffer_create. Kernels read
 * and write a wrapped buffer exactly like an owned one; where a task wrote it on a GPU,
 * the contents come back into `data` when fw_buffer_data (or fw_buffer_map) is called
 * and before `release` is, so read and write `data` through fw_buffer_data or after the
 * release, not while tasks may hold it. On failure `release` is not called. */
FW_API fw_status_t fw_buffer_wrap(fw_runtime_t *runtime, fw_element_type_t element_type,
                                  size_t rank, const int64_t *dims, void *data,
                                  size_t data_size, fw_buffer_release_fn_t release,
                                  void *user_data, fw_buffer_t **out_buffer);
FW_API void fw_buffer_retain(fw_buffer_t *buffer);
FW_API void fw_buffer_release(fw_buffer_t *buffer);
FW_API fw_element_type_t fw_buffer_element_type(const fw_buffer_t *buffer);
FW_API size_t fw_buffer_rank(const fw_buffer_t *buffer);
/* Dimension `index`, or -1 when out of range. */
FW_API int64_t fw_buffer_dim(const fw_buffer_t *buffer, size_t index);
FW_API size_t fw_buffer_element_count(const fw_buffer_t *buffer);
FW_API size_t fw_buffer_byte_size(const fw_buffer_t *buffer);
/* Host pointer to the contents, after every task submitted on the buffer has finished;
 * the caller may read and write through it. The pointer stays valid until the buffer is
 * next passed to a call or task (which may move it between memory tiers) or released.
 * NULL when the contents cannot be brought back to host memory (the host tier is full
 * of pinned data, or the storage tier failed), and from a task body (fw_task_wait). */
FW_API void *fw_buffer_data(fw_buffer_t *buffer);
/* fw_buffer_data, with the reason when the contents cannot be brought back (the host tier
 * full of pinned data, the storage tier or the device that held the only copy failed). */
FW_API fw_status_t fw_buffer_map(fw_buffer_t *buffer, void **out_data);
/* Ends the view fw_buffer_data gave (the pointer must not be used afterwards): the buffer
 * may move between memory tiers again. Does nothing when the buffer is not mapped. */
FW_API void fw_buffer_unmap(fw_buffer_t *buffer);
/* Fills `out_type` with the buffer's element type, rank and dims. */
FW_API fw_status_t fw_buffer_type(const fw_buffer_t *buffer, fw_tensor_type_t *out_type);

/* How the contributions of tasks that reduce a buffer (FW_ACCESS_REDUCE) are combined:
 * `init` sets `size` bytes at `data` to the neutral element, `combine` folds `src` into
 * `dst` (dst = dst op src, size bytes each) for an associative and commutative op. Both
 * run on CPU workers: `init` before a contribution's body (outside it: fw_task_fail is
 * refused there), `combine` in the group's reduction task and, for a large buffer, in the
 * tasks that pair its accumulators: several calls at a time, on distinct accumulators
 * (fw_task_fail there fails the reduction). `user_data` is theirs and must stay valid
 * while tasks that reduce the buffer are unfinished. */
typedef struct fw_reduction_t {
  void (*init)(void *user_data, void *data, size_t size);
  void (*combine)(void *user_data, void *dst, const void *src, size_t size);
  void *user_data;
} fw_reduction_t;

/* Reductions built in, element by element, for buffers of f32, f64, i8, i16, i32 and
 * i64 (integer sums and products wrap around; a NaN wins a float minimum or maximum). */
typedef enum fw_reduction_op_t {
  FW_REDUCTION_SUM = 1,
  FW_REDUCTION_PRODUCT = 2,
  FW_REDUCTION_MIN = 3,
  FW_REDUCTION_MAX = 4,
} fw_reduction_op_t;

/* Sets the reduction of `buffer` (copied) for the tasks that reduce it from now on: a
 * group of such tasks already submitted keeps the one it started with. Both functions
 * are required. */
FW_API fw_status_t fw_buffer_set_reduction(fw_buffer_t *buffer, const fw_reduction_t *reduction);
/* fw_buffer_set_reduction with a built-in op; INVALID_ARGUMENT naming the op and the
 * element type where it has none (f16, bf16, i1: give functions). */
FW_API fw_status_t fw_buffer_set_reduction_op(fw_buffer_t *buffer, fw_reduction_op_t op);

/* ---- Modules ------------------------------------------------------------ */

typedef enum fw_target_kind_t {
  FW_TARGET_KIND_CPU = 1,
  FW_TARGET_KIND_CUDA = 2,
  FW_TARGET_KIND_HIP = 3,
} fw_target_kind_t;

typedef struct fw_target_info_t {
  fw_target_kind_t kind;
  const char *arch;     /* "x86-64-v3", "sm_90", ... */
  const char *triple;   /* "x86_64-unknown-linux-gnu", ... */
  const char *features; /* comma separated, may be "" */
} fw_target_info_t;

typedef struct fw_function_info_t {
  const char *name;   /* "main" */
  const char *symbol; /* "__fw_entry_main" */
  size_t num_args;
  const fw_tensor_type_t *arg_types;
  size_t num_results;
  const fw_tensor_type_t *result_types;
} fw_function_info_t;

typedef enum fw_access_t {
  FW_ACCESS_READ = 1,
  FW_ACCESS_WRITE = 2,
  FW_ACCESS_READ_WRITE = 3,
  /* C tasks only, with FW_ACCESS_READ_WRITE (StarPU's STARPU_RW | STARPU_COMMUTE): an
   * update whose order does not matter (accumulating into a sum, a histogram). Such
   * updates submitted one after another run one at a time, in whichever order their
   * other inputs allow, after what came before them and before what comes after
   * (fw_task_desc_t). */
  FW_ACCESS_COMMUTE = 4,
  FW_ACCESS_READ_WRITE_COMMUTE = 7,
  /* C tasks only, alone (StarPU's STARPU_REDUX): a contribution to a reduction of the
   * buffer, which must have one (fw_buffer_set_reduction). The task's body gets a private
   * accumulator of the buffer's size, not the buffer: one per worker (in a GPU's memory
   * for a GPU worker), set to the reduction's neutral element before its first use, which
   * the body combines its contribution into. Such tasks submitted one after another run in parallel, without
   * waiting for the buffer's earlier tasks; the next other access of the buffer runs
   * after the accumulators were combined into it (fw_task_desc_t). */
  FW_ACCESS_REDUCE = 8,
} fw_access_t;

typedef struct fw_binding_info_t {
  fw_access_t access;
  fw_tensor_type_t type;
} fw_binding_info_t;

typedef struct fw_executable_info_t {
  const char *name;
  size_t num_bindings;
  const fw_binding_info_t *bindings;
  size_t num_variants;
  uint64_t cost_flops;
  uint64_t cost_bytes;
  uint32_t priority;
  /* The messages of the checks its kernels make as they run (module ABI version 3): a
   * kernel that reports check k fails its task with checks[k - 1]. */
  size_t num_checks;
  const char *const *checks;
} fw_executable_info_t;

typedef enum fw_variant_kind_t {
  FW_VARIANT_KIND_CPU_SYMBOL = 1,
  FW_VARIANT_KIND_DEVICE_IMAGE = 2,
} fw_variant_kind_t;

typedef struct fw_variant_info_t {
  size_t target;       /* index for fw_module_target_info */
  fw_variant_kind_t kind;
  const char *kernel;  /* symbol or kernel name */
  uint32_t workgroup_size[3];
  const char *config;  /* code-generation knobs ("kc=256,mr=4"); "" for the defaults */
} fw_variant_info_t;

/* A device kind on this machine: a device found (available = 1: name, arch, memory,
 * compute units), or why there is none of that kind (available = 0: why). */
typedef struct fw_device_report_t {
  fw_target_kind_t kind;
  int available;
  char name[64];
  char arch[32];
  uint64_t memory_bytes;  /* the device's own memory; 0 for the CPU */
  uint32_t compute_units; /* the CPUs the process may use, SMs, CUs */
  char why[256];
} fw_device_report_t;

/* Probes the machine: the CPU, each NVIDIA GPU (through libcuda.so.1, opened with dlopen)
 * or why there is none, and AMD GPUs. Writes up to `capacity` reports and the number
 * there are to *out_count. A runtime uses what this finds (fw_runtime_options_t.devices
 * narrows it). */
FW_API fw_status_t fw_probe_devices(fw_device_report_t *out, size_t capacity,
                                    size_t *out_count);

typedef enum fw_image_format_t {
  FW_IMAGE_FORMAT_CUBIN = 1,
  FW_IMAGE_FORMAT_PTX = 2,
  FW_IMAGE_FORMAT_HSACO = 3,
  FW_IMAGE_FORMAT_SPIRV = 4,
} fw_image_format_t;

/* A device image in the module's .llvm.offloading section. */
typedef struct fw_image_info_t {
  size_t target; /* index for fw_module_target_info */
  fw_image_format_t format;
  uint64_t size; /* bytes of its OffloadBinary entry */
} fw_image_info_t;

FW_API fw_status_t fw_module_load_file(fw_runtime_t *runtime, const char *path,
                                       fw_module_t **out_module);
FW_API fw_status_t fw_module_load_memory(fw_runtime_t *runtime, const void *data,
                                         size_t size, fw_module_t **out_module);
FW_API void fw_module_retain(fw_module_t *module);
FW_API void fw_module_release(fw_module_t *module);
/* The module name from the metadata ("" for NULL). */
FW_API const char *fw_module_name(const fw_module_t *module);
FW_API size_t fw_module_function_count(const fw_module_t *module);
FW_API fw_status_t fw_module_function_info(const fw_module_t *module, size_t index,
                                           fw_function_info_t *out_info);
FW_API fw_status_t fw_module_lookup_function(const fw_module_t *module, const char *name,
                                             size_t *out_index);
FW_API size_t fw_module_target_count(const fw_module_t *module);
FW_API fw_status_t fw_module_target_info(const fw_module_t *module, size_t index,
                                         fw_target_info_t *out_info);
FW_API size_t fw_module_image_count(const fw_module_t *module);
FW_API fw_status_t fw_module_image_info(const fw_module_t *module, size_t index,
                                        fw_image_info_t *out_info);
FW_API size_t fw_module_executable_count(const fw_module_t *module);
FW_API fw_status_t fw_module_executable_info(const fw_module_t *module, size_t index,
                                             fw_executable_info_t *out_info);
FW_API fw_status_t fw_module_variant_info(const fw_module_t *module, size_t executable,
                                          size_t variant, fw_variant_info_t *out_info);

/* An executable's operation count where its loop ranges are dynamic sizes: a dispatch
 * counts cost_flops plus, for each term, coefficient × the product over k of dimension
 * dim[k] of its buffer for binding binding[k]. */
#define FW_MAX_COST_FACTORS 8
typedef struct fw_cost_term_info_t {
  uint64_t coefficient;
  uint32_t num_factors; /* <= FW_MAX_COST_FACTORS */
  uint32_t binding[FW_MAX_COST_FACTORS]; /* index for fw_executable_info_t.bindings */
  uint32_t dim[FW_MAX_COST_FACTORS];
} fw_cost_term_info_t;
FW_API size_t fw_module_cost_term_count(const fw_module_t *module, size_t executable);
FW_API fw_status_t fw_module_cost_term_info(const fw_module_t *module, size_t executable,
                                            size_t term, fw_cost_term_info_t *out_info);

/* Autotuning (fwc --autotune): per executable with candidates and size class of its
 * calls so far, whether the runtime has chosen, and what. */
typedef struct fw_tuning_info_t {
  size_t executable;       /* index for fw_module_executable_info */
  uint32_t size_class;     /* floor(log2(bytes the calls accessed)) */
  uint32_t num_candidates;
  int decided;             /* 0 while the candidates are still measured */
  size_t variant;          /* decided: the chosen one, index for fw_module_variant_info */
  double seconds;          /* decided: its fastest timed trial (on a GPU: the kernel's
                              time between events when the driver measured it) */
  char device[16];         /* where the candidates were measured: "cpu", or a GPU's
                              memory node ("cuda:0"): each GPU chooses among the variants
                              for its target */
} fw_tuning_info_t;
typedef void (*fw_tuning_visit_fn_t)(void *user_data, const fw_tuning_info_t *info);
/* Calls `visit` once per (executable, size class) the tuner has seen, under the tuner's
 * lock (the callback must not call the runtime). */
FW_API fw_status_t fw_module_tuning(fw_module_t *module, fw_tuning_visit_fn_t visit,
                                    void *user_data);

/* Division among CPU workers. A CPU kernel that divides its work among workgroups can run
 * whole, on the worker that took it, or divided among the CPU workers that are idle.
 * Where the device model expects a run to take 5 us or more, the runtime measures both
 * ways per size class of its calls (a warm-up and five timed runs of one way, then of the
 * other), from then on runs it the way whose fastest run was fastest, and tries the other
 * way again now and then (docs/runtime.md). With autotuning off (FW_AUTOTUNE=0), one CPU
 * worker, or candidates of its own (fwc --autotune), a kernel is not measured: it runs
 * divided from 5 us on, as the model says. */
typedef struct fw_division_info_t {
  size_t executable;      /* index for fw_module_executable_info */
  uint32_t size_class;    /* floor(log2(bytes the calls accessed)) */
  int decided;            /* 0 while both ways are first measured */
  int divided;            /* decided: 1 if it runs divided, 0 if whole */
  /* The fastest run of each way the choice compared: the chosen way's runs since the
   * choice before, the other's latest trials (undecided: the trials so far; 0: none). */
  double whole_seconds;
  double divided_seconds;
} fw_division_info_t;
typedef void (*fw_division_visit_fn_t)(void *user_data, const fw_division_info_t *info);
/* Calls `visit` once per (executable, size class) measured so far, under the measurements'
 * lock (the callback must not call the runtime). */
FW_API fw_status_t fw_module_division(fw_module_t *module, fw_division_visit_fn_t visit,
                                      void *user_data);

/* Validates `args` against the signature of function `function_index` (count, element
 * type, rank, static dims), runs it and, on success, stores one new reference per result
 * in `out_results[0..num_results)` (num_results must equal the signature's). On failure
 * `out_results` is filled with NULL. From a task body: FW_STATUS_FAILED_PRECONDITION,
 * nothing submitted (a body cannot wait, and a function's host code waits for its tasks);
 * fw_module_call_async too. */
FW_API fw_status_t fw_module_call(fw_module_t *module, size_t function_index,
                                  fw_buffer_t *const *args, size_t num_args,
                                  fw_buffer_t **out_results, size_t num_results);

/* The asynchronous form of fw_module_call: validates the arguments, runs the function's
 * host code on the calling thread (which submits its tasks to the task graph) and
 * returns at once with a call object. The call holds references to its arguments; the
 * caller must not write them until the call completes. Tasks of later calls that touch
 * the same buffers are ordered after this call's (sequential consistency). */
typedef struct fw_call_t fw_call_t;
FW_API fw_status_t fw_module_call_async(fw_module_t *module, size_t function_index,
                                        fw_buffer_t *const *args, size_t num_args,
                                        fw_call_t **out_call);
/* Whether every task of the call has finished (never blocks). */
FW_API int fw_call_is_done(const fw_call_t *call);
/* Waits for the call, stores its results like fw_module_call and frees the call object
 * (on success or failure; `call` must not be used again). From a task body of the same
 * runtime it returns FW_STATUS_FAILED_PRECONDITION at once and leaves the call valid, for
 * another thread to wait for or to detach. */
FW_API fw_status_t fw_call_wait(fw_call_t *call, fw_buffer_t **out_results,
                                size_t num_results);
/* Lets the call finish on its own, without waiting (a task body may): its results are
 * released when its tasks are done, and its first error, if any, is returned by the next
 * fw_runtime_wait_all. `call` must not be used again. */
FW_API void fw_call_detach(fw_call_t *call);
/* Whether the calling thread runs a task body of `runtime`, where waits for its tasks are
 * refused (fw_task_wait). */
FW_API int fw_runtime_in_task_body(const fw_runtime_t *runtime);

/* ---- Tasks ---------------------------------------------------------------------- */

/* Tasks written in C, submitted directly to the runtime's task graph (the same graph the
 * dispatches of compiled modules go to). Dependencies are inferred from the buffer
 * accesses in submission order: a task that reads a buffer runs after the last task
 * that wrote it; a task that writes a buffer runs after the earlier readers and writers.
 * Independent tasks run concurrently on the CPU workers.
 *
 * Commutative updates (FW_ACCESS_READ_WRITE_COMMUTE): consecutive ones of a buffer form
 * a group. Each runs after the accesses before the group, and every access after the
 * group runs after all of it, but the group's updates are not ordered among themselves:
 * they run one at a time (a task holds the buffer from when it is ready until it
 * finishes), each as soon as its other inputs are there and the buffer is free. A task
 * that updates several buffers takes them one at a time in a fixed order, keeping those
 * it took while it waits for the next (no deadlock, and no later update of a buffer it
 * took passes it). When one
 * of them fails, the buffer holds garbage: the group's updates that have not started, and
 * the tasks after the group that read the buffer, fail with its error.
 *
 * Reductions (FW_ACCESS_REDUCE, StarPU's STARPU_REDUX): consecutive contributions to a
 * buffer form a group too, but they neither wait for the accesses before the group nor
 * for each other: each task gets its worker's private accumulator for the group (data[i];
 * a GPU worker's in the GPU's memory, for its implementation to add into with work on its
 * stream), set to the neutral element before the worker's first task of the group, and
 * runs as soon as its other inputs are there. A reduction task runs after the group (and
 * after the accesses before it) and combines the accumulators into the buffer: buffer =
 * buffer op acc_1 op ... op acc_k (in no set order, so float sums may differ in the last
 * bits from run to run); for a large buffer with four accumulators or more, tasks combine
 * them pairwise first, as they are done (docs/task-graph.md). The next other
 * access of the buffer, or a host read, follows that task. Such tasks run on any device
 * they have an implementation for. A CPU worker's accumulator counts in the host tier like
 * a buffer (it moves to the storage tier between uses when the tier is full), and the
 * reduction task takes the buffer with the accumulators it folds: a capped host tier
 * needs room for twice the buffer (docs/task-graph.md); a GPU's is outside the device
 * tier's count. A failed contribution
 * fails the reduction: the tasks after it that read the buffer fail with its error. A
 * contribution whose GPU implementation returns an error (a refused launch, nothing
 * enqueued) runs again elsewhere as any task; one whose work on the stream fails does
 * not (its part may be in the GPU's accumulator already): it fails. */

typedef struct fw_task_t fw_task_t;

/* A task body: `data[i]` is the host address of access i's buffer. */
typedef void (*fw_task_fn_t)(void *user_data, void *const *data, size_t num_data);

/* A task's implementation for a GPU (StarPU's cuda_funcs): it runs on the thread of the
 * GPU's worker, with the device's context current; `data[i]` is access i's buffer in
 * that GPU's memory, and `stream` the worker's stream (a CUstream for NVIDIA GPUs, a
 * hipStream_t for AMD ones), on which it enqueues its work (kernels, copies, library
 * calls) and returns without waiting for it: FW_OK (NULL), or an error it made with
 * fw_status_create (a launch the driver refused), which the runtime takes over. The task
 * completes once the work on the stream is done. When the implementation returns an
 * error, or the work on the stream fails (a faulting kernel), the task runs again on
 * another device that has an implementation for it (so what the implementation did on
 * the host, tasks it submitted, happens again), or fails with that error. */
typedef fw_status_t (*fw_task_gpu_fn_t)(void *user_data, void *const *data, size_t num_data,
                                        void *stream);

typedef struct fw_task_access_t {
  fw_buffer_t *buffer;
  fw_access_t access;
} fw_task_access_t;

typedef struct fw_task_desc_t {
  const char *name; /* names the task in traces, errors and the history; copied */
  fw_task_fn_t fn;  /* runs on a CPU worker (NULL: only on GPUs, below) */
  void *user_data;
  const fw_task_access_t *accesses;
  size_t num_accesses;
  int32_t priority; /* larger runs first among ready tasks; 0 lets heft rank it */
  double flops;     /* cost hints for the cost model and the simulator; 0 = unknown */
  double bytes;
  /* Tasks it runs after besides those its accesses order it after (a control edge, as
   * StarPU's declared dependencies and Taskflow's `precede`): handles from fw_task_submit
   * of the same runtime, from any thread; the caller may release them once the submit
   * returns. One that has completed orders nothing; one that failed, or that a failure
   * cancelled, fails this task with its error, as a failed writer fails its readers. */
  fw_task_t *const *after;
  size_t num_after;
  /* Implementations for GPUs, besides `fn` for the CPU workers (either may be NULL; a
   * task needs one at least): the scheduler places the task on any device with one, by
   * its cost model and the history of each kind's runs, and moves its buffers there. */
  fw_task_gpu_fn_t cuda_fn;
  fw_task_gpu_fn_t hip_fn;
  /* Called once with `user_data` when the task is destroyed (its last reference dropped,
   * after it ran, failed or was cancelled), from whichever thread drops it, when
   * fw_task_submit succeeded; never when it returns an error (the caller still owns
   * user_data then). NULL: nothing to release. */
  void (*release_user_data)(void *user_data);
  /* Called once with `user_data` and the task's outcome (FW_OK, or its error or that of
   * the task that cancelled it; borrowed for the call) when it has finished: ran, failed
   * or was cancelled (StarPU's callback_func). It runs on the thread that completes the
   * task (a worker, a thread running tasks in a worker's place, or one that submitted a
   * task nothing can run) before fw_task_wait, fw_task_is_done and fw_runtime_wait_all
   * see the task finished; the tasks after it may start, and even finish, meanwhile (so
   * what callbacks share must live until fw_runtime_wait_all returns). It may submit
   * tasks (which fw_runtime_wait_all then waits for too); waiting for tasks of its
   * runtime there fails as in a task body. Keep it short: the completions after it on
   * that thread wait for it. NULL: none. */
  void (*on_done)(void *user_data, fw_status_t status);
} fw_task_desc_t;

/* Submits a task (after waiting, outside task bodies, while more than
 * max_submitted_tasks are in flight, when the runtime has that limit). On success
 * `*out_task`, when out_task is non-NULL, holds a reference the caller releases with
 * fw_task_release. A task body may submit tasks (and create
 * buffers): the graph grows while it runs. Each submission takes its place in submission
 * order when it is made, so a task submitted earlier that reads a buffer a later one
 * writes runs before that write (write after read), whichever thread submitted them. */
FW_API fw_status_t fw_task_submit(fw_runtime_t *runtime, const fw_task_desc_t *desc,
                                  fw_task_t **out_task);
/* Submits a task and waits for it, as fw_task_submit then fw_task_wait (its error also
 * goes to fw_runtime_wait_all), returning the submission's error or the task's: a
 * synchronous task, as StarPU's. Where a CPU worker would be woken for it while nothing
 * else is ready, the calling thread runs it itself instead (unless FW_CALLER_RUNS=0),
 * which saves the wake-up. It always takes `user_data` over: release_user_data is called
 * once, also when nothing was submitted. From a task body of the same runtime it submits
 * nothing and returns FW_STATUS_FAILED_PRECONDITION, as fw_task_wait would. */
FW_API fw_status_t fw_task_run(fw_runtime_t *runtime, const fw_task_desc_t *desc);
/* Waits for the task; returns its error (or the error of a task it depended on). From a
 * task body of the same runtime it returns FW_STATUS_FAILED_PRECONDITION at once, as do
 * fw_runtime_wait_all, fw_buffer_map (fw_buffer_data: NULL), fw_call_wait, fw_module_call
 * and fw_module_call_async: the worker that runs the body may be the one the awaited task
 * is queued on, or already ran it without having completed it yet (workers complete short
 * tasks in batches), so the wait could never end. */
FW_API fw_status_t fw_task_wait(fw_task_t *task);
/* From a task body (CPU or GPU implementation): fails the task with `status` (taken over;
 * named "task @name: ...") once the body returns, as a failed kernel fails its task: the
 * tasks that read what it was to write, and those named to run after it, are cancelled
 * with the error (not those that only overwrite it), and what it was to write fails later
 * readers until rewritten (docs/task-graph.md). A GPU implementation's failure runs the task
 * again on another device with an implementation, as an error it returns does, once the
 * work it enqueued before failing has ended (it may use the task's buffers). Only the
 * first failure of a run counts. FW_STATUS_FAILED_PRECONDITION outside a task body
 * (`status` is freed), FW_STATUS_INVALID_ARGUMENT for an OK status. */
FW_API fw_status_t fw_task_fail(fw_status_t status);
/* Whether the task has finished: run, failed or cancelled (never blocks; 1 for NULL).
 * Once it returns 1, fw_task_wait returns at once. */
FW_API int fw_task_is_done(const fw_task_t *task);
FW_API void fw_task_release(fw_task_t *task);
/* Waits for every task submitted so far, and those their bodies submit while it waits;
 * returns (and clears) the first error of a task submitted with fw_task_submit since the
 * previous call. */
FW_API fw_status_t fw_runtime_wait_all(fw_runtime_t *runtime);

/* ---- Statistics and traces ---------------------------------------------------- */

typedef enum fw_tier_t {
  FW_TIER_DEVICE = 0,
  FW_TIER_HOST = 1,
  FW_TIER_STORAGE = 2,
} fw_tier_t;
#define FW_NUM_TIERS 3
#define FW_STATS_MAX_DEVICES 32 /* as many as a runtime has, simulated ones included */

typedef struct fw_runtime_stats_t {
  /* Tasks, with the reduction tasks the runtime makes for groups of contributions
   * (FW_ACCESS_REDUCE) and the tasks that pair their accumulators; not the joins of groups of
   * commutative updates, which run nothing. */
  uint64_t tasks_submitted, tasks_executed, tasks_failed;
  size_t num_devices;
  struct {
    char name[32];       /* "cpu", "cuda:0 NVIDIA H200" (cut to 31 characters), or a
                            simulated device's name */
    uint32_t workers;
    uint64_t tasks;
    double busy_seconds; /* summed over the device's workers */
    /* A GPU's link to host memory as its copies of 1 MiB or more measured it, in GB/s:
     * the rate the scheduler's estimates of moves use (0: fewer than 8 MiB measured yet;
     * they use a nominal 16 GB/s). */
    double link_gbps;
  } devices[FW_STATS_MAX_DEVICES];
  uint64_t bytes_moved[FW_NUM_TIERS][FW_NUM_TIERS]; /* [from][to] */
  uint64_t evictions;          /* copies moved down a tier */
  uint64_t prefetch_requests;  /* prefetches started */
  uint64_t prefetch_hits;      /* task inputs found in place thanks to a prefetch */
  uint64_t demand_fetches;     /* task inputs fetched when the task started */
  double stall_seconds;        /* workers waiting for their inputs: copies, room, evictions */
  uint64_t peak_bytes[FW_NUM_TIERS];
  uint64_t limit_bytes[FW_NUM_TIERS]; /* 0: unlimited */
  const char *scheduler;       /* "eager", "ws", "heft" */
  uint64_t tasks_rerun;        /* tasks whose launch failed on a GPU and ran elsewhere */
  uint32_t devices_lost;       /* GPUs taken out of service after repeated failures */
  /* How long the copies of bytes_moved took, each from its start to its end (copies in
   * parallel overlap): bytes_moved / copy_seconds is the rate one copy gets. */
  double copy_seconds[FW_NUM_TIERS][FW_NUM_TIERS];
  /* Of the bytes moved to and from the storage tier, those moved with direct I/O (the
   * rest went through the page cache; FW_STORAGE_IO). */
  uint64_t storage_direct_bytes;
  /* heft: batches of held tasks (a module call's, a simulation's) planned as a whole, the
   * plans made for them (several per batch: docs/task-graph.md), and the wall time the
   * planning took (on the host, also in a simulation). */
  uint64_t batches_planned, plans_made;
  double planning_seconds;
  /* Of the CPU tasks (devices[0].tasks), those that threads waiting for tasks ran
   * themselves in a sleeping worker's place (FW_CALLER_RUNS). */
  uint64_t tasks_by_waiters;
  /* Times fw_task_submit waited for the tasks in flight to fall to min_submitted_tasks,
   * and how long those waits took in all. */
  uint64_t submit_waits;
  double submit_wait_seconds;
  /* Buffers CPU kernels had allocated for themselves and not freed when their workgroup
   * returned, which the runtime freed: a kernel that stopped at a failed check or a buffer
   * the machine refused leaves them. */
  uint64_t kernel_buffers_freed;
} fw_runtime_stats_t;

FW_API fw_status_t fw_runtime_get_stats(fw_runtime_t *runtime, fw_runtime_stats_t *out_stats);

/* ---- Profiles (FW_RUNTIME_PROFILE) ---------------------------------------------- */

/* Times are kept as a histogram with FW_PROFILE_BUCKETS_PER_OCTAVE buckets per power of
 * two of nanoseconds: bucket b holds times in [2^(b/8), 2^((b+1)/8)) ns. */
#define FW_PROFILE_BUCKETS_PER_OCTAVE 8
#define FW_PROFILE_BUCKETS (42 * FW_PROFILE_BUCKETS_PER_OCTAVE) /* 1 ns to ~73 min */
#define FW_PROFILE_MAX_COUNTERS 4

/* Where the counters of a profile come from. */
typedef enum fw_counter_source_t {
  FW_COUNTERS_NONE = 0,     /* the machine gives none: times only */
  FW_COUNTERS_SOFTWARE = 1, /* the kernel's software counters: task clock (ns), page
                               faults, context switches */
  FW_COUNTERS_HARDWARE = 2, /* the PMU: cycles, instructions, cache misses, branch misses */
} fw_counter_source_t;

/* One kernel, on one kind of device, for one size class (floor(log2(bytes accessed))). */
typedef struct fw_profile_entry_t {
  const char *task; /* "module.executable" */
  fw_target_kind_t device;
  uint32_t size_class;
  uint64_t count;
  double total_seconds, min_seconds, max_seconds;
  uint32_t histogram[FW_PROFILE_BUCKETS];
  double counters[FW_PROFILE_MAX_COUNTERS]; /* sums over the runs */
  /* Bytes copied between tiers ([from][to]) when its runs started, to bring their inputs
   * where they ran (what prefetches moved earlier is not counted). */
  uint64_t bytes_moved[FW_NUM_TIERS][FW_NUM_TIERS];
  /* The knobs of the variant that ran ("kc=256,mr=4"; "" for the target's defaults): an
   * executable compiled with candidates (fwc --autotune) has an entry per candidate
   * (target and knobs). */
  const char *config;
  /* The target of that variant ("x86-64-v4", "sm_90"); "" for C tasks. */
  const char *arch;
  /* The runs of this entry came after autotuning chose this candidate. A candidate's
   * trial runs, made in turn with the others' under the same conditions, are in an entry
   * of their own (selected = 0): those compare candidates. */
  int selected;
  /* GPU runs: the kernels' time on the device, between events recorded on the kernel
   * queue around each launch (CUDA/HIP event timing), and how many runs it covers. */
  double device_seconds;
  uint64_t device_runs;
  /* CPU runs: the workgroups the kernel's code divides a run into, one per CPU worker
   * (the most over the runs); 1 when it runs whole on one worker (its code does not
   * divide its work, or there was one worker). 0 for GPU runs and C tasks. */
  uint32_t workgroups;
} fw_profile_entry_t;

/* Power of one GPU while the runtime profiles (NVIDIA: NVML, sampled by a monitor thread
 * every 20 ms). */
#define FW_MAX_POWER_DEVICES 8
typedef struct fw_power_info_t {
  char device[16];      /* its memory node, "cuda:0" */
  uint64_t samples;
  double seconds;       /* from the first sample to the last */
  double average_watts; /* over the samples */
  double max_watts;
  double joules;        /* energy over `seconds` (trapezoids between samples) */
} fw_power_info_t;

typedef struct fw_profile_info_t {
  fw_counter_source_t source;
  uint32_t num_counters;
  const char *counter_names[FW_PROFILE_MAX_COUNTERS];
  uint32_t num_power;
  fw_power_info_t power[FW_MAX_POWER_DEVICES];
  const char *power_note; /* NVIDIA GPUs in use but no power figure: why
                             ("libnvidia-ml.so.1: cannot open ..."); NULL otherwise */
  uint32_t cpu_workers;   /* the CPU workers the runs had */
  /* Every copy between tiers the runtime made (prefetches and evictions' reloads
   * included; [from][to]) and how long they took: the transfer rates placement weighs
   * the bytes a task's inputs needed moved against. */
  uint64_t copy_bytes[FW_NUM_TIERS][FW_NUM_TIERS];
  double copy_seconds[FW_NUM_TIERS][FW_NUM_TIERS];
} fw_profile_info_t;

/* Calls `visit` for every entry recorded so far (under the profile's lock: the callback
 * must not call the runtime) and fills `out_info`. FAILED_PRECONDITION when the runtime
 * was created without FW_RUNTIME_PROFILE. */
typedef void (*fw_profile_visit_fn_t)(void *user_data, const fw_profile_entry_t *entry);
FW_API fw_status_t fw_runtime_profile(fw_runtime_t *runtime, fw_profile_info_t *out_info,
                                      fw_profile_visit_fn_t visit, void *user_data);
/* A 64-bit FNV-1a hash of the module's file: profiles of another build of a module do not
 * apply to this one. */
FW_API uint64_t fw_module_build_id(const fw_module_t *module);
/* A 64-bit FNV-1a hash of the source program fwc compiled (0 for modules built before
 * fat binaries recorded it): builds of the same source share it, so a profile-guided
 * build can recognize the profiles of an earlier build. */
FW_API uint64_t fw_module_source_id(const fw_module_t *module);
/* Writes the events recorded since creation (FW_RUNTIME_TRACE) as Chrome/Perfetto JSON:
 * one track per worker, one per copy direction. */
FW_API fw_status_t fw_runtime_write_trace(fw_runtime_t *runtime, const char *path);
/* Saves the execution-time history to `path` (also done at destruction when
 * history_path is set): into a new file beside it, renamed over it, so that a run that
 * reads it meanwhile, or saves it too, never sees half a file. */
FW_API fw_status_t fw_runtime_save_history(fw_runtime_t *runtime, const char *path);

/* ---- Simulation ----------------------------------------------------------------- */

/* A machine to simulate: the real scheduler runs in virtual time and no kernel executes.
 * A task's time on a device is max(flops / (gflops * speed), bytes / memory bandwidth)
 * plus the device's per-task overhead, where `speed` is the device's factor for the
 * task's kernel name (1 when not listed); or, on a device with a history_speed, the
 * median time the history (fw_runtime_options_t.history_path) has measured for the task
 * on a device of its kind, divided by history_speed, plus the overhead. Inputs move over
 * the device's link to host memory (latency + bytes / bandwidth, one copy at a time per
 * direction).
 *
 * fw_runtime_create refuses a device outside these ranges (they keep every simulated time
 * finite): gflops, memory_gbps and link_gbps 0 (unset) or from FW_SIM_MIN_RATE to
 * FW_SIM_MAX_RATE; link_latency_us and task_overhead_us from 0 to FW_SIM_MAX_US; kernel
 * speeds, and history_speed unless 0, from FW_SIM_MIN_SPEED to FW_SIM_MAX_SPEED. */
#define FW_SIM_MIN_RATE 1e-3
#define FW_SIM_MAX_RATE 1e9
#define FW_SIM_MAX_US 1e9
#define FW_SIM_MIN_SPEED 1e-6
#define FW_SIM_MAX_SPEED 1e6
typedef struct fw_sim_device_t {
  const char *name;            /* "gpu0" */
  fw_target_kind_t kind;
  uint32_t workers;            /* independent execution units (>= 1) */
  double gflops;               /* per worker */
  double memory_gbps;          /* per worker */
  uint64_t memory_bytes;       /* 0: unlimited; CPU devices use host memory */
  double link_gbps;            /* to host memory (non-CPU devices); 0: 16 GB/s */
  double link_latency_us;
  double task_overhead_us;
  size_t num_kernel_speeds;
  const char *const *kernel_names;
  const double *kernel_speeds;
  double history_speed;        /* > 0: measured times from the history, divided by this (1:
                                  as fast as the device they were measured on); tasks it
                                  has not measured use the model. 0: the model alone */
} fw_sim_device_t;

struct fw_sim_machine_t {
  size_t num_devices;
  const fw_sim_device_t *devices;
};

typedef struct fw_sim_report_t {
  double makespan_seconds;
  double critical_path_seconds; /* longest chain, each task at its earliest finish on some
                                   device class, moves between classes counted */
  double work_bound_seconds;    /* total work over the machine's capacity */
  double window_bound_seconds;  /* the work that must fall within time windows (at least
                                   the larger of the two above; docs/task-graph.md) */
  double lower_bound_seconds;   /* the largest of the three */
  uint64_t tasks;
  uint64_t measured_tasks;      /* of those, the runs timed from the history (devices with a
                                   history_speed) */
} fw_sim_report_t;

/* Runs the tasks submitted so far in virtual time and reports on everything simulated
 * since creation (statistics through fw_runtime_get_stats). */
FW_API fw_status_t fw_runtime_simulation_report(fw_runtime_t *runtime,
                                                fw_sim_report_t *out_report);

/* ---- Embedded modules -------------------------------------------------------- */

/* A program that links an object compiled by `fwc --emit=obj` (or static-lib) finds its
 * module here: the object holds the complete .fwb bytes and a static constructor that
 * calls fw_embedded_module_register before main (like clang's offload registration).
 * The registry is the runtime's one piece of process-global state: registration happens
 * before main, from objects linked into the program, when no runtime object exists yet
 * to hang it on. It is guarded by a mutex and holds pointers only (no copies). */

#define FW_EMBEDDED_ABI_VERSION 1u

typedef struct fw_embedded_module_t {
  uint32_t abi_version;  /* FW_EMBEDDED_ABI_VERSION of the object that registers it */
  const char *name;      /* module name, e.g. "mlp" */
  const void *data;      /* the complete .fwb bytes */
  size_t size;
  struct fw_embedded_module_t *next; /* owned by the runtime's list; initialise to NULL */
} fw_embedded_module_t;

/* Adds `module` to the registry (thread-safe, never fails; registering the same record
 * twice, or NULL, does nothing). The record and the memory it points to must stay valid
 * until it is unregistered or the process exits. When two records share a name, the one
 * registered first is found. */
FW_API void fw_embedded_module_register(fw_embedded_module_t *module);
/* Removes `module` from the registry (e.g. from the destructor of a shared library that
 * registered it before it is unloaded); does nothing when it is not registered. */
FW_API void fw_embedded_module_unregister(fw_embedded_module_t *module);
/* Loads the registered module `name`: NOT_FOUND (listing the registered names) when none
 * has that name, UNSUPPORTED when its record is newer than FW_EMBEDDED_ABI_VERSION, then
 * as fw_module_load_memory. The loaded module does not refer to the embedded bytes. */
FW_API fw_status_t fw_module_load_embedded(fw_runtime_t *runtime, const char *name,
                                           fw_module_t **out_module);
/* Loads the module of `record` directly (the generated header of an embedded module does
 * this, which also makes the linker keep the module's object when it comes from a static
 * archive). Checks the record's embedding ABI version like fw_module_load_embedded. */
FW_API fw_status_t fw_module_load_embedded_record(fw_runtime_t *runtime,
                                                  const fw_embedded_module_t *record,
                                                  fw_module_t **out_module);
/* Number of registered modules, and the name of the `index`th in registration order
 * (NULL when out of range). The name stays valid while the record is registered. */
FW_API size_t fw_embedded_module_count(void);
FW_API const char *fw_embedded_module_name(size_t index);

/* ---- Host call ABI, version 4 (compiled code -> runtime) ------------------ */

/* Modules of every version from 1 up to this one load; version 2 added
 * fw_rt_dispatch_after, version 3 the kernels' error word (fw_workgroup_t.error), version 4
 * the CPU kernels' own buffers (fw_rt_kernel_alloc, fw_rt_kernel_free). */
#define FW_HOST_ABI_VERSION 4u

typedef struct fw_invocation_t fw_invocation_t;

typedef struct fw_workgroup_t {
  uint32_t id[3];
  uint32_t count[3];
  /* Version 3: where a kernel that checks what it computes records a failed check: n + 1 - k
   * for check k of its executable's n, as an atomic maximum (the first check that failed,
   * in the kernel's order, wins); the runtime fails the task with that check's message. */
  uint32_t *error;
} fw_workgroup_t;

/* Signature of a CPU kernel (CPU kernel ABI, version 2). */
typedef void (*fw_cpu_kernel_fn_t)(void *const *descriptors, const fw_workgroup_t *workgroup);
/* Signature of a host entry point. */
typedef void (*fw_host_entry_fn_t)(fw_invocation_t *inv);

FW_API void *fw_rt_arg(fw_invocation_t *inv, int64_t index);
FW_API int64_t fw_rt_buffer_dim(fw_invocation_t *inv, void *buffer, int64_t dim);
FW_API void *fw_rt_buffer_alloc(fw_invocation_t *inv, int32_t tier, int32_t element_type,
                                int64_t rank, const int64_t *dims);
FW_API void fw_rt_buffer_release(fw_invocation_t *inv, void *buffer);
FW_API void *fw_rt_dispatch(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                            void *const *buffers);
FW_API void *fw_rt_dispatch_after(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                                  void *const *buffers, int64_t num_after, void *const *after);
FW_API void fw_rt_prefetch(fw_invocation_t *inv, void *buffer, int32_t tier);
FW_API void fw_rt_wait(fw_invocation_t *inv, void *token);
FW_API void fw_rt_set_result(fw_invocation_t *inv, int64_t index, void *buffer);
FW_API void fw_rt_assert(fw_invocation_t *inv, int32_t condition, const char *message);
/* Version 4: the buffers a CPU kernel allocates for itself (its `memref.alloc`s), aligned to
 * `alignment` bytes (0: the C library's default; else a power of two); NULL when the machine
 * refuses, or for a negative size or a bad alignment. While a CPU device runs a workgroup,
 * the runtime frees what the workgroup allocated and had not freed when it returned. */
FW_API void *fw_rt_kernel_alloc(int64_t alignment, int64_t bytes);
FW_API void fw_rt_kernel_free(void *ptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FW_RUNTIME_H_ */
