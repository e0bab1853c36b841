/* Device images: the LLVM OffloadBinary reader and the choice of image per GPU. */
#include "offload.h"

#include <stdlib.h>
#include <string.h>

#include "status_internal.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* The NUL-terminated string at blob[offset], or NULL when it does not fit. */
static const char *string_at(const uint8_t *blob, uint64_t size, uint64_t offset) {
  if (offset >= size) return NULL;
  if (!memchr(blob + offset, '\0', (size_t)(size - offset))) return NULL;
  return (const char *)blob + offset;
}

#define BAD(...) fw_status_make(FW_STATUS_INVALID_ARGUMENT, "bad device image: " __VA_ARGS__)

fw_status_t fw_offload_parse(const uint8_t *blob, uint64_t size, fw_offload_image_t *out) {
  memset(out, 0, sizeof(*out));
  static const uint8_t kMagic[4] = {0x10, 0xFF, 0x10, 0xAD};
  if (size < 32 || memcmp(blob, kMagic, 4) != 0)
    return BAD("no OffloadBinary magic (10 FF 10 AD) in %llu bytes", (unsigned long long)size);
  uint32_t version = rd32(blob + 4);
  if (version != 1) return BAD("OffloadBinary version %u (this runtime reads 1)", version);
  uint64_t total = rd64(blob + 8), entry = rd64(blob + 16), entry_size = rd64(blob + 24);
  if (total > size) return BAD("its size %llu exceeds the %llu bytes it was given",
                               (unsigned long long)total, (unsigned long long)size);
  if (entry_size < 40 || entry > total || entry_size > total - entry)
    return BAD("its entry lies outside it");
  const uint8_t *e = blob + entry;
  out->image_kind = rd16(e);
  out->offload_kind = rd16(e + 2);
  uint64_t strings = rd64(e + 8), num_strings = rd64(e + 16);
  uint64_t image = rd64(e + 24), image_size = rd64(e + 32);
  if (image > total || image_size > total - image) return BAD("its image lies outside it");
  if (strings > total || num_strings > (total - strings) / 16)
    return BAD("its string map lies outside it");
  for (uint64_t i = 0; i < num_strings; ++i) {
    const char *key = string_at(blob, total, rd64(blob + strings + 16 * i));
    const char *value = string_at(blob, total, rd64(blob + strings + 16 * i + 8));
    if (!key || !value) return BAD("string %llu of its map lies outside it",
                                   (unsigned long long)i);
    if (strcmp(key, "arch") == 0) out->arch = value;
    if (strcmp(key, "triple") == 0) out->triple = value;
  }
  out->data = blob + image;
  out->size = image_size;
  return FW_OK;
}

int fw_cuda_arch_number(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0) return -1;
  char *end = NULL;
  long n = strtol(arch + 3, &end, 10);
  if (end == arch + 3 || *end || n <= 0 || n > 10000) return -1;
  return (int)n;
}

void fw_select_cuda_image(const fw_metadata_t *md, uint32_t executable, const char *device_arch,
                          int64_t *out_variant, int64_t *out_image) {
  *out_variant = *out_image = -1;
  int device = fw_cuda_arch_number(device_arch);
  if (device < 0 || executable >= md->num_executables) return;
  const fw_md_executable_t *e = &md->executables[executable];
  /* Ranks: 3 exact cubin, 2 compatible cubin (higher minor better), 1 PTX (newer better). */
  int best_rank = 0, best_arch = -1;
  for (uint32_t v = 0; v < e->num_variants; ++v) {
    uint32_t vi = e->first_variant + v;
    const fw_md_variant_t *var = &md->variants[vi];
    const fw_md_target_t *t = &md->targets[var->target];
    int arch = fw_cuda_arch_number(t->arch);
    if (var->kind != FW_VARIANT_KIND_DEVICE_IMAGE || t->kind != FW_TARGET_KIND_CUDA ||
        arch < 0 || arch > device)
      continue;
    /* The variant's own images: its cubin, and the PTX fwc writes right after it. */
    uint32_t own[2] = {var->image, var->image + 1};
    for (int j = 0; j < 2; ++j) {
      uint32_t i = own[j];
      if (var->image == FW_MD_NO_IMAGE || i >= md->num_images) continue;
      const fw_md_image_t *im = &md->images[i];
      if (im->target != var->target) continue;
      int rank = 0;
      if (j == 0 && im->format == FW_IMAGE_FORMAT_CUBIN)
        rank = arch == device ? 3 : arch / 10 == device / 10 ? 2 : 0;
      else if (j == 1 && im->format == FW_IMAGE_FORMAT_PTX)
        rank = 1;
      if (rank > best_rank || (rank == best_rank && rank > 0 && arch > best_arch)) {
        best_rank = rank;
        best_arch = arch;
        *out_variant = vi;
        *out_image = i;
      }
    }
  }
}

void fw_select_hip_image(const fw_metadata_t *md, uint32_t executable, const char *device_arch,
                         int64_t *out_variant, int64_t *out_image) {
  *out_variant = *out_image = -1;
  if (executable >= md->num_executables) return;
  /* "gfx90a:sramecc+:xnack-" runs code for "gfx90a". */
  size_t len = strcspn(device_arch, ":");
  const fw_md_executable_t *e = &md->executables[executable];
  for (uint32_t v = 0; v < e->num_variants; ++v) {
    uint32_t vi = e->first_variant + v;
    const fw_md_variant_t *var = &md->variants[vi];
    const fw_md_target_t *t = &md->targets[var->target];
    if (var->kind != FW_VARIANT_KIND_DEVICE_IMAGE || t->kind != FW_TARGET_KIND_HIP ||
        var->image == FW_MD_NO_IMAGE || var->image >= md->num_images ||
        md->images[var->image].format != FW_IMAGE_FORMAT_HSACO ||
        strlen(t->arch) != len || strncmp(t->arch, device_arch, len) != 0)
      continue;
    *out_variant = vi;
    *out_image = var->image;
    return;
  }
}
