/* Parsing and validation of the `.fw.meta` table (docs/fat-binary.md, version 1.0). */
#include "metadata.h"

#include <stdlib.h>
#include <string.h>

#include "status_internal.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

typedef struct {
  const uint8_t *base; /* start of the table */
  uint32_t total_size;
  const uint8_t *pool; /* string pool in the input */
  uint32_t pool_size;
  char *pool_copy;
} parser_t;

typedef struct {
  uint32_t offset, count;
} md_array_t;

#define MD_ERR(...) fw_status_make(FW_STATUS_DATA_LOSS, ".fw.meta: " __VA_ARGS__)

/* Reads the array descriptor at header offset `at` and checks that `count` records of
 * `record_size` bytes lie inside the table. */
static fw_status_t read_array(const parser_t *p, size_t at, const char *field,
                              uint32_t record_size, md_array_t *out) {
  out->offset = rd32(p->base + at);
  out->count = rd32(p->base + at + 4);
  uint64_t bytes = (uint64_t)out->count * record_size;
  uint64_t end = (uint64_t)out->offset + bytes;
  if (out->count == 0) return FW_OK;
  if (out->offset % 8 != 0)
    return MD_ERR("header.%s.offset %u is not 8-byte aligned", field, out->offset);
  if (end > p->total_size)
    return MD_ERR("header.%s (offset %u, count %u, %u-byte records) lies outside the table "
                  "(total_size %u)",
                  field, out->offset, out->count, record_size, p->total_size);
  return FW_OK;
}

/* Resolves the string descriptor at `at` into the pool copy. */
static fw_status_t read_string(const parser_t *p, const uint8_t *at, const char *what,
                               size_t index, const char *field, const char **out) {
  uint32_t offset = rd32(at), length = rd32(at + 4);
  uint64_t end = (uint64_t)offset + length; /* index of the NUL */
  *out = NULL;
  if (end >= p->pool_size)
    return MD_ERR("%s[%zu].%s (offset %u, length %u) lies outside the string pool (%u bytes)",
                  what, index, field, offset, length, p->pool_size);
  if (p->pool[end] != 0)
    return MD_ERR("%s[%zu].%s is not NUL-terminated", what, index, field);
  if (memchr(p->pool + offset, 0, length) != NULL)
    return MD_ERR("%s[%zu].%s contains a NUL byte", what, index, field);
  *out = p->pool_copy + offset;
  return FW_OK;
}

/* Record `index` of `array` (a `noun` of an executable) names executable `exe`: one of
 * the `count`, and not before the previous record's (`*previous`, updated). */
static fw_status_t check_executable_order(const char *array, const char *noun, uint32_t index,
                                          uint32_t exe, uint32_t count, uint32_t *previous) {
  if (exe >= count)
    return MD_ERR("%s[%u].executable %u is out of range (%u executables)", array, index, exe,
                  count);
  if (exe < *previous)
    return MD_ERR("%s[%u].executable %u follows a %s of executable %u (%ss must be in "
                  "executable order)", array, index, exe, noun, *previous, noun);
  *previous = exe;
  return FW_OK;
}

static fw_status_t check_range(const char *what, size_t index, const char *field,
                               uint32_t first, uint32_t count, size_t limit,
                               const char *array) {
  if ((uint64_t)first + count > limit)
    return MD_ERR("%s[%zu].%s: range [%u, %u + %u) exceeds %s count %zu", what, index, field,
                  first, first, count, array, limit);
  return FW_OK;
}

static void *alloc_array(size_t count, size_t size) {
  return calloc(count ? count : 1, size);
}

void fw_metadata_free(fw_metadata_t *md) {
  if (!md) return;
  free(md->pool);
  free(md->targets);
  free(md->functions);
  free(md->values);
  free(md->executables);
  free(md->bindings);
  free(md->variants);
  free(md->images);
  free(md->cost_terms);
  free(md->checks);
  memset(md, 0, sizeof(*md));
}

fw_status_t fw_metadata_check_images(const fw_metadata_t *md, const uint8_t *offload,
                                     size_t offload_size) {
  for (size_t i = 0; i < md->num_images; ++i) {
    const fw_md_image_t *im = &md->images[i];
    if (!offload || im->offset > offload_size || im->size > offload_size - im->offset)
      return fw_status_make(FW_STATUS_DATA_LOSS,
                            ".fw.meta: images[%zu] (offset %llu, size %llu) lies outside the "
                            ".llvm.offloading section (%zu bytes)",
                            i, (unsigned long long)im->offset, (unsigned long long)im->size,
                            offload ? offload_size : (size_t)0);
  }
  return FW_OK;
}

#define TRY(expr)                       \
  do {                                  \
    status = (expr);                    \
    if (status != FW_OK) goto fail;     \
  } while (0)

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

fw_status_t fw_metadata_parse(const void *data, size_t size, uint32_t max_abi_version,
                              fw_metadata_t *out) {
  if (!out) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_metadata is NULL");
  memset(out, 0, sizeof(*out));
  if (!data && size) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "data is NULL");
  const uint8_t *b = data;
  if (size < FW_MD_HEADER_SIZE)
    return MD_ERR("table is %zu bytes, smaller than the %u-byte header", size,
                  FW_MD_HEADER_SIZE);
  if (memcmp(b, "FWMD", 4) != 0) return MD_ERR("bad magic (expected \"FWMD\")");
  uint16_t major = rd16(b + 4), minor = rd16(b + 6);
  if (major != 1)
    return fw_status_make(FW_STATUS_UNSUPPORTED,
                          ".fw.meta: unsupported version_major %u (this runtime reads 1)",
                          major);
  uint32_t header_size = rd32(b + 8), total_size = rd32(b + 12);
  uint32_t abi = rd32(b + 16);
  if (header_size < FW_MD_HEADER_SIZE)
    return MD_ERR("header_size %u is smaller than %u", header_size, FW_MD_HEADER_SIZE);
  if (total_size > size)
    return MD_ERR("total_size %u exceeds the section size %zu", total_size, size);
  if (header_size > total_size)
    return MD_ERR("header_size %u exceeds total_size %u", header_size, total_size);
  if (abi < 1 || abi > max_abi_version)
    return fw_status_make(FW_STATUS_UNSUPPORTED,
                          ".fw.meta: abi_version %u is not one this runtime implements (1 to "
                          "%u)",
                          abi, max_abi_version);

  fw_status_t status = FW_OK;
  parser_t p = {b, total_size, NULL, 0, NULL};
  md_array_t strings, targets, functions, values, dims, executables, bindings, variants,
      images;
  TRY(read_array(&p, 24, "strings", 1, &strings));
  TRY(read_array(&p, 32, "targets", 32, &targets));
  TRY(read_array(&p, 40, "functions", 32, &functions));
  TRY(read_array(&p, 48, "values", 16, &values));
  TRY(read_array(&p, 56, "dims", 8, &dims));
  TRY(read_array(&p, 64, "executables", 48, &executables));
  TRY(read_array(&p, 72, "bindings", 8, &bindings));
  TRY(read_array(&p, 80, "variants", 32, &variants));
  TRY(read_array(&p, 88, "images", 24, &images));
  md_array_t configs = {0, 0};
  if (minor >= 2) TRY(read_array(&p, 112, "variant_configs", 8, &configs));
  md_array_t cost_terms = {0, 0};
  if (minor >= 3) TRY(read_array(&p, 120, "cost_terms", 48, &cost_terms));
  md_array_t checks = {0, 0};
  if (minor >= 4) {
    if (header_size < FW_MD_HEADER_SIZE_MINOR4)
      TRY(MD_ERR("header_size %u is smaller than %u, the size of a minor-4 header",
                 header_size, FW_MD_HEADER_SIZE_MINOR4));
    TRY(read_array(&p, 128, "checks", 16, &checks));
  }
  if (checks.count && abi < FW_MD_CHECKS_ABI_VERSION)
    TRY(MD_ERR("the table lists kernel checks but its abi_version is %u (checks need %u)",
               abi, FW_MD_CHECKS_ABI_VERSION));
  if (configs.count && configs.count != variants.count)
    TRY(MD_ERR("variant_configs has %u entries for %u variants", configs.count,
               variants.count));

  out->version_major = major;
  out->version_minor = minor;
  out->abi_version = abi;
  p.pool = b + strings.offset;
  p.pool_size = strings.count;
  out->pool = malloc(strings.count ? strings.count : 1);
  if (!out->pool) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  if (strings.count) memcpy(out->pool, p.pool, strings.count);
  p.pool_copy = out->pool;

  TRY(read_string(&p, b + 96, "header", 0, "module_name", &out->module_name));
  out->source_id = minor >= 1 ? rd64(b + 104) : 0; /* reserved (zeros) before minor 1 */

  /* Dims. */
  const uint8_t *dims_base = b + dims.offset;
  for (uint32_t i = 0; i < dims.count; ++i) {
    int64_t d = (int64_t)rd64(dims_base + (size_t)i * 8);
    if (d < -1) TRY(MD_ERR("dims[%u] is %lld (must be >= -1)", i, (long long)d));
  }

  /* Targets. */
  out->num_targets = targets.count;
  out->targets = alloc_array(targets.count, sizeof(fw_md_target_t));
  if (!out->targets) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < targets.count; ++i) {
    const uint8_t *r = b + targets.offset + (size_t)i * 32;
    fw_md_target_t *t = &out->targets[i];
    t->kind = rd32(r);
    if (t->kind < 1 || t->kind > 3)
      TRY(MD_ERR("targets[%u].kind %u is unknown (1 = cpu, 2 = cuda, 3 = hip)", i, t->kind));
    TRY(read_string(&p, r + 8, "targets", i, "arch", &t->arch));
    TRY(read_string(&p, r + 16, "targets", i, "triple", &t->triple));
    TRY(read_string(&p, r + 24, "targets", i, "features", &t->features));
  }

  /* Values. */
  out->num_values = values.count;
  out->values = alloc_array(values.count, sizeof(fw_tensor_type_t));
  if (!out->values) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < values.count; ++i) {
    const uint8_t *r = b + values.offset + (size_t)i * 16;
    fw_tensor_type_t *v = &out->values[i];
    uint32_t et = rd32(r), rank = rd32(r + 4), first_dim = rd32(r + 8);
    if (fw_element_type_size((fw_element_type_t)et) == 0)
      TRY(MD_ERR("values[%u].element_type %u is unknown", i, et));
    if (rank > FW_MAX_RANK)
      TRY(MD_ERR("values[%u].rank %u exceeds %d", i, rank, FW_MAX_RANK));
    TRY(check_range("values", i, "first_dim", first_dim, rank, dims.count, "dims"));
    v->element_type = (fw_element_type_t)et;
    v->rank = rank;
    for (uint32_t d = 0; d < rank; ++d)
      v->dims[d] = (int64_t)rd64(dims_base + ((size_t)first_dim + d) * 8);
  }

  /* Functions. */
  out->num_functions = functions.count;
  out->functions = alloc_array(functions.count, sizeof(fw_md_function_t));
  if (!out->functions) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < functions.count; ++i) {
    const uint8_t *r = b + functions.offset + (size_t)i * 32;
    fw_md_function_t *f = &out->functions[i];
    TRY(read_string(&p, r, "functions", i, "name", &f->name));
    TRY(read_string(&p, r + 8, "functions", i, "symbol", &f->symbol));
    f->first_arg = rd32(r + 16);
    f->num_args = rd32(r + 20);
    f->first_result = rd32(r + 24);
    f->num_results = rd32(r + 28);
    if (f->name[0] == 0) TRY(MD_ERR("functions[%u].name is empty", i));
    if (f->symbol[0] == 0) TRY(MD_ERR("functions[%u].symbol is empty", i));
    TRY(check_range("functions", i, "first_arg", f->first_arg, f->num_args, values.count,
                    "values"));
    TRY(check_range("functions", i, "first_result", f->first_result, f->num_results,
                    values.count, "values"));
  }
  /* Function names are unique (sorted copy: O(n log n) even for hostile tables). */
  if (functions.count > 1) {
    const char **names = alloc_array(functions.count, sizeof(*names));
    if (!names) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
    for (uint32_t i = 0; i < functions.count; ++i) names[i] = out->functions[i].name;
    qsort(names, functions.count, sizeof(*names), compare_names);
    const char *duplicate = NULL;
    for (uint32_t i = 1; i < functions.count && !duplicate; ++i)
      if (strcmp(names[i - 1], names[i]) == 0) duplicate = names[i];
    free(names);
    if (duplicate) TRY(MD_ERR("two functions are named \"%s\"", duplicate));
  }

  /* Images. */
  out->num_images = images.count;
  out->images = alloc_array(images.count, sizeof(fw_md_image_t));
  if (!out->images) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < images.count; ++i) {
    const uint8_t *r = b + images.offset + (size_t)i * 24;
    fw_md_image_t *im = &out->images[i];
    im->target = rd32(r);
    im->format = rd32(r + 4);
    im->offset = rd64(r + 8);
    im->size = rd64(r + 16);
    if (im->target >= targets.count)
      TRY(MD_ERR("images[%u].target %u is out of range (%u targets)", i, im->target,
                 targets.count));
    if (im->format < 1 || im->format > 4)
      TRY(MD_ERR("images[%u].format %u is unknown", i, im->format));
    if (im->offset + im->size < im->offset)
      TRY(MD_ERR("images[%u].offset + size overflows", i));
  }

  /* Bindings. */
  out->num_bindings = bindings.count;
  out->bindings = alloc_array(bindings.count, sizeof(fw_binding_info_t));
  if (!out->bindings) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < bindings.count; ++i) {
    const uint8_t *r = b + bindings.offset + (size_t)i * 8;
    uint32_t access = rd32(r), value = rd32(r + 4);
    if (access < 1 || access > 3)
      TRY(MD_ERR("bindings[%u].access %u is unknown (1 = read, 2 = write, 3 = read-write)",
                 i, access));
    if (value >= values.count)
      TRY(MD_ERR("bindings[%u].value %u is out of range (%u values)", i, value,
                 values.count));
    out->bindings[i].access = (fw_access_t)access;
    out->bindings[i].type = out->values[value];
  }

  /* Variants. */
  out->num_variants = variants.count;
  out->variants = alloc_array(variants.count, sizeof(fw_md_variant_t));
  if (!out->variants) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < variants.count; ++i) {
    const uint8_t *r = b + variants.offset + (size_t)i * 32;
    fw_md_variant_t *v = &out->variants[i];
    v->target = rd32(r);
    v->kind = rd32(r + 4);
    TRY(read_string(&p, r + 8, "variants", i, "kernel", &v->kernel));
    v->image = rd32(r + 16);
    for (int k = 0; k < 3; ++k) v->workgroup_size[k] = rd32(r + 20 + 4 * k);
    v->config = "";
    if (configs.count)
      TRY(read_string(&p, b + configs.offset + (size_t)i * 8, "variant_configs", i, "config",
                      &v->config));
    if (v->target >= targets.count)
      TRY(MD_ERR("variants[%u].target %u is out of range (%u targets)", i, v->target,
                 targets.count));
    if (v->kernel[0] == 0) TRY(MD_ERR("variants[%u].kernel is empty", i));
    if (v->kind == FW_VARIANT_KIND_CPU_SYMBOL) {
      if (out->targets[v->target].kind != FW_TARGET_KIND_CPU)
        TRY(MD_ERR("variants[%u].kind is 1 (CPU symbol) but targets[%u] is not a CPU target",
                   i, v->target));
      if (v->image != FW_MD_NO_IMAGE)
        TRY(MD_ERR("variants[%u].image must be 0xFFFFFFFF for a CPU variant", i));
    } else if (v->kind == FW_VARIANT_KIND_DEVICE_IMAGE) {
      if (v->image >= images.count)
        TRY(MD_ERR("variants[%u].image %u is out of range (%u images)", i, v->image,
                   images.count));
    } else {
      TRY(MD_ERR("variants[%u].kind %u is unknown (1 = cpu symbol, 2 = device image)", i,
                 v->kind));
    }
  }

  /* Executables. */
  out->num_executables = executables.count;
  out->executables = alloc_array(executables.count, sizeof(fw_md_executable_t));
  if (!out->executables) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0; i < executables.count; ++i) {
    const uint8_t *r = b + executables.offset + (size_t)i * 48;
    fw_md_executable_t *e = &out->executables[i];
    TRY(read_string(&p, r, "executables", i, "name", &e->name));
    e->first_binding = rd32(r + 8);
    e->num_bindings = rd32(r + 12);
    e->first_variant = rd32(r + 16);
    e->num_variants = rd32(r + 20);
    e->cost_flops = rd64(r + 24);
    e->cost_bytes = rd64(r + 32);
    e->priority = rd32(r + 40);
    e->flags = minor >= 2 ? rd32(r + 44) : 0; /* reserved (zero) before minor 2 */
    if (e->flags & ~(uint32_t)FW_MD_EXECUTABLE_AUTOTUNE)
      TRY(MD_ERR("executables[%u].flags 0x%x has unknown bits", i, e->flags));
    TRY(check_range("executables", i, "first_binding", e->first_binding, e->num_bindings,
                    bindings.count, "bindings"));
    TRY(check_range("executables", i, "first_variant", e->first_variant, e->num_variants,
                    variants.count, "variants"));
    /* Each executable owns its bindings and variants: the ranges follow each other, so a
     * variant's kernel is only ever called with its own executable's bindings. */
    uint32_t next_binding = i ? out->executables[i - 1].first_binding +
                                    out->executables[i - 1].num_bindings
                              : 0;
    uint32_t next_variant = i ? out->executables[i - 1].first_variant +
                                    out->executables[i - 1].num_variants
                              : 0;
    if (e->first_binding != next_binding)
      TRY(MD_ERR("executables[%u].first_binding is %u, expected %u (ranges must follow each "
                 "other)", i, e->first_binding, next_binding));
    if (e->first_variant != next_variant)
      TRY(MD_ERR("executables[%u].first_variant is %u, expected %u (ranges must follow each "
                 "other)", i, e->first_variant, next_variant));
  }

  /* Cost terms (minor 3), in executable order: each executable's are contiguous. */
  out->num_cost_terms = cost_terms.count;
  out->cost_terms = alloc_array(cost_terms.count, sizeof(fw_md_cost_term_t));
  if (!out->cost_terms) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0, previous = 0; i < cost_terms.count; ++i) {
    const uint8_t *r = b + cost_terms.offset + (size_t)i * 48;
    fw_md_cost_term_t *t = &out->cost_terms[i];
    uint32_t exe = rd32(r);
    t->num_factors = rd32(r + 4);
    t->coefficient = rd64(r + 8);
    TRY(check_executable_order("cost_terms", "term", i, exe, executables.count, &previous));
    if (t->num_factors > FW_MD_MAX_COST_FACTORS)
      TRY(MD_ERR("cost_terms[%u].num_factors %u exceeds %u", i, t->num_factors,
                 FW_MD_MAX_COST_FACTORS));
    fw_md_executable_t *e = &out->executables[exe];
    if (e->num_cost_terms++ == 0) e->first_cost_term = i;
    for (uint32_t k = 0; k < FW_MD_MAX_COST_FACTORS; ++k) {
      t->binding[k] = rd16(r + 16 + 4 * k);
      t->dim[k] = rd16(r + 18 + 4 * k);
      if (k >= t->num_factors) {
        if (t->binding[k] || t->dim[k])
          TRY(MD_ERR("cost_terms[%u].factors[%u] is unused and must be zero", i, k));
        continue;
      }
      if (t->binding[k] >= e->num_bindings)
        TRY(MD_ERR("cost_terms[%u].factors[%u].binding %u is out of range (executable '%s' "
                   "has %u bindings)", i, k, t->binding[k], e->name, e->num_bindings));
      const fw_tensor_type_t *type = &out->bindings[e->first_binding + t->binding[k]].type;
      if (t->dim[k] >= type->rank)
        TRY(MD_ERR("cost_terms[%u].factors[%u].dim %u is out of range (binding %u of '%s' has "
                   "rank %u)", i, k, t->dim[k], t->binding[k], e->name, type->rank));
    }
  }

  /* Check messages (minor 4), in executable order: each executable's are contiguous. */
  out->num_checks = checks.count;
  out->checks = alloc_array(checks.count, sizeof(const char *));
  if (!out->checks) TRY(fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  for (uint32_t i = 0, previous = 0; i < checks.count; ++i) {
    const uint8_t *r = b + checks.offset + (size_t)i * 16;
    uint32_t exe = rd32(r);
    TRY(check_executable_order("checks", "check", i, exe, executables.count, &previous));
    if (rd32(r + 4) != 0) TRY(MD_ERR("checks[%u].reserved must be zero", i));
    TRY(read_string(&p, r + 8, "checks", i, "message", &out->checks[i]));
    fw_md_executable_t *e = &out->executables[exe];
    if (e->num_checks++ == 0) e->first_check = i;
  }
  return FW_OK;

fail:
  fw_metadata_free(out);
  return status;
}
