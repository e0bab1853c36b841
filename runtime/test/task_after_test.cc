// Control edges (fw_task_desc_t.after): a task runs after the tasks it names, besides those
// its buffer accesses order it after, under every policy; handles released at once, joins,
// predecessors already done or failed, the simulator's view of the edges, and the errors.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "fw/runtime.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::sleepMs;

// Submits a task that runs after `after`; keeps the handle in `*out` when given.
fw_status_t submitAfter(fw_runtime_t *rt, const char *name, fw_task_fn_t fn, void *user,
                        std::vector<fw_task_t *> after,
                        std::vector<fw_task_access_t> accesses = {},
                        fw_task_t **out = nullptr) {
  return fwtest::submit(rt, name, fn, user, std::move(accesses), out, std::move(after));
}

// Sleeps `sleep_ms`, then sets `*flag`.
struct SlowSet {
  int sleep_ms;
  std::atomic<int> *flag;
};

void slowSet(void *user, void *const *, size_t) {
  auto *s = static_cast<SlowSet *>(user);
  sleepMs(s->sleep_ms);
  s->flag->store(1);
}

// Records what `*flag` held when it ran.
struct Look {
  std::atomic<int> *flag;
  int seen = -1;
};

void look(void *user, void *const *, size_t) {
  auto *l = static_cast<Look *>(user);
  l->seen = l->flag->load();
}

// Appends its index to a shared list.
struct Order {
  std::mutex lock;
  std::vector<int> ran;
};
struct Step {
  Order *order;
  int index;
};

void step(void *user, void *const *, size_t) {
  auto *s = static_cast<Step *>(user);
  std::lock_guard<std::mutex> hold(s->order->lock);
  s->order->ran.push_back(s->index);
}

class TaskAfterTest : public fwtest::TwoWorkerPolicyTest {};

// No buffer links the two: with two workers the second would run beside the slow first
// one and see the flag unset.
TEST_P(TaskAfterTest, OrdersTasksThatShareNoBuffer) {
  std::atomic<int> flag{0};
  SlowSet first{40, &flag};
  Look second{&flag};
  fw_task_t *a = nullptr;
  FW_ASSERT_OK(submitAfter(rt_, "first", slowSet, &first, {}, {}, &a));
  FW_ASSERT_OK(submitAfter(rt_, "second", look, &second, {a}));
  fw_task_release(a);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(second.seen, 1);
}

// Each handle is released as soon as the next task names it: the edge holds what it
// needs (a submission may be inserted after the submit returns).
TEST_P(TaskAfterTest, ChainOfHandlesReleasedAtOnceRunsInOrder) {
  constexpr int kTasks = 300;
  Order order;
  std::vector<Step> steps(kTasks);
  fw_task_t *prev = nullptr;
  for (int i = 0; i < kTasks; ++i) {
    steps[i] = {&order, i};
    fw_task_t *t = nullptr;
    std::vector<fw_task_t *> after;
    if (prev) after.push_back(prev);
    FW_ASSERT_OK(submitAfter(rt_, "step", step, &steps[i], after, {}, &t));
    fw_task_release(prev);
    prev = t;
  }
  fw_task_release(prev);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  ASSERT_EQ(order.ran.size(), size_t(kTasks));
  for (int i = 0; i < kTasks; ++i) EXPECT_EQ(order.ran[i], i);
}

// A join after several independent tasks, which run side by side.
TEST_P(TaskAfterTest, JoinRunsAfterEveryTaskItNames) {
  constexpr int kForks = 6;
  std::atomic<int> done{0};
  std::vector<fw_task_t *> forks;
  for (int i = 0; i < kForks; ++i) {
    fw_task_t *t = nullptr;
    FW_ASSERT_OK(submitAfter(
        rt_, "fork", [](void *user, void *const *, size_t) {
          sleepMs(5);
          static_cast<std::atomic<int> *>(user)->fetch_add(1);
        },
        &done, {}, {}, &t));
    forks.push_back(t);
  }
  forks.push_back(forks.front());  // named twice: one edge
  Look join{&done};
  fw_task_t *j = nullptr;
  FW_ASSERT_OK(submitAfter(rt_, "join", look, &join, forks, {}, &j));
  forks.pop_back();
  for (fw_task_t *t : forks) fw_task_release(t);
  FW_ASSERT_OK(fw_task_wait(j));
  fw_task_release(j);
  EXPECT_EQ(join.seen, kForks);
}

// A task after one that completed runs at once; its buffers still order it as usual.
TEST_P(TaskAfterTest, AfterACompletedTaskOnlyItsBuffersOrderIt) {
  std::atomic<int> flag{0};
  SlowSet first{0, &flag};
  fw_task_t *a = nullptr;
  FW_ASSERT_OK(submitAfter(rt_, "first", slowSet, &first, {}, {}, &a));
  FW_ASSERT_OK(fw_task_wait(a));
  fw_buffer_t *b = makeU64Buffer(rt_, 4);
  ASSERT_NE(b, nullptr);
  std::atomic<int> wrote{0};
  SlowSet writer{30, &wrote};
  Look reader{&wrote};
  FW_ASSERT_OK(submitAfter(rt_, "writer", slowSet, &writer, {a}, {{b, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submitAfter(rt_, "reader", look, &reader, {a}, {{b, FW_ACCESS_READ}}));
  fw_task_release(a);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(reader.seen, 1);
  fw_buffer_release(b);
}

// A body combines what its children compute with a task after them (children that write
// no buffer the combiner reads: only the edges order it).
TEST_P(TaskAfterTest, BodyJoinsItsChildren) {
  struct Parent {
    fw_runtime_t *rt;
    std::atomic<int> children{0};
    Look combine;
    fw_status_t status = nullptr;
  } parent;
  parent.rt = rt_;
  parent.combine.flag = &parent.children;
  fw_task_t *p = nullptr;
  FW_ASSERT_OK(submitAfter(
      rt_, "parent", [](void *user, void *const *, size_t) {
        auto *pa = static_cast<Parent *>(user);
        std::vector<fw_task_t *> kids;
        for (int i = 0; i < 3 && !pa->status; ++i) {
          fw_task_t *k = nullptr;
          pa->status = submitAfter(
              pa->rt, "child", [](void *u, void *const *, size_t) {
                sleepMs(5);
                static_cast<std::atomic<int> *>(u)->fetch_add(1);
              },
              &pa->children, {}, {}, &k);
          if (k) kids.push_back(k);
        }
        if (!pa->status) pa->status = submitAfter(pa->rt, "combine", look, &pa->combine, kids);
        for (fw_task_t *k : kids) fw_task_release(k);
      },
      &parent, {}, {}, &p));
  FW_ASSERT_OK(fw_task_wait(p));
  fw_task_release(p);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  FW_EXPECT_OK(parent.status);
  EXPECT_EQ(parent.combine.seen, 3);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(TaskAfterTest);

void mark(void *user, void *const *, size_t) { static_cast<std::atomic<int> *>(user)->store(1); }

// A task after one that fails is cancelled with its error, whether the failure comes
// while it waits (the edge) or came before it was submitted.
TEST(TaskAfterErrorTest, AfterAFailedTaskFailsWithItsError) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_DEFAULT, 2);
  o.tier_limits = "host=1MiB";
  o.storage_dir = dir.path().c_str();
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  // A task whose buffers (1.25 MiB) cannot fit the host tier at once fails; a gate keeps
  // it from starting until its successor is submitted.
  static std::atomic<bool> open;
  open = false;
  fw_task_t *gate = nullptr, *huge = nullptr, *waiting = nullptr, *late = nullptr;
  FW_ASSERT_OK(submitAfter(
      rt, "gate", [](void *, void *const *, size_t) {
        fwtest::waitUntil([&] { return open.load(); });
      },
      nullptr, {}, {}, &gate));
  std::vector<fw_buffer_t *> bufs;
  std::vector<fw_task_access_t> acc;
  for (int i = 0; i < 5; ++i) {
    bufs.push_back(makeU64Buffer(rt, 32768));  // 256 KiB each
    acc.push_back({bufs.back(), i == 0 ? FW_ACCESS_WRITE : FW_ACCESS_READ});
  }
  std::atomic<int> huge_ran{0}, waiting_ran{0}, late_ran{0}, other_ran{0};
  FW_ASSERT_OK(submitAfter(rt, "huge", mark, &huge_ran, {gate}, acc, &huge));
  FW_ASSERT_OK(submitAfter(rt, "waiting", mark, &waiting_ran, {huge}, {}, &waiting));
  FW_ASSERT_OK(submitAfter(rt, "other", mark, &other_ran, {gate}));
  open = true;
  FW_EXPECT_ERROR(fw_task_wait(huge), "task @huge needs 1310720 bytes of host memory at once");
  FW_EXPECT_ERROR(fw_task_wait(waiting), "task @huge");
  FW_ASSERT_OK(submitAfter(rt, "late", mark, &late_ran, {huge}, {}, &late));
  FW_EXPECT_ERROR(fw_task_wait(late), "task @huge");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt), "task @huge");
  EXPECT_EQ(huge_ran.load(), 0);
  EXPECT_EQ(waiting_ran.load(), 0);
  EXPECT_EQ(late_ran.load(), 0);
  EXPECT_EQ(other_ran.load(), 1);  // after the gate alone, which succeeded
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_EQ(stats.tasks_failed, 3u);
  for (fw_task_t *t : {gate, huge, waiting, late}) fw_task_release(t);
  for (fw_buffer_t *b : bufs) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

TEST(TaskAfterErrorTest, BadPredecessorsAreRefused) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_DEFAULT, 1);
  fw_runtime_t *rt = nullptr, *other = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  FW_ASSERT_OK(fw_runtime_create(&o, &other));
  std::atomic<int> ran{0};
  fw_task_t *theirs = nullptr;
  FW_ASSERT_OK(submitAfter(other, "theirs", mark, &ran, {}, {}, &theirs));
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "mine";
  d.fn = mark;
  d.user_data = &ran;
  d.num_after = 1;  // after is NULL
  FW_EXPECT_ERROR(fw_task_submit(rt, &d, nullptr), "task 'mine': after is NULL");
  fw_task_t *mine = nullptr;
  FW_ASSERT_OK(submitAfter(rt, "first", mark, &ran, {}, {}, &mine));
  fw_task_t *with_null[] = {mine, nullptr};
  d.after = with_null;
  d.num_after = 2;
  FW_EXPECT_ERROR(fw_task_submit(rt, &d, nullptr), "task 'mine': after[1] is NULL");
  fw_task_t *foreign[] = {theirs};
  d.after = foreign;
  d.num_after = 1;
  FW_EXPECT_ERROR(fw_task_submit(rt, &d, nullptr),
                  "task 'mine': after[0] (task 'theirs') belongs to another runtime");
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_EQ(stats.tasks_submitted, 1u);  // "first" alone
  FW_ASSERT_OK(fw_task_wait(theirs));
  FW_ASSERT_OK(fw_task_wait(mine));
  fw_task_release(theirs);
  fw_task_release(mine);
  fw_runtime_destroy(other);
  fw_runtime_destroy(rt);
}

// The simulator runs the edges and its bounds count them: two tasks of 0.1 s on a
// machine of two workers take 0.2 s one after the other, and the critical path is both.
TEST(TaskAfterSimulationTest, EdgesOrderTheSimulatedRunAndItsBound) {
  fw_sim_device_t cpu = fwtest::simDevice("cpu", FW_TARGET_KIND_CPU, 2, 10);
  fw_sim_machine_t machine = {1, &cpu};
  for (fw_scheduler_kind_t kind : {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(kind));
    fw_runtime_options_t o = fwtest::taskOptions(kind, 0);
    o.simulate = &machine;
    fw_runtime_t *rt = nullptr;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt));
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = "step";
    d.flops = 1e9;
    fw_task_t *a = nullptr;
    FW_ASSERT_OK(fw_task_submit(rt, &d, &a));
    d.after = &a;
    d.num_after = 1;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
    fw_task_release(a);
    fw_sim_report_t r;
    FW_ASSERT_OK(fw_runtime_simulation_report(rt, &r));
    EXPECT_EQ(r.tasks, 2u);
    EXPECT_NEAR(r.makespan_seconds, 0.2, 1e-9);
    EXPECT_NEAR(r.critical_path_seconds, 0.2, 1e-9);
    fw_runtime_destroy(rt);
  }
}

}  // namespace
