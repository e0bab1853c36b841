// Device images: the OffloadBinary reader (every field bounds-checked) and the choice of
// image for a GPU architecture (exact cubin, compatible cubin, PTX).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "offload.h"
#include "test_util.h"

namespace {

void put16(std::vector<uint8_t> &b, size_t at, uint16_t v) {
  for (int i = 0; i < 2; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// An OffloadBinary laid out as LLVM writes it: header, entry, string map, strings, image.
std::vector<uint8_t> offloadBinary(uint16_t kind, const std::string &image) {
  const std::string strings = std::string("arch\0sm_90\0triple\0nvptx64-nvidia-cuda\0", 38);
  size_t entry = 32, map = entry + 40, text = map + 2 * 16, data = text + strings.size();
  std::vector<uint8_t> b(data + image.size());
  const uint8_t magic[4] = {0x10, 0xFF, 0x10, 0xAD};
  std::memcpy(b.data(), magic, 4);
  put32(b, 4, 1);
  put64(b, 8, b.size());
  put64(b, 16, entry);
  put64(b, 24, 40);
  put16(b, entry, kind);
  put16(b, entry + 2, 2);  // cuda
  put64(b, entry + 8, map);
  put64(b, entry + 16, 2);
  put64(b, entry + 24, data);
  put64(b, entry + 32, image.size());
  put64(b, map, text);           // "arch"
  put64(b, map + 8, text + 5);   // "sm_90"
  put64(b, map + 16, text + 11); // "triple"
  put64(b, map + 24, text + 18); // "nvptx64-nvidia-cuda"
  std::memcpy(b.data() + text, strings.data(), strings.size());
  std::memcpy(b.data() + data, image.data(), image.size());
  return b;
}

TEST(OffloadBinary, ReadsImageAndStrings) {
  std::vector<uint8_t> b = offloadBinary(FW_OFFLOAD_IMAGE_CUBIN, "\x7f" "ELF-cubin");
  fw_offload_image_t im;
  FW_ASSERT_OK(fw_offload_parse(b.data(), b.size(), &im));
  EXPECT_EQ(im.image_kind, FW_OFFLOAD_IMAGE_CUBIN);
  EXPECT_EQ(im.offload_kind, 2);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(im.data), im.size), "\x7f" "ELF-cubin");
  EXPECT_STREQ(im.arch, "sm_90");
  EXPECT_STREQ(im.triple, "nvptx64-nvidia-cuda");
}

TEST(OffloadBinary, RejectsDamage) {
  const std::vector<uint8_t> good = offloadBinary(FW_OFFLOAD_IMAGE_PTX, ".version 8.0");
  struct Case {
    const char *what;
    void (*damage)(std::vector<uint8_t> &);
    const char *error;
  };
  const Case cases[] = {
      {"magic", [](std::vector<uint8_t> &b) { b[0] = 0; }, "no OffloadBinary magic"},
      {"version", [](std::vector<uint8_t> &b) { put32(b, 4, 2); }, "version 2"},
      {"size", [](std::vector<uint8_t> &b) { put64(b, 8, b.size() + 1); }, "exceeds"},
      {"entry", [](std::vector<uint8_t> &b) { put64(b, 16, b.size()); }, "entry lies outside"},
      {"image", [](std::vector<uint8_t> &b) { put64(b, 32 + 32, b.size()); },
       "image lies outside"},
      {"map", [](std::vector<uint8_t> &b) { put64(b, 32 + 16, uint64_t(1) << 60); },
       "string map lies outside"},
      {"string", [](std::vector<uint8_t> &b) { put64(b, 72, b.size() + 5); },
       "string 0 of its map"},
      // A value that runs into the image, which has no NUL.
      {"unterminated", [](std::vector<uint8_t> &b) { put64(b, 72 + 24, b.size() - 3); },
       "string 1 of its map"},
  };
  for (const Case &c : cases) {
    std::vector<uint8_t> b = good;
    c.damage(b);
    fw_offload_image_t im;
    fw_status_t s = fw_offload_parse(b.data(), b.size(), &im);
    ASSERT_NE(s, nullptr) << c.what;
    EXPECT_NE(std::string(fw_status_message(s)).find(c.error), std::string::npos)
        << c.what << ": " << fw_status_message(s);
    fw_status_free(s);
  }
  fw_offload_image_t im;
  fw_status_t s = fw_offload_parse(good.data(), 16, &im);
  EXPECT_NE(s, nullptr);
  fw_status_free(s);
}

TEST(OffloadBinary, ArchNumbers) {
  EXPECT_EQ(fw_cuda_arch_number("sm_90"), 90);
  EXPECT_EQ(fw_cuda_arch_number("sm_100"), 100);
  EXPECT_EQ(fw_cuda_arch_number("gfx942"), -1);
  EXPECT_EQ(fw_cuda_arch_number("sm_"), -1);
  EXPECT_EQ(fw_cuda_arch_number("sm_9x"), -1);
  EXPECT_EQ(fw_cuda_arch_number(nullptr), -1);
}

// An executable with a CPU variant and sm_80 and sm_90 variants, each with a cubin and PTX.
TEST(SelectImage, ExactThenCompatibleThenPtx) {
  fw_md_target_t targets[3] = {{FW_TARGET_KIND_CPU, "x86-64", "x86_64-unknown-linux-gnu", ""},
                               {FW_TARGET_KIND_CUDA, "sm_80", "nvptx64-nvidia-cuda", ""},
                               {FW_TARGET_KIND_CUDA, "sm_90", "nvptx64-nvidia-cuda", ""}};
  fw_md_variant_t variants[3] = {{0, FW_VARIANT_KIND_CPU_SYMBOL, "k_cpu", FW_MD_NO_IMAGE, {1, 1, 1}},
                                 {1, FW_VARIANT_KIND_DEVICE_IMAGE, "k", 0, {256, 1, 1}},
                                 {2, FW_VARIANT_KIND_DEVICE_IMAGE, "k", 2, {256, 1, 1}}};
  fw_md_image_t images[4] = {{1, FW_IMAGE_FORMAT_CUBIN, 0, 8},
                             {1, FW_IMAGE_FORMAT_PTX, 8, 8},
                             {2, FW_IMAGE_FORMAT_CUBIN, 16, 8},
                             {2, FW_IMAGE_FORMAT_PTX, 24, 8}};
  fw_md_executable_t exe = {"k", 0, 0, 0, 3, 0, 0, 0};
  fw_metadata_t md;
  std::memset(&md, 0, sizeof(md));
  md.num_targets = 3;
  md.targets = targets;
  md.num_executables = 1;
  md.executables = &exe;
  md.num_variants = 3;
  md.variants = variants;
  md.num_images = 4;
  md.images = images;
  auto pick = [&](const char *arch) {
    int64_t variant = -2, image = -2;
    fw_select_cuda_image(&md, 0, arch, &variant, &image);
    return std::make_pair(variant, image);
  };
  EXPECT_EQ(pick("sm_90"), std::make_pair(int64_t(2), int64_t(2)));  // its own cubin
  EXPECT_EQ(pick("sm_80"), std::make_pair(int64_t(1), int64_t(0)));
  EXPECT_EQ(pick("sm_86"), std::make_pair(int64_t(1), int64_t(0)));  // sm_80 cubin runs
  EXPECT_EQ(pick("sm_100"), std::make_pair(int64_t(2), int64_t(3)));  // newest PTX, JIT
  EXPECT_EQ(pick("sm_89"), std::make_pair(int64_t(1), int64_t(0)));
  EXPECT_EQ(pick("sm_75"), std::make_pair(int64_t(-1), int64_t(-1)));  // nothing old enough
  EXPECT_EQ(pick("gfx942"), std::make_pair(int64_t(-1), int64_t(-1)));
  int64_t variant = 0, image = 0;
  fw_select_cuda_image(&md, 7, "sm_90", &variant, &image);  // no such executable
  EXPECT_EQ(variant, -1);
}

// Two executables for the same targets: each gets its own images, never the other's.
TEST(SelectImage, OwnImagesOnly) {
  fw_md_target_t targets[2] = {{FW_TARGET_KIND_CUDA, "sm_80", "nvptx64-nvidia-cuda", ""},
                               {FW_TARGET_KIND_CUDA, "sm_90", "nvptx64-nvidia-cuda", ""}};
  fw_md_variant_t variants[4] = {{0, FW_VARIANT_KIND_DEVICE_IMAGE, "a", 0, {256, 1, 1}},
                                 {1, FW_VARIANT_KIND_DEVICE_IMAGE, "a", 2, {256, 1, 1}},
                                 {0, FW_VARIANT_KIND_DEVICE_IMAGE, "b", 4, {256, 1, 1}},
                                 {1, FW_VARIANT_KIND_DEVICE_IMAGE, "b", 6, {256, 1, 1}}};
  fw_md_image_t images[8];
  for (uint32_t i = 0; i < 8; ++i)
    images[i] = {(i / 2) % 2, i % 2 ? FW_IMAGE_FORMAT_PTX : FW_IMAGE_FORMAT_CUBIN, 8 * i, 8};
  fw_md_executable_t exes[2] = {{"a", 0, 0, 0, 2, 0, 0, 0}, {"b", 0, 0, 2, 2, 0, 0, 0}};
  fw_metadata_t md;
  std::memset(&md, 0, sizeof(md));
  md.num_targets = 2;
  md.targets = targets;
  md.num_executables = 2;
  md.executables = exes;
  md.num_variants = 4;
  md.variants = variants;
  md.num_images = 8;
  md.images = images;
  auto pick = [&](uint32_t exe, const char *arch) {
    int64_t variant = -2, image = -2;
    fw_select_cuda_image(&md, exe, arch, &variant, &image);
    return std::make_pair(variant, image);
  };
  EXPECT_EQ(pick(1, "sm_80"), std::make_pair(int64_t(2), int64_t(4)));
  EXPECT_EQ(pick(1, "sm_86"), std::make_pair(int64_t(2), int64_t(4)));
  EXPECT_EQ(pick(1, "sm_90"), std::make_pair(int64_t(3), int64_t(6)));
  EXPECT_EQ(pick(1, "sm_100"), std::make_pair(int64_t(3), int64_t(7)));
  EXPECT_EQ(pick(0, "sm_100"), std::make_pair(int64_t(1), int64_t(3)));
}

}  // namespace
