// Random task graphs on the CPU workers and two stand-in CUDA GPUs, with or without a
// stand-in HIP GPU (fake_cuda.c, fake_hip.c: their device memory is host memory, so a GPU
// implementation here computes on the device addresses it is given, where a real one would
// enqueue a kernel) against a sequential replay. Each task has a CPU implementation, GPU
// implementations or both (contributions to reductions too: on a GPU they add into its
// accumulator there); some also name earlier tasks to run after; some GPU
// implementations refuse their first launch (no scratch memory: nothing the device's health
// is judged by), so that the task runs again elsewhere. Between submissions the caller
// reads buffers (fw_buffer_data) and lets others go for new ones while their tasks still
// run, and it lets task handles go early. Under each policy, with the tiers unbounded, the
// devices' memory at its least, or every tier small (buffers go device → host → storage and
// back), and with prefetch off: whatever device ran each step and wherever the copies were,
// every task must read what the replay read, each of the caller's reads see what the replay
// had there, and every buffer end as the replay's did. Last, chaos: GPU launches and task bodies
// that fail at random, and how far each failure reaches.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "random_graph.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::RandomOp;

constexpr size_t kBuffers = 12;
constexpr size_t kTasks = 1200;
constexpr int kGpus = 2;

// Where an op may run, the tasks it names to run after, and whether its GPU
// implementation refuses the first launch.
struct Placement {
  bool cpu = true, cuda = true, hip = false;
  bool refuse_once = false;
  std::atomic<bool> refused{false};
  std::atomic<unsigned> attempts{0};  // GPU launches
  std::atomic<bool> body_failed{false};  // its CPU implementation failed it
  std::vector<size_t> after;
  uint64_t started = 0, finished = 0;  // on the graph's clock, by the run that counted
};

struct Graph {
  std::vector<RandomOp> ops;
  std::vector<Placement> placement;
  std::atomic<int> cpu_runs{0}, gpu_runs{0}, hip_runs{0}, refusals{0};
  std::atomic<uint64_t> clock{0};
  unsigned fail_percent = 0;  // of the GPU launches of tasks with a CPU implementation
                              // that fail as a broken kernel's
  unsigned body_fail_percent = 0;  // of the tasks whose CPU implementation, when it runs,
                                   // scribbles over what it writes and fails the task
};

struct TaskRef {
  Graph *graph;
  size_t index;
};

void compute(const TaskRef *ref, void *const *data, size_t num) {
  Graph *g = ref->graph;
  Placement &p = g->placement[ref->index];
  p.started = g->clock.fetch_add(1) + 1;
  RandomOp *op = &g->ops[ref->index];
  EXPECT_EQ(num, op->num);
  uint64_t *d[3] = {};
  for (size_t a = 0; a < num && a < 3; ++a) d[a] = static_cast<uint64_t *>(data[a]);
  fwtest::applyRandomOp(op, d);
  p.finished = g->clock.fetch_add(1) + 1;
}

void onCpu(void *user, void *const *data, size_t num) {
  auto *ref = static_cast<TaskRef *>(user);
  Graph *g = ref->graph;
  if (fwtest::mix(ref->index * 7919 + 17) % 100 < g->body_fail_percent) {
    const RandomOp &op = g->ops[ref->index];
    for (size_t a = 0; a < num && a < 3; ++a)
      if (op.mode[a] & FW_ACCESS_WRITE)
        std::memset(data[a], 0xdb, fwtest::kRandomElems * sizeof(uint64_t));
    g->placement[ref->index].body_failed = true;
    fw_status_free(fw_task_fail(fw_status_create(FW_STATUS_INVALID_ARGUMENT, "the input was bad")));
    return;
  }
  compute(ref, data, num);
  ref->graph->cpu_runs.fetch_add(1, std::memory_order_relaxed);
}

// A GPU implementation's work, queued on its stream.
struct Kernel {
  TaskRef *ref;
  size_t num;
  void *data[3];
  bool hip;
};

void runKernel(void *arg) {
  auto *k = static_cast<Kernel *>(arg);
  compute(k->ref, k->data, k->num);
  k->ref->graph->gpu_runs.fetch_add(1, std::memory_order_relaxed);
  if (k->hip) k->ref->graph->hip_runs.fetch_add(1, std::memory_order_relaxed);
  delete k;
}

fw_status_t onGpu(void *user, void *const *data, size_t num, void *stream, bool hip) {
  auto *ref = static_cast<TaskRef *>(user);
  if (!stream) return fw_status_create(FW_STATUS_INTERNAL, "no stream");
  Placement &p = ref->graph->placement[ref->index];
  // A refused launch enqueues nothing: the buffers are as they were.
  if (p.refuse_once && !p.refused.exchange(true)) {
    ref->graph->refusals.fetch_add(1, std::memory_order_relaxed);
    return fw_status_create(FW_STATUS_RESOURCE_EXHAUSTED, "no scratch memory this time");
  }
  unsigned attempt = p.attempts.fetch_add(1, std::memory_order_relaxed);
  if (p.cpu && fwtest::mix(ref->index * 1000003 + attempt) % 100 < ref->graph->fail_percent)
    return fw_status_create(FW_STATUS_INTERNAL, "the kernel failed");
  fwtest::LaunchHostFunc launch = fwtest::launchHostFunc(hip);
  if (!launch) return fw_status_create(FW_STATUS_INTERNAL, "no host functions in the driver");
  auto *k = new Kernel{ref, num, {}, hip};
  for (size_t a = 0; a < num && a < 3; ++a) k->data[a] = data[a];
  if (launch(stream, runKernel, k) != 0) {
    delete k;
    return fw_status_create(FW_STATUS_INTERNAL, "the host function was refused");
  }
  return FW_OK;
}

fw_status_t onCuda(void *user, void *const *data, size_t num, void *stream) {
  return onGpu(user, data, num, stream, false);
}

fw_status_t onHip(void *user, void *const *data, size_t num, void *stream) {
  return onGpu(user, data, num, stream, true);
}

// A third of the ops run on the CPU alone, a third on the CUDA GPUs alone, the rest on
// either; `hip`: each op has any non-empty set of CPU, CUDA and HIP implementations. One
// in 8 names one or two of the 40 tasks before it; one in 10 of those with a GPU
// implementation refuses its first launch when the CPU can take it over (a GPU-only one
// refused could fail where every GPU refuses it).
void place(Graph &g, uint64_t seed, bool hip) {
  fwtest::Rng rng(seed ^ 0x9a7e);
  g.placement = std::vector<Placement>(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    Placement &p = g.placement[i];
    if (hip) {
      size_t kinds = 1 + rng.below(7);
      p.cpu = kinds & 1;
      p.cuda = kinds & 2;
      p.hip = kinds & 4;
    } else {
      switch (rng.below(3)) {
      case 0: p.cuda = false; break;
      case 1: p.cpu = false; break;
      default: break;
      }
    }
    if (i > 0 && rng.below(8) == 0) {
      size_t n = 1 + rng.below(2);
      for (size_t k = 0; k < n; ++k) p.after.push_back(i - 1 - rng.below(i < 40 ? i : 40));
    }
    p.refuse_once = p.cpu && (p.cuda || p.hip) && rng.below(10) == 0;
  }
}

// What the caller does between two submissions: reads a buffer through fw_buffer_data
// (which waits for the tasks submitted on it, then brings it to host memory) and ends the
// view, or lets a buffer go (its tasks still hold it) and puts a new one in its place.
struct CallerStep {
  enum { kRead, kReplace } what;
  size_t before;  // the op it comes before
  size_t buffer;
};

std::vector<CallerStep> callerSteps(uint64_t seed, size_t ops, size_t buffers) {
  fwtest::Rng rng(seed ^ 0xca11e5);
  std::vector<CallerStep> steps;
  for (size_t i = 50; i < ops; i += 40 + rng.below(40))
    steps.push_back({rng.below(2) ? CallerStep::kRead : CallerStep::kReplace, i,
                     rng.below(buffers)});
  return steps;
}

// The contents of the `generation`-th buffer put in slot b.
std::vector<uint64_t> contentsOf(size_t b, size_t generation) {
  return fwtest::randomInitialContents(b + 1000 * generation);
}

void freeWrapped(void *, void *data) { delete[] static_cast<uint64_t *>(data); }

// The `generation`-th buffer of slot b: every third slot's are views of the caller's
// memory (fw_buffer_wrap: never evicted from host memory, freed when the runtime lets
// them go), the others the runtime's own.
fw_buffer_t *makeSlotBuffer(fw_runtime_t *rt, size_t b, size_t generation) {
  std::vector<uint64_t> values = contentsOf(b, generation);
  if (b % 3 != 2) return fwtest::makeU64Buffer(rt, fwtest::kRandomElems, values);
  auto *data = new uint64_t[fwtest::kRandomElems];
  std::memcpy(data, values.data(), fwtest::kRandomElems * sizeof(uint64_t));
  const int64_t dims[1] = {int64_t(fwtest::kRandomElems)};
  fw_buffer_t *buffer = nullptr;
  fw_status_t s = fw_buffer_wrap(rt, FW_ELEMENT_TYPE_I64, 1, dims, data,
                                 fwtest::kRandomElems * sizeof(uint64_t), freeWrapped, nullptr,
                                 &buffer);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  if (!buffer) delete[] data;
  return buffer;
}

// The same, with a sum as its reduction (contributions, FW_ACCESS_REDUCE: random_graph.h).
fw_buffer_t *slotBuffer(fw_runtime_t *rt, size_t b, size_t generation) {
  fw_buffer_t *buffer = makeSlotBuffer(rt, b, generation);
  if (buffer) FW_EXPECT_OK(fw_buffer_set_reduction_op(buffer, FW_REDUCTION_SUM));
  return buffer;
}

struct Config {
  fw_scheduler_kind_t policy;
  const char *tiers;  // nullptr: unbounded
  bool prefetch;
  bool hip;  // the stand-in HIP GPU too (fake_hip.c), and tasks with HIP implementations
  // FW_SPIN_US=0: idle workers sleep at once, and the caller's waits (fw_buffer_data,
  // fw_runtime_wait_all) run tasks in their place (fw_engine_help) as often as they can.
  bool sleepers = false;
  bool commute = false;  // some updates commutative (random_graph.h)
};

// The task's name: what it has implementations for (the history keeps each apart).
const char *implementations(const Placement &p) {
  static const char *const kNames[] = {"none", "cpu",     "cuda",     "cpu+cuda",
                                       "hip",  "cpu+hip", "cuda+hip", "cpu+cuda+hip"};
  return kNames[(p.cpu ? 1 : 0) | (p.cuda ? 2 : 0) | (p.hip ? 4 : 0)];
}

// Submits op i of `g`: its accesses to `buffers`, after the tasks it names (in `tasks`),
// with refs[i] for its user data; its handle goes to tasks[i].
fw_status_t submitOp(fw_runtime_t *rt, Graph &g, size_t i,
                     const std::vector<fw_buffer_t *> &buffers, std::vector<TaskRef> &refs,
                     std::vector<fw_task_t *> &tasks) {
  const RandomOp &op = g.ops[i];
  const Placement &p = g.placement[i];
  refs[i] = {&g, i};
  fw_task_access_t acc[3];
  for (size_t a = 0; a < op.num; ++a) acc[a] = {buffers[op.buffer[a]], op.mode[a]};
  std::vector<fw_task_t *> after;
  for (size_t k : p.after) after.push_back(tasks[k]);
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = implementations(p);
  d.fn = p.cpu ? onCpu : nullptr;
  d.cuda_fn = p.cuda ? onCuda : nullptr;
  d.hip_fn = p.hip ? onHip : nullptr;
  d.user_data = &refs[i];
  d.accesses = acc;
  d.num_accesses = op.num;
  d.flops = 1e6 * double(1 + i % 5);
  d.after = after.data();
  d.num_after = after.size();
  return fw_task_submit(rt, &d, &tasks[i]);
}

// One random graph, its replay and the caller's steps, submitted from one thread to a
// runtime (others may submit graphs of their own beside it, on buffers of their own).
class ReplayedGraph {
 public:
  ReplayedGraph(uint64_t seed, bool hip, bool commute = false) : seed_(seed) {
    steps_ = callerSteps(seed, kTasks, kBuffers);
    // The replay, with what each of the caller's reads must see.
    expected_ = fwtest::randomOps(seed, kTasks, kBuffers, commute, commute);
    state_.resize(kBuffers);
    std::vector<size_t> generation(kBuffers, 0);
    for (size_t b = 0; b < kBuffers; ++b) state_[b] = contentsOf(b, 0);
    for (size_t i = 0, next = 0; i < kTasks; ++i) {
      for (; next < steps_.size() && steps_[next].before == i; ++next) {
        size_t b = steps_[next].buffer;
        if (steps_[next].what == CallerStep::kRead) seen_.push_back(state_[b]);
        else state_[b] = contentsOf(b, ++generation[b]);
      }
      uint64_t *d[3] = {};
      for (size_t a = 0; a < expected_[i].num; ++a) d[a] = state_[expected_[i].buffer[a]].data();
      fwtest::applyRandomOp(&expected_[i], d);
    }
    graph_.ops = fwtest::randomOps(seed, kTasks, kBuffers, commute, commute);
    place(graph_, seed, hip);
  }
  ~ReplayedGraph() {
    for (fw_task_t *t : tasks_)
      if (t) fw_task_release(t);
    for (fw_buffer_t *b : buffers_)
      if (b) fw_buffer_release(b);
  }

  // Submits the graph, with the caller's reads and replacements between the submissions.
  void submit(fw_runtime_t *rt) {
    buffers_.assign(kBuffers, nullptr);
    for (size_t b = 0; b < kBuffers; ++b) {
      buffers_[b] = slotBuffer(rt, b, 0);
      ASSERT_NE(buffers_[b], nullptr);
    }
    std::vector<size_t> generation(kBuffers, 0);
    size_t next_step = 0, reads = 0;
    refs_.resize(kTasks);
    tasks_.assign(kTasks, nullptr);
    for (size_t i = 0; i < kTasks; ++i) {
      for (; next_step < steps_.size() && steps_[next_step].before == i; ++next_step) {
        size_t b = steps_[next_step].buffer;
        if (steps_[next_step].what == CallerStep::kRead) {
          EXPECT_EQ(fwtest::readU64(buffers_[b]), seen_[reads++]) << "read before task " << i;
          fw_buffer_unmap(buffers_[b]);
        } else {
          fw_buffer_release(buffers_[b]);
          buffers_[b] = slotBuffer(rt, b, ++generation[b]);
          ASSERT_NE(buffers_[b], nullptr);
        }
      }
      FW_ASSERT_OK(submitOp(rt, graph_, i, buffers_, refs_, tasks_));
      // No later task names one 40 or more before it: its handle goes, perhaps in flight.
      if (i >= 40) {
        fw_task_release(tasks_[i - 40]);
        tasks_[i - 40] = nullptr;
      }
    }
    EXPECT_EQ(reads, seen_.size());
  }

  // Once every task has run: what each read, the buffers' final contents, the order of
  // the control edges.
  void check() {
    for (size_t i = 0; i < kTasks; ++i)
      ASSERT_EQ(graph_.ops[i].checksum, expected_[i].checksum)
          << "task " << i << " of graph " << seed_ << " read other data";
    // Each view ends before the next: the small host tier holds a few buffers at once.
    for (size_t b = 0; b < kBuffers; ++b) {
      EXPECT_EQ(fwtest::readU64(buffers_[b]), state_[b]) << "buffer " << b;
      fw_buffer_unmap(buffers_[b]);
    }
    // The checksums see the order of tasks that share buffers; control edges order tasks
    // that may share none.
    for (size_t i = 0; i < kTasks; ++i)
      for (size_t k : graph_.placement[i].after)
        EXPECT_GT(graph_.placement[i].started, graph_.placement[k].finished)
            << "task " << i << " started before task " << k << ", which it runs after, ended";
  }

  const Graph &graph() const { return graph_; }

 private:
  uint64_t seed_;
  std::vector<CallerStep> steps_;
  std::vector<RandomOp> expected_;
  std::vector<std::vector<uint64_t>> state_, seen_;
  Graph graph_;
  std::vector<fw_buffer_t *> buffers_;
  std::vector<TaskRef> refs_;
  std::vector<fw_task_t *> tasks_;
};

// A runtime on the CPU (2 workers) and the stand-in GPUs (the caller holds
// FW_FAKE_CUDA_DEVICES at kGpus meanwhile), NULL (failing the test) when they are not all
// in service.
fw_runtime_t *runtimeBesideGpus(const Config &c) {
  fw_runtime_options_t o = fwtest::taskOptions(c.policy, 2);
  o.devices = c.hip ? "cpu,cuda,hip" : "cpu,cuda";
  o.tier_limits = c.tiers;
  if (!c.prefetch) o.flags |= FW_RUNTIME_NO_PREFETCH;
  fw_runtime_t *rt = nullptr;
  fw_status_t s = fw_runtime_create(&o, &rt);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  if (!rt) return nullptr;
  if (fwtest::statsOf(rt).num_devices != 1u + kGpus + (c.hip ? 1 : 0)) {
    ADD_FAILURE() << "the stand-in GPUs are not in service";
    fw_runtime_destroy(rt);
    return nullptr;
  }
  return rt;
}

class GpuRandomGraphTest : public ::testing::TestWithParam<Config> {};

TEST_P(GpuRandomGraphTest, MatchesSequentialReplay) {
  const Config c = GetParam();
  const uint64_t seed = 0x6f00d + uint64_t(c.policy) * 131 + (c.tiers ? strlen(c.tiers) : 0) +
                        (c.prefetch ? 0 : 7) + (c.hip ? 3 : 0) + (c.sleepers ? 11 : 0) +
                        (c.commute ? 13 : 0);
  fwtest::ScopedEnv gpus("FW_FAKE_CUDA_DEVICES", std::to_string(kGpus).c_str());
  fwtest::ScopedEnv spin("FW_SPIN_US", c.sleepers ? "0" : nullptr);
  fw_runtime_t *rt = runtimeBesideGpus(c);
  ASSERT_NE(rt, nullptr);
  {
    ReplayedGraph graph(seed, c.hip, c.commute);
    graph.submit(rt);
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    graph.check();
    const Graph &g = graph.graph();
    fw_runtime_stats_t st = fwtest::statsOf(rt);
    // With the reduction tasks (commute: some contributions to reductions too).
    if (c.commute) EXPECT_GT(st.tasks_executed, kTasks);
    else EXPECT_EQ(st.tasks_executed, kTasks);
    EXPECT_EQ(uint64_t(g.cpu_runs.load() + g.gpu_runs.load()), kTasks);
    uint64_t on_gpus = 0;
    for (uint32_t d = 1; d < st.num_devices; ++d) on_gpus += st.devices[d].tasks;
    EXPECT_EQ(on_gpus, uint64_t(g.gpu_runs.load()));
    EXPECT_GT(g.gpu_runs.load(), 0);
    EXPECT_GT(g.cpu_runs.load(), 0);
    if (c.hip) EXPECT_GT(g.hip_runs.load(), 0);
    EXPECT_EQ(st.tasks_rerun, uint64_t(g.refusals.load()));
    EXPECT_EQ(st.devices_lost, 0u);
    if (c.tiers) EXPECT_GT(st.evictions, 0u) << "the tiers never filled";
  }
  fw_runtime_destroy(rt);
}

// Three threads submit graphs of their own to one runtime at once (buffers of their own;
// the tiers, the GPUs and the copy threads shared), each reading and replacing its buffers
// as it goes; again with FW_SPIN_US=0, where the three threads' waits take the two CPU
// workers' places in turn (fw_engine_help) while the workers sleep; and with flow control
// (FW_MAX_SUBMITTED_TASKS=16), where the three submitters wait for the tasks in flight to
// come down to 8 again and again.
class GpuRandomGraphThreadsTest : public ::testing::TestWithParam<const char *> {};

TEST_P(GpuRandomGraphThreadsTest, GraphsFromThreeThreadsMatchTheirReplays) {
  const std::string mode = GetParam();
  const bool sleepers = mode == "sleeping", throttled = mode == "flow_control";
  fwtest::ScopedEnv spin("FW_SPIN_US", sleepers ? "0" : nullptr);
  fwtest::ScopedEnv max("FW_MAX_SUBMITTED_TASKS", throttled ? "16" : nullptr);
  fwtest::ScopedEnv min("FW_MIN_SUBMITTED_TASKS", throttled ? "8" : nullptr);
  for (fw_scheduler_kind_t policy : {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fwtest::ScopedEnv gpus("FW_FAKE_CUDA_DEVICES", std::to_string(kGpus).c_str());
    fw_runtime_t *rt = runtimeBesideGpus({policy, "device=2KiB,host=8KiB", true, false});
    ASSERT_NE(rt, nullptr);
    {
      std::vector<std::unique_ptr<ReplayedGraph>> graphs;
      for (uint64_t k = 0; k < 3; ++k)
        graphs.push_back(std::make_unique<ReplayedGraph>(
            0x7e4d + 97 * k + uint64_t(policy) + (sleepers ? 5 : 0), false));
      std::vector<std::thread> threads;
      for (auto &graph : graphs) threads.emplace_back([&] { graph->submit(rt); });
      for (std::thread &t : threads) t.join();
      FW_ASSERT_OK(fw_runtime_wait_all(rt));
      int runs = 0;
      for (auto &graph : graphs) {
        graph->check();
        runs += graph->graph().cpu_runs.load() + graph->graph().gpu_runs.load();
      }
      fw_runtime_stats_t st = fwtest::statsOf(rt);
      EXPECT_EQ(st.tasks_executed, 3 * kTasks);
      EXPECT_EQ(size_t(runs), 3 * kTasks);
      EXPECT_GT(st.evictions, 0u);
      if (throttled) EXPECT_GT(st.submit_waits, 0u);
      else EXPECT_EQ(st.submit_waits, 0u);
    }
    fw_runtime_destroy(rt);
  }
}

const fw_scheduler_kind_t kPolicies[] = {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT};

// GPU launches that fail at random (a broken kernel: 30 % of the attempts of the tasks the
// CPU can take over) on one or two GPUs with every tier small: the tasks rerun elsewhere,
// three failures in a row take a GPU out of service at some point or none, and then the
// tasks only the GPUs could run fail. And 1 % of the tasks' CPU implementations scribble
// over what they write and fail their task. A failure reaches the tasks that read what the
// failed task was to write, or were named to run after it: the run ends (no task is left
// waiting), every task that succeeded read what the replay read (none ran on what a failed
// one left), every task a failure reached failed, and a task with only a CPU implementation
// that no failure reached succeeded (a task that only overwrites a failed one's output, or
// only writes what it read, runs).
class GpuChaosTest
    : public ::testing::TestWithParam<std::tuple<fw_scheduler_kind_t, int>> {};

TEST_P(GpuChaosTest, TasksThatSucceedReadWhatTheReplayRead) {
  auto [policy, gpus] = GetParam();
  const uint64_t seed = 0xc4a05 + uint64_t(policy) * 17 + uint64_t(gpus);
  std::vector<RandomOp> expected = fwtest::randomOps(seed, kTasks, kBuffers);
  fwtest::replayRandomOps(expected, kBuffers);

  fwtest::ScopedEnv devices("FW_FAKE_CUDA_DEVICES", std::to_string(gpus).c_str());
  fw_runtime_options_t o = fwtest::taskOptions(policy, 2);
  o.devices = "cpu,cuda";
  o.tier_limits = "device=2KiB,host=4KiB";
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  std::vector<fw_buffer_t *> buffers(kBuffers);
  for (size_t b = 0; b < kBuffers; ++b) {
    buffers[b] = fwtest::makeU64Buffer(rt, fwtest::kRandomElems, contentsOf(b, 0));
    ASSERT_NE(buffers[b], nullptr);
  }
  Graph g;
  g.ops = fwtest::randomOps(seed, kTasks, kBuffers);
  g.fail_percent = 30;
  g.body_fail_percent = 1;
  place(g, seed, false);
  std::vector<TaskRef> refs(kTasks);
  std::vector<fw_task_t *> tasks(kTasks, nullptr);
  for (size_t i = 0; i < kTasks; ++i) {
    FW_ASSERT_OK(submitOp(rt, g, i, buffers, refs, tasks));
  }
  fwtest::consume(fw_runtime_wait_all(rt));
  size_t succeeded = 0;
  std::vector<bool> failed(kTasks);
  // The task that last wrote each buffer, in submission order (kTasks: none yet).
  std::vector<size_t> writer(kBuffers, kTasks);
  for (size_t i = 0; i < kTasks; ++i) {
    failed[i] = !fwtest::consume(fw_task_wait(tasks[i])).empty();
    // A failure reaches the tasks that read what the failed task was to write, and those
    // after it, and no others: a CPU-only task fails only so (it has no kernel to fail).
    const RandomOp &op = g.ops[i];
    bool reached = false;
    for (size_t a = 0; a < op.num; ++a) {
      size_t w = writer[op.buffer[a]];
      if ((op.mode[a] & FW_ACCESS_READ) && w < kTasks && failed[w]) reached = true;
    }
    for (size_t k : g.placement[i].after) reached = reached || failed[k];
    for (size_t a = 0; a < op.num; ++a)
      if (op.mode[a] & FW_ACCESS_WRITE) writer[op.buffer[a]] = i;
    const Placement &p = g.placement[i];
    if (reached || p.body_failed)
      EXPECT_TRUE(failed[i]) << "task " << i << " ran on what a failed task left";
    else if (!p.cuda)
      EXPECT_FALSE(failed[i]) << "task " << i << " failed, though nothing it reads did";
    if (failed[i]) continue;
    ++succeeded;
    EXPECT_EQ(g.ops[i].checksum, expected[i].checksum) << "task " << i << " read other data";
  }
  EXPECT_GT(succeeded, 0u);
  fw_runtime_stats_t st = fwtest::statsOf(rt);
  EXPECT_EQ(st.tasks_executed + st.tasks_failed, kTasks);
  EXPECT_EQ(st.tasks_executed, succeeded);
  for (fw_task_t *t : tasks) fw_task_release(t);
  for (fw_buffer_t *b : buffers) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}



std::vector<Config> configs() {
  std::vector<Config> all;
  for (fw_scheduler_kind_t p : kPolicies) {
    all.push_back({p, nullptr, true, false});
    all.push_back({p, "device=min", true, false});
    all.push_back({p, "device=2KiB,host=4KiB", true, false});
    all.push_back({p, "device=2KiB,host=4KiB", false, false});
    all.push_back({p, nullptr, true, true});
    all.push_back({p, "device=2KiB,host=4KiB", true, true});
    all.push_back({p, "device=2KiB,host=4KiB", true, false, true});
    all.push_back({p, "device=2KiB,host=4KiB", true, true, false, true});
  }
  return all;
}

std::string configName(const ::testing::TestParamInfo<Config> &info) {
  const Config &c = info.param;
  std::string name = fwtest::schedulerName(c.policy);
  if (!c.tiers) name += "_unbounded";
  else if (!strcmp(c.tiers, "device=min")) name += "_device_min";
  else name += "_small_tiers";
  if (!c.prefetch) name += "_no_prefetch";
  if (c.hip) name += "_with_hip";
  if (c.sleepers) name += "_sleeping_workers";
  if (c.commute) name += "_commute";
  return name;
}

INSTANTIATE_TEST_SUITE_P(Policies, GpuRandomGraphTest, ::testing::ValuesIn(configs()),
                         configName);

INSTANTIATE_TEST_SUITE_P(Workers, GpuRandomGraphThreadsTest,
                         ::testing::Values("polling", "sleeping", "flow_control"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param);
                         });

INSTANTIATE_TEST_SUITE_P(
    Policies, GpuChaosTest,
    ::testing::Combine(::testing::Values(FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT),
                       ::testing::Values(1, 2)),
    [](const ::testing::TestParamInfo<std::tuple<fw_scheduler_kind_t, int>> &info) {
      return std::string(fwtest::schedulerName(std::get<0>(info.param))) + "_" +
             std::to_string(std::get<1>(info.param)) + "gpus";
    });

}  // namespace
