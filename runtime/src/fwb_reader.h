/* Internal: the `.fwb` container (trailer + ELF section lookup), docs/fat-binary.md. */
#ifndef FW_RUNTIME_SRC_FWB_READER_H_
#define FW_RUNTIME_SRC_FWB_READER_H_

#include <stddef.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_FWB_TRAILER_SIZE 32u
#define FW_FWB_VERSION 1u

/* Views into the caller's bytes; valid as long as those bytes are. */
typedef struct fw_fwb_view_t {
  const uint8_t *payload; /* the ELF shared object */
  size_t payload_size;
  const uint8_t *meta; /* contents of .fw.meta */
  size_t meta_size;
  const uint8_t *offload; /* contents of .llvm.offloading, NULL when absent */
  size_t offload_size;
} fw_fwb_view_t;

/* Reads the regular file at `path` into a malloc'ed buffer (*out_data, freed by the
 * caller). Errors say what failed, not which file: callers name it. */
fw_status_t fw_read_file(const char *path, uint8_t **out_data, size_t *out_size);

/* FNV-1a 64 over data[0, size). */
uint64_t fw_fnv1a64(const void *data, size_t size);

/* Checks the trailer (size, magic, version, payload_size, checksum) and the ELF headers,
 * and locates the sections. Every error is one line. */
fw_status_t fw_fwb_parse(const void *data, size_t size, fw_fwb_view_t *out_view);

#ifdef __cplusplus
}
#endif

#endif
