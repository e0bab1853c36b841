// Task graphs that grow while they run: task bodies that create buffers and submit
// tasks (children depending on their parent and on each other through the buffers, in
// submission order), under every policy and worker count; and the waits a task body may
// not make (fw_task_wait, fw_runtime_wait_all, fw_buffer_map, fw_call_wait), which fail
// at once instead of deadlocking the worker that runs the body.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fw/runtime.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::readU64;
using fwtest::submit;

// ---- A graph that grows while it runs: a recursive split ----------------------------

// split(lo, hi) halves its range into two split tasks down to kLeaf values; a leaf makes a
// buffer of its own, submits a task that fills it with mix(i) for its range, and one that
// adds the buffer into `sum` (read-write: the adds form one chain, whichever bodies
// submitted them, and a lost update would change the sum).
constexpr uint64_t kLeaf = 4;

struct Split {
  fw_runtime_t *rt;
  uint64_t lo, hi;
  fw_buffer_t *sum;  // a reference of its own
  std::atomic<int> *failures;
};

struct Range {
  uint64_t lo, hi;
};

void submitSplit(fw_runtime_t *rt, uint64_t lo, uint64_t hi, fw_buffer_t *sum,
                 std::atomic<int> *failures);

void fillTask(void *user, void *const *data, size_t num) {
  auto *r = static_cast<Range *>(user);
  if (num == 1)
    for (uint64_t i = r->lo; i < r->hi; ++i)
      static_cast<uint64_t *>(data[0])[i - r->lo] = fwtest::mix(i);
  delete r;
}

void accumulateTask(void *, void *const *data, size_t num) {
  if (num != 2) return;
  const auto *part = static_cast<const uint64_t *>(data[0]);
  for (uint64_t i = 0; i < kLeaf; ++i) *static_cast<uint64_t *>(data[1]) += part[i];
}

void check(std::atomic<int> *failures, fw_status_t s) {
  if (s) failures->fetch_add(1);
  fw_status_free(s);
}

void splitTask(void *user, void *const *, size_t) {
  auto *t = static_cast<Split *>(user);
  if (t->hi - t->lo > kLeaf) {
    uint64_t mid = t->lo + (t->hi - t->lo) / 2;
    submitSplit(t->rt, t->lo, mid, t->sum, t->failures);
    submitSplit(t->rt, mid, t->hi, t->sum, t->failures);
  } else if (fw_buffer_t *part = makeU64Buffer(t->rt, kLeaf)) {
    auto *range = new Range{t->lo, t->hi};
    fw_status_t s = submit(t->rt, "fill", fillTask, range, {{part, FW_ACCESS_WRITE}});
    if (s) delete range;
    check(t->failures, s);
    check(t->failures, submit(t->rt, "accumulate", accumulateTask, nullptr,
                              {{part, FW_ACCESS_READ}, {t->sum, FW_ACCESS_READ_WRITE}}));
    fw_buffer_release(part);  // the submitted tasks hold their own references
  } else {
    t->failures->fetch_add(1);
  }
  fw_buffer_release(t->sum);
  delete t;
}

void submitSplit(fw_runtime_t *rt, uint64_t lo, uint64_t hi, fw_buffer_t *sum,
                 std::atomic<int> *failures) {
  fw_buffer_retain(sum);
  auto *t = new Split{rt, lo, hi, sum, failures};
  fw_status_t s = submit(rt, "split", splitTask, t, {});
  if (s) {  // the body will not run: it owned `t`
    fw_buffer_release(sum);
    delete t;
  }
  check(failures, s);
}

class NestedTaskTest
    : public ::testing::TestWithParam<std::tuple<fw_scheduler_kind_t, uint32_t>> {
 protected:
  void SetUp() override {
    fw_runtime_options_t o =
        fwtest::taskOptions(std::get<0>(GetParam()), std::get<1>(GetParam()));
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  }
  void TearDown() override { fw_runtime_destroy(rt_); }

  fw_runtime_t *rt_ = nullptr;
};

// 1024 values: 511 splits, 256 fills and 256 adds, all but the first split submitted by
// task bodies while the graph runs. fw_runtime_wait_all returns once the whole grown graph
// is done (every child is submitted before its parent completes).
TEST_P(NestedTaskTest, BodiesGrowTheGraph) {
  constexpr uint64_t kValues = 1024;
  std::atomic<int> failures{0};
  fw_buffer_t *sum = makeU64Buffer(rt_, 1);
  ASSERT_NE(sum, nullptr);
  submitSplit(rt_, 0, kValues, sum, &failures);
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(failures.load(), 0);
  uint64_t expected = 0;
  for (uint64_t i = 0; i < kValues; ++i) expected += fwtest::mix(i);
  EXPECT_EQ(readU64(sum), std::vector<uint64_t>{expected});
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_submitted, 511u + 256u + 256u);
  EXPECT_EQ(stats.tasks_executed, 511u + 256u + 256u);
  fw_buffer_release(sum);
}

// ---- Waits from a task body ---------------------------------------------------------

struct Waits {
  fw_runtime_t *rt;
  fw_buffer_t *other;  // a buffer the body does not access
  std::vector<std::pair<fw_status_code_t, std::string>> results;
  void *mapped = reinterpret_cast<void *>(1);
};

void record(Waits *w, fw_status_t s) {
  w->results.emplace_back(fw_status_code(s), s ? fw_status_message(s) : "");
  fw_status_free(s);
}

void childTask(void *, void *const *, size_t) {}

void waitingTask(void *user, void *const *, size_t) {
  auto *w = static_cast<Waits *>(user);
  fw_task_t *child = nullptr;
  fw_status_t s = submit(w->rt, "child", childTask, nullptr, {}, &child);
  if (s) {
    record(w, s);
    return;
  }
  record(w, fw_task_wait(child));
  fw_task_release(child);
  record(w, fw_runtime_wait_all(w->rt));
  record(w, fw_buffer_map(w->other, &w->mapped));
}

TEST_P(NestedTaskTest, WaitsFromABodyFailAtOnce) {
  Waits w;
  w.rt = rt_;
  w.other = makeU64Buffer(rt_, 4);
  ASSERT_NE(w.other, nullptr);
  FW_ASSERT_OK(submit(rt_, "waiter", waitingTask, &w, {}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  ASSERT_EQ(w.results.size(), 3u);
  const char *calls[3] = {"fw_task_wait", "fw_runtime_wait_all", "fw_buffer_map"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(w.results[i].first, FW_STATUS_FAILED_PRECONDITION) << calls[i];
    EXPECT_NE(w.results[i].second.find(calls[i]), std::string::npos) << w.results[i].second;
    EXPECT_NE(w.results[i].second.find("body of task 'waiter'"), std::string::npos)
        << w.results[i].second;
  }
  EXPECT_EQ(w.mapped, nullptr);
  // The same calls from the caller's thread still wait and succeed.
  void *data = nullptr;
  FW_EXPECT_OK(fw_buffer_map(w.other, &data));
  EXPECT_NE(data, nullptr);
  fw_buffer_release(w.other);
}

// A body of one runtime may wait for another runtime's tasks: no worker of that one is
// held up.
struct Other {
  fw_runtime_t *rt;
  fw_status_code_t code = FW_STATUS_INTERNAL;
};

void waitOnOtherRuntime(void *user, void *const *, size_t) {
  auto *o = static_cast<Other *>(user);
  fw_task_t *t = nullptr;
  fw_status_t s = submit(o->rt, "elsewhere", childTask, nullptr, {}, &t);
  if (!s) {
    s = fw_task_wait(t);
    fw_task_release(t);
  }
  o->code = fw_status_code(s);
  fw_status_free(s);
}

TEST_P(NestedTaskTest, BodyMayWaitForAnotherRuntime) {
  fw_runtime_options_t opt = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  Other o;
  FW_ASSERT_OK(fw_runtime_create(&opt, &o.rt));
  FW_ASSERT_OK(submit(rt_, "outer", waitOnOtherRuntime, &o, {}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(o.code, FW_STATUS_OK);
  fw_runtime_destroy(o.rt);
}

// A body that creates a buffer the host tier has no room for while its own task holds
// the rest: an error at once (the room its task holds cannot come while it waits; it
// waited forever).
struct MakeInBody {
  fw_runtime_t *rt;
  std::string error;
};

void makeTooMuch(void *user, void *const *, size_t) {
  auto *m = static_cast<MakeInBody *>(user);
  std::vector<uint64_t> data(512 * 1024 / 8, 7);
  const int64_t dims[1] = {int64_t(data.size())};
  fw_buffer_t *b = nullptr;
  fw_status_t s = fw_buffer_create(m->rt, FW_ELEMENT_TYPE_I64, 1, dims, data.data(),
                                   data.size() * 8, &b);
  m->error = s ? fw_status_message(s) : "";
  fw_status_free(s);
  fw_buffer_release(b);
}

TEST_P(NestedTaskTest, ABodyCreatingABufferThatCannotFitFails) {
  fw_runtime_destroy(rt_);
  fw_runtime_options_t o = fwtest::taskOptions(std::get<0>(GetParam()), std::get<1>(GetParam()));
  o.tier_limits = "host=1MiB";
  FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  fw_buffer_t *big = makeU64Buffer(rt_, 768 * 1024 / 8);
  ASSERT_NE(big, nullptr);
  MakeInBody m{rt_, ""};
  FW_ASSERT_OK(submit(rt_, "maker", makeTooMuch, &m, {{big, FW_ACCESS_WRITE}}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  EXPECT_NE(m.error.find("a new buffer needs 524288 bytes of host memory"), std::string::npos)
      << m.error;
  fw_buffer_release(big);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, NestedTaskTest,
    ::testing::Combine(::testing::Values(FW_SCHEDULER_EAGER, FW_SCHEDULER_WS,
                                         FW_SCHEDULER_HEFT),
                       ::testing::Values(1u, 3u)),
    [](const ::testing::TestParamInfo<std::tuple<fw_scheduler_kind_t, uint32_t>> &info) {
      return std::string(fwtest::schedulerName(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param)) + "w";
    });

}  // namespace
