// The host tier sized to the machine's memory beside a stand-in GPU: a CPU task that took
// its buffer without the lock (the tier not yet full) keeps it while the GPU's memory
// makes room below it, and a GPU task waiting for room is woken when that CPU task ends.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::ScopedEnv;

constexpr size_t kElements = 32768;  // 256 KiB

std::vector<uint64_t> contents(uint64_t seed) {
  std::vector<uint64_t> v(kElements);
  for (size_t j = 0; j < kElements; ++j) v[j] = fwtest::mix(seed * 0x100000001ull + j);
  return v;
}

// A CPU task that reads its buffer once a gate opens, counting the values that differ
// from `expected`.
struct Reader {
  std::atomic<bool> started{false}, open{false};
  const void *ptr = nullptr;
  std::vector<uint64_t> expected;
  std::atomic<int> wrong{-1};
};

void gatedRead(void *user, void *const *data, size_t) {
  auto *r = static_cast<Reader *>(user);
  r->ptr = data[0];
  r->started = true;
  while (!r->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (r->expected.empty()) return;
  const auto *p = static_cast<const uint64_t *>(data[0]);
  int wrong = 0;
  for (size_t j = 0; j < kElements; ++j) wrong += p[j] != r->expected[j];
  r->wrong = wrong;
}

fw_status_t gpuNothing(void *, void *const *, size_t, void *) { return FW_OK; }

// A task with a CUDA implementation only.
fw_status_t gpuSubmit(fw_runtime_t *rt, std::vector<fw_task_access_t> accesses,
                      fw_task_t **out) {
  fw_task_desc_t d = fwtest::describeTask("gpu", nullptr, nullptr, accesses);
  d.cuda_fn = gpuNothing;
  d.flops = 1e6;
  return fw_task_submit(rt, &d, out);
}

fw_status_t gpuRun(fw_runtime_t *rt, std::vector<fw_task_access_t> accesses) {
  fw_task_t *t = nullptr;
  fw_status_t s = gpuSubmit(rt, std::move(accesses), &t);
  if (s != FW_OK) return s;
  s = fw_task_wait(t);
  fw_task_release(t);
  return s;
}

// One stand-in GPU, the host tier sized `host_memory` (no cap), `limits` for the device.
fw_runtime_t *gpuRuntime(const char *host_memory, const char *limits,
                         const fwtest::TempDir &dir) {
  ScopedEnv gpus("FW_FAKE_CUDA_DEVICES", "1");
  ScopedEnv sized("FW_HOST_MEMORY", host_memory);
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  o.devices = "cuda";
  o.tier_limits = limits;
  o.storage_dir = dir.path().c_str();
  o.flags |= FW_RUNTIME_NO_PREFETCH;
  fw_runtime_t *rt = fwtest::createRuntime(o);
  EXPECT_TRUE(!rt || rt->memory.num_nodes == 3) << "no stand-in GPU";
  return rt;
}

int fastUsers(fw_runtime_t *rt) {
  int users = 0;
  for (const fw_fast_stripe_t &s : rt->memory.nodes[FW_NODE_HOST].fast_users)
    users += atomic_load(&s.count);
  return users;
}

// The GPU's memory, full, makes room by dropping host copies that the device also holds:
// not the one a running CPU task took without the lock (it would read freed memory).
TEST(GpuHostTierTest, TheDeviceDropsNoHostCopyACpuTaskTookWithoutTheLock) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = gpuRuntime("768KiB", "device=768KiB", dir);  // three buffers each
  ASSERT_NE(rt, nullptr);
  Reader reader;
  reader.expected = contents(1);
  fw_buffer_t *b = makeU64Buffer(rt, kElements, reader.expected);
  fw_buffer_t *h1 = makeU64Buffer(rt, kElements, contents(2));
  fw_buffer_t *h2 = makeU64Buffer(rt, kElements, contents(3));
  ASSERT_TRUE(b && h1 && h2);
  FW_ASSERT_OK(fwtest::submit(rt, "read", gatedRead, &reader, {{b, FW_ACCESS_READ}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return reader.started.load(); }));
  ASSERT_EQ(fastUsers(rt), 1) << "the reader did not take its buffer without the lock";
  FW_EXPECT_OK(gpuRun(rt, {{b, FW_ACCESS_READ}}));  // b on the device too
  fw_buffer_t *d1 = makeU64Buffer(rt, kElements), *d2 = makeU64Buffer(rt, kElements);
  FW_EXPECT_OK(gpuRun(rt, {{d1, FW_ACCESS_WRITE}}));
  FW_EXPECT_OK(gpuRun(rt, {{d2, FW_ACCESS_WRITE}}));  // the device full
  // Needs room on the device, whose copies need room in the (full) host tier below.
  fw_buffer_t *y = makeU64Buffer(rt, kElements);
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(gpuSubmit(rt, {{b, FW_ACCESS_READ}, {y, FW_ACCESS_WRITE}}, &t));
  fwtest::sleepMs(100);
  EXPECT_TRUE(fw_memory_is_valid_on(b, FW_NODE_HOST)) << "dropped under a running reader";
  EXPECT_EQ(b->mem.replicas[FW_NODE_HOST].ptr, reader.ptr) << "moved under a running reader";
  reader.open = true;
  FW_EXPECT_OK(fw_task_wait(t));
  fw_task_release(t);
  FW_EXPECT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(reader.wrong.load(), 0);
  for (fw_buffer_t *x : {b, h1, h2, d1, d2, y}) fw_buffer_release(x);
  fw_runtime_destroy(rt);
}

// A GPU task waiting for room in a minimal device tier ("device=min", which grows only
// when nothing can free room) while a CPU task holds a buffer taken without the lock: it
// runs once that task ends, rather than waiting for a wake-up that never comes.
TEST(GpuHostTierTest, AGpuTaskWaitingForRoomIsWokenWhenACpuTaskEnds) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_t *rt = gpuRuntime("64MiB", "device=min", dir);
  ASSERT_NE(rt, nullptr);
  Reader reader;
  fw_buffer_t *b = makeU64Buffer(rt, kElements, contents(1));
  fw_buffer_t *c = makeU64Buffer(rt, kElements, contents(2));
  ASSERT_TRUE(b && c);
  FW_ASSERT_OK(fwtest::submit(rt, "read", gatedRead, &reader, {{b, FW_ACCESS_READ}}));
  ASSERT_TRUE(fwtest::waitUntil([&] { return reader.started.load(); }));
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(gpuSubmit(rt, {{c, FW_ACCESS_READ}}, &t));
  fwtest::sleepMs(100);
  reader.open = true;
  if (!fwtest::waitUntil([&] { return fw_task_is_done(t) != 0; })) {
    ADD_FAILURE() << "the GPU task still waits for room after the CPU task ended";
    std::fflush(nullptr);
    std::_Exit(1);  // (destroying the runtime would wait for it too)
  }
  FW_EXPECT_OK(fw_task_wait(t));
  fw_task_release(t);
  fw_buffer_release(b);
  fw_buffer_release(c);
  fw_runtime_destroy(rt);
}

}  // namespace
