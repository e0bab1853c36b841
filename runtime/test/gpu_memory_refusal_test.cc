// A GPU whose driver gives less memory than the device's size promises (another process,
// the driver's own needs): a refused allocation lowers the device tier's capacity to what
// could have fitted, the memory manager makes room below it by moving copies to host
// memory, and the task runs there after all. Running out of memory is not a fault of the
// device: it stays in service however often it happens. Through the stand-in driver of
// fake_cuda.c, whose FW_FAKE_CUDA_HELD bytes another process holds.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fw/runtime.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::ScopedEnv;

constexpr size_t kMiB = 1024 * 1024;
// A 1 MiB device (the runtime counts 90% of it) of which another process holds 600 KiB.
constexpr const char *kDeviceBytes = "1048576";
constexpr const char *kHeldBytes = "614400";
constexpr uint64_t kCounted = kMiB / 10 * 9;

struct Runs {
  std::atomic<int> cpu{0}, gpu{0};
};

void bump(void *const *data, size_t bytes) {
  auto *v = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < bytes / sizeof(uint64_t); ++i) v[i] += i + 1;
}

struct Task {
  Runs *runs;
  size_t bytes;
};

void onCpu(void *user, void *const *data, size_t) {
  auto *t = static_cast<Task *>(user);
  bump(data, t->bytes);
  t->runs->cpu.fetch_add(1);
}

// The stand-in's device memory is host memory: the implementation writes it directly.
fw_status_t onGpu(void *user, void *const *data, size_t, void *) {
  auto *t = static_cast<Task *>(user);
  bump(data, t->bytes);
  t->runs->gpu.fetch_add(1);
  return FW_OK;
}

fw_status_t submitBump(fw_runtime_t *rt, fw_buffer_t *b, Task *task, bool cpu,
                       fw_task_t **out = nullptr, bool hip = false) {
  fw_task_access_t access = {b, FW_ACCESS_READ_WRITE};
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "bump";
  d.fn = cpu ? onCpu : nullptr;
  (hip ? d.hip_fn : d.cuda_fn) = onGpu;
  d.user_data = task;
  d.accesses = &access;
  d.num_accesses = 1;
  d.flops = 1e9;  // the GPU is the faster device
  return fw_task_submit(rt, &d, out);
}

std::vector<uint64_t> start(size_t elements, uint64_t seed) {
  std::vector<uint64_t> v(elements);
  for (size_t i = 0; i < elements; ++i) v[i] = fwtest::mix(seed * 1000003 + i);
  return v;
}

void expectBumped(fw_buffer_t *b, const std::vector<uint64_t> &initial, uint64_t times) {
  std::vector<uint64_t> got = fwtest::readU64(b);
  ASSERT_EQ(got.size(), initial.size());
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != initial[i] + times * (i + 1);
  EXPECT_EQ(wrong, 0u);
}

// The sum of two buffers into the first.
struct Adds {
  std::atomic<int> gpu{0};
};

fw_status_t addOnGpu(void *user, void *const *data, size_t num, void *) {
  auto *dst = static_cast<uint64_t *>(data[0]);
  for (size_t k = 1; k < num; ++k) {
    const auto *src = static_cast<const uint64_t *>(data[k]);
    for (size_t i = 0; i < 16384; ++i) dst[i] += src[i];
  }
  static_cast<Adds *>(user)->gpu.fetch_add(1);
  return FW_OK;
}

fw_status_t submitAdd(fw_runtime_t *rt, Adds *adds, std::vector<fw_buffer_t *> buffers) {
  std::vector<fw_task_access_t> accesses;
  for (size_t k = 0; k < buffers.size(); ++k)
    accesses.push_back({buffers[k], k ? FW_ACCESS_READ : FW_ACCESS_READ_WRITE});
  fw_task_desc_t d = fwtest::describeTask("add", nullptr, adds, accesses);
  d.cuda_fn = addOnGpu;
  d.flops = 1e9;
  return fw_task_submit(rt, &d, nullptr);
}

// Four 128 KiB buffers added pairwise on the GPU only (one kernel at a time, no prefetch:
// each task takes its buffers itself): 512 KiB of them, within the 921 KiB the runtime
// counts but not the 424 KiB the driver gives. The second task's second buffer is refused
// (its first one taken): the capacity falls to what the device has, a buffer moves to
// host memory to make room, and the task runs on the GPU, as every one does, none rerun.
// Then the other process lets its memory go: a task that needs all four buffers at once,
// too large for the lowered capacity, finds it risen again and runs there too.
TEST(GpuMemoryRefusal, TheDeviceTierShrinksToWhatTheDriverGivesAndGrowsBack) {
  ScopedEnv memory("FW_FAKE_CUDA_MEMORY", kDeviceBytes);
  ScopedEnv pipeline("FW_GPU_PIPELINE", "1");
  constexpr size_t kElements = 16384;  // 128 KiB
  for (fw_scheduler_kind_t policy : {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    ScopedEnv held("FW_FAKE_CUDA_HELD", kHeldBytes);
    fw_runtime_options_t o = fwtest::taskOptions(policy, 2);
    o.devices = "cuda";
    o.flags |= FW_RUNTIME_NO_PREFETCH;
    fw_runtime_t *rt = fwtest::createRuntime(o);
    ASSERT_NE(rt, nullptr);
    Adds adds;
    std::vector<std::vector<uint64_t>> expected;
    std::vector<fw_buffer_t *> b;
    for (uint64_t i = 0; i < 4; ++i) {
      expected.push_back(start(kElements, i));
      b.push_back(fwtest::makeU64Buffer(rt, kElements, expected.back()));
      ASSERT_NE(b.back(), nullptr);
    }
    auto add = [&](std::vector<size_t> which) {
      std::vector<fw_buffer_t *> buffers;
      for (size_t k : which) buffers.push_back(b[k]);
      FW_ASSERT_OK(submitAdd(rt, &adds, buffers));
      for (size_t k = 1; k < which.size(); ++k)
        for (size_t i = 0; i < kElements; ++i) expected[which[0]][i] += expected[which[k]][i];
    };
    for (int round = 0; round < 2; ++round) {
      add({0, 1});
      add({2, 3});
      add({0, 2});
      add({1, 3});
    }
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(adds.gpu.load(), 8);
    fw_runtime_stats_t st = fwtest::statsOf(rt);
    EXPECT_EQ(st.tasks_rerun, 0u);
    EXPECT_EQ(st.devices_lost, 0u);
    EXPECT_GE(st.evictions, 1u);
    EXPECT_EQ(st.limit_bytes[FW_TIER_DEVICE], 434176u) << "what the driver gives";

    ScopedEnv freed("FW_FAKE_CUDA_HELD", "0");
    add({0, 1, 2, 3});
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(adds.gpu.load(), 9);
    st = fwtest::statsOf(rt);
    EXPECT_EQ(st.limit_bytes[FW_TIER_DEVICE], kCounted) << "risen to what the runtime counts";
    EXPECT_EQ(st.tasks_rerun, 0u);
    for (size_t i = 0; i < b.size(); ++i) {
      EXPECT_EQ(fwtest::readU64(b[i]), expected[i]) << "buffer " << i;
      fw_buffer_release(b[i]);
    }
    fw_runtime_destroy(rt);
  }
}

// A 512 KiB buffer the driver cannot give at all (424 KiB free): the first task's try
// lowers the capacity below it and the task runs on the CPU instead; the tasks after it
// are placed on the CPU at once (the device tier cannot hold them), and the GPU, having
// only run out of memory, stays in service: a small task runs there after. A task only the
// GPU could run fails, saying where its capacity came from.
TEST(GpuMemoryRefusal, ABufferTheDriverCannotGiveRunsOnTheCpuAndTheGpuStaysInService) {
  ScopedEnv memory("FW_FAKE_CUDA_MEMORY", kDeviceBytes);
  ScopedEnv held("FW_FAKE_CUDA_HELD", kHeldBytes);
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  Runs runs;
  constexpr size_t kLarge = 65536;  // 512 KiB
  Task large{&runs, kLarge * sizeof(uint64_t)};
  std::vector<uint64_t> initial = start(kLarge, 7);
  fw_buffer_t *b = fwtest::makeU64Buffer(rt, kLarge, initial);
  ASSERT_NE(b, nullptr);
  for (int i = 0; i < 5; ++i) FW_ASSERT_OK(submitBump(rt, b, &large, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  expectBumped(b, initial, 5);
  EXPECT_EQ(runs.gpu.load(), 0);
  EXPECT_EQ(runs.cpu.load(), 5);
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  EXPECT_EQ(st.tasks_rerun, 1u) << "only the try that found out";
  EXPECT_EQ(st.devices_lost, 0u);
  EXPECT_LT(st.limit_bytes[FW_TIER_DEVICE], large.bytes);

  constexpr size_t kSmall = 1024;
  Task small{&runs, kSmall * sizeof(uint64_t)};
  std::vector<uint64_t> small_initial = start(kSmall, 8);
  fw_buffer_t *s = fwtest::makeU64Buffer(rt, kSmall, small_initial);
  ASSERT_NE(s, nullptr);
  FW_ASSERT_OK(submitBump(rt, s, &small, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  expectBumped(s, small_initial, 1);
  EXPECT_EQ(runs.gpu.load(), 1);

  fw_task_t *gpuOnly = nullptr;
  FW_ASSERT_OK(submitBump(rt, b, &large, false, &gpuOnly));
  FW_EXPECT_ERROR(fw_task_wait(gpuOnly),
                  "task @bump needs 524288 bytes of cuda:0 memory at once, but the device "
                  "tier holds at most 434176 bytes (lowered when the driver refused an "
                  "allocation)");
  fw_status_free(fw_runtime_wait_all(rt));
  fw_task_release(gpuOnly);
  expectBumped(b, initial, 5);
  fw_buffer_release(s);
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// The same through the HIP driver: its out-of-memory error does not count against the
// GPU either.
TEST(GpuMemoryRefusal, TheHipDriverRefusingMemoryLowersTheCapacityToo) {
  ScopedEnv held("FW_FAKE_HIP_HELD", "1073434624");  // all but 300 KiB of its 1 GiB
  fw_runtime_t *rt = fwtest::runtimeOn("hip", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  Runs runs;
  constexpr size_t kLarge = 65536;  // 512 KiB
  Task large{&runs, kLarge * sizeof(uint64_t)};
  std::vector<uint64_t> initial = start(kLarge, 9);
  fw_buffer_t *b = fwtest::makeU64Buffer(rt, kLarge, initial);
  ASSERT_NE(b, nullptr);
  for (int i = 0; i < 4; ++i) FW_ASSERT_OK(submitBump(rt, b, &large, true, nullptr, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  expectBumped(b, initial, 4);
  EXPECT_EQ(runs.cpu.load(), 4);
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  EXPECT_EQ(st.tasks_rerun, 1u);
  EXPECT_EQ(st.devices_lost, 0u);
  EXPECT_EQ(st.limit_bytes[FW_TIER_DEVICE], 307200u);
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

}  // namespace
