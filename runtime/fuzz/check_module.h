/* What the runtime reads of a module's metadata before it runs anything, for the fuzzers. */
#ifndef FW_RUNTIME_FUZZ_CHECK_MODULE_H_
#define FW_RUNTIME_FUZZ_CHECK_MODULE_H_

#include <stddef.h>
#include <stdint.h>

#include "metadata.h"

/* Walks a parsed table as module loading and dispatch do: the images' bounds against the
 * device-image section `offload` (NULL when there is none), each image's OffloadBinary
 * header, and per executable the image a few NVIDIA and AMD architectures pick. Aborts
 * when the table breaks a promise fw_metadata_parse makes (an index out of range). */
void fw_fuzz_check_module(const fw_metadata_t *md, const uint8_t *offload, size_t offload_size);

#endif
