// The binary interface of fw/runtime.h: the library reports the version its header had,
// and the public structs have the sizes recorded for that version. A change to a struct
// fails here until FW_RUNTIME_ABI_VERSION is raised (which renames the shared library:
// programs built against the old header are not loaded with the new one) and the sizes
// below are recorded again. Linked into the tests of both the static and the shared
// library.
#include <gtest/gtest.h>

#include <cstddef>

#include "fw/runtime.h"

namespace {

TEST(AbiTest, TheLibraryHasTheHeadersVersion) {
  EXPECT_EQ(fw_runtime_abi_version(), FW_RUNTIME_ABI_VERSION);
}

struct Size {
  const char *name;
  size_t actual, recorded;
};

#define FW_SIZE(type, bytes) Size{#type, sizeof(type), bytes}

TEST(AbiTest, PublicStructsHaveTheirRecordedSizes) {
  static_assert(FW_RUNTIME_ABI_VERSION == 10u,
                "FW_RUNTIME_ABI_VERSION changed: record the sizes of this version below");
  // x86-64 and AArch64 (LP64): the targets the library is built for.
  static_assert(sizeof(void *) == 8, "sizes recorded for LP64");
  const Size sizes[] = {
      FW_SIZE(fw_tensor_type_t, 72),      FW_SIZE(fw_runtime_options_t, 80),
      FW_SIZE(fw_target_info_t, 32),      FW_SIZE(fw_function_info_t, 48),
      FW_SIZE(fw_binding_info_t, 80),     FW_SIZE(fw_executable_info_t, 72),
      FW_SIZE(fw_variant_info_t, 48),     FW_SIZE(fw_device_report_t, 376),
      FW_SIZE(fw_image_info_t, 24),       FW_SIZE(fw_tuning_info_t, 56),
      FW_SIZE(fw_task_access_t, 16),      FW_SIZE(fw_task_desc_t, 112),
      FW_SIZE(fw_runtime_stats_t, 2400),  FW_SIZE(fw_profile_entry_t, 1544),
      FW_SIZE(fw_power_info_t, 56),       FW_SIZE(fw_profile_info_t, 656),
      FW_SIZE(fw_sim_machine_t, 16),      FW_SIZE(fw_sim_device_t, 96),
      FW_SIZE(fw_sim_report_t, 56),       FW_SIZE(fw_embedded_module_t, 40),
      FW_SIZE(fw_workgroup_t, 32),        FW_SIZE(fw_cost_term_info_t, 80),
  };
  for (const Size &s : sizes)
    EXPECT_EQ(s.actual, s.recorded)
        << s.name << " changed size: raise FW_RUNTIME_ABI_VERSION in fw/runtime.h and record "
        << "the new sizes here";
}

}  // namespace
