#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "fw/runtime.h"
#include "test_util.h"

namespace {

class BufferTest : public ::testing::Test {
 protected:
  void SetUp() override { FW_ASSERT_OK(fw_runtime_create(nullptr, &rt_)); }
  void TearDown() override { fw_runtime_destroy(rt_); }
  fw_runtime_t *rt_ = nullptr;
};

TEST_F(BufferTest, CreateWithDataAndQuery) {
  const int64_t dims[2] = {2, 3};
  const float data[6] = {1, 2, 3, 4, 5, 6};
  fw_buffer_t *b = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 2, dims, data, sizeof(data), &b));
  EXPECT_EQ(fw_buffer_element_type(b), FW_ELEMENT_TYPE_F32);
  EXPECT_EQ(fw_buffer_rank(b), 2u);
  EXPECT_EQ(fw_buffer_dim(b, 0), 2);
  EXPECT_EQ(fw_buffer_dim(b, 1), 3);
  EXPECT_EQ(fw_buffer_dim(b, 2), -1);
  EXPECT_EQ(fw_buffer_element_count(b), 6u);
  EXPECT_EQ(fw_buffer_byte_size(b), sizeof(data));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(fw_buffer_data(b)) % 64, 0u);
  EXPECT_EQ(std::memcmp(fw_buffer_data(b), data, sizeof(data)), 0);
  void *mapped = nullptr;
  FW_EXPECT_OK(fw_buffer_map(b, &mapped));
  EXPECT_EQ(mapped, fw_buffer_data(b));
  FW_EXPECT_ERROR(fw_buffer_map(b, nullptr), "out_data is NULL");
  fw_tensor_type_t t;
  FW_EXPECT_OK(fw_buffer_type(b, &t));
  EXPECT_EQ(t.rank, 2u);
  EXPECT_EQ(t.dims[1], 3);
  fw_buffer_release(b);
}

TEST_F(BufferTest, NullDataIsZeroFilled) {
  const int64_t dims[1] = {100};
  fw_buffer_t *b = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I64, 1, dims, nullptr, 0, &b));
  const int64_t *p = static_cast<const int64_t *>(fw_buffer_data(b));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(p[i], 0);
  fw_buffer_release(b);
}

TEST_F(BufferTest, RankZeroAndEmptyBuffers) {
  fw_buffer_t *s = nullptr;
  const double v = 3.5;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F64, 0, nullptr, &v, sizeof(v), &s));
  EXPECT_EQ(fw_buffer_element_count(s), 1u);
  EXPECT_EQ(*static_cast<double *>(fw_buffer_data(s)), 3.5);
  fw_buffer_release(s);
  const int64_t dims[3] = {4, 0, 7};
  fw_buffer_t *e = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I8, 3, dims, nullptr, 0, &e));
  EXPECT_EQ(fw_buffer_element_count(e), 0u);
  EXPECT_EQ(fw_buffer_byte_size(e), 0u);
  EXPECT_NE(fw_buffer_data(e), nullptr);
  fw_buffer_release(e);
}

TEST_F(BufferTest, RetainRelease) {
  const int64_t dims[1] = {1};
  fw_buffer_t *b = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I32, 1, dims, nullptr, 0, &b));
  fw_buffer_retain(b);
  fw_buffer_release(b);
  EXPECT_EQ(fw_buffer_rank(b), 1u);  // still alive
  fw_buffer_release(b);
  fw_buffer_release(nullptr);
  fw_buffer_retain(nullptr);
}

TEST_F(BufferTest, RejectsBadArguments) {
  const int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  fw_buffer_t *b = reinterpret_cast<fw_buffer_t *>(0x1);
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 9, dims, nullptr, 0, &b),
                  "rank 9 exceeds");
  EXPECT_EQ(b, nullptr);
  FW_EXPECT_ERROR(fw_buffer_create(nullptr, FW_ELEMENT_TYPE_F32, 1, dims, nullptr, 0, &b),
                  "runtime is NULL");
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 1, dims, nullptr, 0, nullptr),
                  "out_buffer is NULL");
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 2, nullptr, nullptr, 0, &b),
                  "dims is NULL");
  FW_EXPECT_ERROR(fw_buffer_create(rt_, (fw_element_type_t)42, 1, dims, nullptr, 0, &b),
                  "unknown element type");
  const int64_t negative[2] = {2, -1};
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 2, negative, nullptr, 0, &b),
                  "negative");
  float data[2] = {1, 2};
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 1, dims, data, sizeof(data), &b),
                  "data_size 8 does not match the 4 bytes of a 1xf32 buffer");
}

TEST_F(BufferTest, RejectsOverflowingSizes) {
  fw_buffer_t *b = nullptr;
  const int64_t huge[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 2, huge, nullptr, 0, &b),
                  "overflows");
  const int64_t max1[1] = {INT64_MAX};
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I16, 1, max1, nullptr, 0, &b),
                  "overflows");
  // Overflow is reported even when another dimension is zero.
  const int64_t zero_and_huge[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 3, zero_and_huge, nullptr, 0, &b),
                  "overflows");
  EXPECT_EQ(b, nullptr);
}

TEST_F(BufferTest, AccessorsTolerateNull) {
  EXPECT_EQ(fw_buffer_rank(nullptr), 0u);
  EXPECT_EQ(fw_buffer_dim(nullptr, 0), -1);
  EXPECT_EQ(fw_buffer_data(nullptr), nullptr);
  void *data = reinterpret_cast<void *>(0x1);
  FW_EXPECT_ERROR(fw_buffer_map(nullptr, &data), "buffer is NULL");
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(fw_buffer_byte_size(nullptr), 0u);
  fw_tensor_type_t t;
  FW_EXPECT_ERROR(fw_buffer_type(nullptr, &t), "NULL");
}

TEST(Runtime, CreateDestroy) {
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(nullptr, &rt));
  fw_runtime_destroy(rt);
  fw_runtime_destroy(nullptr);
  fw_runtime_options_t options = {};
  options.flags = 0x80;
  FW_EXPECT_ERROR(fw_runtime_create(&options, &rt), "flags");
  EXPECT_EQ(rt, nullptr);
  FW_EXPECT_ERROR(fw_runtime_create(nullptr, nullptr), "NULL");
}

}  // namespace

TEST(RuntimeLifetime, BuffersOutliveTheRuntimeHandle) {
  fw_runtime_t *rt = nullptr;
  ASSERT_EQ(fw_runtime_create(nullptr, &rt), FW_OK);
  const float values[3] = {1, 2, 3};
  const int64_t dims[1] = {3};
  fw_buffer_t *b = nullptr;
  ASSERT_EQ(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, values, sizeof(values), &b),
            FW_OK);
  // Destroying the runtime first drops only the caller's reference.
  fw_runtime_destroy(rt);
  const float *data = static_cast<const float *>(fw_buffer_data(b));
  EXPECT_EQ(data[2], 3.0f);
  fw_buffer_release(b);  // frees the runtime too
}
