// The execution-time history's statistics: the median and the median absolute
// deviation of the last 32 samples per (task, device kind, size class).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
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
  for (double s : samples) fw_history_record(&h_, "odd", 1, 4096, s);
  EXPECT_DOUBLE_EQ(estimate("odd"), 16e-6);
  samples.push_back(32e-6);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(8));
  for (double s : samples) fw_history_record(&h_, "even", 1, 4096, s);
  EXPECT_DOUBLE_EQ(estimate("even"), 16.5e-6);
}

TEST_F(History, OutliersDoNotMoveTheEstimate) {
  for (int i = 0; i < 64; ++i) fw_history_record(&h_, "t", 1, 4096, i % 8 == 0 ? 1.0 : 2e-6);
  EXPECT_DOUBLE_EQ(estimate("t"), 2e-6);
}

TEST_F(History, RepeatedValuesAndFewSamples) {
  for (int i = 0; i < 40; ++i) fw_history_record(&h_, "same", 1, 4096, 3e-6);
  EXPECT_DOUBLE_EQ(estimate("same"), 3e-6);
  double seconds = 0;
  fw_history_record(&h_, "new", 1, 4096, 1e-6);
  EXPECT_FALSE(fw_history_estimate(&h_, "new", 1, 4096, &seconds)); // too few samples
  EXPECT_FALSE(fw_history_estimate(&h_, "same", 2, 4096, &seconds)); // another device kind
}

} // namespace
