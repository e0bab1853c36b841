/* Internal: the `.fw.meta` metadata table (docs/fat-binary.md), parsed and validated. */
#ifndef FW_RUNTIME_SRC_METADATA_H_
#define FW_RUNTIME_SRC_METADATA_H_

#include <stddef.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_MD_HEADER_SIZE 128u
#define FW_MD_HEADER_SIZE_MINOR4 136u /* minor 4 appends `checks` */
/* Kernels that report failed checks need this ABI version (fw_workgroup_t.error). */
#define FW_MD_CHECKS_ABI_VERSION 3u
#define FW_MD_NO_IMAGE 0xFFFFFFFFu

typedef struct fw_md_target_t {
  uint32_t kind; /* fw_target_kind_t */
  const char *arch, *triple, *features;
} fw_md_target_t;

typedef struct fw_md_function_t {
  const char *name, *symbol;
  uint32_t first_arg, num_args;
  uint32_t first_result, num_results;
} fw_md_function_t;

typedef struct fw_md_executable_t {
  const char *name;
  uint32_t first_binding, num_bindings;
  uint32_t first_variant, num_variants;
  uint64_t cost_flops, cost_bytes;
  uint32_t priority;
  uint32_t flags; /* FW_MD_EXECUTABLE_* (minor 2) */
  uint32_t first_cost_term, num_cost_terms; /* into cost_terms (minor 3) */
  uint32_t first_check, num_checks;         /* into checks (minor 4) */
} fw_md_executable_t;

/* One term of an executable's operation count (minor 3): coefficient times the product
 * of the named dims of its bindings. */
#define FW_MD_MAX_COST_FACTORS 8u
typedef struct fw_md_cost_term_t {
  uint64_t coefficient;
  uint32_t num_factors;
  uint16_t binding[FW_MD_MAX_COST_FACTORS]; /* index among the executable's bindings */
  uint16_t dim[FW_MD_MAX_COST_FACTORS];
} fw_md_cost_term_t;

/* fw_md_executable_t.flags: its CPU variants are candidates to measure (fwc --autotune). */
#define FW_MD_EXECUTABLE_AUTOTUNE 0x1u

typedef struct fw_md_variant_t {
  uint32_t target;
  uint32_t kind; /* fw_variant_kind_t */
  const char *kernel;
  uint32_t image;
  uint32_t workgroup_size[3];
  const char *config; /* code-generation knobs, "kc=256,mr=4" (minor 2); "" when none */
} fw_md_variant_t;

typedef struct fw_md_image_t {
  uint32_t target, format;
  uint64_t offset, size;
} fw_md_image_t;

/* A validated table. Every index in it is in range; strings are NUL-terminated and point
 * into `pool` (an owned copy of the string pool). */
typedef struct fw_metadata_t {
  uint16_t version_major, version_minor;
  uint32_t abi_version;
  const char *module_name;
  uint64_t source_id; /* FNV-1a of the source program (minor 1); 0: unknown */
  char *pool;
  size_t num_targets;
  fw_md_target_t *targets;
  size_t num_functions;
  fw_md_function_t *functions;
  size_t num_values;
  fw_tensor_type_t *values; /* decoded with their dims */
  size_t num_executables;
  fw_md_executable_t *executables;
  size_t num_bindings;
  fw_binding_info_t *bindings; /* access + decoded type of `value` */
  size_t num_variants;
  fw_md_variant_t *variants;
  size_t num_images;
  fw_md_image_t *images;
  size_t num_cost_terms;
  fw_md_cost_term_t *cost_terms;
  /* The messages of the checks kernels make as they run (minor 4), in executable order:
   * number k (from 1) of executable e is checks[e.first_check + k - 1]. */
  size_t num_checks;
  const char **checks;
} fw_metadata_t;

/* Parses and validates the table in data[0, size) (any alignment). On success fills
 * `out_metadata`, which the caller frees with fw_metadata_free; on failure leaves it
 * zeroed. `max_abi_version` is the host-call ABI the runtime implements; tables of every
 * version from 1 up to it are read. */
fw_status_t fw_metadata_parse(const void *data, size_t size, uint32_t max_abi_version,
                              fw_metadata_t *out_metadata);
void fw_metadata_free(fw_metadata_t *metadata);

/* Checks that every image the table lists lies inside the container's device-image
 * section (`offload`, `offload_size` bytes; NULL when the container has none). */
fw_status_t fw_metadata_check_images(const fw_metadata_t *metadata, const uint8_t *offload,
                                     size_t offload_size);

#ifdef __cplusplus
}
#endif

#endif
