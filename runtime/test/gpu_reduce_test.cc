// Reductions (FW_ACCESS_REDUCE) with the stand-in GPU in service: contributions with a GPU
// implementation run there on the GPU's own accumulator (in its memory, counted in the
// device tier, set from the neutral element on the host, or zeroed there for a built-in
// sum), which comes back to host memory to be combined with the CPU workers'
// accumulators, by the reduction task or by the tasks of a tree. The stand-in's device memory is host memory, so the
// implementations here add into the device address they are given directly, where a real
// one would enqueue a kernel.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <malloc.h>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::readU64;

const fw_scheduler_kind_t kPolicies[] = {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT};

// A contribution: adds `amount` * (i + 1) to element i of its accumulator; notes where
// each implementation ran and on which memory.
struct Part {
  uint64_t amount = 1;
  std::atomic<int> *cpu = nullptr, *gpu = nullptr;
  std::mutex *lock = nullptr;
  std::set<void *> *gpu_data = nullptr;
  std::atomic<int> *gpu_tries = nullptr;
  fw_status_t (*gpu_error)() = nullptr; // what the GPU implementation returns
};

void addInto(const Part *p, void *const *data, uint64_t elements) {
  auto *acc = static_cast<uint64_t *>(data[0]);
  for (uint64_t i = 0; i < elements; ++i) acc[i] += p->amount * (i + 1);
}

// A contribution's user data: its part, and the elements of the buffer it reduces.
struct Contribution {
  Part part;
  uint64_t elements = 0;
};

void onCpu(void *user, void *const *data, size_t) {
  auto *c = static_cast<Contribution *>(user);
  addInto(&c->part, data, c->elements);
  c->part.cpu->fetch_add(1);
}

fw_status_t onGpu(void *user, void *const *data, size_t, void *) {
  auto *c = static_cast<Contribution *>(user);
  c->part.gpu_tries->fetch_add(1);
  if (c->part.gpu_error) return c->part.gpu_error();
  {
    std::lock_guard<std::mutex> hold(*c->part.lock);
    c->part.gpu_data->insert(data[0]);
  }
  addInto(&c->part, data, c->elements);
  c->part.gpu->fetch_add(1);
  return FW_OK;
}

// What the contributions of one test share.
struct Counts {
  std::atomic<int> cpu{0}, gpu{0}, gpu_tries{0};
  std::mutex lock;
  std::set<void *> gpu_data;
};

// A buffer of `elements` 64-bit integers set to `start`, reduced by the built-in sum, or
// (`own`) by a sum with init and combine functions of its own.
fw_buffer_t *makeSum(fw_runtime_t *rt, uint64_t elements, uint64_t start, bool own = false) {
  std::vector<uint64_t> values(elements, start);
  const int64_t dims[1] = {int64_t(elements)};
  fw_buffer_t *b = nullptr;
  EXPECT_EQ(fw_buffer_create(rt, FW_ELEMENT_TYPE_I64, 1, dims, values.data(), elements * 8, &b),
            nullptr);
  if (b && !own) FW_EXPECT_OK(fw_buffer_set_reduction_op(b, FW_REDUCTION_SUM));
  if (b && own) {
    fw_reduction_t r;
    r.init = [](void *, void *data, size_t size) { std::memset(data, 0, size); };
    r.combine = [](void *, void *dst, const void *src, size_t size) {
      for (size_t i = 0; i < size / 8; ++i)
        static_cast<uint64_t *>(dst)[i] += static_cast<const uint64_t *>(src)[i];
    };
    r.user_data = nullptr;
    FW_EXPECT_OK(fw_buffer_set_reduction(b, &r));
  }
  return b;
}

// Submits a task accessing `b` in `mode`, with a CPU implementation `fn` and a CUDA one
// `cuda_fn` (either may be NULL).
fw_status_t submitOn(fw_runtime_t *rt, const char *name, fw_buffer_t *b, fw_access_t mode,
                     fw_task_fn_t fn, fw_task_gpu_fn_t cuda_fn, void *user,
                     fw_task_t **out = nullptr, double flops = 0) {
  std::vector<fw_task_access_t> access = {{b, mode}};
  fw_task_desc_t d = fwtest::describeTask(name, fn, user, access);
  d.cuda_fn = cuda_fn;
  d.flops = flops;
  return fw_task_submit(rt, &d, out);
}

// Submits contribution `c` to `b` with the implementations asked for.
fw_status_t contribute(fw_runtime_t *rt, fw_buffer_t *b, Contribution *c, bool cpu, bool gpu,
                       fw_task_t **out = nullptr) {
  return submitOn(rt, "part", b, FW_ACCESS_REDUCE, cpu ? onCpu : nullptr, gpu ? onGpu : nullptr,
                  c, out, 1e6);
}

void expectSums(fw_buffer_t *b, uint64_t elements, uint64_t start, uint64_t total) {
  const auto *got = static_cast<const uint64_t *>(fw_buffer_data(b));
  ASSERT_NE(got, nullptr);
  for (uint64_t i = 0; i < elements; ++i) ASSERT_EQ(got[i], start + total * (i + 1)) << i;
  fw_buffer_unmap(b);
}

std::vector<Contribution> parts(size_t n, uint64_t elements, Counts *counts) {
  std::vector<Contribution> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i].part.amount = i + 1;
    v[i].part.cpu = &counts->cpu;
    v[i].part.gpu = &counts->gpu;
    v[i].part.lock = &counts->lock;
    v[i].part.gpu_data = &counts->gpu_data;
    v[i].part.gpu_tries = &counts->gpu_tries;
    v[i].elements = elements;
  }
  return v;
}

// A task on the CPU that holds `b` in `mode` until the test opens the gate, returned once
// it runs on a worker (a wait of the test's could otherwise run it in a worker's place).
// As a contribution it holds its group open (its reduction task cannot be ready while it
// runs): the contributions submitted meanwhile are all of one group, however fast they
// run; as a writer, the reduction after it waits.
struct Gate {
  std::atomic<bool> started{false}, open{false};
};

fw_status_t holdUntilOpen(fw_runtime_t *rt, fw_buffer_t *b, fw_access_t mode, Gate *gate) {
  auto hold = [](void *user, void *const *, size_t) {
    auto *g = static_cast<Gate *>(user);
    g->started = true;
    while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  fw_status_t s = submitOn(rt, "gate", b, mode, hold, nullptr, gate);
  if (s == FW_OK) EXPECT_TRUE(fwtest::waitUntil([&] { return gate->started.load(); }));
  return s;
}

// Contributions with only a GPU implementation run on the GPU, all of a group on the
// GPU's one accumulator (never the buffer's memory); those with both run anywhere. The
// sums come out right under every policy, group after group, and the statistics count
// the accumulator's copies per group: set on the host and copied to the GPU, and brought
// back; a built-in sum's is set to zero in the GPU's memory (the way back alone).
class GpuReduceSums : public ::testing::TestWithParam<bool> {};

TEST_P(GpuReduceSums, ContributionsOnTheGpuAddUpIntoTheBuffer) {
  const bool own = GetParam();
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", policy, 2);
    ASSERT_NE(rt, nullptr);
    constexpr uint64_t kElements = 64;
    fw_buffer_t *sum = makeSum(rt, kElements, 7, own);
    ASSERT_NE(sum, nullptr);
    uint64_t expected = 0;
    for (int group = 0; group < 3; ++group) {
      Counts counts;
      std::vector<Contribution> gpuOnly = parts(20, kElements, &counts);
      std::vector<Contribution> either = parts(20, kElements, &counts);
      Gate gate;
      FW_ASSERT_OK(holdUntilOpen(rt, sum, FW_ACCESS_REDUCE, &gate));
      for (size_t i = 0; i < gpuOnly.size(); ++i) {
        FW_ASSERT_OK(contribute(rt, sum, &gpuOnly[i], false, true));
        FW_ASSERT_OK(contribute(rt, sum, &either[i], true, true));
        expected += 2 * (i + 1);
      }
      gate.open = true;
      FW_ASSERT_OK(fw_runtime_wait_all(rt));
      expectSums(sum, kElements, 7, expected);
      EXPECT_GE(counts.gpu.load(), 20);
      EXPECT_EQ(counts.cpu.load() + counts.gpu.load(), 40);
      EXPECT_EQ(counts.gpu_data.size(), 1u) << "one accumulator per GPU and group";
      EXPECT_EQ(counts.gpu_data.count(fw_buffer_data(sum)), 0u) << "ran on the buffer";
      fw_buffer_unmap(sum);
    }
    fw_runtime_stats_t st = fwtest::statsOf(rt);
    EXPECT_EQ(st.bytes_moved[FW_TIER_HOST][FW_TIER_DEVICE], own ? 3 * kElements * 8 : 0u);
    EXPECT_EQ(st.bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST], 3 * kElements * 8);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

INSTANTIATE_TEST_SUITE_P(Reductions, GpuReduceSums, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "own" : "builtin";
                         });

// A large buffer (2 MiB) with four accumulators, the GPU's among them: two pair tasks
// combine them (the GPU's brought to host memory first) and the reduction task folds the
// two results. Three CPU contributions meet before they add, so each has a worker of its own.
TEST(GpuReduce, ATreeCombinesTheGpusAccumulatorWithTheCpus) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", policy, 3);
    ASSERT_NE(rt, nullptr);
    constexpr uint64_t kElements = 262144;
    fw_buffer_t *sum = makeSum(rt, kElements, 1000);
    ASSERT_NE(sum, nullptr);
    Counts counts;
    struct Meet {
      Contribution c;
      std::atomic<int> *inside;
      std::atomic<bool> *go;
      bool met = false;
    };
    std::atomic<int> inside{0};
    std::atomic<bool> go{false};
    std::vector<Meet> meets(3);
    // Until all three are inside and the GPU's part is submitted: one group, four workers.
    auto meet = [](void *user, void *const *data, size_t) {
      auto *m = static_cast<Meet *>(user);
      m->inside->fetch_add(1);
      m->met = fwtest::waitUntil([&] { return m->inside->load() >= 3 && m->go->load(); });
      addInto(&m->c.part, data, m->c.elements);
    };
    std::vector<Contribution> cpuParts = parts(3, kElements, &counts);
    for (int i = 0; i < 3; ++i) {
      meets[i].c = cpuParts[i];
      meets[i].inside = &inside;
      meets[i].go = &go;
      FW_ASSERT_OK(submitOn(rt, "part", sum, FW_ACCESS_REDUCE, meet, nullptr, &meets[i]));
    }
    ASSERT_TRUE(fwtest::waitUntil([&] { return inside.load() == 3; }));
    std::vector<Contribution> gpuPart = parts(1, kElements, &counts);
    FW_ASSERT_OK(contribute(rt, sum, &gpuPart[0], false, true));
    go = true;
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    for (const Meet &m : meets) EXPECT_TRUE(m.met);
    EXPECT_EQ(counts.gpu.load(), 1);
    expectSums(sum, kElements, 1000, 1 + 1 + 2 + 3);
    fw_runtime_stats_t after = fwtest::statsOf(rt);
    EXPECT_EQ(after.tasks_submitted, 1u + 3u + 1u + 2u) << "four parts, the reduction, two pairs";
    EXPECT_EQ(after.tasks_executed, after.tasks_submitted);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

fw_status_t brokenKernel() { return fw_status_create(FW_STATUS_INTERNAL, "kernel refused"); }

// A contribution whose GPU implementation refuses its launch (returns an error: it
// enqueued nothing, so the GPU's accumulator is untouched) runs again on the CPU, as
// other tasks do; its part counts once.
TEST(GpuReduce, ARefusedLaunchRunsTheContributionAgainOnTheCpu) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cuda", policy, 2);
    ASSERT_NE(rt, nullptr);
    fw_buffer_t *sum = makeSum(rt, 16, 3);
    ASSERT_NE(sum, nullptr);
    Counts counts;
    std::vector<Contribution> v = parts(2, 16, &counts);
    v[0].part.gpu_error = brokenKernel;
    for (Contribution &c : v) FW_ASSERT_OK(contribute(rt, sum, &c, true, true));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    expectSums(sum, 16, 3, 1 + 2);
    EXPECT_GE(counts.gpu_tries.load(), 1);
    EXPECT_GE(fwtest::statsOf(rt).tasks_rerun, 1u);
    EXPECT_EQ(counts.cpu.load() + counts.gpu.load(), 2);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

// No room for the accumulator in the GPU's memory (64 KiB of it for a 256 KiB buffer): the
// accumulator counts in the contribution's working set there, which the GPU's tier cannot
// hold, so no policy places the contributions there (none is tried there and run again);
// they run on the CPU workers, and the GPU stays in service: a contribution to a smaller
// sum runs there after. One that only the GPU could run fails, naming the sizes.
TEST(GpuReduce, NoRoomForTheAccumulatorOnTheGpuRunsTheContributionOnTheCpu) {
  fwtest::ScopedEnv memory("FW_FAKE_CUDA_MEMORY", "65536");
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  constexpr uint64_t kElements = 32768;
  fw_buffer_t *sum = makeSum(rt, kElements, 5);
  ASSERT_NE(sum, nullptr);
  Counts counts;
  std::vector<Contribution> v = parts(8, kElements, &counts);
  for (Contribution &c : v) FW_ASSERT_OK(contribute(rt, sum, &c, true, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  expectSums(sum, kElements, 5, 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8);
  EXPECT_EQ(counts.gpu_tries.load(), 0);
  EXPECT_EQ(counts.cpu.load(), 8);
  EXPECT_EQ(fwtest::statsOf(rt).tasks_rerun, 0u);
  EXPECT_EQ(fwtest::statsOf(rt).devices_lost, 0u);
  fw_buffer_t *small = makeSum(rt, 64, 0);
  std::vector<Contribution> later = parts(1, 64, &counts);
  FW_ASSERT_OK(contribute(rt, small, &later[0], false, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  expectSums(small, 64, 0, 1);
  EXPECT_EQ(counts.gpu.load(), 1);
  // A contribution only the GPU could run, there too large by its accumulator alone,
  // fails saying so.
  std::vector<Contribution> gpuOnly = parts(1, kElements, &counts);
  fw_task_t *tooLarge = nullptr;
  FW_ASSERT_OK(contribute(rt, sum, &gpuOnly[0], false, true, &tooLarge));
  FW_EXPECT_ERROR(fw_task_wait(tooLarge), "task @part needs 262144 bytes of cuda:0 memory at "
                                          "once, but the device tier holds at most");
  EXPECT_EQ(counts.gpu_tries.load(), 1) << "the small sum's alone";
  fw_status_free(fw_runtime_wait_all(rt)); // its error
  fw_task_release(tooLarge);
  fw_buffer_release(small);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// The GPU's memory (1 MiB) holds a 768 KiB buffer a task left there, and a 512 KiB sum's
// contributions run only on the GPU: their accumulator counts in the device tier, so the
// memory manager makes room for it as for any buffer, moving the kept buffer (its only
// copy) to host memory, and the contributions run there, without a failed try. The kept
// buffer comes back bit-identical.
TEST(GpuReduce, TheAccumulatorGetsItsRoomOnTheGpuAsAnyBufferDoes) {
  fwtest::ScopedEnv memory("FW_FAKE_CUDA_MEMORY", "1048576");
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *kept = fwtest::makeU64Buffer(rt, 98304, std::vector<uint64_t>(98304, 1));
  auto touch = [](void *, void *const *data, size_t, void *) -> fw_status_t {
    static_cast<uint64_t *>(data[0])[0] = 2;
    return FW_OK;
  };
  FW_ASSERT_OK(submitOn(rt, "touch", kept, FW_ACCESS_READ_WRITE, nullptr, touch, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  constexpr uint64_t kElements = 65536;
  fw_buffer_t *sum = makeSum(rt, kElements, 0);
  Counts counts;
  std::vector<Contribution> v = parts(4, kElements, &counts);
  for (Contribution &c : v) FW_ASSERT_OK(contribute(rt, sum, &c, false, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  expectSums(sum, kElements, 0, 1 + 2 + 3 + 4);
  EXPECT_EQ(counts.gpu_tries.load(), 4);
  EXPECT_EQ(counts.gpu.load(), 4);
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  EXPECT_EQ(st.tasks_rerun, 0u);
  EXPECT_EQ(st.devices_lost, 0u);
  EXPECT_GE(st.evictions, 1u);
  // The kept buffer moved out, and the accumulator came home to be combined.
  EXPECT_GE(st.bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST], (98304u + kElements) * 8);
  std::vector<uint64_t> got = fwtest::readU64(kept);
  ASSERT_EQ(got.size(), 98304u);
  EXPECT_EQ(got[0], 2u);
  for (uint64_t i = 1; i < 98304; ++i) ASSERT_EQ(got[i], 1u) << i;
  fw_buffer_release(sum);
  fw_buffer_release(kept);
  fw_runtime_destroy(rt);
}


// Three sums' groups open at once, their contributions only on the GPU, whose device tier
// (640 KiB) holds two of their 256 KiB accumulators: the accumulators count in the tier
// like any buffer, so one moves to host memory to make room for another and comes back
// for its next contribution, and the tier never holds more than its limit. The sums come
// out right under every policy.
TEST(GpuReduce, AccumulatorsCountInTheDeviceTierAndMakeRoomForEachOther) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_options_t o = fwtest::taskOptions(policy, 3);
    o.devices = "cuda";
    o.tier_limits = "device=640KiB";
    fw_runtime_t *rt = fwtest::createRuntime(o);
    ASSERT_NE(rt, nullptr);
    constexpr uint64_t kElements = 32768;
    constexpr int kSums = 3, kRounds = 4;
    fw_buffer_t *sums[kSums];
    Gate gates[kSums];
    for (int k = 0; k < kSums; ++k) {
      sums[k] = makeSum(rt, kElements, uint64_t(k));
      ASSERT_NE(sums[k], nullptr);
      FW_ASSERT_OK(holdUntilOpen(rt, sums[k], FW_ACCESS_REDUCE, &gates[k]));
    }
    Counts counts;
    std::vector<Contribution> v = parts(kSums * kRounds, kElements, &counts);
    uint64_t expected[kSums] = {};
    for (int i = 0; i < kSums * kRounds; ++i) {
      FW_ASSERT_OK(contribute(rt, sums[i % kSums], &v[i], false, true));
      expected[i % kSums] += uint64_t(i) + 1;
    }
    ASSERT_TRUE(fwtest::waitUntil([&] { return counts.gpu.load() == kSums * kRounds; }));
    for (Gate &g : gates) g.open = true;
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    for (int k = 0; k < kSums; ++k) expectSums(sums[k], kElements, uint64_t(k), expected[k]);
    EXPECT_EQ(counts.cpu.load(), 0);
    fw_runtime_stats_t st = fwtest::statsOf(rt);
    EXPECT_EQ(st.tasks_rerun, 0u);
    EXPECT_GE(st.evictions, 1u);
    EXPECT_LE(st.peak_bytes[FW_TIER_DEVICE], 640u * 1024);
    EXPECT_GE(st.peak_bytes[FW_TIER_DEVICE], 2 * kElements * 8);
    // Each accumulator came home once to be combined, and at least one left and came
    // back in between.
    EXPECT_GE(st.bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST], (kSums + 1) * kElements * 8);
    EXPECT_GE(st.bytes_moved[FW_TIER_HOST][FW_TIER_DEVICE], kElements * 8);
    for (fw_buffer_t *b : sums) fw_buffer_release(b);
    fw_runtime_destroy(rt);
  }
}

// A GPU implementation that enqueues its work on the stream (a host function of the
// stand-in, as a kernel), which adds `amount` * (i + 1) when it runs.
struct Enqueued {
  Contribution c;
  void *acc = nullptr;
  std::atomic<int> ran{0};
};

fw_status_t enqueueOnGpu(void *user, void *const *data, size_t, void *stream) {
  auto *e = static_cast<Enqueued *>(user);
  e->acc = data[0];
  fwtest::LaunchHostFunc launch = fwtest::launchHostFunc(false);
  if (!launch) return fw_status_create(FW_STATUS_INTERNAL, "no host functions in the driver");
  auto run = [](void *arg) {
    auto *e = static_cast<Enqueued *>(arg);
    addInto(&e->c.part, &e->acc, e->c.elements);
    e->ran.fetch_add(1);
  };
  if (launch(stream, run, e) != 0)
    return fw_status_create(FW_STATUS_INTERNAL, "the host function was refused");
  return FW_OK;
}

void readFirst(void *user, void *const *data, size_t) {
  *static_cast<uint64_t *>(user) = static_cast<const uint64_t *>(data[0])[0];
}

// The work a contribution enqueued faults on the GPU (its launch went through): it is not
// run again on the CPU, and the reduction and its reader fail with the fault.
TEST(GpuReduce, AContributionWhoseWorkFaultsFailsTheReduction) {
  fwtest::ScopedEnv fault("FW_FAKE_CUDA_HOST_FAULT_AT", "1");
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSum(rt, 16, 0);
  ASSERT_NE(sum, nullptr);
  Counts counts;
  Enqueued e;
  e.c = parts(1, 16, &counts)[0];
  FW_ASSERT_OK(submitOn(rt, "part", sum, FW_ACCESS_REDUCE, onCpu, enqueueOnGpu, &e));
  uint64_t seen = 0;
  fw_task_t *reader = nullptr;
  FW_ASSERT_OK(fwtest::submit(rt, "read", readFirst, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  FW_EXPECT_ERROR(fw_task_wait(reader), "task @part");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt), "task @part");
  EXPECT_EQ(e.ran.load(), 0);
  EXPECT_EQ(counts.cpu.load(), 0);
  EXPECT_EQ(fwtest::statsOf(rt).tasks_rerun, 0u);
  fw_task_release(reader);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// The GPU faults after a contribution there completed and before the reduction brings its
// accumulator to host memory (the reduction waits for the writer before the group): the
// reduction fails saying so, and its reader with it.
TEST(GpuReduce, AGpuLostBeforeItsAccumulatorCameBackFailsTheReduction) {
  fwtest::ScopedEnv fault("FW_FAKE_CUDA_HOST_FAULT_AT", "2");
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSum(rt, 16, 0);
  fw_buffer_t *other = fwtest::makeU64Buffer(rt, 16, std::vector<uint64_t>(16, 0));
  ASSERT_NE(sum, nullptr);
  Gate hold;
  FW_ASSERT_OK(holdUntilOpen(rt, sum, FW_ACCESS_WRITE, &hold));
  Counts counts;
  Enqueued part, faulting;
  part.c = parts(1, 16, &counts)[0];
  faulting.c = parts(1, 16, &counts)[0];
  fw_task_t *contribution = nullptr, *broken = nullptr;
  FW_ASSERT_OK(
      submitOn(rt, "part", sum, FW_ACCESS_REDUCE, nullptr, enqueueOnGpu, &part, &contribution));
  FW_EXPECT_OK(fw_task_wait(contribution));
  EXPECT_EQ(part.ran.load(), 1);
  FW_ASSERT_OK(submitOn(rt, "fault", other, FW_ACCESS_READ_WRITE, nullptr, enqueueOnGpu,
                        &faulting, &broken));
  FW_EXPECT_ERROR(fw_task_wait(broken), "task @fault");
  hold.open = true;
  uint64_t seen = 0;
  fw_task_t *reader = nullptr;
  FW_ASSERT_OK(fwtest::submit(rt, "read", readFirst, &seen, {{sum, FW_ACCESS_READ}}, &reader));
  // The reduction task takes the accumulator in host memory: the copy from the lost GPU
  // fails it.
  FW_EXPECT_ERROR(fw_task_wait(reader), "task @part.reduce: CUDA cuMemcpyDtoH");
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt), "task @fault");
  for (fw_task_t *t : {contribution, broken, reader}) fw_task_release(t);
  fw_buffer_release(other);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// A contribution whose launch the GPU refused ran on the CPU; the GPU's accumulator for
// the group, made for it, holds nothing: a fault of the GPU before the reduction does not
// fail the reduction (nothing of it was there to lose).
TEST(GpuReduce, AnAccumulatorNoLaunchWroteIsNotBroughtBack) {
  fwtest::ScopedEnv fault("FW_FAKE_CUDA_HOST_FAULT_AT", "1");
  // Fresh memory from malloc holds 0x5a bytes, not zeros that could pass for a sum's
  // neutral element (the GPU's accumulator of a built-in sum is set on the host only if
  // it comes home without a launch).
  mallopt(M_PERTURB, 0xa5);
  struct Unperturb {
    ~Unperturb() { mallopt(M_PERTURB, 0); }
  } unperturb;
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_EAGER, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *sum = makeSum(rt, 16, 0);
  fw_buffer_t *other = fwtest::makeU64Buffer(rt, 16, std::vector<uint64_t>(16, 0));
  Gate gate;
  FW_ASSERT_OK(holdUntilOpen(rt, sum, FW_ACCESS_REDUCE, &gate));
  Counts counts;
  std::vector<Contribution> refused = parts(1, 16, &counts);
  refused[0].part.gpu_error = brokenKernel;
  fw_task_t *part = nullptr;
  FW_ASSERT_OK(contribute(rt, sum, &refused[0], true, true, &part));
  FW_EXPECT_OK(fw_task_wait(part));
  EXPECT_EQ(counts.gpu_tries.load(), 1);
  EXPECT_EQ(counts.cpu.load(), 1);
  Enqueued faulting;
  faulting.c = parts(1, 16, &counts)[0];
  fw_task_t *broken = nullptr;
  FW_ASSERT_OK(submitOn(rt, "fault", other, FW_ACCESS_READ_WRITE, nullptr, enqueueOnGpu,
                        &faulting, &broken));
  FW_EXPECT_ERROR(fw_task_wait(broken), "task @fault");
  gate.open = true;
  fw_status_free(fw_runtime_wait_all(rt)); // the fault's error
  expectSums(sum, 16, 0, 1);
  for (fw_task_t *t : {part, broken}) fw_task_release(t);
  fw_buffer_release(other);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
}

// Once every contribution of the group has started and none runs on the GPU's
// accumulator, it starts home on the prefetch threads: it is in host memory while a CPU
// contribution still holds the group open, and the reduction task finds it there rather
// than copy it itself.
TEST(GpuReduce, ADoneGpuAccumulatorStartsHomeBeforeTheReductionRuns) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cuda", policy, 2);
    ASSERT_NE(rt, nullptr);
    constexpr uint64_t kElements = 4096;
    fw_buffer_t *sum = makeSum(rt, kElements, 3);
    ASSERT_NE(sum, nullptr);
    Gate gate;
    FW_ASSERT_OK(holdUntilOpen(rt, sum, FW_ACCESS_REDUCE, &gate));
    Counts counts;
    std::vector<Contribution> v = parts(3, kElements, &counts);
    for (Contribution &c : v) FW_ASSERT_OK(contribute(rt, sum, &c, false, true));
    // The group closes: a reader after it.
    uint64_t seen = 0;
    fw_task_t *reader = nullptr;
    FW_ASSERT_OK(fwtest::submit(rt, "read", readFirst, &seen, {{sum, FW_ACCESS_READ}}, &reader));
    ASSERT_TRUE(fwtest::waitUntil([&] { return counts.gpu.load() == 3; }));
    EXPECT_TRUE(fwtest::waitUntil([&] {
      return fwtest::statsOf(rt).bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST] >= kElements * 8;
    })) << "the accumulator stayed on the GPU while the group was held open";
    EXPECT_EQ(fwtest::statsOf(rt).tasks_executed, 3u) << "the gate or the reduction ran";
    gate.open = true;
    FW_EXPECT_OK(fw_task_wait(reader));
    EXPECT_EQ(seen, 3u + (1 + 2 + 3));
    fw_runtime_stats_t st = fwtest::statsOf(rt);
    EXPECT_GE(st.prefetch_hits, 1u);
    EXPECT_EQ(st.bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST], kElements * 8) << "one copy home";
    fw_task_release(reader);
    fw_buffer_release(sum);
    fw_runtime_destroy(rt);
  }
}

}  // namespace
