#include "check_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload.h"

static void require(int condition, const char *what) {
  if (condition) return;
  fprintf(stderr, "fw_metadata_parse accepted a table where %s\n", what);
  abort();
}

/* Reads every byte of a string the table hands out (a sanitizer catches one that is not
 * NUL-terminated inside the pool); the sink keeps the compiler from dropping the reads. */
static volatile size_t g_sink;
static void touch(const char *s) {
  if (s) g_sink += strlen(s);
}

static void check_selection(const fw_metadata_t *md, uint32_t e, int64_t variant,
                            int64_t image) {
  if (variant < 0) return;
  const fw_md_executable_t *exe = &md->executables[e];
  require((uint64_t)variant >= exe->first_variant &&
              (uint64_t)variant < (uint64_t)exe->first_variant + exe->num_variants,
          "an executable selects another's variant");
  require(image >= 0 && (uint64_t)image < md->num_images, "a variant selects no image");
}

void fw_fuzz_check_module(const fw_metadata_t *md, const uint8_t *offload, size_t offload_size) {
  static const char *const kCuda[] = {"sm_80", "sm_90", "sm_90a", "sm_100", "sm_120"};
  static const char *const kHip[] = {"gfx90a", "gfx942", "gfx942:sramecc+:xnack-", "gfx1100"};
  touch(md->module_name);
  for (size_t i = 0; i < md->num_targets; ++i) {
    touch(md->targets[i].arch);
    touch(md->targets[i].triple);
    touch(md->targets[i].features);
  }
  for (size_t i = 0; i < md->num_functions; ++i) {
    const fw_md_function_t *f = &md->functions[i];
    touch(f->name);
    touch(f->symbol);
    require((uint64_t)f->first_arg + f->num_args <= md->num_values &&
                (uint64_t)f->first_result + f->num_results <= md->num_values,
            "a function's values lie outside the value table");
  }
  for (size_t i = 0; i < md->num_values; ++i)
    require(md->values[i].rank <= FW_MAX_RANK, "a value's rank exceeds FW_MAX_RANK");
  for (size_t i = 0; i < md->num_bindings; ++i)
    require(md->bindings[i].type.rank <= FW_MAX_RANK, "a binding's rank exceeds FW_MAX_RANK");
  for (size_t i = 0; i < md->num_variants; ++i) {
    const fw_md_variant_t *v = &md->variants[i];
    touch(v->kernel);
    touch(v->config);
    require(v->target < md->num_targets, "a variant names no target");
    require(v->image == FW_MD_NO_IMAGE || v->image < md->num_images,
            "a variant names no image");
  }
  for (uint32_t e = 0; e < md->num_executables; ++e) {
    const fw_md_executable_t *exe = &md->executables[e];
    touch(exe->name);
    require((uint64_t)exe->first_variant + exe->num_variants <= md->num_variants &&
                (uint64_t)exe->first_binding + exe->num_bindings <= md->num_bindings &&
                (uint64_t)exe->first_cost_term + exe->num_cost_terms <= md->num_cost_terms &&
                (uint64_t)exe->first_check + exe->num_checks <= md->num_checks,
            "an executable's variants, bindings, cost terms or checks lie outside their tables");
    for (uint32_t c = 0; c < exe->num_checks; ++c) touch(md->checks[exe->first_check + c]);
    require(exe->num_checks == 0 || md->abi_version >= FW_MD_CHECKS_ABI_VERSION,
            "an executable has checks below the ABI version of the error word");
    for (uint32_t t = 0; t < exe->num_cost_terms; ++t) {
      const fw_md_cost_term_t *term = &md->cost_terms[exe->first_cost_term + t];
      require(term->num_factors <= FW_MD_MAX_COST_FACTORS, "a cost term has too many factors");
      for (uint32_t f = 0; f < term->num_factors; ++f)
        require(term->binding[f] < exe->num_bindings &&
                    term->dim[f] < md->bindings[exe->first_binding + term->binding[f]].type.rank,
                "a cost term names a binding or a dimension that does not exist");
    }
    for (size_t k = 0; k < sizeof(kCuda) / sizeof(*kCuda); ++k) {
      int64_t variant = -1, image = -1;
      fw_select_cuda_image(md, e, kCuda[k], &variant, &image);
      check_selection(md, e, variant, image);
    }
    for (size_t k = 0; k < sizeof(kHip) / sizeof(*kHip); ++k) {
      int64_t variant = -1, image = -1;
      fw_select_hip_image(md, e, kHip[k], &variant, &image);
      check_selection(md, e, variant, image);
    }
  }
  fw_status_t status = fw_metadata_check_images(md, offload, offload_size);
  if (status != FW_OK) {
    fw_status_free(status);
    return;
  }
  for (size_t i = 0; i < md->num_images; ++i) {
    fw_offload_image_t image;
    status = fw_offload_parse(offload + md->images[i].offset, md->images[i].size, &image);
    if (status == FW_OK) {
      require(image.data >= offload && image.size <= offload_size &&
                  (size_t)(image.data - offload) <= offload_size - image.size,
              "an image's code lies outside the device-image section");
      touch(image.arch);
      touch(image.triple);
    }
    fw_status_free(status);
  }
}
