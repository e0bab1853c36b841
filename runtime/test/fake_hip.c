/* A stand-in for AMD's HIP runtime (libamdhip64.so.6), for tests on machines without an
 * AMD GPU, like fake_cuda.c for NVIDIA: one device whose memory is host memory, so the
 * runtime's HIP device, image choice, module loading, copies and memory node run for
 * real; kernels cannot execute here, so every launch fails, which exercises the rerun of
 * the task on the CPU. Built as libamdhip64.so.6 in its own directory; a test puts that
 * directory on LD_LIBRARY_PATH. hipLaunchHostFunc queues a function on a stream that runs
 * only when something waits for that stream (fake_host_funcs.h), as a kernel would.
 *
 * Settings (environment):
 *   FW_FAKE_HIP_ARCH  the architecture the device reports (default gfx942)
 *   FW_FAKE_HIP_HELD  bytes of the device's 1 GiB that another process holds: hipMalloc
 *                     gives the rest
 *   FW_FAKE_HIP_LOG   a file each driver call worth checking is appended to */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_host_funcs.h"

typedef int hipError_t;
enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorInvalidImage = 200,
  hipErrorNotReady = 600,
  hipErrorLaunchFailure = 719,
};

#define FAKE_EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
#define FAKE_DEVICE_BYTES ((size_t)1 << 30)
static size_t g_used; /* device memory hipMalloc gave */

static size_t held_bytes(void) {
  const char *v = getenv("FW_FAKE_HIP_HELD");
  return v ? (size_t)strtoull(v, NULL, 10) : 0;
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...) {
  const char *path = getenv("FW_FAKE_HIP_LOG");
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

struct ihipStream_t { fake_host_queue_t host; };
struct ihipEvent_t {
  int recorded;
  fake_host_queue_t *host; /* the queue of the stream it was recorded on */
  unsigned queries;        /* hipEventQuery calls while host functions were queued */
};

/* The host functions' queue of `s`: the default one for the NULL stream. */
static fake_host_queue_t *host_queue(struct ihipStream_t *s) { return s ? &s->host : NULL; }
struct ihipModuleSymbol_t { char name[128]; struct ihipModuleSymbol_t *next; };
struct ihipModule_t { struct ihipModuleSymbol_t *functions; };

FAKE_EXPORT hipError_t hipInit(unsigned int flags) {
  (void)flags;
  return hipSuccess;
}

FAKE_EXPORT const char *hipGetErrorString(hipError_t error) {
  return error == hipErrorLaunchFailure ? "unspecified launch failure (fake runtime: no GPU)"
                                        : "fake runtime error";
}

FAKE_EXPORT hipError_t hipGetDeviceCount(int *count) {
  *count = 1;
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipSetDevice(int device) {
  return device == 0 ? hipSuccess : hipErrorInvalidValue;
}

FAKE_EXPORT hipError_t hipDeviceGetName(char *name, int len, int device) {
  (void)device;
  snprintf(name, (size_t)len, "Fake AMD GPU");
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  if (attribute != 63) return hipErrorInvalidValue; /* multiprocessors */
  *value = 8;
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, int device) {
  (void)device;
  *bytes = FAKE_DEVICE_BYTES;
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total) {
  pthread_mutex_lock(&g_lock);
  size_t taken = g_used + held_bytes();
  pthread_mutex_unlock(&g_lock);
  *free_bytes = taken < FAKE_DEVICE_BYTES ? FAKE_DEVICE_BYTES - taken : 0;
  *total = FAKE_DEVICE_BYTES;
  return hipSuccess;
}

/* The ROCm 6 entry point: a structure with the name first and the architecture name
 * further in (its layout is the runtime's business; fw only looks for "gfx..."). */
FAKE_EXPORT hipError_t hipGetDevicePropertiesR0600(void *props, int device) {
  (void)device;
  const char *arch = getenv("FW_FAKE_HIP_ARCH");
  snprintf(props, 256, "Fake AMD GPU");
  snprintf((char *)props + 1160, 256, "%s:sramecc+:xnack-", arch && *arch ? arch : "gfx942");
  return hipSuccess;
}

/* Device memory: host memory with its size in front, so frees give the room back. */
FAKE_EXPORT hipError_t hipMalloc(void **ptr, size_t size) {
  pthread_mutex_lock(&g_lock);
  int fits = g_used + held_bytes() + size <= FAKE_DEVICE_BYTES;
  if (fits) g_used += size;
  pthread_mutex_unlock(&g_lock);
  size_t *block = fits ? aligned_alloc(256, 256 + (size + 255) / 256 * 256) : NULL;
  if (!block) {
    if (fits) {
      pthread_mutex_lock(&g_lock);
      g_used -= size;
      pthread_mutex_unlock(&g_lock);
    }
    *ptr = NULL;
    return hipErrorOutOfMemory;
  }
  block[0] = size;
  *ptr = (char *)block + 256;
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipFree(void *ptr) {
  if (!ptr) return hipSuccess;
  fake_host_run_all(); /* hipFree synchronizes the device */
  size_t *block = (size_t *)((char *)ptr - 256);
  pthread_mutex_lock(&g_lock);
  g_used -= block[0];
  pthread_mutex_unlock(&g_lock);
  free(block);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags) {
  (void)flags;
  *ptr = aligned_alloc(256, (size + 255) / 256 * 256 + 256);
  return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

FAKE_EXPORT hipError_t hipHostFree(void *ptr) {
  free(ptr);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipMemsetAsync(void *dst, int value, size_t size,
                                      struct ihipStream_t *stream) {
  fake_host_run(host_queue(stream));
  memset(dst, value, size);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src, size_t size, int kind,
                                      struct ihipStream_t *stream) {
  fake_host_run(host_queue(stream));
  memmove(dst, src, size);
  log_line("copy kind %d %zu", kind, size);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipStreamCreateWithFlags(struct ihipStream_t **stream, unsigned int flags) {
  (void)flags;
  *stream = calloc(1, sizeof(**stream));
  if (!*stream) return hipErrorOutOfMemory;
  fake_host_register(&(*stream)->host);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipStreamDestroy(struct ihipStream_t *stream) {
  fake_host_unregister(&stream->host);
  free(stream);
  return hipSuccess;
}

typedef void (*hipHostFn_t)(void *user_data);
FAKE_EXPORT hipError_t hipLaunchHostFunc(struct ihipStream_t *stream, hipHostFn_t fn,
                                         void *user_data) {
  fake_host_push(host_queue(stream), fn, user_data);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipStreamSynchronize(struct ihipStream_t *stream) {
  fake_host_run(host_queue(stream));
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipStreamWaitEvent(struct ihipStream_t *stream, struct ihipEvent_t *event,
                                          unsigned int flags) {
  (void)stream;
  (void)flags;
  fake_host_run(event->host); /* done before what follows */
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipEventCreate(struct ihipEvent_t **event) {
  *event = calloc(1, sizeof(**event));
  return *event ? hipSuccess : hipErrorOutOfMemory;
}

FAKE_EXPORT hipError_t hipEventDestroy(struct ihipEvent_t *event) {
  free(event);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipEventRecord(struct ihipEvent_t *event, struct ihipStream_t *stream) {
  event->recorded = 1;
  event->host = host_queue(stream);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipEventSynchronize(struct ihipEvent_t *event) {
  if (event->recorded) fake_host_run(event->host);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipEventQuery(struct ihipEvent_t *event) {
  if (event->recorded && !fake_host_query(event->host, &event->queries)) return hipErrorNotReady;
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipEventElapsedTime(float *ms, struct ihipEvent_t *start,
                                           struct ihipEvent_t *stop) {
  if (!start->recorded || !stop->recorded) return hipErrorInvalidValue;
  *ms = 0.0f;
  return hipSuccess;
}

/* Accepts an AMD code object: an ELF whose machine is AMDGPU (224). */
FAKE_EXPORT hipError_t hipModuleLoadData(struct ihipModule_t **module, const void *image) {
  const unsigned char *bytes = image;
  if (memcmp(bytes, "\x7f" "ELF", 4) != 0 || (bytes[18] | bytes[19] << 8) != 224)
    return hipErrorInvalidImage;
  *module = calloc(1, sizeof(**module));
  if (!*module) return hipErrorOutOfMemory;
  log_line("load hsaco");
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipModuleUnload(struct ihipModule_t *module) {
  while (module->functions) {
    struct ihipModuleSymbol_t *f = module->functions;
    module->functions = f->next;
    free(f);
  }
  free(module);
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipModuleGetFunction(struct ihipModuleSymbol_t **function,
                                            struct ihipModule_t *module, const char *name) {
  struct ihipModuleSymbol_t *f = calloc(1, sizeof(*f));
  if (!f) return hipErrorOutOfMemory;
  snprintf(f->name, sizeof(f->name), "%s", name);
  f->next = module->functions;
  module->functions = f;
  *function = f;
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipModuleLaunchKernel(struct ihipModuleSymbol_t *f, unsigned int gx,
                                             unsigned int gy, unsigned int gz, unsigned int bx,
                                             unsigned int by, unsigned int bz,
                                             unsigned int shared, struct ihipStream_t *stream,
                                             void **params, void **extra) {
  (void)gy;
  (void)gz;
  (void)by;
  (void)bz;
  (void)shared;
  (void)stream;
  (void)params;
  (void)extra;
  log_line("launch %s grid %u block %u", f->name, gx, bx);
  return hipErrorLaunchFailure;
}
