#include <gtest/gtest.h>

#include <string>

#include "fw/runtime.h"
#include "status_internal.h"
#include "test_util.h"

TEST(Status, OkIsNull) {
  EXPECT_EQ(fw_status_code(FW_OK), FW_STATUS_OK);
  EXPECT_STREQ(fw_status_message(FW_OK), "OK");
  fw_status_free(FW_OK);  // no-op
}

TEST(Status, MakeCarriesCodeAndFormattedMessage) {
  fw_status_t s = fw_status_make(FW_STATUS_NOT_FOUND, "function @%s (%d)", "main", 3);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(fw_status_code(s), FW_STATUS_NOT_FOUND);
  EXPECT_STREQ(fw_status_message(s), "function @main (3)");
  fw_status_free(s);
}

TEST(Status, MessagesAreOneLine) {
  fw_status_t s = fw_status_make(FW_STATUS_INTERNAL, "a\nb\rc");
  EXPECT_STREQ(fw_status_message(s), "a b c");
  fw_status_free(s);
}

TEST(Status, AnnotatePrefixesAndKeepsCode) {
  fw_status_t s = fw_status_annotate(fw_status_make(FW_STATUS_DATA_LOSS, "bad"), "file %s", "x");
  EXPECT_EQ(fw_status_code(s), FW_STATUS_DATA_LOSS);
  EXPECT_STREQ(fw_status_message(s), "file x: bad");
  fw_status_free(s);
  EXPECT_EQ(fw_status_annotate(FW_OK, "nothing"), FW_OK);
}

TEST(Status, OkCodeIsNeverAnError) {
  fw_status_t s = fw_status_make(FW_STATUS_OK, "odd");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(fw_status_code(s), FW_STATUS_OK);
  fw_status_free(s);
}

TEST(Status, CodeNames) {
  EXPECT_STREQ(fw_status_code_name(FW_STATUS_DATA_LOSS), "DATA_LOSS");
  EXPECT_STREQ(fw_status_code_name((fw_status_code_t)999), "UNKNOWN");
}

TEST(ElementTypes, SizesNamesAndParse) {
  EXPECT_EQ(fw_element_type_size(FW_ELEMENT_TYPE_F32), 4u);
  EXPECT_EQ(fw_element_type_size(FW_ELEMENT_TYPE_BF16), 2u);
  EXPECT_EQ(fw_element_type_size(FW_ELEMENT_TYPE_I1), 1u);
  EXPECT_EQ(fw_element_type_size(FW_ELEMENT_TYPE_I64), 8u);
  EXPECT_EQ(fw_element_type_size((fw_element_type_t)0), 0u);
  EXPECT_EQ(fw_element_type_size((fw_element_type_t)10), 0u);
  EXPECT_EQ(fw_element_type_size((fw_element_type_t)-1), 0u);
  EXPECT_STREQ(fw_element_type_name(FW_ELEMENT_TYPE_F16), "f16");
  EXPECT_EQ(fw_element_type_parse("i16"), FW_ELEMENT_TYPE_I16);
  EXPECT_EQ(fw_element_type_parse("f128"), 0);
  EXPECT_EQ(fw_element_type_parse(nullptr), 0);
}

TEST(ElementTypes, TensorTypeFormat) {
  fw_tensor_type_t t = {FW_ELEMENT_TYPE_F32, 3, {4, -1, 784}};
  char buf[64];
  EXPECT_EQ(fw_tensor_type_format(&t, buf, sizeof(buf)), 11u);
  EXPECT_STREQ(buf, "4x?x784xf32");
  fw_tensor_type_t scalar = {FW_ELEMENT_TYPE_I1, 0, {}};
  fw_tensor_type_format(&scalar, buf, sizeof(buf));
  EXPECT_STREQ(buf, "i1");
  fw_tensor_type_format(&t, buf, 4);  // truncates, still terminated
  EXPECT_STREQ(buf, "4x?");
}
