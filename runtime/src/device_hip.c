/* The HIP device: AMD GPUs through the HIP runtime (libamdhip64.so), opened with dlopen so
 * that the runtime has no link-time dependency on ROCm (a machine without it simply has
 * no HIP device). The HIP types and entry points are declared here; a test compiles this
 * file against the HIP headers to check them (FW_HIP_CHECK_HEADERS). HIP selects the
 * device per thread (hipSetDevice), so every entry point binds the device first. */
#define _GNU_SOURCE
#include "device_hip.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_pool.h"
#include "gpu_kernel_abi.h"
#include "gpu_staging.h"
#include "status_internal.h"

/* ---- Runtime API declarations (the subset fw uses) --------------------------------- */

#ifdef FW_HIP_CHECK_HEADERS
/* Checked against hip_runtime_api.h: the enums become HIP's own, everything else must
 * match. */
#include <hip/hip_runtime_api.h>
typedef hipError_t fw_hipError_t;
typedef hipDeviceAttribute_t fw_hipAttribute_t;
typedef hipMemcpyKind fw_hipMemcpyKind_t;
#else
typedef int fw_hipError_t; /* enums in the HIP headers, passed as int */
typedef int fw_hipAttribute_t;
typedef int fw_hipMemcpyKind_t;
#endif
typedef int fw_hipDevice_t;
typedef struct ihipStream_t *fw_hipStream_t;
typedef struct ihipEvent_t *fw_hipEvent_t;
typedef struct ihipModule_t *fw_hipModule_t;
typedef struct ihipModuleSymbol_t *fw_hipFunction_t;

enum {
  FW_HIP_SUCCESS = 0,
  FW_HIP_ERROR_OUT_OF_MEMORY = 2,
  FW_HIP_ERROR_NOT_READY = 600,
  FW_HIP_ATTRIBUTE_MULTIPROCESSOR_COUNT = 63,
  FW_HIP_STREAM_NON_BLOCKING = 1,
  FW_HIP_MEMCPY_HOST_TO_DEVICE = 1,
  FW_HIP_MEMCPY_DEVICE_TO_HOST = 2,
  FW_HIP_MEMCPY_DEVICE_TO_DEVICE = 3,
};

/* hipGetDeviceProperties fills a structure whose layout changed between ROCm 5 and 6
 * (hipDeviceProp_tR0600); fw needs only its architecture name ("gfx942:sramecc+:xnack-"),
 * so it passes a zeroed buffer larger than either layout and finds the name in it. */
#define FW_HIP_PROPERTIES_BYTES 8192

/* Each entry: name in the runtime, parameters. All return hipError_t, but for
 * hipGetErrorString. */
#define FW_HIP_FUNCTIONS(X)                                                                 \
  X(hipInit, (unsigned int flags))                                                          \
  X(hipGetDeviceCount, (int *count))                                                        \
  X(hipSetDevice, (int device))                                                             \
  X(hipDeviceGetName, (char *name, int len, fw_hipDevice_t device))                         \
  X(hipDeviceGetAttribute, (int *value, fw_hipAttribute_t attribute, int device))           \
  X(hipDeviceTotalMem, (size_t * bytes, fw_hipDevice_t device))                             \
  X(hipMalloc, (void **ptr, size_t size))                                                   \
  X(hipFree, (void *ptr))                                                                   \
  X(hipMemGetInfo, (size_t * free_bytes, size_t * total))                                   \
  X(hipHostMalloc, (void **ptr, size_t size, unsigned int flags))                           \
  X(hipHostFree, (void *ptr))                                                               \
  X(hipMemsetAsync, (void *dst, int value, size_t size, fw_hipStream_t stream))             \
  X(hipMemcpyAsync, (void *dst, const void *src, size_t size, fw_hipMemcpyKind_t kind,      \
                     fw_hipStream_t stream))                                                \
  X(hipStreamCreateWithFlags, (fw_hipStream_t * stream, unsigned int flags))                \
  X(hipStreamDestroy, (fw_hipStream_t stream))                                              \
  X(hipStreamSynchronize, (fw_hipStream_t stream))                                          \
  X(hipStreamWaitEvent, (fw_hipStream_t stream, fw_hipEvent_t event, unsigned int flags))   \
  X(hipEventCreate, (fw_hipEvent_t * event))                                                \
  X(hipEventDestroy, (fw_hipEvent_t event))                                                 \
  X(hipEventRecord, (fw_hipEvent_t event, fw_hipStream_t stream))                           \
  X(hipEventSynchronize, (fw_hipEvent_t event))                                             \
  X(hipEventQuery, (fw_hipEvent_t event))                                                   \
  X(hipEventElapsedTime, (float *ms, fw_hipEvent_t start, fw_hipEvent_t stop))              \
  X(hipModuleLoadData, (fw_hipModule_t * module, const void *image))                        \
  X(hipModuleUnload, (fw_hipModule_t module))                                               \
  X(hipModuleGetFunction, (fw_hipFunction_t * function, fw_hipModule_t module,              \
                           const char *name))                                               \
  X(hipModuleLaunchKernel, (fw_hipFunction_t f, unsigned int gx, unsigned int gy,           \
                            unsigned int gz, unsigned int bx, unsigned int by,              \
                            unsigned int bz, unsigned int shared, fw_hipStream_t stream,    \
                            void **params, void **extra))

#define FW_DECLARE_TYPE(name, params) typedef fw_hipError_t (*fw_##name##_fn) params;
FW_HIP_FUNCTIONS(FW_DECLARE_TYPE)
#undef FW_DECLARE_TYPE
typedef const char *(*fw_hipGetErrorString_fn)(fw_hipError_t error);
typedef fw_hipError_t (*fw_hipGetDeviceProperties_fn)(void *properties, int device);

typedef struct {
  void *library;
#define FW_DECLARE_FIELD(name, params) fw_##name##_fn name;
  FW_HIP_FUNCTIONS(FW_DECLARE_FIELD)
#undef FW_DECLARE_FIELD
  fw_hipGetErrorString_fn hipGetErrorString;
  fw_hipGetDeviceProperties_fn hipGetDeviceProperties;
} hip_api_t;

#ifdef FW_HIP_CHECK_HEADERS
#define FW_CHECK_TYPE(name, params)                                                        \
  _Static_assert(__builtin_types_compatible_p(fw_##name##_fn, __typeof__(&name)),          \
                 #name " is declared differently in hip_runtime_api.h");
FW_HIP_FUNCTIONS(FW_CHECK_TYPE)
#undef FW_CHECK_TYPE
_Static_assert(__builtin_types_compatible_p(fw_hipGetErrorString_fn,
                                            __typeof__(&hipGetErrorString)),
               "hipGetErrorString");
_Static_assert(hipDeviceAttributeMultiprocessorCount == FW_HIP_ATTRIBUTE_MULTIPROCESSOR_COUNT,
               "attribute");
_Static_assert(hipStreamNonBlocking == FW_HIP_STREAM_NON_BLOCKING, "stream flag");
_Static_assert(hipMemcpyHostToDevice == FW_HIP_MEMCPY_HOST_TO_DEVICE, "copy kind");
_Static_assert(hipMemcpyDeviceToHost == FW_HIP_MEMCPY_DEVICE_TO_HOST, "copy kind");
_Static_assert(hipMemcpyDeviceToDevice == FW_HIP_MEMCPY_DEVICE_TO_DEVICE, "copy kind");
_Static_assert(sizeof(hipDeviceProp_t) <= FW_HIP_PROPERTIES_BYTES, "properties buffer");
#endif

static hip_api_t g_api;
static pthread_once_t g_api_once = PTHREAD_ONCE_INIT;
static char g_api_error[512];

static void load_api(void) {
  /* The versioned names first: a machine running programs has no development symlink. */
  static const char *const kNames[] = {"libamdhip64.so.6", "libamdhip64.so.5",
                                       "libamdhip64.so"};
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]) && !g_api.library; ++i)
    g_api.library = dlopen(kNames[i], RTLD_NOW | RTLD_LOCAL);
  if (!g_api.library) {
    snprintf(g_api_error, sizeof(g_api_error), "libamdhip64.so not found (no ROCm HIP runtime)");
    return;
  }
#define FW_RESOLVE(name, params)                                                          \
  g_api.name = (fw_##name##_fn)dlsym(g_api.library, #name);                               \
  if (!g_api.name && !g_api_error[0])                                                     \
    snprintf(g_api_error, sizeof(g_api_error), "libamdhip64.so has no %s (ROCm too old?)", \
             #name);
  FW_HIP_FUNCTIONS(FW_RESOLVE)
#undef FW_RESOLVE
  g_api.hipGetErrorString = (fw_hipGetErrorString_fn)dlsym(g_api.library, "hipGetErrorString");
  /* ROCm 6 names the current layout's entry point after its revision. */
  g_api.hipGetDeviceProperties =
      (fw_hipGetDeviceProperties_fn)dlsym(g_api.library, "hipGetDevicePropertiesR0600");
  if (!g_api.hipGetDeviceProperties)
    g_api.hipGetDeviceProperties =
        (fw_hipGetDeviceProperties_fn)dlsym(g_api.library, "hipGetDeviceProperties");
  if (!g_api_error[0] && (!g_api.hipGetErrorString || !g_api.hipGetDeviceProperties))
    snprintf(g_api_error, sizeof(g_api_error),
             "libamdhip64.so has no hipGetErrorString or hipGetDeviceProperties");
  if (!g_api_error[0]) {
    fw_hipError_t r = g_api.hipInit(0);
    if (r != FW_HIP_SUCCESS)
      snprintf(g_api_error, sizeof(g_api_error), "hipInit failed: %s (no usable AMD GPU driver)",
               g_api.hipGetErrorString(r));
  }
}

/* ---- The device -------------------------------------------------------------------- */

struct fw_device_queue_t {
  fw_hipStream_t stream;
};

typedef struct {
  fw_device_t base;
  int ordinal;
  fw_hipStream_t stream;      /* the default queue: launches */
  fw_hipStream_t copy_stream; /* copies and fills of the default queue, so that they
                                 overlap kernels */
  char name[64], arch[32];
  int compute_units;
  size_t memory;
  fw_block_pool_t pool; /* freed device memory kept for reuse */
  struct fw_device_queue_t copy_queue; /* copy_stream, for the staging below */
  fw_gpu_staging_t staging; /* large copies of pageable host memory */
} hip_device_t;

struct fw_device_event_t {
  fw_hipEvent_t event;
};

struct fw_device_module_t {
  fw_hipModule_t module;
};

static fw_status_t hip_error(fw_hipError_t r, const char *what) {
  const char *text = g_api.hipGetErrorString ? g_api.hipGetErrorString(r) : NULL;
  /* Running out of memory is no fault of the device's (it does not count against it). */
  fw_status_code_t code =
      r == FW_HIP_ERROR_OUT_OF_MEMORY ? FW_STATUS_RESOURCE_EXHAUSTED : FW_STATUS_INTERNAL;
  return fw_status_make(code, "HIP %s failed: %s (error %d)", what,
                        text ? text : "unknown error", (int)r);
}

#define HIP_TRY(call, what)                                                                \
  do {                                                                                    \
    fw_hipError_t r_ = (call);                                                            \
    if (r_ != FW_HIP_SUCCESS) return hip_error(r_, what);                                 \
  } while (0)

/* Makes the device current on the calling thread. */
static fw_status_t bind(hip_device_t *d) {
  HIP_TRY(g_api.hipSetDevice(d->ordinal), "hipSetDevice");
  return FW_OK;
}

static fw_hipStream_t stream_of(hip_device_t *d, fw_device_queue_t *queue) {
  return queue ? queue->stream : d->stream;
}

/* Operations on the default queue (NULL) complete before they return. */
static fw_status_t finish(fw_device_queue_t *queue, fw_hipStream_t stream) {
  if (!queue) HIP_TRY(g_api.hipStreamSynchronize(stream), "hipStreamSynchronize");
  return FW_OK;
}

static void hip_destroy(fw_device_t *device) {
  hip_device_t *d = (hip_device_t *)device;
  fw_block_pool_fini(&d->pool);
  fw_gpu_staging_fini(&d->staging, device);
  if (bind(d) == FW_OK) {
    if (d->copy_stream) g_api.hipStreamDestroy(d->copy_stream);
    if (d->stream) g_api.hipStreamDestroy(d->stream);
  }
  free(d);
}

static fw_status_t hip_query(fw_device_t *device, fw_device_info_t *out) {
  hip_device_t *d = (hip_device_t *)device;
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "%s", d->name);
  snprintf(out->arch, sizeof(out->arch), "%s", d->arch);
  out->memory_bytes = d->memory;
  out->compute_units = (uint32_t)d->compute_units;
  return FW_OK;
}

static void hip_release(void *context, void *ptr, size_t size) {
  (void)size;
  if (bind(context) == FW_OK) g_api.hipFree(ptr);
}

static fw_status_t hip_alloc(fw_device_t *device, size_t size, void **out_ptr) {
  hip_device_t *d = (hip_device_t *)device;
  *out_ptr = NULL;
  size_t rounded = fw_gpu_block_size(size);
  if ((*out_ptr = fw_block_pool_take(&d->pool, rounded))) return FW_OK;
  fw_status_t s = bind(d);
  if (s) return s;
  fw_hipError_t r = g_api.hipMalloc(out_ptr, rounded);
  if (r != FW_HIP_SUCCESS && fw_block_pool_bytes(&d->pool)) {
    fw_block_pool_flush(&d->pool); /* kept blocks of other sizes hold the room */
    r = g_api.hipMalloc(out_ptr, rounded);
  }
  if (r != FW_HIP_SUCCESS) {
    *out_ptr = NULL;
    return fw_status_annotate(hip_error(r, "hipMalloc"), "allocating %zu bytes on %s", size,
                              d->name);
  }
  return FW_OK;
}

/* hipFree waits for the device: freed blocks go to the pool instead. */
static void hip_free(fw_device_t *device, void *ptr, size_t size) {
  hip_device_t *d = (hip_device_t *)device;
  if (!ptr) return;
  size_t rounded = fw_gpu_block_size(size);
  if (!fw_block_pool_put(&d->pool, ptr, rounded)) hip_release(d, ptr, rounded);
}

static fw_status_t hip_fill_zero(fw_device_t *device, void *ptr, size_t size) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  HIP_TRY(g_api.hipMemsetAsync(ptr, 0, size, d->copy_stream), "hipMemsetAsync");
  return finish(NULL, d->copy_stream);
}

static fw_status_t hip_available(fw_device_t *device, uint64_t *out_bytes) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  size_t free_bytes = 0, total = 0;
  HIP_TRY(g_api.hipMemGetInfo(&free_bytes, &total), "hipMemGetInfo");
  *out_bytes = (uint64_t)free_bytes + fw_block_pool_bytes(&d->pool);
  return FW_OK;
}

static fw_status_t hip_alloc_host(fw_device_t *device, size_t size, void **out_ptr) {
  fw_status_t s = bind((hip_device_t *)device);
  if (s) return s;
  HIP_TRY(g_api.hipHostMalloc(out_ptr, size ? size : 1, 0), "hipHostMalloc");
  return FW_OK;
}

static void hip_free_host(fw_device_t *device, void *ptr) {
  if (ptr && bind((hip_device_t *)device) == FW_OK) g_api.hipHostFree(ptr);
}

/* Copies are asynchronous on a caller's queue (host memory from alloc_host). On the
 * default queue they run on the copy stream and complete before returning; large ones
 * from pageable memory go through the pinned staging buffers. */
static fw_status_t copy(fw_device_t *device, fw_device_queue_t *queue, void *dst,
                        const void *src, size_t size, fw_hipMemcpyKind_t kind) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  if (!queue && size >= FW_GPU_STAGING_THRESHOLD) {
    if (kind == FW_HIP_MEMCPY_HOST_TO_DEVICE)
      return fw_gpu_staged_to_device(&d->staging, device, dst, src, size);
    if (kind == FW_HIP_MEMCPY_DEVICE_TO_HOST)
      return fw_gpu_staged_to_host(&d->staging, device, dst, src, size);
  }
  fw_hipStream_t stream = queue ? queue->stream : d->copy_stream;
  HIP_TRY(g_api.hipMemcpyAsync(dst, src, size, kind, stream), "hipMemcpyAsync");
  return finish(queue, stream);
}

static fw_status_t hip_copy_to_device(fw_device_t *device, fw_device_queue_t *queue,
                                      void *dst, const void *host_src, size_t size) {
  return copy(device, queue, dst, host_src, size, FW_HIP_MEMCPY_HOST_TO_DEVICE);
}

static fw_status_t hip_copy_to_host(fw_device_t *device, fw_device_queue_t *queue,
                                    void *host_dst, const void *src, size_t size) {
  return copy(device, queue, host_dst, src, size, FW_HIP_MEMCPY_DEVICE_TO_HOST);
}

static fw_status_t hip_copy_on_device(fw_device_t *device, fw_device_queue_t *queue,
                                      void *dst, const void *src, size_t size) {
  return copy(device, queue, dst, src, size, FW_HIP_MEMCPY_DEVICE_TO_DEVICE);
}

static fw_status_t hip_queue_create(fw_device_t *device, fw_device_queue_t **out_queue) {
  *out_queue = NULL;
  fw_status_t s = bind((hip_device_t *)device);
  if (s) return s;
  fw_device_queue_t *q = calloc(1, sizeof(*q));
  if (!q) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  fw_hipError_t r = g_api.hipStreamCreateWithFlags(&q->stream, FW_HIP_STREAM_NON_BLOCKING);
  if (r != FW_HIP_SUCCESS) {
    free(q);
    return hip_error(r, "hipStreamCreateWithFlags");
  }
  *out_queue = q;
  return FW_OK;
}

static void hip_queue_destroy(fw_device_t *device, fw_device_queue_t *queue) {
  if (!queue) return;
  if (bind((hip_device_t *)device) == FW_OK) g_api.hipStreamDestroy(queue->stream);
  free(queue);
}

static fw_status_t hip_queue_synchronize(fw_device_t *device, fw_device_queue_t *queue) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  HIP_TRY(g_api.hipStreamSynchronize(stream_of(d, queue)), "hipStreamSynchronize");
  return FW_OK;
}

/* The stream itself: a C task's GPU implementation enqueues its work on it. */
static fw_status_t hip_queue_native(fw_device_t *device, fw_device_queue_t *queue,
                                   void **out_stream) {
  hip_device_t *d = (hip_device_t *)device;
  *out_stream = NULL;
  fw_status_t s = bind(d);
  if (s) return s;
  *out_stream = (void *)stream_of(d, queue);
  return FW_OK;
}

static fw_status_t hip_event_create(fw_device_t *device, fw_device_event_t **out_event) {
  *out_event = NULL;
  fw_status_t s = bind((hip_device_t *)device);
  if (s) return s;
  fw_device_event_t *e = calloc(1, sizeof(*e));
  if (!e) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  fw_hipError_t r = g_api.hipEventCreate(&e->event);
  if (r != FW_HIP_SUCCESS) {
    free(e);
    return hip_error(r, "hipEventCreate");
  }
  *out_event = e;
  return FW_OK;
}

static void hip_event_destroy(fw_device_t *device, fw_device_event_t *event) {
  if (!event) return;
  if (bind((hip_device_t *)device) == FW_OK) g_api.hipEventDestroy(event->event);
  free(event);
}

static fw_status_t hip_event_record(fw_device_t *device, fw_device_event_t *event,
                                    fw_device_queue_t *queue) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  HIP_TRY(g_api.hipEventRecord(event->event, stream_of(d, queue)), "hipEventRecord");
  return FW_OK;
}

static fw_status_t hip_queue_wait_event(fw_device_t *device, fw_device_queue_t *queue,
                                        fw_device_event_t *event) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  HIP_TRY(g_api.hipStreamWaitEvent(stream_of(d, queue), event->event, 0), "hipStreamWaitEvent");
  return FW_OK;
}

static fw_status_t hip_event_synchronize(fw_device_t *device, fw_device_event_t *event) {
  fw_status_t s = bind((hip_device_t *)device);
  if (s) return s;
  HIP_TRY(g_api.hipEventSynchronize(event->event), "hipEventSynchronize");
  return FW_OK;
}

static int hip_event_is_complete(fw_device_t *device, fw_device_event_t *event) {
  fw_status_t s = bind((hip_device_t *)device);
  if (s) {
    fw_status_free(s);
    return 1; /* event_synchronize reports it */
  }
  return g_api.hipEventQuery(event->event) != FW_HIP_ERROR_NOT_READY;
}

static fw_status_t hip_event_elapsed(fw_device_t *device, fw_device_event_t *start,
                                     fw_device_event_t *end, double *out_seconds) {
  *out_seconds = 0;
  fw_status_t s = bind((hip_device_t *)device);
  if (s) return s;
  float ms = 0;
  HIP_TRY(g_api.hipEventElapsedTime(&ms, start->event, end->event), "hipEventElapsedTime");
  *out_seconds = (double)ms * 1e-3;
  return FW_OK;
}

/* An HSACO code object (ELF) carries its size. */
static fw_status_t hip_module_load(fw_device_t *device, const void *image, size_t size,
                                   fw_device_module_t **out_module) {
  *out_module = NULL;
  hip_device_t *d = (hip_device_t *)device;
  if (size < 4 || memcmp(image, "\x7f" "ELF", 4) != 0)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "loading an image on %s: not an AMD code object (ELF)", d->name);
  fw_status_t s = bind(d);
  if (s) return s;
  fw_device_module_t *m = calloc(1, sizeof(*m));
  if (!m) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  fw_hipError_t r = g_api.hipModuleLoadData(&m->module, image);
  if (r != FW_HIP_SUCCESS) {
    free(m);
    return fw_status_annotate(hip_error(r, "hipModuleLoadData"), "loading an image on %s",
                              d->name);
  }
  *out_module = m;
  return FW_OK;
}

static void hip_module_unload(fw_device_t *device, fw_device_module_t *module) {
  if (!module) return;
  if (bind((hip_device_t *)device) == FW_OK) g_api.hipModuleUnload(module->module);
  free(module);
}

static fw_status_t hip_module_get_kernel(fw_device_t *device, fw_device_module_t *module,
                                         const char *name, const void **out_kernel) {
  *out_kernel = NULL;
  fw_status_t s = bind((hip_device_t *)device);
  if (s) return s;
  fw_hipFunction_t f = NULL;
  fw_hipError_t r = g_api.hipModuleGetFunction(&f, module->module, name);
  if (r != FW_HIP_SUCCESS)
    return fw_status_annotate(hip_error(r, "hipModuleGetFunction"), "kernel '%s'", name);
  *out_kernel = f;
  return FW_OK;
}

static fw_status_t hip_launch(fw_device_t *device, fw_device_queue_t *queue,
                              const fw_device_launch_t *launch) {
  hip_device_t *d = (hip_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  fw_gpu_kernel_params_t params;
  s = fw_gpu_kernel_params_make(launch, &params);
  if (s) return s;
  unsigned grid, block;
  fw_gpu_launch_shape(launch, (uint32_t)(d->compute_units > 0 ? d->compute_units : 0), &grid,
                      &block);
  fw_hipError_t r =
      g_api.hipModuleLaunchKernel((fw_hipFunction_t)launch->kernel.image, grid, 1, 1, block, 1,
                                  1, 0, stream_of(d, queue), params.params, NULL);
  fw_gpu_kernel_params_free(&params);
  if (r != FW_HIP_SUCCESS) return hip_error(r, "hipModuleLaunchKernel");
  return finish(queue, stream_of(d, queue));
}

static const fw_device_vtable_t kHipDeviceVtable = {
    .name = "hip",
    .target_kind = FW_TARGET_KIND_HIP,
    .destroy = hip_destroy,
    .query = hip_query,
    .alloc = hip_alloc,
    .free = hip_free,
    .available = hip_available,
    .fill_zero = hip_fill_zero,
    .alloc_host = hip_alloc_host,
    .free_host = hip_free_host,
    .copy_to_device = hip_copy_to_device,
    .copy_to_host = hip_copy_to_host,
    .copy_on_device = hip_copy_on_device,
    .queue_create = hip_queue_create,
    .queue_destroy = hip_queue_destroy,
    .queue_synchronize = hip_queue_synchronize,
    .queue_native = hip_queue_native,
    .event_create = hip_event_create,
    .event_destroy = hip_event_destroy,
    .event_record = hip_event_record,
    .queue_wait_event = hip_queue_wait_event,
    .event_synchronize = hip_event_synchronize,
    .event_is_complete = hip_event_is_complete,
    .event_elapsed = hip_event_elapsed,
    .module_load = hip_module_load,
    .module_unload = hip_module_unload,
    .module_get_kernel = hip_module_get_kernel,
    .launch = hip_launch,
};

/* The architecture name in a hipDeviceProp_t of any layout: the only string field that
 * starts with "gfx" followed by a digit. */
static void find_arch(const char *props, size_t size, char *arch, size_t arch_size) {
  for (size_t i = 0; i + 4 < size; ++i) {
    if (memcmp(props + i, "gfx", 3) != 0 || props[i + 3] < '0' || props[i + 3] > '9') continue;
    if (i > 0 && props[i - 1] != '\0') continue;
    size_t n = 0;
    while (i + n < size && props[i + n] && props[i + n] != ':' && n + 1 < arch_size) ++n;
    memcpy(arch, props + i, n);
    arch[n] = '\0';
    return;
  }
  snprintf(arch, arch_size, "unknown");
}

static fw_status_t create_device(int ordinal, fw_device_t **out_device) {
  hip_device_t *d = calloc(1, sizeof(*d));
  char *props = calloc(1, FW_HIP_PROPERTIES_BYTES);
  if (!d || !props) {
    free(d);
    free(props);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  d->base.vtable = &kHipDeviceVtable;
  d->ordinal = ordinal;
  fw_hipError_t r = g_api.hipSetDevice(ordinal);
  if (r == FW_HIP_SUCCESS) r = g_api.hipDeviceGetName(d->name, (int)sizeof(d->name), ordinal);
  if (r == FW_HIP_SUCCESS)
    r = g_api.hipDeviceGetAttribute(&d->compute_units, FW_HIP_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    ordinal);
  if (r == FW_HIP_SUCCESS) r = g_api.hipDeviceTotalMem(&d->memory, ordinal);
  if (r == FW_HIP_SUCCESS) r = g_api.hipGetDeviceProperties(props, ordinal);
  if (r == FW_HIP_SUCCESS) r = g_api.hipStreamCreateWithFlags(&d->stream, FW_HIP_STREAM_NON_BLOCKING);
  if (r == FW_HIP_SUCCESS)
    r = g_api.hipStreamCreateWithFlags(&d->copy_stream, FW_HIP_STREAM_NON_BLOCKING);
  if (r != FW_HIP_SUCCESS) {
    if (d->stream) g_api.hipStreamDestroy(d->stream);
    free(d);
    free(props);
    return fw_status_annotate(hip_error(r, "device query"), "HIP device %d", ordinal);
  }
  find_arch(props, FW_HIP_PROPERTIES_BYTES, d->arch, sizeof(d->arch));
  free(props);
  /* Up to an eighth of the device's memory stays in freed blocks. */
  fw_block_pool_init(&d->pool, 0, d->memory / 8, hip_release, d);
  d->copy_queue.stream = d->copy_stream;
  fw_gpu_staging_init(&d->staging, &d->copy_queue);
  *out_device = &d->base;
  return FW_OK;
}

fw_status_t fw_hip_discover(fw_device_t ***out_devices, size_t *out_count, char *why,
                            size_t why_size) {
  *out_devices = NULL;
  *out_count = 0;
  if (why_size) why[0] = '\0';
  pthread_once(&g_api_once, load_api);
  if (g_api_error[0]) {
    snprintf(why, why_size, "%s", g_api_error);
    return FW_OK;
  }
  int count = 0;
  fw_hipError_t r = g_api.hipGetDeviceCount(&count);
  if (r != FW_HIP_SUCCESS || count <= 0) {
    snprintf(why, why_size, "the HIP runtime reports no AMD GPU");
    return FW_OK;
  }
  fw_device_t **devices = calloc((size_t)count, sizeof(*devices));
  if (!devices) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  size_t made = 0;
  for (int i = 0; i < count; ++i) {
    fw_status_t s = create_device(i, &devices[made]);
    if (s) {
      if (!made) snprintf(why, why_size, "%s", fw_status_message(s));
      fw_status_free(s);
      continue;
    }
    ++made;
  }
  *out_devices = devices;
  *out_count = made;
  return FW_OK;
}
