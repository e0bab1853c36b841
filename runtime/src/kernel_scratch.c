/* The buffers CPU kernels allocate for themselves: kernel_scratch.h. */
#define _GNU_SOURCE
#include "kernel_scratch.h"

#include <stdint.h>
#include <stdlib.h>

#include "fw/runtime.h"

/* The scratch of the workgroup the thread is running; NULL outside a CPU launch (then
 * allocations are not recorded: a kernel called directly frees what it allocates, or
 * leaks it as any code would). */
static _Thread_local fw_kernel_scratch_t *tls_scratch;

void fw_kernel_scratch_begin(fw_kernel_scratch_t *scratch) {
  scratch->buffers = scratch->inline_buffers;
  scratch->count = 0;
  scratch->capacity = sizeof(scratch->inline_buffers) / sizeof(scratch->inline_buffers[0]);
  scratch->outer = tls_scratch;
  tls_scratch = scratch;
}

size_t fw_kernel_scratch_collect(fw_kernel_scratch_t *scratch) {
  size_t n = scratch->count;
  for (size_t i = 0; i < n; ++i) free(scratch->buffers[i]);
  scratch->count = 0;
  return n;
}

size_t fw_kernel_scratch_end(fw_kernel_scratch_t *scratch) {
  size_t n = fw_kernel_scratch_collect(scratch);
  if (scratch->buffers != scratch->inline_buffers) free(scratch->buffers);
  scratch->buffers = NULL;
  scratch->capacity = 0;
  tls_scratch = scratch->outer;
  return n;
}

/* Records `ptr` in `scratch`; 0 when there is no room for it. */
static int record(fw_kernel_scratch_t *scratch, void *ptr) {
  if (scratch->count == scratch->capacity) {
    size_t capacity = scratch->capacity * 2;
    void **grown = malloc(capacity * sizeof(*grown));
    if (!grown) return 0;
    for (size_t i = 0; i < scratch->count; ++i) grown[i] = scratch->buffers[i];
    if (scratch->buffers != scratch->inline_buffers) free(scratch->buffers);
    scratch->buffers = grown;
    scratch->capacity = capacity;
  }
  scratch->buffers[scratch->count++] = ptr;
  return 1;
}

void *fw_rt_kernel_alloc(int64_t alignment, int64_t bytes) {
  /* The kernel tests the byte count (at most 2^47) and the pointer; anything else is a
   * request no machine grants. */
  if (bytes < 0 || alignment < 0 || (alignment & (alignment - 1)) ||
      (uint64_t)bytes > ((uint64_t)1 << 47) || alignment > ((int64_t)1 << 30))
    return NULL;
  size_t size = bytes ? (size_t)bytes : 1;
  void *ptr = NULL;
  if (alignment <= (int64_t)_Alignof(max_align_t)) {
    ptr = malloc(size);
  } else if (posix_memalign(&ptr, (size_t)alignment, size) != 0) {
    ptr = NULL;
  }
  if (!ptr) return NULL;
  fw_kernel_scratch_t *scratch = tls_scratch;
  if (scratch && !record(scratch, ptr)) {
    free(ptr);
    return NULL;
  }
  return ptr;
}

void fw_rt_kernel_free(void *ptr) {
  if (!ptr) return;
  fw_kernel_scratch_t *scratch = tls_scratch;
  if (scratch) {
    /* Kernels free mostly in the reverse order of allocation: search from the end. */
    for (size_t i = scratch->count; i-- > 0;) {
      if (scratch->buffers[i] != ptr) continue;
      scratch->buffers[i] = scratch->buffers[--scratch->count];
      break;
    }
  }
  free(ptr);
}
