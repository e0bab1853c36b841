/* Internal: the device interface. A device is a table of function pointers; the CPU
 * device (device_cpu.c) is the first implementation. GPU devices (CUDA, HIP) implement
 * the same table in their own file and open their vendor library with dlopen. */
#ifndef FW_RUNTIME_SRC_DEVICE_H_
#define FW_RUNTIME_SRC_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_BUFFER_ALIGNMENT 64u

typedef struct fw_device_t fw_device_t;

/* One buffer operand of a launch: device memory of a dense row-major tensor. */
typedef struct fw_device_binding_t {
  void *data;
  uint32_t rank;
  const int64_t *dims;
} fw_device_binding_t;

typedef struct fw_device_launch_t {
  union {
    fw_cpu_kernel_fn_t cpu; /* FW_TARGET_KIND_CPU: the kernel symbol */
    const void *image;      /* GPU devices: a loaded kernel handle */
  } kernel;
  size_t num_bindings;
  const fw_device_binding_t *bindings;
  uint32_t workgroup_count[3];
  uint32_t workgroup_size[3];
} fw_device_launch_t;

typedef struct fw_device_vtable_t {
  const char *name;           /* "cpu" */
  fw_target_kind_t target_kind; /* the kind of variant this device runs */
  void (*destroy)(fw_device_t *device);
  /* Allocates `size` bytes (may be 0), FW_BUFFER_ALIGNMENT-aligned and zero-filled. */
  fw_status_t (*alloc)(fw_device_t *device, size_t size, void **out_ptr);
  void (*free)(fw_device_t *device, void *ptr);
  /* Copies host memory to/from/within device memory (version 1: host memory only). */
  fw_status_t (*copy)(fw_device_t *device, void *dst, const void *src, size_t size);
  /* Runs a kernel to completion (version 1 is synchronous). */
  fw_status_t (*launch)(fw_device_t *device, const fw_device_launch_t *launch);
} fw_device_vtable_t;

struct fw_device_t {
  const fw_device_vtable_t *vtable;
};

fw_status_t fw_device_cpu_create(fw_device_t **out_device);

#ifdef __cplusplus
}
#endif

#endif
