// The execution-time history's statistics: the median and the median absolute
// deviation of the last 32 samples per (task, device kind, size class).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "history.h"

namespace {

class History : public ::testing::Test {
protected:
  void SetUp() override { fw_history_init(&h_); }
  void TearDown() override { fw_history_fini(&h_); }
  double estimate(const char *name) {
    double seconds = -1;
    EXPECT_TRUE(fw_history_estimate(&h_, name, 1, 4096, &seconds));
    return seconds;
  }
  fw_history_t h_;
};

TEST_F(History, MedianOfAnOddAndAnEvenNumberOfSamples) {
  std::vector<double> samples;
  for (int i = 1; i <= 31; ++i) samples.push_back(i * 1e-6);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(7));
  for (double s : samples) fw_history_record(&h_, "odd", 1, 4096, s, 0);
  EXPECT_DOUBLE_EQ(estimate("odd"), 16e-6);
  samples.push_back(32e-6);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(8));
  for (double s : samples) fw_history_record(&h_, "even", 1, 4096, s, 0);
  EXPECT_DOUBLE_EQ(estimate("even"), 16.5e-6);
}

TEST_F(History, OutliersDoNotMoveTheEstimate) {
  for (int i = 0; i < 64; ++i) fw_history_record(&h_, "t", 1, 4096, i % 8 == 0 ? 1.0 : 2e-6, 0);
  EXPECT_DOUBLE_EQ(estimate("t"), 2e-6);
}

TEST_F(History, RepeatedValuesAndFewSamples) {
  for (int i = 0; i < 40; ++i) fw_history_record(&h_, "same", 1, 4096, 3e-6, 0);
  EXPECT_DOUBLE_EQ(estimate("same"), 3e-6);
  double seconds = 0;
  fw_history_record(&h_, "new", 1, 4096, 1e-6, 0);
  EXPECT_FALSE(fw_history_estimate(&h_, "new", 1, 4096, &seconds)); // too few samples
  EXPECT_FALSE(fw_history_estimate(&h_, "same", 2, 4096, &seconds)); // another device kind
}

// Those who keep estimates (heft keeps the last task's) know them current while the
// generation stands still: it moves whenever an estimate or a model ratio may have
// changed, and lookups leave it alone.
TEST_F(History, TheGenerationMovesWheneverAnEstimateChanges) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> run(1e-6, 9e-6);
  double before = -1, ratio_before = -1;
  for (int i = 0; i < 2000; ++i) {
    uint64_t g = atomic_load(&h_.generation);
    fw_history_record(&h_, "g", 1, 4096, run(rng), 1e-6);
    double now = -1, ratio_now = -1;
    (void)fw_history_estimate(&h_, "g", 1, 4096, &now);
    (void)fw_history_model_ratio(&h_, "g", 1, 1 << 20, &ratio_now);
    if (now != before || ratio_now != ratio_before) {
      EXPECT_NE(atomic_load(&h_.generation), g) << "sample " << i;
    }
    before = now;
    ratio_before = ratio_now;
  }
  uint64_t g = atomic_load(&h_.generation);
  double seconds;
  for (int i = 0; i < 10; ++i) (void)fw_history_estimate(&h_, "g", 1, 4096, &seconds);
  EXPECT_EQ(atomic_load(&h_.generation), g);
}

// Size classes without samples take the device model, as far off as it was for the same
// task and kind at the nearest classes that have samples.
TEST_F(History, TheModelIsCalibratedAcrossSizeClasses) {
  double ratio = 0;
  EXPECT_FALSE(fw_history_model_ratio(&h_, "k", 1, 1 << 12, &ratio)); // nothing yet
  // Class 12: the runs took 4x the model's estimate (one outlier at 100x).
  for (int i = 0; i < 5; ++i) fw_history_record(&h_, "k", 1, 1 << 12, i ? 4e-3 : 1e-1, 1e-3);
  ASSERT_TRUE(fw_history_model_ratio(&h_, "k", 1, 1 << 20, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 4); // above: the nearest below
  ASSERT_TRUE(fw_history_model_ratio(&h_, "k", 1, 1 << 3, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 4); // below: the nearest above
  EXPECT_FALSE(fw_history_model_ratio(&h_, "k", 2, 1 << 12, &ratio)); // another kind
  EXPECT_FALSE(fw_history_model_ratio(&h_, "other", 1, 1 << 12, &ratio));
  // Class 16: 1x. Between 12 and 16, geometric interpolation; class 16 itself, its own.
  for (int i = 0; i < 3; ++i) fw_history_record(&h_, "k", 1, 1 << 16, 2e-3, 2e-3);
  ASSERT_TRUE(fw_history_model_ratio(&h_, "k", 1, 1 << 14, &ratio));
  EXPECT_NEAR(ratio, 2, 1e-12);
  ASSERT_TRUE(fw_history_model_ratio(&h_, "k", 1, 1 << 16, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 1);
  ASSERT_TRUE(fw_history_model_ratio(&h_, "k", 1, 1 << 30, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 1);
  // Runs without a model estimate count for the median, not for the ratio.
  for (int i = 0; i < 8; ++i) fw_history_record(&h_, "bare", 1, 1 << 12, 1e-3, 0);
  EXPECT_FALSE(fw_history_model_ratio(&h_, "bare", 1, 1 << 12, &ratio));
  double seconds = 0;
  EXPECT_TRUE(fw_history_estimate(&h_, "bare", 1, 1 << 12, &seconds));
  // Fewer than 3 ratios in a class: none.
  fw_history_record(&h_, "few", 1, 1 << 12, 1e-3, 1e-3);
  fw_history_record(&h_, "few", 1, 1 << 12, 1e-3, 1e-3);
  EXPECT_FALSE(fw_history_model_ratio(&h_, "few", 1, 1 << 12, &ratio));
  // The extreme size classes.
  for (int i = 0; i < 3; ++i) fw_history_record(&h_, "edge", 1, ~0ull, 3e-3, 1e-3);
  ASSERT_TRUE(fw_history_model_ratio(&h_, "edge", 1, 0, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 3);
  ASSERT_TRUE(fw_history_model_ratio(&h_, "edge", 1, ~0ull, &ratio));
  EXPECT_DOUBLE_EQ(ratio, 3);
}

// Many names and classes: the table grows while summaries are added, and every entry
// keeps its statistics.
TEST_F(History, ManyEntriesKeepTheirRatios) {
  for (int n = 0; n < 200; ++n) {
    std::string name = "task" + std::to_string(n);
    for (int c = 4; c < 8; ++c)
      for (int i = 0; i < 3; ++i)
        fw_history_record(&h_, name.c_str(), 1, 1ull << c, (n + 1) * 1e-6, 1e-6);
  }
  for (int n = 0; n < 200; ++n) {
    std::string name = "task" + std::to_string(n);
    double ratio = 0, seconds = 0;
    ASSERT_TRUE(fw_history_model_ratio(&h_, name.c_str(), 1, 1ull << 10, &ratio));
    EXPECT_NEAR(ratio, n + 1, 1e-9);
    ASSERT_TRUE(fw_history_estimate(&h_, name.c_str(), 1, 1ull << 5, &seconds));
    EXPECT_NEAR(seconds, (n + 1) * 1e-6, 1e-15);
  }
}

} // namespace
