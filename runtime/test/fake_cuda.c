/* A stand-in for NVIDIA's libcuda.so.1, for tests on machines without a GPU: devices
 * whose memory is host memory, so the runtime's CUDA device, image choice, module
 * loading, copies and memory node run for real; kernels cannot execute here, so every
 * launch fails the way a faulting kernel does, which exercises the runtime's rerun of the
 * task on the CPU. Built as libcuda.so.1 in its own directory; a test puts that directory
 * on LD_LIBRARY_PATH. It never replaces the real driver anywhere else. cuLaunchHostFunc
 * queues a function on a stream that runs only when something waits for that stream
 * (fake_host_funcs.h): a test's GPU implementation computes so, as a kernel that runs
 * later.
 *
 * Settings (environment):
 *   FW_FAKE_CUDA_ARCH    compute capability as major*10+minor (default 90: sm_90)
 *   FW_FAKE_CUDA_MEMORY  device memory in bytes (default 1 GiB); "A,B": A for device 0, B
 *                        for device 1 and after
 *   FW_FAKE_CUDA_HELD    bytes of every device's memory that another process holds: the
 *                        device reports its whole size, cuMemAlloc gives the rest
 *   FW_FAKE_CUDA_DEVICES how many GPUs, up to 8 (default 1); 0: the driver loads but finds
 *                        none
 *   FW_FAKE_CUDA_NO_CODE_ON  a device ordinal whose driver loads no module (every image is
 *                        refused there: a GPU the fat binary has no code for)
 *   FW_FAKE_CUDA_CUBIN   "refuse": cuModuleLoadData rejects cubins (a driver too old
 *                        for them), so the runtime must fall back to the PTX
 *   FW_FAKE_CUDA_LOG     a file each driver call worth checking is appended to
 *   FW_FAKE_CUDA_LAUNCH  "noop": launches succeed without running anything, each taking
 *                        FW_FAKE_CUDA_KERNEL_US (default 250) microseconds of a virtual
 *                        device clock that events record (results are garbage: only for
 *                        tests of timing, profiles and autotuning)
 *                        "async": launches succeed without running anything either, each
 *                        taking that long in real time on its stream after the work
 *                        queued there before it, as a GPU's queue does: events and stream
 *                        synchronization wait for it, and the log line of each launch ends
 *                        with "behind N", the kernels still unfinished on its stream
 *   FW_FAKE_CUDA_BLOCK_US  "128=400,512=90": noop and async launches with those threads per
 *                        block take that many microseconds instead, so that candidate
 *                        variants differ in speed by construction
 *   FW_FAKE_CUDA_COPY_US with "async" launches, each copy also takes that many
 *                        microseconds of real time on its stream, after the work queued
 *                        there (its bytes are in place at once; a wait for the stream
 *                        waits for its time)
 *   FW_FAKE_CUDA_FAULT_AT with "async" launches, the launch with this number (from 1)
 *                        faults on the device as a kernel that fails while it runs: the
 *                        launch itself succeeds, and from then on the context is broken
 *                        as CUDA's is after such a fault: copies, waits and queries of
 *                        events and streams return CUDA_ERROR_LAUNCH_FAILED
 *   FW_FAKE_CUDA_KERNEL_ERROR "N@K": noop and async launches leave N in the error word
 *                        (ABI version 3) whose address is their parameter K, as a kernel
 *                        with a failed check does
 *   FW_FAKE_CUDA_HOST_FAULT_AT  the host function (cuLaunchHostFunc) with this number (from
 *                        1) faults so instead of running, in any launch mode
 *   Releasing the primary context ends a fault and restarts both counts (a runtime made
 *   after one that faulted starts afresh). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_host_funcs.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_LAUNCH_FAILED = 719,
};

#define FAKE_EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_initialized;
#define FAKE_MAX_DEVICES 8
static size_t g_used[FAKE_MAX_DEVICES];

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}

static int device_count(void) {
  int n = env_int("FW_FAKE_CUDA_DEVICES", 1);
  return n < 0 ? 0 : n > FAKE_MAX_DEVICES ? FAKE_MAX_DEVICES : n;
}

/* Device `dev`'s memory: the dev-th of FW_FAKE_CUDA_MEMORY's comma-separated sizes, or
 * its last. */
static size_t memory_size(int dev) {
  const char *v = getenv("FW_FAKE_CUDA_MEMORY");
  if (!v || !*v) return (size_t)1 << 30;
  for (int i = 0; i < dev; ++i) {
    const char *comma = strchr(v, ',');
    if (!comma) break;
    v = comma + 1;
  }
  return (size_t)strtoull(v, NULL, 10);
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...) {
  const char *path = getenv("FW_FAKE_CUDA_LOG");
  if (!path || !*path) return;
  pthread_mutex_lock(&g_lock);
  FILE *f = fopen(path, "a");
  if (f) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
  }
  pthread_mutex_unlock(&g_lock);
}

/* Handles are small heap objects; their contents are all the fake needs. */
struct CUctx_st { int device; };
/* Async launches: when the work queued on the stream ends, and when each of its last
 * kernels does (a ring), on the monotonic clock in ms. */
#define FAKE_STREAM_KERNELS 64
struct CUstream_st {
  fake_host_queue_t host; /* cuLaunchHostFunc's (the NULL stream: g_default_host_queue) */
  double busy_until_ms;
  double kernel_end_ms[FAKE_STREAM_KERNELS];
  unsigned kernels;
};
static struct CUstream_st g_default_stream; /* the legacy default stream (NULL) */
struct CUevent_st {
  int recorded;
  double at_ms;
  fake_host_queue_t *host; /* the queue of the stream it was recorded on */
  unsigned queries;        /* cuEventQuery calls while host functions were queued */
};
static double g_device_clock_ms; /* the virtual device clock of no-op launches */
static unsigned g_async_launches; /* FW_FAKE_CUDA_FAULT_AT counts them */
static unsigned g_host_funcs;      /* FW_FAKE_CUDA_HOST_FAULT_AT counts them */
static int g_faulted;             /* the context is broken (FW_FAKE_CUDA_FAULT_AT) */

static int faulted(void) {
  pthread_mutex_lock(&g_lock);
  int f = g_faulted;
  pthread_mutex_unlock(&g_lock);
  return f;
}

static int launch_mode_is(const char *mode) {
  const char *v = getenv("FW_FAKE_CUDA_LAUNCH");
  return v && !strcmp(v, mode);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void sleep_until_ms(double at_ms) {
  double left = at_ms - now_ms();
  if (left <= 0) return;
  long long ns = (long long)(left * 1e6);
  struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static struct CUstream_st *stream_or_default(struct CUstream_st *s) {
  return s ? s : &g_default_stream;
}

/* The host functions' queue of `s`: the default one for the NULL stream. */
static fake_host_queue_t *host_queue(struct CUstream_st *s) { return s ? &s->host : NULL; }

struct CUfunc_st { char name[128]; struct CUfunc_st *next; };
struct CUmod_st { char target[16]; int ptx; struct CUfunc_st *functions; };

/* Each device's primary context; the calling thread's current one picks the device that
 * allocations and module loads go to. */
static struct CUctx_st g_contexts[FAKE_MAX_DEVICES];
static __thread int t_device;

FAKE_EXPORT CUresult cuInit(unsigned int flags) {
  (void)flags;
  g_initialized = 1;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **str) {
  switch (error) {
  case CUDA_ERROR_LAUNCH_FAILED: *str = "unspecified launch failure (fake driver: no GPU)"; break;
  case CUDA_ERROR_INVALID_IMAGE: *str = "device kernel image is invalid"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *str = "out of memory"; break;
  case CUDA_ERROR_NOT_FOUND: *str = "named symbol not found"; break;
  default: *str = "fake driver error"; break;
  }
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!g_initialized) return CUDA_ERROR_NOT_INITIALIZED;
  *count = device_count(); /* 0: a driver without a GPU */
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_VALUE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  (void)dev;
  snprintf(name, (size_t)len, "Fake GPU");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev) {
  snprintf(bus_id, (size_t)len, "0000:%02x:00.0", 0x41 + dev);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev) {
  (void)dev;
  int arch = env_int("FW_FAKE_CUDA_ARCH", 90);
  switch (attribute) {
  case 16: *value = 4; return CUDA_SUCCESS;          /* multiprocessors */
  case 75: *value = arch / 10; return CUDA_SUCCESS;  /* compute capability major */
  case 76: *value = arch % 10; return CUDA_SUCCESS;  /* minor */
  default: return CUDA_ERROR_INVALID_VALUE;
  }
}

FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  *bytes = memory_size(dev);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(struct CUctx_st **ctx, CUdevice dev) {
  if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_VALUE;
  g_contexts[dev].device = dev;
  *ctx = &g_contexts[dev];
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  (void)dev;
  pthread_mutex_lock(&g_lock);
  g_faulted = 0;
  g_async_launches = g_host_funcs = 0;
  pthread_mutex_unlock(&g_lock);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(struct CUctx_st *ctx) {
  if (ctx < g_contexts || ctx >= g_contexts + FAKE_MAX_DEVICES) return CUDA_ERROR_INVALID_VALUE;
  t_device = ctx->device;
  return CUDA_SUCCESS;
}

static size_t held_bytes(void) {
  const char *v = getenv("FW_FAKE_CUDA_HELD");
  return v ? (size_t)strtoull(v, NULL, 10) : 0;
}

FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  int dev = t_device;
  pthread_mutex_lock(&g_lock);
  size_t taken = g_used[dev] + held_bytes();
  pthread_mutex_unlock(&g_lock);
  *total = memory_size(dev);
  *free_bytes = taken < *total ? *total - taken : 0;
  return CUDA_SUCCESS;
}

/* Device memory: host memory with its size in front, so frees give the room back. */
FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t size) {
  int dev = t_device;
  pthread_mutex_lock(&g_lock);
  int fits = g_used[dev] + held_bytes() + size <= memory_size(dev);
  if (fits) g_used[dev] += size;
  pthread_mutex_unlock(&g_lock);
  if (!fits) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t *block = aligned_alloc(256, 256 + ((size + 255) / 256) * 256);
  if (!block) return CUDA_ERROR_OUT_OF_MEMORY;
  block[0] = size;
  block[1] = (size_t)dev;
  *ptr = (CUdeviceptr)(uintptr_t)((char *)block + 256);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  if (!ptr) return CUDA_SUCCESS;
  fake_host_run_all(); /* cuMemFree synchronizes the device */
  size_t *block = (size_t *)((char *)(uintptr_t)ptr - 256);
  pthread_mutex_lock(&g_lock);
  g_used[block[1]] -= block[0];
  pthread_mutex_unlock(&g_lock);
  free(block);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemHostAlloc(void **ptr, size_t size, unsigned int flags) {
  (void)flags;
  *ptr = aligned_alloc(4096, ((size ? size : 1) + 4095) / 4096 * 4096);
  return *ptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_EXPORT CUresult cuMemFreeHost(void *ptr) {
  free(ptr);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n,
                                     struct CUstream_st *s) {
  fake_host_run(host_queue(s));
  memset((void *)(uintptr_t)dst, value, n);
  return CUDA_SUCCESS;
}

/* An async-mode copy's time on its stream (FW_FAKE_CUDA_COPY_US). */
static void copy_takes_time(struct CUstream_st *stream) {
  int us = env_int("FW_FAKE_CUDA_COPY_US", 0);
  if (us <= 0 || !launch_mode_is("async")) return;
  pthread_mutex_lock(&g_lock);
  struct CUstream_st *s = stream_or_default(stream);
  double now = now_ms();
  s->busy_until_ms = (s->busy_until_ms > now ? s->busy_until_ms : now) + us * 1e-3;
  pthread_mutex_unlock(&g_lock);
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                                          struct CUstream_st *s) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  fake_host_run(host_queue(s));
  memcpy((void *)(uintptr_t)dst, src, n);
  log_line("copy to device %zu", n);
  copy_takes_time(s);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n,
                                          struct CUstream_st *s) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  fake_host_run(host_queue(s));
  memcpy(dst, (const void *)(uintptr_t)src, n);
  log_line("copy to host %zu", n);
  copy_takes_time(s);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n,
                                          struct CUstream_st *s) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  fake_host_run(host_queue(s));
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  copy_takes_time(s);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamCreate(struct CUstream_st **stream, unsigned int flags) {
  (void)flags;
  *stream = calloc(1, sizeof(**stream));
  if (!*stream) return CUDA_ERROR_OUT_OF_MEMORY;
  fake_host_register(&(*stream)->host);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(struct CUstream_st *stream) {
  fake_host_unregister(&stream->host);
  free(stream);
  return CUDA_SUCCESS;
}

typedef void (*CUhostFn)(void *user_data);
FAKE_EXPORT CUresult cuLaunchHostFunc(struct CUstream_st *stream, CUhostFn fn, void *user_data) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  pthread_mutex_lock(&g_lock);
  int fault = ++g_host_funcs == (unsigned)env_int("FW_FAKE_CUDA_HOST_FAULT_AT", 0);
  if (fault) g_faulted = 1;
  pthread_mutex_unlock(&g_lock);
  if (fault) return CUDA_SUCCESS; /* it never runs; waits for it see the fault */
  fake_host_push(host_queue(stream), fn, user_data);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamSynchronize(struct CUstream_st *stream) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  fake_host_run(host_queue(stream));
  pthread_mutex_lock(&g_lock);
  double until = stream_or_default(stream)->busy_until_ms;
  pthread_mutex_unlock(&g_lock);
  sleep_until_ms(until);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(struct CUstream_st *stream, struct CUevent_st *event,
                                       unsigned int flags) {
  (void)stream;
  (void)flags;
  fake_host_run(event->host); /* done before what follows */
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventCreate(struct CUevent_st **event, unsigned int flags) {
  (void)flags;
  *event = calloc(1, sizeof(**event));
  return *event ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(struct CUevent_st *event) {
  free(event);
  return CUDA_SUCCESS;
}

/* An event completes when the work queued on its stream before it does: at once, except
 * behind async launches (then its time is that moment, on the monotonic clock). */
FAKE_EXPORT CUresult cuEventRecord(struct CUevent_st *event, struct CUstream_st *stream) {
  event->recorded = 1;
  event->host = host_queue(stream);
  pthread_mutex_lock(&g_lock);
  if (launch_mode_is("async")) {
    double now = now_ms(), busy = stream_or_default(stream)->busy_until_ms;
    event->at_ms = busy > now ? busy : now;
  } else {
    event->at_ms = g_device_clock_ms;
  }
  pthread_mutex_unlock(&g_lock);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventSynchronize(struct CUevent_st *event) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  if (event->recorded) fake_host_run(event->host);
  if (launch_mode_is("async")) sleep_until_ms(event->at_ms);
  return CUDA_SUCCESS;
}

enum { CUDA_ERROR_NOT_READY = 600 };

FAKE_EXPORT CUresult cuEventQuery(struct CUevent_st *event) {
  if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
  if (event->recorded && !fake_host_query(event->host, &event->queries))
    return CUDA_ERROR_NOT_READY;
  if (launch_mode_is("async") && now_ms() < event->at_ms) return CUDA_ERROR_NOT_READY;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, struct CUevent_st *start,
                                        struct CUevent_st *end) {
  if (!start->recorded || !end->recorded) return CUDA_ERROR_INVALID_VALUE;
  *ms = (float)(end->at_ms - start->at_ms);
  return CUDA_SUCCESS;
}

/* Accepts a cubin (an ELF image) or NUL-terminated PTX text naming its target. */
FAKE_EXPORT CUresult cuModuleLoadData(struct CUmod_st **module, const void *image) {
  const char *bytes = image;
  const char *no_code = getenv("FW_FAKE_CUDA_NO_CODE_ON");
  if (no_code && *no_code && atoi(no_code) == t_device) {
    log_line("refuse image on device %d", t_device);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  struct CUmod_st *m = calloc(1, sizeof(*m));
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  if (memcmp(bytes, "\x7f" "ELF", 4) == 0) {
    const char *refuse = getenv("FW_FAKE_CUDA_CUBIN");
    if (refuse && !strcmp(refuse, "refuse")) {
      free(m);
      log_line("refuse cubin");
      return CUDA_ERROR_INVALID_IMAGE;
    }
    snprintf(m->target, sizeof(m->target), "cubin");
    log_line("load cubin");
  } else {
    const char *target = strstr(bytes, ".target ");
    if (!target) {
      free(m);
      return CUDA_ERROR_INVALID_IMAGE;
    }
    m->ptx = 1;
    sscanf(target + 8, "%15s", m->target);
    log_line("load ptx %s", m->target);
  }
  *module = m;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleUnload(struct CUmod_st *module) {
  while (module->functions) {
    struct CUfunc_st *f = module->functions;
    module->functions = f->next;
    free(f);
  }
  free(module);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(struct CUfunc_st **function, struct CUmod_st *module,
                                         const char *name) {
  struct CUfunc_st *f = calloc(1, sizeof(*f));
  if (!f) return CUDA_ERROR_OUT_OF_MEMORY;
  snprintf(f->name, sizeof(f->name), "%s", name);
  f->next = module->functions; /* functions live as long as their module */
  module->functions = f;
  *function = f;
  return CUDA_SUCCESS;
}

/* A noop launch's virtual time: FW_FAKE_CUDA_BLOCK_US's figure for `block` threads, else
 * FW_FAKE_CUDA_KERNEL_US. */
static int kernel_us(unsigned block) {
  const char *list = getenv("FW_FAKE_CUDA_BLOCK_US");
  for (const char *p = list; p && *p;) {
    char *end = NULL;
    unsigned long threads = strtoul(p, &end, 10);
    if (end && *end == '=') {
      char *after = NULL;
      long us = strtol(end + 1, &after, 10);
      if (threads == block && after != end + 1) return (int)us;
      p = after;
    } else {
      p = end && end != p ? end : p + 1;
    }
    while (*p == ',') ++p;
  }
  return env_int("FW_FAKE_CUDA_KERNEL_US", 250);
}

/* FW_FAKE_CUDA_KERNEL_ERROR: a failed check's number into the launch's error word. */
static void leave_kernel_error(void **params) {
  const char *v = getenv("FW_FAKE_CUDA_KERNEL_ERROR");
  unsigned n = 0, k = 0;
  if (!v || !params || sscanf(v, "%u@%u", &n, &k) != 2) return;
  uint32_t *word = (uint32_t *)(uintptr_t)*(const int64_t *)params[k];
  if (n > *word) *word = n;
  log_line("kernel error %u", n);
}

FAKE_EXPORT CUresult cuLaunchKernel(struct CUfunc_st *f, unsigned int gx, unsigned int gy,
                                    unsigned int gz, unsigned int bx, unsigned int by,
                                    unsigned int bz, unsigned int shared,
                                    struct CUstream_st *stream, void **params, void **extra) {
  (void)gy;
  (void)gz;
  (void)by;
  (void)bz;
  (void)shared;
  (void)extra;
  if (launch_mode_is("async")) {
    if (faulted()) return CUDA_ERROR_LAUNCH_FAILED;
    leave_kernel_error(params);
    pthread_mutex_lock(&g_lock);
    struct CUstream_st *s = stream_or_default(stream);
    double now = now_ms();
    unsigned behind = 0;
    for (unsigned i = 0; i < FAKE_STREAM_KERNELS && i < s->kernels; ++i)
      behind += s->kernel_end_ms[i] > now;
    double start = s->busy_until_ms > now ? s->busy_until_ms : now;
    s->busy_until_ms = start + kernel_us(bx) * 1e-3;
    if (++g_async_launches == (unsigned)env_int("FW_FAKE_CUDA_FAULT_AT", 0)) g_faulted = 1;
    s->kernel_end_ms[s->kernels++ % FAKE_STREAM_KERNELS] = s->busy_until_ms;
    pthread_mutex_unlock(&g_lock);
    log_line("launch %s grid %u block %u behind %u", f->name, gx, bx, behind);
    return CUDA_SUCCESS;
  }
  log_line("launch %s grid %u block %u", f->name, gx, bx);
  if (launch_mode_is("noop")) {
    leave_kernel_error(params);
    pthread_mutex_lock(&g_lock);
    g_device_clock_ms += kernel_us(bx) * 1e-3;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_LAUNCH_FAILED;
}
