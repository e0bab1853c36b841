/* Internal: the device images of a fat binary. Each lives in .llvm.offloading as an LLVM
 * OffloadBinary (version 1: header, one entry, a string map, the image); this reader
 * needs no LLVM. */
#ifndef FW_RUNTIME_SRC_OFFLOAD_H_
#define FW_RUNTIME_SRC_OFFLOAD_H_

#include <stddef.h>
#include <stdint.h>

#include "fw/runtime.h"
#include "metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LLVM's object::ImageKind values. */
enum { FW_OFFLOAD_IMAGE_CUBIN = 3, FW_OFFLOAD_IMAGE_PTX = 5 };

typedef struct fw_offload_image_t {
  uint16_t image_kind, offload_kind;
  const uint8_t *data; /* the image itself, inside the blob */
  uint64_t size;
  const char *triple, *arch; /* from the string map; NULL when absent */
} fw_offload_image_t;

/* Parses the OffloadBinary at blob[0, size): every offset and size is checked against
 * `size` and every string is NUL-terminated inside it. */
fw_status_t fw_offload_parse(const uint8_t *blob, uint64_t size, fw_offload_image_t *out);

/* "sm_86" -> 86; -1 for anything else. */
int fw_cuda_arch_number(const char *arch);

/* The image a GPU of architecture `device_arch` ("sm_86") loads for executable
 * `executable`: a cubin built for exactly that architecture, else a cubin of the same
 * major version and an older minor (binary compatible), else the PTX of the newest
 * architecture not newer than the device (compiled by the driver). *out_variant and
 * *out_image are indices into md's variants and images; -1 when nothing fits. */
void fw_select_cuda_image(const fw_metadata_t *md, uint32_t executable, const char *device_arch,
                          int64_t *out_variant, int64_t *out_image);

/* The image an AMD GPU of architecture `device_arch` ("gfx942", or with its features,
 * "gfx90a:sramecc+:xnack-") loads for `executable`: the HSACO built for exactly that
 * architecture (AMD code objects do not run on other ones). -1 when none. */
void fw_select_hip_image(const fw_metadata_t *md, uint32_t executable, const char *device_arch,
                         int64_t *out_variant, int64_t *out_image);

#ifdef __cplusplus
}
#endif

#endif
