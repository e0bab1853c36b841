// Synchronous tasks (fw_task_run): submitted and waited for in one call, under every
// policy; run on the calling thread in a sleeping worker's place; ordered after the
// tasks before them; their failures; and the errors, each of which hands user_data back
// through release_user_data exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "sleeping_workers.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::readU64;

constexpr size_t kN = 256;

// data[0][i] += 1, noting the thread it ran on.
struct Increment {
  std::thread::id thread;
  int runs = 0;
};

void increment(void *user, void *const *data, size_t num) {
  auto *inc = static_cast<Increment *>(user);
  inc->thread = std::this_thread::get_id();
  ++inc->runs;
  ASSERT_EQ(num, 1u);
  auto *p = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < kN; ++i) p[i] += 1;
}

using fwtest::describeTask;

class TaskRunTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void TearDown() override { fw_runtime_destroy(rt_); }
  void create(uint32_t workers) {
    fw_runtime_destroy(rt_);
    rt_ = nullptr;
    fw_runtime_options_t o = fwtest::taskOptions(GetParam(), workers);
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  }
  fw_runtime_t *rt_ = nullptr;
};

// With the workers asleep, each synchronous task runs on the calling thread (no worker is
// woken for it: nothing else is ready), and is counted in tasks_by_waiters; with
// FW_CALLER_RUNS=0 a worker runs every one. Either way the buffer ends as the tasks left it.
TEST_P(TaskRunTest, OnSleepingWorkersItRunsOnTheCallingThread) {
  for (const char *caller_runs : {"1", "0"}) {
    SCOPED_TRACE(std::string("FW_CALLER_RUNS=") + caller_runs);
    {
      fwtest::ScopedEnv spin("FW_SPIN_US", "0");  // idle workers sleep at once
      fwtest::ScopedEnv runs("FW_CALLER_RUNS", caller_runs);
      create(2);
    }
    fw_buffer_t *a = makeU64Buffer(rt_, kN, std::vector<uint64_t>(kN, 5));
    ASSERT_NE(a, nullptr);
    constexpr int kTasks = 20;
    int on_caller = 0;
    for (int i = 0; i < kTasks; ++i) {
      ASSERT_TRUE(fwtest::cpuWorkersAsleep(rt_));
      Increment inc;
      std::vector<fw_task_access_t> acc = {{a, FW_ACCESS_READ_WRITE}};
      fw_task_desc_t d = describeTask("inc", increment, &inc, acc);
      FW_ASSERT_OK(fw_task_run(rt_, &d));
      EXPECT_EQ(inc.runs, 1);  // done when fw_task_run returns
      on_caller += inc.thread == std::this_thread::get_id();
    }
    EXPECT_EQ(readU64(a), std::vector<uint64_t>(kN, 5 + kTasks));
    fw_buffer_release(a);
    fw_runtime_stats_t st;
    FW_ASSERT_OK(fw_runtime_get_stats(rt_, &st));
    EXPECT_EQ(st.devices[0].tasks, uint64_t(kTasks));
    EXPECT_EQ(st.tasks_by_waiters, uint64_t(on_caller));
    EXPECT_EQ(on_caller, caller_runs[0] == '1' ? kTasks : 0);
  }
}

// A synchronous task is ordered after the tasks submitted before it on its buffers and
// those it names in `after`, and returns once it ran, whatever was running.
TEST_P(TaskRunTest, RunsAfterTheTasksBeforeIt) {
  create(2);
  fw_buffer_t *a = makeU64Buffer(rt_, kN, std::vector<uint64_t>(kN, 0));
  ASSERT_NE(a, nullptr);
  static std::atomic<int> slow_done;
  slow_done = 0;
  fw_task_t *slow = nullptr;  // writes nothing the synchronous task reads: an `after` edge
  FW_ASSERT_OK(fwtest::submit(
      rt_, "slow", [](void *, void *const *, size_t) {
        fwtest::sleepMs(30);
        slow_done = 1;
      },
      nullptr, {}, &slow));
  FW_ASSERT_OK(fwtest::submit(
      rt_, "fill", [](void *, void *const *data, size_t) {
        fwtest::sleepMs(30);
        auto *p = static_cast<uint64_t *>(data[0]);
        for (size_t i = 0; i < kN; ++i) p[i] = 40;
      },
      nullptr, {{a, FW_ACCESS_WRITE}}));
  Increment inc;
  std::vector<fw_task_access_t> acc = {{a, FW_ACCESS_READ_WRITE}};
  fw_task_desc_t d = describeTask("inc", increment, &inc, acc);
  d.after = &slow;
  d.num_after = 1;
  FW_ASSERT_OK(fw_task_run(rt_, &d));
  EXPECT_EQ(slow_done.load(), 1);
  EXPECT_EQ(inc.runs, 1);
  fw_task_release(slow);
  EXPECT_EQ(readU64(a), std::vector<uint64_t>(kN, 41));
  fw_buffer_release(a);
}

// Its failure is returned, and reported by fw_runtime_wait_all too (as a submitted task's
// is); a task cancelled by a failed writer before it returns that writer's error.
TEST_P(TaskRunTest, ReturnsTheTasksError) {
  create(2);
  fw_buffer_t *a = makeU64Buffer(rt_, kN);
  ASSERT_NE(a, nullptr);
  std::vector<fw_task_access_t> acc = {{a, FW_ACCESS_WRITE}};
  fw_task_desc_t d = describeTask(
      "parse",
      [](void *, void *const *, size_t) {
        FW_EXPECT_OK(fw_task_fail(fw_status_create(FW_STATUS_DATA_LOSS, "bad header")));
      },
      nullptr, acc);
  FW_EXPECT_ERROR(fw_task_run(rt_, &d), "task @parse: bad header");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "task @parse: bad header");
  Increment inc;
  acc = {{a, FW_ACCESS_READ_WRITE}};
  d = describeTask("inc", increment, &inc, acc);
  FW_EXPECT_ERROR(fw_task_run(rt_, &d), "task @parse: bad header");  // reads the garbage
  EXPECT_EQ(inc.runs, 0);
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "bad header");
  fw_buffer_release(a);
}

// Errors, before anything runs: each calls release_user_data once (fw_task_run always
// takes user_data over), and a refused call from a task body submits nothing.
std::atomic<int> released{0};
void countRelease(void *) { released.fetch_add(1); }

TEST_P(TaskRunTest, ErrorsReleaseTheUserDataOnce) {
  create(1);
  fw_task_desc_t d = describeTask("nothing", nullptr, nullptr);  // no function
  d.release_user_data = countRelease;
  released = 0;
  FW_EXPECT_ERROR(fw_task_run(rt_, &d), "task 'nothing' has no function");
  EXPECT_EQ(released, 1);
  d.fn = [](void *, void *const *, size_t) {};
  FW_EXPECT_ERROR(fw_task_run(nullptr, &d), "runtime is NULL");
  EXPECT_EQ(released, 2);
  FW_EXPECT_ERROR(fw_task_run(rt_, nullptr), "desc is NULL");
  // From a body: refused, nothing submitted, user_data released.
  struct Inner {
    fw_runtime_t *rt;
    std::string error;
  } inner{rt_, ""};
  fw_task_desc_t outer = describeTask(
      "outer",
      [](void *user, void *const *, size_t) {
        auto *in = static_cast<Inner *>(user);
        fw_task_desc_t nested = describeTask("nested", [](void *, void *const *, size_t) {},
                                         nullptr, {});
        nested.release_user_data = countRelease;
        fw_status_t s = fw_task_run(in->rt, &nested);
        in->error = s ? fw_status_message(s) : "";
        fw_status_free(s);
      },
      &inner, {});
  FW_ASSERT_OK(fw_task_run(rt_, &outer));
  EXPECT_NE(inner.error.find("fw_task_run from the body of task 'outer'"), std::string::npos)
      << inner.error;
  EXPECT_EQ(released, 3);
  fw_runtime_stats_t st;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &st));
  EXPECT_EQ(st.devices[0].tasks, 1u);  // the outer one only
  // Once it ran, the runtime releases user_data as for any task (from whichever thread
  // drops the last reference: maybe a worker's, just after fw_task_run returned).
  FW_ASSERT_OK(fw_task_run(rt_, &d));
  EXPECT_TRUE(fwtest::waitUntil([] { return released.load() == 4; }));
  EXPECT_EQ(released.load(), 4);
}

// In a simulation a synchronous task runs in virtual time, as a submission followed by a
// wait does: the simulation runs everything held so far.
TEST(TaskRunSimulationTest, RunsInVirtualTime) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(1, 1);
  ASSERT_NE(rt, nullptr);
  fw_task_desc_t d = describeTask("costly", nullptr, nullptr);
  d.flops = 2e9;  // 2 s at 1 GFLOP/s
  FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  FW_ASSERT_OK(fw_task_run(rt, &d));
  fw_sim_report_t r;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &r));
  EXPECT_EQ(r.tasks, 2u);
  EXPECT_NEAR(r.makespan_seconds, 4.0, 1e-9);
  fw_runtime_destroy(rt);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(TaskRunTest);

}  // namespace
