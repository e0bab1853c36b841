// C tasks with GPU implementations (fw_task_desc_t.cuda_fn), through the stand-in driver of
// fake_cuda.c: its device memory is host memory, so an implementation here works on the
// device addresses it is given directly, where a real one would enqueue kernels on the
// stream. Where such tasks run under each policy, their buffers' moves, preferences
// (FW_DEVICES), the errors, and the simulator's view of the implementations.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::gpuTasks;

constexpr size_t kValues = 64;

// What the implementations saw.
struct Runs {
  std::atomic<int> cpu{0}, gpu{0};
  std::mutex lock;
  std::vector<void *> gpu_data, streams;
  fw_runtime_t *rt = nullptr;
  std::string refused; // what a wait inside the GPU implementation returned
};

void bump(void *const *data) {
  auto *v = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < kValues; ++i) ++v[i];
}

void incrementOnCpu(void *user, void *const *data, size_t num) {
  ASSERT_EQ(num, 1u);
  bump(data);
  static_cast<Runs *>(user)->cpu.fetch_add(1);
}

void incrementOnGpu(void *user, void *const *data, size_t num, void *stream) {
  ASSERT_EQ(num, 1u);
  auto *r = static_cast<Runs *>(user);
  {
    std::lock_guard<std::mutex> hold(r->lock);
    r->gpu_data.push_back(data[0]);
    r->streams.push_back(stream);
  }
  bump(data);
  r->gpu.fetch_add(1);
}

fw_status_t submitIncrement(fw_runtime_t *rt, fw_buffer_t *b, Runs *runs, bool cpu, bool gpu) {
  fw_task_access_t access = {b, FW_ACCESS_READ_WRITE};
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "increment";
  d.fn = cpu ? incrementOnCpu : nullptr;
  d.cuda_fn = gpu ? incrementOnGpu : nullptr;
  d.user_data = runs;
  d.accesses = &access;
  d.num_accesses = 1;
  d.flops = 1e6;
  return fw_task_submit(rt, &d, nullptr);
}

std::vector<uint64_t> iota(uint64_t plus) {
  std::vector<uint64_t> v(kValues);
  for (size_t i = 0; i < kValues; ++i) v[i] = i + plus;
  return v;
}

const fw_scheduler_kind_t kPolicies[] = {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT};

// A task with a GPU implementation alone runs on the GPU, on device memory its buffer was
// copied to, and what it wrote comes back to host memory.
TEST(GpuTaskFn, GpuOnlyTasksRunOnTheGpuAndTheirResultsComeBack) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", policy, 2);
    ASSERT_NE(rt, nullptr);
    fw_buffer_t *b = fwtest::makeU64Buffer(rt, kValues, iota(0));
    const void *host = fw_buffer_data(b);
    Runs runs;
    constexpr int kSteps = 10;
    for (int i = 0; i < kSteps; ++i) FW_ASSERT_OK(submitIncrement(rt, b, &runs, false, true));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    EXPECT_EQ(fwtest::readU64(b), iota(kSteps));
    EXPECT_EQ(runs.gpu.load(), kSteps);
    EXPECT_EQ(gpuTasks(rt), uint64_t(kSteps));
    for (void *p : runs.gpu_data) EXPECT_NE(p, host) << "ran on host memory";
    for (void *s : runs.streams) EXPECT_NE(s, nullptr);
    fw_buffer_release(b);
    fw_runtime_destroy(rt);
  }
}

// With both implementations a task runs on either kind of device; chains on 8 buffers
// give their results whichever ran each step.
TEST(GpuTaskFn, TasksWithBothImplementationsGiveTheirResultsAnywhere) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", policy, 2);
    ASSERT_NE(rt, nullptr);
    std::vector<fw_buffer_t *> chains;
    for (int c = 0; c < 8; ++c) chains.push_back(fwtest::makeU64Buffer(rt, kValues, iota(c)));
    Runs runs;
    constexpr int kSteps = 20;
    for (int i = 0; i < kSteps; ++i)
      for (fw_buffer_t *b : chains) FW_ASSERT_OK(submitIncrement(rt, b, &runs, true, true));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    for (int c = 0; c < 8; ++c) EXPECT_EQ(fwtest::readU64(chains[c]), iota(c + kSteps));
    EXPECT_EQ(runs.cpu.load() + runs.gpu.load(), 8 * kSteps);
    EXPECT_EQ(gpuTasks(rt), uint64_t(runs.gpu.load()));
    for (fw_buffer_t *b : chains) fw_buffer_release(b);
    fw_runtime_destroy(rt);
  }
}

// FW_DEVICES without "cpu": the GPU takes every task it has an implementation for; the
// CPU workers still run the tasks that have none.
TEST(GpuTaskFn, PreferredGpuTakesTheTasksItHasAnImplementationFor) {
  fw_runtime_t *rt = fwtest::runtimeOn("cuda", FW_SCHEDULER_HEFT, 2);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *both = fwtest::makeU64Buffer(rt, kValues, iota(0));
  fw_buffer_t *cpu_only = fwtest::makeU64Buffer(rt, kValues, iota(0));
  Runs runs;
  for (int i = 0; i < 6; ++i) {
    FW_ASSERT_OK(submitIncrement(rt, both, &runs, true, true));
    FW_ASSERT_OK(submitIncrement(rt, cpu_only, &runs, true, false));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(fwtest::readU64(both), iota(6));
  EXPECT_EQ(fwtest::readU64(cpu_only), iota(6));
  EXPECT_EQ(runs.gpu.load(), 6);
  EXPECT_EQ(runs.cpu.load(), 6);
  fw_buffer_release(both);
  fw_buffer_release(cpu_only);
  fw_runtime_destroy(rt);
}

// Without a GPU in service a task with only a GPU implementation fails, naming the kind
// it runs on; a task without any implementation is refused when submitted.
TEST(GpuTaskFn, TaskNoDeviceHereCanRunFails) {
  fw_runtime_t *rt = fwtest::runtimeOn("cpu", FW_SCHEDULER_DEFAULT, 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *b = fwtest::makeU64Buffer(rt, kValues, iota(0));
  Runs runs;
  FW_ASSERT_OK(submitIncrement(rt, b, &runs, false, true));
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt),
                  "task @increment: no device here can run it (it runs on: cuda)");
  EXPECT_EQ(runs.gpu.load(), 0);
  FW_EXPECT_ERROR(submitIncrement(rt, b, &runs, false, false),
                  "task 'increment' has no function (fn, cuda_fn or hip_fn)");
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// A GPU implementation is a task body: waiting there for the graph is refused.
TEST(GpuTaskFn, WaitsInAGpuImplementationAreRefused) {
  fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", FW_SCHEDULER_DEFAULT, 1);
  ASSERT_NE(rt, nullptr);
  Runs runs;
  runs.rt = rt;
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "waits";
  d.user_data = &runs;
  d.cuda_fn = [](void *user, void *const *, size_t, void *) {
    auto *r = static_cast<Runs *>(user);
    fw_status_t s = fw_runtime_wait_all(r->rt);
    r->refused = fw_status_message(s);
    fw_status_free(s);
  };
  FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_NE(runs.refused.find("fw_runtime_wait_all"), std::string::npos) << runs.refused;
  EXPECT_EQ(gpuTasks(rt), 1u);
  fw_runtime_destroy(rt);
}

// In simulation a task runs on the kinds it has implementations for; one described by its
// costs alone runs anywhere.
TEST(GpuTaskFn, SimulationRunsEachTaskWhereItHasAnImplementation) {
  fw_sim_device_t devices[2];
  std::memset(devices, 0, sizeof(devices));
  devices[0].name = "cpu";
  devices[0].kind = FW_TARGET_KIND_CPU;
  devices[0].workers = 2;
  devices[0].gflops = 10;
  devices[1].name = "gpu0";
  devices[1].kind = FW_TARGET_KIND_CUDA;
  devices[1].workers = 1;
  devices[1].gflops = 1000;
  fw_sim_machine_t machine;
  std::memset(&machine, 0, sizeof(machine));
  machine.num_devices = 2;
  machine.devices = devices;
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 0);
  o.simulate = &machine;
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  Runs runs;
  auto submitSim = [&](bool cpu, bool gpu) {
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = cpu && gpu ? "both" : cpu ? "cpu-only" : gpu ? "gpu-only" : "costs";
    d.fn = cpu ? incrementOnCpu : nullptr;
    d.cuda_fn = gpu ? incrementOnGpu : nullptr;
    d.user_data = &runs;
    d.flops = 1e9;
    FW_EXPECT_OK(fw_task_submit(rt, &d, nullptr));
  };
  for (int i = 0; i < 4; ++i) submitSim(true, false);  // 0.1 s each on a CPU worker
  for (int i = 0; i < 4; ++i) submitSim(false, true);  // 1 ms on the GPU
  for (int i = 0; i < 2; ++i) submitSim(false, false); // as fast: heft takes the GPU
  fw_sim_report_t r;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &r));
  EXPECT_EQ(r.tasks, 10u);
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  ASSERT_EQ(st.num_devices, 2u);
  EXPECT_EQ(st.devices[0].tasks, 4u) << "the CPU-only tasks, on the CPU although slower";
  EXPECT_EQ(st.devices[1].tasks, 6u);
  EXPECT_EQ(runs.cpu.load() + runs.gpu.load(), 0) << "a simulation runs no implementation";
  fw_runtime_destroy(rt);
}

} // namespace
