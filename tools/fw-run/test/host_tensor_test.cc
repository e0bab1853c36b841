#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "host_tensor.h"
#include "npy.h"

namespace {

using fwrun::HostTensor;

template <typename T>
T at(const HostTensor &t, size_t i) {
  T v;
  std::memcpy(&v, &t.data[i * sizeof(T)], sizeof(T));
  return v;
}

// Against the argument's type: a dynamic dim takes any size; another type, rank or size is
// refused before the values are read (a splat of 4 TB allocates nothing).
TEST(InlineTensor, ChecksTheExpectedTypeFirst) {
  fw_tensor_type_t expected;
  std::memset(&expected, 0, sizeof(expected));
  expected.element_type = FW_ELEMENT_TYPE_F32;
  expected.rank = 2;
  expected.dims[0] = -1;
  expected.dims[1] = 3;
  HostTensor t;
  ASSERT_EQ(fwrun::parseInlineTensor("5x3xf32=1", &t, &expected), "");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(fwrun::parseInlineTensor("1000000x1000000xf32=1", &t, &expected),
            "expected ?x3xf32, got 1000000x1000000xf32");
  EXPECT_EQ(fwrun::parseInlineTensor("5x3xf64=1", &t, &expected),
            "expected ?x3xf32, got 5x3xf64");
  EXPECT_EQ(fwrun::parseInlineTensor("3xf32=1", &t, &expected), "expected ?x3xf32, got 3xf32");
  // A dynamic dim takes any size, but not more than the machine has (here 48 TB).
  std::string error = fwrun::parseInlineTensor("4000000000000x3xf32=1", &t, &expected);
  EXPECT_NE(error.find("4000000000000x3xf32 needs 48000000000000 bytes, more than this "
                       "machine's memory ("),
            std::string::npos)
      << error;
}

TEST(InlineTensor, ParsesDimsTypeAndValues) {
  HostTensor t;
  ASSERT_EQ(fwrun::parseInlineTensor("2x3xi32=1,2,3,4,5,-6", &t), "");
  EXPECT_EQ(t.type, FW_ELEMENT_TYPE_I32);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(at<int32_t>(t, 5), -6);
  ASSERT_EQ(fwrun::parseInlineTensor("4xf64=1.5 2.5, 3.5  4.5", &t), "");
  EXPECT_EQ(at<double>(t, 3), 4.5);
  ASSERT_EQ(fwrun::parseInlineTensor("f32=3.5", &t), "");
  EXPECT_TRUE(t.dims.empty());
  EXPECT_EQ(at<float>(t, 0), 3.5f);
  ASSERT_EQ(fwrun::parseInlineTensor("3x2xi8=7", &t), "");  // splat
  EXPECT_EQ(t.data, std::vector<uint8_t>(6, 7));
  ASSERT_EQ(fwrun::parseInlineTensor("3xi1=true,0,1", &t), "");
  EXPECT_EQ(t.data, (std::vector<uint8_t>{1, 0, 1}));
  ASSERT_EQ(fwrun::parseInlineTensor("2xf16=1,-2", &t), "");
  EXPECT_EQ(at<uint16_t>(t, 0), 0x3C00);
  EXPECT_EQ(at<uint16_t>(t, 1), 0xC000);
  ASSERT_EQ(fwrun::parseInlineTensor("1xbf16=1", &t), "");
  EXPECT_EQ(at<uint16_t>(t, 0), 0x3F80);
  ASSERT_EQ(fwrun::parseInlineTensor("0x4xf32=", &t), "");
  EXPECT_TRUE(t.data.empty());
}

TEST(InlineTensor, RejectsBadInput) {
  HostTensor t;
  EXPECT_NE(fwrun::parseInlineTensor("2x3xf32", &t).find("expected DIMSxTYPE=VALUES"),
            std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("2xq32=1", &t).find("unknown element type 'q32'"),
            std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("-2xf32=1", &t).find("invalid dimension"), std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("2xxf32=1", &t).find("invalid dimension"), std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("2xf32=1,x", &t).find("invalid f32 value 'x'"),
            std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("2xi8=1,300", &t).find("out of range for i8"),
            std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("2xi1=2", &t).find("invalid i1 value"), std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("3xf32=1,2", &t).find("2 values given for 3xf32"),
            std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("1x1x1x1x1x1x1x1x1xf32=1", &t).find("exceeds 8"),
            std::string::npos);
  EXPECT_NE(fwrun::parseInlineTensor("4294967296x4294967296xf32=1", &t).find("too large"),
            std::string::npos);
  // A comma with no value before it is a mistake, not a value (nor nothing).
  EXPECT_EQ(fwrun::parseInlineTensor("2xf32=1,,2", &t), "empty value after value 1 in '1,,2'");
  EXPECT_EQ(fwrun::parseInlineTensor("2xf32=1, ,2", &t), "empty value after value 1 in '1, ,2'");
  EXPECT_EQ(fwrun::parseInlineTensor("2xf32=,1,2", &t), "empty value before the first comma in ',1,2'");
  EXPECT_EQ(fwrun::parseInlineTensor("2xf32=1,2,", &t), "empty value after value 2 in '1,2,'");
  // Finite values the type cannot hold; "inf" itself is fine.
  EXPECT_EQ(fwrun::parseInlineTensor("1xf64=1e999", &t), "value '1e999' is out of range for f64");
  EXPECT_EQ(fwrun::parseInlineTensor("1xf32=1e39", &t), "value '1e39' is out of range for f32");
  EXPECT_EQ(fwrun::parseInlineTensor("1xf16=70000", &t), "value '70000' is out of range for f16");
  EXPECT_EQ(fwrun::parseInlineTensor("1xbf16=-1e39", &t), "value '-1e39' is out of range for bf16");
  EXPECT_EQ(fwrun::parseInlineTensor("2xf32=inf,-inf", &t), "");
  EXPECT_EQ(fwrun::parseInlineTensor("1xf16=65504", &t), "");
  EXPECT_EQ(fwrun::parseInlineTensor("1xf32=1e-60", &t), "");  // underflows to zero: fine
}

TEST(Half, RoundTripsAndRounds) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(fwrun::halfToFloat(fwrun::floatToHalf(f)), f) << f;
  EXPECT_TRUE(std::isinf(fwrun::halfToFloat(fwrun::floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(fwrun::halfToFloat(fwrun::floatToHalf(NAN))));
  EXPECT_EQ(fwrun::floatToHalf(1.0f + 1.0f / 4096), 0x3C00);  // ties to even
  EXPECT_EQ(fwrun::bf16ToFloat(fwrun::floatToBf16(3.0f)), 3.0f);
}

TEST(Generate, DeterministicAndInRange) {
  uint64_t s1 = 1, s2 = 1;
  HostTensor a, b, i, flags;
  ASSERT_EQ(fwrun::generateTensor(FW_ELEMENT_TYPE_F32, {4, 8}, &s1, &a), "");
  ASSERT_EQ(fwrun::generateTensor(FW_ELEMENT_TYPE_F32, {4, 8}, &s2, &b), "");
  EXPECT_EQ(a.data, b.data);
  for (size_t k = 0; k < 32; ++k) {
    EXPECT_GE(at<float>(a, k), -1.0f);
    EXPECT_LT(at<float>(a, k), 1.0f);
  }
  ASSERT_EQ(fwrun::generateTensor(FW_ELEMENT_TYPE_I64, {100}, &s1, &i), "");
  bool saw_min = false, saw_max = false;
  for (size_t k = 0; k < 100; ++k) {
    int64_t v = at<int64_t>(i, k);
    EXPECT_GE(v, -4);
    EXPECT_LE(v, 4);
    saw_min |= v == -4;
    saw_max |= v == 4;
  }
  EXPECT_TRUE(saw_min && saw_max);
  ASSERT_EQ(fwrun::generateTensor(FW_ELEMENT_TYPE_I1, {4}, &s1, &flags), "");
  EXPECT_EQ(flags.data, (std::vector<uint8_t>{0, 1, 0, 1}));
}

TEST(Format, IreeStyle) {
  HostTensor t;
  ASSERT_EQ(fwrun::parseInlineTensor("2x3xf32=1,2.5,3,4,5,0.1234567", &t), "");
  EXPECT_EQ(fwrun::formatTensor(t, 1024), "2x3xf32=[1 2.5 3][4 5 0.123457]");
  EXPECT_EQ(fwrun::formatTensor(t, 4), "2x3xf32=[1 2.5 3][4 ...");
  ASSERT_EQ(fwrun::parseInlineTensor("3xi32=1,-2,3", &t), "");
  EXPECT_EQ(fwrun::formatTensor(t, 1024), "3xi32=1 -2 3");
  ASSERT_EQ(fwrun::parseInlineTensor("2x1x2xi8=1,2,3,4", &t), "");
  EXPECT_EQ(fwrun::formatTensor(t, 1024), "2x1x2xi8=[[1 2]][[3 4]]");
  ASSERT_EQ(fwrun::parseInlineTensor("f64=3.5", &t), "");
  EXPECT_EQ(fwrun::formatTensor(t, 1024), "f64=3.5");
}

TEST(Npy, RoundTripsEveryType) {
  for (const char *text : {"2x3xf32=1,2,3,4,5,6", "4xf16=1,2,3,4", "2xf64=1e300,-2",
                           "3xi1=1,0,1", "2x2xi8=-1,2,3,4", "2xi16=-300,300",
                           "1xi32=123456", "2xi64=-5000000000,5", "i32=7", "0x3xf32="}) {
    HostTensor t, back;
    ASSERT_EQ(fwrun::parseInlineTensor(text, &t), "") << text;
    std::string bytes;
    ASSERT_EQ(fwrun::encodeNpy(t, &bytes), "") << text;
    size_t header = size_t(uint8_t(bytes[8])) | (size_t(uint8_t(bytes[9])) << 8);
    EXPECT_EQ((10 + header) % 64, 0u) << text;
    ASSERT_EQ(fwrun::parseNpy(bytes, &back), "") << text;
    EXPECT_EQ(back.type, t.type) << text;
    EXPECT_EQ(back.dims, t.dims) << text;
    EXPECT_EQ(back.data, t.data) << text;
  }
  HostTensor bf;
  ASSERT_EQ(fwrun::parseInlineTensor("1xbf16=1", &bf), "");
  std::string bytes;
  EXPECT_NE(fwrun::encodeNpy(bf, &bytes).find("bf16 cannot be written"), std::string::npos);
}

std::string npy(const std::string &dict, const std::string &data, int major = 1) {
  std::string h = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  out += char(h.size() & 0xFF);
  out += char(h.size() >> 8);
  if (major != 1) out += std::string(2, '\0');
  return out + h + data;
}

TEST(Npy, ReordersFortranOrderToRowMajor) {
  HostTensor t;
  // A 2x3 int32 array stored column by column: [[0 1 2] [3 4 5]].
  const int32_t columns[6] = {0, 3, 1, 4, 2, 5};
  std::string data(reinterpret_cast<const char *>(columns), sizeof(columns));
  ASSERT_EQ(fwrun::parseNpy(npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                                data),
                            &t),
            "");
  ASSERT_EQ(t.dims, (std::vector<int64_t>{2, 3}));
  const int32_t *rows = reinterpret_cast<const int32_t *>(t.data.data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(rows[i], i);
}

TEST(Npy, ReadsVersion2AndRejectsUnsupported) {
  HostTensor t;
  std::string four(16, '\0');
  ASSERT_EQ(fwrun::parseNpy(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                                four, 2),
                            &t),
            "");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 2}));
  auto err = [&](const std::string &dict, const std::string &data) {
    return fwrun::parseNpy(npy(dict, data), &t);
  };
  EXPECT_NE(err("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", four)
                .find("big-endian"),
            std::string::npos);
  EXPECT_NE(err("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", four)
                .find("object arrays"),
            std::string::npos);
  EXPECT_NE(err("{'descr': '<u4', 'fortran_order': False, 'shape': (2,), }", four)
                .find("unsupported .npy dtype '<u4'"),
            std::string::npos);
  EXPECT_NE(err("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four)
                .find("truncated .npy data"),
            std::string::npos);
  EXPECT_NE(err("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", four)
                .find("trailing bytes"),
            std::string::npos);
  EXPECT_NE(fwrun::parseNpy("garbage", &t).find("not a .npy file"), std::string::npos);
  EXPECT_NE(fwrun::parseNpy(std::string("\x93NUMPY\x01\x00\xff\xff", 10), &t)
                .find("truncated .npy header"),
            std::string::npos);
}

}  // namespace
