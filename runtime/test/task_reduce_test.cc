// Reductions (FW_ACCESS_REDUCE): contributions to a buffer run in parallel on private
// accumulators, without waiting for the buffer's earlier tasks; a reduction task combines
// them into the buffer before its next other access, under every policy and in
// simulation; a failed contribution fails the reduction and the readers after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::addOne;
using fwtest::makeU64Buffer;
using fwtest::readU64;
using fwtest::submit;

constexpr fw_access_t kReduce = FW_ACCESS_REDUCE;

fw_buffer_t *makeSumBuffer(fw_runtime_t *rt, uint64_t value) {
  fw_buffer_t *b = makeU64Buffer(rt, 1, {value});
  FW_EXPECT_OK(fw_buffer_set_reduction_op(b, FW_REDUCTION_SUM));
  return b;
}

// A u64 buffer of `elements` (`values`, else zeros until written) reduced by the built-in
// sum; NULL, failing the test, when it cannot be made.
fw_buffer_t *makeU64Sum(fw_runtime_t *rt, uint64_t elements,
                        const std::vector<uint64_t> &values = {}) {
  fw_buffer_t *b = makeU64Buffer(rt, elements, values);
  if (b) FW_EXPECT_OK(fw_buffer_set_reduction_op(b, FW_REDUCTION_SUM));
  return b;
}

// A runtime of `workers` CPU workers under `policy` with tier limits `limits` ("": none).
fw_runtime_t *tieredRuntime(fw_scheduler_kind_t policy, uint32_t workers, const char *limits) {
  fw_runtime_options_t o = fwtest::taskOptions(policy, workers);
  o.tier_limits = limits;
  return fwtest::createRuntime(o);
}

// Adds the task's amount into its accumulator.
void addAmount(void *user, void *const *data, size_t) {
  static_cast<int64_t *>(data[0])[0] += *static_cast<const int64_t *>(user);
}

void readValue(void *user, void *const *data, size_t) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  *static_cast<uint64_t *>(user) = static_cast<const uint64_t *>(data[0])[0];
}

void writeValue(void *user, void *const *data, size_t) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  static_cast<uint64_t *>(data[0])[0] = *static_cast<uint64_t *>(user);
}

void failWithBrokenPart(void *, void *const *, size_t) {
  fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "broken part"));
}

// A writer that holds its buffer until the test opens it, then writes `value`.
struct Gate {
  std::atomic<bool> started{false};
  std::atomic<bool> open{false};
  uint64_t value = 0;
};

void writeWhenOpen(void *user, void *const *data, size_t) {
  auto *g = static_cast<Gate *>(user);
  g->started = true;
  while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  static_cast<uint64_t *>(data[0])[0] = g->value;
}

class ReduceTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void SetUp() override { rt_ = fwtest::createRuntime(fwtest::taskOptions(GetParam(), 4)); }
  void TearDown() override { fw_runtime_destroy(rt_); }
  fw_runtime_t *rt_ = nullptr;
};

// A thousand contributions: each counts, on top of what the buffer held; the caller's
// read waits for the reduction.
TEST_P(ReduceTest, ContributionsAddUpIntoTheBuffer) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 7);
  std::vector<int64_t> amounts(1000);
  for (size_t i = 0; i < amounts.size(); ++i) {
    amounts[i] = int64_t(i) + 1;
    FW_ASSERT_OK(submit(rt_, "part", addAmount, &amounts[i], {{sum, kReduce}}));
  }
  EXPECT_EQ(readU64(sum)[0], 7u + 500500u);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  // The reductions are tasks: one per group at least (a group whose contributions are
  // done ends, so workers faster than the submitter make several).
  fw_runtime_stats_t st = fwtest::statsOf(rt_);
  EXPECT_GE(st.tasks_submitted, 1001u);
  EXPECT_LE(st.tasks_submitted, 2000u);
  EXPECT_EQ(st.tasks_executed, st.tasks_submitted);
  fw_buffer_release(sum);
}

// Three contributions run at once on the three workers the writer before them leaves
// (each waits until all three are inside: serialized, they would time out) while that
// writer still runs; the reduction waits for the writer and adds them to what it wrote.
TEST_P(ReduceTest, ContributionsRunTogetherWithoutWaitingForTheWriterBefore) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 0);
  Gate gate;
  gate.value = 100;
  FW_ASSERT_OK(submit(rt_, "gate", writeWhenOpen, &gate, {{sum, FW_ACCESS_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  struct Part {
    std::atomic<int> *inside;
    std::atomic<bool> all_met{false};
  };
  std::atomic<int> inside{0};
  std::vector<Part> parts(3);
  auto meet = [](void *user, void *const *data, size_t) {
    auto *p = static_cast<Part *>(user);
    p->inside->fetch_add(1);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (p->inside->load() < 3 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    p->all_met = p->inside->load() >= 3;
    static_cast<int64_t *>(data[0])[0] += 1;
  };
  std::vector<fw_task_t *> tasks(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i].inside = &inside;
    FW_ASSERT_OK(submit(rt_, "meet", meet, &parts[i], {{sum, kReduce}}, &tasks[i]));
  }
  for (fw_task_t *t : tasks) FW_EXPECT_OK(fw_task_wait(t));
  for (const Part &p : parts) EXPECT_TRUE(p.all_met.load());
  fwtest::sleepMs(20);
  uint64_t seen = 0;
  fw_task_t *reader = nullptr;
  FW_ASSERT_OK(submit(rt_, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  fwtest::sleepMs(20);
  EXPECT_FALSE(fw_task_is_done(reader));  // after the reduction, after the gate
  gate.open = true;
  FW_EXPECT_OK(fw_task_wait(reader));
  EXPECT_EQ(seen, 103u);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  for (fw_task_t *t : tasks) fw_task_release(t);
  fw_task_release(reader);
  fw_buffer_release(sum);
}

// A reduction whose accumulators are u64 sums, counting its combines by destination:
// into an accumulator (a task of the tree) or into the buffer (the reduction task). Its
// `fail_in_tree` makes the tree's combines fail their task.
struct CountedSum {
  std::mutex lock;
  std::vector<const void *> accumulators;  // made and not folded yet
  size_t made = 0;
  std::atomic<int> into_accumulator{0}, into_buffer{0};
  bool fail_in_tree = false;

  static void init(void *user, void *data, size_t size) {
    auto *c = static_cast<CountedSum *>(user);
    std::memset(data, 0, size);
    std::lock_guard<std::mutex> g(c->lock);
    c->accumulators.push_back(data);
    ++c->made;
  }
  static void combine(void *user, void *dst, const void *src, size_t size) {
    auto *c = static_cast<CountedSum *>(user);
    bool tree;
    {
      std::lock_guard<std::mutex> g(c->lock);
      tree = std::find(c->accumulators.begin(), c->accumulators.end(), dst) !=
             c->accumulators.end();
      // Folded, `src` is gone: its memory may hold the buffer next.
      c->accumulators.erase(std::remove(c->accumulators.begin(), c->accumulators.end(), src),
                            c->accumulators.end());
    }
    (tree ? c->into_accumulator : c->into_buffer).fetch_add(1);
    if (tree && c->fail_in_tree) {
      fw_task_fail(fw_status_create(FW_STATUS_DATA_LOSS, "tree combine broke"));
      return;
    }
    for (size_t i = 0; i < size / 8; ++i)
      static_cast<uint64_t *>(dst)[i] += static_cast<const uint64_t *>(src)[i];
  }
  fw_reduction_t reduction() {
    fw_reduction_t r;
    r.init = init;
    r.combine = combine;
    r.user_data = this;
    return r;
  }
  // A buffer of `elements` 64-bit integers (from `start`, else zeros until written)
  // reduced by this sum; NULL, failing the test, when it cannot be made.
  fw_buffer_t *buffer(fw_runtime_t *rt, uint64_t elements, const uint64_t *start = nullptr) {
    const int64_t dims[1] = {int64_t(elements)};
    fw_buffer_t *b = nullptr;
    FW_EXPECT_OK(fw_buffer_create(rt, FW_ELEMENT_TYPE_I64, 1, dims, start,
                                  start ? elements * 8 : 0, &b));
    fw_reduction_t r = reduction();
    if (b) FW_EXPECT_OK(fw_buffer_set_reduction(b, &r));
    return b;
  }
};

// `workers` contributions to `b` (u64), each adding i + 1 to element i, run at once (each
// waits until all are inside, up to 20 s: so each runs on a worker of its own, and the
// group has that many accumulators); true when they all met.
bool contributeOnEveryWorker(fw_runtime_t *rt, fw_buffer_t *b, int workers) {
  struct Part {
    std::atomic<int> *inside;
    int workers;
    uint64_t elements;
    std::atomic<bool> met{false};
  };
  std::atomic<int> inside{0};
  std::vector<Part> parts(workers);
  auto meet = [](void *user, void *const *data, size_t) {
    auto *p = static_cast<Part *>(user);
    p->inside->fetch_add(1);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (p->inside->load() < p->workers && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    p->met = p->inside->load() >= p->workers;
    auto *acc = static_cast<uint64_t *>(data[0]);
    for (uint64_t i = 0; i < p->elements; ++i) acc[i] += i + 1;
  };
  std::vector<fw_task_t *> tasks(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i].inside = &inside;
    parts[i].workers = workers;
    parts[i].elements = fw_buffer_byte_size(b) / 8;
    if (submit(rt, "part", meet, &parts[i], {{b, kReduce}}, &tasks[i]) != FW_OK) return false;
  }
  bool all = true;
  for (size_t i = 0; i < tasks.size(); ++i) {
    fw_status_t st = fw_task_wait(tasks[i]);
    all = all && st == FW_OK && parts[i].met.load();
    fw_status_free(st);
    fw_task_release(tasks[i]);
  }
  return all;
}

// Four accumulators of a 2 MiB buffer (262144 u64) are combined by a tree of pairs: two
// tasks fold pairs side by side, a third folds their results (the reduction task waits
// for the writer before the group anyway), and the reduction task folds the last into
// the buffer; 1 KiB less, and the reduction task folds all four itself (the pass the
// tree saves no longer outweighs its two levels). The pairs run once the group is closed
// (by a reader) and its tasks are done, while the writer before the group still holds
// the buffer (five workers: the writer's, and four for the parts). The sums are right
// either way, and the pair tasks are tasks of the graph.
TEST_P(ReduceTest, ATreeCombinesTheAccumulatorsOfALargeBuffer) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(GetParam(), 5));
  ASSERT_NE(rt, nullptr);
  for (uint64_t elements : {262144u, 262016u}) {
    SCOPED_TRACE(elements);
    std::vector<uint64_t> start(elements, 1000);
    CountedSum counted;
    fw_buffer_t *sum = counted.buffer(rt, elements, start.data());
    ASSERT_NE(sum, nullptr);
    fw_runtime_stats_t before = fwtest::statsOf(rt);
    Gate gate;
    gate.value = 1000;
    FW_ASSERT_OK(submit(rt, "gate", writeWhenOpen, &gate, {{sum, FW_ACCESS_WRITE}}));
    ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
    ASSERT_TRUE(contributeOnEveryWorker(rt, sum, 4));  // beside the writer
    uint64_t seen = 0;
    FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
    bool tree = elements * 8 >= 2 * 1024 * 1024;
    if (tree) EXPECT_TRUE(fwtest::waitUntil([&] { return counted.into_accumulator == 3; }));
    EXPECT_EQ(counted.into_buffer.load(), 0);  // the writer still runs
    gate.open = true;
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(seen, 1004u);
    const uint64_t *got = static_cast<const uint64_t *>(fw_buffer_data(sum));
    ASSERT_NE(got, nullptr);
    for (uint64_t i = 0; i < elements; ++i)
      ASSERT_EQ(got[i], 1000u + 4 * (i + 1)) << i;
    fw_buffer_unmap(sum);
    EXPECT_EQ(counted.made, 4u);
    EXPECT_EQ(counted.into_accumulator.load(), tree ? 3 : 0);
    EXPECT_EQ(counted.into_buffer.load(), tree ? 1 : 4);
    fw_runtime_stats_t after = fwtest::statsOf(rt);
    // gate, four parts, the reduction, the reader, and the tree's three.
    EXPECT_EQ(after.tasks_executed - before.tasks_executed, tree ? 10u : 7u);
    fw_buffer_release(sum);
  }
  fw_runtime_destroy(rt);
}

// Once the group is closed and all of its contributions started, the accumulators of
// those that ended are paired while the others still run: a contribution held on one of
// the four workers, three more that meet on the other three, to a 2 MiB buffer, then a
// reader: the three accumulators are folded into one (two pairs) before the held
// contribution ends, and the reduction task folds that and the held one's.
TEST_P(ReduceTest, AccumulatorsArePairedWhileTheLastContributionRuns) {
  const uint64_t elements = 262144;
  CountedSum counted;
  fw_buffer_t *sum = counted.buffer(rt_, elements);
  ASSERT_NE(sum, nullptr);
  Gate held;
  auto addWhenOpen = [](void *user, void *const *data, size_t) {
    auto *g = static_cast<Gate *>(user);
    g->started = true;
    while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    static_cast<uint64_t *>(data[0])[0] += 1;
  };
  fw_task_t *last = nullptr;
  FW_ASSERT_OK(submit(rt_, "held", addWhenOpen, &held, {{sum, kReduce}}, &last));
  ASSERT_TRUE(fwtest::waitUntil([&] { return held.started.load(); }));
  ASSERT_TRUE(contributeOnEveryWorker(rt_, sum, 3));  // beside the held one
  EXPECT_EQ(counted.into_accumulator.load(), 0);  // the group is open: more may come
  uint64_t seen = 0;
  FW_ASSERT_OK(submit(rt_, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
  EXPECT_TRUE(fwtest::waitUntil([&] { return counted.into_accumulator.load() == 2; }));
  EXPECT_EQ(fw_task_is_done(last), 0);  // still held
  held.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(counted.made, 4u);
  EXPECT_EQ(counted.into_accumulator.load(), 2);
  EXPECT_EQ(counted.into_buffer.load(), 2);
  EXPECT_EQ(seen, 4u);
  std::vector<uint64_t> got = readU64(sum);
  ASSERT_EQ(got.size(), elements);
  for (uint64_t i = 1; i < elements; ++i) ASSERT_EQ(got[i], 3 * (i + 1)) << i;
  fw_task_release(last);
  fw_buffer_release(sum);
}

// The start of the last contribution of a closed group lets the others' accumulators be
// paired while it runs, though none of them ends after it: a writer before the group held
// on a gate (so that the group stays open until a reader closes it), three contributions
// that meet and end, a fourth that runs after a task held on another gate, then the
// reader. Once that gate opens, the idle accumulators are paired while the fourth is held
// in its turn; the last pair folds the fourth's once it ends, while the writer still runs.
// The same when the fourth reduces 32 small buffers before that one.
void lastContributionToStart(fw_scheduler_kind_t policy, int smallFirst) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(policy, 5));
  ASSERT_NE(rt, nullptr);
  const uint64_t elements = 262144;
  CountedSum counted;
  fw_buffer_t *sum = counted.buffer(rt, elements);
  ASSERT_NE(sum, nullptr);
  Gate writer, before, held;
  writer.value = 1000;
  auto waitForOpen = [](void *user, void *const *, size_t) {
    auto *g = static_cast<Gate *>(user);
    g->started = true;
    while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  auto addWhenOpen = [](void *user, void *const *data, size_t num) {
    auto *g = static_cast<Gate *>(user);
    g->started = true;
    while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    static_cast<uint64_t *>(data[num - 1])[0] += 1;  // sum's: the last access
  };
  FW_ASSERT_OK(submit(rt, "write", writeWhenOpen, &writer, {{sum, FW_ACCESS_WRITE}}));
  fw_task_t *gate = nullptr, *last = nullptr;
  FW_ASSERT_OK(submit(rt, "gate", waitForOpen, &before, {}, &gate));
  ASSERT_TRUE(fwtest::waitUntil([&] { return writer.started && before.started; }));
  ASSERT_TRUE(contributeOnEveryWorker(rt, sum, 3));  // beside the two held
  std::vector<fw_task_access_t> reduce;  // outlives the description
  for (int i = 0; i < smallFirst; ++i) {
    const int64_t one = 1;
    fw_buffer_t *small = nullptr;
    FW_ASSERT_OK(fw_buffer_create(rt, FW_ELEMENT_TYPE_I64, 1, &one, nullptr, 0, &small));
    FW_ASSERT_OK(fw_buffer_set_reduction_op(small, FW_REDUCTION_SUM));
    reduce.push_back({small, kReduce});
  }
  reduce.push_back({sum, kReduce});
  fw_task_desc_t d = fwtest::describeTask("held", addWhenOpen, &held, reduce);
  d.after = &gate;
  d.num_after = 1;
  FW_ASSERT_OK(fw_task_submit(rt, &d, &last));
  uint64_t seen = 0;
  FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
  EXPECT_EQ(counted.into_accumulator.load(), 0);  // the fourth has not started
  before.open = true;
  ASSERT_TRUE(fwtest::waitUntil([&] { return held.started.load(); }));
  // Its worker's accumulator, if one of the three ran there, is its own again: the other
  // two or three are paired meanwhile.
  EXPECT_TRUE(fwtest::waitUntil([&] { return counted.into_accumulator.load() >= 1; }));
  EXPECT_EQ(fw_task_is_done(last), 0);  // still held
  held.open = true;
  FW_EXPECT_OK(fw_task_wait(last));
  int pairs = int(counted.made) - 1;  // down to one: the writer still runs
  EXPECT_TRUE(fwtest::waitUntil([&] { return counted.into_accumulator.load() == pairs; }));
  EXPECT_EQ(counted.into_buffer.load(), 0);
  writer.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(counted.into_accumulator.load(), pairs);
  EXPECT_EQ(counted.into_buffer.load(), 1);
  EXPECT_EQ(seen, 1004u);
  std::vector<uint64_t> got = readU64(sum);
  ASSERT_EQ(got.size(), elements);
  for (uint64_t i = 1; i < elements; ++i) ASSERT_EQ(got[i], 3 * (i + 1)) << i;
  fw_task_release(gate);
  fw_task_release(last);
  for (size_t i = 0; i + 1 < reduce.size(); ++i) fw_buffer_release(reduce[i].buffer);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

TEST_P(ReduceTest, TheLastContributionToStartLetsTheOthersBePaired) {
  for (int smallFirst : {0, 32}) {  // small buffers the fourth reduces before that one
    SCOPED_TRACE(smallFirst);
    lastContributionToStart(GetParam(), smallFirst);
  }
}

// A combine of the tree that fails its task fails the next level and the reduction
// task, and so the reader after it; the writer after runs, and the accumulators are
// freed (ASan).
TEST_P(ReduceTest, AFailedCombineInTheTreeFailsTheReduction) {
  CountedSum counted;
  counted.fail_in_tree = true;
  fw_buffer_t *sum = counted.buffer(rt_, 262144);
  ASSERT_NE(sum, nullptr);
  Gate gate;
  FW_ASSERT_OK(submit(rt_, "gate", writeWhenOpen, &gate, {{sum, FW_ACCESS_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  gate.open = true;
  ASSERT_TRUE(contributeOnEveryWorker(rt_, sum, 4));
  uint64_t seen = 0, seven = 7;
  fw_task_t *reader = nullptr, *writer = nullptr;
  FW_ASSERT_OK(submit(rt_, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  FW_ASSERT_OK(submit(rt_, "write", writeValue, &seven, {{sum, FW_ACCESS_WRITE}}, &writer));
  FW_EXPECT_ERROR(fw_task_wait(reader), "task @part.reduce.combine: tree combine broke");
  FW_EXPECT_OK(fw_task_wait(writer));
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "tree combine broke");
  EXPECT_EQ(counted.into_buffer.load(), 0);
  EXPECT_GE(counted.into_accumulator.load(), 1);
  EXPECT_LE(counted.into_accumulator.load(), 2);  // the first level; the next cancelled
  EXPECT_EQ(readU64(sum)[0], 7u);
  fw_task_release(reader);
  fw_task_release(writer);
  fw_buffer_release(sum);
}

// A group follows the writer and the reader before it and precedes the reader and the
// writer after it; two groups split by a reader, or by a commutative update, stay apart.
TEST_P(ReduceTest, GroupsFollowWhatCameBeforeAndPrecedeWhatComesAfter) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 5);
  uint64_t ten = 10, thousand = 1000;
  uint64_t before = 0, between = 0, after = 0, last = 0, commuted = 0;
  int64_t one = 1, hundred = 100, tenThousand = 10000;
  FW_ASSERT_OK(submit(rt_, "set10", writeValue, &ten, {{sum, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "before", readValue, &before, {{sum, FW_ACCESS_READ}}));
  for (int i = 0; i < 20; ++i)
    FW_ASSERT_OK(submit(rt_, "add1", addAmount, &one, {{sum, kReduce}}));
  FW_ASSERT_OK(submit(rt_, "between", readValue, &between, {{sum, FW_ACCESS_READ}}));
  for (int i = 0; i < 5; ++i)
    FW_ASSERT_OK(submit(rt_, "add100", addAmount, &hundred, {{sum, kReduce}}));
  auto addTwice = [](void *, void *const *data, size_t) {
    uint64_t *v = static_cast<uint64_t *>(data[0]);
    *v = *v * 2;
  };
  FW_ASSERT_OK(submit(rt_, "double", addTwice, nullptr, {{sum, FW_ACCESS_READ_WRITE_COMMUTE}}));
  FW_ASSERT_OK(submit(rt_, "commuted", readValue, &commuted, {{sum, FW_ACCESS_READ}}));
  for (int i = 0; i < 3; ++i)
    FW_ASSERT_OK(submit(rt_, "add10000", addAmount, &tenThousand, {{sum, kReduce}}));
  FW_ASSERT_OK(submit(rt_, "after", readValue, &after, {{sum, FW_ACCESS_READ}}));
  FW_ASSERT_OK(submit(rt_, "set1000", writeValue, &thousand, {{sum, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "last", readValue, &last, {{sum, FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(before, 10u);
  EXPECT_EQ(between, 30u);
  EXPECT_EQ(commuted, 1060u);
  EXPECT_EQ(after, 31060u);
  EXPECT_EQ(last, 1000u);
  fw_buffer_release(sum);
}

// Each worker's accumulator is made once per group and starts at the neutral element:
// products start at 1 (a worker's second task multiplies what its first made), minima
// and maxima at the type's extremes.
TEST_P(ReduceTest, AccumulatorsStartAtTheNeutralElement) {
  const int64_t dims[1] = {3};
  fw_buffer_t *product = nullptr, *lowest = nullptr, *highest = nullptr;
  double three[3] = {3, -3, 0.5};
  int32_t zeros[3] = {0, 0, 0};
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F64, 1, dims, three, sizeof(three),
                                &product));
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I32, 1, dims, zeros, sizeof(zeros),
                                &lowest));
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I32, 1, dims, zeros, sizeof(zeros),
                                &highest));
  FW_ASSERT_OK(fw_buffer_set_reduction_op(product, FW_REDUCTION_PRODUCT));
  FW_ASSERT_OK(fw_buffer_set_reduction_op(lowest, FW_REDUCTION_MIN));
  FW_ASSERT_OK(fw_buffer_set_reduction_op(highest, FW_REDUCTION_MAX));
  auto step = [](void *user, void *const *data, size_t) {
    int32_t v = *static_cast<const int32_t *>(user);
    double *p = static_cast<double *>(data[0]);
    int32_t *lo = static_cast<int32_t *>(data[1]), *hi = static_cast<int32_t *>(data[2]);
    for (int k = 0; k < 3; ++k) {
      p[k] *= 2;
      lo[k] = std::min(lo[k], v + k);
      hi[k] = std::max(hi[k], v - k);
    }
  };
  std::vector<int32_t> values(30);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = int32_t(i) * 7 % 31 - 10;  // -10 .. 20, in no order
    FW_ASSERT_OK(submit(rt_, "step", step, &values[i],
                        {{product, kReduce}, {lowest, kReduce}, {highest, kReduce}}));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  const double *p = static_cast<const double *>(fw_buffer_data(product));
  const int32_t *lo = static_cast<const int32_t *>(fw_buffer_data(lowest));
  const int32_t *hi = static_cast<const int32_t *>(fw_buffer_data(highest));
  ASSERT_TRUE(p && lo && hi);
  const double twoTo30 = std::ldexp(1.0, 30);
  EXPECT_EQ(p[0], 3 * twoTo30);
  EXPECT_EQ(p[1], -3 * twoTo30);
  EXPECT_EQ(p[2], 0.5 * twoTo30);
  int32_t minValue = *std::min_element(values.begin(), values.end());
  int32_t maxValue = *std::max_element(values.begin(), values.end());
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(lo[k], std::min(0, minValue + k)) << k;
    EXPECT_EQ(hi[k], std::max(0, maxValue - k)) << k;
  }
  for (fw_buffer_t *b : {product, lowest, highest}) fw_buffer_release(b);
}

// A failed contribution fails the reduction: the reader after the group fails with its
// error; a writer after it runs, and what it wrote reads back. The other contributions
// ran (they do not depend on each other).
TEST_P(ReduceTest, AFailedContributionFailsTheReductionAndItsReaders) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 0);
  int64_t one = 1;
  std::vector<fw_task_t *> parts(4);
  for (size_t i = 0; i < parts.size(); ++i)
    FW_ASSERT_OK(submit(rt_, i == 2 ? "broken" : "part", i == 2 ? failWithBrokenPart : addAmount,
                        &one, {{sum, kReduce}}, &parts[i]));
  uint64_t seen = 0, reseen = 0, seven = 7;
  fw_task_t *reader = nullptr, *writer = nullptr, *rereader = nullptr;
  FW_ASSERT_OK(submit(rt_, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  FW_ASSERT_OK(submit(rt_, "write", writeValue, &seven, {{sum, FW_ACCESS_WRITE}}, &writer));
  FW_ASSERT_OK(submit(rt_, "reread", readValue, &reseen, {{sum, FW_ACCESS_READ}}, &rereader));
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i == 2) FW_EXPECT_ERROR(fw_task_wait(parts[i]), "broken part");
    else FW_EXPECT_OK(fw_task_wait(parts[i]));
  }
  FW_EXPECT_ERROR(fw_task_wait(reader), "broken part");
  FW_EXPECT_OK(fw_task_wait(writer));
  FW_EXPECT_OK(fw_task_wait(rereader));
  EXPECT_EQ(seen, 0u);
  EXPECT_EQ(reseen, 7u);
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "broken part");
  for (fw_task_t *t : parts) fw_task_release(t);
  for (fw_task_t *t : {reader, writer, rereader}) fw_task_release(t);
  fw_buffer_release(sum);
}

// A failed writer before the group: the contributions still run (they read nothing of
// the buffer), the reduction, which would combine them into garbage, fails with the
// writer's error, and so does a reader after it; and so does a read of the buffer.
TEST_P(ReduceTest, AFailedWriterBeforeTheGroupFailsTheReduction) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 0);
  int64_t one = 1;
  FW_ASSERT_OK(submit(rt_, "broken", failWithBrokenPart, nullptr, {{sum, FW_ACCESS_WRITE}}));
  std::vector<fw_task_t *> parts(3);
  for (fw_task_t *&t : parts)
    FW_ASSERT_OK(submit(rt_, "part", addAmount, &one, {{sum, kReduce}}, &t));
  uint64_t seen = 0;
  fw_task_t *reader = nullptr;
  FW_ASSERT_OK(submit(rt_, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  for (fw_task_t *t : parts) FW_EXPECT_OK(fw_task_wait(t));
  FW_EXPECT_ERROR(fw_task_wait(reader), "broken part");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "broken part");
  for (fw_task_t *t : parts) fw_task_release(t);
  fw_task_release(reader);
  fw_buffer_release(sum);
}

// Short contributions submitted by two threads while the workers run them: groups open
// and end all the time (a contribution arriving as the reduction of its predecessors
// becomes ready), with a reader now and then closing one. Every contribution counts,
// and each reader sees a total that those submitted before it could make.
TEST_P(ReduceTest, GroupsOpenAndEndWhileContributionsArrive) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 0);
  constexpr int kPerThread = 3000;
  int64_t one = 1;
  std::vector<uint64_t> seen(2 * kPerThread / 100);
  std::atomic<int> next_reader{0};
  auto submitter = [&] {
    for (int i = 1; i <= kPerThread; ++i) {
      FW_ASSERT_OK(submit(rt_, "part", addAmount, &one, {{sum, kReduce}}));
      if (i % 100 == 0)
        FW_ASSERT_OK(submit(rt_, "read", readValue, &seen[next_reader.fetch_add(1)],
                            {{sum, FW_ACCESS_READ}}));
    }
  };
  std::thread a(submitter), b(submitter);
  a.join();
  b.join();
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(readU64(sum)[0], uint64_t(2 * kPerThread));
  for (uint64_t v : seen) {
    EXPECT_GE(v, 100u);
    EXPECT_LE(v, uint64_t(2 * kPerThread));
  }
  fw_buffer_release(sum);
}

// Each contribution's completion callback submits the next: it runs when its group's
// reduction may be ready already, so the new one opens a group of its own. Fifty links,
// then the buffer holds them all.
TEST_P(ReduceTest, AContributionSubmittedAsItsGroupEndsOpensAnother) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 0);
  fwtest::CallbackChain chain{rt_, sum, kReduce, 50};
  fwtest::startCallbackChain(&chain);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(chain.links, 50);
  EXPECT_EQ(readU64(sum)[0], 50u);
  fw_buffer_release(sum);
}

// A synchronous contribution (fw_task_run) returns once it ran; the read after it sees
// it combined.
TEST_P(ReduceTest, ASynchronousContributionCounts) {
  fw_buffer_t *sum = makeSumBuffer(rt_, 1);
  int64_t amount = 41;
  fw_task_access_t access = {sum, kReduce};
  fw_task_desc_t d = fwtest::describeTask("sync", addAmount, &amount);
  d.accesses = &access;
  d.num_accesses = 1;
  FW_EXPECT_OK(fw_task_run(rt_, &d));
  EXPECT_EQ(readU64(sum)[0], 42u);
  fw_buffer_release(sum);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(ReduceTest);

// A contribution's handle, kept after the task finished, keeps neither the buffer nor the
// reduction task: the caller's last release of a wrapped buffer releases its memory, as
// after any other task.
TEST(ReduceHandleTest, AKeptHandleDoesNotKeepTheBuffer) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_EAGER, 2));
  ASSERT_NE(rt, nullptr);
  const int64_t dims[1] = {1};
  alignas(64) int64_t plainData[1] = {0}, sumData[1] = {0};
  std::atomic<int> plainReleased{0}, sumReleased{0};
  auto noteRelease = [](void *user, void *) {
    static_cast<std::atomic<int> *>(user)->fetch_add(1);
  };
  fw_buffer_t *plain = nullptr, *sum = nullptr;
  FW_ASSERT_OK(fw_buffer_wrap(rt, FW_ELEMENT_TYPE_I64, 1, dims, plainData, 8, noteRelease,
                              &plainReleased, &plain));
  FW_ASSERT_OK(fw_buffer_wrap(rt, FW_ELEMENT_TYPE_I64, 1, dims, sumData, 8, noteRelease,
                              &sumReleased, &sum));
  FW_ASSERT_OK(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM));
  fw_task_t *update = nullptr, *part = nullptr;
  FW_ASSERT_OK(submit(rt, "update", addOne, nullptr, {{plain, FW_ACCESS_READ_WRITE}}, &update));
  FW_ASSERT_OK(submit(rt, "part", addOne, nullptr, {{sum, kReduce}}, &part));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_buffer_release(plain);
  fw_buffer_release(sum);
  EXPECT_EQ(plainReleased.load(), 1);
  EXPECT_EQ(sumReleased.load(), 1);
  EXPECT_EQ(sumData[0], 1);
  fw_task_release(update);
  fw_task_release(part);
  fw_runtime_destroy(rt);
}

// The reduction task runs at the highest priority of its contributions: a priority-10
// reader after a priority-10 contribution runs before twenty priority-5 tasks queued
// meanwhile on the only worker (at priority 0 the reduction ran after all of them).
TEST(ReducePriorityTest, TheReductionTakesItsContributionsPriority) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_EAGER, 1));
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSumBuffer(rt, 0);
  fw_buffer_t *other = makeU64Buffer(rt, 1, {0});
  Gate gate;
  fw_buffer_t *held = makeU64Buffer(rt, 1, {0});
  FW_ASSERT_OK(submit(rt, "gate", writeWhenOpen, &gate, {{held, FW_ACCESS_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  std::atomic<int> clock{0};
  struct Stamp {
    std::atomic<int> *clock;
    int at = -1;
  };
  auto stamp = [](void *user, void *const *, size_t) {
    auto *st = static_cast<Stamp *>(user);
    st->at = st->clock->fetch_add(1);
  };
  auto submitAt = [&](const char *name, fw_task_fn_t fn, void *user, fw_task_access_t a,
                      int32_t priority) {
    fw_task_desc_t d = fwtest::describeTask(name, fn, user);
    d.accesses = &a;
    d.num_accesses = 1;
    d.priority = priority;
    FW_EXPECT_OK(fw_task_submit(rt, &d, nullptr));
  };
  Stamp reader{&clock};
  std::vector<Stamp> fillers(20, Stamp{&clock});
  submitAt("part", addOne, nullptr, {sum, kReduce}, 10);
  submitAt("read", stamp, &reader, {sum, FW_ACCESS_READ}, 10);
  for (Stamp &f : fillers) submitAt("filler", stamp, &f, {other, FW_ACCESS_READ}, 5);
  gate.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  int before = 0;
  for (const Stamp &f : fillers) before += f.at < reader.at;
  EXPECT_EQ(before, 0);
  for (fw_buffer_t *b : {sum, other, held}) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// The errors: no reduction set, a buffer both reduced and named otherwise by one task, a
// mode with other bits, a GPU implementation alone without a GPU (the reduction fails
// with it), built-in ops a type lacks, missing functions. A buffer reduced twice by one
// task gets one accumulator.
TEST(ReduceModeTest, ErrorsNameTheProblem) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_EAGER, 2));
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *plain = makeU64Buffer(rt, 1, {0});
  fw_buffer_t *sum = makeSumBuffer(rt, 0);
  FW_EXPECT_ERROR(submit(rt, "odd", addAmount, nullptr, {{plain, kReduce}}),
                  "task 'odd': access 0 reduces a buffer that has no reduction "
                  "(fw_buffer_set_reduction)");
  FW_EXPECT_ERROR(submit(rt, "odd", addAmount, nullptr, {{sum, FW_ACCESS_READ}, {sum, kReduce}}),
                  "task 'odd': access 1 reduces the buffer that access 0 names another way");
  FW_EXPECT_ERROR(submit(rt, "odd", addAmount, nullptr, {{sum, kReduce}, {sum, FW_ACCESS_WRITE}}),
                  "task 'odd': access 0 reduces the buffer that access 1 names another way");
  FW_EXPECT_ERROR(submit(rt, "odd", addAmount, nullptr,
                         {{sum, fw_access_t(FW_ACCESS_REDUCE | FW_ACCESS_READ)}}),
                  "task 'odd': access 0 has an unknown mode 9");
  fw_buffer_t *gpuSum = makeSumBuffer(rt, 0);
  fw_task_access_t access = {gpuSum, kReduce};
  fw_task_desc_t gpuOnly = fwtest::describeTask("gpu", nullptr, nullptr);
  gpuOnly.accesses = &access;
  gpuOnly.num_accesses = 1;
  gpuOnly.cuda_fn = [](void *, void *const *, size_t, void *) -> fw_status_t { return FW_OK; };
  FW_ASSERT_OK(fw_task_submit(rt, &gpuOnly, nullptr));
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt),
                  "task @gpu: no device here can run it (it runs on: cuda)");
  fw_buffer_release(gpuSum);
  const int64_t dims[1] = {2};
  fw_buffer_t *half = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt, FW_ELEMENT_TYPE_F16, 1, dims, nullptr, 0, &half));
  FW_EXPECT_ERROR(fw_buffer_set_reduction_op(half, FW_REDUCTION_MAX),
                  "FW_REDUCTION_MAX is not built in for f16 buffers: give init and combine "
                  "functions (fw_buffer_set_reduction)");
  FW_EXPECT_ERROR(fw_buffer_set_reduction_op(half, fw_reduction_op_t(9)),
                  "unknown reduction op 9");
  fw_reduction_t noCombine = {[](void *, void *, size_t) {}, nullptr, nullptr};
  FW_EXPECT_ERROR(fw_buffer_set_reduction(half, &noCombine),
                  "reduction: init and combine are both required");
  FW_EXPECT_ERROR(fw_buffer_set_reduction(nullptr, &noCombine), "buffer is NULL");
  FW_EXPECT_ERROR(fw_buffer_set_reduction(half, nullptr), "reduction is NULL");
  FW_EXPECT_ERROR(fw_buffer_set_reduction_op(nullptr, FW_REDUCTION_SUM), "buffer is NULL");
  // Named twice: the body gets the same accumulator at both places.
  void *places[2] = {nullptr, nullptr};
  auto note = [](void *user, void *const *data, size_t) {
    void **p = static_cast<void **>(user);
    p[0] = data[0];
    p[1] = data[1];
    static_cast<int64_t *>(data[0])[0] += 5;
  };
  FW_ASSERT_OK(submit(rt, "twice", note, places, {{sum, kReduce}, {sum, kReduce}}));
  EXPECT_EQ(readU64(sum)[0], 5u);
  EXPECT_NE(places[0], nullptr);
  EXPECT_EQ(places[0], places[1]);
  EXPECT_NE(places[0], fw_buffer_data(sum));
  fw_buffer_release(half);
  fw_buffer_release(sum);
  fw_buffer_release(plain);
  fw_runtime_destroy(rt);
}

// Functions of the caller's: init runs once per worker that ran a task of the group (at
// most four here, at least one), and combine once per accumulator; user_data reaches
// both. A NaN wins a float maximum.
TEST(ReduceFunctionsTest, InitOncePerWorkerAndCombineOncePerAccumulator) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_WS, 4));
  ASSERT_NE(rt, nullptr);
  struct Counts {
    std::atomic<int> inits{0}, combines{0};
  } counts;
  fw_reduction_t r;
  r.init = [](void *user, void *data, size_t size) {
    static_cast<Counts *>(user)->inits.fetch_add(1);
    std::memset(data, 0, size);
  };
  r.combine = [](void *user, void *dst, const void *src, size_t size) {
    static_cast<Counts *>(user)->combines.fetch_add(1);
    for (size_t i = 0; i < size / 8; ++i)
      static_cast<uint64_t *>(dst)[i] ^= static_cast<const uint64_t *>(src)[i];
  };
  r.user_data = &counts;
  fw_buffer_t *bits = makeU64Buffer(rt, 2, {0, 2});
  FW_ASSERT_OK(fw_buffer_set_reduction(bits, &r));
  // A writer before the group holds its reduction back until every contribution is
  // submitted: one group (otherwise the workers may end a group before the next
  // contribution comes, and each group has accumulators of its own).
  Gate gate;
  gate.value = 1;
  FW_ASSERT_OK(submit(rt, "gate", writeWhenOpen, &gate, {{bits, FW_ACCESS_WRITE}}));
  std::vector<uint64_t> masks(64);
  uint64_t expect[2] = {1, 2};
  auto flip = [](void *user, void *const *data, size_t) {
    uint64_t m = *static_cast<const uint64_t *>(user);
    static_cast<uint64_t *>(data[0])[0] ^= m;
    static_cast<uint64_t *>(data[0])[1] ^= ~m;
  };
  for (size_t i = 0; i < masks.size(); ++i) {
    masks[i] = 0x9E3779B97F4A7C15ull * (i + 1);
    expect[0] ^= masks[i];
    expect[1] ^= ~masks[i];
    FW_ASSERT_OK(submit(rt, "flip", flip, &masks[i], {{bits, kReduce}}));
  }
  gate.open = true;
  std::vector<uint64_t> got = readU64(bits);
  EXPECT_EQ(got[0], expect[0]);
  EXPECT_EQ(got[1], expect[1]);
  EXPECT_GE(counts.inits.load(), 1);
  EXPECT_LE(counts.inits.load(), 4);
  EXPECT_EQ(counts.combines.load(), counts.inits.load());

  const int64_t dims[1] = {2};
  float start[2] = {1, 1};
  fw_buffer_t *highest = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, start, sizeof(start),
                                &highest));
  FW_ASSERT_OK(fw_buffer_set_reduction_op(highest, FW_REDUCTION_MAX));
  std::vector<float> values = {3, NAN, 2};
  auto take = [](void *user, void *const *data, size_t) {
    float v = *static_cast<const float *>(user);
    float *acc = static_cast<float *>(data[0]);
    acc[0] = std::fmax(acc[0], std::isnan(v) ? 0 : v);
    if (std::isnan(v)) acc[1] = v;
  };
  for (float &v : values) FW_ASSERT_OK(submit(rt, "take", take, &v, {{highest, kReduce}}));
  const float *h = static_cast<const float *>(fw_buffer_data(highest));
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h[0], 3.0f);
  EXPECT_TRUE(std::isnan(h[1]));
  fw_buffer_release(highest);
  fw_buffer_release(bits);
  fw_runtime_destroy(rt);
}

// `combine` runs in the reduction task: fw_task_fail there fails it, and the reader after
// it; `init` runs before a contribution's body, where fw_task_fail is refused.
TEST(ReduceFunctionsTest, FailuresInTheFunctions) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_EAGER, 2));
  ASSERT_NE(rt, nullptr);
  static std::atomic<int> refused{0};
  refused = 0;  // also when the test is repeated
  fw_reduction_t r;
  r.init = [](void *, void *data, size_t size) {
    fw_status_t s = fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "init"));
    refused += s != FW_OK && fw_status_code(s) == FW_STATUS_FAILED_PRECONDITION;
    fw_status_free(s);
    std::memset(data, 0, size);
  };
  r.combine = [](void *, void *, const void *, size_t) {
    fw_task_fail(fw_status_create(FW_STATUS_DATA_LOSS, "combine broke"));
  };
  r.user_data = nullptr;
  fw_buffer_t *sum = makeU64Buffer(rt, 1, {0});
  FW_ASSERT_OK(fw_buffer_set_reduction(sum, &r));
  FW_ASSERT_OK(submit(rt, "part", addOne, nullptr, {{sum, kReduce}}));
  uint64_t seen = 0;
  fw_task_t *reader = nullptr;
  FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  FW_EXPECT_ERROR(fw_task_wait(reader), "task @part.reduce: combine broke");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt), "combine broke");
  EXPECT_EQ(refused.load(), 1);
  fw_task_release(reader);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// A simulated sum of `elements` floats (FW_REDUCTION_SUM); NULL when it cannot be made.
fw_buffer_t *simulatedSum(fw_runtime_t *rt, int64_t elements) {
  fw_buffer_t *sum = nullptr;
  FW_EXPECT_OK(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, &elements, nullptr, 0, &sum));
  if (sum) FW_EXPECT_OK(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM));
  return sum;
}

// A simulation-only task (no body) accessing `b` in `mode`, described by its flops.
void submitCost(fw_runtime_t *rt, fw_buffer_t *b, const char *name, fw_access_t mode,
                double flops) {
  fw_task_access_t a = {b, mode};
  fw_task_desc_t d = fwtest::describeTask(name, nullptr, nullptr);
  d.accesses = &a;
  d.num_accesses = 1;
  d.flops = flops;
  FW_EXPECT_OK(fw_task_submit(rt, &d, nullptr));
}

// In a simulation the contributions do not wait for the writer before them: a 4 s writer,
// eight 1 s contributions and a 1 s reader on four workers of 1 GFLOP/s end after 5 s
// (the contributions take the three other workers while the writer runs), where the same
// tasks as commutative updates take 13 s (after the writer, one at a time). The
// reduction is a task of the simulation too, and the bound stays a bound.
double simulateWriterGroupReader(fw_access_t mode, uint64_t *tasks, double *bound) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(4, 1);
  EXPECT_NE(rt, nullptr);
  if (!rt) return 0;
  fw_buffer_t *sum = makeSumBuffer(rt, 0);
  submitCost(rt, sum, "write", FW_ACCESS_WRITE, 4e9);
  for (int i = 0; i < 8; ++i) submitCost(rt, sum, "part", mode, 1e9);
  submitCost(rt, sum, "read", FW_ACCESS_READ, 1e9);
  FW_EXPECT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_EXPECT_OK(fw_runtime_simulation_report(rt, &rep));
  *tasks = rep.tasks;
  *bound = rep.lower_bound_seconds;
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
  return rep.makespan_seconds;
}

TEST(ReduceSimulationTest, ContributionsOverlapTheWriterBefore) {
  uint64_t tasks = 0;
  double bound = 0;
  double reduce = simulateWriterGroupReader(kReduce, &tasks, &bound);
  EXPECT_EQ(tasks, 11u);  // with the reduction
  EXPECT_GE(reduce, 5.0);
  EXPECT_LT(reduce, 5.1);
  EXPECT_LE(bound, reduce + 1e-9);
  EXPECT_GE(bound, 5.0 - 1e-9);  // the writer, then the reader
  double commute = simulateWriterGroupReader(FW_ACCESS_READ_WRITE_COMMUTE, &tasks, &bound);
  EXPECT_EQ(tasks, 10u);
  EXPECT_NEAR(commute, 13.0, 1e-6);
}

// In a simulation of sixteen workers of 1 GFLOP/s, sixteen 1 s contributions to a
// buffer of 2^24 floats (a pass over it: 16.8 ms) end in fourteen pair tasks, three
// levels deep, and the reduction task's two passes over the last two: 1 s + 5 passes,
// where the reduction task alone takes 16 (a 64 KiB buffer, too small for pairs, still
// does).
TEST(ReduceSimulationTest, ATreeShortensTheReductionOfALargeBuffer) {
  for (int64_t elements : {int64_t(1) << 24, int64_t(1) << 14}) {
    SCOPED_TRACE(elements);
    fw_runtime_t *rt = fwtest::simulatedCpuRuntime(16, 1);
    ASSERT_NE(rt, nullptr);
    fw_buffer_t *sum = simulatedSum(rt, elements);
    ASSERT_NE(sum, nullptr);
    for (int i = 0; i < 16; ++i) submitCost(rt, sum, "part", kReduce, 1e9);
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    fw_sim_report_t rep;
    FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
    double pass = double(elements) * 1e-9;
    bool tree = elements == int64_t(1) << 24;
    EXPECT_EQ(rep.tasks, tree ? 31u : 17u);
    EXPECT_NEAR(rep.makespan_seconds, 1 + (tree ? 5 : 16) * pass, 1e-6);
    EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// Sixteen simulated workers of 1 GFLOP/s: a task `name` of `flops` accessing a sum of
// 2^24 floats (a pass over it: 16.8 ms) in `mode`, fifteen 1 s contributions to the sum,
// then a 1 s reader. The simulation's report (zeros, failing the test, when it cannot
// run).
fw_sim_report_t firstThenFifteenParts(const char *name, fw_access_t mode, double flops) {
  fw_sim_report_t rep = {};
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(16, 1);
  EXPECT_NE(rt, nullptr);
  if (!rt) return rep;
  fw_buffer_t *sum = simulatedSum(rt, int64_t(1) << 24);
  if (sum) {
    submitCost(rt, sum, name, mode, flops);
    for (int i = 0; i < 15; ++i) submitCost(rt, sum, "part", kReduce, 1e9);
    submitCost(rt, sum, "read", FW_ACCESS_READ, 1e9);
    FW_EXPECT_OK(fw_runtime_wait_all(rt));
    FW_EXPECT_OK(fw_runtime_simulation_report(rt, &rep));
    fw_buffer_release(sum);
  }
  fw_runtime_destroy(rt);
  return rep;
}

// The tree does not wait for the writer before the group, which only the reduction task
// does: sixteen workers of 1 GFLOP/s, a 4 s writer, fifteen 1 s contributions to 2^24
// floats and a 1 s reader end at 4 s + 1 pass + 1 s (the tree's four levels run while
// the writer does), not 4 s + 5 passes + 1 s.
TEST(ReduceSimulationTest, TheTreeRunsWhileTheWriterBeforeRuns) {
  fw_sim_report_t rep = firstThenFifteenParts("write", FW_ACCESS_WRITE, 4e9);
  double pass = double(int64_t(1) << 24) * 1e-9;
  EXPECT_EQ(rep.tasks, 1u + 15u + 14u + 1u + 1u);
  EXPECT_NEAR(rep.makespan_seconds, 4 + pass + 1, 1e-6);
  EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
}

// Accumulators are paired as their contributions end, once the group is closed and all
// of its contributions started: sixteen workers of 1 GFLOP/s, a 3 s contribution and
// fifteen of 1 s to 2^24 floats, then a 1 s reader: the fifteen accumulators are folded
// into one while the 3 s contribution runs, and the reduction task's two passes (that and
// the 3 s one's) are left after it: 3 s + 2 passes + 1 s (a tree made once all had
// ended: 5 passes).
TEST(ReduceSimulationTest, AccumulatorsArePairedWhileTheLastContributionRuns) {
  fw_sim_report_t rep = firstThenFifteenParts("long part", kReduce, 3e9);
  double pass = double(int64_t(1) << 24) * 1e-9;
  EXPECT_EQ(rep.tasks, 16u + 14u + 1u + 1u);
  EXPECT_NEAR(rep.makespan_seconds, 3 + 2 * pass + 1, 1e-6);
  EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
}

// The last contribution of a closed group to start lets the others' accumulators be
// paired, though none of them ends after it: four workers of 1 GFLOP/s, a 2 s
// contribution, three of 1 s, and a 3 s one that runs after the first (`after`), to 2^24
// floats, then a 1 s reader: the three idle accumulators are folded into one from 2 s
// while the 3 s contribution runs, which leaves the reduction task's two passes after it:
// 2 s + 3 s + 2 passes + 1 s (waiting for the next end, 3 passes). The same when the 3 s
// contribution reduces 32 small buffers before that one.
TEST(ReduceSimulationTest, TheLastContributionToStartLetsTheOthersBePaired) {
  for (int before : {0, 32}) {
    SCOPED_TRACE(before);
    fw_runtime_t *rt = fwtest::simulatedCpuRuntime(4, 1);
    ASSERT_NE(rt, nullptr);
    int64_t elements = int64_t(1) << 24, one = 1;
    fw_buffer_t *sum = simulatedSum(rt, elements);
    ASSERT_NE(sum, nullptr);
    std::vector<fw_task_access_t> accesses;
    for (int i = 0; i < before; ++i) {
      fw_buffer_t *small = nullptr;
      FW_ASSERT_OK(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, &one, nullptr, 0, &small));
      FW_ASSERT_OK(fw_buffer_set_reduction_op(small, FW_REDUCTION_SUM));
      accesses.push_back({small, kReduce});
    }
    accesses.push_back({sum, kReduce});
    fw_task_desc_t d = fwtest::describeTask("part", nullptr, nullptr);
    fw_task_access_t a = {sum, kReduce};
    d.accesses = &a;
    d.num_accesses = 1;
    d.flops = 2e9;
    fw_task_t *first = nullptr;
    FW_ASSERT_OK(fw_task_submit(rt, &d, &first));
    for (int i = 0; i < 3; ++i) submitCost(rt, sum, "part", kReduce, 1e9);
    d.name = "long part";
    d.accesses = accesses.data();
    d.num_accesses = accesses.size();
    d.flops = 3e9;
    d.after = &first;
    d.num_after = 1;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
    fw_task_release(first);
    submitCost(rt, sum, "read", FW_ACCESS_READ, 1e9);
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    fw_sim_report_t rep;
    FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
    double pass = double(elements) * 1e-9;
    EXPECT_EQ(rep.tasks, 5u + 2u + 1u + 1u + uint64_t(before));  // each small one's reduction
    EXPECT_NEAR(rep.makespan_seconds, 2 + 3 + 2 * pass + 1, 1e-6);
    EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
    for (size_t i = 0; i + 1 < accesses.size(); ++i) fw_buffer_release(accesses[i].buffer);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// A simulation under heft of `cpus` CPU workers of 1 GFLOP/s and a GPU of `gpu_gflops`
// behind a link of `link_gbps`; NULL, failing the test, when it cannot be made.
fw_runtime_t *cpuAndGpuSimulation(uint32_t cpus, double gpu_gflops, double link_gbps,
                                  uint32_t flags = 0) {
  fw_sim_device_t devices[2] = {fwtest::simDevice("cpu", FW_TARGET_KIND_CPU, cpus, 1),
                                 fwtest::simDevice("gpu0", FW_TARGET_KIND_CUDA, 1, gpu_gflops)};
  devices[1].link_gbps = link_gbps;
  fw_sim_machine_t machine = {2, devices};
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 0);
  o.simulate = &machine;
  o.flags = flags;
  return fwtest::createRuntime(o);
}

// Submits `n` contributions to `sum` of `flops` each, with a C and a GPU implementation.
void submitGpuContributions(fw_runtime_t *rt, fw_buffer_t *sum, int n, double flops) {
  std::vector<fw_task_access_t> a = {{sum, kReduce}};
  for (int i = 0; i < n; ++i) {
    fw_task_desc_t d = fwtest::describeTask("part", addAmount, nullptr, a);
    d.cuda_fn = [](void *, void *const *, size_t, void *) -> fw_status_t { return FW_OK; };
    d.flops = flops;
    FW_EXPECT_OK(fw_task_submit(rt, &d, nullptr));
  }
}

// A sum of floats with init and combine functions of its own (not the built-in sum).
void setOwnSum(fw_buffer_t *b) {
  fw_reduction_t r;
  r.init = [](void *, void *data, size_t size) { std::memset(data, 0, size); };
  r.combine = [](void *, void *dst, const void *src, size_t size) {
    for (size_t i = 0; i < size / sizeof(float); ++i)
      static_cast<float *>(dst)[i] += static_cast<const float *>(src)[i];
  };
  r.user_data = nullptr;
  FW_EXPECT_OK(fw_buffer_set_reduction(b, &r));
}

// Contributions with a GPU implementation run on a simulated GPU (1000 GFLOP/s against
// the CPU worker's 1), and the GPU's accumulator of a 16 MiB buffer goes over its 1 GB/s
// link: set to the neutral element on the host and copied to the GPU before the first
// contribution, and back once done, before the reduction task folds it: two hops (16.8 ms
// each), four 1 ms contributions and the pass (4.2 ms at 1 GFLOP/s). A built-in sum's is
// set to zero in the GPU's memory instead: the way back alone. The copies are in the
// bytes moved and on the trace's copy tracks; the bound counts the way back, and stays
// below the makespan.
TEST(ReduceSimulationTest, AGpusAccumulatorComesHomeOverItsLink) {
  for (bool builtin : {false, true}) {
    SCOPED_TRACE(builtin ? "built-in sum" : "a sum of its own");
    fwtest::TempDir dir;
    ASSERT_TRUE(dir.ok());
    fw_runtime_t *rt = cpuAndGpuSimulation(1, 1000, 1, FW_RUNTIME_TRACE);
    ASSERT_NE(rt, nullptr);
    const int64_t elements = int64_t(1) << 22;
    fw_buffer_t *sum = simulatedSum(rt, elements);
    ASSERT_NE(sum, nullptr);
    if (!builtin) setOwnSum(sum);
    submitGpuContributions(rt, sum, 4, 1e9);
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    fw_sim_report_t rep;
    FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
    fw_runtime_stats_t st = fwtest::statsOf(rt);
    EXPECT_EQ(st.devices[1].tasks, 4u) << "the contributions, on the GPU";
    const double hop = double(elements * 4) / 1e9, pass = double(elements) / 1e9;
    const int hops = builtin ? 1 : 2;
    EXPECT_NEAR(rep.makespan_seconds, 4e-3 + hops * hop + pass, 1e-3);
    EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
    EXPECT_GE(rep.lower_bound_seconds, 1e-3 + hop + pass - 1e-6);
    EXPECT_EQ(st.bytes_moved[FW_TIER_HOST][FW_TIER_DEVICE], builtin ? 0 : uint64_t(elements * 4));
    EXPECT_EQ(st.bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST], uint64_t(elements * 4));
    std::string text = fwtest::traceText(rt, dir);
    EXPECT_EQ(fwtest::countMatches(text, "\"name\":\"copy \\(accumulator\\)\""),
              size_t(hops))
        << text;
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// A sum of 2^24 floats (a pass over it: 16.8 ms on a simulated CPU worker of 1 GFLOP/s)
// and twelve contributions of 0.1 GFLOP, with a GPU implementation: 10 ms each on a GPU of
// 10 GFLOP/s, 100 ms on a CPU worker, then a 1 ms reader. Run where each ends first, two
// of them went to the CPU workers (ending at 100 ms, before the GPU's 11th and 12th),
// each with an accumulator: three passes after 100 ms, 151 ms. heft's plans count the
// passes of their accumulators in the reduction task's time, and a worker does not take
// over a contribution when its new accumulator costs more than the run the other gives
// away: all twelve on the GPU (120 ms), its accumulator's copy home (at 1000 GB/s), one
// pass and the reader.
TEST(ReduceSimulationTest, ContributionsStayWhereTheirAccumulatorIs) {
  fw_runtime_t *rt = cpuAndGpuSimulation(2, 10, 1000);
  ASSERT_NE(rt, nullptr);
  const int64_t elements = int64_t(1) << 24;
  fw_buffer_t *sum = simulatedSum(rt, elements);
  ASSERT_NE(sum, nullptr);
  submitGpuContributions(rt, sum, 12, 1e8);
  std::vector<fw_task_access_t> r = {{sum, FW_ACCESS_READ}};
  fw_task_desc_t read = fwtest::describeTask("read", addAmount, nullptr, r);  // a CPU task
  read.flops = 1e6;
  FW_ASSERT_OK(fw_task_submit(rt, &read, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  EXPECT_EQ(st.devices[1].tasks, 12u) << "the contributions, on the GPU";
  EXPECT_EQ(st.devices[0].tasks, 2u) << "the reduction and the reader";
  const double hop = double(elements * 4) / 1000e9, pass = double(elements) / 1e9;
  EXPECT_NEAR(rep.makespan_seconds, 0.12 + hop + pass + 1e-3, 1e-3);
  EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// Placed as they come (no plan: C tasks submitted one at a time), contributions weigh a
// new accumulator too. A simulated CPU worker of 1 GFLOP/s and a GPU of 2 GFLOP/s behind
// a 1 GB/s link; a sum of 2^24 floats (64 MiB: 67 ms over the link each way, a pass 16.8
// ms) and four contributions of 10 MFLOP (10 ms on the CPU worker, 5 ms on the GPU).
// Where each ends first, the first went to the GPU, whose accumulator then came home over
// the link (67 ms); with the accumulators counted all four run on the CPU worker: 40 ms
// and a pass.
TEST(ReduceSimulationTest, ContributionsPlacedAsTheyComeWeighANewAccumulator) {
  fw_runtime_t *rt = cpuAndGpuSimulation(1, 2, 1);
  ASSERT_NE(rt, nullptr);
  rt->sched.heft_plan_mask = 1u << 31;  // no plan of heft's has that bit: none is made
  const int64_t elements = int64_t(1) << 24;
  fw_buffer_t *sum = simulatedSum(rt, elements);
  ASSERT_NE(sum, nullptr);
  submitGpuContributions(rt, sum, 4, 1e7);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  EXPECT_EQ(st.devices[1].tasks, 0u) << "no contribution on the GPU";
  EXPECT_EQ(st.plans_made, 0u);
  const double pass = double(elements) / 1e9;
  EXPECT_NEAR(rep.makespan_seconds, 0.04 + pass, 1e-3);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// heft plans a simulation's batch through the reduction task (which is not submitted):
// a long reader after the group follows the contributions in the plan. Before, the plan
// put the reader first on a worker, which then held back the contributions planned
// behind it, waited for by the reader through the reduction: on one worker nothing ran
// (and the wait returned), on two or four the makespan exceeded an existing schedule.
// A 1 s writer, three 1 s contributions and a 10 s reader: 14 s on one worker, 12 s on
// two, 11 s on four, each the lower bound.
class ReduceHeftSimulationTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ReduceHeftSimulationTest, PlansFollowTheReduction) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(GetParam(), 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSumBuffer(rt, 0);
  submitCost(rt, sum, "write", FW_ACCESS_WRITE, 1e9);
  for (int i = 0; i < 3; ++i) submitCost(rt, sum, "part", kReduce, 1e9);
  submitCost(rt, sum, "read", FW_ACCESS_READ, 10e9);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  EXPECT_EQ(rep.tasks, 6u);
  EXPECT_EQ(fwtest::statsOf(rt).tasks_executed, 6u);
  double best = GetParam() == 1 ? 14 : GetParam() == 2 ? 12 : 11;
  EXPECT_NEAR(rep.makespan_seconds, best, 0.01);
  EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

INSTANTIATE_TEST_SUITE_P(Workers, ReduceHeftSimulationTest, ::testing::Values(1u, 2u, 4u));

// A reduction task far cheaper than the rest of the chain: one worker, a 1 s writer, three
// contributions of 1 flop to a sum of 4 floats (its reduction task: 4 ns) and a 10 s
// reader. The contributions' ranks at release leave the reduction task out (it is not
// submitted), and one cheaper than it kept a rank below it: the plan put the reduction
// task first on the worker, which held back the contributions planned behind it while the
// reduction task waited for them (the simulation stalled, one task run). With every plan
// and with HEFT's first alone.
TEST(ReduceSimulationTest, ACheapReductionTaskIsPlannedAfterItsContributions) {
  for (uint32_t mask : {0u, 1u}) {
    SCOPED_TRACE(mask);
    fw_runtime_t *rt = fwtest::simulatedCpuRuntime(1, 1);
    ASSERT_NE(rt, nullptr);
    rt->sched.heft_plan_mask = mask;
    fw_buffer_t *sum = simulatedSum(rt, 4);
    ASSERT_NE(sum, nullptr);
    submitCost(rt, sum, "write", FW_ACCESS_WRITE, 1e9);
    for (int i = 0; i < 3; ++i) submitCost(rt, sum, "part", kReduce, 1);
    submitCost(rt, sum, "read", FW_ACCESS_READ, 10e9);
    FW_EXPECT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(fwtest::statsOf(rt).tasks_executed, 6u);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// Random simulations with reductions planned over several batches: sums on machines of 1-4
// CPU workers and 0-2 GPUs, contributions (a quarter of them to two sums, half with a GPU
// implementation, some of 1 flop), readers and read-writes at random, submitted partly
// before the run and partly from completion callbacks while it runs (each such burst a
// batch of its own, which may add contributions to a group planned before). Every task
// runs, nothing stalls, and the bound stays a bound; with tiny sums too.
struct RandomReductions {
  fw_runtime_t *rt = nullptr;
  std::vector<fw_buffer_t *> sums;
  std::mt19937 rng;
  int left = 0;
  bool tiny = false;
};

void submitRandomReductions(RandomReductions *r);

void maybeSubmitMore(void *user, fw_status_t status) {
  EXPECT_EQ(status, nullptr) << fw_status_message(status);
  auto *r = static_cast<RandomReductions *>(user);
  if (r->left > 0 && r->rng() % 3 == 0) submitRandomReductions(r);
}

void submitRandomReductions(RandomReductions *r) {
  int n = 1 + int(r->rng() % 12);
  for (int k = 0; k < n && r->left > 0; ++k, --r->left) {
    fw_buffer_t *b = r->sums[r->rng() % r->sums.size()];
    unsigned kind = r->rng() % 10;
    std::vector<fw_task_access_t> a;
    const char *name = "part";
    if (kind < 7) {
      a.push_back({b, kReduce});
      fw_buffer_t *c = r->sums[r->rng() % r->sums.size()];
      if (r->rng() % 4 == 0 && c != b) a.push_back({c, kReduce});
    } else {
      a.push_back({b, kind < 9 ? FW_ACCESS_READ : FW_ACCESS_READ_WRITE});
      name = kind < 9 ? "read" : "update";
    }
    fw_task_desc_t d = fwtest::describeTask(name, addAmount, r, a);
    if (r->rng() % 2)
      d.cuda_fn = [](void *, void *const *, size_t, void *) -> fw_status_t { return FW_OK; };
    d.flops = double(r->rng() % 4 == 0 ? 1 : 1 + r->rng() % 1000) * (r->tiny ? 1 : 1e5);
    d.on_done = maybeSubmitMore;
    FW_EXPECT_OK(fw_task_submit(r->rt, &d, nullptr));
  }
}

class ReduceRandomSimulationTest : public ::testing::TestWithParam<bool> {};

TEST_P(ReduceRandomSimulationTest, GroupsPlannedOverSeveralBatchesAllRun) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    uint32_t cpus = 1 + rng() % 4, gpus = rng() % 3;
    fw_sim_device_t devices[3] = {fwtest::simDevice("cpu", FW_TARGET_KIND_CPU, cpus, 1),
                                   fwtest::simDevice("gpu0", FW_TARGET_KIND_CUDA, 1, 20),
                                   fwtest::simDevice("gpu1", FW_TARGET_KIND_CUDA, 1, 20)};
    devices[1].link_gbps = devices[2].link_gbps = 1 + rng() % 10;
    fw_sim_machine_t machine = {1 + gpus, devices};
    fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 0);
    o.simulate = &machine;
    fw_runtime_t *rt = fwtest::createRuntime(o);
    ASSERT_NE(rt, nullptr);
    RandomReductions r;
    r.rt = rt;
    r.rng.seed(seed * 7919);
    r.left = 400;
    r.tiny = GetParam();
    int sums = 1 + int(rng() % 4);
    for (int i = 0; i < sums; ++i)
      r.sums.push_back(simulatedSum(rt, int64_t(1) << (2 + rng() % (r.tiny ? 4 : 22))));
    while (r.left > 300) submitRandomReductions(&r);
    FW_EXPECT_OK(fw_runtime_wait_all(rt));
    fw_sim_report_t rep;
    FW_EXPECT_OK(fw_runtime_simulation_report(rt, &rep));
    EXPECT_EQ(rep.tasks, fwtest::statsOf(rt).tasks_executed);
    EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
    for (fw_buffer_t *b : r.sums) fw_buffer_release(b);
    fw_runtime_destroy(rt);
  }
}

INSTANTIATE_TEST_SUITE_P(Sums, ReduceRandomSimulationTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "tiny" : "large";
                         });

// The memory manager's count of future uses of the buffer comes back to zero after each
// group and its reader, with the host tier capped: the reduction is a use, the
// contributions are not (they never touch the buffer).
TEST(ReduceMemoryTest, FutureUsesComeBackToZero) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  o.tier_limits = "host=64MiB";
  fw_runtime_t *rt = fwtest::createRuntime(o);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSumBuffer(rt, 0);
  int64_t one = 1;
  uint64_t seen = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 2; ++i) FW_ASSERT_OK(submit(rt, "part", addAmount, &one, {{sum, kReduce}}));
    FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(atomic_load(&sum->mem.future_uses), 0u) << "round " << round;
  }
  EXPECT_EQ(seen, 6u);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// Accumulators are host memory of the runtime's: they count in a capped host tier and go
// to the storage tier between their uses. Two sums of 256 KiB, each read by a task held
// on a gate (which keeps their groups open), then a group on four other workers at once
// for each in turn, with room for six buffers: each group's four accumulators push the
// other's out (none has room besides: the held readers pin their sums), to come back for
// the next round or the reduction task. Same sums as without a cap.
TEST(ReduceMemoryTest, AccumulatorsCountInTheHostTierAndGoToStorage) {
  constexpr uint64_t kElements = 32768, kBytes = kElements * 8;
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_EAGER, 6, "host=1536KiB");
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *a = makeU64Sum(rt, kElements), *b = makeU64Sum(rt, kElements);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  Gate gate[2];
  auto readWhenOpen = [](void *user, void *const *, size_t) {
    auto *g = static_cast<Gate *>(user);
    g->started = true;
    while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  FW_ASSERT_OK(submit(rt, "hold a", readWhenOpen, &gate[0], {{a, FW_ACCESS_READ}}));
  FW_ASSERT_OK(submit(rt, "hold b", readWhenOpen, &gate[1], {{b, FW_ACCESS_READ}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate[0].started && gate[1].started; }));
  for (fw_buffer_t *sum : {a, b, a, b}) ASSERT_TRUE(contributeOnEveryWorker(rt, sum, 4));
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_GE(stats.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE], 3 * 4 * kBytes);
  EXPECT_GE(stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST], 2 * 4 * kBytes);
  gate[0].open = gate[1].open = true;
  uint64_t seenA = 0, seenB = 0;
  FW_ASSERT_OK(submit(rt, "read a", readValue, &seenA, {{a, FW_ACCESS_READ}}));
  FW_ASSERT_OK(submit(rt, "read b", readValue, &seenB, {{b, FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(seenA, 8u);  // element 0: one per contribution
  EXPECT_EQ(seenB, 8u);
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], 6 * kBytes);
  std::vector<uint64_t> gotA = readU64(a), gotB = readU64(b);
  for (uint64_t i = 0; i < kElements; ++i) {
    ASSERT_EQ(gotA[i], 8 * (i + 1)) << i;
    ASSERT_EQ(gotB[i], 8 * (i + 1)) << i;
  }
  fw_buffer_release(a);
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// With a host tier too small for a reduction task to take its buffer and every
// accumulator at once, pair tasks fold them until it can: four accumulators of 256 KiB
// in room for four buffers, two pairs (which would not pay without the cap), then the
// reduction task folds the last two. The tier's peak never passes its cap. A buffer that
// is the caller's memory (fw_buffer_wrap) is outside the tier: the four fit beside it.
TEST(ReduceMemoryTest, AccumulatorsThatDoNotFitWithTheBufferArePairedFirst) {
  constexpr uint64_t kElements = 32768, kBytes = kElements * 8;
  struct Case {
    const char *limits;
    bool wrapped;
    uint64_t pairs;
  };
  for (const Case &c : {Case{"host=1MiB", false, 2}, Case{"", false, 0},
                        Case{"host=1MiB", true, 0}}) {
    SCOPED_TRACE(std::string(c.limits) + (c.wrapped ? " wrapped" : ""));
    fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_EAGER, 4, c.limits);
    ASSERT_NE(rt, nullptr);
    std::vector<uint64_t> memory(kElements, 0);
    const int64_t dims[1] = {int64_t(kElements)};
    fw_buffer_t *sum = nullptr;
    if (c.wrapped)
      FW_ASSERT_OK(fw_buffer_wrap(rt, FW_ELEMENT_TYPE_I64, 1, dims, memory.data(), kBytes,
                                  nullptr, nullptr, &sum));
    else
      sum = makeU64Buffer(rt, kElements);
    ASSERT_NE(sum, nullptr);
    FW_ASSERT_OK(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM));
    ASSERT_TRUE(contributeOnEveryWorker(rt, sum, 4));
    uint64_t seen = 0;
    FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(seen, 4u);
    fw_runtime_stats_t stats;
    FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
    EXPECT_EQ(stats.tasks_executed, 4u + c.pairs + 1 + 1);
    if (*c.limits) EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], 4 * kBytes);
    std::vector<uint64_t> got = readU64(sum);
    for (uint64_t i = 0; i < kElements; ++i) ASSERT_EQ(got[i], 4 * (i + 1)) << i;
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// Many groups into three sums of 64 KiB (every other contribution also reads an input),
// with readers closing every other round's groups, under host tiers from as small as the
// tasks allow to a few buffers: the sums come out exact, the tier's peak within its cap,
// and nothing stays pinned.
class ReduceTierTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {};

void addPartAndInput(void *user, void *const *data, size_t num) {
  const uint64_t *amount = static_cast<const uint64_t *>(user);
  auto *acc = static_cast<uint64_t *>(data[0]);
  const uint64_t *in = num > 1 ? static_cast<const uint64_t *>(data[1]) : nullptr;
  for (uint64_t i = 0; i < 8192; ++i) acc[i] += amount[0] * (i + 1) + (in ? in[i] : 0);
}

TEST_P(ReduceTierTest, ManyGroupsUnderTightHostTiers) {
  constexpr uint64_t kElements = 8192;
  constexpr int kSums = 3, kRounds = 4, kParts = 5;
  for (const char *limits : {"host=min", "host=192KiB", "host=320KiB"}) {
    SCOPED_TRACE(limits);
    fw_runtime_t *rt = tieredRuntime(GetParam(), 4, limits);
    ASSERT_NE(rt, nullptr);
    std::vector<fw_buffer_t *> sums, inputs;
    std::vector<std::vector<uint64_t>> expect(kSums), in(kSums);
    for (int k = 0; k < kSums; ++k) {
      expect[k].resize(kElements);
      in[k].resize(kElements);
      for (uint64_t i = 0; i < kElements; ++i) {
        expect[k][i] = 1000 * k + i;
        in[k][i] = 7 * k + i % 13;
      }
      sums.push_back(makeU64Sum(rt, kElements, expect[k]));
      inputs.push_back(makeU64Buffer(rt, kElements, in[k]));
      ASSERT_NE(sums.back(), nullptr);
      ASSERT_NE(inputs.back(), nullptr);
    }
    std::vector<uint64_t> amounts(kSums * kRounds * kParts), seen(kSums * kRounds);
    size_t n = 0;
    for (int r = 0; r < kRounds; ++r) {
      for (int k = 0; k < kSums; ++k) {
        for (int p = 0; p < kParts; ++p, ++n) {
          amounts[n] = n + 1;
          std::vector<fw_task_access_t> accesses = {{sums[k], kReduce}};
          if (p % 2 == 0) accesses.push_back({inputs[k], FW_ACCESS_READ});
          FW_ASSERT_OK(submit(rt, "part", addPartAndInput, &amounts[n], accesses));
          for (uint64_t i = 0; i < kElements; ++i)
            expect[k][i] += (n + 1) * (i + 1) + (p % 2 == 0 ? in[k][i] : 0);
        }
        if (r % 2 == 1)
          FW_ASSERT_OK(submit(rt, "read", readValue, &seen[r * kSums + k],
                              {{sums[k], FW_ACCESS_READ}}));
      }
    }
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    fw_runtime_stats_t stats = fwtest::statsOf(rt);
    if (std::string(limits) != "host=min")
      EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], stats.limit_bytes[FW_TIER_HOST]);
    EXPECT_GT(stats.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE], 0u);
    for (int k = 0; k < kSums; ++k) {
      std::vector<uint64_t> got = readU64(sums[k]);
      for (uint64_t i = 0; i < kElements; ++i) ASSERT_EQ(got[i], expect[k][i]) << k << " " << i;
    }
    fw_memory_t *m = &rt->memory;
    pthread_mutex_lock(&m->lock);
    for (fw_buffer_t *b = m->buffers; b; b = b->mem.next)
      EXPECT_EQ(atomic_load(&b->mem.writers), 0u);
    pthread_mutex_unlock(&m->lock);
    for (fw_buffer_t *b : sums) fw_buffer_release(b);
    for (fw_buffer_t *b : inputs) fw_buffer_release(b);
    fw_runtime_destroy(rt);
  }
}

FW_INSTANTIATE_FOR_EVERY_POLICY(ReduceTierTest);

// A worker without an accumulator for a group takes over another worker's idle one when
// the host tier has no room for a new one without moving something to storage: three
// workers, room for three buffers, the sum held by a writer before the group (the first
// worker), a contribution on the third worker, another buffer that fills the tier, then
// a contribution on the second: it adds into the third worker's accumulator (one `init`
// in all), and nothing goes to storage. Without the cap the second worker makes its own.
TEST(ReduceMemoryTest, AnIdleAccumulatorIsTakenOverWhenTheTierHasNoRoom) {
  constexpr uint64_t kElements = 32768;
  for (bool capped : {true, false}) {
    SCOPED_TRACE(capped ? "host=768KiB" : "no cap");
    fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_EAGER, 3, capped ? "host=768KiB" : "");
    ASSERT_NE(rt, nullptr);
    CountedSum counted;
    fw_buffer_t *sum = counted.buffer(rt, kElements);
    ASSERT_NE(sum, nullptr);
    Gate writer, first, second;
    auto waitForOpen = [](void *user, void *const *, size_t) {
      auto *g = static_cast<Gate *>(user);
      g->started = true;
      while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    };
    FW_ASSERT_OK(submit(rt, "writer", writeWhenOpen, &writer, {{sum, FW_ACCESS_WRITE}}));
    FW_ASSERT_OK(submit(rt, "first", waitForOpen, &first, {}));
    ASSERT_TRUE(fwtest::waitUntil([&] { return writer.started && first.started; }));
    int64_t one = 1;
    fw_task_t *part = nullptr;
    FW_ASSERT_OK(submit(rt, "part", addAmount, &one, {{sum, kReduce}}, &part));
    FW_EXPECT_OK(fw_task_wait(part));
    fw_task_release(part);
    fw_buffer_t *other = makeU64Buffer(rt, kElements, std::vector<uint64_t>(kElements, 7));
    ASSERT_NE(other, nullptr);
    FW_ASSERT_OK(submit(rt, "second", waitForOpen, &second, {}));
    ASSERT_TRUE(fwtest::waitUntil([&] { return second.started.load(); }));
    first.open = true;
    FW_ASSERT_OK(submit(rt, "part", addAmount, &one, {{sum, kReduce}}, &part));
    FW_EXPECT_OK(fw_task_wait(part));
    fw_task_release(part);
    fw_runtime_stats_t stats = fwtest::statsOf(rt);
    EXPECT_EQ(counted.made, capped ? 1u : 2u);
    EXPECT_EQ(stats.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE], 0u);
    second.open = writer.open = true;
    uint64_t seen = 0;
    FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(seen, 0u + 2);  // the writer's 0, then the two parts
    fw_buffer_release(other);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// A contribution's accumulator is part of what it needs at once: with room for one
// buffer, a contribution that reads one and reduces into another fails, naming itself
// and both sizes, as any task too large for its tier does.
TEST(ReduceMemoryTest, AContributionWithItsAccumulatorTooLargeForTheTierIsAnError) {
  constexpr uint64_t kElements = 32768;
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_EAGER, 1, "host=256KiB");
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *in = makeU64Buffer(rt, kElements), *sum = makeU64Sum(rt, kElements);
  ASSERT_NE(in, nullptr);
  ASSERT_NE(sum, nullptr);
  fw_task_t *t = nullptr;
  int64_t one = 1;
  FW_ASSERT_OK(submit(rt, "part", addAmount, &one, {{sum, kReduce}, {in, FW_ACCESS_READ}}, &t));
  fw_status_t status = fw_task_wait(t);
  ASSERT_NE(status, FW_OK);
  EXPECT_EQ(fw_status_code(status), FW_STATUS_RESOURCE_EXHAUSTED);
  std::string message = fw_status_message(status);
  EXPECT_NE(message.find("task @part needs 524288 bytes of host memory at once"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("at most 262144 bytes"), std::string::npos) << message;
  fw_status_free(status);
  fw_task_release(t);
  fw_status_free(fw_runtime_wait_all(rt));
  fw_buffer_release(in);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// Folding needs the buffer and an accumulator at once: with room for one and a half
// buffers, the contributions run but the reduction task fails, naming itself and the
// sizes, and so does the reader after it.
TEST(ReduceMemoryTest, AHostTierWithoutRoomForTwiceTheBufferFailsTheReduction) {
  constexpr uint64_t kElements = 32768;
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_EAGER, 1, "host=384KiB");
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeU64Sum(rt, kElements);
  ASSERT_NE(sum, nullptr);
  int64_t one = 1;
  fw_task_t *part = nullptr, *read = nullptr;
  FW_ASSERT_OK(submit(rt, "part", addAmount, &one, {{sum, kReduce}}, &part));
  uint64_t seen = 0;
  FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}, &read));
  FW_EXPECT_OK(fw_task_wait(part));
  fw_status_t status = fw_task_wait(read);
  ASSERT_NE(status, FW_OK);
  std::string message = fw_status_message(status);
  EXPECT_NE(message.find("task @part.reduce needs 524288 bytes of host memory at once"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("at most 393216 bytes"), std::string::npos) << message;
  fw_status_free(status);
  fw_status_free(fw_runtime_wait_all(rt));
  fw_task_release(part);
  fw_task_release(read);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// A reduction task's history is kept by the passes it makes: after pairs (four
// accumulators of 2 MiB) it folds the last two, under twice the buffer's size; with one
// accumulator one, under the buffer's; the pair tasks one each, under the buffer's.
TEST(ReduceHistoryTest, TheReductionIsKeptByThePassesItMakes) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_WS, 4));
  ASSERT_NE(rt, nullptr);
  constexpr uint64_t kBytes = 2u << 20;
  fw_buffer_t *sum = makeU64Buffer(rt, kBytes / 8);
  ASSERT_NE(sum, nullptr);
  FW_ASSERT_OK(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM));
  uint64_t seen = 0;
  for (int workers : {4, 4, 4, 1, 1, 1}) {
    ASSERT_TRUE(contributeOnEveryWorker(rt, sum, workers));
    FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
  }
  EXPECT_EQ(seen, 15u);  // element 0: one per contribution
  double s = 0;
  EXPECT_TRUE(fw_history_estimate(&rt->history, "part.reduce", FW_TARGET_KIND_CPU, kBytes, &s));
  EXPECT_TRUE(
      fw_history_estimate(&rt->history, "part.reduce", FW_TARGET_KIND_CPU, 2 * kBytes, &s));
  EXPECT_TRUE(
      fw_history_estimate(&rt->history, "part.reduce.combine", FW_TARGET_KIND_CPU, kBytes, &s));
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// The trace shows the reduction as a task of its own ("part.reduce", named after the
// group's first contribution), with an edge from each contribution and from the writer
// before the group, and one to the reader after.
TEST(ReduceTraceTest, TheReductionIsATaskWithItsEdges) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = fwtest::tracedRuntime(FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSumBuffer(rt, 0);
  Gate gate;
  gate.value = 1;
  FW_ASSERT_OK(submit(rt, "write", writeWhenOpen, &gate, {{sum, FW_ACCESS_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  int64_t one = 1;
  std::vector<fw_task_t *> parts(3);
  for (fw_task_t *&t : parts)
    FW_ASSERT_OK(submit(rt, "part", addAmount, &one, {{sum, kReduce}}, &t));
  for (fw_task_t *t : parts) FW_EXPECT_OK(fw_task_wait(t));  // before the writer ends
  uint64_t seen = 0;
  FW_ASSERT_OK(submit(rt, "read", readValue, &seen, {{sum, FW_ACCESS_READ}}));
  gate.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(seen, 4u);
  std::string text = fwtest::traceText(rt, dir);
  EXPECT_NE(text.find("\"name\":\"part.reduce\""), std::string::npos) << text;
  // write -> reduce, 3 parts -> reduce, -> read
  EXPECT_EQ(fwtest::traceFlows(text), 1u + 3u + 1u) << text;
  for (fw_task_t *t : parts) fw_task_release(t);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// With pairs, the trace has their tasks and edges too: from each worker's (last)
// contribution to the pair task that folds its accumulator, and from each pair task to
// the reduction task: four parts of 2 MiB give 4 edges to the reduction, 4 to the two
// pair tasks and 2 from them (the reduction task folds their two results; the caller
// reads the sum: no edge).
TEST(ReduceTraceTest, TheTreeIsInTheTraceWithItsEdges) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = fwtest::tracedRuntime(FW_SCHEDULER_EAGER, 4);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeU64Buffer(rt, (2u << 20) / 8);
  ASSERT_NE(sum, nullptr);
  FW_ASSERT_OK(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM));
  ASSERT_TRUE(contributeOnEveryWorker(rt, sum, 4));
  EXPECT_EQ(readU64(sum)[0], 4u);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  std::string text = fwtest::traceText(rt, dir);
  EXPECT_EQ(fwtest::countMatches(text, "\"name\":\"part\\.reduce\\.combine\""), 2u) << text;
  EXPECT_EQ(fwtest::traceFlows(text), 4u + 4u + 2u) << text;
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// Workers take over each other's idle accumulators under a tight host tier while their
// completions are deferred (contributions of a few microseconds): three sums of 4 KiB,
// six rounds of 120 contributions each in room for four of them, every policy, 4 and 8
// workers, every other round waited for (the waiting thread runs tasks too). A body
// reads its accumulator, spins, then writes it: two at once would lose updates, and a
// guard counts two bodies on one accumulator. The sums come out exact.
class ReduceTakeOverTest
    : public ::testing::TestWithParam<std::tuple<fw_scheduler_kind_t, uint32_t>> {};

struct SpinPart {
  uint64_t amount;
  int spin_ns;
};
std::mutex gWritingLock;
std::vector<void *> gWriting;  // accumulators a body writes now
std::atomic<int> gOverlaps{0};

void addAfterSpinning(void *user, void *const *data, size_t) {
  const auto *p = static_cast<const SpinPart *>(user);
  auto *acc = static_cast<uint64_t *>(data[0]);
  {
    std::lock_guard<std::mutex> g(gWritingLock);
    if (std::find(gWriting.begin(), gWriting.end(), acc) != gWriting.end()) ++gOverlaps;
    gWriting.push_back(acc);
  }
  uint64_t local[512];
  for (uint64_t i = 0; i < 512; ++i) local[i] = acc[i] + p->amount * (i + 1);
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(p->spin_ns);
  while (std::chrono::steady_clock::now() < until) {
  }
  for (uint64_t i = 0; i < 512; ++i) acc[i] = local[i];
  std::lock_guard<std::mutex> g(gWritingLock);
  gWriting.erase(std::find(gWriting.begin(), gWriting.end(), acc));
}

TEST_P(ReduceTakeOverTest, ManySmallContributionsUnderATightTierAddUpExactly) {
  constexpr uint64_t kElements = 512;  // 4 KiB
  constexpr int kSums = 3, kRounds = 6, kParts = 120;
  fw_runtime_t *rt =
      tieredRuntime(std::get<0>(GetParam()), std::get<1>(GetParam()), "host=16KiB");
  ASSERT_NE(rt, nullptr);
  std::vector<fw_buffer_t *> sums;
  std::vector<std::vector<uint64_t>> expect(kSums);
  for (int k = 0; k < kSums; ++k) {
    expect[k].resize(kElements);
    for (uint64_t i = 0; i < kElements; ++i) expect[k][i] = 1000 * k + i;
    sums.push_back(makeU64Sum(rt, kElements, expect[k]));
    ASSERT_NE(sums.back(), nullptr);
  }
  std::vector<SpinPart> parts(kSums * kRounds * kParts);
  std::vector<uint64_t> seen(kSums * kRounds);
  std::mt19937 rng(1234);
  size_t n = 0;
  for (int r = 0; r < kRounds; ++r) {
    for (int p = 0; p < kParts; ++p) {
      for (int k = 0; k < kSums; ++k, ++n) {
        parts[n] = {n + 1, int(rng() % 4000)};
        FW_ASSERT_OK(submit(rt, "part", addAfterSpinning, &parts[n], {{sums[k], kReduce}}));
        for (uint64_t i = 0; i < kElements; ++i) expect[k][i] += (n + 1) * (i + 1);
      }
    }
    for (int k = 0; k < kSums; ++k)
      FW_ASSERT_OK(submit(rt, "read", readValue, &seen[r * kSums + k], {{sums[k], FW_ACCESS_READ}}));
    if (r % 2 == 1) FW_ASSERT_OK(fw_runtime_wait_all(rt));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(gOverlaps.exchange(0), 0) << "two contributions wrote one accumulator at once";
  for (int k = 0; k < kSums; ++k) {
    std::vector<uint64_t> got = readU64(sums[k]);
    for (uint64_t i = 0; i < kElements; ++i) ASSERT_EQ(got[i], expect[k][i]) << k << " " << i;
  }
  for (fw_buffer_t *b : sums) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, ReduceTakeOverTest,
    ::testing::Combine(::testing::Values(FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT),
                       ::testing::Values(4u, 8u)),
    [](const ::testing::TestParamInfo<std::tuple<fw_scheduler_kind_t, uint32_t>> &info) {
      return std::string(fwtest::schedulerName(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param)) + "_workers";
    });

}  // namespace
