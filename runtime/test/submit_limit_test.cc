// Flow control of submission (fw_runtime_options_t.max_submitted_tasks, as StarPU's
// STARPU_LIMIT_MAX_SUBMITTED_TASKS): a thread that submits faster than the tasks run
// waits, under every policy, so the tasks in flight stay bounded; task bodies and
// simulations are never held back; and the options' errors.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::readU64;

constexpr size_t kN = 64;

void increment(void *, void *const *data, size_t) {
  auto *p = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < kN; ++i) p[i] += 1;
}

class SubmitLimitTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void TearDown() override { fw_runtime_destroy(rt_); }
  void create(uint32_t workers, uint32_t max, uint32_t min) {
    fw_runtime_options_t o = fwtest::taskOptions(GetParam(), workers);
    o.max_submitted_tasks = max;
    o.min_submitted_tasks = min;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  }
  size_t inFlight() const { return atomic_load(&rt_->sched.outstanding); }
  fw_runtime_stats_t stats() const {
    fw_runtime_stats_t st;
    FW_EXPECT_OK(fw_runtime_get_stats(rt_, &st));
    return st;
  }
  fw_runtime_t *rt_ = nullptr;
};

// 8 chains of 2500 tasks, submitted as fast as the thread can: with a limit of 64 (resume
// at 32) no submission returns with more than 64 tasks in flight, the submitter waited,
// and every chain ran to its end. Without a limit the same loop leaves thousands in flight.
TEST_P(SubmitLimitTest, TheTasksInFlightStayUnderTheMaximum) {
  for (uint32_t max : {0u, 64u}) {
    SCOPED_TRACE("max_submitted_tasks=" + std::to_string(max));
    fw_runtime_destroy(rt_);
    rt_ = nullptr;
    create(2, max, max / 2);
    std::vector<fw_buffer_t *> buffers;
    for (int b = 0; b < 8; ++b)
      buffers.push_back(makeU64Buffer(rt_, kN, std::vector<uint64_t>(kN, 0)));
    constexpr int kTasks = 20000;
    size_t most = 0;
    for (int i = 0; i < kTasks; ++i) {
      FW_ASSERT_OK(fwtest::submit(rt_, "inc", increment, nullptr,
                                  {{buffers[i % 8], FW_ACCESS_READ_WRITE}}));
      most = std::max(most, inFlight());
    }
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    for (fw_buffer_t *b : buffers) {
      EXPECT_EQ(readU64(b), std::vector<uint64_t>(kN, kTasks / 8));
      fw_buffer_release(b);
    }
    fw_runtime_stats_t st = stats();
    EXPECT_EQ(st.tasks_executed, uint64_t(kTasks));
    if (max) {
      EXPECT_LE(most, size_t(max));
      EXPECT_GT(st.submit_waits, 0u);
      EXPECT_GT(st.submit_wait_seconds, 0.0);
    } else {
      EXPECT_EQ(st.submit_waits, 0u);
      EXPECT_EQ(st.submit_wait_seconds, 0.0);
    }
  }
}

// A body that submits more children than the limit is not held back (its worker may be the
// one the children need: with one worker, waiting there would never end); the thread that
// waits for them all is not either, and the children all run.
TEST_P(SubmitLimitTest, TaskBodiesAreNotHeldBack) {
  create(1, 4, 0);
  static std::atomic<int> children;
  children = 0;
  struct Parent {
    fw_runtime_t *rt;
    int failed = 0;
  } parent{rt_};
  FW_ASSERT_OK(fwtest::submit(
      rt_, "parent",
      [](void *user, void *const *, size_t) {
        auto *p = static_cast<Parent *>(user);
        for (int i = 0; i < 100; ++i) {
          fw_status_t s = fwtest::submit(
              p->rt, "child", [](void *, void *const *, size_t) { children.fetch_add(1); },
              nullptr, {});
          p->failed += s != FW_OK;
          fw_status_free(s);
        }
      },
      &parent, {}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(parent.failed, 0);
  EXPECT_EQ(children.load(), 100);
}

// Tasks submitted from a release_user_data are not held back either: it runs on whichever
// thread drops the last reference, a worker as its task completes or a thread running
// tasks in a sleeping worker's place, and waiting there for tasks that need that worker
// would never end (one worker, a maximum of 4, four parents each submitting three
// children as they go).
TEST_P(SubmitLimitTest, SubmissionsFromTheRuntimesThreadsAreNotHeldBack) {
  create(1, 4, 0);
  static std::atomic<int> children;
  static fw_runtime_t *rt;
  children = 0;
  rt = rt_;
  for (int i = 0; i < 4; ++i) {
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = "parent";
    d.fn = [](void *, void *const *, size_t) { fwtest::sleepMs(2); };
    d.release_user_data = [](void *) {
      for (int c = 0; c < 3; ++c) {
        fw_status_t s = fwtest::submit(
            rt, "child", [](void *, void *const *, size_t) { children.fetch_add(1); }, nullptr,
            {});
        EXPECT_EQ(s, nullptr) << fw_status_message(s);
        fw_status_free(s);
      }
    };
    FW_ASSERT_OK(fw_task_submit(rt_, &d, nullptr));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_TRUE(fwtest::waitUntil([] { return children.load() == 12; }));
}

FW_INSTANTIATE_FOR_EVERY_POLICY(SubmitLimitTest);

// A simulation holds its tasks until it is waited for: a limit there would wait for good,
// so it does not apply.
TEST(SubmitLimitSimulationTest, ASimulationIsNotHeldBack) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(2, 10, 4);
  ASSERT_NE(rt, nullptr);
  for (int i = 0; i < 50; ++i) {
    fw_task_desc_t d = fwtest::describeTask("t", nullptr, nullptr);
    d.flops = 1e6;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  }
  fw_sim_report_t r;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &r));
  EXPECT_EQ(r.tasks, 50u);
  fw_runtime_destroy(rt);
}

fw_status_t createWith(const fw_runtime_options_t &o) {
  fw_runtime_t *rt = nullptr;
  fw_status_t s = fw_runtime_create(&o, &rt);
  fw_runtime_destroy(rt);
  return s;
}

TEST(SubmitLimitOptionsTest, ErrorsAndDefaults) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.min_submitted_tasks = 10;
  FW_EXPECT_ERROR(createWith(o), "min_submitted_tasks (10) is set without a maximum");
  o.max_submitted_tasks = 5;
  FW_EXPECT_ERROR(createWith(o), "min_submitted_tasks (10) exceeds max_submitted_tasks (5)");
  {  // each value named by where it came from
    fwtest::ScopedEnv min("FW_MIN_SUBMITTED_TASKS", "900");
    o.min_submitted_tasks = 0;
    o.max_submitted_tasks = 50;
    FW_EXPECT_ERROR(createWith(o), "FW_MIN_SUBMITTED_TASKS (900) exceeds max_submitted_tasks (50)");
  }
  o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  {
    fwtest::ScopedEnv max("FW_MAX_SUBMITTED_TASKS", "many");
    FW_EXPECT_ERROR(createWith(o), "FW_MAX_SUBMITTED_TASKS='many': expected a number");
  }
  {
    fwtest::ScopedEnv max("FW_MAX_SUBMITTED_TASKS", "1000");
    fwtest::ScopedEnv min("FW_MIN_SUBMITTED_TASKS", "-1");
    FW_EXPECT_ERROR(createWith(o), "FW_MIN_SUBMITTED_TASKS='-1': expected a number");
  }
  {
    fwtest::ScopedEnv max("FW_MAX_SUBMITTED_TASKS", "1000");
    fw_runtime_t *rt = nullptr;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt));
    EXPECT_EQ(rt->submit_max, 1000u);
    EXPECT_EQ(rt->submit_resume, 900u);  // 9/10 of it by default
    fw_runtime_destroy(rt);
    o.max_submitted_tasks = 50;  // the field wins over the environment
    o.min_submitted_tasks = 20;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt));
    EXPECT_EQ(rt->submit_max, 50u);
    EXPECT_EQ(rt->submit_resume, 20u);
    fw_runtime_destroy(rt);
  }
}

}  // namespace
