/* Reference-counted dense host buffers: owned (fw_buffer_create) or views of caller
 * memory (fw_buffer_wrap). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"
#include "status_internal.h"

void fw_type_string(const fw_tensor_type_t *type, char *buf, size_t capacity) {
  fw_tensor_type_format(type, buf, capacity);
}

int fw_type_matches(const fw_tensor_type_t *expected, const fw_tensor_type_t *actual) {
  if (expected->element_type != actual->element_type) return 0;
  if (expected->rank != actual->rank) return 0;
  for (uint32_t i = 0; i < expected->rank && i < FW_MAX_RANK; ++i)
    if (expected->dims[i] >= 0 && expected->dims[i] != actual->dims[i]) return 0;
  return 1;
}

/* Validates a buffer type (known element type, rank <= 8, dims >= 0, byte size that fits
 * in int64_t even when another dim is 0, so that strides computed by kernels never
 * overflow) and returns a new buffer object with one reference and no memory yet (on a
 * later error, free it with free()). */
static fw_status_t buffer_new(fw_runtime_t *runtime, fw_element_type_t element_type,
                              size_t rank, const int64_t *dims, fw_buffer_t **out_buffer) {
  if (!out_buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_buffer is NULL");
  *out_buffer = NULL;
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  size_t element_size = fw_element_type_size(element_type);
  if (element_size == 0)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "unknown element type %d",
                          (int)element_type);
  if (rank > FW_MAX_RANK)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "rank %zu exceeds the maximum of %d",
                          rank, FW_MAX_RANK);
  if (rank > 0 && !dims)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "dims is NULL for rank %zu", rank);
  uint64_t count = 1;
  int overflow = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "dimension %zu is negative (%lld)", i,
                            (long long)dims[i]);
    uint64_t d = (uint64_t)dims[i] ? (uint64_t)dims[i] : 1;
    if (count > (uint64_t)INT64_MAX / d) overflow = 1;
    else count *= d;
  }
  if (overflow || count > (uint64_t)INT64_MAX / element_size || count > SIZE_MAX / element_size)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE, "buffer size overflows (rank %zu)", rank);
  for (size_t i = 0; i < rank; ++i)
    if (dims[i] == 0) count = 0;
  fw_buffer_t *b = calloc(1, sizeof(*b));
  if (!b) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  atomic_init(&b->refcount, 1);
  b->runtime = runtime;
  fw_runtime_retain_internal(runtime);
  b->serial = atomic_fetch_add_explicit(&runtime->next_buffer_serial, 1, memory_order_relaxed);
  b->type.element_type = element_type;
  b->type.rank = (uint32_t)rank;
  for (size_t i = 0; i < rank; ++i) b->type.dims[i] = dims[i];
  b->element_count = (size_t)count;
  b->byte_size = (size_t)count * element_size;
  *out_buffer = b;
  return FW_OK;
}

/* Frees a buffer that was never handed out (its memory is not allocated or not owned). */
static void buffer_discard(fw_buffer_t *b) {
  fw_runtime_release_internal(b->runtime);
  free(b);
}

/* "data_size N does not match the M bytes of a TYPE buffer"; frees `b`. */
static fw_status_t size_mismatch(fw_buffer_t *b, size_t data_size) {
  char type[256];
  fw_type_string(&b->type, type, sizeof(type));
  fw_status_t status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                      "data_size %zu does not match the %zu bytes of a %s buffer",
                                      data_size, b->byte_size, type);
  buffer_discard(b);
  return status;
}

fw_status_t fw_buffer_allocate(fw_runtime_t *runtime, fw_element_type_t element_type,
                               size_t rank, const int64_t *dims, fw_buffer_t **out_buffer) {
  return fw_buffer_create(runtime, element_type, rank, dims, NULL, 0, out_buffer);
}

fw_status_t fw_buffer_create(fw_runtime_t *runtime, fw_element_type_t element_type, size_t rank,
                             const int64_t *dims, const void *data, size_t data_size,
                             fw_buffer_t **out_buffer) {
  if (!out_buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_buffer is NULL");
  *out_buffer = NULL;
  fw_buffer_t *b = NULL;
  fw_status_t status = buffer_new(runtime, element_type, rank, dims, &b);
  if (status != FW_OK) return status;
  if (data && data_size != b->byte_size) return size_mismatch(b, data_size);
  /* Memory comes lazily: when a task first touches the buffer, or now with `data`. */
  /* In a task body, room its own task holds cannot come while it waits. */
  status = fw_memory_buffer_init(&runtime->memory, b, data, fw_engine_body_pins(runtime));
  if (status != FW_OK) {
    buffer_discard(b);
    return status;
  }
  *out_buffer = b;
  return FW_OK;
}

fw_status_t fw_buffer_wrap(fw_runtime_t *runtime, fw_element_type_t element_type, size_t rank,
                           const int64_t *dims, void *data, size_t data_size,
                           fw_buffer_release_fn_t release, void *user_data,
                           fw_buffer_t **out_buffer) {
  if (!out_buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_buffer is NULL");
  *out_buffer = NULL;
  fw_buffer_t *b = NULL;
  fw_status_t status = buffer_new(runtime, element_type, rank, dims, &b);
  if (status != FW_OK) return status;
  if (data_size != b->byte_size) return size_mismatch(b, data_size);
  if (!data && b->byte_size != 0) {
    buffer_discard(b);
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "data is NULL for a %zu-byte buffer",
                          data_size);
  }
  size_t element_size = fw_element_type_size(element_type);
  if ((uintptr_t)data % element_size != 0) {
    buffer_discard(b);
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "data %p is not aligned to the %zu-byte elements of %s", data,
                          element_size, fw_element_type_name(element_type));
  }
  b->wrapped = 1;
  fw_memory_buffer_init_wrapped(&runtime->memory, b, data);
  b->release = release;
  b->user_data = user_data;
  *out_buffer = b;
  return FW_OK;
}

void fw_buffer_retain(fw_buffer_t *buffer) {
  if (buffer) atomic_fetch_add_explicit(&buffer->refcount, 1, memory_order_relaxed);
}

void fw_buffer_release(fw_buffer_t *buffer) {
  if (!buffer) return;
  if (atomic_fetch_sub_explicit(&buffer->refcount, 1, memory_order_acq_rel) != 1) return;
  fw_memory_buffer_free(&buffer->runtime->memory, buffer);
  if (buffer->wrapped && buffer->release)
    buffer->release(buffer->user_data, buffer->mem.replicas[FW_NODE_HOST].ptr);
  free(buffer->readers);
  fw_status_free(buffer->poisoned);
  fw_status_free(buffer->group_failure);
  fw_runtime_release_internal(buffer->runtime);
  free(buffer);
}

fw_element_type_t fw_buffer_element_type(const fw_buffer_t *buffer) {
  return buffer ? buffer->type.element_type : (fw_element_type_t)0;
}

size_t fw_buffer_rank(const fw_buffer_t *buffer) { return buffer ? buffer->type.rank : 0; }

int64_t fw_buffer_dim(const fw_buffer_t *buffer, size_t index) {
  if (!buffer || index >= buffer->type.rank) return -1;
  return buffer->type.dims[index];
}

size_t fw_buffer_element_count(const fw_buffer_t *buffer) {
  return buffer ? buffer->element_count : 0;
}

size_t fw_buffer_byte_size(const fw_buffer_t *buffer) { return buffer ? buffer->byte_size : 0; }

void fw_buffer_unmap(fw_buffer_t *buffer) {
  if (buffer) fw_memory_unmap(&buffer->runtime->memory, buffer);
}

fw_status_t fw_buffer_map(fw_buffer_t *buffer, void **out_data) {
  if (!out_data) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_data is NULL");
  *out_data = NULL;
  if (!buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "buffer is NULL");
  fw_status_t refused = fw_engine_check_wait(buffer->runtime, "fw_buffer_map");
  if (refused != FW_OK) return refused;
  /* Sequential consistency: the caller sees the buffer after every task submitted on it,
   * and may write it once the readers are done. */
  fw_scheduler_wait_buffer(&buffer->runtime->sched, buffer, 1);
  return fw_memory_map_host(&buffer->runtime->memory, buffer, out_data);
}

void *fw_buffer_data(fw_buffer_t *buffer) {
  void *data = NULL;
  fw_status_free(fw_buffer_map(buffer, &data));
  return data;
}

fw_status_t fw_buffer_type(const fw_buffer_t *buffer, fw_tensor_type_t *out_type) {
  if (!buffer) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "buffer is NULL");
  if (!out_type) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_type is NULL");
  *out_type = buffer->type;
  return FW_OK;
}
