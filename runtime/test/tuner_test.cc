// Online autotuning (tuner.h): which variants are candidates, the order trials are
// handed out in, and the choice of the fastest, with times fed in by construction.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tuner.h"

namespace {

// One executable marked for autotuning with CPU variants 0..2 of target 0, one of target 1
// (a higher ISA level) and a GPU variant; a second executable with a single CPU variant.
class Tuner : public ::testing::Test {
protected:
  void SetUp() override {
    targets_[0] = {FW_TARGET_KIND_CPU, "x86-64-v3", "", ""};
    targets_[1] = {FW_TARGET_KIND_CPU, "x86-64-v4", "", ""};
    targets_[2] = {FW_TARGET_KIND_CUDA, "sm_90", "", ""};
    uint32_t target_of[6] = {0, 0, 0, 1, 2, 0};
    for (int v = 0; v < 6; ++v) {
      variants_[v] = fw_md_variant_t();
      variants_[v].target = target_of[v];
      variants_[v].kind = target_of[v] == 2 ? FW_VARIANT_KIND_DEVICE_IMAGE : FW_VARIANT_KIND_CPU_SYMBOL;
      variants_[v].config = "";
      kernels_[v] = target_of[v] == 2 ? nullptr : reinterpret_cast<void *>(0x1000 + v);
    }
    executables_[0] = fw_md_executable_t();
    executables_[0].first_variant = 0;
    executables_[0].num_variants = 5;
    executables_[0].flags = FW_MD_EXECUTABLE_AUTOTUNE;
    executables_[1] = fw_md_executable_t();
    executables_[1].first_variant = 5;
    executables_[1].num_variants = 1;
    md_.num_targets = 3;
    md_.targets = targets_;
    md_.num_variants = 6;
    md_.variants = variants_;
    md_.num_executables = 2;
    md_.executables = executables_;
  }
  void TearDown() override { fw_tuner_fini(&tuner_); }
  // Candidates 0, 1, 2: the processor lacks variant 3's ISA level.
  void initThree() {
    kernels_[3] = nullptr;
    ASSERT_TRUE(fw_tuner_init(&tuner_, &md_, kernels_, 1));
    ASSERT_EQ(tuner_.executables[0].num_candidates, 3u);
  }

  // Runs `calls` dispatches of executable 0 at `bytes`, each taking the time `seconds`
  // gives its variant; returns how often each variant ran.
  std::map<int64_t, int> run(int calls, uint64_t bytes, std::map<int64_t, double> seconds) {
    std::map<int64_t, int> runs;
    for (int i = 0; i < calls; ++i) {
      fw_tune_state_t state;
      int64_t v = fw_tuner_pick(&tuner_, 0, bytes, &state);
      EXPECT_GE(v, 0);
      ++runs[v];
      if (state == FW_TUNE_TRIAL) fw_tuner_record(&tuner_, 0, bytes, (uint32_t)v, seconds[v]);
    }
    return runs;
  }

  fw_metadata_t md_{};
  fw_md_target_t targets_[3];
  fw_md_variant_t variants_[6];
  fw_md_executable_t executables_[2];
  void *kernels_[6];
  fw_tuner_t tuner_{};
};

TEST_F(Tuner, CandidatesAreTheLoadedCpuVariants) {
  ASSERT_TRUE(fw_tuner_init(&tuner_, &md_, kernels_, 1));
  EXPECT_EQ(tuner_.executables[0].num_candidates, 4u);
  EXPECT_EQ(tuner_.executables[0].candidates[3], 3u);
  // A single variant is nothing to tune: the caller runs it.
  EXPECT_EQ(tuner_.executables[1].num_candidates, 0u);
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 1, 4096, &state), -1);
  EXPECT_EQ(state, FW_TUNE_NONE);
}

TEST_F(Tuner, AVariantThatDidNotLoadIsNoCandidate) {
  // Variant 3 is for an ISA level this processor lacks: never loaded, never tried.
  kernels_[3] = nullptr;
  ASSERT_TRUE(fw_tuner_init(&tuner_, &md_, kernels_, 1));
  EXPECT_EQ(tuner_.executables[0].num_candidates, 3u);
  EXPECT_EQ(tuner_.executables[0].candidates[2], 2u);
}

TEST_F(Tuner, AnExecutableNotMarkedRunsItsFirstVariant) {
  // Variants for several ISA levels (fwc --targets=x86-64-v4,x86-64-v3) are not
  // candidates: the first that loaded runs.
  executables_[0].flags = 0;
  ASSERT_TRUE(fw_tuner_init(&tuner_, &md_, kernels_, 1));
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 4096, &state), -1);
  EXPECT_EQ(state, FW_TUNE_NONE);
}

TEST_F(Tuner, PicksTheFastestAfterAWarmUpAndTheTrials) {
  initThree();
  // Variant 1 is twice as fast as the others.
  std::map<int64_t, int> runs = run(18, 1 << 20, {{0, 2e-3}, {1, 1e-3}, {2, 2.5e-3}});
  EXPECT_EQ(runs[0], 1 + FW_TUNE_TRIALS);
  EXPECT_EQ(runs[1], 1 + FW_TUNE_TRIALS);
  EXPECT_EQ(runs[2], 1 + FW_TUNE_TRIALS);
  runs = run(100, 1 << 20, {});
  EXPECT_EQ(runs[1], 100);
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 1 << 20, &state), 1);
  EXPECT_EQ(state, FW_TUNE_CHOSEN);
}

TEST_F(Tuner, TheWarmUpRunDoesNotCount) {
  initThree();
  // Each candidate's first run is slow (cold caches, first touches); only the later ones
  // say which is fastest: variant 2.
  for (int round = 0; round < 1 + FW_TUNE_TRIALS; ++round)
    for (int64_t expected = 0; expected < 3; ++expected) {
      fw_tune_state_t state;
      int64_t v = fw_tuner_pick(&tuner_, 0, 4096, &state);
      ASSERT_EQ(v, expected);
      double t = round == 0 ? (v == 2 ? 9e-3 : 1e-3) : (v == 2 ? 0.5e-3 : 1e-3);
      fw_tuner_record(&tuner_, 0, 4096, (uint32_t)v, t);
    }
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 4096, &state), 2);
}

TEST_F(Tuner, OutliersDoNotDecide) {
  initThree();
  // Two preempted runs of the fastest candidate (variant 0) do not hide it: medians.
  int trial[3] = {0, 0, 0};
  for (int i = 0; i < 3 * (1 + FW_TUNE_TRIALS); ++i) {
    fw_tune_state_t state;
    int64_t v = fw_tuner_pick(&tuner_, 0, 4096, &state);
    double t = v == 0 ? (trial[0] == 2 || trial[0] == 4 ? 50e-3 : 1e-3) : 2e-3;
    ++trial[v];
    fw_tuner_record(&tuner_, 0, 4096, (uint32_t)v, t);
  }
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 4096, &state), 0);
}

TEST_F(Tuner, SizeClassesAreTunedApart) {
  initThree();
  run(18, 1 << 10, {{0, 3e-6}, {1, 2e-6}, {2, 1e-6}});
  run(18, 1 << 24, {{0, 1e-3}, {1, 2e-3}, {2, 3e-3}});
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 1 << 10, &state), 2);
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 1 << 24, &state), 0);
}

TEST_F(Tuner, TrialsWhoseRunsNeverReportAreHandedOutAgain) {
  initThree();
  // The first dispatches are handed out but none reports (failed, or still running): the
  // tuner keeps trying instead of choosing blind.
  for (int i = 0; i < 3 * (1 + FW_TUNE_TRIALS); ++i) {
    fw_tune_state_t state;
    fw_tuner_pick(&tuner_, 0, 4096, &state);
    EXPECT_EQ(state, FW_TUNE_TRIAL);
  }
  std::map<int64_t, int> runs = run(18, 4096, {{0, 3e-3}, {1, 2e-3}, {2, 1e-3}});
  EXPECT_EQ(runs.size(), 3u);
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 4096, &state), 2);
  EXPECT_EQ(state, FW_TUNE_CHOSEN);
}

TEST_F(Tuner, DisabledRunsTheFirstVariant) {
  ASSERT_TRUE(fw_tuner_init(&tuner_, &md_, kernels_, 0));
  fw_tune_state_t state;
  EXPECT_EQ(fw_tuner_pick(&tuner_, 0, 4096, &state), -1);
  EXPECT_EQ(state, FW_TUNE_NONE);
}

} // namespace
