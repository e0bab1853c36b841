#include <gtest/gtest.h>

#include "cpu_features.h"
#include "test_util.h"

TEST(CpuFeatures, BaselineIsAlwaysSupported) { FW_EXPECT_OK(fw_cpu_check_isa_level("x86-64")); }

TEST(CpuFeatures, LevelsAreMonotonic) {
  const char *levels[] = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
  bool previous = true;
  for (const char *level : levels) {
    fw_status_code_t code;
    fwtest::consume(fw_cpu_check_isa_level(level), &code);
    EXPECT_TRUE(code == FW_STATUS_OK || code == FW_STATUS_UNSUPPORTED) << level;
    bool supported = code == FW_STATUS_OK;
    EXPECT_TRUE(previous || !supported) << level << " supported but a lower level is not";
    previous = supported;
  }
}

TEST(CpuFeatures, UnknownLevelIsAnError) {
  FW_EXPECT_ERROR(fw_cpu_check_isa_level("x86-64-v5"), "unknown CPU ISA level");
  FW_EXPECT_ERROR(fw_cpu_check_isa_level("znver4"), "unknown CPU ISA level");
  FW_EXPECT_ERROR(fw_cpu_check_isa_level(""), "unknown CPU ISA level");
  FW_EXPECT_ERROR(fw_cpu_check_isa_level(nullptr), "NULL");
}
