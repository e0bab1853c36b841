// Commutative updates (FW_ACCESS_READ_WRITE_COMMUTE): a group of them runs one at a time
// in whichever order their other inputs allow, after the accesses before the group and
// before those after it, under every policy and in simulation; a failed update fails the
// rest of its group and the readers after it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::readU64;
using fwtest::submit;

constexpr fw_access_t kCommute = FW_ACCESS_READ_WRITE_COMMUTE;

// How many updates of a buffer run at once, and the most seen.
struct Exclusion {
  std::atomic<int> inside{0};
  std::atomic<int> most{0};

  void enter() {
    int now = inside.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
  }
  void leave() { inside.fetch_sub(1); }
};

// An update that adds `amount` to element 0 of each of its buffers by a read, a pause
// and a write (concurrent updates would lose some), noting when it ran.
struct Adder {
  uint64_t amount = 1;
  std::vector<Exclusion *> exclusions;  // one per buffer
  std::atomic<int> *clock = nullptr;
  int at = -1;
};

void add(void *user, void *const *data, size_t num) {
  auto *a = static_cast<Adder *>(user);
  for (Exclusion *e : a->exclusions) e->enter();
  std::vector<uint64_t> old(num);
  for (size_t i = 0; i < num; ++i) old[i] = static_cast<uint64_t *>(data[i])[0];
  std::this_thread::sleep_for(std::chrono::microseconds(100));
  for (size_t i = 0; i < num; ++i) static_cast<uint64_t *>(data[i])[0] = old[i] + a->amount;
  if (a->clock) a->at = a->clock->fetch_add(1);
  for (Exclusion *e : a->exclusions) e->leave();
}

// A reader that notes element 0 after a pause (an update running meanwhile would show).
struct Reader {
  uint64_t seen = 0;
};

void readSlowly(void *user, void *const *data, size_t) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  static_cast<Reader *>(user)->seen = static_cast<const uint64_t *>(data[0])[0];
}

void writeValue(void *user, void *const *data, size_t) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  static_cast<uint64_t *>(data[0])[0] = *static_cast<uint64_t *>(user);
}

// A task that holds its buffer until the test opens it.
struct Gate {
  std::atomic<bool> started{false};
  std::atomic<bool> open{false};
};

void holdUntilOpen(void *user, void *const *, size_t) {
  auto *g = static_cast<Gate *>(user);
  g->started = true;
  while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

// Submits a gate writing `buffer` and waits until a worker runs it (a thread that waits
// for tasks may run one in a worker's place: not the gate, which only the test opens).
void submitGate(fw_runtime_t *rt, Gate *gate, fw_buffer_t *buffer) {
  FW_ASSERT_OK(submit(rt, "gate", holdUntilOpen, gate, {{buffer, FW_ACCESS_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate->started.load(); }));
}

void failWithBrokenSum(void *, void *const *, size_t) {
  fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "broken sum"));
}

class CommuteTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void SetUp() override { rt_ = fwtest::createRuntime(fwtest::taskOptions(GetParam(), 4)); }
  void TearDown() override { fw_runtime_destroy(rt_); }
  fw_runtime_t *rt_ = nullptr;
};

// A hundred updates of one buffer on four workers: one at a time (each read-pause-write
// would lose others' updates otherwise), every one counted; the caller's read of the
// buffer waits for the whole group.
TEST_P(CommuteTest, UpdatesRunOneAtATimeAndEachCounts) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  Exclusion ex;
  std::vector<Adder> adders(100);
  for (size_t i = 0; i < adders.size(); ++i) {
    adders[i].amount = i + 1;
    adders[i].exclusions = {&ex};
    FW_ASSERT_OK(submit(rt_, "add", add, &adders[i], {{acc, kCommute}}));
  }
  EXPECT_EQ(readU64(acc)[0], 5050u);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(ex.most.load(), 1);
  fw_runtime_stats_t st = fwtest::statsOf(rt_);
  EXPECT_EQ(st.tasks_submitted, 100u);
  EXPECT_EQ(st.tasks_executed, 100u);  // the group's join is not a task of the program's
  fw_buffer_release(acc);
}

// Updates are not ordered among themselves: the second runs while the first waits for
// another input (a plain update in place would wait for the first: the test times out).
TEST_P(CommuteTest, AnUpdateDoesNotWaitForAnEarlierOneOfItsGroup) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  fw_buffer_t *g = makeU64Buffer(rt_, 1, {0});
  Gate gate;
  std::atomic<int> clock{0};
  Exclusion ex;
  Adder first, second;
  first.amount = 1;
  second.amount = 2;
  for (Adder *a : {&first, &second}) {
    a->exclusions = {&ex};
    a->clock = &clock;
  }
  submitGate(rt_, &gate, g);
  fw_task_t *t1 = nullptr, *t2 = nullptr;
  FW_ASSERT_OK(submit(rt_, "first", add, &first, {{acc, kCommute}, {g, FW_ACCESS_READ}}, &t1));
  FW_ASSERT_OK(submit(rt_, "second", add, &second, {{acc, kCommute}}, &t2));
  EXPECT_TRUE(fwtest::waitUntil([&] { return fw_task_is_done(t2) != 0; }));
  EXPECT_FALSE(fw_task_is_done(t1));
  gate.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(second.at, 0);
  EXPECT_EQ(first.at, 1);
  EXPECT_EQ(readU64(acc)[0], 3u);
  fw_task_release(t1);
  fw_task_release(t2);
  fw_buffer_release(g);
  fw_buffer_release(acc);
}

// The group follows the writer and the reader before it and precedes the reader and the
// writer after it, and two groups split by a reader stay apart.
TEST_P(CommuteTest, GroupsFollowWhatCameBeforeAndPrecedeWhatComesAfter) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {5});
  Exclusion ex;
  uint64_t ten = 10, thousand = 1000;
  Reader before, between, after, last;
  std::vector<Adder> ones(20), hundreds(5);
  FW_ASSERT_OK(submit(rt_, "set10", writeValue, &ten, {{acc, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "before", readSlowly, &before, {{acc, FW_ACCESS_READ}}));
  for (Adder &a : ones) {
    a.exclusions = {&ex};
    FW_ASSERT_OK(submit(rt_, "add1", add, &a, {{acc, kCommute}}));
  }
  FW_ASSERT_OK(submit(rt_, "between", readSlowly, &between, {{acc, FW_ACCESS_READ}}));
  for (Adder &a : hundreds) {
    a.amount = 100;
    a.exclusions = {&ex};
    FW_ASSERT_OK(submit(rt_, "add100", add, &a, {{acc, kCommute}}));
  }
  FW_ASSERT_OK(submit(rt_, "after", readSlowly, &after, {{acc, FW_ACCESS_READ}}));
  FW_ASSERT_OK(submit(rt_, "set1000", writeValue, &thousand, {{acc, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "last", readSlowly, &last, {{acc, FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(before.seen, 10u);
  EXPECT_EQ(between.seen, 30u);
  EXPECT_EQ(after.seen, 530u);
  EXPECT_EQ(last.seen, 1000u);
  EXPECT_EQ(ex.most.load(), 1);
  fw_buffer_release(acc);
}

// Updates of two buffers each, around a ring of three: each task takes both at once or
// waits, so none of the three buffers is ever updated twice at once and nothing deadlocks.
TEST_P(CommuteTest, UpdatesOfSeveralBuffersTakeThemAllAtOnce) {
  fw_buffer_t *b[3];
  Exclusion ex[3];
  for (fw_buffer_t *&x : b) x = makeU64Buffer(rt_, 1, {0});
  std::vector<Adder> adders(90);
  for (size_t i = 0; i < adders.size(); ++i) {
    size_t p = i % 3, q = (i + 1) % 3;
    adders[i].exclusions = {&ex[p], &ex[q]};
    FW_ASSERT_OK(submit(rt_, "pair", add, &adders[i], {{b[p], kCommute}, {b[q], kCommute}}));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(readU64(b[k])[0], 60u) << k;
    EXPECT_EQ(ex[k].most.load(), 1) << k;
    fw_buffer_release(b[k]);
  }
}

// A failed update leaves garbage: the updates of its group that had not started fail with
// its error without running, and so do one submitted later and the reader after the
// group; a writer after them runs, and what it wrote reads back.
TEST_P(CommuteTest, AFailedUpdateFailsTheRestOfItsGroupAndItsReaders) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  fw_buffer_t *g = makeU64Buffer(rt_, 1, {0});
  Gate gate;
  Exclusion ex;
  Adder waiting[2], late;
  for (Adder *a : {&waiting[0], &waiting[1], &late}) a->exclusions = {&ex};
  submitGate(rt_, &gate, g);
  fw_task_t *broken = nullptr, *w0 = nullptr, *w1 = nullptr;
  FW_ASSERT_OK(submit(rt_, "broken", failWithBrokenSum, nullptr, {{acc, kCommute}}, &broken));
  FW_ASSERT_OK(submit(rt_, "waiting0", add, &waiting[0], {{acc, kCommute}, {g, FW_ACCESS_READ}},
                      &w0));
  FW_ASSERT_OK(submit(rt_, "waiting1", add, &waiting[1], {{acc, kCommute}, {g, FW_ACCESS_READ}},
                      &w1));
  FW_EXPECT_ERROR(fw_task_wait(broken), "broken sum");
  fw_task_t *t_late = nullptr, *t_read = nullptr, *t_write = nullptr, *t_reread = nullptr;
  Reader reader, reread;
  uint64_t seven = 7;
  FW_ASSERT_OK(submit(rt_, "late", add, &late, {{acc, kCommute}}, &t_late));
  FW_ASSERT_OK(submit(rt_, "read", readSlowly, &reader, {{acc, FW_ACCESS_READ}}, &t_read));
  FW_ASSERT_OK(submit(rt_, "write", writeValue, &seven, {{acc, FW_ACCESS_WRITE}}, &t_write));
  FW_ASSERT_OK(submit(rt_, "reread", readSlowly, &reread, {{acc, FW_ACCESS_READ}}, &t_reread));
  gate.open = true;
  for (fw_task_t *t : {w0, w1, t_late, t_read}) FW_EXPECT_ERROR(fw_task_wait(t), "broken sum");
  FW_EXPECT_OK(fw_task_wait(t_write));
  FW_EXPECT_OK(fw_task_wait(t_reread));
  EXPECT_EQ(reread.seen, 7u);
  EXPECT_EQ(ex.most.load(), 0);  // no update ran after the failure
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "broken sum");
  for (fw_task_t *t : {broken, w0, w1, t_late, t_read, t_write, t_reread}) fw_task_release(t);
  fw_buffer_release(g);
  fw_buffer_release(acc);
}

// A writer's failure before the group cancels the whole group, as it cancels any reader.
TEST_P(CommuteTest, AFailedWriterBeforeTheGroupCancelsIt) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  Exclusion ex;
  std::vector<Adder> adders(3);
  std::vector<fw_task_t *> tasks(3);
  FW_ASSERT_OK(submit(rt_, "broken", failWithBrokenSum, nullptr, {{acc, FW_ACCESS_WRITE}}));
  for (size_t i = 0; i < adders.size(); ++i) {
    adders[i].exclusions = {&ex};
    FW_ASSERT_OK(submit(rt_, "add", add, &adders[i], {{acc, kCommute}}, &tasks[i]));
  }
  for (fw_task_t *t : tasks) {
    FW_EXPECT_ERROR(fw_task_wait(t), "broken sum");
    fw_task_release(t);
  }
  EXPECT_EQ(ex.most.load(), 0);
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "broken sum");
  fw_buffer_release(acc);
}

// Short updates submitted by two threads while the workers complete them: groups open
// and end all the time (an update joining a group whose others have just finished, its
// join ready), with a reader now and then closing one. Every addition counts, and every
// reader sees a total the updates submitted before it could make.
TEST_P(CommuteTest, GroupsOpenAndEndWhileUpdatesArrive) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  constexpr int kPerThread = 3000;
  auto bump = [](void *, void *const *data, size_t) { ++static_cast<uint64_t *>(data[0])[0]; };
  std::vector<Reader> readers(2 * kPerThread / 100);
  std::atomic<int> next_reader{0};
  auto submitter = [&] {
    for (int i = 1; i <= kPerThread; ++i) {
      FW_ASSERT_OK(submit(rt_, "bump", bump, nullptr, {{acc, kCommute}}));
      if (i % 100 == 0) {
        Reader *r = &readers[next_reader.fetch_add(1)];
        auto note = [](void *user, void *const *data, size_t) {
          static_cast<Reader *>(user)->seen = static_cast<const uint64_t *>(data[0])[0];
        };
        FW_ASSERT_OK(submit(rt_, "read", note, r, {{acc, FW_ACCESS_READ}}));
      }
    }
  };
  std::thread a(submitter), b(submitter);
  a.join();
  b.join();
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(readU64(acc)[0], uint64_t(2 * kPerThread));
  for (const Reader &r : readers) {
    EXPECT_GE(r.seen, 100u);
    EXPECT_LE(r.seen, uint64_t(2 * kPerThread));
  }
  EXPECT_EQ(fwtest::statsOf(rt_).tasks_executed, uint64_t(2 * kPerThread + readers.size()));
  fw_buffer_release(acc);
}

// Each update's completion callback submits the next update of the buffer: it runs when
// the update has completed and its group's join is ready but not yet completed, so the
// new update must open a group of its own (joining the finished one made its join ready
// twice). Fifty links, then a reader that sees them all.
TEST_P(CommuteTest, AnUpdateSubmittedAsItsGroupEndsOpensAnother) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  fwtest::CallbackChain chain{rt_, acc, kCommute, 50};
  fwtest::startCallbackChain(&chain);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(chain.links, 50);
  EXPECT_EQ(readU64(acc)[0], 50u);
  fw_buffer_release(acc);
}

// A synchronous update (fw_task_run) waits while another update of its group holds the
// buffer, then runs, and returns once it ran.
TEST_P(CommuteTest, ASynchronousUpdateWaitsForTheHolder) {
  fw_buffer_t *acc = makeU64Buffer(rt_, 1, {0});
  Gate gate;
  auto holdThenAdd = [](void *user, void *const *data, size_t) {
    holdUntilOpen(user, nullptr, 0);
    static_cast<uint64_t *>(data[0])[0] += 1;
  };
  FW_ASSERT_OK(submit(rt_, "holder", holdThenAdd, &gate, {{acc, kCommute}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  std::thread opener([&] {
    fwtest::sleepMs(20);
    gate.open = true;
  });
  uint64_t seen = 0;
  struct Add {
    uint64_t *seen;
  } add{&seen};
  fw_task_access_t access = {acc, kCommute};
  fw_task_desc_t d = fwtest::describeTask(
      "sync",
      [](void *user, void *const *data, size_t) {
        uint64_t *v = static_cast<uint64_t *>(data[0]);
        *static_cast<Add *>(user)->seen = *v;  // the holder's update is in
        *v += 10;
      },
      &add);
  d.accesses = &access;
  d.num_accesses = 1;
  FW_EXPECT_OK(fw_task_run(rt_, &d));
  opener.join();
  EXPECT_EQ(seen, 1u);
  EXPECT_EQ(readU64(acc)[0], 11u);
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  fw_buffer_release(acc);
}

// A task updating two buffers is not passed over by an update that comes after it: it
// takes its buffers one at a time (in a fixed order) and keeps what it took while it
// waits for the rest. Both buffers held by gated updates; the two-buffer task T, then an
// update V of the buffer T takes first; the first gate opens: T takes that buffer and
// waits for the other, V waits for T (taking both at once or none, T let the buffer go
// to V, which ran first); the second gate opens: T runs, then V.
TEST_P(CommuteTest, ATaskUpdatingTwoBuffersIsNotPassedOver) {
  // T takes them in the order they were created: `low` first.
  fw_buffer_t *low = makeU64Buffer(rt_, 1, {0}), *high = makeU64Buffer(rt_, 1, {0});
  fw_buffer_t *a = high, *b = low;  // named the other way round in T's accesses
  Gate lowGate, highGate;
  auto holdThenAdd = [](void *user, void *const *data, size_t) {
    holdUntilOpen(user, nullptr, 0);
    static_cast<uint64_t *>(data[0])[0] += 1;
  };
  FW_ASSERT_OK(submit(rt_, "holdLow", holdThenAdd, &lowGate, {{low, kCommute}}));
  FW_ASSERT_OK(submit(rt_, "holdHigh", holdThenAdd, &highGate, {{high, kCommute}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return lowGate.started && highGate.started; }));
  std::atomic<int> clock{0};
  Adder both, later;
  both.clock = later.clock = &clock;
  FW_ASSERT_OK(submit(rt_, "both", add, &both, {{a, kCommute}, {b, kCommute}}));
  FW_ASSERT_OK(submit(rt_, "later", add, &later, {{low, kCommute}}));
  lowGate.open = true;
  fwtest::sleepMs(50);
  EXPECT_EQ(later.at, -1);  // it waits for `both`, which waits for the other buffer
  highGate.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(both.at, 0);
  EXPECT_EQ(later.at, 1);
  EXPECT_EQ(readU64(low)[0], 3u);
  EXPECT_EQ(readU64(high)[0], 2u);
  fw_buffer_release(a);
  fw_buffer_release(b);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(CommuteTest);

// Commutative only with read-write; a buffer named both commutatively and plainly by one
// task is a plain update in place, ordered after the earlier updates.
TEST(CommuteModeTest, OnlyReadWriteUpdatesCommute) {
  fw_runtime_t *rt = fwtest::createRuntime(fwtest::taskOptions(FW_SCHEDULER_EAGER, 2));
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *acc = makeU64Buffer(rt, 1, {0});
  fw_buffer_t *g = makeU64Buffer(rt, 1, {0});
  for (int mode : {int(FW_ACCESS_COMMUTE), FW_ACCESS_COMMUTE | FW_ACCESS_READ,
                   FW_ACCESS_COMMUTE | FW_ACCESS_WRITE})
    FW_EXPECT_ERROR(submit(rt, "odd", add, nullptr, {{acc, fw_access_t(mode)}}),
                    "task 'odd': access 0 is commutative but not FW_ACCESS_READ_WRITE");
  Gate gate;
  Adder first, merged;
  submitGate(rt, &gate, g);
  FW_ASSERT_OK(submit(rt, "first", add, &first, {{acc, kCommute}, {g, FW_ACCESS_READ}}));
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(submit(rt, "merged", add, &merged, {{acc, kCommute}, {acc, FW_ACCESS_READ}}, &t));
  fwtest::sleepMs(50);
  EXPECT_FALSE(fw_task_is_done(t));  // after `first`, which waits for the gate
  gate.open = true;
  FW_EXPECT_OK(fw_task_wait(t));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(readU64(acc)[0], 2u);
  fw_task_release(t);
  fw_buffer_release(g);
  fw_buffer_release(acc);
  fw_runtime_destroy(rt);
}

// In a simulation the updates of a group run one at a time too, in the order their
// inputs come. Each update of six (1 s each on four workers of 1 GFLOP/s) first needs its
// own input, made by a task of 6 s for the first and of 1 s for the others; a reader of
// 1 s follows the group. The five others can run one after another from 1 s on, the
// first at 6 s, the reader after it: 8 s. In submission order the five others and the
// reader would follow the first: 12 s.
TEST(CommuteSimulationTest, UpdatesRunOneAtATime) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(4, 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *acc = makeU64Buffer(rt, 1, {0});
  std::vector<fw_buffer_t *> inputs;
  for (int i = 0; i < 6; ++i) {
    inputs.push_back(makeU64Buffer(rt, 1, {0}));
    fw_task_desc_t make = fwtest::describeTask("make", nullptr, nullptr);
    fw_task_access_t out = {inputs.back(), FW_ACCESS_WRITE};
    make.accesses = &out;
    make.num_accesses = 1;
    make.flops = i == 0 ? 6e9 : 1e9;
    FW_ASSERT_OK(fw_task_submit(rt, &make, nullptr));
    fw_task_access_t update[2] = {{acc, kCommute}, {inputs.back(), FW_ACCESS_READ}};
    fw_task_desc_t d = fwtest::describeTask("update", nullptr, nullptr);
    d.accesses = update;
    d.num_accesses = 2;
    d.flops = 1e9;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  }
  fw_task_access_t read = {acc, FW_ACCESS_READ};
  fw_task_desc_t r = fwtest::describeTask("read", nullptr, nullptr);
  r.accesses = &read;
  r.num_accesses = 1;
  r.flops = 1e9;
  FW_ASSERT_OK(fw_task_submit(rt, &r, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  EXPECT_EQ(rep.tasks, 13u);
  EXPECT_NEAR(rep.makespan_seconds, 8.0, 1e-6);
  EXPECT_LE(rep.lower_bound_seconds, rep.makespan_seconds + 1e-9);
  for (fw_buffer_t *b : inputs) fw_buffer_release(b);
  fw_buffer_release(acc);
  fw_runtime_destroy(rt);
}

// A 10 s update, then a 1 s one of the same group that also writes B, then a 10 s reader
// of B, on two workers: whichever order the simulation runs the group in, an 11 s
// schedule exists (the short update first), so the lower bound is at most 11 s. The
// group's order is the simulation's choice, not a dependency the bounds may count (they
// said 21 s when the short update waited for the long one).
TEST(CommuteSimulationTest, TheBoundsDoNotCountTheGroupsOrder) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(2, 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *a = makeU64Buffer(rt, 1, {0}), *b = makeU64Buffer(rt, 1, {0});
  auto add = [&](const char *name, std::vector<fw_task_access_t> accesses, double flops) {
    fw_task_desc_t d = fwtest::describeTask(name, nullptr, nullptr, accesses);
    d.flops = flops;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  };
  add("long", {{a, kCommute}}, 10e9);
  add("short", {{a, kCommute}, {b, FW_ACCESS_WRITE}}, 1e9);
  add("read", {{b, FW_ACCESS_READ}}, 10e9);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  EXPECT_LE(rep.lower_bound_seconds, 11.0 + 1e-6);
  EXPECT_LE(rep.critical_path_seconds, 11.0 + 1e-6);
  EXPECT_GE(rep.makespan_seconds, rep.lower_bound_seconds - 1e-9);
  fw_buffer_release(a);
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// Submits a simulated task (no body).
void submitSim(fw_runtime_t *rt, const char *name, std::vector<fw_task_access_t> accesses,
               double flops, int32_t priority, void (*on_done)(void *, fw_status_t) = nullptr,
               void *user = nullptr) {
  fw_task_desc_t d = fwtest::describeTask(name, nullptr, user, accesses);
  d.flops = flops;
  d.priority = priority;
  d.on_done = on_done;
  FW_EXPECT_OK(fw_task_submit(rt, &d, nullptr));
}

// The bounds count that a group's updates run one at a time: sixteen 1 s updates on
// sixteen workers take 16 s whatever the schedule, and the bound says so (1 s when it
// took them for independent tasks).
TEST(CommuteSimulationTest, TheBoundsCountThatUpdatesRunOneAtATime) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(16, 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *a = makeU64Buffer(rt, 1, {0});
  for (int i = 0; i < 16; ++i) submitSim(rt, "update", {{a, kCommute}}, 1e9, 0);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  EXPECT_NEAR(rep.makespan_seconds, 16.0, 1e-6);
  EXPECT_NEAR(rep.lower_bound_seconds, 16.0, 1e-6);
  fw_buffer_release(a);
  fw_runtime_destroy(rt);
}

// An update of a group that was closed, still waiting for another input, counts only
// what came before its own group, not what a later group of the same buffer (opened by
// the completion callback of the first update, after a reader) saw: two workers; U0 (1 s,
// priority 2) and F (5 s, priority 2) first, then P (0.01 s) and U1 (1 s, after P) and S
// (10 s, after U1). A schedule of 11.01 s exists (P, U1, S on one worker), so the bound
// is at most that (12 s when U1 counted the later group's view, which had U0's end).
struct Straggler {
  fw_runtime_t *rt;
  fw_buffer_t *a;
};

void readThenUpdate(void *user, fw_status_t) {
  auto *s = static_cast<Straggler *>(user);
  submitSim(s->rt, "R", {{s->a, FW_ACCESS_READ}}, 1e6, 0);  // closes the first group
  submitSim(s->rt, "U2", {{s->a, kCommute}}, 1e6, 0);       // opens a second
}

TEST(CommuteSimulationTest, AnUpdateCountsOnlyWhatCameBeforeItsOwnGroup) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(2, 1);
  ASSERT_NE(rt, nullptr);
  std::vector<fw_buffer_t *> b;
  for (int i = 0; i < 5; ++i) b.push_back(makeU64Buffer(rt, 1, {0}));
  fw_buffer_t *a = b[0], *x = b[1], *y = b[2], *z = b[3], *f = b[4];
  Straggler straggler{rt, a};
  submitSim(rt, "U0", {{a, kCommute}}, 1e9, 2, readThenUpdate, &straggler);
  submitSim(rt, "F", {{f, FW_ACCESS_WRITE}}, 5e9, 2);
  submitSim(rt, "P", {{x, FW_ACCESS_WRITE}}, 1e7, 1);
  submitSim(rt, "U1", {{a, kCommute}, {x, FW_ACCESS_READ}, {y, FW_ACCESS_WRITE}}, 1e9, 0);
  submitSim(rt, "S", {{y, FW_ACCESS_READ}, {z, FW_ACCESS_WRITE}}, 10e9, 0);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_sim_report_t rep;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
  EXPECT_EQ(rep.tasks, 7u);
  EXPECT_LE(rep.lower_bound_seconds, 11.01 + 1e-6);
  EXPECT_GE(rep.makespan_seconds, rep.lower_bound_seconds - 1e-9);
  for (fw_buffer_t *x : b) fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

// Under heft an update that holds its buffer runs before tasks of the same priority that
// do not (other updates wait for it): eight 1 s updates of A, a reader of A that writes C,
// eight readers of C and eight independent tasks, on two workers, end in 13 s as with
// plain updates in place (17 s when the holder waited behind the independent tasks).
TEST(CommuteSimulationTest, AnUpdateHoldingItsBufferRunsFirst) {
  for (fw_access_t mode : {FW_ACCESS_READ_WRITE, kCommute}) {
    fw_runtime_t *rt = fwtest::simulatedCpuRuntime(2, 1);
    ASSERT_NE(rt, nullptr);
    std::vector<fw_buffer_t *> buffers;
    auto buffer = [&] {
      buffers.push_back(makeU64Buffer(rt, 1, {0}));
      return buffers.back();
    };
    fw_buffer_t *a = buffer(), *c = buffer();
    auto add = [&](std::vector<fw_task_access_t> accesses) {
      fw_task_desc_t d = fwtest::describeTask("t", nullptr, nullptr, accesses);
      d.flops = 1e9;
      FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
    };
    for (int i = 0; i < 8; ++i) add({{a, mode}});
    add({{a, FW_ACCESS_READ}, {c, FW_ACCESS_WRITE}});
    for (int i = 0; i < 8; ++i) add({{c, FW_ACCESS_READ}, {buffer(), FW_ACCESS_WRITE}});
    for (int i = 0; i < 8; ++i) add({{buffer(), FW_ACCESS_WRITE}});
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    fw_sim_report_t rep;
    FW_ASSERT_OK(fw_runtime_simulation_report(rt, &rep));
    EXPECT_LE(rep.makespan_seconds, 13.0 + 1e-6) << (mode == kCommute ? "commute" : "plain");
    for (fw_buffer_t *x : buffers) fw_buffer_release(x);
    fw_runtime_destroy(rt);
  }
}

// The memory manager's count of the uses still to come of a buffer (which ranks copies
// for eviction when a tier is capped) comes back to zero after each group and its
// reader: the group's join is not a use.
TEST(CommuteMemoryTest, FutureUsesComeBackToZero) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  o.tier_limits = "host=64MiB";
  fw_runtime_t *rt = fwtest::createRuntime(o);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *acc = makeU64Buffer(rt, 1, {0});
  Reader r;
  for (int round = 0; round < 3; ++round) {
    std::vector<Adder> adders(2);
    for (Adder &a : adders) FW_ASSERT_OK(submit(rt, "add", add, &a, {{acc, kCommute}}));
    FW_ASSERT_OK(submit(rt, "read", readSlowly, &r, {{acc, FW_ACCESS_READ}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(atomic_load(&acc->mem.future_uses), 0u) << "round " << round;
  }
  EXPECT_EQ(r.seen, 6u);
  fw_buffer_release(acc);
  fw_runtime_destroy(rt);
}

// The trace shows a dependency from every update of a group to the access after it (the
// join between them is not a task of the program's), and from the writer before it to
// every update.
TEST(CommuteTraceTest, EveryUpdateLinksToWhatFollowsTheGroup) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = fwtest::tracedRuntime(FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *acc = makeU64Buffer(rt, 1, {0});
  fw_buffer_t *g = makeU64Buffer(rt, 1, {0});
  Gate gate;
  submitGate(rt, &gate, g);
  uint64_t one = 1;
  // The writer waits for the gate: every edge goes to a task not finished yet.
  FW_ASSERT_OK(
      submit(rt, "write", writeValue, &one, {{acc, FW_ACCESS_WRITE}, {g, FW_ACCESS_READ}}));
  std::vector<Adder> adders(3);
  for (Adder &a : adders) FW_ASSERT_OK(submit(rt, "add", add, &a, {{acc, kCommute}}));
  Reader r;
  FW_ASSERT_OK(submit(rt, "read", readSlowly, &r, {{acc, FW_ACCESS_READ}}));
  gate.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(r.seen, 4u);
  std::string text = fwtest::traceText(rt, dir);
  // gate -> write, write -> 3 updates, 3 -> read
  EXPECT_EQ(fwtest::traceFlows(text), 1u + 3u + 3u) << text;
  fw_buffer_release(g);
  fw_buffer_release(acc);
  fw_runtime_destroy(rt);
}

}  // namespace
