// Coherent buffers over the memory tiers: a working set larger than the host tier moves
// through the storage tier's files without changing a bit, tasks or buffers that cannot
// fit fail with clear errors, prefetch, and the storage files' lifetime.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::mix;
using fwtest::sleepMs;
using fwtest::submit;

constexpr size_t kKiB = 1024;
constexpr size_t kBig = 256 * kKiB / sizeof(uint64_t);  // elements of a 256 KiB buffer
constexpr uint64_t kHostLimit = 1024 * kKiB;

std::vector<uint64_t> contents(uint64_t seed, size_t n = kBig) {
  std::vector<uint64_t> v(n);
  for (size_t j = 0; j < n; ++j) v[j] = mix(seed * 0x100000001ull + j);
  return v;
}

// Whether the directory is empty. Checked right after fw_runtime_destroy: when the caller
// has released everything, the runtime (and every buffer's storage file) is gone by then.
bool isEmpty(const fwtest::TempDir &dir) { return dir.entries().empty(); }

std::string joined(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names) s += n + " ";
  return s;
}

// ---- Task bodies ----------------------------------------------------------------

struct Affine {
  uint64_t mul, add;
};

// data[0][j] = data[0][j] * mul + add + j.
void affineTask(void *user, void *const *data, size_t) {
  auto *a = static_cast<const Affine *>(user);
  auto *p = static_cast<uint64_t *>(data[0]);
  for (size_t j = 0; j < kBig; ++j) p[j] = p[j] * a->mul + a->add + j;
}

void affine(std::vector<uint64_t> &v, const Affine &a) {
  for (size_t j = 0; j < v.size(); ++j) v[j] = v[j] * a.mul + a.add + j;
}

// data[2][j] = data[0][j] ^ rotl(data[1][j], 7) for the first kSmall elements.
constexpr size_t kSmall = 512;
void combineTask(void *, void *const *data, size_t num) {
  ASSERT_EQ(num, 3u);
  auto *a = static_cast<const uint64_t *>(data[0]);
  auto *b = static_cast<const uint64_t *>(data[1]);
  auto *c = static_cast<uint64_t *>(data[2]);
  for (size_t j = 0; j < kSmall; ++j) c[j] = a[j] ^ ((b[j] << 7) | (b[j] >> 57));
}

// ---- The working set is four times the host tier --------------------------------

class TierTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {};

// A runtime with tier limits `limits` and its storage tier in `dir` (nullptr, reported,
// when it cannot be made).
fw_runtime_t *tieredRuntime(fw_scheduler_kind_t policy, uint32_t workers, const char *limits,
                            const fwtest::TempDir &dir) {
  fw_runtime_options_t o = fwtest::taskOptions(policy, workers);
  o.tier_limits = limits;
  o.storage_dir = dir.path().c_str();
  return fwtest::createRuntime(o);
}

TEST_P(TierTest, WorkingSetLargerThanHostTier) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(GetParam(), 2, "host=1MiB", dir);
  ASSERT_NE(rt, nullptr);

  constexpr size_t kCount = 16;  // 16 x 256 KiB = 4 MiB
  std::vector<std::vector<uint64_t>> expected(kCount);
  std::vector<fw_buffer_t *> big(kCount), small(kCount);
  for (size_t b = 0; b < kCount; ++b) {
    expected[b] = contents(b + 1);
    big[b] = makeU64Buffer(rt, kBig, expected[b]);
    ASSERT_NE(big[b], nullptr);
    small[b] = makeU64Buffer(rt, kSmall);
    ASSERT_NE(small[b], nullptr);
  }
  // Creating them already spilled the first ones to storage.
  EXPECT_FALSE(dir.entries().empty());

  std::vector<Affine> params(3 * kCount);
  std::vector<std::vector<uint64_t>> combined(kCount, std::vector<uint64_t>(kSmall));
  for (size_t round = 0; round < 3; ++round) {
    for (size_t b = 0; b < kCount; ++b) {
      Affine &a = params[round * kCount + b];
      a = {3 + 2 * round, 1000 * round + b};
      FW_ASSERT_OK(submit(rt, "affine", affineTask, &a, {{big[b], FW_ACCESS_READ_WRITE}}));
      affine(expected[b], a);
    }
    if (round == 1) {
      // Two inputs per task, shared between concurrent tasks.
      for (size_t b = 0; b < kCount; ++b) {
        size_t other = (b + 5) % kCount;
        FW_ASSERT_OK(submit(rt, "combine", combineTask, nullptr,
                            {{big[b], FW_ACCESS_READ},
                             {big[other], FW_ACCESS_READ},
                             {small[b], FW_ACCESS_WRITE}}));
        for (size_t j = 0; j < kSmall; ++j) {
          uint64_t x = expected[other][j];
          combined[b][j] = expected[b][j] ^ ((x << 7) | (x >> 57));
        }
      }
    }
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));

  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_EQ(stats.tasks_executed, 4 * kCount);
  EXPECT_EQ(stats.tasks_failed, 0u);
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_GT(stats.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE], 0u);
  EXPECT_GT(stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST], 0u);
  EXPECT_EQ(stats.limit_bytes[FW_TIER_HOST], kHostLimit);
  EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], kHostLimit);
  EXPECT_GT(stats.peak_bytes[FW_TIER_STORAGE], 0u);

  // fw_buffer_data keeps a buffer in host memory until its next task, so only a few fit
  // at once: check one, then release it.
  for (size_t b = 0; b < kCount; ++b) {
    const auto *p = static_cast<const uint64_t *>(fw_buffer_data(small[b]));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(std::memcmp(p, combined[b].data(), kSmall * sizeof(uint64_t)), 0) << b;
    fw_buffer_release(small[b]);
  }
  for (size_t b = 0; b < kCount; ++b) {
    const auto *p = static_cast<const uint64_t *>(fw_buffer_data(big[b]));
    ASSERT_NE(p, nullptr) << b;
    EXPECT_EQ(std::memcmp(p, expected[b].data(), kBig * sizeof(uint64_t)), 0) << "buffer " << b;
    fw_buffer_release(big[b]);
  }
  fw_runtime_destroy(rt);
  // Every storage file went with its buffer; the caller's directory stays.
  EXPECT_TRUE(isEmpty(dir)) << joined(dir.entries());
}

// "host=min": the host tier holds no more than the tasks need at once, everything else
// goes to storage as soon as no task uses it, and every bit comes back.
TEST_P(TierTest, MinimalHostTierSpillsEverythingElse) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(GetParam(), 1, "host=min", dir);
  ASSERT_NE(rt, nullptr);
  constexpr size_t kCount = 6;
  std::vector<std::vector<uint64_t>> expected(kCount);
  std::vector<fw_buffer_t *> big(kCount);
  for (size_t b = 0; b < kCount; ++b) {
    expected[b] = contents(b + 100);
    big[b] = makeU64Buffer(rt, kBig, expected[b]);
    ASSERT_NE(big[b], nullptr);
  }
  // Each new buffer pushed the one before it to storage.
  EXPECT_EQ(dir.entries().size(), kCount - 1);
  std::vector<Affine> params(2 * kCount);
  for (size_t round = 0; round < 2; ++round)
    for (size_t b = 0; b < kCount; ++b) {
      Affine &a = params[round * kCount + b];
      a = {5 + round, 7 * b + round};
      FW_ASSERT_OK(submit(rt, "affine", affineTask, &a, {{big[b], FW_ACCESS_READ_WRITE}}));
      affine(expected[b], a);
    }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_EQ(stats.tasks_failed, 0u);
  // One worker: one buffer at a time, so the tier never grew beyond one buffer.
  EXPECT_EQ(stats.limit_bytes[FW_TIER_HOST], kBig * sizeof(uint64_t));
  EXPECT_EQ(stats.peak_bytes[FW_TIER_HOST], kBig * sizeof(uint64_t));
  // Creating the buffers evicted all but the last; the tasks then brought each other one
  // in at least once, each evicting the one before (the order depends on the policy).
  EXPECT_GE(stats.evictions, 2 * (kCount - 1));
  // A task that reads two of them, one in host memory and one in storage: making room
  // for the second evicts the first, and the tier grows to both, never beyond.
  fw_buffer_t *small = makeU64Buffer(rt, kSmall);
  ASSERT_NE(small, nullptr);
  FW_ASSERT_OK(submit(rt, "combine", combineTask, nullptr,
                      {{big[kCount - 2], FW_ACCESS_READ},
                       {big[kCount - 1], FW_ACCESS_READ},
                       {small, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_EQ(stats.tasks_failed, 0u);
  EXPECT_EQ(stats.limit_bytes[FW_TIER_HOST], (2 * kBig + kSmall) * sizeof(uint64_t));
  EXPECT_LE(stats.peak_bytes[FW_TIER_HOST], stats.limit_bytes[FW_TIER_HOST]);
  const auto *c = static_cast<const uint64_t *>(fw_buffer_data(small));
  ASSERT_NE(c, nullptr);
  for (size_t j = 0; j < kSmall; ++j) {
    uint64_t x = expected[kCount - 1][j];
    ASSERT_EQ(c[j], expected[kCount - 2][j] ^ ((x << 7) | (x >> 57))) << j;
  }
  fw_buffer_release(small);
  // Views of every buffer at once: nothing can be evicted for them, so the tier grows
  // rather than fail.
  std::vector<const uint64_t *> views(kCount);
  for (size_t b = 0; b < kCount; ++b) {
    views[b] = static_cast<const uint64_t *>(fw_buffer_data(big[b]));
    ASSERT_NE(views[b], nullptr) << b;
  }
  for (size_t b = 0; b < kCount; ++b)
    EXPECT_EQ(std::memcmp(views[b], expected[b].data(), kBig * sizeof(uint64_t)), 0) << b;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_EQ(stats.limit_bytes[FW_TIER_HOST], kCount * kBig * sizeof(uint64_t));
  for (fw_buffer_t *b : big) fw_buffer_release(b);
  fw_runtime_destroy(rt);
  EXPECT_TRUE(isEmpty(dir)) << joined(dir.entries());
}

// A task that needs room for one of its inputs does not evict another of them to make
// it: the one in host memory stays, only the other is read back.
TEST(TierRoomTest, ATaskKeepsItsOwnInputsWhileMakingRoom) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_HEFT, 1, "host=min", dir);
  ASSERT_NE(rt, nullptr);
  std::vector<uint64_t> a = contents(1), b = contents(2);
  fw_buffer_t *ba = makeU64Buffer(rt, kBig, a), *bb = makeU64Buffer(rt, kBig, b);
  ASSERT_NE(ba, nullptr);
  ASSERT_NE(bb, nullptr);  // a went to storage to make room for b
  fw_buffer_t *out = makeU64Buffer(rt, kSmall);
  ASSERT_NE(out, nullptr);
  fw_runtime_stats_t before, after;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &before));
  FW_ASSERT_OK(submit(rt, "combine", combineTask, nullptr,
                      {{ba, FW_ACCESS_READ}, {bb, FW_ACCESS_READ}, {out, FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &after));
  EXPECT_EQ(after.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST] -
                before.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST],
            kBig * sizeof(uint64_t));
  EXPECT_EQ(after.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE] -
                before.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE],
            0u);
  const auto *c = static_cast<const uint64_t *>(fw_buffer_data(out));
  ASSERT_NE(c, nullptr);
  for (size_t j = 0; j < kSmall; ++j)
    ASSERT_EQ(c[j], a[j] ^ ((b[j] << 7) | (b[j] >> 57))) << j;
  for (fw_buffer_t *x : {ba, bb, out}) fw_buffer_release(x);
  fw_runtime_destroy(rt);
  EXPECT_TRUE(isEmpty(dir)) << joined(dir.entries());
}

// What a GPU worker with kernels in flight uses for its next task: buffers taken only when
// nothing must be waited for, evicted or copied; refused, nothing changes.
TEST(TierRoomTest, TryAcquireTakesOnlyWhatNeedsNoWaitOrCopy) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_HEFT, 1, "host=768KiB", dir);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *b[4];
  for (int i = 0; i < 4; ++i) {  // the fourth sends the first to storage
    b[i] = makeU64Buffer(rt, kBig, contents(10 + i));
    ASSERT_NE(b[i], nullptr);
  }
  fw_buffer_t *fresh = makeU64Buffer(rt, kBig);  // never written: no memory yet
  ASSERT_NE(fresh, nullptr);
  fw_memory_t *m = &rt->memory;
  ASSERT_FALSE(fw_memory_is_valid_on(b[0], FW_NODE_HOST));
  ASSERT_TRUE(fw_memory_is_valid_on(b[0], FW_NODE_STORAGE));
  auto task = [&](std::vector<fw_task_access_t> accesses) {
    fw_task_t *t = nullptr;
    fw_status_t s = fw_task_create(rt, "t", accesses.data(), accesses.size(), &t);
    EXPECT_EQ(s, nullptr) << fw_status_message(s);
    fw_status_free(s);
    return t;
  };
  void *data[2] = {nullptr, nullptr};
  int taken = -1;
  // In host memory: taken, pinned until released.
  fw_task_t *here = task({{b[1], FW_ACCESS_READ}, {b[2], FW_ACCESS_READ_WRITE}});
  FW_ASSERT_OK(fw_memory_try_acquire(m, here, FW_NODE_HOST, data, &taken));
  EXPECT_EQ(taken, 1);
  EXPECT_NE(data[0], nullptr);
  EXPECT_EQ(m->task_pins, 2u);
  fw_memory_release(m, here, FW_NODE_HOST);
  EXPECT_EQ(m->task_pins, 0u);
  // In storage: it would be copied back (after an eviction), so it is refused.
  uint64_t moved = m->bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  uint64_t evictions = m->evictions;
  fw_task_t *stored = task({{b[0], FW_ACCESS_READ}, {b[1], FW_ACCESS_READ}});
  FW_ASSERT_OK(fw_memory_try_acquire(m, stored, FW_NODE_HOST, data, &taken));
  EXPECT_EQ(taken, 0);
  EXPECT_EQ(m->task_pins, 0u);
  EXPECT_EQ(m->bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST], moved);
  EXPECT_EQ(m->evictions, evictions);
  // No room for a buffer not yet in host memory without evicting: refused.
  fw_task_t *needs_room = task({{fresh, FW_ACCESS_WRITE}});
  FW_ASSERT_OK(fw_memory_try_acquire(m, needs_room, FW_NODE_HOST, data, &taken));
  EXPECT_EQ(taken, 0);
  EXPECT_EQ(m->evictions, evictions);
  // Waiting and evicting are what fw_memory_acquire is for: it takes both.
  uint64_t stall = 0;
  FW_ASSERT_OK(fw_memory_acquire(m, stored, FW_NODE_HOST, data, &stall, nullptr));
  EXPECT_EQ(m->bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST], moved + kBig * sizeof(uint64_t));
  EXPECT_EQ(static_cast<const uint64_t *>(data[0])[5], contents(10)[5]);
  fw_memory_release(m, stored, FW_NODE_HOST);
  for (fw_task_t *t : {here, stored, needs_room}) fw_task_release(t);
  for (fw_buffer_t *x : b) fw_buffer_release(x);
  fw_buffer_release(fresh);
  fw_runtime_destroy(rt);
}

// Memory is contended from the first eviction until every sized tier is at most half
// full again: then placed tasks' inputs prefetch at once again.
TEST(TierRoomTest, ContentionEndsWhenTheTierIsHalfEmptyAgain) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_HEFT, 1, "host=1MiB", dir);
  ASSERT_NE(rt, nullptr);
  fw_memory_t *m = &rt->memory;
  EXPECT_EQ(atomic_load(&m->spilled), 0);
  std::vector<fw_buffer_t *> b;
  for (int i = 0; i < 5; ++i) {  // the fifth sends the first to storage
    b.push_back(makeU64Buffer(rt, kBig, contents(20 + i)));
    ASSERT_NE(b.back(), nullptr);
  }
  EXPECT_EQ(atomic_load(&m->spilled), 1);
  // 768 KiB of 1 MiB, then 512 KiB: contended still, then not.
  fw_buffer_release(b[4]);
  EXPECT_EQ(atomic_load(&m->spilled), 1);
  fw_buffer_release(b[3]);
  fw_buffer_release(b[2]);
  EXPECT_EQ(atomic_load(&m->spilled), 0);
  // What went to storage comes back intact.
  void *data = nullptr;
  FW_ASSERT_OK(fw_buffer_map(b[0], &data));
  EXPECT_EQ(std::vector<uint64_t>(static_cast<uint64_t *>(data),
                                  static_cast<uint64_t *>(data) + kBig),
            contents(20));
  fw_buffer_unmap(b[0]);
  fw_buffer_release(b[0]);
  fw_buffer_release(b[1]);
  fw_runtime_destroy(rt);
}

FW_INSTANTIATE_FOR_EVERY_POLICY(TierTest);

class TierErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 2);
    o.tier_limits = "host=1MiB";
    o.storage_dir = dir_.path().c_str();
    FW_ASSERT_OK(fw_runtime_create(&o, &rt_));
  }
  void TearDown() override {
    fw_runtime_destroy(rt_);
    EXPECT_TRUE(isEmpty(dir_)) << joined(dir_.entries());
  }
  fwtest::TempDir dir_;
  fw_runtime_t *rt_ = nullptr;
};

void markTask(void *user, void *const *, size_t) { *static_cast<int *>(user) = 1; }

TEST_F(TierErrorTest, TaskLargerThanTheTierFails) {
  std::vector<fw_buffer_t *> bufs;
  std::vector<fw_task_access_t> acc;
  for (int i = 0; i < 5; ++i) {  // 1.25 MiB at once
    bufs.push_back(makeU64Buffer(rt_, kBig));
    acc.push_back({bufs.back(), i == 0 ? FW_ACCESS_WRITE : FW_ACCESS_READ});
  }
  int ran = 0, successor_ran = 0, independent_ran = 0;
  fw_task_t *big = nullptr, *successor = nullptr;
  // A gate holds the failing task back until its successor is in the graph: an error
  // travels along the edges to unfinished tasks only (a task submitted after its
  // predecessor finished, even with an error, has no edge to it).
  static std::atomic<bool> open;
  open = false;
  FW_ASSERT_OK(submit(
      rt_, "gate", [](void *, void *const *, size_t) {
        fwtest::waitUntil([&] { return open.load(); });
      },
      nullptr, {{bufs[0], FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "huge", markTask, &ran, acc, &big));
  // Depends on the failing task: cancelled with its error.
  FW_ASSERT_OK(submit(rt_, "after", markTask, &successor_ran, {{bufs[0], FW_ACCESS_READ}},
                      &successor));
  fw_buffer_t *other = makeU64Buffer(rt_, 16);
  FW_ASSERT_OK(submit(rt_, "independent", markTask, &independent_ran,
                      {{other, FW_ACCESS_WRITE}}));
  open = true;
  FW_EXPECT_ERROR(fw_task_wait(big), "task @huge needs 1310720 bytes of host memory at once");
  FW_EXPECT_ERROR(fw_task_wait(big), "FW_TIER_LIMITS");
  FW_EXPECT_ERROR(fw_task_wait(successor), "task @huge");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "task @huge");
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));  // the error was reported once
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(successor_ran, 0);
  EXPECT_EQ(independent_ran, 1);
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt_, &stats));
  EXPECT_EQ(stats.tasks_failed, 2u);
  EXPECT_EQ(stats.tasks_executed, 2u);
  // Submitted after the failure: there is no edge any more, but what @huge was to write
  // is not valid, so a reader fails with its error; a task that overwrites the buffer
  // makes it valid again.
  int late_ran = 0;
  fw_task_t *late = nullptr;
  FW_ASSERT_OK(submit(rt_, "late", markTask, &late_ran, {{bufs[0], FW_ACCESS_READ}}, &late));
  FW_EXPECT_ERROR(fw_task_wait(late), "task @huge");
  EXPECT_EQ(late_ran, 0);
  fw_task_release(late);
  fw_status_t late_error = fw_runtime_wait_all(rt_);
  EXPECT_FALSE(fw_status_code(late_error) == FW_STATUS_OK);
  fw_status_free(late_error);
  int rewrite_ran = 0, reread_ran = 0;
  FW_ASSERT_OK(submit(rt_, "rewrite", markTask, &rewrite_ran, {{bufs[0], FW_ACCESS_WRITE}}));
  FW_ASSERT_OK(submit(rt_, "reread", markTask, &reread_ran, {{bufs[0], FW_ACCESS_READ}}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(rewrite_ran, 1);
  EXPECT_EQ(reread_ran, 1);
  fw_task_release(big);
  fw_task_release(successor);
  for (fw_buffer_t *b : bufs) fw_buffer_release(b);
  fw_buffer_release(other);
}

TEST_F(TierErrorTest, BufferLargerThanTheTier) {
  const int64_t dims[1] = {int64_t(4 * kBig + 8)};  // 1 MiB + 64 bytes
  std::vector<uint64_t> data(4 * kBig + 8);
  fw_buffer_t *b = nullptr;
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I64, 1, dims, data.data(),
                                   data.size() * 8, &b),
                  "does not fit the host tier's limit of 1048576 bytes (FW_TIER_LIMITS)");
  EXPECT_EQ(b, nullptr);
}

TEST_F(TierErrorTest, NothingLeftToEvict) {
  // Mapped buffers stay in host memory: four of them fill the tier.
  std::vector<fw_buffer_t *> mapped;
  for (int i = 0; i < 4; ++i) {
    mapped.push_back(makeU64Buffer(rt_, kBig, contents(i)));
    ASSERT_NE(mapped.back(), nullptr);
  }
  for (fw_buffer_t *b : mapped) ASSERT_NE(fw_buffer_data(b), nullptr);

  std::vector<uint64_t> data = contents(99);
  const int64_t dims[1] = {int64_t(kBig)};
  fw_buffer_t *extra = nullptr;
  FW_EXPECT_ERROR(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I64, 1, dims, data.data(),
                                   data.size() * 8, &extra),
                  "a new buffer needs 262144 bytes of host memory that it does not have yet, "
                  "but 1048576 of the host tier's 1048576 bytes (FW_TIER_LIMITS) are in use "
                  "and nothing left in it can be evicted");
  EXPECT_EQ(extra, nullptr);

  // A buffer without data gets its memory later; neither the caller nor a task can get it.
  fw_buffer_t *empty = makeU64Buffer(rt_, kBig);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(fw_buffer_data(empty), nullptr);
  void *host = nullptr;
  FW_EXPECT_ERROR(fw_buffer_map(empty, &host), "nothing left in it can be evicted");
  int ran = 0;
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(submit(rt_, "starved", markTask, &ran, {{empty, FW_ACCESS_WRITE}}, &t));
  FW_EXPECT_ERROR(fw_task_wait(t), "task @starved needs 262144 bytes of host memory that it does not have yet");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt_), "nothing left");
  fw_task_release(t);
  EXPECT_EQ(ran, 0);

  // Passing a mapped buffer to a task ends the mapping: it can be evicted again.
  FW_ASSERT_OK(submit(rt_, "touch", markTask, &ran, {{mapped[0], FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(ran, 1);
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I64, 1, dims, data.data(),
                                data.size() * 8, &extra));
  // mapped[0] went down to storage and comes back intact.
  fw_buffer_release(mapped[3]);
  const auto *p = static_cast<const uint64_t *>(fw_buffer_data(mapped[0]));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::memcmp(p, contents(0).data(), kBig * 8), 0);
  for (int i = 0; i < 3; ++i) fw_buffer_release(mapped[i]);
  fw_buffer_release(extra);
  fw_buffer_release(empty);
}

// Two task bodies that each hold their buffer and make a new one in a full tier, where the
// rest is held by the caller: each can get its room only from the other's end. The second
// to find that out fails (it would wait for the first for good); its task's end frees its
// buffer, and the first then gets its room from it.
struct RoomMaker {
  fw_runtime_t *rt;
  std::atomic<int> *arrived;
  uint64_t seed;
  fw_buffer_t *made = nullptr;
  std::string error;
  bool met = false;
};

void makeWhenBothRun(void *user, void *const *data, size_t) {
  auto *r = static_cast<RoomMaker *>(user);
  static_cast<uint64_t *>(data[0])[0] += 1;
  ++*r->arrived;
  r->met = fwtest::waitUntil([r] { return r->arrived->load() == 2; });
  std::vector<uint64_t> values = contents(r->seed);
  const int64_t dims[1] = {int64_t(kBig)};
  r->error = fwtest::consume(fw_buffer_create(r->rt, FW_ELEMENT_TYPE_I64, 1, dims,
                                              values.data(), kBig * 8, &r->made));
}

TEST(TierRoomTest, BodiesWaitingForEachOthersRoomDoNotWaitForGood) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  o.tier_limits = "host=1MiB";
  o.storage_dir = dir.path().c_str();
  fw_runtime_t *rt = fwtest::createRuntime(o);
  ASSERT_NE(rt, nullptr);
  std::vector<fw_buffer_t *> held;  // the caller's half of the tier
  for (int i = 0; i < 2; ++i) {
    held.push_back(makeU64Buffer(rt, kBig, contents(10 + i)));
    ASSERT_NE(held.back(), nullptr);
    ASSERT_NE(fw_buffer_data(held.back()), nullptr);
  }
  fw_buffer_t *left = makeU64Buffer(rt, kBig, contents(1));
  fw_buffer_t *right = makeU64Buffer(rt, kBig, contents(2));
  ASSERT_TRUE(left && right);
  std::atomic<int> arrived{0};
  RoomMaker makers[2] = {{rt, &arrived, 3}, {rt, &arrived, 4}};
  FW_ASSERT_OK(submit(rt, "left", makeWhenBothRun, &makers[0], {{left, FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(
      submit(rt, "right", makeWhenBothRun, &makers[1], {{right, FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  ASSERT_TRUE(makers[0].met && makers[1].met) << "the two bodies did not run at once";
  int failed = makers[0].error.empty() ? 1 : 0;
  const RoomMaker &loser = makers[failed], &winner = makers[1 - failed];
  EXPECT_EQ(winner.error, "");
  ASSERT_NE(winner.made, nullptr);
  EXPECT_EQ(loser.made, nullptr);
  EXPECT_NE(loser.error.find("a new buffer needs 262144 bytes of host memory that it does not "
                             "have yet, but 1048576 of the host tier's 1048576 bytes "
                             "(FW_TIER_LIMITS) are in use and nothing left in it can be "
                             "evicted"),
            std::string::npos)
      << loser.error;
  EXPECT_EQ(rt->memory.task_pins, 0u);
  EXPECT_EQ(rt->memory.waiting_pins, 0u);
  for (fw_buffer_t *b : held) fw_buffer_release(b);
  std::vector<uint64_t> expected = contents(1);
  expected[0] += 1;
  EXPECT_EQ(fwtest::readU64(left), expected);
  fw_buffer_release(left);
  expected = contents(2);
  expected[0] += 1;
  EXPECT_EQ(fwtest::readU64(right), expected);
  fw_buffer_release(right);
  EXPECT_EQ(fwtest::readU64(winner.made), contents(winner.seed));
  fw_buffer_release(winner.made);
  fw_runtime_destroy(rt);
}

// ---- Prefetch ---------------------------------------------------------------------

struct Accumulate {
  size_t index;
};

// data[1][j] += data[0][j * 64] * (index + 1), slowly enough for the prefetcher to run
// ahead.
void accumulateTask(void *user, void *const *data, size_t num) {
  ASSERT_EQ(num, 2u);
  sleepMs(2);
  auto *a = static_cast<const Accumulate *>(user);
  auto *in = static_cast<const uint64_t *>(data[0]);
  auto *acc = static_cast<uint64_t *>(data[1]);
  for (size_t j = 0; j < kSmall; ++j) acc[j] += in[j * 64 % kBig] * (a->index + 1);
}

struct PrefetchRun {
  fw_runtime_stats_t stats;
  std::vector<uint64_t> acc;
};

// `tasks` tasks, task k reading input k % `inputs` (256 KiB each, 4x the host tier in
// all) into a small accumulator, one after the other.
PrefetchRun runChain(uint32_t flags, size_t inputs, size_t tasks) {
  PrefetchRun out;
  std::memset(&out.stats, 0, sizeof(out.stats));
  fwtest::TempDir dir;
  EXPECT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 2);
  o.tier_limits = "host=1MiB";
  o.storage_dir = dir.path().c_str();
  o.flags = flags;
  fw_runtime_t *rt = nullptr;
  fw_status_t s = fw_runtime_create(&o, &rt);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  if (!rt) return out;
  std::vector<fw_buffer_t *> in(inputs);
  for (size_t i = 0; i < inputs; ++i) in[i] = makeU64Buffer(rt, kBig, contents(i + 100));
  fw_buffer_t *acc = makeU64Buffer(rt, kSmall);
  // Only what the tasks move counts, not the spills of the creation above.
  fw_runtime_stats_t before;
  s = fw_runtime_get_stats(rt, &before);
  fw_status_free(s);
  std::vector<Accumulate> params(tasks);
  for (size_t k = 0; k < tasks; ++k) {
    params[k].index = k;
    s = submit(rt, "accumulate", accumulateTask, &params[k],
               {{in[k % inputs], FW_ACCESS_READ}, {acc, FW_ACCESS_READ_WRITE}});
    EXPECT_EQ(s, nullptr) << fw_status_message(s);
    fw_status_free(s);
  }
  s = fw_runtime_wait_all(rt);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  s = fw_runtime_get_stats(rt, &out.stats);
  fw_status_free(s);
  for (int a = 0; a < FW_NUM_TIERS; ++a)
    for (int b = 0; b < FW_NUM_TIERS; ++b) out.stats.bytes_moved[a][b] -= before.bytes_moved[a][b];
  out.stats.evictions -= before.evictions;
  out.acc = fwtest::readU64(acc);
  fw_buffer_release(acc);
  for (fw_buffer_t *b : in) fw_buffer_release(b);
  fw_runtime_destroy(rt);
  EXPECT_TRUE(isEmpty(dir)) << joined(dir.entries());
  return out;
}

std::vector<uint64_t> expectedAccumulation(size_t inputs, size_t tasks) {
  std::vector<uint64_t> expected(kSmall, 0);
  for (size_t k = 0; k < tasks; ++k) {
    std::vector<uint64_t> in = contents(k % inputs + 100);
    for (size_t j = 0; j < kSmall; ++j) expected[j] += in[j * 64 % kBig] * (k + 1);
  }
  return expected;
}

bool prefetchDisabledByEnvironment() {
  const char *env = std::getenv("FW_PREFETCH");
  return env && (std::string(env) == "0" || std::string(env) == "off");
}

// Two passes over 12 inputs: the prefetch window covers them all, so prefetches may not
// displace one another; on or off, the data read from storage stays about the same.
// Freed memory is reused, but a buffer that was never written still reads as zeros: in a
// task that reads it and through fw_buffer_data.
void copyTask(void *, void *const *data, size_t) {
  std::memcpy(data[1], data[0], kBig * sizeof(uint64_t));
}

// A C task that only writes part of a never-written buffer leaves zeros elsewhere, even
// in recycled memory.
void writeFirstTask(void *, void *const *data, size_t) {
  static_cast<uint64_t *>(data[0])[0] = 7;
}

TEST(ReuseTest, PartialWritesOfCTasksLeaveZeros) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  for (int round = 0; round < 2; ++round) {
    fw_buffer_t *dirty = makeU64Buffer(rt, kBig, contents(9));
    ASSERT_NE(dirty, nullptr);
    fw_buffer_release(dirty);
    fw_buffer_t *fresh = makeU64Buffer(rt, kBig);
    ASSERT_NE(fresh, nullptr);
    FW_ASSERT_OK(submit(rt, "write_first", writeFirstTask, nullptr,
                        {{fresh, FW_ACCESS_WRITE}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    std::vector<uint64_t> want(kBig, 0);
    want[0] = 7;
    EXPECT_EQ(fwtest::readU64(fresh), want) << round;
    fw_buffer_release(fresh);
  }
  fw_runtime_destroy(rt);
}

TEST(ReuseTest, NeverWrittenBuffersReadAsZeros) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  for (int round = 0; round < 3; ++round) {
    fw_buffer_t *dirty = makeU64Buffer(rt, kBig, contents(7));
    ASSERT_NE(dirty, nullptr);
    fw_buffer_release(dirty);
    fw_buffer_t *fresh = makeU64Buffer(rt, kBig), *out = makeU64Buffer(rt, kBig);
    ASSERT_NE(fresh, nullptr);
    ASSERT_NE(out, nullptr);
    FW_ASSERT_OK(submit(rt, "copy", copyTask, nullptr,
                        {{fresh, FW_ACCESS_READ}, {out, FW_ACCESS_WRITE}}));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(fwtest::readU64(out), std::vector<uint64_t>(kBig, 0)) << round;
    fw_buffer_release(out);
    fw_buffer_release(fresh);
    fw_buffer_t *mapped = makeU64Buffer(rt, kBig);
    ASSERT_NE(mapped, nullptr);
    EXPECT_EQ(fwtest::readU64(mapped), std::vector<uint64_t>(kBig, 0)) << round;
    fw_buffer_release(mapped);
  }
  fw_runtime_destroy(rt);
}

// Several tasks read the same never-written buffer at once: one fills it (with the memory
// lock dropped, it is large), the others wait for that fill; all see zeros.
TEST(ReuseTest, ConcurrentReadersOfANeverWrittenBufferSeeZeros) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 4);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  for (int round = 0; round < 3; ++round) {
    fw_buffer_t *dirty = makeU64Buffer(rt, kBig, contents(5));
    ASSERT_NE(dirty, nullptr);
    fw_buffer_release(dirty);
    fw_buffer_t *fresh = makeU64Buffer(rt, kBig);
    ASSERT_NE(fresh, nullptr);
    std::vector<fw_buffer_t *> outs;
    for (int i = 0; i < 6; ++i) {
      outs.push_back(makeU64Buffer(rt, kBig));
      ASSERT_NE(outs.back(), nullptr);
      FW_ASSERT_OK(submit(rt, "copy", copyTask, nullptr,
                          {{fresh, FW_ACCESS_READ}, {outs.back(), FW_ACCESS_WRITE}}));
    }
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    for (fw_buffer_t *out : outs) {
      EXPECT_EQ(fwtest::readU64(out), std::vector<uint64_t>(kBig, 0)) << round;
      fw_buffer_release(out);
    }
    fw_buffer_release(fresh);
  }
  fw_runtime_destroy(rt);
}

// A device memory node whose copies to host memory (and with `gate_to_device`, to the
// device too) wait until the test lets them go, so that a copy can be held in flight.
struct GatedDevice {
  fw_device_t base;
  std::atomic<bool> copying{false}, open{false}, gate_to_device{false};
};

fw_status_t gatedAlloc(fw_device_t *, size_t size, void **out) {
  *out = std::aligned_alloc(FW_BUFFER_ALIGNMENT, (size + 63) / 64 * 64 + 64);
  return *out ? FW_OK : fw_status_create(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}
void gatedFree(fw_device_t *, void *ptr, size_t) { std::free(ptr); }
fw_status_t gatedCopy(fw_device_t *d, fw_device_queue_t *, void *dst, const void *src,
                      size_t size) {
  auto *g = reinterpret_cast<GatedDevice *>(d);
  if (g->gate_to_device) {
    g->copying = true;
    fwtest::waitUntil([&] { return g->open.load(); });
  }
  std::memcpy(dst, src, size);
  return FW_OK;
}
fw_status_t gatedCopyToHost(fw_device_t *d, fw_device_queue_t *, void *dst, const void *src,
                            size_t size) {
  auto *g = reinterpret_cast<GatedDevice *>(d);
  g->copying = true;
  fwtest::waitUntil([&] { return g->open.load(); });
  std::memcpy(dst, src, size);
  return FW_OK;
}

fw_status_t gatedFill(fw_device_t *, void *ptr, size_t size) {
  std::memset(ptr, 0, size);
  return FW_OK;
}

const fw_device_vtable_t kGatedVtable = [] {
  fw_device_vtable_t v{};
  v.name = "gated";
  v.target_kind = FW_TARGET_KIND_CUDA;
  v.alloc = gatedAlloc;
  v.free = gatedFree;
  v.copy_to_device = gatedCopy;
  v.copy_on_device = gatedCopy;
  v.copy_to_host = gatedCopyToHost;
  v.fill_zero = gatedFill;
  return v;
}();

// Makes `gated` a device node of the memory manager alone (no worker computes there) and
// returns its number.
uint32_t addGatedNode(fw_memory_t *m, GatedDevice *gated) {
  gated->base.vtable = &kGatedVtable;
  pthread_mutex_lock(&m->lock);
  uint32_t node = static_cast<uint32_t>(m->num_nodes++);
  fw_memory_node_t *n = &m->nodes[node];
  std::snprintf(n->name, sizeof(n->name), "gated%u", node);
  n->tier = FW_TIER_DEVICE;
  n->device = &gated->base;
  n->lower = FW_NODE_HOST;
  pthread_mutex_unlock(&m->lock);
  return node;
}

// Caps memory node `node` at `bytes`, as tier limits do for the tiers.
void capNode(fw_memory_t *m, uint32_t node, uint64_t bytes) {
  pthread_mutex_lock(&m->lock);
  fw_memory_node_limit(&m->nodes[node], bytes);
  pthread_mutex_unlock(&m->lock);
}

// Waits (10 s at most) for the copy threads to be done with every request they were
// given (each holds a buffer reference until then); whether they are.
bool prefetchRequestsDone(fw_memory_t *m) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (atomic_load(&m->prefetch_refs) > 0 && std::chrono::steady_clock::now() < deadline)
    sleepMs(1);
  return atomic_load(&m->prefetch_refs) == 0;
}

// A task of one access to `x` takes it on memory node `node`, sets every byte it writes
// to `fill` (-1: changes nothing), and ends: committed, or failed (`commit` false).
void runOn(fw_runtime_t *rt, fw_buffer_t *x, fw_access_t mode, uint32_t node, int fill,
           bool commit = true) {
  fw_task_t *t = nullptr;
  fw_task_access_t access = {x, mode};
  FW_ASSERT_OK(fw_task_create(rt, "t", &access, 1, &t));
  void *data = nullptr;
  uint64_t stall = 0;
  FW_ASSERT_OK(fw_memory_acquire(&rt->memory, t, node, &data, &stall, nullptr));
  if ((mode & FW_ACCESS_WRITE) && fill >= 0) std::memset(data, fill, x->byte_size);
  if (commit) fw_memory_release(&rt->memory, t, node);
  else fw_memory_release_failed(&rt->memory, t, node);
  fw_task_release(t);
}

// A prefetch does not copy a buffer that a running task writes (for a reader elsewhere:
// what it would copy is being overwritten, and a task that writes without the lock would
// leave the copy valid): the request is dropped, the write completes at once, and once it
// has, the buffer moves on request.
TEST(PrefetchTest, NoPrefetchCopiesABufferARunningTaskWrites) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_HEFT, 1, "host=512KiB", dir);
  ASSERT_NE(rt, nullptr);
  fw_memory_t *m = &rt->memory;
  GatedDevice gated;
  gated.open = true;
  uint32_t dev = addGatedNode(m, &gated);
  fw_buffer_t *x = makeU64Buffer(rt, kBig, contents(1));
  fw_buffer_t *y = makeU64Buffer(rt, kBig, contents(2));
  fw_buffer_t *z = makeU64Buffer(rt, kBig, contents(3));  // sends x to storage
  ASSERT_TRUE(x && y && z);
  ASSERT_FALSE(fw_memory_is_valid_on(x, FW_NODE_HOST));
  fw_task_t *writer = nullptr;
  fw_task_access_t access = {x, FW_ACCESS_READ_WRITE};
  FW_ASSERT_OK(fw_task_create(rt, "writer", &access, 1, &writer));
  void *data = nullptr;
  uint64_t stall = 0;
  FW_ASSERT_OK(fw_memory_acquire(m, writer, dev, &data, &stall, nullptr));
  ASSERT_TRUE(fw_memory_is_valid_on(x, dev));
  fw_buffer_release(z);  // room in host memory for the prefetch
  gated.copying = false;
  fw_memory_prefetch(m, x, FW_NODE_HOST, 0);
  // The copy thread takes the request and drops it (its reference goes back).
  EXPECT_TRUE(prefetchRequestsDone(m)) << "the request was not taken";
  EXPECT_FALSE(gated.copying) << "a copy of a buffer a running task writes";
  EXPECT_FALSE(fw_memory_is_valid_on(x, FW_NODE_HOST));
  fw_memory_release(m, writer, dev);
  EXPECT_TRUE(fw_memory_is_valid_on(x, dev));
  EXPECT_FALSE(fw_memory_is_valid_on(x, FW_NODE_STORAGE));
  // Written: now it moves.
  fw_memory_prefetch(m, x, FW_NODE_HOST, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!fw_memory_is_valid_on(x, FW_NODE_HOST) && std::chrono::steady_clock::now() < deadline)
    sleepMs(1);
  EXPECT_TRUE(gated.copying);
  EXPECT_TRUE(fw_memory_is_valid_on(x, FW_NODE_HOST));
  EXPECT_TRUE(fw_memory_is_valid_on(x, dev));
  fw_task_release(writer);
  fw_buffer_release(x);
  fw_buffer_release(y);
  fw_runtime_destroy(rt);
}

// A task that writes a buffer valid in host memory alone takes it without the lock, unless
// a copy of it is in flight (a prefetch to a device, for a task that read it and ran on
// the CPU meanwhile): it then waits for the copy to land, and its write leaves the copy
// invalid. Taking it at once, it wrote while the copy read, and the copy landed valid
// with the contents of before (or torn) for the next reader on the device.
TEST(PrefetchTest, AWriteWithoutTheLockWaitsForACopyInFlight) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));  // no tier capped: the lock-free path
  fw_memory_t *m = &rt->memory;
  GatedDevice gated;
  gated.gate_to_device = true;
  uint32_t dev = addGatedNode(m, &gated);
  fw_buffer_t *x = makeU64Buffer(rt, kBig, contents(1));
  ASSERT_NE(x, nullptr);
  fw_memory_prefetch(m, x, dev, 0);
  fwtest::waitUntil([&] { return gated.copying.load(); });
  ASSERT_TRUE(gated.copying) << "the prefetch did not start";
  fw_task_t *writer = nullptr;
  fw_task_access_t access = {x, FW_ACCESS_READ_WRITE};
  FW_ASSERT_OK(fw_task_create(rt, "writer", &access, 1, &writer));
  std::atomic<bool> acquired{false};
  void *data = nullptr;
  std::thread worker([&] {
    uint64_t stall = 0;
    FW_EXPECT_OK(fw_memory_acquire(m, writer, FW_NODE_HOST, &data, &stall, nullptr));
    acquired = true;
  });
  sleepMs(50);
  EXPECT_FALSE(acquired) << "took the buffer with a copy of it in flight";
  gated.open = true;
  worker.join();
  ASSERT_NE(data, nullptr);
  std::vector<uint64_t> written = contents(7);
  std::memcpy(data, written.data(), written.size() * sizeof(uint64_t));
  fw_memory_release(m, writer, FW_NODE_HOST);
  EXPECT_TRUE(fw_memory_is_valid_on(x, FW_NODE_HOST));
  EXPECT_FALSE(fw_memory_is_valid_on(x, dev)) << "the copy of before stayed valid";
  EXPECT_EQ(fwtest::readU64(x), written);
  fw_task_release(writer);
  fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

// A prefetch that had to make room first (an eviction, which lets the lock go while it
// copies) looks again before it copies: a task may have started to write the buffer
// meanwhile, and the copy would read it while it changes (a race ThreadSanitizer found
// between a GPU implementation and a copy thread in the random graphs beside two GPUs).
TEST(PrefetchTest, APrefetchThatMadeRoomLooksAgainForWriters) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_memory_t *m = &rt->memory;
  GatedDevice gated;  // its copies to host memory wait for the gate
  uint32_t dev = addGatedNode(m, &gated);
  capNode(m, dev, kBig * sizeof(uint64_t));  // 1 buffer
  fw_buffer_t *b = makeU64Buffer(rt, kBig, contents(1));
  fw_buffer_t *c = makeU64Buffer(rt, kBig, contents(2));
  ASSERT_TRUE(b && c);
  runOn(rt, c, FW_ACCESS_READ_WRITE, dev, -1);  // c's only copy fills the device
  fw_memory_prefetch(m, b, dev, 0);  // evicts c first: held in its copy to host memory
  fwtest::waitUntil([&] { return gated.copying.load(); });
  ASSERT_TRUE(gated.copying) << "the prefetch did not evict";
  fw_task_t *writer = nullptr;
  fw_task_access_t access = {b, FW_ACCESS_READ_WRITE};
  FW_ASSERT_OK(fw_task_create(rt, "writer", &access, 1, &writer));
  void *data = nullptr;
  uint64_t stall = 0;
  FW_ASSERT_OK(fw_memory_acquire(m, writer, FW_NODE_HOST, &data, &stall, nullptr));
  gated.open = true;
  EXPECT_TRUE(prefetchRequestsDone(m)) << "the request did not end";
  EXPECT_TRUE(fw_memory_is_valid_on(c, FW_NODE_HOST)) << "c was not evicted";
  EXPECT_FALSE(fw_memory_is_valid_on(b, dev)) << "copied while a task wrote it";
  std::vector<uint64_t> written = contents(7);
  std::memcpy(data, written.data(), written.size() * sizeof(uint64_t));
  fw_memory_release(m, writer, FW_NODE_HOST);
  EXPECT_EQ(fwtest::readU64(b), written);
  EXPECT_EQ(fwtest::readU64(c), contents(2));
  fw_task_release(writer);
  fw_buffer_release(b);
  fw_buffer_release(c);
  fw_runtime_destroy(rt);
}

// A prefetch request that comes while the caller holds a view of the buffer
// (fw_buffer_data; a request queued for a task that ran before the view) copies nothing:
// the caller may write through the view, and a copy made before would stay valid with the
// contents it replaced. Once the view ends, the buffer moves on request.
TEST(PrefetchTest, NothingIsCopiedWhileTheCallerHoldsAView) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_memory_t *m = &rt->memory;
  GatedDevice gated;
  gated.open = true;
  uint32_t dev = addGatedNode(m, &gated);
  fw_buffer_t *b = makeU64Buffer(rt, kBig, contents(1));
  ASSERT_NE(b, nullptr);
  auto prefetched = [&] {
    fw_memory_prefetch(m, b, dev, 0);
    EXPECT_TRUE(prefetchRequestsDone(m)) << "the request did not end";
    return fw_memory_is_valid_on(b, dev);
  };
  auto *view = static_cast<uint64_t *>(fw_buffer_data(b));
  ASSERT_NE(view, nullptr);
  EXPECT_FALSE(prefetched()) << "copied while the caller holds a view";
  view[0] = 42;  // what a copy made above would have missed
  fw_buffer_unmap(b);
  EXPECT_TRUE(prefetched());
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// A task that reads and writes a buffer and fails on a device (a kernel that faults
// midway) may have changed that copy in place: where another copy is valid, the failed
// one is dropped, so that the rerun reads the contents of before.
TEST(MemoryTest, AFailedUpdateInPlaceLeavesTheOtherCopy) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_memory_t *m = &rt->memory;
  GatedDevice a, b;
  a.open = b.open = true;
  uint32_t na = addGatedNode(m, &a), nb = addGatedNode(m, &b);
  fw_buffer_t *x = makeU64Buffer(rt, kBig, contents(1));
  ASSERT_NE(x, nullptr);
  runOn(rt, x, FW_ACCESS_WRITE, na, 5);  // valid on a alone
  runOn(rt, x, FW_ACCESS_READ, nb, 0);   // and on b
  ASSERT_TRUE(fw_memory_is_valid_on(x, na));
  ASSERT_TRUE(fw_memory_is_valid_on(x, nb));
  ASSERT_FALSE(fw_memory_is_valid_on(x, FW_NODE_HOST));
  runOn(rt, x, FW_ACCESS_READ_WRITE, na, 9, false);  // fails on a, half updated
  EXPECT_FALSE(fw_memory_is_valid_on(x, na));
  EXPECT_TRUE(fw_memory_is_valid_on(x, nb));
  EXPECT_EQ(fwtest::readU64(x), std::vector<uint64_t>(kBig, 0x0505050505050505ull));
  // The only copy stays: there is nothing better.
  runOn(rt, x, FW_ACCESS_WRITE, na, 6);
  runOn(rt, x, FW_ACCESS_READ_WRITE, na, 9, false);
  EXPECT_TRUE(fw_memory_is_valid_on(x, na));
  fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

// A device full of a copy that is the only one, over a host tier full of copies that are
// the only ones: a task that needs room on the device makes it in turn down the tiers (a
// host copy to storage, then the device's copy to host memory) rather than fail with
// nothing to evict, and every buffer comes back as it was.
TEST(TierRoomTest, AFullTierBelowMakesRoomInTurn) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = tieredRuntime(FW_SCHEDULER_EAGER, 1, "host=512KiB", dir);  // 2 buffers
  ASSERT_NE(rt, nullptr);
  fw_memory_t *m = &rt->memory;
  GatedDevice gated;
  gated.open = true;
  uint32_t dev = addGatedNode(m, &gated);
  capNode(m, dev, kBig * sizeof(uint64_t));  // 1 buffer
  fw_buffer_t *a = makeU64Buffer(rt, kBig, contents(1));
  ASSERT_NE(a, nullptr);
  runOn(rt, a, FW_ACCESS_READ_WRITE, dev, 7);  // the only valid copy is on the device
  fw_buffer_t *h1 = makeU64Buffer(rt, kBig, contents(2));
  fw_buffer_t *h2 = makeU64Buffer(rt, kBig, contents(3));  // host memory: h1 and h2 alone
  ASSERT_TRUE(h1 && h2);
  ASSERT_TRUE(fw_memory_is_valid_on(a, dev));
  ASSERT_FALSE(fw_memory_is_valid_on(a, FW_NODE_HOST));
  ASSERT_TRUE(fw_memory_is_valid_on(h1, FW_NODE_HOST));
  ASSERT_TRUE(fw_memory_is_valid_on(h2, FW_NODE_HOST));
  fw_buffer_t *fresh = makeU64Buffer(rt, kBig);
  ASSERT_NE(fresh, nullptr);
  runOn(rt, fresh, FW_ACCESS_WRITE, dev, 7);
  EXPECT_TRUE(fw_memory_is_valid_on(fresh, dev));
  EXPECT_TRUE(fw_memory_is_valid_on(a, FW_NODE_HOST)) << "the device's copy did not move down";
  EXPECT_TRUE(fw_memory_is_valid_on(h1, FW_NODE_STORAGE)) << "the least recent went to storage";
  const std::vector<uint64_t> sevens(kBig, 0x0707070707070707ull);
  EXPECT_EQ(fwtest::readU64(a), sevens);
  fw_buffer_unmap(a);
  EXPECT_EQ(fwtest::readU64(h1), contents(2));
  fw_buffer_unmap(h1);
  EXPECT_EQ(fwtest::readU64(h2), contents(3));
  fw_buffer_unmap(h2);
  EXPECT_EQ(fwtest::readU64(fresh), sevens);
  for (fw_buffer_t *x : {a, h1, h2, fresh}) fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

// The copy threads take the request needed first (the earliest planned start), equal
// needs in the order asked for; asked for again, a request moves up to the sooner need and
// never down.
TEST(PrefetchTest, TheQueueServesTheMostNeededFirst) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  const double needs[] = {5, 1, 3, 1, 4, 2};
  std::vector<fw_buffer_t *> b;
  fw_prefetch_queue_t q;
  std::memset(&q, 0, sizeof(q));
  for (double need : needs) {
    b.push_back(makeU64Buffer(rt, 8));
    EXPECT_EQ(fw_prefetch_queue_push(&q, b.back(), FW_NODE_HOST, INT64_MAX, need), 1);
  }
  EXPECT_EQ(fw_prefetch_queue_push(&q, b[0], FW_NODE_HOST, INT64_MAX, 0.5), 0);
  EXPECT_EQ(fw_prefetch_queue_push(&q, b[2], FW_NODE_HOST, INT64_MAX, 9), 0);
  EXPECT_EQ(q.size, 6u);
  std::vector<fw_buffer_t *> order;
  fw_prefetch_request_t r;
  while (fw_prefetch_queue_pop(&q, &r)) {
    EXPECT_EQ(r.buffer->mem.prefetch_slot, 0u);
    order.push_back(r.buffer);
  }
  EXPECT_EQ(order, (std::vector<fw_buffer_t *>{b[0], b[1], b[3], b[5], b[2], b[4]}));
  fw_prefetch_queue_fini(&q);
  for (fw_buffer_t *x : b) fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

TEST(PrefetchTest, OnAndOffGiveTheSameResults) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  PrefetchRun on = runChain(0, 12, 24);
  PrefetchRun off = runChain(FW_RUNTIME_NO_PREFETCH, 12, 24);
  EXPECT_GT(on.stats.prefetch_requests, 0u);
  EXPECT_EQ(off.stats.prefetch_requests, 0u);
  EXPECT_EQ(off.stats.prefetch_hits, 0u);
  EXPECT_GT(off.stats.demand_fetches, 0u);
  EXPECT_GT(on.stats.evictions, 0u);
  EXPECT_GT(off.stats.evictions, 0u);
  EXPECT_EQ(on.stats.tasks_executed, 24u);
  EXPECT_EQ(off.stats.tasks_executed, 24u);
  ASSERT_EQ(on.acc.size(), kSmall);
  EXPECT_EQ(on.acc, off.acc);
  EXPECT_EQ(on.acc, expectedAccumulation(12, 24));
  uint64_t read_on = on.stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  uint64_t read_off = off.stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  EXPECT_GT(read_off, 0u);
  EXPECT_LE(read_on, read_off * 3 / 2) << "prefetches evicted data the next tasks needed";
}

// Each input read once: the prefetcher runs ahead of the tasks and what it brings in is
// used, not evicted again before its task runs.
TEST(PrefetchTest, StreamingInputsArePrefetchedOnce) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  PrefetchRun on = runChain(0, 24, 24);
  PrefetchRun off = runChain(FW_RUNTIME_NO_PREFETCH, 24, 24);
  EXPECT_EQ(on.acc, expectedAccumulation(24, 24));
  EXPECT_EQ(off.acc, on.acc);
  EXPECT_GT(on.stats.prefetch_hits, 0u);
  EXPECT_LE(on.stats.prefetch_requests, 24u + 8u);
  uint64_t read_on = on.stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  uint64_t read_off = off.stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  EXPECT_LE(read_on, read_off * 3 / 2);
}

// Several copy threads share the requests and the lookahead: the same answers, and what
// they bring in is used.
TEST(PrefetchTest, SeveralCopyThreads) {
  if (prefetchDisabledByEnvironment()) GTEST_SKIP() << "FW_PREFETCH turns prefetch off";
  PrefetchRun on;
  {
    fwtest::ScopedEnv threads("FW_PREFETCH_THREADS", "3");
    on = runChain(0, 24, 48);
  }
  EXPECT_EQ(on.acc, expectedAccumulation(24, 48));
  EXPECT_EQ(on.stats.tasks_executed, 48u);
  EXPECT_GT(on.stats.prefetch_hits, 0u);
}

// By default a worker gets a copy thread of its own, up to eight: one copy thread reads
// about one buffer in the time a task computes when the two take alike.
TEST(PrefetchTest, OneCopyThreadPerWorkerUpToEight) {
  fwtest::ScopedEnv threads("FW_PREFETCH_THREADS", nullptr);
  for (uint32_t workers : {1u, 2u, 3u, 8u, 12u}) {
    fw_runtime_options_t o = {};
    o.num_workers = workers;
    o.devices = "cpu";
    fw_runtime_t *rt = nullptr;
    ASSERT_EQ(fw_runtime_create(&o, &rt), FW_OK);
    EXPECT_EQ(rt->prefetch_threads, workers < 8 ? workers : 8u) << workers << " workers";
    fw_runtime_destroy(rt);
  }
}

TEST(PrefetchTest, BadThreadCountIsAnError) {
  fw_runtime_t *rt = nullptr;
  fw_status_t s;
  {
    fwtest::ScopedEnv threads("FW_PREFETCH_THREADS", "99");
    s = fw_runtime_create(nullptr, &rt);
  }
  FW_EXPECT_ERROR(s, "FW_PREFETCH_THREADS='99': expected a number from 1 to 8");
  EXPECT_EQ(rt, nullptr);
}

// fw_buffer_data pins a buffer in host memory; fw_buffer_unmap lets it move again.
TEST(StorageTest, UnmapLetsMappedBuffersMove) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.tier_limits = "host=512KiB";
  o.storage_dir = dir.path().c_str();
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_buffer_t *a = makeU64Buffer(rt, kBig, contents(1));
  fw_buffer_t *b = makeU64Buffer(rt, kBig, contents(2));
  ASSERT_NE(fw_buffer_data(a), nullptr);
  ASSERT_NE(fw_buffer_data(b), nullptr);
  const int64_t dims[1] = {int64_t(kBig)};
  fw_buffer_t *c = nullptr;
  FW_EXPECT_ERROR(fw_buffer_create(rt, FW_ELEMENT_TYPE_I64, 1, dims, contents(3).data(),
                                   kBig * sizeof(uint64_t), &c),
                  "nothing left in it can be evicted");
  fw_buffer_unmap(a);
  fw_buffer_unmap(a);  // twice: nothing more
  fw_buffer_unmap(nullptr);
  c = makeU64Buffer(rt, kBig, contents(3));  // a moves to storage
  ASSERT_NE(c, nullptr);
  fw_buffer_unmap(b);
  EXPECT_EQ(fwtest::readU64(a), contents(1));  // back, bit-identical
  fw_buffer_release(a);
  fw_buffer_release(b);
  fw_buffer_release(c);
  fw_runtime_destroy(rt);
}

// With the storage tier full, a host copy that cannot move down is passed over for one
// that can simply be dropped (it is valid on storage too).
TEST(StorageTest, FullStorageEvictsWhatCanBeDropped) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.tier_limits = "host=512KiB,storage=256KiB";
  o.storage_dir = dir.path().c_str();
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_buffer_t *a = makeU64Buffer(rt, kBig, contents(1));
  fw_buffer_t *b = makeU64Buffer(rt, kBig, contents(2));
  fw_buffer_t *c = makeU64Buffer(rt, kBig, contents(3));  // a goes to storage (now full)
  fw_buffer_release(c);
  int ran = 0;
  // Reading a brings it back: valid on host and on storage; b (host only) is now the
  // least recently used, and storage has no room for it.
  FW_ASSERT_OK(submit(rt, "read_a", markTask, &ran, {{a, FW_ACCESS_READ}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_buffer_t *d = makeU64Buffer(rt, kBig, contents(4));  // drops a's host copy
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(fwtest::readU64(b), contents(2));
  fw_buffer_release(b);  // room for a to come back
  EXPECT_EQ(fwtest::readU64(a), contents(1));
  EXPECT_EQ(fwtest::readU64(d), contents(4));
  EXPECT_EQ(ran, 1);
  fw_buffer_release(a);
  fw_buffer_release(d);
  fw_runtime_destroy(rt);
}

// Host tier 1 MiB over a 768 KiB storage tier (one eager worker, no prefetch): buffers of
// `kibs` KiB made in turn (the first ones go down as the later ones come), then a task
// reading the first buffer and one reading the first two; both must run, and every
// buffer comes back bit-identical.
void readTwoOverFullStorage(const std::vector<size_t> &kibs) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.tier_limits = "host=1MiB,storage=768KiB";
  o.storage_dir = dir.path().c_str();
  o.flags = FW_RUNTIME_NO_PREFETCH;
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  std::vector<fw_buffer_t *> bufs;
  for (size_t i = 0; i < kibs.size(); ++i) {
    bufs.push_back(makeU64Buffer(rt, kibs[i] * kKiB / 8, contents(i + 1, kibs[i] * kKiB / 8)));
    ASSERT_NE(bufs.back(), nullptr);
  }
  int first = 0, second = 0;
  FW_ASSERT_OK(submit(rt, "read_a", markTask, &first, {{bufs[0], FW_ACCESS_READ}}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt));
  FW_ASSERT_OK(submit(rt, "read_a_b", markTask, &second,
                      {{bufs[0], FW_ACCESS_READ}, {bufs[1], FW_ACCESS_READ}}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  EXPECT_LE(stats.peak_bytes[FW_TIER_STORAGE], 768 * kKiB);
  for (size_t i = 0; i < kibs.size(); ++i) {  // each read makes room for itself
    EXPECT_EQ(fwtest::readU64(bufs[i]), contents(i + 1, kibs[i] * kKiB / 8)) << i;
    fw_buffer_unmap(bufs[i]);
  }
  for (fw_buffer_t *b : bufs) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// A full host tier over a full storage tier: the storage tier holds a copy of what came
// back from it, and dropping that copy makes the room the host tier needs below. Host
// holds four buffers, storage three: A and B go to storage as C..F are made; reading A
// sends C down (storage full) and brings A back (its storage copy stays). A task reading
// A and B then needs room for B: D, E and F have no other copy and storage is full, and A
// is the task's own. The storage copy of A goes, D goes down, B comes up (this was
// "nothing left in it can be evicted").
TEST(StorageTest, FullStorageDropsCopiesOfWhatCameBack) {
  readTwoOverFullStorage({256, 256, 256, 256, 256, 256});
}

// Room below is made only for a victim it can be made for: with A, X1 (256 KiB), D
// (512 KiB), Y2 and Y3 (256 KiB), a victim of 512 KiB that the storage tier's duplicates
// cannot make room for is passed over for one of 256 KiB they can (the larger one had
// every duplicate dropped for nothing, and the task failed with "nothing left in it can
// be evicted").
TEST(StorageTest, RoomBelowGoesToAVictimItFits) {
  readTwoOverFullStorage({256, 256, 512, 256, 256});
}

// Buffers of 1 MiB and more go to storage and back with direct I/O where the file system
// takes it (a partial last block included), through the page cache when asked to; the
// data is the same either way.
class DirectStorageTest : public ::testing::TestWithParam<bool> {};

struct AddIndex {
  size_t count;
  uint64_t add;
};

void addIndexTask(void *user, void *const *data, size_t) {
  auto *a = static_cast<const AddIndex *>(user);
  auto *p = static_cast<uint64_t *>(data[0]);
  for (size_t j = 0; j < a->count; ++j) p[j] += a->add + j;
}

TEST_P(DirectStorageTest, LargeBuffersComeBackBitIdentical) {
  bool buffered = GetParam();
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const char *io = std::getenv("FW_STORAGE_IO");
  bool direct = !buffered && fwtest::directIoWorks(dir.path()) &&
                !(io && !std::strcmp(io, "buffered"));
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 2);
  o.tier_limits = "host=4MiB";
  o.storage_dir = dir.path().c_str();
  if (buffered) o.flags |= FW_RUNTIME_BUFFERED_STORAGE;
  o.flags |= FW_RUNTIME_TRACE;
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  constexpr size_t kCount = (size_t(1) << 20) / sizeof(uint64_t) + 5;  // 1 MiB + 40 bytes
  constexpr size_t kBuffers = 8;
  std::vector<std::vector<uint64_t>> expected(kBuffers);
  std::vector<fw_buffer_t *> bufs(kBuffers);
  for (size_t b = 0; b < kBuffers; ++b) {
    expected[b] = contents(b + 100, kCount);
    bufs[b] = makeU64Buffer(rt, kCount, expected[b]);
    ASSERT_NE(bufs[b], nullptr);
  }
  std::vector<AddIndex> params(2 * kBuffers);
  for (size_t round = 0; round < 2; ++round)
    for (size_t b = 0; b < kBuffers; ++b) {
      AddIndex &a = params[round * kBuffers + b];
      a = {kCount, 7 * round + b};
      FW_ASSERT_OK(submit(rt, "add_index", addIndexTask, &a, {{bufs[b], FW_ACCESS_READ_WRITE}}));
      for (size_t j = 0; j < kCount; ++j) expected[b][j] += a.add + j;
    }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  for (size_t b = 0; b < kBuffers; ++b) {
    EXPECT_EQ(fwtest::readU64(bufs[b]), expected[b]) << "buffer " << b;
    fw_buffer_unmap(bufs[b]);
  }
  fw_runtime_stats_t stats;
  FW_ASSERT_OK(fw_runtime_get_stats(rt, &stats));
  uint64_t moved = stats.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE] +
                   stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  EXPECT_GT(stats.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST], 0u);
  // Every buffer is large and its memory the runtime's own (page-aligned).
  EXPECT_EQ(stats.storage_direct_bytes, direct ? moved : 0u);
  // The trace names the kind of I/O of every copy to or from storage.
  std::string trace_path = dir.file("trace.json");
  FW_ASSERT_OK(fw_runtime_write_trace(rt, trace_path.c_str()));
  std::vector<uint8_t> bytes = fwtest::readFile(trace_path);
  std::string trace(bytes.begin(), bytes.end());
  std::remove(trace_path.c_str());
  const char *used = direct ? "\"copy (direct I/O)\"" : "\"copy (page cache)\"";
  const char *unused = direct ? "\"copy (page cache)\"" : "\"copy (direct I/O)\"";
  EXPECT_NE(trace.find(used), std::string::npos);
  EXPECT_EQ(trace.find(unused), std::string::npos);
  for (fw_buffer_t *b : bufs) fw_buffer_release(b);
  fw_runtime_destroy(rt);
  EXPECT_TRUE(isEmpty(dir)) << joined(dir.entries());
}

// FW_STORAGE_IO is checked even when the flag already asks for the page cache.
TEST(StorageTest, BadStorageIoIsAnErrorWithTheFlagToo) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 1);
  o.flags |= FW_RUNTIME_BUFFERED_STORAGE;
  fw_runtime_t *rt = nullptr;
  fw_status_t s;
  {
    fwtest::ScopedEnv io("FW_STORAGE_IO", "mmap");
    s = fw_runtime_create(&o, &rt);
  }
  EXPECT_EQ(rt, nullptr);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(fw_status_message(s)).find("FW_STORAGE_IO='mmap': expected direct or buffered"),
            std::string::npos)
      << fw_status_message(s);
  fw_status_free(s);
  fw_runtime_destroy(rt);
}

INSTANTIATE_TEST_SUITE_P(Io, DirectStorageTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return std::string(info.param ? "buffered" : "direct");
                         });

// Without a storage_dir the runtime makes its own directory under $TMPDIR on the first
// eviction and removes it at the end.
TEST(StorageTest, DefaultDirectoryIsMadeAndRemoved) {
  const char *storage_env = std::getenv("FW_STORAGE_DIR");
  if (storage_env && *storage_env) GTEST_SKIP() << "FW_STORAGE_DIR is set";
  fwtest::TempDir parent;
  ASSERT_TRUE(parent.ok());
  fwtest::ScopedEnv tmpdir("TMPDIR", parent.path().c_str());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  o.tier_limits = "host=1MiB";
  fw_runtime_t *rt = nullptr;
  fw_status_t s = fw_runtime_create(&o, &rt);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  if (rt) {
    EXPECT_TRUE(parent.entries().empty());  // nothing spilled yet
    std::vector<fw_buffer_t *> bufs;
    for (int i = 0; i < 6; ++i) bufs.push_back(makeU64Buffer(rt, kBig, contents(i)));
    std::vector<std::string> made = parent.entries();
    EXPECT_EQ(made.size(), 1u) << joined(made);
    if (!made.empty()) EXPECT_EQ(made[0].rfind("fw-storage-", 0), 0u) << made[0];
    for (int i = 0; i < 6; ++i) {
      const auto *p = static_cast<const uint64_t *>(fw_buffer_data(bufs[i]));
      EXPECT_NE(p, nullptr);
      if (p) EXPECT_EQ(std::memcmp(p, contents(i).data(), kBig * 8), 0);
      fw_buffer_release(bufs[i]);
    }
    fw_runtime_destroy(rt);
    EXPECT_TRUE(isEmpty(parent)) << joined(parent.entries());
  }
}

}  // namespace
