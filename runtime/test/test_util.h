// Shared helpers for the runtime unit tests.
#ifndef FW_RUNTIME_TEST_TEST_UTIL_H_
#define FW_RUNTIME_TEST_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fw/runtime.h"

namespace fwtest {

// A rows x cols f32 buffer holding base, base + 1, ... in row-major order.
inline fw_buffer_t *rampF32(fw_runtime_t *rt, int64_t rows, int64_t cols, float base) {
  std::vector<float> v(size_t(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = base + float(i);
  const int64_t dims[2] = {rows, cols};
  fw_buffer_t *b = nullptr;
  fw_status_t s = fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 2, dims, v.data(),
                                   v.size() * sizeof(float), &b);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  return b;
}

// Takes ownership of a status and returns its message ("" for OK).
inline std::string consume(fw_status_t s, fw_status_code_t *code = nullptr) {
  if (code) *code = fw_status_code(s);
  std::string m = s ? fw_status_message(s) : "";
  fw_status_free(s);
  return m;
}

#define FW_EXPECT_OK(expr)                                \
  do {                                                    \
    fw_status_t _s = (expr);                              \
    EXPECT_EQ(_s, nullptr) << fw_status_message(_s);      \
    fw_status_free(_s);                                   \
  } while (0)
#define FW_ASSERT_OK(expr)                                \
  do {                                                    \
    fw_status_t _s = (expr);                              \
    std::string _m = fw_status_message(_s);               \
    fw_status_free(_s);                                   \
    ASSERT_EQ(_s == nullptr, true) << _m;                 \
  } while (0)

// Expects an error whose message contains `needle` and is one line.
#define FW_EXPECT_ERROR(expr, needle)                                         \
  do {                                                                        \
    fw_status_t _s = (expr);                                                  \
    EXPECT_NE(_s, nullptr);                                                   \
    std::string _m = fwtest::consume(_s);                                     \
    EXPECT_NE(_m.find(needle), std::string::npos) << "message: " << _m;       \
    EXPECT_EQ(_m.find('\n'), std::string::npos) << "message: " << _m;        \
  } while (0)

inline std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline std::string fixturePath(const std::string &flavour, const char *ext = ".fwb") {
  return std::string(FW_FIXTURE_DIR) + "/" + flavour + ext;
}

// Deterministic xorshift PRNG for mutation loops.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed ? seed : 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

// Applies 1..4 random byte edits (XOR flips, interesting values, or a truncation).
inline void mutate(std::vector<uint8_t> &b, Rng &rng) {
  int edits = 1 + int(rng.below(4));
  for (int e = 0; e < edits && !b.empty(); ++e) {
    switch (rng.below(5)) {
    case 0:
      b.resize(rng.below(b.size()));
      break;
    case 1: {
      static const uint8_t kValues[] = {0x00, 0xFF, 0x7F, 0x80, 0x01};
      size_t at = rng.below(b.size());
      uint8_t v = kValues[rng.below(5)];
      b[at] = b[at] == v ? uint8_t(v ^ 0x55) : v;
      break;
    }
    default:
      b[rng.below(b.size())] ^= uint8_t(1 + rng.below(255));
      break;
    }
  }
}

}  // namespace fwtest

#endif
