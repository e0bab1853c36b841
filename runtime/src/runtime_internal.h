/* Internal: the runtime, buffer and module objects shared between translation units. */
#ifndef FW_RUNTIME_SRC_RUNTIME_INTERNAL_H_
#define FW_RUNTIME_SRC_RUNTIME_INTERNAL_H_

#include <stdatomic.h>

#include "device.h"
#include "fw/runtime.h"
#include "metadata.h"

struct fw_runtime_t {
  /* One reference for the caller (dropped by fw_runtime_destroy) and one per live buffer
   * and module, so destroying the runtime first never leaves them dangling. */
  atomic_size_t refcount;
  fw_runtime_options_t options;
  fw_device_t *cpu_device;
};

struct fw_buffer_t {
  atomic_size_t refcount;
  fw_runtime_t *runtime;
  fw_device_t *device;
  fw_tensor_type_t type; /* all dims static */
  size_t element_count;
  size_t byte_size;
  void *data;
  int wrapped;                    /* data is caller memory (fw_buffer_wrap), never freed */
  fw_buffer_release_fn_t release; /* wrapped only: called once when the last ref goes */
  void *user_data;
};

struct fw_module_t {
  atomic_size_t refcount;
  fw_runtime_t *runtime;
  fw_metadata_t md;
  void *dl_handle;
  int fd; /* the memfd backing the loaded object, -1 when none */
  fw_host_entry_fn_t *entries;      /* per function */
  fw_cpu_kernel_fn_t *cpu_kernels;  /* per variant; NULL for non-CPU variants */
};

/* Reference counting of the runtime by the objects created from it. */
void fw_runtime_retain_internal(fw_runtime_t *runtime);
void fw_runtime_release_internal(fw_runtime_t *runtime);

/* Number of entries of the host-call function table of ABI version 1. */
#define FW_HOST_ABI_TABLE_SIZE 9
/* Fills a module's `__fw_rt_table` with the host-call ABI functions, in the order of
 * docs/runtime.md. */
void fw_host_abi_fill_table(void **table);

/* Allocates a zero-filled buffer on the runtime's CPU device after validating the type
 * (known element type, rank <= 8, dims >= 0, overflow-checked byte size). */
fw_status_t fw_buffer_allocate(fw_runtime_t *runtime, fw_element_type_t element_type,
                               size_t rank, const int64_t *dims, fw_buffer_t **out_buffer);

/* "4x784xf32" into buf. */
void fw_type_string(const fw_tensor_type_t *type, char *buf, size_t capacity);

/* Whether `actual` (all dims static) matches `expected` (element type, rank, static dims). */
int fw_type_matches(const fw_tensor_type_t *expected, const fw_tensor_type_t *actual);

#endif
