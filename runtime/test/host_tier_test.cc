// The host tier sized to the machine's memory (no cap set): FW_HOST_MEMORY and the
// detected capacity, spilling past it, and the hand-over from tasks that take their
// buffers without the lock (until the tier first fills) to eviction.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::readU64;
using fwtest::ScopedEnv;
using fwtest::submit;

constexpr size_t kElements = 32768;  // uint64 values: 256 KiB
constexpr size_t kBytes = kElements * sizeof(uint64_t);

std::vector<uint64_t> contents(uint64_t seed) {
  std::vector<uint64_t> v(kElements);
  for (size_t j = 0; j < kElements; ++j) v[j] = fwtest::mix(seed * 0x100000001ull + j);
  return v;
}

// p[j] = p[j] * 3 + step + j, in the task and in the expected contents alike.
void advance(uint64_t *p, uint64_t step) {
  for (size_t j = 0; j < kElements; ++j) p[j] = p[j] * 3 + step + j;
}
void advanceTask(void *user, void *const *data, size_t) {
  advance(static_cast<uint64_t *>(data[0]), *static_cast<const uint64_t *>(user));
}

// A runtime with the host tier sized `host_memory` as if the machine had that much
// available (no cap), its storage tier in `dir`.
fw_runtime_t *sizedRuntime(fw_scheduler_kind_t policy, uint32_t workers, const char *host_memory,
                           const fwtest::TempDir &dir) {
  ScopedEnv limits("FW_TIER_LIMITS", nullptr);
  ScopedEnv sized("FW_HOST_MEMORY", host_memory);
  fw_runtime_options_t o = fwtest::taskOptions(policy, workers);
  o.storage_dir = dir.path().c_str();
  return fwtest::createRuntime(o);
}

// Checks a buffer's contents, then releases it (fw_buffer_data keeps it in host memory
// until released: a few at most fit at once).
void expectAndRelease(fw_buffer_t *b, const std::vector<uint64_t> &expected, const char *name) {
  EXPECT_EQ(readU64(b), expected) << name;
  fw_buffer_release(b);
}

const fw_memory_node_t &hostNode(fw_runtime_t *rt) { return rt->memory.nodes[FW_NODE_HOST]; }

int fastUsers(fw_runtime_t *rt) {
  int users = 0;
  for (const fw_fast_stripe_t &s : hostNode(rt).fast_users) users += atomic_load(&s.count);
  return users;
}

// The capacity without a cap is the machine's (at most its memory), or FW_HOST_MEMORY's; a
// cap replaces it; "unlimited" or a simulation has none; a malformed value is an error.
TEST(HostTierTest, CapacityIsTheMachinesUnlessCappedOrSet) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  {
    fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 1, nullptr, dir);
    ASSERT_NE(rt, nullptr);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t limit = fwtest::statsOf(rt).limit_bytes[FW_TIER_HOST];
    EXPECT_GT(limit, 0u);
    EXPECT_LE(limit, uint64_t(pages) * uint64_t(page));
    EXPECT_FALSE(hostNode(rt).capped);
    fw_runtime_destroy(rt);
  }
  {
    fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 1, "3MiB", dir);
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(fwtest::statsOf(rt).limit_bytes[FW_TIER_HOST], 3u << 20);
    fw_runtime_destroy(rt);
  }
  {
    ScopedEnv sized("FW_HOST_MEMORY", "3MiB");
    fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
    o.tier_limits = "host=1MiB";
    fw_runtime_t *rt = fwtest::createRuntime(o);
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(fwtest::statsOf(rt).limit_bytes[FW_TIER_HOST], 1u << 20);
    EXPECT_TRUE(hostNode(rt).capped);
    fw_runtime_destroy(rt);
  }
  {
    fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 1, "unlimited", dir);
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(fwtest::statsOf(rt).limit_bytes[FW_TIER_HOST], 0u);
    fw_runtime_destroy(rt);
  }
  {
    ScopedEnv sized("FW_HOST_MEMORY", nullptr);
    fw_runtime_t *rt = fwtest::simulatedCpuRuntime(1, 10);
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(hostNode(rt).capacity, 0u);
    fw_runtime_destroy(rt);
  }
  {
    // The option field wins over the environment.
    ScopedEnv sized("FW_HOST_MEMORY", "unlimited");
    fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
    o.host_memory = "5MiB";
    fw_runtime_t *rt = fwtest::createRuntime(o);
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(fwtest::statsOf(rt).limit_bytes[FW_TIER_HOST], 5u << 20);
    EXPECT_FALSE(hostNode(rt).capped);
    fw_runtime_destroy(rt);
    o.host_memory = "5MiB,";
    rt = nullptr;
    FW_EXPECT_ERROR(fw_runtime_create(&o, &rt),
                    "host_memory='5MiB,': expected 'unlimited' or a positive size");
    EXPECT_EQ(rt, nullptr);
  }
  // Checked even where a cap makes it moot, so that a typo does not go unseen.
  for (const char *bad : {"lots", "0", "-1MiB", "3 MiB"})
    for (const char *cap : {"", "host=1MiB"}) {
      ScopedEnv sized("FW_HOST_MEMORY", bad);
      fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
      o.tier_limits = cap;
      fw_runtime_t *rt = nullptr;
      FW_EXPECT_ERROR(fw_runtime_create(&o, &rt),
                      "FW_HOST_MEMORY='" + std::string(bad) + "': expected 'unlimited' or a "
                      "positive size");
      EXPECT_EQ(rt, nullptr);
    }
}

// Tasks take their buffers without the lock while the data fits; once it outgrows the
// tier, copies go to storage and come back bit-identical, and the tier never holds more.
class HostTierPolicyTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {};

TEST_P(HostTierPolicyTest, DataBeyondTheMachinesMemoryGoesToStorage) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = sizedRuntime(GetParam(), 2, "1MiB", dir);  // four buffers
  ASSERT_NE(rt, nullptr);
  constexpr size_t kCount = 10;
  std::vector<std::vector<uint64_t>> expected(kCount);
  std::vector<fw_buffer_t *> buffers(kCount);
  std::vector<uint64_t> steps(4 * kCount);
  auto round = [&](size_t count, size_t r) {
    for (size_t b = 0; b < count; ++b) {
      uint64_t &step = steps[r * kCount + b];
      step = 100 * r + b;
      FW_ASSERT_OK(submit(rt, "advance", advanceTask, &step, {{buffers[b], FW_ACCESS_READ_WRITE}}));
      advance(expected[b].data(), step);
    }
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
  };
  for (size_t b = 0; b < 3; ++b) {
    expected[b] = contents(b);
    buffers[b] = makeU64Buffer(rt, kElements, expected[b]);
    ASSERT_NE(buffers[b], nullptr);
  }
  round(3, 0);
  round(3, 1);
  EXPECT_FALSE(atomic_load(&hostNode(rt).armed)) << "three buffers fit: nothing to evict";
  EXPECT_EQ(fwtest::statsOf(rt).evictions, 0u);
  for (size_t b = 3; b < kCount; ++b) {
    expected[b] = contents(b);
    buffers[b] = makeU64Buffer(rt, kElements, expected[b]);
    ASSERT_NE(buffers[b], nullptr);
  }
  round(kCount, 2);
  round(kCount, 3);
  EXPECT_TRUE(atomic_load(&hostNode(rt).armed));
  EXPECT_EQ(fastUsers(rt), 0);
  fw_runtime_stats_t stats = fwtest::statsOf(rt);
  EXPECT_EQ(stats.tasks_failed, 0u);
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_GT(stats.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE], 0u);
  EXPECT_GT(stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST], 0u);
  EXPECT_EQ(stats.limit_bytes[FW_TIER_HOST], 1u << 20);
  EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], 1u << 20);
  for (size_t b = 0; b < kCount; ++b)
    expectAndRelease(buffers[b], expected[b], std::to_string(b).c_str());
  fw_runtime_destroy(rt);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(HostTierPolicyTest);

struct Gate {
  std::atomic<bool> started{false}, open{false};
};

// Waits for the gate, then advances its buffer by 7.
void gatedAdvance(void *user, void *const *data, size_t) {
  auto *g = static_cast<Gate *>(user);
  g->started = true;
  while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  advance(static_cast<uint64_t *>(data[0]), 7);
}

// A task that took its buffer without the lock holds it unpinned: the first eviction
// (a new buffer that does not fit) waits until that task is done, rather than move
// anything while it runs; the buffer then keeps what the task wrote.
TEST(HostTierTest, TheFirstEvictionWaitsForTasksThatTookBuffersWithoutTheLock) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 2, "768KiB", dir);  // three buffers
  ASSERT_NE(rt, nullptr);
  std::vector<uint64_t> a_expected = contents(1), b_expected = contents(2);
  fw_buffer_t *a = makeU64Buffer(rt, kElements, a_expected);
  fw_buffer_t *b = makeU64Buffer(rt, kElements, b_expected);
  ASSERT_TRUE(a && b);
  Gate gate;
  FW_ASSERT_OK(submit(rt, "gated", gatedAdvance, &gate, {{a, FW_ACCESS_READ_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  EXPECT_EQ(fastUsers(rt), 1) << "the task did not take its buffer without the lock";
  std::atomic<bool> created{false};
  fw_buffer_t *c = nullptr, *d = nullptr;
  std::thread creator([&] {
    c = makeU64Buffer(rt, kElements, contents(3));  // fits
    d = makeU64Buffer(rt, kElements, contents(4));  // needs room: evicts
    created = true;
  });
  fwtest::sleepMs(100);
  EXPECT_FALSE(created) << "evicted while a task held a buffer without a pin";
  EXPECT_TRUE(atomic_load(&hostNode(rt).armed));
  EXPECT_TRUE(fw_memory_is_valid_on(a, FW_NODE_HOST));
  EXPECT_EQ(fwtest::statsOf(rt).evictions, 0u);
  gate.open = true;
  creator.join();
  ASSERT_TRUE(c && d);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  advance(a_expected.data(), 7);
  EXPECT_GT(fwtest::statsOf(rt).evictions, 0u);
  EXPECT_EQ(fastUsers(rt), 0);
  expectAndRelease(a, a_expected, "a");
  expectAndRelease(b, b_expected, "b");
  expectAndRelease(c, contents(3), "c");
  expectAndRelease(d, contents(4), "d");
  fw_runtime_destroy(rt);
}

// Until the tier first fills nothing weighs a buffer's future uses, and tasks do not count
// them; from then on, tasks submitted count their accesses (eviction keeps what the
// submitted tasks need), and those submitted before leave the counts alone when they end.
TEST(HostTierTest, OnceTheTierFillsBuffersCountTheirTasks) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 1, "768KiB", dir);  // three buffers
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *a = makeU64Buffer(rt, kElements, contents(1));
  fw_buffer_t *b = makeU64Buffer(rt, kElements, contents(2));
  ASSERT_TRUE(a && b);
  auto uses = [](fw_buffer_t *x) { return atomic_load(&x->mem.future_uses); };
  uint64_t step = 1;
  // Submitted before: not counted, and not uncounted when they end after the tier filled.
  Gate gate;
  FW_ASSERT_OK(submit(rt, "gated", gatedAdvance, &gate, {{a, FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(submit(rt, "later", advanceTask, &step, {{b, FW_ACCESS_READ_WRITE}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return gate.started.load(); }));
  EXPECT_EQ(uses(b), 0u);
  EXPECT_TRUE(fw_scheduler_host_only(&rt->sched));
  fw_buffer_t *c = nullptr, *d = nullptr;
  std::thread creator([&] {
    c = makeU64Buffer(rt, kElements, contents(3));
    d = makeU64Buffer(rt, kElements, contents(4));  // the tier fills: waits for "gated"
  });
  ASSERT_TRUE(fwtest::waitUntil([&] { return atomic_load(&hostNode(rt).armed) != 0; }));
  EXPECT_TRUE(fw_scheduler_counts_uses(&rt->sched));
  EXPECT_FALSE(fw_scheduler_host_only(&rt->sched));
  gate.open = true;
  creator.join();
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(uses(a), 0u);
  EXPECT_EQ(uses(b), 0u) << "a task submitted before the tier filled uncounted its use";
  // Submitted after: counted until they end.
  Gate again;
  FW_ASSERT_OK(submit(rt, "gated", gatedAdvance, &again, {{a, FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(submit(rt, "later", advanceTask, &step, {{b, FW_ACCESS_READ_WRITE}}));
  // (A submission the worker's hold on the scheduler lock staged counts when it lets go.)
  EXPECT_TRUE(fwtest::waitUntil([&] { return uses(b) == 1u; })) << uses(b);
  again.open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(uses(a), 0u);
  EXPECT_EQ(uses(b), 0u);
  for (fw_buffer_t *x : {a, b, c, d}) fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

struct Maker {
  fw_runtime_t *rt;
  fw_buffer_t *made = nullptr;
  std::string error;
};

// Makes a buffer of contents(5) (which does not fit: something must go to storage), then
// advances its own buffer by 7.
void makeThenAdvance(void *user, void *const *data, size_t) {
  auto *m = static_cast<Maker *>(user);
  std::vector<uint64_t> values = contents(5);
  const int64_t dims[1] = {int64_t(kElements)};
  m->error = fwtest::consume(fw_buffer_create(m->rt, FW_ELEMENT_TYPE_I64, 1, dims, values.data(),
                                              kBytes, &m->made));
  advance(static_cast<uint64_t *>(data[0]), 7);
}

// A body that asks for room in a full tier it took its buffer in without the lock is
// pinned first: the room comes from the other buffers (not its own), rather than waiting
// for its own end.
TEST(HostTierTest, ABodyThatAsksForRoomIsPinnedFirst) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 1, "768KiB", dir);  // three buffers
  ASSERT_NE(rt, nullptr);
  std::vector<uint64_t> a_expected = contents(1);
  fw_buffer_t *a = makeU64Buffer(rt, kElements, a_expected);
  fw_buffer_t *b = makeU64Buffer(rt, kElements, contents(2));
  fw_buffer_t *c = makeU64Buffer(rt, kElements, contents(3));
  ASSERT_TRUE(a && b && c);
  Maker maker{rt};
  FW_ASSERT_OK(submit(rt, "maker", makeThenAdvance, &maker, {{a, FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(maker.error, "");
  ASSERT_NE(maker.made, nullptr);
  advance(a_expected.data(), 7);
  fw_runtime_stats_t stats = fwtest::statsOf(rt);
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_EQ(stats.tasks_failed, 0u);
  EXPECT_EQ(fastUsers(rt), 0);
  EXPECT_EQ(rt->memory.task_pins, 0u);
  expectAndRelease(a, a_expected, "a");
  expectAndRelease(b, contents(2), "b");
  expectAndRelease(c, contents(3), "c");
  expectAndRelease(maker.made, contents(5), "made");
  fw_runtime_destroy(rt);
}

// A task larger than the tier is an error that names where the capacity comes from.
TEST(HostTierTest, ATaskLargerThanTheTierNamesTheMachinesMemory) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = sizedRuntime(FW_SCHEDULER_EAGER, 1, "384KiB", dir);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *a = makeU64Buffer(rt, kElements);
  fw_buffer_t *b = makeU64Buffer(rt, kElements);
  ASSERT_TRUE(a && b);
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(submit(rt, "both", [](void *, void *const *, size_t) {}, nullptr,
                      {{a, FW_ACCESS_WRITE}, {b, FW_ACCESS_WRITE}}, &t));
  FW_EXPECT_ERROR(fw_task_wait(t),
                  "task @both needs 524288 bytes of host memory at once, but the host tier "
                  "holds at most 393216 bytes (the memory available when the runtime started, "
                  "or FW_HOST_MEMORY)");
  fw_task_release(t);
  std::vector<uint64_t> big(2 * kElements, 1);
  const int64_t dims[1] = {int64_t(big.size())};
  fw_buffer_t *too_big = nullptr;
  FW_EXPECT_ERROR(fw_buffer_create(rt, FW_ELEMENT_TYPE_I64, 1, dims, big.data(),
                                   big.size() * sizeof(uint64_t), &too_big),
                  "a 524288-byte buffer does not fit the host tier's limit of 393216 bytes "
                  "(the memory available when the runtime started, or FW_HOST_MEMORY)");
  fw_buffer_release(a);
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// ---- Stress: the tier filling while tasks take their buffers without the lock ----------

constexpr size_t kStressElements = 16384;  // 128 KiB buffers

struct StressOp {
  enum Kind { kUpdate, kContribute, kFail, kCheck } kind = kUpdate;
  uint64_t k = 0;
  uint64_t expected = 0;  // kCheck: the checksum its buffer must have
  bool create = false;    // the body makes (and drops) a buffer with data first
  fw_runtime_t *rt = nullptr;
  std::atomic<int> *errors = nullptr;
};

uint64_t checksum(const uint64_t *p) {
  uint64_t s = 0;
  for (size_t j = 0; j < kStressElements; ++j) s = s * 1000003 + p[j];
  return s;
}

// kUpdate: dst = dst * 3 + src + k + j (src: its second access, else dst itself);
// kContribute: accumulator += k + j; kFail: overwrites its buffer and fails; kCheck:
// compares its buffer's checksum.
void stressBody(void *user, void *const *data, size_t num) {
  auto *op = static_cast<StressOp *>(user);
  if (op->create) {
    std::vector<uint64_t> values(kStressElements, op->k);
    const int64_t dims[1] = {int64_t(kStressElements)};
    fw_buffer_t *b = nullptr;
    std::string error = fwtest::consume(fw_buffer_create(
        op->rt, FW_ELEMENT_TYPE_I64, 1, dims, values.data(), values.size() * 8, &b));
    if (!error.empty()) op->errors->fetch_add(1);
    fw_buffer_release(b);
  }
  auto *d = static_cast<uint64_t *>(data[0]);
  switch (op->kind) {
    case StressOp::kUpdate: {
      const auto *src = static_cast<const uint64_t *>(data[num > 1 ? 1 : 0]);
      for (size_t j = 0; j < kStressElements; ++j) d[j] = d[j] * 3 + src[j] + op->k + j;
      break;
    }
    case StressOp::kContribute:
      for (size_t j = 0; j < kStressElements; ++j) d[j] += op->k + j;
      break;
    case StressOp::kFail:
      for (size_t j = 0; j < kStressElements; ++j) d[j] = 0xdead;
      fw_status_free(fw_task_fail(fw_status_create(FW_STATUS_INTERNAL, "planned failure")));
      break;
    case StressOp::kCheck:
      if (checksum(d) != op->expected) op->errors->fetch_add(1);
      break;
  }
}

class HostTierStressTest
    : public ::testing::TestWithParam<std::tuple<fw_scheduler_kind_t, uint32_t>> {};

// Random updates, checking readers, contributions to a sum, failing tasks and bodies that
// make buffers, over fifteen buffers in room for sixteen (the bodies' buffers and the
// accumulators fill it, in some runs only), against a sequential replay; several runtimes
// in a row, since what it checks (the hand-over from tasks that took their buffers without
// the lock to eviction) happens at most once per runtime.
TEST_P(HostTierStressTest, MatchesSequentialReplay) {
  auto [policy, workers] = GetParam();
  constexpr size_t kBuffers = 12, kScratch = 2, kTasks = 300, kRounds = 4;
  uint64_t evictions = 0;
  for (size_t round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    fwtest::Rng rng(0x5eed + round * 131 + workers * 7 + uint64_t(policy));
    fwtest::TempDir dir;
    ASSERT_TRUE(dir.ok());
    fw_runtime_t *rt = sizedRuntime(policy, workers, "2MiB", dir);
    ASSERT_NE(rt, nullptr);
    std::vector<fw_buffer_t *> buffers(kBuffers), scratch(kScratch);
    for (auto &b : buffers) b = makeU64Buffer(rt, kStressElements);  // memory when used
    for (auto &b : scratch) b = makeU64Buffer(rt, kStressElements);
    fw_buffer_t *sum = makeU64Buffer(rt, kStressElements);
    FW_ASSERT_OK(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM));
    std::vector<std::vector<uint64_t>> state(kBuffers,
                                             std::vector<uint64_t>(kStressElements, 0));
    std::vector<uint64_t> sum_state(kStressElements, 0);
    std::vector<StressOp> ops(kTasks);
    std::atomic<int> errors{0};
    size_t failing = 0;
    for (StressOp &op : ops) {
      op.rt = rt;
      op.errors = &errors;
      op.k = rng.next() % 1000;
      op.create = rng.next() % 8 == 0;
      unsigned r = unsigned(rng.next() % 10);
      op.kind = r < 5   ? StressOp::kUpdate
                : r < 7 ? StressOp::kContribute
                : r < 8 ? StressOp::kFail
                        : StressOp::kCheck;
      size_t dst = rng.next() % kBuffers, src = rng.next() % kBuffers;
      std::vector<fw_task_access_t> accesses;
      if (op.kind == StressOp::kUpdate) {
        accesses = {{buffers[dst], FW_ACCESS_READ_WRITE}};
        if (src != dst) accesses.push_back({buffers[src], FW_ACCESS_READ});
        std::vector<uint64_t> in = state[src];
        for (size_t j = 0; j < kStressElements; ++j)
          state[dst][j] = state[dst][j] * 3 + in[j] + op.k + j;
      } else if (op.kind == StressOp::kContribute) {
        accesses = {{sum, FW_ACCESS_REDUCE}};
        for (size_t j = 0; j < kStressElements; ++j) sum_state[j] += op.k + j;
      } else if (op.kind == StressOp::kFail) {
        accesses = {{scratch[rng.next() % kScratch], FW_ACCESS_WRITE}};
        ++failing;
      } else {
        accesses = {{buffers[src], FW_ACCESS_READ}};
        op.expected = checksum(state[src].data());
      }
      FW_ASSERT_OK(submit(rt, "op", stressBody, &op, accesses));
    }
    fw_status_t waited = fw_runtime_wait_all(rt);  // the planned failures
    fw_runtime_stats_t stats = fwtest::statsOf(rt);
    EXPECT_EQ(stats.tasks_failed, failing) << fw_status_message(waited);
    fw_status_free(waited);
    EXPECT_EQ(errors.load(), 0) << "a reader saw other data, or a body could not make a buffer";
    for (size_t b = 0; b < kBuffers; ++b) {
      EXPECT_EQ(readU64(buffers[b]), state[b]) << "buffer " << b;
      fw_buffer_unmap(buffers[b]);
    }
    EXPECT_EQ(readU64(sum), sum_state) << "the sum";
    fw_buffer_unmap(sum);
    EXPECT_EQ(fastUsers(rt), 0);
    EXPECT_EQ(rt->memory.task_pins, 0u);
    evictions += stats.evictions;
    EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], stats.limit_bytes[FW_TIER_HOST]);
    for (fw_buffer_t *b : buffers) fw_buffer_release(b);
    for (fw_buffer_t *b : scratch) fw_buffer_release(b);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
  EXPECT_GT(evictions, 0u) << "the tier never filled";
}

INSTANTIATE_TEST_SUITE_P(
    Policies, HostTierStressTest,
    ::testing::Combine(::testing::Values(FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT),
                       ::testing::Values(2u, 8u)),
    [](const ::testing::TestParamInfo<std::tuple<fw_scheduler_kind_t, uint32_t>> &info) {
      return std::string(fwtest::schedulerName(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param)) + "workers";
    });

}  // namespace
