// fw_module_call_async: the same results as fw_module_call, completion queries, and
// ordering against tasks of fw_task_submit on the same buffers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "division.h"
#include "fw/runtime.h"
#include "sleeping_workers.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

class AsyncCallTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void SetUp() override {
    fw_runtime_options_t o = fwtest::taskOptions(GetParam(), 2);
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
    FW_ASSERT_OK(fw_module_load_file(rt_, fwtest::fixturePath("add").c_str(), &module_));
  }
  void TearDown() override {
    fw_module_release(module_);
    fw_runtime_destroy(rt_);
  }

  fw_buffer_t *tensor(int64_t rows, float base) { return fwtest::rampF32(rt_, rows, 4, base); }

  // A C task that holds `buffer` until the test opens the gate, then writes 100 to its
  // first element.
  struct Gate {
    std::atomic<bool> open{false}, held{true};
  };
  void submitGate(fw_buffer_t *buffer, Gate *gate) {
    FW_ASSERT_OK(fwtest::submit(
        rt_, "gate",
        [](void *user, void *const *data, size_t) {
          auto *g = static_cast<Gate *>(user);
          fwtest::waitUntil([&] { return g->open.load(); });
          static_cast<float *>(data[0])[0] = 100.0f;
          g->held = false;
        },
        gate, {{buffer, FW_ACCESS_READ_WRITE}}));
  }

  static std::vector<float> contents(fw_buffer_t *b) {
    const auto *p = static_cast<const float *>(fw_buffer_data(b));
    EXPECT_NE(p, nullptr);
    if (!p) return {};
    return std::vector<float>(p, p + fw_buffer_element_count(b));
  }

  fw_runtime_t *rt_ = nullptr;
  fw_module_t *module_ = nullptr;
};

TEST_P(AsyncCallTest, SameResultsAsTheSynchronousCall) {
  for (int64_t rows : {0, 1, 3, 100}) {
    fw_buffer_t *args[2] = {tensor(rows, 1), tensor(rows, 500)};
    fw_buffer_t *sync = nullptr;
    FW_ASSERT_OK(fw_module_call(module_, 0, args, 2, &sync, 1));
    fw_call_t *call = nullptr;
    FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &call));
    ASSERT_NE(call, nullptr);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!fw_call_is_done(call) && std::chrono::steady_clock::now() < deadline)
      fwtest::sleepMs(1);
    EXPECT_EQ(fw_call_is_done(call), 1);
    fw_buffer_t *async = reinterpret_cast<fw_buffer_t *>(0x1);
    FW_ASSERT_OK(fw_call_wait(call, &async, 1));
    ASSERT_NE(async, nullptr);
    EXPECT_NE(async, sync);
    EXPECT_EQ(fw_buffer_dim(async, 0), rows);
    EXPECT_EQ(contents(async), contents(sync));
    fw_buffer_release(async);
    fw_buffer_release(sync);
    fw_buffer_release(args[0]);
    fw_buffer_release(args[1]);
  }
}

TEST_P(AsyncCallTest, ManyCallsInFlight) {
  constexpr int kCalls = 16;
  std::vector<fw_call_t *> calls(kCalls);
  std::vector<fw_buffer_t *> inputs;
  for (int i = 0; i < kCalls; ++i) {
    fw_buffer_t *args[2] = {tensor(8, float(i)), tensor(8, float(100 * i))};
    FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &calls[i]));
    // The call holds its own references to the arguments.
    fw_buffer_release(args[0]);
    fw_buffer_release(args[1]);
  }
  for (int i = 0; i < kCalls; ++i) {
    fw_buffer_t *r = nullptr;
    FW_ASSERT_OK(fw_call_wait(calls[i], &r, 1));
    std::vector<float> got = contents(r);
    ASSERT_EQ(got.size(), 32u);
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_EQ(got[k], float(i) + float(100 * i) + 2.0f * float(k)) << i << " " << k;
    fw_buffer_release(r);
  }
}

// Application threads that call the module at once, each in a loop of short calls, half
// of them asynchronous (the waits poll before they sleep): every call gets its own
// inputs' sum, whichever thread its tasks complete on and whichever waiter sees them
// first; fw_runtime_tsan_test runs it under ThreadSanitizer.
TEST_P(AsyncCallTest, CallsFromSeveralThreadsAtOnce) {
  constexpr int kThreads = 4, kCalls = 60;
  std::vector<int> wrong(kThreads, 0), failed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) {
        float base = float(1000 * t + c);
        fw_buffer_t *args[2] = {tensor(1 + c % 5, base), tensor(1 + c % 5, -2 * base)};
        fw_buffer_t *r = nullptr;
        fw_status_t s;
        if (c % 2 == 0) { // synchronous, or asynchronous then waited for
          s = fw_module_call(module_, 0, args, 2, &r, 1);
        } else {
          fw_call_t *call = nullptr;
          s = fw_module_call_async(module_, 0, args, 2, &call);
          if (s == FW_OK) s = fw_call_wait(call, &r, 1);
        }
        if (s != FW_OK) {
          ++failed[t];
          fw_status_free(s);
        } else {
          // a[k] + b[k] = (base + k) + (-2 base + k)
          std::vector<float> got = contents(r);
          for (size_t k = 0; k < got.size(); ++k)
            wrong[t] += got[k] != -base + 2.0f * float(k);
          wrong[t] += got.size() != size_t(4 * (1 + c % 5));
        }
        fw_buffer_release(r);
        fw_buffer_release(args[0]);
        fw_buffer_release(args[1]);
      }
    });
  }
  for (auto &thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t;
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
  }
}

// The call returns once its task is submitted, not once it ran: here the task waits
// behind a C task that holds its input until the test opens a gate, after the call
// returned; the call then reads what that task wrote.
TEST_P(AsyncCallTest, ReturnsBeforeItsTasksRun) {
  fw_buffer_t *a = tensor(4, 0), *b = tensor(4, 0);
  Gate gate;
  submitGate(a, &gate);
  fw_buffer_t *args[2] = {a, b};
  fw_call_t *call = nullptr;
  FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &call));
  EXPECT_TRUE(gate.held.load());
  EXPECT_EQ(fw_call_is_done(call), 0);
  gate.open = true;
  fw_buffer_t *r = nullptr;
  FW_ASSERT_OK(fw_call_wait(call, &r, 1));
  std::vector<float> got = contents(r);
  ASSERT_EQ(got.size(), 16u);
  EXPECT_EQ(got[0], 100.0f);  // the gate's write, plus b[0] = 0
  fw_buffer_release(r);
  fw_buffer_release(a);
  fw_buffer_release(b);
}

// A dispatch `after` a token waits for that token's task in the graph, not in the host
// code: the call returns while the first dispatch waits behind a C task holding its input,
// and the second, which shares no written buffer with it, does not run before it.
TEST_P(AsyncCallTest, ADispatchAfterATokenIsAnEdgeNotAWait) {
  fw_module_t *multi = nullptr;
  FW_ASSERT_OK(fw_module_load_file(rt_, fwtest::fixturePath("multi").c_str(), &multi));
  size_t index = 0;
  FW_ASSERT_OK(fw_module_lookup_function(multi, "add_after", &index));
  fw_buffer_t *a = tensor(4, 0), *b = tensor(4, 10);
  Gate gate;
  submitGate(a, &gate);
  fw_buffer_t *args[2] = {a, b};
  fw_call_t *call = nullptr;
  FW_ASSERT_OK(fw_module_call_async(multi, index, args, 2, &call));  // returns: no host wait
  fwtest::sleepMs(50);  // time for the second dispatch to run, were it not ordered
  fw_runtime_stats_t st;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &st));
  EXPECT_EQ(st.devices[0].tasks, 0u);  // the gate holds the first, the edge the second
  gate.open = true;
  fw_buffer_t *r = nullptr;
  FW_ASSERT_OK(fw_call_wait(call, &r, 1));
  std::vector<float> got = contents(r);
  ASSERT_EQ(got.size(), 16u);
  EXPECT_EQ(got[0], 110.0f);  // the gate's write plus b[0]
  EXPECT_EQ(got[15], 15.0f + 25.0f);
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &st));
  EXPECT_EQ(st.devices[0].tasks, 3u);
  fw_buffer_release(r);
  fw_buffer_release(a);
  fw_buffer_release(b);
  fw_module_release(multi);
}

// A synchronous call that finds the workers asleep runs its task on the calling thread,
// and no worker is woken for it (fw_scheduler_release_held spares the wake-up: nothing
// races the caller for the task); with FW_CALLER_RUNS=0 a worker runs every one.
TEST_P(AsyncCallTest, ASynchronousCallOnSleepingWorkersRunsOnTheCallingThread) {
  for (const char *caller_runs : {"1", "0"}) {
    SCOPED_TRACE(std::string("FW_CALLER_RUNS=") + caller_runs);
    fw_runtime_t *rt = nullptr;
    fw_module_t *module = nullptr;
    {
      fwtest::ScopedEnv spin("FW_SPIN_US", "0");  // idle workers sleep at once
      fwtest::ScopedEnv runs("FW_CALLER_RUNS", caller_runs);
      fw_runtime_options_t o = fwtest::taskOptions(GetParam(), 2);
      FW_ASSERT_OK(fw_runtime_create(&o, &rt));
    }
    FW_ASSERT_OK(fw_module_load_file(rt, fwtest::fixturePath("add").c_str(), &module));
    constexpr int kCalls = 20;
    for (int c = 0; c < kCalls; ++c) {
      ASSERT_TRUE(fwtest::cpuWorkersAsleep(rt));
      fw_buffer_t *args[2] = {fwtest::rampF32(rt, 2, 4, float(c)), fwtest::rampF32(rt, 2, 4, 0)};
      fw_buffer_t *r = nullptr;
      FW_ASSERT_OK(fw_module_call(module, 0, args, 2, &r, 1));
      const auto *p = static_cast<const float *>(fw_buffer_data(r));
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(p[7], float(c) + 14.0f);
      fw_buffer_release(r);
      fw_buffer_release(args[0]);
      fw_buffer_release(args[1]);
    }
    fw_runtime_stats_t st;
    FW_ASSERT_OK(fw_runtime_get_stats(rt, &st));
    EXPECT_EQ(st.devices[0].tasks, uint64_t(kCalls));
    EXPECT_EQ(st.tasks_by_waiters, caller_runs[0] == '1' ? uint64_t(kCalls) : 0u);
    fw_module_release(module);
    fw_runtime_destroy(rt);
  }
}

TEST_P(AsyncCallTest, OrderedAfterTasksOnTheSameBuffers) {
  fw_buffer_t *a = tensor(16, 0), *b = tensor(16, 0);
  // A slow C task writes `a`; the call's kernel must read what it wrote.
  FW_ASSERT_OK(fwtest::submit(
      rt_, "slow-writer",
      [](void *, void *const *data, size_t) {
        fwtest::sleepMs(30);
        float *p = static_cast<float *>(data[0]);
        for (int i = 0; i < 64; ++i) p[i] = 7.0f;
      },
      nullptr, {{a, FW_ACCESS_WRITE}}));
  fw_buffer_t *args[2] = {a, b};
  fw_call_t *call = nullptr;
  FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &call));
  fw_buffer_t *r = nullptr;
  FW_ASSERT_OK(fw_call_wait(call, &r, 1));
  std::vector<float> got = contents(r);
  ASSERT_EQ(got.size(), 64u);
  for (size_t k = 0; k < 64; ++k) EXPECT_EQ(got[k], 7.0f + float(k)) << k;
  // And a C task on the result sees the call's output.
  FW_ASSERT_OK(fwtest::submit(
      rt_, "double",
      [](void *, void *const *data, size_t) {
        float *p = static_cast<float *>(data[0]);
        for (int i = 0; i < 64; ++i) p[i] *= 2;
      },
      nullptr, {{r, FW_ACCESS_READ_WRITE}}));
  got = contents(r);
  for (size_t k = 0; k < 64; ++k) EXPECT_EQ(got[k], 2 * (7.0f + float(k))) << k;
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  fw_buffer_release(r);
  fw_buffer_release(a);
  fw_buffer_release(b);
}

TEST_P(AsyncCallTest, Errors) {
  fw_buffer_t *args[2] = {tensor(2, 0), tensor(3, 0)};
  fw_call_t *call = nullptr;
  // Validation errors come from fw_module_call_async itself.
  FW_EXPECT_ERROR(fw_module_call_async(module_, 0, args, 1, &call), "@add expects 2 arguments");
  EXPECT_EQ(call, nullptr);
  FW_EXPECT_ERROR(fw_module_call_async(module_, 5, args, 2, &call), "out of range");
  FW_EXPECT_ERROR(fw_module_call_async(module_, 0, args, 2, nullptr), "out_call is NULL");
  // Errors of the host code come from fw_call_wait (the fixture asserts equal rows).
  FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &call));
  fw_buffer_t *r = reinterpret_cast<fw_buffer_t *>(0x1);
  FW_EXPECT_ERROR(fw_call_wait(call, &r, 1), "dimension 0 of the operands differs");
  EXPECT_EQ(r, nullptr);
  // Room for the wrong number of results: an error, and the call is still freed.
  fw_buffer_t *same[2] = {args[0], args[0]};
  FW_ASSERT_OK(fw_module_call_async(module_, 0, same, 2, &call));
  fw_buffer_t *two[2];
  FW_EXPECT_ERROR(fw_call_wait(call, two, 2), "returns 1 results, got room for 2");
  EXPECT_EQ(fw_call_is_done(nullptr), 1);
  FW_EXPECT_ERROR(fw_call_wait(nullptr, nullptr, 0), "call is NULL");
  fw_buffer_release(args[0]);
  fw_buffer_release(args[1]);
}

// A detached call finishes on its own: fw_runtime_wait_all waits for it, its references
// go when it is done (the AddressSanitizer build checks for leaks), and the first error of
// one goes to fw_runtime_wait_all.
TEST_P(AsyncCallTest, DetachedCallsFinishOnTheirOwn) {
  fw_buffer_t *args[2] = {tensor(64, 1), tensor(64, 2)};
  for (int i = 0; i < 8; ++i) {
    fw_call_t *call = nullptr;
    FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &call));
    fw_call_detach(call);
  }
  fw_call_detach(nullptr);
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  fw_buffer_t *bad[2] = {args[0], tensor(3, 0)};
  fw_call_t *call = nullptr;
  FW_ASSERT_OK(fw_module_call_async(module_, 0, bad, 2, &call));
  fw_call_detach(call);
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_),
                  "in @add (detached): in @add: assertion failed: dimension 0 of the operands");
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));  // reported once
  fw_buffer_release(bad[1]);
  fw_buffer_release(args[0]);
  fw_buffer_release(args[1]);
}

// From a task body a call is refused before anything is submitted: a compiled function's
// host code waits for its tasks before it returns, which a body cannot.
struct BodyCall {
  fw_runtime_t *rt;
  fw_module_t *module;
  fw_buffer_t *args[2];
  int in_body = 0;
  std::string async_error, sync_error;
};

void callFromBody(void *user, void *const *, size_t) {
  auto *b = static_cast<BodyCall *>(user);
  b->in_body = fw_runtime_in_task_body(b->rt);
  fw_call_t *call = nullptr;
  fw_status_t s = fw_module_call_async(b->module, 0, b->args, 2, &call);
  b->async_error = s ? fw_status_message(s) : "";
  fw_status_free(s);
  fw_call_detach(call);  // NULL: nothing
  fw_buffer_t *r = nullptr;
  s = fw_module_call(b->module, 0, b->args, 2, &r, 1);
  b->sync_error = s ? fw_status_message(s) : "";
  fw_status_free(s);
}

TEST_P(AsyncCallTest, CallsFromATaskBodyAreRefused) {
  BodyCall b;
  b.rt = rt_;
  b.module = module_;
  b.args[0] = tensor(16, 1);
  b.args[1] = tensor(16, 2);
  EXPECT_EQ(fw_runtime_in_task_body(rt_), 0);
  FW_ASSERT_OK(fwtest::submit(rt_, "caller", callFromBody, &b, {}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(b.in_body, 1);
  EXPECT_NE(b.async_error.find("fw_module_call_async from the body of task 'caller'"),
            std::string::npos) << b.async_error;
  EXPECT_NE(b.sync_error.find("fw_module_call from the body of task 'caller'"),
            std::string::npos) << b.sync_error;
  fw_buffer_release(b.args[0]);
  fw_buffer_release(b.args[1]);
}

// A kernel that divides its work runs as one workgroup per CPU worker, concurrently on
// the idle ones, each row written once; many calls at a time share the workers. A small
// one runs whole (one workgroup): the device model expects the fixture's kernel (three
// buffers of rows x 4 floats, 48 bytes a row, at the CPU's nominal 8 GB/s) to take
// FW_SPLIT_MIN_SECONDS (5 us) from about 834 rows on. From there, with autotuning off, it
// runs divided; with it on, whole or divided as the runtime's measurement of both ways
// has it (division.h), which after enough calls has chosen for the size class.
TEST_P(AsyncCallTest, WorkgroupsCoverTheKernelOnce) {
  fw_module_release(module_);
  fw_runtime_destroy(rt_);
  module_ = nullptr;
  rt_ = nullptr;
  constexpr uint32_t kWorkers = 4;
  for (bool autotune : {false, true}) {
    fw_runtime_options_t o = fwtest::taskOptions(GetParam(), kWorkers);
    if (!autotune) o.flags |= FW_RUNTIME_NO_AUTOTUNE;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
    FW_ASSERT_OK(fw_module_load_file(rt_, fwtest::fixturePath("split").c_str(), &module_));
    std::map<float, int> ways; // workgroups -> calls of 20000 rows that ran so
    for (int64_t rows : {0, 1, 3, 800, 1000, 20000}) {
      fw_buffer_t *args[2] = {tensor(rows, 1), tensor(rows, 500)};
      // Enough calls of the largest for both ways' trials (2 x 6 runs) and more.
      std::vector<fw_call_t *> calls(rows == 20000 ? 40 : 8);
      for (fw_call_t *&call : calls)
        FW_ASSERT_OK(fw_module_call_async(module_, 0, args, 2, &call));
      for (fw_call_t *call : calls) {
        fw_buffer_t *out = nullptr;
        FW_ASSERT_OK(fw_call_wait(call, &out, 1));
        std::vector<float> got = contents(out);
        ASSERT_EQ(got.size(), size_t(rows * 4));
        // Every row written once; the kernel adds 1000 per workgroup of its launch.
        float workgroups = got.empty() ? 1.0f : (got[0] - 1 - 500) / 1000.0f;
        if (rows < 1000 || !autotune)
          ASSERT_EQ(workgroups, rows >= 1000 ? float(kWorkers) : 1.0f) << rows;
        else
          ASSERT_TRUE(workgroups == 1.0f || workgroups == float(kWorkers)) << workgroups;
        if (rows == 20000) ++ways[workgroups];
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(got[i], 1 + 500 + 2 * float(i) + 1000.0f * workgroups) << rows << " " << i;
        fw_buffer_release(out);
      }
      fw_buffer_release(args[0]);
      fw_buffer_release(args[1]);
    }
    // What the runtime measured: nothing with autotuning off; with it on, both ways of
    // the size classes from 1000 rows on, and a choice for that of 20000.
    std::vector<fw_division_info_t> seen;
    FW_ASSERT_OK(fw_module_division(
        module_,
        [](void *user, const fw_division_info_t *info) {
          static_cast<std::vector<fw_division_info_t> *>(user)->push_back(*info);
        },
        &seen));
    if (!autotune) {
      EXPECT_TRUE(seen.empty());
      EXPECT_EQ(ways.size(), 1u);
    } else {
      ASSERT_EQ(seen.size(), 2u); // 1000 and 20000 rows
      const fw_division_info_t &large = seen[0].size_class > seen[1].size_class ? seen[0]
                                                                                : seen[1];
      EXPECT_TRUE(large.decided);
      EXPECT_GT(large.whole_seconds, 0);
      EXPECT_GT(large.divided_seconds, 0);
      EXPECT_EQ(large.divided, large.divided_seconds < large.whole_seconds);
      EXPECT_GE(ways[1.0f], int(FW_DIVISION_TRIALS));
      EXPECT_GE(ways[float(kWorkers)], int(FW_DIVISION_TRIALS));
    }
    fw_module_release(module_);
    fw_runtime_destroy(rt_);
    module_ = nullptr;
    rt_ = nullptr;
  }
}

FW_INSTANTIATE_FOR_EVERY_POLICY(AsyncCallTest);

}  // namespace
