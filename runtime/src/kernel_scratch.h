/* Internal: the buffers CPU kernels allocate for themselves (host-call ABI version 4).
 *
 * A kernel's `memref.alloc`s reach the runtime through its module's function table
 * (fw_rt_kernel_alloc, fw_rt_kernel_free). While a CPU device runs a workgroup, the buffers
 * it allocates are recorded on the thread running it; when the workgroup returns, those it
 * did not free are freed. A kernel that returns early (a failed check, a buffer the machine
 * refused) therefore loses nothing, whatever it held, loop-carried buffers included. */
#ifndef FW_RUNTIME_SRC_KERNEL_SCRATCH_H_
#define FW_RUNTIME_SRC_KERNEL_SCRATCH_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fw_kernel_scratch_t {
  void **buffers; /* the live allocations */
  size_t count, capacity;
  void *inline_buffers[16];
  struct fw_kernel_scratch_t *outer; /* the thread's scratch before this one */
} fw_kernel_scratch_t;

/* Makes `scratch` the calling thread's: the kernel allocations it makes from now on are
 * recorded there. */
void fw_kernel_scratch_begin(fw_kernel_scratch_t *scratch);
/* Frees the allocations recorded in `scratch` that were not freed; returns how many. */
size_t fw_kernel_scratch_collect(fw_kernel_scratch_t *scratch);
/* Collects, then gives the thread back its previous scratch; returns the number collected. */
size_t fw_kernel_scratch_end(fw_kernel_scratch_t *scratch);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FW_RUNTIME_SRC_KERNEL_SCRATCH_H_ */
