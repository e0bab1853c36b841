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
/* Devices one runtime drives: the CPU and up to 7 GPUs. */
#define FW_MAX_DEVICES 8u

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
  /* The workgroups to run, as linear ids (x fastest) into the grid: [first, first + num).
   * num == 0 runs the whole grid. */
  uint32_t first_workgroup, num_workgroups;
  /* The launch's error word, for a kernel that checks what it computes (NULL for others):
   * on the CPU its address (fw_workgroup_t.error), on a GPU one the device can write (the
   * kernel's last parameter, a memref<i32>). Zero before the launch; a failed check leaves
   * its number there. */
  uint32_t *error;
} fw_device_launch_t;

/* Ordered work on a device (a CUDA/HIP stream). The CPU device runs everything inline, so
 * its queue handle is NULL and operations complete before they return. */
typedef struct fw_device_queue_t fw_device_queue_t;
/* A point in a queue: completion, ordering between queues, timing. */
typedef struct fw_device_event_t fw_device_event_t;
/* Code loaded onto a device (a cubin/PTX/HSACO image) and a kernel in it. */
typedef struct fw_device_module_t fw_device_module_t;

typedef struct fw_device_info_t {
  char name[64];          /* "cpu", "NVIDIA H200" */
  char arch[32];          /* "x86-64-v4", "sm_90", "gfx942" */
  uint64_t memory_bytes;  /* the device's own memory; 0 when it computes in host memory */
  uint32_t compute_units; /* cores, SMs, CUs */
} fw_device_info_t;

typedef struct fw_device_vtable_t {
  const char *name;           /* "cpu", "cuda", "hip" */
  fw_target_kind_t target_kind; /* the kind of variant this device runs */
  void (*destroy)(fw_device_t *device);
  fw_status_t (*query)(fw_device_t *device, fw_device_info_t *out_info);

  /* Device memory: FW_BUFFER_ALIGNMENT-aligned, contents undefined (size may be 0). `free`
   * takes the size that was allocated, so a device may keep freed blocks for reuse. */
  fw_status_t (*alloc)(fw_device_t *device, size_t size, void **out_ptr);
  void (*free)(fw_device_t *device, void *ptr, size_t size);
  /* The bytes the device could still allocate: the driver's free memory (which other
   * processes change) and the freed blocks the device keeps for reuse. NULL for a device
   * that computes in host memory. */
  fw_status_t (*available)(fw_device_t *device, uint64_t *out_bytes);
  /* Sets `size` bytes of device memory to zero (a buffer never written reads as zeros). */
  fw_status_t (*fill_zero)(fw_device_t *device, void *ptr, size_t size);
  /* Page-locked host memory for asynchronous copies (plain memory on the CPU). */
  fw_status_t (*alloc_host)(fw_device_t *device, size_t size, void **out_ptr);
  void (*free_host)(fw_device_t *device, void *ptr);

  /* Copies, ordered on `queue` (NULL: the device's default queue). Host pointers for the
   * asynchronous forms must come from alloc_host. */
  fw_status_t (*copy_to_device)(fw_device_t *device, fw_device_queue_t *queue, void *dst,
                                const void *host_src, size_t size);
  fw_status_t (*copy_to_host)(fw_device_t *device, fw_device_queue_t *queue, void *host_dst,
                              const void *src, size_t size);
  fw_status_t (*copy_on_device)(fw_device_t *device, fw_device_queue_t *queue, void *dst,
                                const void *src, size_t size);

  /* Queues. */
  fw_status_t (*queue_create)(fw_device_t *device, fw_device_queue_t **out_queue);
  void (*queue_destroy)(fw_device_t *device, fw_device_queue_t *queue);
  fw_status_t (*queue_synchronize)(fw_device_t *device, fw_device_queue_t *queue);
  /* The driver's handle of `queue` (NULL: the device's default queue): a CUstream or a
   * hipStream_t, for a C task's GPU implementation to enqueue its work on; with the
   * device's context made current on the calling thread. NULL on the CPU device. */
  fw_status_t (*queue_native)(fw_device_t *device, fw_device_queue_t *queue, void **out_stream);

  /* Events: recorded on a queue; another queue may wait for one; elapsed time between two
   * completed events. */
  fw_status_t (*event_create)(fw_device_t *device, fw_device_event_t **out_event);
  void (*event_destroy)(fw_device_t *device, fw_device_event_t *event);
  fw_status_t (*event_record)(fw_device_t *device, fw_device_event_t *event,
                              fw_device_queue_t *queue);
  fw_status_t (*queue_wait_event)(fw_device_t *device, fw_device_queue_t *queue,
                                  fw_device_event_t *event);
  fw_status_t (*event_synchronize)(fw_device_t *device, fw_device_event_t *event);
  /* 0 while pending; 1 when complete, or when it failed (event_synchronize says why). */
  int (*event_is_complete)(fw_device_t *device, fw_device_event_t *event);
  fw_status_t (*event_elapsed)(fw_device_t *device, fw_device_event_t *start,
                               fw_device_event_t *end, double *out_seconds);

  /* Code: a device image from the fat binary, and a kernel in it. The CPU device has no
   * images (its kernels are symbols of the loaded .fwb) and returns UNSUPPORTED. */
  fw_status_t (*module_load)(fw_device_t *device, const void *image, size_t size,
                             fw_device_module_t **out_module);
  void (*module_unload)(fw_device_t *device, fw_device_module_t *module);
  fw_status_t (*module_get_kernel)(fw_device_t *device, fw_device_module_t *module,
                                   const char *name, const void **out_kernel);

  /* Enqueues a kernel on `queue` (the CPU runs it to completion before returning). */
  fw_status_t (*launch)(fw_device_t *device, fw_device_queue_t *queue,
                        const fw_device_launch_t *launch);
} fw_device_vtable_t;

struct fw_device_t {
  const fw_device_vtable_t *vtable;
};

/* The GPU drivers fw knows, in the order devices are numbered: each discovers its
 * devices (device_cuda.h, device_hip.h: none, with the reason in `why`, is not an
 * error). */
typedef struct fw_gpu_driver_t {
  fw_target_kind_t kind;
  const char *name; /* "cuda", "hip": device lists, memory node names */
  fw_status_t (*discover)(fw_device_t ***out_devices, size_t *out_count, char *why,
                          size_t why_size);
} fw_gpu_driver_t;
#define FW_NUM_GPU_DRIVERS 2
extern const fw_gpu_driver_t fw_gpu_drivers[FW_NUM_GPU_DRIVERS];

fw_status_t fw_device_cpu_create(fw_device_t **out_device);
/* The CPU device keeps freed blocks for reuse, up to this many bytes (at most 1 GiB, the
 * default); the runtime lowers it to a quarter of a host tier limit, so memory that no
 * buffer holds stays small next to the cap. */
void fw_device_cpu_set_pool_limit(fw_device_t *device, size_t bytes);
/* Bytes held in freed blocks now. */
size_t fw_device_cpu_pool_bytes(fw_device_t *device);
/* Buffers that kernels had allocated for themselves and not freed when their workgroup
 * returned (after a failed check or a refused buffer), which the device freed. */
uint64_t fw_device_cpu_kernel_buffers_freed(fw_device_t *device);

#ifdef __cplusplus
}
#endif

#endif
