/* The CUDA device: NVIDIA GPUs through the driver API of libcuda.so.1, opened with dlopen
 * so that the runtime has no link-time dependency on CUDA (a machine without the driver
 * simply has no CUDA device). The driver types and entry points are declared here; a
 * test compiles this file against CUDA's cuda.h to check them (FW_CUDA_CHECK_HEADERS). */
#define _GNU_SOURCE
#include "device_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_pool.h"
#include "gpu_kernel_abi.h"
#include "gpu_staging.h"
#include "status_internal.h"

/* ---- Driver API declarations (the subset fw uses) ---------------------------------- */

#ifdef FW_CUDA_CHECK_HEADERS
/* Checked against cuda.h: the enums become CUDA's own, everything else must match. */
#include <cuda.h>
typedef CUresult fw_CUresult;
typedef CUdevice_attribute fw_CUattribute;
#else
typedef int fw_CUresult; /* enums in cuda.h, passed as int */
typedef int fw_CUattribute;
#endif
typedef int fw_CUdevice;
typedef unsigned long long fw_CUdeviceptr;
typedef struct CUctx_st *fw_CUcontext;
typedef struct CUmod_st *fw_CUmodule;
typedef struct CUfunc_st *fw_CUfunction;
typedef struct CUstream_st *fw_CUstream;
typedef struct CUevent_st *fw_CUevent;

enum {
  FW_CUDA_SUCCESS = 0,
  FW_CUDA_ERROR_OUT_OF_MEMORY = 2,
  FW_CUDA_ERROR_NOT_READY = 600,
  FW_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  FW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  FW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  FW_CU_STREAM_NON_BLOCKING = 1,
  FW_CU_EVENT_DEFAULT = 0,
};

/* Each entry: return type, name in the driver, parameters. */
#define FW_CUDA_FUNCTIONS(X)                                                                \
  X(cuInit, (unsigned int flags))                                                           \
  X(cuGetErrorString, (fw_CUresult error, const char **str))                                \
  X(cuDeviceGetCount, (int *count))                                                         \
  X(cuDeviceGet, (fw_CUdevice * device, int ordinal))                                       \
  X(cuDeviceGetName, (char *name, int len, fw_CUdevice dev))                                \
  X(cuDeviceGetPCIBusId, (char *bus_id, int len, fw_CUdevice dev))                          \
  X(cuDeviceGetAttribute, (int *value, fw_CUattribute attribute, fw_CUdevice dev))          \
  X(cuDeviceTotalMem_v2, (size_t * bytes, fw_CUdevice dev))                                 \
  X(cuDevicePrimaryCtxRetain, (fw_CUcontext * ctx, fw_CUdevice dev))                        \
  X(cuDevicePrimaryCtxRelease_v2, (fw_CUdevice dev))                                        \
  X(cuCtxSetCurrent, (fw_CUcontext ctx))                                                    \
  X(cuMemAlloc_v2, (fw_CUdeviceptr * ptr, size_t size))                                     \
  X(cuMemFree_v2, (fw_CUdeviceptr ptr))                                                     \
  X(cuMemGetInfo_v2, (size_t * free_bytes, size_t * total))                                 \
  X(cuMemHostAlloc, (void **ptr, size_t size, unsigned int flags))                          \
  X(cuMemFreeHost, (void *ptr))                                                             \
  X(cuMemsetD8Async, (fw_CUdeviceptr dst, unsigned char value, size_t n, fw_CUstream s))    \
  X(cuMemcpyHtoDAsync_v2, (fw_CUdeviceptr dst, const void *src, size_t n, fw_CUstream s))   \
  X(cuMemcpyDtoHAsync_v2, (void *dst, fw_CUdeviceptr src, size_t n, fw_CUstream s))         \
  X(cuMemcpyDtoDAsync_v2, (fw_CUdeviceptr dst, fw_CUdeviceptr src, size_t n, fw_CUstream s)) \
  X(cuStreamCreate, (fw_CUstream * stream, unsigned int flags))                             \
  X(cuStreamDestroy_v2, (fw_CUstream stream))                                               \
  X(cuStreamSynchronize, (fw_CUstream stream))                                              \
  X(cuStreamWaitEvent, (fw_CUstream stream, fw_CUevent event, unsigned int flags))          \
  X(cuEventCreate, (fw_CUevent * event, unsigned int flags))                                \
  X(cuEventDestroy_v2, (fw_CUevent event))                                                  \
  X(cuEventRecord, (fw_CUevent event, fw_CUstream stream))                                  \
  X(cuEventSynchronize, (fw_CUevent event))                                                 \
  X(cuEventQuery, (fw_CUevent event))                                                       \
  X(cuEventElapsedTime, (float *ms, fw_CUevent start, fw_CUevent end))                      \
  X(cuModuleLoadData, (fw_CUmodule * module, const void *image))                            \
  X(cuModuleUnload, (fw_CUmodule module))                                                   \
  X(cuModuleGetFunction, (fw_CUfunction * function, fw_CUmodule module, const char *name))  \
  X(cuLaunchKernel, (fw_CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,    \
                     unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, \
                     fw_CUstream stream, void **params, void **extra))

#define FW_DECLARE_TYPE(name, params) typedef fw_CUresult (*fw_##name##_fn) params;
FW_CUDA_FUNCTIONS(FW_DECLARE_TYPE)
#undef FW_DECLARE_TYPE

typedef struct {
  void *library;
#define FW_DECLARE_FIELD(name, params) fw_##name##_fn name;
  FW_CUDA_FUNCTIONS(FW_DECLARE_FIELD)
#undef FW_DECLARE_FIELD
} cuda_api_t;

#ifdef FW_CUDA_CHECK_HEADERS
/* Our declarations must match CUDA's own. */
#define FW_CHECK_TYPE(name, params)                                                        \
  _Static_assert(__builtin_types_compatible_p(fw_##name##_fn, __typeof__(&name)),          \
                 #name " is declared differently in cuda.h");
#undef cuDeviceTotalMem_v2
FW_CUDA_FUNCTIONS(FW_CHECK_TYPE)
_Static_assert(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
                   FW_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
                   FW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "attribute");
_Static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
                   FW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "attribute");
_Static_assert(CU_STREAM_NON_BLOCKING == FW_CU_STREAM_NON_BLOCKING, "stream flag");
#undef FW_CHECK_TYPE
#endif

static cuda_api_t g_api;
static pthread_once_t g_api_once = PTHREAD_ONCE_INIT;
static char g_api_error[512];

static void load_api(void) {
  g_api.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g_api.library) {
    const char *why = dlerror();
    snprintf(g_api_error, sizeof(g_api_error), "%s", why ? why : "libcuda.so.1 not found");
    return;
  }
#define FW_RESOLVE(name, params)                                                          \
  g_api.name = (fw_##name##_fn)dlsym(g_api.library, #name);                               \
  if (!g_api.name && !g_api_error[0])                                                     \
    snprintf(g_api_error, sizeof(g_api_error), "libcuda.so.1 has no %s (driver too old?)", \
             #name);
  FW_CUDA_FUNCTIONS(FW_RESOLVE)
#undef FW_RESOLVE
  if (!g_api_error[0] && g_api.cuInit(0) != FW_CUDA_SUCCESS)
    snprintf(g_api_error, sizeof(g_api_error), "cuInit failed (no usable NVIDIA driver)");
}

/* ---- The device -------------------------------------------------------------------- */

struct fw_device_queue_t {
  fw_CUstream stream;
};

typedef struct {
  fw_device_t base;
  int ordinal;
  fw_CUdevice device;
  fw_CUcontext context;
  fw_CUstream stream;      /* the default queue: launches */
  fw_CUstream copy_stream; /* copies and fills of the default queue, so that they
                              overlap kernels */
  char name[64];
  int cc_major, cc_minor, sms;
  size_t memory;
  fw_block_pool_t pool; /* freed device memory kept for reuse */
  struct fw_device_queue_t copy_queue; /* copy_stream, for the staging below */
  fw_gpu_staging_t staging; /* large copies of pageable host memory */
} cuda_device_t;

struct fw_device_event_t {
  fw_CUevent event;
};

struct fw_device_module_t {
  fw_CUmodule module;
};

static fw_status_t cu_error(fw_CUresult r, const char *what) {
  const char *text = NULL;
  if (g_api.cuGetErrorString) g_api.cuGetErrorString(r, &text);
  /* Running out of memory is no fault of the device's (it does not count against it). */
  fw_status_code_t code =
      r == FW_CUDA_ERROR_OUT_OF_MEMORY ? FW_STATUS_RESOURCE_EXHAUSTED : FW_STATUS_INTERNAL;
  return fw_status_make(code, "CUDA %s failed: %s (error %d)", what,
                        text ? text : "unknown error", r);
}

#define CU_TRY(call, what)                                                                 \
  do {                                                                                    \
    fw_CUresult r_ = (call);                                                              \
    if (r_ != FW_CUDA_SUCCESS) return cu_error(r_, what);                                 \
  } while (0)

/* Makes the device's context current on the calling thread. */
static fw_status_t bind(cuda_device_t *d) {
  CU_TRY(g_api.cuCtxSetCurrent(d->context), "cuCtxSetCurrent");
  return FW_OK;
}

static fw_CUstream stream_of(cuda_device_t *d, fw_device_queue_t *queue) {
  return queue ? queue->stream : d->stream;
}

static void cu_destroy(fw_device_t *device) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_block_pool_fini(&d->pool);
  fw_gpu_staging_fini(&d->staging, device);
  if (bind(d) == FW_OK) {
    if (d->copy_stream) g_api.cuStreamDestroy_v2(d->copy_stream);
    if (d->stream) g_api.cuStreamDestroy_v2(d->stream);
  }
  g_api.cuDevicePrimaryCtxRelease_v2(d->device);
  free(d);
}

static fw_status_t cu_query(fw_device_t *device, fw_device_info_t *out) {
  cuda_device_t *d = (cuda_device_t *)device;
  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "%s", d->name);
  snprintf(out->arch, sizeof(out->arch), "sm_%d%d", d->cc_major, d->cc_minor);
  out->memory_bytes = d->memory;
  out->compute_units = (uint32_t)d->sms;
  return FW_OK;
}

static void cu_release(void *context, void *ptr, size_t size) {
  (void)size;
  if (bind(context) == FW_OK) g_api.cuMemFree_v2((fw_CUdeviceptr)(uintptr_t)ptr);
}

static fw_status_t cu_alloc(fw_device_t *device, size_t size, void **out_ptr) {
  cuda_device_t *d = (cuda_device_t *)device;
  *out_ptr = NULL;
  size_t rounded = fw_gpu_block_size(size);
  if ((*out_ptr = fw_block_pool_take(&d->pool, rounded))) return FW_OK;
  fw_status_t s = bind(d);
  if (s) return s;
  fw_CUdeviceptr p = 0;
  fw_CUresult r = g_api.cuMemAlloc_v2(&p, rounded);
  if (r != FW_CUDA_SUCCESS && fw_block_pool_bytes(&d->pool)) {
    /* Kept blocks of other sizes hold the room: give them back and try again. */
    fw_block_pool_flush(&d->pool);
    r = g_api.cuMemAlloc_v2(&p, rounded);
  }
  if (r != FW_CUDA_SUCCESS)
    return fw_status_annotate(cu_error(r, "cuMemAlloc"), "allocating %zu bytes on %s", size,
                              d->name);
  *out_ptr = (void *)(uintptr_t)p;
  return FW_OK;
}

/* cuMemFree waits for the whole device: freed blocks go to the pool instead. */
static void cu_free(fw_device_t *device, void *ptr, size_t size) {
  cuda_device_t *d = (cuda_device_t *)device;
  if (!ptr) return;
  size_t rounded = fw_gpu_block_size(size);
  if (!fw_block_pool_put(&d->pool, ptr, rounded)) cu_release(d, ptr, rounded);
}

/* Operations of the default queue (NULL) complete before they return, as the memory
 * manager expects. */
static fw_status_t finish(fw_device_queue_t *queue, fw_CUstream stream) {
  if (!queue) CU_TRY(g_api.cuStreamSynchronize(stream), "cuStreamSynchronize");
  return FW_OK;
}

/* The stream of a copy or fill: the caller's queue, else the copy stream. */
static fw_CUstream copy_stream_of(cuda_device_t *d, fw_device_queue_t *queue) {
  return queue ? queue->stream : d->copy_stream;
}

/* Defined before the fill returns: on a stream of the device (a non-blocking stream does
 * not wait for work on the legacy default stream), then synchronized. */
static fw_status_t cu_fill_zero(fw_device_t *device, void *ptr, size_t size) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  CU_TRY(g_api.cuMemsetD8Async((fw_CUdeviceptr)(uintptr_t)ptr, 0, size, d->copy_stream),
         "cuMemsetD8Async");
  return finish(NULL, d->copy_stream);
}

static fw_status_t cu_available(fw_device_t *device, uint64_t *out_bytes) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  size_t free_bytes = 0, total = 0;
  CU_TRY(g_api.cuMemGetInfo_v2(&free_bytes, &total), "cuMemGetInfo");
  *out_bytes = (uint64_t)free_bytes + fw_block_pool_bytes(&d->pool);
  return FW_OK;
}

static fw_status_t cu_alloc_host(fw_device_t *device, size_t size, void **out_ptr) {
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) return s;
  CU_TRY(g_api.cuMemHostAlloc(out_ptr, size ? size : 1, 0), "cuMemHostAlloc");
  return FW_OK;
}

static void cu_free_host(fw_device_t *device, void *ptr) {
  if (ptr && bind((cuda_device_t *)device) == FW_OK) g_api.cuMemFreeHost(ptr);
}

/* Copies are asynchronous on a caller's queue (host memory from alloc_host). On the
 * default queue they complete before returning; large ones from pageable memory go
 * through the pinned staging buffers, small ones directly. */
static fw_status_t cu_copy_to_device(fw_device_t *device, fw_device_queue_t *queue, void *dst,
                                     const void *host_src, size_t size) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  if (!queue && size >= FW_GPU_STAGING_THRESHOLD)
    return fw_gpu_staged_to_device(&d->staging, device, dst, host_src, size);
  fw_CUstream stream = copy_stream_of(d, queue);
  CU_TRY(g_api.cuMemcpyHtoDAsync_v2((fw_CUdeviceptr)(uintptr_t)dst, host_src, size, stream),
         "cuMemcpyHtoDAsync");
  return finish(queue, stream);
}

static fw_status_t cu_copy_to_host(fw_device_t *device, fw_device_queue_t *queue,
                                   void *host_dst, const void *src, size_t size) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  if (!queue && size >= FW_GPU_STAGING_THRESHOLD)
    return fw_gpu_staged_to_host(&d->staging, device, host_dst, src, size);
  fw_CUstream stream = copy_stream_of(d, queue);
  CU_TRY(g_api.cuMemcpyDtoHAsync_v2(host_dst, (fw_CUdeviceptr)(uintptr_t)src, size, stream),
         "cuMemcpyDtoHAsync");
  return finish(queue, stream);
}

static fw_status_t cu_copy_on_device(fw_device_t *device, fw_device_queue_t *queue, void *dst,
                                     const void *src, size_t size) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  fw_CUstream stream = copy_stream_of(d, queue);
  CU_TRY(g_api.cuMemcpyDtoDAsync_v2((fw_CUdeviceptr)(uintptr_t)dst,
                                    (fw_CUdeviceptr)(uintptr_t)src, size, stream),
         "cuMemcpyDtoDAsync");
  return finish(queue, stream);
}

static fw_status_t cu_queue_create(fw_device_t *device, fw_device_queue_t **out_queue) {
  *out_queue = NULL;
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) return s;
  fw_device_queue_t *q = calloc(1, sizeof(*q));
  if (!q) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  fw_CUresult r = g_api.cuStreamCreate(&q->stream, FW_CU_STREAM_NON_BLOCKING);
  if (r != FW_CUDA_SUCCESS) {
    free(q);
    return cu_error(r, "cuStreamCreate");
  }
  *out_queue = q;
  return FW_OK;
}

static void cu_queue_destroy(fw_device_t *device, fw_device_queue_t *queue) {
  if (!queue) return;
  if (bind((cuda_device_t *)device) == FW_OK) g_api.cuStreamDestroy_v2(queue->stream);
  free(queue);
}

static fw_status_t cu_queue_synchronize(fw_device_t *device, fw_device_queue_t *queue) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  CU_TRY(g_api.cuStreamSynchronize(stream_of(d, queue)), "cuStreamSynchronize");
  return FW_OK;
}

/* The stream itself: a C task's GPU implementation enqueues its work on it. */
static fw_status_t cu_queue_native(fw_device_t *device, fw_device_queue_t *queue,
                                   void **out_stream) {
  cuda_device_t *d = (cuda_device_t *)device;
  *out_stream = NULL;
  fw_status_t s = bind(d);
  if (s) return s;
  *out_stream = (void *)stream_of(d, queue);
  return FW_OK;
}

static fw_status_t cu_event_create(fw_device_t *device, fw_device_event_t **out_event) {
  *out_event = NULL;
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) return s;
  fw_device_event_t *e = calloc(1, sizeof(*e));
  if (!e) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  fw_CUresult r = g_api.cuEventCreate(&e->event, FW_CU_EVENT_DEFAULT);
  if (r != FW_CUDA_SUCCESS) {
    free(e);
    return cu_error(r, "cuEventCreate");
  }
  *out_event = e;
  return FW_OK;
}

static void cu_event_destroy(fw_device_t *device, fw_device_event_t *event) {
  if (!event) return;
  if (bind((cuda_device_t *)device) == FW_OK) g_api.cuEventDestroy_v2(event->event);
  free(event);
}

static fw_status_t cu_event_record(fw_device_t *device, fw_device_event_t *event,
                                   fw_device_queue_t *queue) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  CU_TRY(g_api.cuEventRecord(event->event, stream_of(d, queue)), "cuEventRecord");
  return FW_OK;
}

static fw_status_t cu_queue_wait_event(fw_device_t *device, fw_device_queue_t *queue,
                                       fw_device_event_t *event) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  CU_TRY(g_api.cuStreamWaitEvent(stream_of(d, queue), event->event, 0), "cuStreamWaitEvent");
  return FW_OK;
}

static fw_status_t cu_event_synchronize(fw_device_t *device, fw_device_event_t *event) {
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) return s;
  CU_TRY(g_api.cuEventSynchronize(event->event), "cuEventSynchronize");
  return FW_OK;
}

static int cu_event_is_complete(fw_device_t *device, fw_device_event_t *event) {
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) {
    fw_status_free(s);
    return 1; /* event_synchronize reports it */
  }
  return g_api.cuEventQuery(event->event) != FW_CUDA_ERROR_NOT_READY;
}

static fw_status_t cu_event_elapsed(fw_device_t *device, fw_device_event_t *start,
                                    fw_device_event_t *end, double *out_seconds) {
  *out_seconds = 0;
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) return s;
  float ms = 0;
  CU_TRY(g_api.cuEventElapsedTime(&ms, start->event, end->event), "cuEventElapsedTime");
  *out_seconds = (double)ms * 1e-3;
  return FW_OK;
}

static fw_status_t cu_module_load(fw_device_t *device, const void *image, size_t size,
                                  fw_device_module_t **out_module) {
  *out_module = NULL;
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  /* A cubin (ELF) carries its size; PTX is text the driver reads up to a NUL, which the
   * image in the fat binary does not have: load a terminated copy. */
  const uint8_t *bytes = image;
  char *text = NULL;
  if (size && !(size >= 4 && memcmp(bytes, "\x7f" "ELF", 4) == 0) && bytes[size - 1] != '\0') {
    text = malloc(size + 1);
    if (!text) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    memcpy(text, image, size);
    text[size] = '\0';
    image = text;
  }
  fw_device_module_t *m = calloc(1, sizeof(*m));
  if (!m) {
    free(text);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  fw_CUresult r = g_api.cuModuleLoadData(&m->module, image);
  free(text);
  if (r != FW_CUDA_SUCCESS) {
    free(m);
    return fw_status_annotate(cu_error(r, "cuModuleLoadData"), "loading an image on %s",
                              d->name);
  }
  *out_module = m;
  return FW_OK;
}

static void cu_module_unload(fw_device_t *device, fw_device_module_t *module) {
  if (!module) return;
  if (bind((cuda_device_t *)device) == FW_OK) g_api.cuModuleUnload(module->module);
  free(module);
}

static fw_status_t cu_module_get_kernel(fw_device_t *device, fw_device_module_t *module,
                                        const char *name, const void **out_kernel) {
  *out_kernel = NULL;
  fw_status_t s = bind((cuda_device_t *)device);
  if (s) return s;
  fw_CUfunction f = NULL;
  fw_CUresult r = g_api.cuModuleGetFunction(&f, module->module, name);
  if (r != FW_CUDA_SUCCESS)
    return fw_status_annotate(cu_error(r, "cuModuleGetFunction"), "kernel '%s'", name);
  *out_kernel = f;
  return FW_OK;
}

static fw_status_t cu_launch(fw_device_t *device, fw_device_queue_t *queue,
                             const fw_device_launch_t *launch) {
  cuda_device_t *d = (cuda_device_t *)device;
  fw_status_t s = bind(d);
  if (s) return s;
  fw_gpu_kernel_params_t params;
  s = fw_gpu_kernel_params_make(launch, &params);
  if (s) return s;
  unsigned grid, block;
  fw_gpu_launch_shape(launch, (uint32_t)(d->sms > 0 ? d->sms : 0), &grid, &block);
  fw_CUresult r =
      g_api.cuLaunchKernel((fw_CUfunction)launch->kernel.image, grid, 1, 1, block, 1, 1, 0,
                           stream_of(d, queue), params.params, NULL);
  fw_gpu_kernel_params_free(&params);
  if (r != FW_CUDA_SUCCESS) return cu_error(r, "cuLaunchKernel");
  return finish(queue, stream_of(d, queue));
}

static const fw_device_vtable_t kCudaDeviceVtable = {
    .name = "cuda",
    .target_kind = FW_TARGET_KIND_CUDA,
    .destroy = cu_destroy,
    .query = cu_query,
    .alloc = cu_alloc,
    .free = cu_free,
    .available = cu_available,
    .fill_zero = cu_fill_zero,
    .alloc_host = cu_alloc_host,
    .free_host = cu_free_host,
    .copy_to_device = cu_copy_to_device,
    .copy_to_host = cu_copy_to_host,
    .copy_on_device = cu_copy_on_device,
    .queue_create = cu_queue_create,
    .queue_destroy = cu_queue_destroy,
    .queue_synchronize = cu_queue_synchronize,
    .queue_native = cu_queue_native,
    .event_create = cu_event_create,
    .event_destroy = cu_event_destroy,
    .event_record = cu_event_record,
    .queue_wait_event = cu_queue_wait_event,
    .event_synchronize = cu_event_synchronize,
    .event_is_complete = cu_event_is_complete,
    .event_elapsed = cu_event_elapsed,
    .module_load = cu_module_load,
    .module_unload = cu_module_unload,
    .module_get_kernel = cu_module_get_kernel,
    .launch = cu_launch,
};

static fw_status_t create_device(int ordinal, fw_device_t **out_device) {
  cuda_device_t *d = calloc(1, sizeof(*d));
  if (!d) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  d->base.vtable = &kCudaDeviceVtable;
  d->ordinal = ordinal;
  fw_CUresult r = g_api.cuDeviceGet(&d->device, ordinal);
  if (r == FW_CUDA_SUCCESS) r = g_api.cuDeviceGetName(d->name, (int)sizeof(d->name), d->device);
  if (r == FW_CUDA_SUCCESS)
    r = g_api.cuDeviceGetAttribute(&d->cc_major,
                                   FW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device);
  if (r == FW_CUDA_SUCCESS)
    r = g_api.cuDeviceGetAttribute(&d->cc_minor,
                                   FW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device);
  if (r == FW_CUDA_SUCCESS)
    r = g_api.cuDeviceGetAttribute(&d->sms, FW_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                   d->device);
  if (r == FW_CUDA_SUCCESS) r = g_api.cuDeviceTotalMem_v2(&d->memory, d->device);
  if (r == FW_CUDA_SUCCESS) r = g_api.cuDevicePrimaryCtxRetain(&d->context, d->device);
  if (r != FW_CUDA_SUCCESS) {
    free(d);
    return fw_status_annotate(cu_error(r, "device query"), "CUDA device %d", ordinal);
  }
  r = g_api.cuCtxSetCurrent(d->context);
  if (r == FW_CUDA_SUCCESS) r = g_api.cuStreamCreate(&d->stream, FW_CU_STREAM_NON_BLOCKING);
  if (r == FW_CUDA_SUCCESS)
    r = g_api.cuStreamCreate(&d->copy_stream, FW_CU_STREAM_NON_BLOCKING);
  if (r != FW_CUDA_SUCCESS) {
    if (d->stream) g_api.cuStreamDestroy_v2(d->stream);
    g_api.cuDevicePrimaryCtxRelease_v2(d->device);
    free(d);
    return fw_status_annotate(cu_error(r, "stream creation"), "CUDA device %d", ordinal);
  }
  /* Up to an eighth of the device's memory stays in freed blocks; the rest of what the
   * memory manager counts is always allocatable after a flush. */
  fw_block_pool_init(&d->pool, 0, d->memory / 8, cu_release, d);
  d->copy_queue.stream = d->copy_stream;
  fw_gpu_staging_init(&d->staging, &d->copy_queue);
  *out_device = &d->base;
  return FW_OK;
}

fw_status_t fw_cuda_discover(fw_device_t ***out_devices, size_t *out_count, char *why,
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
  fw_CUresult r = g_api.cuDeviceGetCount(&count);
  if (r != FW_CUDA_SUCCESS || count <= 0) {
    snprintf(why, why_size, "the NVIDIA driver reports no GPU");
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

int fw_cuda_pci_bus_id(fw_device_t *device, char *out, size_t size) {
  if (!device || device->vtable != &kCudaDeviceVtable || size == 0) return -1;
  cuda_device_t *d = (cuda_device_t *)device;
  return g_api.cuDeviceGetPCIBusId(out, (int)size, d->device) == FW_CUDA_SUCCESS ? 0 : -1;
}
