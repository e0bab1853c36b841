// Whole or divided (division.h): which executables are measured, the blocks of trials,
// the choice of the faster way, and the tries of the other way after it, with times fed
// in by construction.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "division.h"

namespace {

constexpr uint64_t kBytes = 1 << 20;

class Division : public ::testing::Test {
 protected:
  void TearDown() override { fw_division_fini(&d_); }
  // Executable 0 measured, executable 1 not.
  void init(int enabled = 1) {
    const uint8_t measured[2] = {1, 0};
    ASSERT_TRUE(fw_division_init(&d_, 2, measured, enabled));
  }
  // One run of executable 0 at `bytes`: the way picked, its time recorded (when it
  // counts) as `whole` or `divided` seconds.
  int run(double whole, double divided, uint64_t bytes = kBytes) {
    int timed = -1, trial = -1;
    int way = fw_division_pick(&d_, 0, bytes, &timed, &trial);
    EXPECT_TRUE(way == FW_DIVISION_WHOLE || way == FW_DIVISION_DIVIDED) << way;
    if (timed)
      fw_division_record(&d_, 0, bytes, (fw_division_way_t)way,
                         way == FW_DIVISION_WHOLE ? whole : divided);
    return way;
  }
  std::vector<fw_division_info_t> visit() {
    std::vector<fw_division_info_t> seen;
    fw_division_visit(
        &d_,
        [](void *user, const fw_division_info_t *info) {
          static_cast<std::vector<fw_division_info_t> *>(user)->push_back(*info);
        },
        &seen);
    return seen;
  }

  fw_division_t d_{};
};

TEST_F(Division, OnlyMeasuredExecutablesWithAutotuning) {
  init();
  int timed = 1, trial = 1;
  EXPECT_EQ(fw_division_pick(&d_, 1, kBytes, &timed, &trial), -1);
  EXPECT_EQ(timed, 0);
  EXPECT_EQ(trial, 0);
  EXPECT_EQ(fw_division_pick(&d_, 7, kBytes, &timed, &trial), -1); // no such executable
  fw_division_fini(&d_);
  init(/*enabled=*/0);
  EXPECT_EQ(fw_division_pick(&d_, 0, kBytes, &timed, &trial), -1);
  EXPECT_TRUE(visit().empty());
}

TEST_F(Division, TrialsInBlocksThenTheFasterWay) {
  init();
  // Whole: a warm-up that does not count, then the trials; then the same divided.
  std::vector<int> timed;
  for (uint32_t i = 0; i < 2 * (FW_DIVISION_TRIALS + 1); ++i) {
    int t = -1, trial = -1;
    int way = fw_division_pick(&d_, 0, kBytes, &t, &trial);
    EXPECT_EQ(way, i <= FW_DIVISION_TRIALS ? FW_DIVISION_WHOLE : FW_DIVISION_DIVIDED) << i;
    EXPECT_EQ(t, i != 0 && i != FW_DIVISION_TRIALS + 1) << i;
    EXPECT_EQ(trial, 1) << i;
    if (t)
      fw_division_record(&d_, 0, kBytes, (fw_division_way_t)way,
                         way == FW_DIVISION_WHOLE ? 2e-3 + i * 1e-6 : 1e-3);
  }
  std::vector<fw_division_info_t> seen = visit();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].decided); // chosen at the next pick
  for (int i = 0; i < 10; ++i) {
    int t = -1, trial = -1;
    EXPECT_EQ(fw_division_pick(&d_, 0, kBytes, &t, &trial), FW_DIVISION_DIVIDED);
    EXPECT_EQ(t, 1); // the chosen way's runs count too, and are no trials
    EXPECT_EQ(trial, 0);
    fw_division_record(&d_, 0, kBytes, FW_DIVISION_DIVIDED, 1e-3);
  }
  seen = visit();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].decided);
  EXPECT_TRUE(seen[0].divided);
  EXPECT_DOUBLE_EQ(seen[0].whole_seconds, 2e-3 + 1e-6); // the fastest counted run
  EXPECT_DOUBLE_EQ(seen[0].divided_seconds, 1e-3);
}

TEST_F(Division, WholeWhenNotSlower) {
  init();
  for (uint32_t i = 0; i < 2 * (FW_DIVISION_TRIALS + 1); ++i) run(1e-3, 1e-3);
  EXPECT_EQ(run(1e-3, 1e-3), FW_DIVISION_WHOLE); // a tie keeps the kernel on one worker
  std::vector<fw_division_info_t> seen = visit();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].decided);
  EXPECT_FALSE(seen[0].divided);
}

// Trials whose times have not come back yet (runs still under way) choose nothing: the
// way short of counted runs gets another block.
TEST_F(Division, NoChoiceBeforeTheTrialsAreCounted) {
  init();
  int timed, trial;
  for (uint32_t i = 0; i < FW_DIVISION_TRIALS + 1; ++i) run(1e-3, 5e-4);
  for (uint32_t i = 0; i < FW_DIVISION_TRIALS + 1; ++i) // not recorded
    EXPECT_EQ(fw_division_pick(&d_, 0, kBytes, &timed, &trial), FW_DIVISION_DIVIDED);
  EXPECT_EQ(fw_division_pick(&d_, 0, kBytes, &timed, &trial), FW_DIVISION_DIVIDED);
  EXPECT_EQ(timed, 0); // a new block's warm-up
  EXPECT_FALSE(visit()[0].decided);
  for (uint32_t i = 0; i < FW_DIVISION_TRIALS; ++i) run(1e-3, 5e-4);
  EXPECT_EQ(run(1e-3, 5e-4), FW_DIVISION_DIVIDED);
  EXPECT_TRUE(visit()[0].decided);
}

// The other way is tried again after FW_DIVISION_RECHECK runs, later each time the
// choice stands; a try that finds it faster (a measurement made while the other core
// was busy found dividing worthless) changes the choice.
TEST_F(Division, TriesTheOtherWayAgain) {
  init();
  // Dividing measured at no gain: whole.
  for (uint32_t i = 0; i < 2 * (FW_DIVISION_TRIALS + 1); ++i) run(1e-3, 1.1e-3);
  // Runs of `way` until the other comes up (at most `limit`); the other is picked.
  auto runs_until_other = [&](int way, double whole, double divided, uint32_t limit) {
    uint32_t n = 0;
    while (n < limit && run(whole, divided) == way) ++n;
    return n;
  };
  // The pick that chose and FW_DIVISION_RECHECK - 1 more, then a block divided: a
  // warm-up and FW_DIVISION_RECHECK_TRIALS counted runs.
  EXPECT_EQ(runs_until_other(FW_DIVISION_WHOLE, 1e-3, 1.1e-3, 10000), FW_DIVISION_RECHECK);
  for (uint32_t i = 0; i < FW_DIVISION_RECHECK_TRIALS; ++i)
    EXPECT_EQ(run(1e-3, 1.1e-3), FW_DIVISION_DIVIDED);
  // Still slower: the next try comes after twice as many runs, then four times...
  EXPECT_EQ(runs_until_other(FW_DIVISION_WHOLE, 1e-3, 1.1e-3, 10000), 2 * FW_DIVISION_RECHECK);
  for (uint32_t i = 0; i < FW_DIVISION_RECHECK_TRIALS; ++i)
    EXPECT_EQ(run(1e-3, 1.1e-3), FW_DIVISION_DIVIDED);
  EXPECT_EQ(runs_until_other(FW_DIVISION_WHOLE, 1e-3, 1.1e-3, 10000), 4 * FW_DIVISION_RECHECK);
  // ... and now dividing pays: the try finds it, and divided runs from then on.
  for (uint32_t i = 0; i < FW_DIVISION_RECHECK_TRIALS; ++i)
    EXPECT_EQ(run(1e-3, 4e-4), FW_DIVISION_DIVIDED);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(run(1e-3, 4e-4), FW_DIVISION_DIVIDED);
  EXPECT_TRUE(visit()[0].divided);
  EXPECT_DOUBLE_EQ(visit()[0].divided_seconds, 4e-4);
  // The next try of whole comes after FW_DIVISION_RECHECK again.
  EXPECT_EQ(runs_until_other(FW_DIVISION_DIVIDED, 1e-3, 4e-4, 10000) + 10,
            FW_DIVISION_RECHECK);
}

// Each choice compares the runs since the last one: a way that got slower for good (here
// dividing, once another process takes the core its helper ran on) loses at the next try
// of the other, though its fastest run ever stays the fastest of all.
TEST_F(Division, ChosenWayThatGotSlowerLosesAtTheNextTry) {
  init();
  for (uint32_t i = 0; i < 2 * (FW_DIVISION_TRIALS + 1); ++i) run(1e-3, 5e-4);
  uint32_t divided = 0;
  while (divided < 10000 && run(1e-3, 2e-3) == FW_DIVISION_DIVIDED) ++divided;
  EXPECT_EQ(divided, FW_DIVISION_RECHECK); // then a block whole: its warm-up was picked
  for (uint32_t i = 0; i < FW_DIVISION_RECHECK_TRIALS; ++i)
    EXPECT_EQ(run(1e-3, 2e-3), FW_DIVISION_WHOLE);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(run(1e-3, 2e-3), FW_DIVISION_WHOLE);
  std::vector<fw_division_info_t> seen = visit();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].divided);
  EXPECT_DOUBLE_EQ(seen[0].whole_seconds, 1e-3); // what the choice compared
  EXPECT_DOUBLE_EQ(seen[0].divided_seconds, 2e-3);
}

TEST_F(Division, SizeClassesApart) {
  init();
  for (uint32_t i = 0; i < 2 * (FW_DIVISION_TRIALS + 1) + 1; ++i) run(1e-3, 5e-4, kBytes);
  // Another size class starts over with its own trials.
  EXPECT_EQ(run(1e-3, 5e-4, 64 * kBytes), FW_DIVISION_WHOLE);
  EXPECT_EQ(run(1e-3, 5e-4, kBytes), FW_DIVISION_DIVIDED);
  std::vector<fw_division_info_t> seen = visit();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].decided);
  EXPECT_FALSE(seen[1].decided);
}

} // namespace
