// The task graph (fw_task_submit): dependencies inferred from buffer accesses under every
// scheduling policy, concurrency of independent tasks, a large random graph checked
// against a sequential replay, and the errors of the task API and of the runtime
// options.
#include <gtest/gtest.h>

#include <limits>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fw/runtime.h"
#include "memory.h"
#include "random_graph.h"
#include "runtime_internal.h"
#include "sleeping_workers.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::readU64;
using fwtest::sleepMs;
using fwtest::submit;

constexpr size_t kN = 1024;  // elements per buffer in the dependency tests

// ---- Task bodies ----------------------------------------------------------------

struct Fill {
  uint64_t value;
  int sleep_ms;
};

// data[0] = value everywhere, after sleeping.
void fillTask(void *user, void *const *data, size_t num) {
  auto *f = static_cast<Fill *>(user);
  if (f->sleep_ms) sleepMs(f->sleep_ms);
  ASSERT_GE(num, 1u);
  auto *p = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < kN; ++i) p[i] = f->value + i;
}

// data[1] = data[0], after sleeping `*(int *)user` ms.
void copyTask(void *user, void *const *data, size_t num) {
  int ms = user ? *static_cast<int *>(user) : 0;
  if (ms) sleepMs(ms);
  ASSERT_EQ(num, 2u);
  std::memcpy(data[1], data[0], kN * sizeof(uint64_t));
}

// data[0][i] += 1.
void incrementTask(void *, void *const *data, size_t) {
  auto *p = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < kN; ++i) p[i] += 1;
}

std::vector<uint64_t> expectedFill(uint64_t value) {
  std::vector<uint64_t> v(kN);
  for (size_t i = 0; i < kN; ++i) v[i] = value + i;
  return v;
}

// ---- Each dependency kind under each policy ------------------------------------

class PolicyTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void SetUp() override { create(2); }
  void TearDown() override { fw_runtime_destroy(rt_); }

  void create(uint32_t workers) {
    fw_runtime_destroy(rt_);
    rt_ = nullptr;
    fw_runtime_options_t o = fwtest::taskOptions(GetParam(), workers);
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  }
  // Runs `body` on a fresh runtime of two workers; under heft twice, with
  // heft_place_alike off and on (set under the lock the workers read it with).
  template <typename Body>
  void inEachPlaceAheadMode(Body body) {
    std::vector<int> modes = GetParam() == FW_SCHEDULER_HEFT ? std::vector<int>{0, 1}
                                                             : std::vector<int>{0};
    for (int placeAhead : modes) {
      SCOPED_TRACE(placeAhead ? "placed ahead" : "taken when free");
      create(2);
      fw_sched_lock(&rt_->sched);
      rt_->sched.heft_place_alike = placeAhead;
      fw_sched_unlock(&rt_->sched);
      body();
    }
  }
  // Teaches the history that tasks named `name` take `ms`: three runs that long.
  void teach(const char *name, int ms);
  void taskQueuedBehindAnOverrunningTask();
  void idleWorkerLooksAgainWhenAnotherRunsLate();

  fw_runtime_t *rt_ = nullptr;
};

TEST_P(PolicyTest, ReadAfterWrite) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN), *b = makeU64Buffer(rt_, kN);
  ASSERT_TRUE(a && b);
  // The writer is slow: a reader that did not wait for it would copy zeros.
  Fill fill{1000, 30};
  FW_ASSERT_OK(submit(rt_, "write", fillTask, &fill, {{a, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "read", copyTask, nullptr,
                      {{a, FW_ACCESS_READ}, {b, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(readU64(b), expectedFill(1000));
  EXPECT_EQ(readU64(a), expectedFill(1000));
  fw_buffer_release(a);
  fw_buffer_release(b);
}

TEST_P(PolicyTest, WriteAfterRead) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(1)), *b = makeU64Buffer(rt_, kN);
  ASSERT_TRUE(a && b);
  // The reader sleeps before it copies: a writer that did not wait for it would have
  // overwritten `a` by then.
  int slow = 40;
  Fill fill{2000, 0};
  FW_ASSERT_OK(submit(rt_, "slow-read", copyTask, &slow,
                      {{a, FW_ACCESS_READ}, {b, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "overwrite", fillTask, &fill, {{a, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(readU64(b), expectedFill(1));
  EXPECT_EQ(readU64(a), expectedFill(2000));
  fw_buffer_release(a);
  fw_buffer_release(b);
}

TEST_P(PolicyTest, WriteAfterReadWithSeveralReaders) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(5));
  ASSERT_NE(a, nullptr);
  std::vector<fw_buffer_t *> copies;
  int slow = 20;
  for (int i = 0; i < 3; ++i) {
    copies.push_back(makeU64Buffer(rt_, kN));
    FW_ASSERT_OK(submit(rt_, "read", copyTask, &slow,
                        {{a, FW_ACCESS_READ}, {copies.back(), FW_ACCESS_WRITE}}));
  }
  Fill fill{77, 0};
  FW_ASSERT_OK(submit(rt_, "overwrite", fillTask, &fill, {{a, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  for (fw_buffer_t *c : copies) {
    EXPECT_EQ(readU64(c), expectedFill(5));
    fw_buffer_release(c);
  }
  EXPECT_EQ(readU64(a), expectedFill(77));
  fw_buffer_release(a);
}

TEST_P(PolicyTest, WriteAfterWrite) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN);
  ASSERT_NE(a, nullptr);
  Fill first{1, 30}, second{2, 0};
  FW_ASSERT_OK(submit(rt_, "first", fillTask, &first, {{a, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "second", fillTask, &second, {{a, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(readU64(a), expectedFill(2));
  fw_buffer_release(a);
}

TEST_P(PolicyTest, ReadWriteChain) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(0));
  ASSERT_NE(a, nullptr);
  fw_task_t *last = nullptr;
  for (int i = 0; i < 200; ++i) {
    fw_task_release(last);
    last = nullptr;
    FW_ASSERT_OK(submit(rt_, "inc", incrementTask, nullptr, {{a, FW_ACCESS_READ_WRITE}}, &last));
  }
  FW_ASSERT_OK(fw_task_wait(last));
  fw_task_release(last);
  EXPECT_EQ(readU64(a), expectedFill(200));
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_submitted, 200u);
  EXPECT_EQ(stats.tasks_executed, 200u);
  EXPECT_EQ(stats.tasks_failed, 0u);
  EXPECT_STREQ(stats.scheduler, fwtest::schedulerName(GetParam()));
  ASSERT_EQ(stats.num_devices, 1u);
  EXPECT_STREQ(stats.devices[0].name, "cpu");
  EXPECT_EQ(stats.devices[0].workers, 2u);
  EXPECT_EQ(stats.devices[0].tasks, 200u);
  fw_buffer_release(a);
}

// The host data of a buffer may be written between tasks (fw_buffer_data), and the next
// task sees it.
TEST_P(PolicyTest, HostWritesBetweenTasks) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN), *b = makeU64Buffer(rt_, kN);
  ASSERT_TRUE(a && b);
  for (uint64_t round = 0; round < 5; ++round) {
    auto *p = static_cast<uint64_t *>(fw_buffer_data(a));
    ASSERT_NE(p, nullptr);
    for (size_t i = 0; i < kN; ++i) p[i] = round * 10 + i;
    FW_ASSERT_OK(submit(rt_, "copy", copyTask, nullptr,
                        {{a, FW_ACCESS_READ}, {b, FW_ACCESS_WRITE}}));
    EXPECT_EQ(readU64(b), expectedFill(round * 10));
  }
  fw_buffer_release(a);
  fw_buffer_release(b);
}

// Two tasks on different buffers meet at a barrier: they can only both pass it when they
// run at the same time on the two workers.
struct Barrier {
  std::atomic<int> arrived{0};
  std::atomic<int> passed{0};
};

void barrierTask(void *user, void *const *, size_t) {
  auto *b = static_cast<Barrier *>(user);
  b->arrived.fetch_add(1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (b->arrived.load() < 2) {
    if (std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::yield();
  }
  b->passed.fetch_add(1);
}

TEST_P(PolicyTest, IndependentTasksRunConcurrently) {
  fw_buffer_t *a = makeU64Buffer(rt_, 8), *b = makeU64Buffer(rt_, 8);
  ASSERT_TRUE(a && b);
  // Round 0 submits while the workers may still be polling; the later rounds after they
  // have gone to sleep (each wake-up must reach a different worker).
  for (int round = 0; round < 4; ++round) {
    if (round > 0) sleepMs(20);
    Barrier barrier;
    FW_ASSERT_OK(submit(rt_, "meet", barrierTask, &barrier, {{a, FW_ACCESS_WRITE}}));
    FW_ASSERT_OK(submit(rt_, "meet", barrierTask, &barrier, {{b, FW_ACCESS_READ_WRITE}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    EXPECT_EQ(barrier.passed.load(), 2) << "round " << round;
  }
  fw_buffer_release(a);
  fw_buffer_release(b);
}

// Readers of the same buffer are independent too.
TEST_P(PolicyTest, ReadersOfOneBufferRunConcurrently) {
  fw_buffer_t *a = makeU64Buffer(rt_, 8);
  ASSERT_NE(a, nullptr);
  for (int round = 0; round < 3; ++round) {
    if (round > 0) sleepMs(20);
    Barrier barrier;
    FW_ASSERT_OK(submit(rt_, "meet", barrierTask, &barrier, {{a, FW_ACCESS_READ}}));
    FW_ASSERT_OK(submit(rt_, "meet", barrierTask, &barrier, {{a, FW_ACCESS_READ}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    EXPECT_EQ(barrier.passed.load(), 2) << "round " << round;
  }
  fw_buffer_release(a);
}

// data[i] is the buffer of access i even when a buffer appears in several accesses (the
// runtime merges them into one access per buffer internally).
struct Seen {
  size_t num = 0;
  void *data[4] = {};
};

void recordTask(void *user, void *const *data, size_t num) {
  auto *s = static_cast<Seen *>(user);
  s->num = num;
  for (size_t i = 0; i < num && i < 4; ++i) s->data[i] = data[i];
  // Access 2 is the written one: a + 1 everywhere into c's first element.
  auto *c = static_cast<uint64_t *>(data[2]);
  c[0] = static_cast<const uint64_t *>(data[0])[0] + 1;
}

TEST_P(PolicyTest, DuplicateAccessesKeepTheirIndices) {
  fw_buffer_t *a = makeU64Buffer(rt_, 4, {41, 0, 0, 0}), *c = makeU64Buffer(rt_, 4);
  ASSERT_TRUE(a && c);
  Seen seen;
  FW_ASSERT_OK(submit(rt_, "dup", recordTask, &seen,
                      {{a, FW_ACCESS_READ}, {a, FW_ACCESS_READ}, {c, FW_ACCESS_WRITE},
                       {c, FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(seen.num, 4u);
  EXPECT_EQ(seen.data[0], seen.data[1]);
  EXPECT_EQ(seen.data[2], seen.data[3]);
  EXPECT_NE(seen.data[0], seen.data[2]);
  EXPECT_EQ(readU64(c)[0], 42u);
  fw_buffer_release(a);
  fw_buffer_release(c);
}

TEST_P(PolicyTest, TaskWithoutAccessesRuns) {
  std::atomic<int> ran{0};
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(submit(
      rt_, "", [](void *user, void *const *, size_t num) {
        EXPECT_EQ(num, 0u);
        static_cast<std::atomic<int> *>(user)->fetch_add(1);
      },
      &ran, {}, &t));
  FW_ASSERT_OK(fw_task_wait(t));
  FW_ASSERT_OK(fw_task_wait(t));  // waiting twice is fine
  fw_task_release(t);
  EXPECT_EQ(ran.load(), 1);
}

TEST_P(PolicyTest, TaskIsDoneOnceItFinished) {
  static std::atomic<bool> open;
  open = false;
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(submit(
      rt_, "gated", [](void *, void *const *, size_t) {
        fwtest::waitUntil([&] { return open.load(); });
      },
      nullptr, {}, &t));
  sleepMs(5);
  EXPECT_EQ(fw_task_is_done(t), 0);
  open = true;
  fwtest::waitUntil([&] { return fw_task_is_done(t) != 0; });
  EXPECT_EQ(fw_task_is_done(t), 1);
  FW_EXPECT_OK(fw_task_wait(t));
  fw_task_release(t);
  EXPECT_EQ(fw_task_is_done(nullptr), 1);
}

// A body fails its task with fw_task_fail: the error (named for the task) is what waiting
// returns, its successor is cancelled with it, and a later reader of what it was to write
// fails too; only the first failure of a run counts, and outside a body the call is
// refused.
TEST_P(PolicyTest, BodyFailsItsTask) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN);
  ASSERT_NE(a, nullptr);
  fw_task_t *failing = nullptr, *after = nullptr;
  static std::atomic<bool> open;
  open = false;
  FW_ASSERT_OK(submit(
      rt_, "parse", [](void *, void *const *, size_t) {
        fwtest::waitUntil([&] { return open.load(); });
        FW_EXPECT_OK(fw_task_fail(fw_status_create(FW_STATUS_INVALID_ARGUMENT, "bad header")));
        FW_EXPECT_OK(fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "second")));
      },
      nullptr, {{a, FW_ACCESS_WRITE}}, &failing));
  int ran = 0;
  FW_ASSERT_OK(submit(
      rt_, "use", [](void *user, void *const *, size_t) { ++*static_cast<int *>(user); }, &ran,
      {{a, FW_ACCESS_READ}}, &after));
  open = true;
  fw_status_t s = fw_task_wait(failing);
  EXPECT_EQ(fw_status_code(s), FW_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fw_status_message(s), "task @parse: bad header");
  fw_status_free(s);
  FW_EXPECT_ERROR(fw_task_wait(after), "task @parse: bad header");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "bad header");
  EXPECT_EQ(ran, 0);
  FW_ASSERT_OK(submit(
      rt_, "late", [](void *user, void *const *, size_t) { ++*static_cast<int *>(user); },
      &ran, {{a, FW_ACCESS_READ}}));
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "bad header");  // submitted after: poisoned
  EXPECT_EQ(ran, 0);
  fw_task_release(failing);
  fw_task_release(after);
  FW_EXPECT_ERROR(fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "x")),
                  "fw_task_fail outside a task body");
  fw_buffer_release(a);
}

// A failure reaches the tasks that read what the failed task was to write, and those
// named to run after it, transitively, and no others: a task that overwrites what it
// wrote, or writes what it read, runs, and so do the readers after it. The same tasks run
// whether the failure comes while the others wait or before they are submitted.
struct Reach {
  std::atomic<int> ran{0};
  std::atomic<int> saw_overwrite{0};  // "reread" read what "overwrite" wrote
};

void reachMark(void *user, void *const *, size_t) {
  static_cast<Reach *>(user)->ran.fetch_add(1);
}

void reachReread(void *user, void *const *data, size_t) {
  auto *r = static_cast<Reach *>(user);
  r->ran.fetch_add(1);
  if (static_cast<const uint64_t *>(data[0])[kN - 1] == 7 + kN - 1) r->saw_overwrite = 1;
}

TEST_P(PolicyTest, AFailureCancelsOnlyTheTasksThatReadWhatItWrote) {
  for (bool fail_first : {false, true}) {
    SCOPED_TRACE(fail_first ? "failed before the others were submitted"
                            : "failed while the others waited");
    fw_buffer_t *a = makeU64Buffer(rt_, kN), *b = makeU64Buffer(rt_, kN),
                *c = makeU64Buffer(rt_, kN);
    ASSERT_TRUE(a && b && c);
    static std::atomic<bool> open;
    open = fail_first;
    fw_task_t *failing = nullptr;
    FW_ASSERT_OK(submit(
        rt_, "broken", [](void *, void *const *, size_t) {
          fwtest::waitUntil([&] { return open.load(); });
          FW_EXPECT_OK(fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "bad input")));
        },
        nullptr, {{c, FW_ACCESS_READ}, {a, FW_ACCESS_WRITE}, {b, FW_ACCESS_WRITE}},
        &failing));
    if (fail_first) FW_EXPECT_ERROR(fw_task_wait(failing), "task @broken: bad input");
    const char *kNames[] = {"read-a",  "write-c", "overwrite", "reread",
                            "read-b",  "update-b", "after",    "read-b-again"};
    const bool kRuns[] = {false, true, true, true, false, false, false, false};
    Reach reach[8];
    Fill seven{7, 0};
    std::vector<fw_task_t *> tasks(8, nullptr);
    FW_ASSERT_OK(submit(rt_, kNames[0], reachMark, &reach[0], {{a, FW_ACCESS_READ}}, &tasks[0]));
    FW_ASSERT_OK(submit(rt_, kNames[1], reachMark, &reach[1], {{c, FW_ACCESS_WRITE}}, &tasks[1]));
    FW_ASSERT_OK(submit(rt_, kNames[2], fillTask, &seven, {{a, FW_ACCESS_WRITE}}, &tasks[2]));
    FW_ASSERT_OK(submit(rt_, kNames[3], reachReread, &reach[3], {{a, FW_ACCESS_READ}}, &tasks[3]));
    FW_ASSERT_OK(submit(rt_, kNames[4], reachMark, &reach[4], {{b, FW_ACCESS_READ}}, &tasks[4]));
    // Reads what "broken" wrote, behind "read-b": cancelled too.
    FW_ASSERT_OK(
        submit(rt_, kNames[5], reachMark, &reach[5], {{b, FW_ACCESS_READ_WRITE}}, &tasks[5]));
    FW_ASSERT_OK(submit(rt_, kNames[6], reachMark, &reach[6], {}, &tasks[6], {failing}));
    open = true;
    FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "task @broken: bad input");
    // "update-b" failed in turn, so what it was to write fails a later reader.
    FW_ASSERT_OK(submit(rt_, kNames[7], reachMark, &reach[7], {{b, FW_ACCESS_READ}}, &tasks[7]));
    FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "task @broken: bad input");
    for (size_t i = 0; i < tasks.size(); ++i) {
      SCOPED_TRACE(kNames[i]);
      if (kRuns[i]) FW_EXPECT_OK(fw_task_wait(tasks[i]));
      else FW_EXPECT_ERROR(fw_task_wait(tasks[i]), "task @broken: bad input");
      if (i != 2) EXPECT_EQ(reach[i].ran.load(), kRuns[i] ? 1 : 0);
      fw_task_release(tasks[i]);
    }
    EXPECT_EQ(reach[3].saw_overwrite.load(), 1);
    EXPECT_EQ(readU64(a), expectedFill(7));
    fw_buffer_unmap(a);
    fw_task_release(failing);
    for (fw_buffer_t *x : {a, b, c}) fw_buffer_release(x);
  }
}

// Several threads submit at once (a submission that finds the scheduler busy is staged
// and inserted by whoever holds it): each thread's tasks still run in its order, and the
// tasks of all threads on a shared buffer never overlap (no increment is lost; under
// ThreadSanitizer an overlap is also a reported race).
struct Step {
  uint64_t index;
  std::atomic<int> *out_of_order;
};

void stepTask(void *user, void *const *data, size_t num) {
  auto *step = static_cast<Step *>(user);
  ASSERT_EQ(num, 2u);
  auto *own = static_cast<uint64_t *>(data[0]);
  if (own[0] != step->index) step->out_of_order->fetch_add(1);
  own[0] = step->index + 1;
  static_cast<uint64_t *>(data[1])[0] += 1;
}

TEST_P(PolicyTest, ConcurrentSubmittersKeepEachThreadsOrder) {
  constexpr int kThreads = 4;
  constexpr uint64_t kTasks = 300;
  fw_buffer_t *shared = makeU64Buffer(rt_, 1, {0});
  ASSERT_NE(shared, nullptr);
  std::vector<fw_buffer_t *> own(kThreads);
  for (auto &b : own) ASSERT_NE(b = makeU64Buffer(rt_, 1, {0}), nullptr);
  std::atomic<int> out_of_order{0}, failed{0};
  std::vector<std::vector<Step>> steps(kThreads, std::vector<Step>(kTasks));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < kTasks; ++i) {
        steps[t][i] = {i, &out_of_order};
        fw_status_t st = submit(rt_, "step", stepTask, &steps[t][i],
                                {{own[t], FW_ACCESS_READ_WRITE}, {shared, FW_ACCESS_READ_WRITE}});
        if (st != FW_OK) {
          failed.fetch_add(1);
          fw_status_free(st);
        }
      }
    });
  for (auto &th : threads) th.join();
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(out_of_order.load(), 0);
  for (auto *b : own) EXPECT_EQ(readU64(b)[0], kTasks);
  EXPECT_EQ(readU64(shared)[0], kThreads * kTasks);
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_executed, kThreads * kTasks);
  for (auto *b : own) fw_buffer_release(b);
  fw_buffer_release(shared);
}

// data[0][0] += 1.
void incrementFirstTask(void *, void *const *data, size_t) {
  ++static_cast<uint64_t *>(data[0])[0];
}

// Batches of held tasks (as a module call's) released from several threads while other
// tasks run: heft plans each batch with the scheduler lock let go (and, for 128 tasks and
// more, its plans side by side on threads), and every task still runs once, in order on
// its buffer. Each batch is 16 chains of 12 increments, with estimates long enough
// (flops) that more than one plan is worth making.
TEST_P(PolicyTest, HeldBatchesReleasedWhileOtherTasksRun) {
  constexpr int kBatches = 3, kChains = 16, kSteps = 12, kOthers = 400;
  std::vector<std::vector<fw_buffer_t *>> chains(kBatches);
  for (auto &batch : chains)
    for (int c = 0; c < kChains; ++c) batch.push_back(makeU64Buffer(rt_, 1, {0}));
  fw_buffer_t *other = makeU64Buffer(rt_, 1, {0});
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int b = 0; b < kBatches; ++b)
    threads.emplace_back([&, b] {
      std::string name = "held" + std::to_string(b);  // no history: the flops estimate
      std::vector<fw_task_t *> held;
      for (int step = 0; step < kSteps; ++step)
        for (int c = 0; c < kChains; ++c) {
          fw_task_access_t access = {chains[b][c], FW_ACCESS_READ_WRITE};
          fw_task_t *t = nullptr;
          fw_status_t st = fw_task_create(rt_, name.c_str(), &access, 1, &t);
          if (st != FW_OK) {
            fw_status_free(st);
            failed.fetch_add(1);
            continue;
          }
          t->fn = incrementFirstTask;
          t->flops = 1e8;
          fw_memory_unmap(&rt_->memory, chains[b][c]);
          fw_scheduler_submit(&rt_->sched, t, &rt_->sched.api_group, 1);
          held.push_back(t);
        }
      fw_scheduler_release_held(&rt_->sched, held.data(), held.size(), 0);
      for (fw_task_t *t : held) fw_task_release(t);
    });
  threads.emplace_back([&] {
    for (int i = 0; i < kOthers; ++i) {
      fw_status_t st = submit(rt_, "other", incrementFirstTask, nullptr, {{other, FW_ACCESS_READ_WRITE}});
      if (st != FW_OK) {
        fw_status_free(st);
        failed.fetch_add(1);
      }
    }
  });
  for (auto &th : threads) th.join();
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(failed.load(), 0);
  for (auto &batch : chains)
    for (fw_buffer_t *chain : batch) EXPECT_EQ(readU64(chain)[0], uint64_t(kSteps));
  EXPECT_EQ(readU64(other)[0], uint64_t(kOthers));
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_executed, uint64_t(kBatches * kChains * kSteps + kOthers));
  if (GetParam() == FW_SCHEDULER_HEFT) {
    EXPECT_EQ(stats.batches_planned, uint64_t(kBatches));
    EXPECT_EQ(stats.plans_made, uint64_t(2 * kBatches)) << "HEFT's plan and the list plan each";
  } else {
    EXPECT_EQ(stats.batches_planned, 0u);
  }
  for (auto &batch : chains)
    for (fw_buffer_t *chain : batch) fw_buffer_release(chain);
  fw_buffer_release(other);
}

// A worker takes several short tasks at a time, but never two long ones: after a stream
// of short tasks, two long tasks (long by the history of their name) run side by side on
// the two workers. The history learns the time they take: taught 5 ms for tasks that ran
// 40, heft rightly saw the first one's worker free again 5 ms after it started, and gave
// it the second whenever the other worker (preempted on a loaded machine) still had short
// tasks queued then.
struct Span {
  int ms = 0;
  std::atomic<int64_t> start{0}, end{0};
};

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void spanTask(void *user, void *const *, size_t) {
  auto *span = static_cast<Span *>(user);
  span->start = nowNs();
  sleepMs(span->ms);
  span->end = nowNs();
}

// Many readers completing out of order while two run on (the first submitted, and one in
// the middle): the buffer's list of readers is renumbered without the completed ones as
// more are added, and a writer submitted after all of them still waits for both.
TEST_P(PolicyTest, WriterWaitsForReadersLeftAmongManyCompleted) {
  create(3);  // two workers held by the gates, one for the rest
  fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(5));
  ASSERT_NE(a, nullptr);
  struct Gate {
    std::atomic<bool> started{false}, open{false};
    std::atomic<int64_t> end{0};
  };
  auto gateTask = [](void *user, void *const *, size_t) {
    auto *g = static_cast<Gate *>(user);
    g->started = true;
    while (!g->open.load()) sleepMs(1);
    g->end = nowNs();
  };
  // Once a gate runs, no task submitted later waits behind it in a batch of its worker
  // (and none submitted before, when those completed before it was submitted).
  auto started = [](const Gate &g) {
    for (int waited = 0; !g.started.load() && waited < 20000; ++waited) sleepMs(1);
    return g.started.load();
  };
  auto readTask = [](void *user, void *const *, size_t) {
    static_cast<std::atomic<int> *>(user)->fetch_add(1);
  };
  auto readersDone = [](const std::atomic<int> &done, int n) {
    for (int waited = 0; done.load() < n && waited < 20000; ++waited) sleepMs(1);
    return done.load();
  };
  Gate first, middle;
  std::atomic<int> done{0};
  FW_ASSERT_OK(submit(rt_, "gate", gateTask, &first, {{a, FW_ACCESS_READ}}));
  ASSERT_TRUE(started(first));
  for (int i = 0; i < 300; ++i)
    FW_ASSERT_OK(submit(rt_, "read", readTask, &done, {{a, FW_ACCESS_READ}}));
  ASSERT_EQ(readersDone(done, 300), 300);  // none left for a batch with the next gate
  FW_ASSERT_OK(submit(rt_, "gate", gateTask, &middle, {{a, FW_ACCESS_READ}}));
  ASSERT_TRUE(started(middle));
  for (int i = 0; i < 300; ++i)
    FW_ASSERT_OK(submit(rt_, "read", readTask, &done, {{a, FW_ACCESS_READ}}));
  ASSERT_EQ(readersDone(done, 600), 600);
  // Two of 602 readers left: the next ones make the list drop the completed.
  for (int i = 0; i < 2000; ++i)
    FW_ASSERT_OK(submit(rt_, "read", readTask, &done, {{a, FW_ACCESS_READ}}));
  ASSERT_EQ(readersDone(done, 2600), 2600);
  struct Overwrite {
    Fill fill{77, 0};
    std::atomic<int64_t> start{0};
  } writer;
  auto writeTask = [](void *user, void *const *data, size_t num) {
    auto *w = static_cast<Overwrite *>(user);
    w->start = nowNs();
    fillTask(&w->fill, data, num);
  };
  FW_ASSERT_OK(submit(rt_, "overwrite", writeTask, &writer, {{a, FW_ACCESS_WRITE}}));
  middle.open = true;
  sleepMs(20);
  EXPECT_EQ(writer.start.load(), 0) << "the writer ran while the first reader ran";
  first.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_GE(writer.start.load(), first.end.load());
  EXPECT_GE(writer.start.load(), middle.end.load());
  EXPECT_EQ(readU64(a), expectedFill(77));
  fw_buffer_release(a);
}

TEST_P(PolicyTest, LongTasksAfterShortOnesRunSideBySide) {
  auto noop = [](void *, void *const *, size_t) {};
  constexpr int kLongMs = 40;
  for (int i = 0; i < 3; ++i) {  // the history learns how long "long" is
    Span warm;
    warm.ms = kLongMs;
    FW_ASSERT_OK(submit(rt_, "long", spanTask, &warm, {}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 400; ++i) FW_ASSERT_OK(submit(rt_, "tiny", noop, nullptr, {}));
    Span a, b;
    a.ms = b.ms = kLongMs;
    FW_ASSERT_OK(submit(rt_, "long", spanTask, &a, {}));
    FW_ASSERT_OK(submit(rt_, "long", spanTask, &b, {}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    EXPECT_LT(a.start.load(), b.end.load()) << "round " << round;
    EXPECT_LT(b.start.load(), a.end.load()) << "round " << round;
  }
}

// Under heft each of the next two tests runs twice: as on a machine of CPU workers alone
// (nothing placed ahead: a worker that frees takes the next task), and with tasks placed
// ahead on the workers' queues as with accelerators in service (heft_place_alike), where
// a worker that runs late must not hold the tasks queued behind it.
void PolicyTest::teach(const char *name, int ms) {
  for (int i = 0; i < 3; ++i) {
    Span warm;
    warm.ms = ms;
    FW_ASSERT_OK(submit(rt_, name, spanTask, &warm, {}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  }
}

// A task that runs far longer than its history says does not hold up the tasks behind it:
// "late" is taught 2 ms and runs 80, "mid" is taught and runs 10. With the late task on
// one worker and a mid task on the other, a third task is placed either once the late
// one has overrun (its worker no longer looks free at once) or before (queued behind it
// by the estimates, it is taken by the other worker when that one goes idle). Either way
// it starts long before the late task ends.
TEST_P(PolicyTest, TaskQueuedBehindAnOverrunningTaskRunsElsewhere) {
  inEachPlaceAheadMode([&] { taskQueuedBehindAnOverrunningTask(); });
}

void PolicyTest::taskQueuedBehindAnOverrunningTask() {
  teach("late", 2);
  teach("mid", 10);
  for (int placedLate : {1, 0}) {
    Span late, mid, next;
    late.ms = 80;
    mid.ms = next.ms = 10;
    FW_ASSERT_OK(submit(rt_, "late", spanTask, &late, {}));
    FW_ASSERT_OK(submit(rt_, "mid", spanTask, &mid, {}));
    if (placedLate) sleepMs(6);
    FW_ASSERT_OK(submit(rt_, "mid", spanTask, &next, {}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    EXPECT_LT(next.start.load(), late.end.load()) << "placed after the overrun: " << placedLate;
  }
}

// The same when the other worker finds nothing to take before the late task overruns:
// "late" is taught 2 ms and runs 80, "short" is taught and runs 3. The third task is
// queued behind the late one (expected to finish there first); the other worker, done at
// 3 ms while the late one is not late yet, looks again when it is rather than sleep.
TEST_P(PolicyTest, IdleWorkerLooksAgainWhenAnotherRunsLate) {
  inEachPlaceAheadMode([&] { idleWorkerLooksAgainWhenAnotherRunsLate(); });
}

void PolicyTest::idleWorkerLooksAgainWhenAnotherRunsLate() {
  teach("late", 2);
  teach("short", 3);
  Span late, first, next;
  late.ms = 80;
  first.ms = next.ms = 3;
  FW_ASSERT_OK(submit(rt_, "late", spanTask, &late, {}));
  FW_ASSERT_OK(submit(rt_, "short", spanTask, &first, {}));
  FW_ASSERT_OK(submit(rt_, "short", spanTask, &next, {}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_LT(next.start.load(), late.end.load());
}

// A worker completes a batch of short tasks together, but never holds a completion back
// while it runs a task of another kind: the task right before a long one in a batch is
// seen complete before the long one ends. One worker, and every alignment of the two in
// the batches. Under eager and heft, which run one worker's tasks oldest first (under ws a
// worker runs its own deque newest first, so the long task would go first).
TEST(BatchTest, CompletionIsNotHeldBehindALongTask) {
  for (fw_scheduler_kind_t policy : {FW_SCHEDULER_EAGER, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_options_t o = fwtest::taskOptions(policy, 1);
    fw_runtime_t *rt = nullptr;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt));
    auto noop = [](void *, void *const *, size_t) {};
    for (int k = 0; k < 8; ++k) {
      for (int i = 0; i < 200 + k; ++i) FW_ASSERT_OK(submit(rt, "tiny", noop, nullptr, {}));
      fw_task_t *before = nullptr;
      FW_ASSERT_OK(submit(rt, "tiny", noop, nullptr, {}, &before));
      Span slow;
      slow.ms = 30;
      FW_ASSERT_OK(submit(rt, "slow", spanTask, &slow, {}));
      FW_ASSERT_OK(fw_task_wait(before));
      int64_t seen = nowNs();
      fw_task_release(before);
      FW_ASSERT_OK(fw_runtime_wait_all(rt));
      EXPECT_LT(seen, slow.end.load()) << "alignment " << k;
    }
    fw_runtime_destroy(rt);
  }
}

// A worker running short tasks takes several at once, but none of them waits behind a
// task of another kind, which may run long: with a long task among short ones, the other
// worker runs every short one before the long one ends.
TEST_P(PolicyTest, NoTaskWaitsInABatchBehindALongOne) {
  auto noop = [](void *, void *const *, size_t) {};
  for (int i = 0; i < 2000; ++i) FW_ASSERT_OK(submit(rt_, "tiny", noop, nullptr, {}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));  // both workers' last tasks were short
  constexpr int kTiny = 400;
  std::vector<std::atomic<int64_t>> ends(kTiny);
  auto tinyTask = [](void *user, void *const *, size_t) {
    static_cast<std::atomic<int64_t> *>(user)->store(nowNs());
  };
  Span slow;
  slow.ms = 100;
  for (int i = 0; i < kTiny; ++i) {
    if (i == kTiny / 2) FW_ASSERT_OK(submit(rt_, "slow", spanTask, &slow, {}));
    FW_ASSERT_OK(submit(rt_, "tiny", tinyTask, &ends[i], {}));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  int after = 0;
  for (auto &end : ends) after += end.load() > slow.end.load();
  EXPECT_EQ(after, 0) << after << " short tasks ended after the long one";
}

// A task of higher priority submitted while every worker is busy starts before the tasks
// of lower priority submitted earlier. Under eager one queue is shared; under heft with
// workers all alike nothing is placed on a worker ahead of time (placed ahead, the low
// tasks filled both workers' queues, two each, and the high one ran last).
TEST(PriorityTest, LaterHigherPriorityTaskOvertakesQueuedOnes) {
  for (fw_scheduler_kind_t policy : {FW_SCHEDULER_EAGER, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_options_t o = fwtest::taskOptions(policy, 2);
    fw_runtime_t *rt = nullptr;
    FW_ASSERT_OK(fw_runtime_create(&o, &rt));
    fwtest::expectLaterHigherPriorityTaskRunsFirst(rt, 2);
    fw_runtime_destroy(rt);
  }
}

// Destroying the runtime while tasks run: buffers keep it alive, the tasks finish, and
// the last reference (here a buffer's) tears it down.
TEST_P(PolicyTest, DestroyWhileTasksRun) {
  fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(0));
  ASSERT_NE(a, nullptr);
  static int slow = 5;
  fw_buffer_t *b = makeU64Buffer(rt_, kN);
  for (int i = 0; i < 5; ++i) {
    FW_ASSERT_OK(submit(rt_, "inc", incrementTask, nullptr, {{a, FW_ACCESS_READ_WRITE}}));
    FW_ASSERT_OK(submit(rt_, "copy", copyTask, &slow, {{a, FW_ACCESS_READ}, {b, FW_ACCESS_WRITE}}));
  }
  fw_runtime_destroy(rt_);
  rt_ = nullptr;
  EXPECT_EQ(readU64(a), expectedFill(5));
  EXPECT_EQ(readU64(b), expectedFill(5));
  fw_buffer_release(a);
  fw_buffer_release(b);
}

// The caller drops everything while the tasks are still queued: the last references go
// away on the runtime's own threads.
TEST_P(PolicyTest, ReleaseEverythingWhileTasksRun) {
  static std::atomic<int> done{0};
  done = 0;
  fw_buffer_t *a = makeU64Buffer(rt_, kN);
  ASSERT_NE(a, nullptr);
  for (int i = 0; i < 4; ++i)
    FW_ASSERT_OK(submit(
        rt_, "inc", [](void *, void *const *data, size_t) {
          sleepMs(5);
          incrementTask(nullptr, data, 1);
          done.fetch_add(1);
        },
        nullptr, {{a, FW_ACCESS_READ_WRITE}}));
  fw_buffer_release(a);
  fw_runtime_destroy(rt_);
  rt_ = nullptr;
  fwtest::waitUntil([&] { return done.load() >= 4; });
  EXPECT_EQ(done.load(), 4);
  sleepMs(20);  // let the teardown finish before the next test
}

// FW_SPIN_US=0: idle workers and waiting threads sleep at once instead of polling.
// Every kind of wait still returns when its tasks are done, round after round, where
// each new task wakes a sleeping worker and each completion a sleeping waiter.
TEST_P(PolicyTest, WaitsWithoutPollingStillSeeEveryCompletion) {
  {
    fwtest::ScopedEnv spin("FW_SPIN_US", "0");
    create(2);
  }
  ASSERT_NE(rt_, nullptr);
  EXPECT_EQ(rt_->spin_ns, 0u);
  fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(0));
  ASSERT_NE(a, nullptr);
  constexpr int kRounds = 60;
  for (int r = 0; r < kRounds; ++r) {
    fw_task_t *t = nullptr;
    fw_task_desc_t d = {};
    d.name = "inc";
    d.fn = incrementTask;
    fw_task_access_t access = {a, FW_ACCESS_READ_WRITE};
    d.accesses = &access;
    d.num_accesses = 1;
    FW_ASSERT_OK(fw_task_submit(rt_, &d, &t));
    switch (r % 3) {  // each wait in turn: the task, the buffer, everything
    case 0:
      FW_ASSERT_OK(fw_task_wait(t));
      break;
    case 1: {
      const auto *p = static_cast<const uint64_t *>(fw_buffer_data(a));
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(p[0], uint64_t(r + 1));
      fw_buffer_unmap(a);
      break;
    }
    default:
      FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    }
    fw_task_release(t);
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(readU64(a), expectedFill(kRounds));
  fw_buffer_release(a);
}

// A thread waiting for tasks runs them itself in the place of a sleeping worker (whose
// thread, woken for the task, finds it taken): with FW_SPIN_US=0 every worker sleeps
// between rounds, so a round's task runs on the waiting thread some of the time (who gets
// there first is a race: a worker woken on an idle core may finish the task before the
// wait begins), each counted in tasks_by_waiters; with FW_CALLER_RUNS=0, never. Every
// kind of wait takes part, and the buffer ends as the rounds left it.
struct RanOn {
  std::thread::id thread;
};

void incrementAndNote(void *user, void *const *data, size_t num) {
  static_cast<RanOn *>(user)->thread = std::this_thread::get_id();
  incrementTask(nullptr, data, num);
}

TEST_P(PolicyTest, AWaitingThreadRunsTasksInASleepingWorkersPlace) {
  for (const char *caller_runs : {"1", "0"}) {
    SCOPED_TRACE(std::string("FW_CALLER_RUNS=") + caller_runs);
    {
      fwtest::ScopedEnv spin("FW_SPIN_US", "0");
      fwtest::ScopedEnv runs("FW_CALLER_RUNS", caller_runs);
      create(2);
    }
    ASSERT_NE(rt_, nullptr);
    fw_buffer_t *a = makeU64Buffer(rt_, kN, expectedFill(0));
    ASSERT_NE(a, nullptr);
    // 60 rounds, and more until the waiting thread ran one (at most 3000).
    constexpr int kRounds = 60, kMaxRounds = 3000;
    std::vector<RanOn> ran(kMaxRounds);
    int rounds = 0;
    for (bool waiter_ran = false; rounds < kMaxRounds; ++rounds) {
      if (rounds >= kRounds && (waiter_ran || caller_runs[0] == '0')) break;
      const int r = rounds;
      fw_task_t *t = nullptr;
      FW_ASSERT_OK(submit(rt_, "inc", incrementAndNote, &ran[r], {{a, FW_ACCESS_READ_WRITE}}, &t));
      switch (r % 3) {  // each wait in turn: the task, the buffer, everything
      case 0:
        FW_ASSERT_OK(fw_task_wait(t));
        break;
      case 1:
        EXPECT_EQ(readU64(a)[0], uint64_t(r + 1));
        fw_buffer_unmap(a);
        break;
      default:
        FW_ASSERT_OK(fw_runtime_wait_all(rt_));
      }
      fw_task_release(t);
      waiter_ran = waiter_ran || ran[r].thread == std::this_thread::get_id();
    }
    FW_ASSERT_OK(fw_runtime_wait_all(rt_));
    EXPECT_EQ(readU64(a), expectedFill(rounds));
    fw_buffer_unmap(a);
    fw_buffer_release(a);
    uint64_t by_caller = 0;
    for (const RanOn &r : ran) by_caller += r.thread == std::this_thread::get_id();
    fw_runtime_stats_t stats;
    FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
    EXPECT_EQ(stats.tasks_by_waiters, by_caller);
    EXPECT_EQ(stats.devices[0].tasks, uint64_t(rounds));
    if (caller_runs[0] == '1') EXPECT_GT(by_caller, 0u);
    else EXPECT_EQ(by_caller, 0u);
  }
}

// Tasks released for a caller that waits at once (a synchronous module call) do not wake
// the worker they would: the caller takes its place (spare_wake). That worker is left
// untold as well as asleep: asleep and marked told, every later push would pass it over
// once another worker had taken its task, and tasks only it could run would wait for
// good. The caller then runs the task.
TEST_P(PolicyTest, AWakeUpSparedForTheCallerLeavesTheWorkerUntold) {
  {
    fwtest::ScopedEnv spin("FW_SPIN_US", "0");
    create(1);
  }
  ASSERT_NE(rt_, nullptr);
  ASSERT_TRUE(fwtest::cpuWorkersAsleep(rt_));
  static std::atomic<int> ran;
  ran = 0;
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(fw_task_create(rt_, "held", nullptr, 0, &t));
  t->fn = [](void *, void *const *, size_t) { ran.fetch_add(1); };
  fw_scheduler_t *s = &rt_->sched;
  fw_scheduler_submit(s, t, &s->api_group, 1);
  fw_scheduler_release_held(s, &t, 1, 1);
  fw_sched_lock(s);
  EXPECT_EQ(s->workers[0].sleeping, 1);  // not woken
  EXPECT_EQ(s->workers[0].notified, 0);  // and not marked told
  fw_sched_unlock(s);
  FW_ASSERT_OK(fw_task_wait(t));
  EXPECT_EQ(ran.load(), 1);
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_by_waiters, 1u);
  fw_task_release(t);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(PolicyTest);

// ---- Many tasks against a sequential replay -----------------------------------------

constexpr size_t kBuffers = 16;
constexpr size_t kTasks = 2000;
using fwtest::RandomOp;

void opTask(void *user, void *const *data, size_t num) {
  auto *op = static_cast<RandomOp *>(user);
  ASSERT_EQ(num, op->num);
  uint64_t *d[3] = {};
  for (size_t a = 0; a < num; ++a) d[a] = static_cast<uint64_t *>(data[a]);
  fwtest::applyRandomOp(op, d);
}

// How the host tier is bounded: not at all (FW_HOST_MEMORY=unlimited), minimal
// ("host=min": every buffer a running task does not use goes to storage and back), or
// sized as the machine's memory is, at half the buffers (tasks take their buffers
// without the lock until the tier first fills, then under it).
enum class HostTier { kUnbounded, kMinimal, kSized };

// Policy, workers, the host tier, and whether some updates are commutative and some
// contributions to reductions.
class RandomGraphTest
    : public ::testing::TestWithParam<std::tuple<fw_scheduler_kind_t, uint32_t, HostTier, bool>> {
};

TEST_P(RandomGraphTest, MatchesSequentialReplay) {
  auto [kind, workers, tier, commute] = GetParam();
  const uint64_t seed = 0x5eed0000 + workers * 7 + uint64_t(kind) + (commute ? 5 : 0);

  // Sequential replay.
  std::vector<RandomOp> expected = fwtest::randomOps(seed, kTasks, kBuffers, commute, commute);
  std::vector<std::vector<uint64_t>> state = fwtest::replayRandomOps(expected, kBuffers);

  // The same operations through the task graph.
  fw_runtime_options_t o = fwtest::taskOptions(kind, workers);
  if (tier == HostTier::kMinimal) o.tier_limits = "host=min";
  const std::string half = std::to_string(kBuffers * fwtest::kRandomElems * 4);
  fwtest::ScopedEnv host_memory("FW_HOST_MEMORY",
                                tier == HostTier::kSized ? half.c_str() : "unlimited");
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  std::vector<fw_buffer_t *> buffers(kBuffers);
  for (size_t b = 0; b < kBuffers; ++b) {
    buffers[b] = makeU64Buffer(rt, fwtest::kRandomElems, fwtest::randomInitialContents(b));
    ASSERT_NE(buffers[b], nullptr);
    FW_ASSERT_OK(fw_buffer_set_reduction_op(buffers[b], FW_REDUCTION_SUM));
  }
  std::vector<RandomOp> ops = fwtest::randomOps(seed, kTasks, kBuffers, commute, commute);
  for (RandomOp &op : ops) {
    std::vector<fw_task_access_t> acc;
    for (size_t a = 0; a < op.num; ++a) acc.push_back({buffers[op.buffer[a]], op.mode[a]});
    FW_ASSERT_OK(submit(rt, "op", opTask, &op, acc));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  for (size_t i = 0; i < kTasks; ++i)
    ASSERT_EQ(ops[i].checksum, expected[i].checksum) << "task " << i << " read other data";
  for (size_t b = 0; b < kBuffers; ++b) {
    EXPECT_EQ(readU64(buffers[b]), state[b]) << "buffer " << b;
    fw_buffer_unmap(buffers[b]);  // (a sized host tier holds half of them)
  }
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  // With the reduction tasks: one per group of contributions, at most one per
  // contribution.
  size_t contributions = 0;
  for (const RandomOp &op : ops)
    for (size_t a = 0; a < op.num; ++a) contributions += op.mode[a] == FW_ACCESS_REDUCE;
  if (commute) ASSERT_GT(contributions, 0u);
  EXPECT_GE(stats.tasks_submitted, kTasks + (contributions > 0));
  EXPECT_LE(stats.tasks_submitted, kTasks + contributions);
  EXPECT_EQ(stats.tasks_executed, stats.tasks_submitted);
  EXPECT_EQ(stats.devices[0].tasks, stats.tasks_submitted);
  if (tier != HostTier::kUnbounded) EXPECT_GT(stats.evictions, 0u);
  if (tier == HostTier::kSized)
    EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], stats.limit_bytes[FW_TIER_HOST]);
  for (fw_buffer_t *b : buffers) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, RandomGraphTest,
    ::testing::Combine(::testing::Values(FW_SCHEDULER_EAGER, FW_SCHEDULER_WS,
                                         FW_SCHEDULER_HEFT),
                       ::testing::Values(2u, 4u),
                       ::testing::Values(HostTier::kUnbounded, HostTier::kMinimal,
                                         HostTier::kSized),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<
        std::tuple<fw_scheduler_kind_t, uint32_t, HostTier, bool>> &info) {
      HostTier tier = std::get<2>(info.param);
      return std::string(fwtest::schedulerName(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param)) + "workers" +
             (tier == HostTier::kMinimal ? "_minimal_host"
              : tier == HostTier::kSized ? "_sized_host"
                                         : "") +
             (std::get<3>(info.param) ? "_commute_reduce" : "");
    });

// ---- Errors -----------------------------------------------------------------------

void noop(void *, void *const *, size_t) {}

class TaskErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_DEFAULT, 2);
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  }
  void TearDown() override { fw_runtime_destroy(rt_); }
  fw_runtime_t *rt_ = nullptr;
};

TEST_F(TaskErrorTest, BufferOfAnotherRuntime) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *other = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &other));
  fw_buffer_t *mine = makeU64Buffer(rt_, 4), *theirs = makeU64Buffer(other, 4);
  fw_task_t *t = reinterpret_cast<fw_task_t *>(0x1);
  FW_EXPECT_ERROR(submit(rt_, "foreign", noop, nullptr,
                         {{mine, FW_ACCESS_READ}, {theirs, FW_ACCESS_WRITE}}, &t),
                  "task 'foreign': the buffer of access 1 belongs to another runtime");
  EXPECT_EQ(t, nullptr);
  fw_buffer_release(mine);
  fw_buffer_release(theirs);
  fw_runtime_destroy(other);
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_submitted, 0u);
}

TEST_F(TaskErrorTest, InvalidDescriptions) {
  fw_buffer_t *b = makeU64Buffer(rt_, 4);
  FW_EXPECT_ERROR(submit(rt_, "nofn", nullptr, nullptr, {{b, FW_ACCESS_READ}}),
                  "task 'nofn' has no function");
  FW_EXPECT_ERROR(submit(rt_, "mode", noop, nullptr, {{b, fw_access_t(16)}}),
                  "task 'mode': access 0 has an unknown mode 16");
  FW_EXPECT_ERROR(submit(rt_, "mode0", noop, nullptr, {{b, fw_access_t(0)}}), "unknown mode 0");
  FW_EXPECT_ERROR(submit(rt_, "nobuf", noop, nullptr, {{b, FW_ACCESS_READ}, {nullptr, FW_ACCESS_READ}}),
                  "task 'nobuf': access 1 has no buffer");
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "cost";
  d.fn = noop;
  d.flops = -1;
  FW_EXPECT_ERROR(fw_task_submit(rt_, &d, nullptr), "flops and bytes must be finite, non-negative");
  d.flops = std::numeric_limits<double>::infinity();
  FW_EXPECT_ERROR(fw_task_submit(rt_, &d, nullptr), "flops and bytes must be finite");
  d.flops = 0;
  d.bytes = std::numeric_limits<double>::quiet_NaN();
  FW_EXPECT_ERROR(fw_task_submit(rt_, &d, nullptr), "flops and bytes must be finite");
  d.bytes = 1e40;
  FW_EXPECT_ERROR(fw_task_submit(rt_, &d, nullptr), "at most 1e30");
  d.bytes = 0;
  d.num_accesses = 2;  // accesses is NULL
  FW_EXPECT_ERROR(fw_task_submit(rt_, &d, nullptr), "accesses is NULL");
  FW_EXPECT_ERROR(fw_task_submit(rt_, nullptr, nullptr), "desc is NULL");
  FW_EXPECT_ERROR(fw_task_submit(nullptr, &d, nullptr), "runtime is NULL");
  FW_EXPECT_ERROR(fw_task_wait(nullptr), "task is NULL");
  FW_EXPECT_ERROR(fw_runtime_wait_all(nullptr), "runtime is NULL");
  fw_task_release(nullptr);
  // Nothing was submitted, and the runtime still works.
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_submitted, 0u);
  FW_ASSERT_OK(submit(rt_, "fine", noop, nullptr, {{b, FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  fw_buffer_release(b);
  FW_EXPECT_ERROR(fw_runtime_get_stats(nullptr, &stats), "runtime is NULL");
  FW_EXPECT_ERROR(fw_runtime_get_stats(rt_, nullptr), "out_stats is NULL");
}

// ---- Runtime options --------------------------------------------------------------

fw_status_t createWith(const fw_runtime_options_t &o) {
  fw_runtime_t *rt = reinterpret_cast<fw_runtime_t *>(0x1);
  fw_status_t s = fw_runtime_create(&o, &rt);
  EXPECT_EQ(rt, s ? nullptr : rt);
  if (!s) fw_runtime_destroy(rt);
  return s;
}

TEST(RuntimeOptionsTest, BadTierLimits) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.tier_limits = "host=abc";
  FW_EXPECT_ERROR(createWith(o), "tier limits 'host=abc'");
  o.tier_limits = "gpu=1MiB";
  FW_EXPECT_ERROR(createWith(o), "got 'gpu=1MiB'");
  o.tier_limits = "host=0";
  FW_EXPECT_ERROR(createWith(o), "positive number");
  o.tier_limits = "host=1MiB,storage";
  FW_EXPECT_ERROR(createWith(o), "got 'storage'");
  o.tier_limits = "host=1MiB,";  // an empty item after a comma, as before one
  FW_EXPECT_ERROR(createWith(o), "tier limits 'host=1MiB,': expected");
  o.tier_limits = "host=min,";
  FW_EXPECT_ERROR(createWith(o), "tier limits 'host=min,': expected");
  o.tier_limits = ",host=1MiB";
  FW_EXPECT_ERROR(createWith(o), "tier limits ',host=1MiB': expected");
  o.tier_limits = "";  // none
  FW_EXPECT_OK(createWith(o));
  o.tier_limits = "host=1.5GiB";
  FW_EXPECT_ERROR(createWith(o), "TIER=SIZE");
  o.tier_limits = "host=99999999999999999999";
  FW_EXPECT_ERROR(createWith(o), "TIER=SIZE");
  o.tier_limits = "host=1MiB,device=2MiB,host=3MiB";
  FW_EXPECT_ERROR(createWith(o), "tier limits 'host=1MiB,device=2MiB,host=3MiB': the host tier is given twice");
  o.tier_limits = "host=5X";
  FW_EXPECT_ERROR(createWith(o), "(B; K, KiB or KB; M, MiB or MB; G, GiB or GB; T, TiB or TB)");
  o.tier_limits = "host=1MiB,storage=2GB,device=3K";
  FW_EXPECT_OK(createWith(o));
  o.tier_limits = "host=min,device=min";
  FW_EXPECT_OK(createWith(o));
  o.tier_limits = "storage=min";
  FW_EXPECT_ERROR(createWith(o), "'storage=min' cannot be");
  o.tier_limits = "host=minimal";
  FW_EXPECT_ERROR(createWith(o), "got 'host=minimal'");
  o.tier_limits = "host=18446744073709551615";  // the value 'min' stands for
  FW_EXPECT_ERROR(createWith(o), "TIER=SIZE");
}

TEST(RuntimeOptionsTest, BadSchedulerAndFlags) {
  fw_runtime_options_t o = fwtest::taskOptions(fw_scheduler_kind_t(7), 1);
  FW_EXPECT_ERROR(createWith(o), "unknown scheduler kind 7");
  o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.flags = 0x80;
  FW_EXPECT_ERROR(createWith(o), "unknown fw_runtime_options_t.flags 0x80");
  o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 100000);
  FW_EXPECT_ERROR(createWith(o), "num_workers 100000 exceeds");
  FW_EXPECT_ERROR(fw_runtime_create(&o, nullptr), "out_runtime is NULL");
}

TEST(RuntimeOptionsTest, CallerRuns) {
  fwtest::ScopedEnv runs("FW_CALLER_RUNS", "sometimes");
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  FW_EXPECT_ERROR(createWith(o), "FW_CALLER_RUNS='sometimes': expected 0, 1, off or on");
  o.flags = FW_RUNTIME_NO_CALLER_RUNS;  // the flag wins: the variable is not read
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  EXPECT_EQ(rt->caller_runs, 0);
  fw_runtime_destroy(rt);
  setenv("FW_CALLER_RUNS", "off", 1);
  o.flags = 0;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  EXPECT_EQ(rt->caller_runs, 0);
  fw_runtime_destroy(rt);
  unsetenv("FW_CALLER_RUNS");
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  EXPECT_EQ(rt->caller_runs, 1);  // the default
  fw_runtime_destroy(rt);
}

TEST(RuntimeOptionsTest, SpinTime) {
  fwtest::ScopedEnv spin("FW_SPIN_US", nullptr);  // put back at the end
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  for (const char *bad : {"-1", "abc", "1000001", "5us"}) {
    setenv("FW_SPIN_US", bad, 1);
    FW_EXPECT_ERROR(createWith(o), std::string("FW_SPIN_US='") + bad +
                                       "': expected a number from 0 to 1000000");
  }
  unsetenv("FW_SPIN_US");
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  EXPECT_EQ(rt->spin_ns, 50000u);  // the default: 50 us
  fw_runtime_destroy(rt);
  setenv("FW_SPIN_US", "200", 1);
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  EXPECT_EQ(rt->spin_ns, 200000u);
  fw_runtime_destroy(rt);
  // Idle workers polling for their longest spin (a second) are told at shutdown: the
  // runtime goes at once, not when their polls run out.
  setenv("FW_SPIN_US", "1000000", 1);
  o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  FW_ASSERT_OK(fwtest::submit(rt, "one", [](void *, void *const *, size_t) {}, nullptr, {}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  auto start = std::chrono::steady_clock::now();
  fw_runtime_destroy(rt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST(RuntimeOptionsTest, BadStorageDir) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.storage_dir = "/nonexistent/dir";
  FW_EXPECT_ERROR(createWith(o), "storage directory '/nonexistent/dir'");

  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string file = dir.file("regular");
  std::ofstream(file) << "x";
  o.storage_dir = file.c_str();
  FW_EXPECT_ERROR(createWith(o), "is not a directory");
  std::string under = file + "/sub";
  o.storage_dir = under.c_str();
  FW_EXPECT_ERROR(createWith(o), "storage directory '" + under + "'");

  if (geteuid() != 0) {  // root writes anywhere
    std::string readonly = dir.file("readonly");
    ASSERT_EQ(mkdir(readonly.c_str(), 0500), 0);
    o.storage_dir = readonly.c_str();
    FW_EXPECT_ERROR(createWith(o), "is not writable");
    chmod(readonly.c_str(), 0700);
  }

  o.storage_dir = dir.path().c_str();
  FW_EXPECT_OK(createWith(o));
  // The writability probe leaves nothing behind.
  for (const std::string &name : dir.entries())
    EXPECT_TRUE(name == "regular" || name == "readonly") << name;
}

}  // namespace
