#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fwb_reader.h"
#include "fwmd_builder.h"
#include "metadata.h"
#include "test_util.h"

namespace {

std::vector<uint8_t> fixture() {
  std::vector<uint8_t> b = fwtest::readFile(fwtest::fixturePath("add"));
  EXPECT_GT(b.size(), 1000u) << "fixture missing: " << fwtest::fixturePath("add");
  return b;
}

std::string parseError(const std::vector<uint8_t> &b) {
  fw_fwb_view_t view;
  fw_status_t s = fw_fwb_parse(b.data(), b.size(), &view);
  EXPECT_NE(s, nullptr);
  std::string m = fwtest::consume(s);
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_EQ(view.meta, nullptr);
  return m;
}

// Rewrites every occurrence of `from` in the payload (same length) and reseals.
std::vector<uint8_t> patchAndReseal(std::vector<uint8_t> b, const std::string &from,
                                    const std::string &to) {
  b.resize(b.size() - 32);
  for (size_t i = 0; i + from.size() <= b.size(); ++i)
    if (std::memcmp(&b[i], from.data(), from.size()) == 0)
      std::memcpy(&b[i], to.data(), to.size());
  return fwtest::seal(b);
}

TEST(FwbReader, Fnv1a64) {
  EXPECT_EQ(fw_fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(fw_fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fw_fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

TEST(FwbReader, AcceptsFixture) {
  std::vector<uint8_t> b = fixture();
  fw_fwb_view_t view;
  FW_ASSERT_OK(fw_fwb_parse(b.data(), b.size(), &view));
  EXPECT_EQ(view.payload, b.data());
  EXPECT_EQ(view.payload_size, b.size() - 32);
  ASSERT_NE(view.meta, nullptr);
  EXPECT_EQ(std::memcmp(view.meta, "FWMD", 4), 0);
  EXPECT_EQ(view.offload, nullptr);
  fw_metadata_t md;
  FW_ASSERT_OK(fw_metadata_parse(view.meta, view.meta_size, FW_HOST_ABI_VERSION, &md));
  EXPECT_STREQ(md.module_name, "add");
  fw_metadata_free(&md);
}

TEST(FwbReader, RejectsEmptyAndTiny) {
  EXPECT_NE(parseError({}).find("0 bytes is too small"), std::string::npos);
  EXPECT_NE(parseError(std::vector<uint8_t>(95, 0)).find("too small"), std::string::npos);
  fw_fwb_view_t view;
  FW_EXPECT_ERROR(fw_fwb_parse(nullptr, 10, &view), "NULL");
}

TEST(FwbReader, RejectsTruncated) {
  std::vector<uint8_t> b = fixture();
  for (size_t cut : {size_t(1), size_t(31), size_t(32), b.size() / 2, b.size() - 100}) {
    std::vector<uint8_t> c(b.begin(), b.end() - cut);
    EXPECT_NE(parseError(c).find("not a .fwb file"), std::string::npos) << cut;
  }
}

TEST(FwbReader, RejectsRandomBytes) {
  fwtest::Rng rng(42);
  for (size_t size : {size_t(96), size_t(4096), size_t(100000)}) {
    std::vector<uint8_t> b(size);
    for (auto &x : b) x = uint8_t(rng.next());
    EXPECT_NE(parseError(b).find("trailer magic"), std::string::npos);
  }
}

TEST(FwbReader, RejectsBadTrailer) {
  const std::vector<uint8_t> b = fixture();
  size_t t = b.size() - 32;
  auto c = b;
  c[t + 8] = 2;  // version
  EXPECT_NE(parseError(c).find("trailer version 2"), std::string::npos);
  c = b;
  fwtest::put64(c, t + 16, t - 1);  // payload_size
  EXPECT_NE(parseError(c).find("payload_size"), std::string::npos);
  c = b;
  fwtest::put64(c, t + 16, ~uint64_t(0));
  EXPECT_NE(parseError(c).find("payload_size"), std::string::npos);
}

TEST(FwbReader, RejectsBadChecksum) {
  const std::vector<uint8_t> b = fixture();
  for (size_t at : {size_t(0), size_t(17), b.size() / 2, b.size() - 33}) {
    auto c = b;
    c[at] ^= 0x10;
    EXPECT_NE(parseError(c).find("checksum mismatch"), std::string::npos) << at;
  }
  auto c = b;
  c[b.size() - 1] ^= 1;  // the checksum itself
  EXPECT_NE(parseError(c).find("checksum mismatch"), std::string::npos);
}

TEST(FwbReader, RejectsBadElfHeaders) {
  std::vector<uint8_t> payload = fixture();
  payload.resize(payload.size() - 32);
  struct Case {
    size_t at;
    uint8_t value;
    const char *message;
  } cases[] = {
      {0, 0x7E, "not an ELF file"},           {4, 1, "ELFCLASS64"},
      {5, 2, "little-endian"},                {16, 2, "ET_DYN"},
      {18, 0x28, "x86-64"},                   {58, 56, "e_shentsize"},
      {47, 0x7F, "section header table"},     {62, 0xF0, "e_shstrndx"},
  };
  for (const Case &k : cases) {
    auto c = payload;
    c[k.at] = k.value;
    EXPECT_NE(parseError(fwtest::seal(c)).find(k.message), std::string::npos) << k.message;
  }
}

TEST(FwbReader, RejectsMissingOrDuplicateMetaSection) {
  std::vector<uint8_t> b = fixture();
  EXPECT_NE(parseError(patchAndReseal(b, ".fw.meta", ".fw.xxxx")).find("no .fw.meta section"),
            std::string::npos);
  // Rename another section to .fw.meta: .comment -> .fw.meta (same length + 1 byte, use
  // the NUL): both are then called .fw.meta.
  std::vector<uint8_t> c = patchAndReseal(b, std::string(".comment\0", 9),
                                          std::string(".fw.meta\0", 9));
  std::string m = parseError(c);
  EXPECT_NE(m.find(".fw.meta"), std::string::npos) << m;
}

// Resealed mutations get past the checksum and exercise the ELF and metadata checks.
TEST(FwbReader, MutationLoopNeverCrashes) {
  std::vector<uint8_t> payload = fixture();
  payload.resize(payload.size() - 32);
  // Focus mutations on the ELF header, section headers and .fw.meta; keep the rest.
  fwtest::Rng rng(7);
  int reached_meta = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> c = payload;
    if (i % 2) {
      fwtest::mutate(c, rng);
    } else {
      size_t region = rng.below(3);
      size_t at = region == 0 ? rng.below(64)
                  : region == 1 ? c.size() - 1 - rng.below(std::min<size_t>(c.size(), 2048))
                                : rng.below(c.size());
      c[at] ^= uint8_t(1 + rng.below(255));
    }
    std::vector<uint8_t> sealed = (i % 5 == 4) ? c : fwtest::seal(c);
    std::unique_ptr<uint8_t[]> copy(new uint8_t[sealed.size() ? sealed.size() : 1]);
    if (!sealed.empty()) std::memcpy(copy.get(), sealed.data(), sealed.size());
    fw_fwb_view_t view;
    fw_status_t s = fw_fwb_parse(copy.get(), sealed.size(), &view);
    if (s != FW_OK) {
      EXPECT_EQ(std::string(fw_status_message(s)).find('\n'), std::string::npos);
      fw_status_free(s);
      continue;
    }
    ++reached_meta;
    fw_metadata_t md;
    fw_status_t ms = fw_metadata_parse(view.meta, view.meta_size, FW_HOST_ABI_VERSION, &md);
    if (ms == FW_OK) fw_metadata_free(&md);
    fw_status_free(ms);
  }
  EXPECT_GT(reached_meta, 0);
}

}  // namespace
