// fw_buffer_wrap: buffers that are views of caller memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "fw/runtime.h"
#include "test_util.h"

namespace {

// Counts release callbacks and remembers the last one's arguments.
struct ReleaseLog {
  int calls = 0;
  void *data = nullptr;
  static void release(void *user_data, void *data) {
    auto *log = static_cast<ReleaseLog *>(user_data);
    ++log->calls;
    log->data = data;
  }
};

// 64-byte aligned storage that hands out pointers at a chosen offset from the alignment.
struct Storage {
  alignas(64) unsigned char bytes[1024 + 64] = {};
  float *floatsAt(size_t offset) { return reinterpret_cast<float *>(bytes + offset); }
};

class WrapTest : public ::testing::Test {
 protected:
  void SetUp() override { FW_ASSERT_OK(fw_runtime_create(nullptr, &rt_)); }
  void TearDown() override { fw_runtime_destroy(rt_); }

  fw_module_t *load(const char *flavour) {
    fw_module_t *m = nullptr;
    FW_EXPECT_OK(fw_module_load_file(rt_, fwtest::fixturePath(flavour).c_str(), &m));
    return m;
  }

  fw_runtime_t *rt_ = nullptr;
};

TEST_F(WrapTest, IsAViewWithoutCopy) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t dims[2] = {2, 3};
  ReleaseLog log;
  fw_buffer_t *b = nullptr;
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, data, sizeof(data),
                              ReleaseLog::release, &log, &b));
  EXPECT_EQ(fw_buffer_data(b), data);
  EXPECT_EQ(fw_buffer_byte_size(b), sizeof(data));
  EXPECT_EQ(fw_buffer_element_count(b), 6u);
  EXPECT_EQ(fw_buffer_dim(b, 1), 3);
  data[4] = 42;  // both directions: the buffer is the caller's memory
  EXPECT_EQ(static_cast<float *>(fw_buffer_data(b))[4], 42);
  static_cast<float *>(fw_buffer_data(b))[0] = -1;
  EXPECT_EQ(data[0], -1);
  fw_buffer_retain(b);
  fw_buffer_release(b);
  EXPECT_EQ(log.calls, 0);
  fw_buffer_release(b);
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, data);
  EXPECT_EQ(data[1], 2);  // the runtime never frees or clears caller memory
}

TEST_F(WrapTest, WithoutReleaseCallback) {
  int32_t data[4] = {1, 2, 3, 4};
  const int64_t dims[1] = {4};
  fw_buffer_t *b = nullptr;
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_I32, 1, dims, data, sizeof(data), nullptr,
                              nullptr, &b));
  fw_buffer_release(b);
  EXPECT_EQ(data[3], 4);
}

TEST_F(WrapTest, RejectsMisalignedData) {
  Storage s;
  const int64_t dims[1] = {4};
  fw_buffer_t *b = reinterpret_cast<fw_buffer_t *>(0x1);
  ReleaseLog log;
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 1, dims, s.bytes + 2, 16,
                                 ReleaseLog::release, &log, &b),
                  "is not aligned to the 4-byte elements of f32");
  EXPECT_EQ(b, nullptr);
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_I64, 1, dims, s.bytes + 4, 32,
                                 ReleaseLog::release, &log, &b),
                  "8-byte elements of i64");
  EXPECT_EQ(log.calls, 0);  // never called for a wrap that failed
  // Element alignment is all that is needed: 4 bytes past a 64-byte boundary is fine.
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 1, dims, s.bytes + 4, 16,
                              ReleaseLog::release, &log, &b));
  fw_buffer_release(b);
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_I8, 1, dims, s.bytes + 3, 4,
                              ReleaseLog::release, &log, &b));
  fw_buffer_release(b);
  EXPECT_EQ(log.calls, 2);
}

TEST_F(WrapTest, RejectsBadArguments) {
  float data[4] = {};
  const int64_t dims[2] = {2, 2};
  fw_buffer_t *b = reinterpret_cast<fw_buffer_t *>(0x1);
  ReleaseLog log;
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, data, 12,
                                 ReleaseLog::release, &log, &b),
                  "data_size 12 does not match the 16 bytes of a 2x2xf32 buffer");
  EXPECT_EQ(b, nullptr);
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, nullptr, 16,
                                 ReleaseLog::release, &log, &b),
                  "data is NULL for a 16-byte buffer");
  FW_EXPECT_ERROR(fw_buffer_wrap(nullptr, FW_ELEMENT_TYPE_F32, 2, dims, data, 16, nullptr,
                                 nullptr, &b),
                  "runtime is NULL");
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, data, 16, nullptr, nullptr,
                                 nullptr),
                  "out_buffer is NULL");
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, (fw_element_type_t)42, 2, dims, data, 16, nullptr,
                                 nullptr, &b),
                  "unknown element type");
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 9, nine, data, 4, nullptr, nullptr,
                                 &b),
                  "rank 9 exceeds");
  const int64_t negative[2] = {2, -2};
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, negative, data, 16, nullptr,
                                 nullptr, &b),
                  "negative");
  const int64_t huge[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, huge, data, 16, nullptr, nullptr,
                                 &b),
                  "overflows");
  FW_EXPECT_ERROR(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, nullptr, data, 16, nullptr,
                                 nullptr, &b),
                  "dims is NULL");
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(log.calls, 0);
}

TEST_F(WrapTest, EmptyBufferMayHaveNullData) {
  const int64_t dims[2] = {0, 4};
  ReleaseLog log;
  fw_buffer_t *b = nullptr;
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, nullptr, 0,
                              ReleaseLog::release, &log, &b));
  EXPECT_EQ(fw_buffer_byte_size(b), 0u);
  EXPECT_EQ(fw_buffer_data(b), nullptr);
  fw_buffer_release(b);
  EXPECT_EQ(log.calls, 1);
}

// The fixture's kernel computes on wrapped arguments placed 4 bytes past a 64-byte
// boundary (element alignment only), and the result is a normal runtime buffer.
TEST_F(WrapTest, KernelsComputeOnWrappedBuffers) {
  fw_module_t *m = load("add");
  ASSERT_NE(m, nullptr);
  for (int64_t rows : {1, 3, 17}) {
    Storage sa, sb;
    float *a = sa.floatsAt(4), *b = sb.floatsAt(12);
    for (int64_t i = 0; i < rows * 4; ++i) {
      a[i] = float(i);
      b[i] = 1000.0f + float(i);
    }
    const int64_t dims[2] = {rows, 4};
    size_t bytes = size_t(rows) * 4 * sizeof(float);
    ReleaseLog log;
    fw_buffer_t *args[2] = {nullptr, nullptr};
    FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, a, bytes,
                                ReleaseLog::release, &log, &args[0]));
    FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, b, bytes,
                                ReleaseLog::release, &log, &args[1]));
    fw_buffer_t *result = nullptr;
    FW_ASSERT_OK(fw_module_call(m, 0, args, 2, &result, 1));
    ASSERT_EQ(fw_buffer_dim(result, 0), rows);
    const float *r = static_cast<const float *>(fw_buffer_data(result));
    for (int64_t i = 0; i < rows * 4; ++i) EXPECT_EQ(r[i], 1000.0f + 2.0f * float(i)) << i;
    for (int64_t i = 0; i < rows * 4; ++i) EXPECT_EQ(a[i], float(i));  // read only
    fw_buffer_release(result);
    fw_buffer_release(args[0]);
    fw_buffer_release(args[1]);
    EXPECT_EQ(log.calls, 2);
  }
  fw_module_release(m);
}

// A call whose result is the wrapped argument retains it: the release callback runs
// once, when the result's reference goes too, not when the caller's does.
TEST_F(WrapTest, ReleaseWaitsForReferencesHeldByResults) {
  fw_module_t *m = load("identity");
  ASSERT_NE(m, nullptr);
  size_t identity = 0;
  FW_ASSERT_OK(fw_module_lookup_function(m, "identity", &identity));
  std::vector<float> data(8, 2.5f);
  const int64_t dims[2] = {2, 4};
  ReleaseLog log;
  fw_buffer_t *a = nullptr;
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, dims, data.data(),
                              data.size() * sizeof(float), ReleaseLog::release, &log, &a));
  fw_buffer_t *args[2] = {a, a};
  fw_buffer_t *result = nullptr;
  FW_ASSERT_OK(fw_module_call(m, identity, args, 2, &result, 1));
  EXPECT_EQ(result, a);
  EXPECT_EQ(fw_buffer_data(result), data.data());
  // A failed call retains nothing.
  const int64_t other_dims[2] = {2, 5};
  std::vector<float> other(10);
  fw_buffer_t *bad = nullptr;
  FW_ASSERT_OK(fw_buffer_wrap(rt_, FW_ELEMENT_TYPE_F32, 2, other_dims, other.data(),
                              other.size() * sizeof(float), ReleaseLog::release, &log, &bad));
  fw_buffer_t *bad_args[2] = {bad, a};
  fw_buffer_t *none = nullptr;
  FW_EXPECT_ERROR(fw_module_call(m, identity, bad_args, 2, &none, 1),
                  "expected ?x4xf32, got 2x5xf32");
  fw_buffer_release(bad);
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, other.data());

  fw_buffer_release(a);
  EXPECT_EQ(log.calls, 1);  // the result still holds a reference
  EXPECT_EQ(static_cast<float *>(fw_buffer_data(result))[7], 2.5f);
  fw_module_release(m);     // the module does not hold the buffer either
  EXPECT_EQ(log.calls, 1);
  fw_buffer_release(result);
  EXPECT_EQ(log.calls, 2);
  EXPECT_EQ(log.data, data.data());
}

}  // namespace
