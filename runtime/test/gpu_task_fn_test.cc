// C tasks with GPU implementations (fw_task_desc_t.cuda_fn), through the stand-in driver of
// fake_cuda.c: its device memory is host memory, so an implementation here works on the
// device addresses it is given directly, where a real one would enqueue kernels on the
// stream. Where such tasks run under each policy, their buffers' moves, preferences
// (FW_DEVICES), the errors, and the simulator's view of the implementations.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "fw/runtime.hpp"
#include "scheduler.h"  // FW_GPU_MAX_FAILURES
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

fw_status_t incrementOnGpu(void *user, void *const *data, size_t num, void *stream) {
  EXPECT_EQ(num, 1u);
  auto *r = static_cast<Runs *>(user);
  {
    std::lock_guard<std::mutex> hold(r->lock);
    r->gpu_data.push_back(data[0]);
    r->streams.push_back(stream);
  }
  bump(data);
  r->gpu.fetch_add(1);
  return FW_OK;
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

// When the only GPU is taken out of service (FW_GPU_MAX_FAILURES failed launches in a row
// of tasks the CPU then reruns), the tasks only it could run that wait in a queue fail,
// saying why, rather than wait there for good (under eager they hung with their waiters);
// the others still run. The GPU is preferred ("cuda"), so the CPU worker leaves it the
// tasks with both implementations while it is in service; those go first (priority).
// eager and heft, whose queues the workers share: ws keeps tasks on the worker that
// released them (the lost one's go back to the policy), in an order priorities do not set.
TEST(GpuTaskFn, LosingTheOnlyGpuFailsTheTasksOnlyItCouldRun) {
  for (fw_scheduler_kind_t policy : {FW_SCHEDULER_EAGER, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = fwtest::runtimeOn("cuda", policy, 1);
    ASSERT_NE(rt, nullptr);
    Runs runs;
    std::vector<fw_buffer_t *> rerun(FW_GPU_MAX_FAILURES);  // independent tasks
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = "failing";
    d.user_data = &runs;
    d.fn = incrementOnCpu;
    d.cuda_fn = [](void *user, void *const *, size_t, void *) -> fw_status_t {
      static_cast<Runs *>(user)->gpu.fetch_add(1);
      return fw_status_create(FW_STATUS_INTERNAL, "the launch failed");
    };
    d.num_accesses = 1;
    d.priority = 10;
    for (fw_buffer_t *&b : rerun) {
      b = fwtest::makeU64Buffer(rt, kValues, iota(0));
      fw_task_access_t a = {b, FW_ACCESS_READ_WRITE};
      d.accesses = &a;
      FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
    }
    constexpr int kGpuOnly = 8;
    std::vector<fw_task_t *> gpu_only(kGpuOnly);
    std::memset(&d, 0, sizeof(d));
    d.name = "gpu-only";
    d.user_data = &runs;
    d.cuda_fn = incrementOnGpu;
    std::vector<fw_buffer_t *> own(kGpuOnly);
    for (int i = 0; i < kGpuOnly; ++i) {
      own[i] = fwtest::makeU64Buffer(rt, kValues, iota(0));
      fw_task_access_t a = {own[i], FW_ACCESS_READ_WRITE};
      d.accesses = &a;
      d.num_accesses = 1;
      FW_ASSERT_OK(fw_task_submit(rt, &d, &gpu_only[i]));
    }
    EXPECT_NE(fwtest::consume(fw_runtime_wait_all(rt)), "");
    int ran = 0, stranded = 0;
    for (int i = 0; i < kGpuOnly; ++i) {
      std::string error = fwtest::consume(fw_task_wait(gpu_only[i]));
      if (error.empty()) ++ran;
      if (error.find("task @gpu-only: no device here can run it (it runs on: cuda); the "
                     "devices of those kinds were taken out of service after failing") !=
          std::string::npos)
        ++stranded;
      fw_task_release(gpu_only[i]);
      fw_buffer_release(own[i]);
    }
    EXPECT_EQ(ran + stranded, kGpuOnly);
    EXPECT_GT(stranded, 0);
    EXPECT_EQ(runs.gpu.load(), int(FW_GPU_MAX_FAILURES) + ran);
    EXPECT_EQ(runs.cpu.load(), int(FW_GPU_MAX_FAILURES));
    for (fw_buffer_t *b : rerun) {
      EXPECT_EQ(fwtest::readU64(b), iota(1));
      fw_buffer_release(b);
    }
    EXPECT_EQ(fwtest::statsOf(rt).devices_lost, 1u);
    fw_runtime_destroy(rt);
  }
}

// Views of the caller's memory (fw_buffer_wrap) that GPU tasks write: fw_buffer_data
// brings what the GPU wrote back into the caller's memory (it returned the caller's
// pointer at once, with what was there before), and so does letting the buffer go; and
// their copies on a device are evicted like any (they never were: eight views filled a
// device of four buffers' room, and the ninth task found nothing to evict).
TEST(GpuTaskFn, ViewsOfCallerMemoryGetWhatTheGpuWrote) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 1);
  o.devices = "cpu,cuda";
  o.tier_limits = "device=2KiB";  // four buffers
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  ASSERT_EQ(fwtest::statsOf(rt).num_devices, 2u) << "the stand-in GPU is not in service";
  constexpr int kViews = 8;
  std::vector<std::vector<uint64_t>> memory(kViews, iota(0));
  std::vector<std::atomic<int>> released(kViews);  // the last reference may be a task's
  std::vector<fw_buffer_t *> views(kViews);
  const int64_t dims[1] = {int64_t(kValues)};
  for (int v = 0; v < kViews; ++v)
    FW_ASSERT_OK(fw_buffer_wrap(
        rt, FW_ELEMENT_TYPE_I64, 1, dims, memory[v].data(), kValues * sizeof(uint64_t),
        [](void *user, void *) { static_cast<std::atomic<int> *>(user)->fetch_add(1); },
        &released[v], &views[v]));
  Runs runs;
  for (int round = 1; round <= 2; ++round)
    for (fw_buffer_t *view : views) FW_ASSERT_OK(submitIncrement(rt, view, &runs, false, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(runs.gpu.load(), 2 * kViews);
  EXPECT_GT(fwtest::statsOf(rt).evictions, 0u);
  // Read through the view: the caller's memory itself holds what the GPU wrote.
  void *data = nullptr;
  FW_ASSERT_OK(fw_buffer_map(views[0], &data));
  EXPECT_EQ(data, memory[0].data());
  EXPECT_EQ(memory[0], iota(2));
  fw_buffer_unmap(views[0]);
  // Written on the GPU once more and let go without a view: written back first.
  FW_ASSERT_OK(submitIncrement(rt, views[1], &runs, false, true));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  fw_buffer_release(views[1]);
  for (int v = 0; v < kViews; ++v)
    if (v != 1) fw_buffer_release(views[v]);
  fw_runtime_destroy(rt);
  for (int v = 0; v < kViews; ++v) {
    // A worker may drop a task's last reference a little later.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (released[v].load() == 0 && std::chrono::steady_clock::now() < deadline)
      fwtest::sleepMs(1);
    EXPECT_EQ(released[v].load(), 1) << "view " << v;
    EXPECT_EQ(memory[v], iota(v == 1 ? 3 : 2)) << "view " << v;
  }
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
  d.cuda_fn = [](void *user, void *const *, size_t, void *) -> fw_status_t {
    auto *r = static_cast<Runs *>(user);
    fw_status_t s = fw_runtime_wait_all(r->rt);
    r->refused = fw_status_message(s);
    fw_status_free(s);
    return FW_OK;
  };
  FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_NE(runs.refused.find("fw_runtime_wait_all"), std::string::npos) << runs.refused;
  EXPECT_EQ(gpuTasks(rt), 1u);
  fw_runtime_destroy(rt);
}

// A GPU implementation that writes part of a buffer never written before finds the rest
// zero, as a CPU body does: not what a freed buffer left in the device memory reused.
TEST(GpuTaskFn, PartOfANeverWrittenBufferReadsAsZeros) {
  fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", FW_SCHEDULER_DEFAULT, 1);
  ASSERT_NE(rt, nullptr);
  auto submitWrite = [&](fw_buffer_t *b, fw_task_gpu_fn_t fn) {
    fw_task_access_t access = {b, FW_ACCESS_WRITE};
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = "write";
    d.cuda_fn = fn;
    d.accesses = &access;
    d.num_accesses = 1;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
  };
  // Device memory full of 0xab, freed (the device keeps the block for reuse).
  fw_buffer_t *old = fwtest::makeU64Buffer(rt, kValues);
  submitWrite(old, [](void *, void *const *data, size_t, void *) -> fw_status_t {
    std::memset(data[0], 0xab, kValues * sizeof(uint64_t));
    return FW_OK;
  });
  fw_buffer_release(old);
  fw_buffer_t *fresh = fwtest::makeU64Buffer(rt, kValues);
  submitWrite(fresh, [](void *, void *const *data, size_t, void *) -> fw_status_t {
    static_cast<uint64_t *>(data[0])[0] = 7;
    return FW_OK;
  });
  std::vector<uint64_t> expected(kValues, 0);
  expected[0] = 7;
  EXPECT_EQ(fwtest::readU64(fresh), expected);
  EXPECT_EQ(gpuTasks(rt), 2u);
  fw_buffer_release(fresh);
  fw_runtime_destroy(rt);
}

// An error a GPU implementation returns (a launch the driver refused) runs the task again
// on a device with another implementation, or fails it with that error.
TEST(GpuTaskFn, AnErrorFromTheImplementationRunsTheTaskElsewhereOrFailsIt) {
  fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", FW_SCHEDULER_HEFT, 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *b = fwtest::makeU64Buffer(rt, kValues, iota(0));
  Runs runs;
  fw_task_access_t access = {b, FW_ACCESS_READ_WRITE};
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "refused";
  d.user_data = &runs;
  d.cuda_fn = [](void *user, void *const *, size_t, void *) -> fw_status_t {
    static_cast<Runs *>(user)->gpu.fetch_add(1);
    return fw_status_create(FW_STATUS_INTERNAL, "the launch was refused");
  };
  d.accesses = &access;
  d.num_accesses = 1;
  d.flops = 1e9;  // far faster on the GPU by the model: tried there first
  d.fn = incrementOnCpu;
  FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(runs.gpu.load(), 1);
  EXPECT_EQ(runs.cpu.load(), 1);
  EXPECT_EQ(fwtest::readU64(b), iota(1));
  d.fn = nullptr;  // the GPU alone
  FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt), "the launch was refused");
  EXPECT_EQ(fwtest::readU64(b), iota(1));
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// Work an implementation enqueued before failing its task (fw_task_fail) ends before the
// task does: failing lets its buffers go, which that work may still be using. The
// stand-in runs a stream's host functions when something waits for the stream.
TEST(GpuTaskFn, WorkEnqueuedBeforeAFailureEndsBeforeTheTask) {
  fw_runtime_t *rt = fwtest::runtimeOn("cpu,cuda", FW_SCHEDULER_HEFT, 1);
  ASSERT_NE(rt, nullptr);
  fw_buffer_t *b = fwtest::makeU64Buffer(rt, kValues, iota(0));
  std::atomic<bool> ran{false};
  fw_task_access_t access = {b, FW_ACCESS_READ_WRITE};
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = "enqueue then fail";
  d.user_data = &ran;
  d.cuda_fn = [](void *user, void *const *, size_t, void *stream) -> fw_status_t {
    fwtest::LaunchHostFunc launch = fwtest::launchHostFunc(false);
    if (!launch) return fw_status_create(FW_STATUS_INTERNAL, "no cuLaunchHostFunc");
    auto mark = [](void *flag) { static_cast<std::atomic<bool> *>(flag)->store(true); };
    if (launch(stream, mark, user) != 0)
      return fw_status_create(FW_STATUS_INTERNAL, "cuLaunchHostFunc failed");
    fw_status_free(fw_task_fail(fw_status_create(FW_STATUS_DATA_LOSS, "failed after enqueueing")));
    return FW_OK;
  };
  d.accesses = &access;
  d.num_accesses = 1;
  fw_task_t *t = nullptr;
  FW_ASSERT_OK(fw_task_submit(rt, &d, &t));
  FW_EXPECT_ERROR(fw_task_wait(t), "failed after enqueueing");
  EXPECT_TRUE(ran.load());
  fw_task_release(t);
  FW_EXPECT_ERROR(fw_runtime_wait_all(rt), "failed after enqueueing");
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// The C++ API's TaskBody: a GPU lambda gets the stream and returns a Status.
TEST(GpuTaskFn, CppTaskBodiesRunOnTheGpu) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 1);
  o.devices = "cpu,cuda";
  fw::Result<fw::Runtime> rt = fw::Runtime::create(o);
  ASSERT_TRUE(rt.ok()) << rt.status().message();
  fw::Result<fw::Buffer> b = fw::Buffer::fromVector<int64_t>(*rt, {4}, {1, 2, 3, 4});
  ASSERT_TRUE(b.ok());
  void *seen = nullptr;
  fw::TaskBody body;
  body.cuda = [&seen](void *const *data, size_t, void *stream) {
    seen = stream;
    for (int i = 0; i < 4; ++i) static_cast<int64_t *>(data[0])[i] *= 10;
    return fw::Status();
  };
  fw::Result<fw::Task> t = rt->submit("times-ten", {{*b, FW_ACCESS_READ_WRITE}}, body);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->wait().ok());
  EXPECT_NE(seen, nullptr);
  EXPECT_EQ(b->toVector<int64_t>(), (std::vector<int64_t>{10, 20, 30, 40}));
  body.cuda = [](void *const *, size_t, void *) {
    return fw::Status(FW_STATUS_INTERNAL, "no room for the kernel");
  };
  t = rt->submit("fails", {{*b, FW_ACCESS_READ_WRITE}}, body);
  ASSERT_TRUE(t.ok());
  fw::Status failed = t->wait();
  EXPECT_NE(std::string(failed.message()).find("no room for the kernel"), std::string::npos)
      << failed.message();
  EXPECT_EQ(b->toVector<int64_t>(), (std::vector<int64_t>{10, 20, 30, 40}));
  // An exception fails the run like an error returned (fw_task_fail).
  body.cuda = [](void *const *, size_t, void *) -> fw::Status {
    throw std::runtime_error("driver wrapper threw");
  };
  fw::Result<fw::Buffer> c = fw::Buffer::fromVector<int64_t>(*rt, {4}, {1, 2, 3, 4});
  ASSERT_TRUE(c.ok());  // b failed to be written: its readers fail with that error
  t = rt->submit("throws", {{*c, FW_ACCESS_READ_WRITE}}, body);
  ASSERT_TRUE(t.ok());
  failed = t->wait();
  EXPECT_NE(std::string(failed.message()).find("the task body threw: driver wrapper threw"),
            std::string::npos)
      << failed.message();
}

// In simulation a task runs on the kinds it has implementations for; one described by its
// costs alone runs anywhere.
TEST(GpuTaskFn, SimulationRunsEachTaskWhereItHasAnImplementation) {
  fw_sim_device_t devices[2] = {fwtest::simDevice("cpu", FW_TARGET_KIND_CPU, 2, 10),
                                 fwtest::simDevice("gpu0", FW_TARGET_KIND_CUDA, 1, 1000)};
  fw_sim_machine_t machine = {2, devices};
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
