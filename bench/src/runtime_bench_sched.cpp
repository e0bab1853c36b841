// Part "sched": scheduling quality in the runtime's virtual-time simulator.
//
// DAGs are built with fw_task_submit (no function: simulation only; flops and buffer
// accesses set, tasks named by kernel so that per-kernel device speeds apply) on buffers
// created with data = NULL (the simulator never touches memory). For each DAG, machine
// and policy, fw_runtime_simulation_report gives the makespan and the runtime's lower
// bound = max(cp, area, win) where
//   cp   = the critical path: each task at the earliest it could finish on each device
//          class, a successor's inputs moved between the classes over the accelerator's
//          link (latency + bytes / bandwidth; nothing within a class) (simulator.c: finish);
//   area = the work bound (sim_bound.c): one device class: total work / workers; two
//          classes (here: the 16 CPU cores and the 2 identical GPUs): the exact optimum
//          of splitting the work fractionally between the classes (tasks sorted by
//          relative speed, split at the point where both classes finish together);
//   win  = the window bound (sim_window.c): the work that must fall within time windows
//          [t1, makespan - t2], given each task's earliest start and least time to the end.
// This program recomputes cp and area from the DAG and its own copy of the device model,
// as a cross-check (a note is printed when they differ), and checks that no policy's
// makespan is below the bound (a WARNING, and the benchmark fails, if one is).
//
// Policies: eager, ws and heft as the runtime runs them for fw_task_submit tasks (rank 0:
// the runtime computes upward ranks only for compiled module calls, in
// fw_scheduler_release_held), and "+rank" variants where this program computes HEFT's
// upward rank (average run time over the workers + the largest rank of a successor, as
// fw_scheduler_release_held does) and passes it as fw_task_desc_t.priority.
#include "runtime_bench.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace rtbench {
namespace {

// ---- DAGs --------------------------------------------------------------------------

struct DagTask {
  const char *kernel;
  double flops;
  std::vector<std::pair<int, fw_access_t>> accesses; // buffer index, mode
};

struct Dag {
  std::string name;
  std::vector<std::vector<int64_t>> bufferDims; // f32
  std::vector<DagTask> tasks;
  std::vector<std::vector<int>> successors; // inferred as the runtime does

  int buffer(std::vector<int64_t> dims) {
    bufferDims.push_back(std::move(dims));
    return int(bufferDims.size()) - 1;
  }
  double bufferBytes(int b) const {
    double n = 4;
    for (int64_t d : bufferDims[b])
      n *= double(d);
    return n;
  }
  double taskBytes(const DagTask &t) const {
    double bytes = 0;
    for (auto &a : t.accesses)
      bytes += bufferBytes(a.first);
    return bytes;
  }

  // Sequential consistency per buffer, like scheduler.c's infer_dependencies: a read
  // follows the last writer; a write follows the readers since the last write, else the
  // last writer.
  void inferEdges() {
    successors.assign(tasks.size(), {});
    std::vector<int> lastWriter(bufferDims.size(), -1);
    std::vector<std::vector<int>> readers(bufferDims.size());
    auto edge = [&](int from, int to) {
      if (from < 0 || from == to)
        return;
      auto &s = successors[from];
      if (std::find(s.begin(), s.end(), to) == s.end())
        s.push_back(to);
    };
    for (int t = 0; t < int(tasks.size()); ++t) {
      for (auto &[b, mode] : tasks[t].accesses) {
        if (mode == FW_ACCESS_READ) {
          edge(lastWriter[b], t);
          readers[b].push_back(t);
          continue;
        }
        if (!readers[b].empty()) {
          for (int r : readers[b])
            edge(r, t);
          readers[b].clear();
        } else {
          edge(lastWriter[b], t);
        }
        lastWriter[b] = t;
      }
    }
  }
};

// Right-looking tiled Cholesky on the lower triangle of a T x T matrix of b x b tiles.
Dag cholesky(int T, int b) {
  Dag d;
  d.name = fmt("cholesky T=%d", T);
  std::vector<int> tile(size_t(T) * T, -1);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j)
      tile[size_t(i) * T + j] = d.buffer({b, b});
  auto A = [&](int i, int j) { return tile[size_t(i) * T + j]; };
  double b3 = double(b) * b * b;
  for (int k = 0; k < T; ++k) {
    d.tasks.push_back({"potrf", b3 / 3, {{A(k, k), FW_ACCESS_READ_WRITE}}});
    for (int i = k + 1; i < T; ++i)
      d.tasks.push_back({"trsm", b3, {{A(k, k), FW_ACCESS_READ}, {A(i, k), FW_ACCESS_READ_WRITE}}});
    for (int i = k + 1; i < T; ++i) {
      d.tasks.push_back({"syrk", b3, {{A(i, k), FW_ACCESS_READ}, {A(i, i), FW_ACCESS_READ_WRITE}}});
      for (int j = k + 1; j < i; ++j)
        d.tasks.push_back({"gemm",
                           2 * b3,
                           {{A(i, k), FW_ACCESS_READ},
                            {A(j, k), FW_ACCESS_READ},
                            {A(i, j), FW_ACCESS_READ_WRITE}}});
    }
  }
  d.inferEdges();
  return d;
}

// Layers of `width` tasks; each task of layer l > 0 reads 1-3 distinct outputs of layer
// l - 1 and writes its own output (1024 x 1024 f32, 4 MiB). Flops log-uniform in
// [1e8, 1e10]; kernels "dense" (50%), "mixed" (30%), "serial" (20%).
Dag layered(int layers, int width, uint64_t seed) {
  Dag d;
  d.name = fmt("random %dx%d s=%llu", layers, width, (unsigned long long)seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<int> previous;
  for (int l = 0; l < layers; ++l) {
    std::vector<int> outputs;
    for (int w = 0; w < width; ++w) {
      DagTask t;
      double k = u(rng);
      t.kernel = k < 0.5 ? "dense" : k < 0.8 ? "mixed" : "serial";
      t.flops = std::pow(10.0, 8.0 + 2.0 * u(rng));
      if (!previous.empty()) {
        int reads = 1 + int(u(rng) * 3);
        std::vector<int> pool = previous;
        std::shuffle(pool.begin(), pool.end(), rng);
        for (int r = 0; r < reads && r < int(pool.size()); ++r)
          t.accesses.push_back({pool[r], FW_ACCESS_READ});
      }
      int out = d.buffer({1024, 1024});
      t.accesses.push_back({out, FW_ACCESS_WRITE});
      outputs.push_back(out);
      d.tasks.push_back(std::move(t));
    }
    previous = outputs;
  }
  d.inferEdges();
  return d;
}

// ---- Machines ------------------------------------------------------------------------

const char *const kKernels[] = {"potrf", "trsm", "syrk", "gemm", "dense", "mixed", "serial"};
constexpr size_t kNumKernels = sizeof(kKernels) / sizeof(kKernels[0]);
// GPU speed factors on 1000 gflops: GEMM-like kernels near peak, POTRF and "serial" slower
// than one CPU core (50 gflops).
const double kGpuSpeeds[kNumKernels] = {0.02, 0.6, 0.8, 1.0, 1.0, 0.3, 0.02};

fw_sim_device_t cpu16() {
  fw_sim_device_t d = {};
  d.name = "cpu";
  d.kind = FW_TARGET_KIND_CPU;
  d.workers = 16;
  d.gflops = 50;
  d.memory_gbps = 10;
  d.task_overhead_us = 1;
  return d;
}

fw_sim_device_t gpu(const char *name, double linkGbps, uint64_t memoryMiB) {
  fw_sim_device_t d = {};
  d.name = name;
  d.kind = FW_TARGET_KIND_CUDA;
  d.workers = 1;
  d.gflops = 1000;
  d.memory_gbps = 2000;
  d.memory_bytes = memoryMiB << 20;
  d.link_gbps = linkGbps;
  d.link_latency_us = 10;
  d.task_overhead_us = 5;
  d.num_kernel_speeds = kNumKernels;
  d.kernel_names = kKernels;
  d.kernel_speeds = kGpuSpeeds;
  return d;
}

} // namespace

fw_runtime_t *simulatedRuntime(const fw_sim_machine_t &machine, fw_scheduler_kind_t policy,
                               bool traced) {
  fw_runtime_options_t o = {};
  o.scheduler = policy;
  o.simulate = &machine;
  if (traced)
    o.flags |= FW_RUNTIME_TRACE;
  fw_runtime_t *rt = nullptr;
  check(fw_runtime_create(&o, &rt), "creating a simulated runtime");
  return rt;
}

std::vector<Machine> machines(double linkGbps, uint64_t gpuMemoryMiB) {
  return {{"cpu16", {cpu16()}},
          {"cpu16+2gpu",
           {cpu16(), gpu("gpu0", linkGbps, gpuMemoryMiB), gpu("gpu1", linkGbps, gpuMemoryMiB)}}};
}

namespace {

// The simulator's run time of a task on a device (scheduler.c: fw_sim_task_seconds).
double seconds(const fw_sim_device_t &d, const char *kernel, double flops, double bytes) {
  double speed = 1;
  for (size_t i = 0; i < d.num_kernel_speeds; ++i)
    if (!std::strcmp(d.kernel_names[i], kernel))
      speed = d.kernel_speeds[i];
  double compute = d.gflops > 0 ? flops / (d.gflops * 1e9 * speed) : 0;
  double memory = d.memory_gbps > 0 ? bytes / (d.memory_gbps * 1e9 * speed) : 0;
  return std::max(compute, memory) + d.task_overhead_us * 1e-6;
}

// ---- Bounds and ranks ------------------------------------------------------------------

struct Bounds {
  double criticalPath = 0; // earliest finish per class, moves between classes counted
  double area = 0;         // optimal fractional CPU/GPU split of the work
};

Bounds bounds(const Dag &d, const Machine &m) {
  size_t n = d.tasks.size();
  std::vector<double> fastest(n), cpu(n), acc(n);
  double cpuWorkers = 0, accWorkers = 0;
  const fw_sim_device_t *cpuDev = nullptr, *accDev = nullptr;
  for (auto &dev : m.devices) {
    if (dev.kind == FW_TARGET_KIND_CPU) {
      cpuWorkers += dev.workers;
      cpuDev = &dev;
    } else {
      accWorkers += dev.workers; // the accelerators of a machine here are identical
      accDev = &dev;
    }
  }
  for (size_t t = 0; t < n; ++t) {
    const DagTask &k = d.tasks[t];
    double bytes = d.taskBytes(k);
    cpu[t] = cpuDev ? seconds(*cpuDev, k.kernel, k.flops, bytes) : INFINITY;
    acc[t] = accDev ? seconds(*accDev, k.kernel, k.flops, bytes) : INFINITY;
    fastest[t] = std::min(cpu[t], acc[t]);
  }
  Bounds b;
  // Critical path: per task and class (0: CPU, 1: accelerator) the earliest it could finish
  // there; what a task writes and its successor reads moves between the classes over the
  // accelerator's link (one hop; nothing within a class).
  std::vector<std::array<double, 2>> ready(n, {0.0, 0.0});
  auto hop = [&](double bytes) {
    double gbps = accDev && accDev->link_gbps > 0 ? accDev->link_gbps : 16.0;
    return accDev ? accDev->link_latency_us * 1e-6 + bytes / (gbps * 1e9) : 0.0;
  };
  for (size_t t = 0; t < n; ++t) {
    std::array<double, 2> finish = {ready[t][0] + cpu[t], ready[t][1] + acc[t]};
    b.criticalPath = std::max(b.criticalPath, std::min(finish[0], finish[1]));
    for (int s : d.successors[t]) {
      double bytes = 0;
      for (auto &[rb, rmode] : d.tasks[s].accesses)
        for (auto &[wb, wmode] : d.tasks[t].accesses)
          if (rb == wb && (rmode & FW_ACCESS_READ) && (wmode & FW_ACCESS_WRITE))
            bytes += d.bufferBytes(rb);
      double move = bytes > 0 ? hop(bytes) : 0;
      for (int c = 0; c < 2; ++c)
        ready[s][c] = std::max(ready[s][c], std::min(finish[c], finish[1 - c] + move));
    }
  }
  if (!accDev || !cpuDev) {
    double work = 0;
    for (size_t t = 0; t < n; ++t)
      work += fastest[t];
    b.area = work / double(m.workers());
    return b;
  }
  // Two classes: the accelerators take the tasks where they gain most.
  std::vector<size_t> order(n);
  for (size_t t = 0; t < n; ++t)
    order[t] = t;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return cpu[x] / acc[x] > cpu[y] / acc[y]; });
  double a = 0, c = 0;
  for (size_t t = 0; t < n; ++t)
    c += cpu[t] / cpuWorkers;
  b.area = c;
  for (size_t t : order) {
    double da = acc[t] / accWorkers, dc = cpu[t] / cpuWorkers;
    if (a + da <= c - dc) {
      a += da;
      c -= dc;
      b.area = c;
      continue;
    }
    double f = (c - a) / (da + dc); // the part of task t that balances the loads
    b.area = a + f * da;
    break;
  }
  return b;
}

// Upward ranks as fw_scheduler_release_held computes them: the average expected run
// time over every worker that can run the task plus the largest successor rank.
std::vector<double> upwardRanks(const Dag &d, const Machine &m) {
  size_t n = d.tasks.size();
  std::vector<double> rank(n, 0);
  for (size_t i = n; i-- > 0;) {
    const DagTask &k = d.tasks[i];
    double bytes = d.taskBytes(k), sum = 0;
    size_t workers = 0;
    for (auto &dev : m.devices) {
      sum += dev.workers * seconds(dev, k.kernel, k.flops, bytes);
      workers += dev.workers;
    }
    double longest = 0;
    for (int s : d.successors[i])
      longest = std::max(longest, rank[s]);
    rank[i] = sum / double(workers) + longest;
  }
  return rank;
}

// ---- Simulation ----------------------------------------------------------------------

struct SimResult {
  fw_sim_report_t report = {};
  uint64_t accTasks = 0;   // tasks run by non-CPU devices
  double accBusy = 0;      // their busy fraction of the makespan
  double h2dMiB = 0, d2hMiB = 0;
  uint64_t plans = 0;      // heft: plans made (fw_runtime_stats_t.plans_made)
  double planningMs = 0;   // the host's wall time making them
};

SimResult simulate(const Dag &d, const Machine &m, fw_scheduler_kind_t policy,
                   const std::vector<double> *ranks, const std::string &tracePath) {
  fw_sim_machine_t sm = m.machine();
  fw_runtime_t *rt = simulatedRuntime(sm, policy, !tracePath.empty());
  std::vector<fw_buffer_t *> buffers;
  for (auto &dims : d.bufferDims) {
    fw_buffer_t *b = nullptr;
    check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, dims.size(), dims.data(), nullptr, 0, &b),
          "creating a buffer");
    buffers.push_back(b);
  }
  double maxRank = 0;
  if (ranks)
    for (double r : *ranks)
      maxRank = std::max(maxRank, r);
  std::vector<fw_task_access_t> acc;
  for (size_t t = 0; t < d.tasks.size(); ++t) {
    const DagTask &k = d.tasks[t];
    acc.clear();
    for (auto &[b, mode] : k.accesses)
      acc.push_back({buffers[b], mode});
    fw_task_desc_t desc = {};
    desc.name = k.kernel;
    desc.accesses = acc.data();
    desc.num_accesses = acc.size();
    desc.flops = k.flops;
    if (ranks && maxRank > 0) // 1 .. 2^30, larger first
      desc.priority = 1 + int32_t(std::lround((*ranks)[t] / maxRank * double(1 << 30)));
    check(fw_task_submit(rt, &desc, nullptr), "fw_task_submit");
  }
  SimResult r;
  check(fw_runtime_simulation_report(rt, &r.report), "fw_runtime_simulation_report");
  fw_status_t waited = fw_runtime_wait_all(rt);
  check(waited, "fw_runtime_wait_all");
  if (!tracePath.empty())
    check(fw_runtime_write_trace(rt, tracePath.c_str()), "fw_runtime_write_trace");
  fw_runtime_stats_t st;
  check(fw_runtime_get_stats(rt, &st), "fw_runtime_get_stats");
  for (size_t i = 0; i < st.num_devices; ++i)
    if (std::strcmp(st.devices[i].name, "cpu") != 0) {
      r.accTasks += st.devices[i].tasks;
      r.accBusy += st.devices[i].busy_seconds;
    }
  size_t accWorkers = 0;
  for (auto &dev : m.devices)
    if (dev.kind != FW_TARGET_KIND_CPU)
      accWorkers += dev.workers;
  if (accWorkers && r.report.makespan_seconds > 0)
    r.accBusy /= double(accWorkers) * r.report.makespan_seconds;
  r.plans = st.plans_made;
  r.planningMs = st.planning_seconds * 1e3;
  r.h2dMiB = double(st.bytes_moved[FW_TIER_HOST][FW_TIER_DEVICE]) / (1 << 20);
  r.d2hMiB = double(st.bytes_moved[FW_TIER_DEVICE][FW_TIER_HOST]) / (1 << 20);
  for (fw_buffer_t *b : buffers)
    fw_buffer_release(b);
  fw_runtime_destroy(rt);
  if (r.report.tasks != d.tasks.size()) {
    std::printf("FAILED: %s on %s: %llu of %zu tasks simulated\n", d.name.c_str(),
                m.name.c_str(), (unsigned long long)r.report.tasks, d.tasks.size());
    r.report.tasks = UINT64_MAX;
  }
  return r;
}

// A JSON number; null for a value that is not finite.
std::string jsonNumber(double x) { return std::isfinite(x) ? fmt("%.17g", x) : "null"; }

// What bench/sched/optimal.py needs to schedule the DAG itself: per task its run time on
// a CPU core and on an accelerator (absent when the machine has no such device) and its
// accesses; the classes' worker counts and the link hop; the runtime's bounds and each
// policy's makespan. Like bounds(), it takes the machine's accelerators to be identical.
void writeDag(const std::string &dir, const Dag &d, const Machine &m,
              const fw_sim_report_t &report,
              const std::vector<std::pair<std::string, double>> &makespans) {
  std::string file = d.name + "-" + m.name + ".json";
  for (char &c : file)
    if (c == ' ' || c == '=' || c == '+')
      c = '_';
  std::string path = dir + "/" + file;
  FILE *out = std::fopen(path.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "fw-runtime-bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  const fw_sim_device_t *cpuDev = nullptr, *accDev = nullptr;
  size_t cpuWorkers = 0, accelerators = 0;
  for (auto &dev : m.devices) {
    if (dev.kind == FW_TARGET_KIND_CPU) {
      cpuDev = &dev;
      cpuWorkers += dev.workers;
    } else {
      accDev = &dev;
      accelerators += dev.workers;
    }
  }
  double gbps = accDev && accDev->link_gbps > 0 ? accDev->link_gbps : 16.0;
  std::fprintf(out, "{\"dag\": \"%s\", \"machine\": \"%s\",\n", d.name.c_str(), m.name.c_str());
  std::fprintf(out, " \"cpu_workers\": %zu, \"accelerators\": %zu,\n", cpuWorkers,
               accelerators);
  std::fprintf(out, " \"hop_latency_s\": %s, \"hop_bytes_per_s\": %s,\n",
               jsonNumber(accDev ? accDev->link_latency_us * 1e-6 : 0.0).c_str(),
               jsonNumber(gbps * 1e9).c_str());
  std::fprintf(out,
               " \"critical_path_s\": %s, \"area_s\": %s, \"window_s\": %s,"
               " \"bound_s\": %s,\n",
               jsonNumber(report.critical_path_seconds).c_str(),
               jsonNumber(report.work_bound_seconds).c_str(),
               jsonNumber(report.window_bound_seconds).c_str(),
               jsonNumber(report.lower_bound_seconds).c_str());
  std::fprintf(out, " \"makespan_s\": {");
  for (size_t i = 0; i < makespans.size(); ++i)
    std::fprintf(out, "%s\"%s\": %s", i ? ", " : "", makespans[i].first.c_str(),
                 jsonNumber(makespans[i].second).c_str());
  std::fprintf(out, "},\n \"buffer_bytes\": [");
  for (size_t b = 0; b < d.bufferDims.size(); ++b)
    std::fprintf(out, "%s%s", b ? ", " : "", jsonNumber(d.bufferBytes(int(b))).c_str());
  std::fprintf(out, "],\n \"tasks\": [\n");
  for (size_t t = 0; t < d.tasks.size(); ++t) {
    const DagTask &k = d.tasks[t];
    double bytes = d.taskBytes(k);
    std::fprintf(out, "  {\"kernel\": \"%s\"", k.kernel);
    if (cpuDev)
      std::fprintf(out, ", \"cpu_s\": %s",
                   jsonNumber(seconds(*cpuDev, k.kernel, k.flops, bytes)).c_str());
    if (accDev)
      std::fprintf(out, ", \"accelerator_s\": %s",
                   jsonNumber(seconds(*accDev, k.kernel, k.flops, bytes)).c_str());
    std::fprintf(out, ", \"accesses\": [");
    for (size_t a = 0; a < k.accesses.size(); ++a) {
      fw_access_t mode = k.accesses[a].second;
      std::fprintf(out, "%s[%d, \"%s\"]", a ? ", " : "", k.accesses[a].first,
                   mode == FW_ACCESS_READ ? "r" : mode == FW_ACCESS_WRITE ? "w" : "rw");
    }
    std::fprintf(out, "]}%s\n", t + 1 < d.tasks.size() ? "," : "");
  }
  std::fprintf(out, " ]}\n");
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "fw-runtime-bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

struct Variant {
  const char *name;
  fw_scheduler_kind_t policy;
  bool ranks;
};

} // namespace

bool runSched(const Options &opt) {
  std::vector<Dag> dags;
  for (int T : opt.choleskyTiles)
    dags.push_back(cholesky(T, opt.tile));
  for (int w : opt.widths)
    for (uint64_t s : opt.seeds)
      dags.push_back(layered(opt.layers, w, s));
  std::vector<Machine> ms = machines(opt.linkGbps, opt.gpuMemoryMiB);
  const Variant variants[] = {{"eager", FW_SCHEDULER_EAGER, false},
                              {"eager+rank", FW_SCHEDULER_EAGER, true},
                              {"ws", FW_SCHEDULER_WS, false},
                              {"heft", FW_SCHEDULER_HEFT, false},
                              {"heft+rank", FW_SCHEDULER_HEFT, true}};

  unsigned long long mib = opt.gpuMemoryMiB;
  std::string gpuMemory = mib % 1024 ? fmt("%llu MiB", mib) : fmt("%llu GiB", mib >> 10);
  std::printf("== sched: simulated makespans (virtual time), Cholesky tile b=%d "
              "(POTRF b^3/3, TRSM b^3, SYRK b^3, GEMM 2b^3 flops)\n",
              opt.tile);
  std::printf("machines: cpu16 = 16 workers x 50 gflops, 10 GB/s, 1 us/task;\n"
              "          cpu16+2gpu = cpu16 + 2 CUDA devices x 1 worker, 1000 gflops x kernel "
              "speed (potrf 0.02, trsm 0.6, syrk 0.8, gemm 1, dense 1, mixed 0.3, serial 0.02),\n"
              "          2000 GB/s, %s, link %g GB/s + 10 us, 5 us/task\n",
              gpuMemory.c_str(),
              opt.linkGbps);
  std::printf("from fw_runtime_simulation_report: cp = critical path (each task's earliest "
              "finish per device class, moves between classes over the link), area = work bound (exact fractional CPU/GPU split),\n"
              "win = work in time windows (each window's work from the tasks' earliest starts and least times to the end), "
              "bound = max(cp, area, win); x bound = makespan / bound; "
              "vs eager = eager's makespan / this makespan (> 1: faster than eager)\n");
  std::printf("+rank: upward ranks computed here, passed as fw_task_desc_t.priority; "
              "without: priority 0 (rank 0 for fw_task_submit tasks)\n");
  std::printf("plans, plan ms: heft's plans of the batch and the wall time this host took to "
              "make them (fw_runtime_stats_t; not in the virtual time)\n\n");

  bool ok = true;
  Table table({"dag", "machine", "policy", "tasks", "makespan ms", "cp ms", "area ms",
               "win ms", "bound ms", "x bound", "vs eager", "gpu tasks", "gpu busy", "h2d MiB",
               "plans", "plan ms"},
              3);
  struct Summary {
    std::string what;
    double heft, heftRank, bound, eager;
  };
  std::vector<Summary> summary;
  for (const Dag &d : dags) {
    for (const Machine &m : ms) {
      std::vector<double> ranks = upwardRanks(d, m);
      Bounds own = bounds(d, m);
      Summary sum{d.name + " / " + m.name, 0, 0, 0, 0};
      std::vector<std::pair<std::string, double>> makespans;
      fw_sim_report_t report = {};
      for (const Variant &v : variants) {
        std::string trace;
        if (!opt.traceDir.empty()) {
          std::string file = d.name + "-" + m.name + "-" + v.name + ".json";
          for (char &c : file)
            if (c == ' ' || c == '=')
              c = '_';
          trace = opt.traceDir + "/" + file;
        }
        SimResult r = simulate(d, m, v.policy, v.ranks ? &ranks : nullptr, trace);
        if (r.report.tasks == UINT64_MAX) {
          ok = false;
          continue;
        }
        double ms_ = r.report.makespan_seconds * 1e3;
        makespans.push_back({v.name, r.report.makespan_seconds});
        report = r.report;
        double bound = r.report.lower_bound_seconds * 1e3;
        auto differs = [](double x, double y) { return std::fabs(x - y) > 1e-9 + 1e-6 * x; };
        if (differs(own.criticalPath, r.report.critical_path_seconds) ||
            differs(own.area, r.report.work_bound_seconds))
          std::printf("note: %s on %s, %s: cp %.6f s / area %.6f s here, %.6f s / %.6f s "
                      "from the runtime\n",
                      d.name.c_str(), m.name.c_str(), v.name, own.criticalPath, own.area,
                      r.report.critical_path_seconds, r.report.work_bound_seconds);
        if (r.report.lower_bound_seconds > r.report.makespan_seconds * (1 + 1e-9)) {
          std::printf("WARNING: %s on %s, %s: the runtime's lower bound %.6f s is above the "
                      "makespan %.6f s\n",
                      d.name.c_str(), m.name.c_str(), v.name, r.report.lower_bound_seconds,
                      r.report.makespan_seconds);
          ok = false;
        }
        if (!std::strcmp(v.name, "eager"))
          sum.eager = ms_;
        if (!std::strcmp(v.name, "heft"))
          sum.heft = ms_;
        if (!std::strcmp(v.name, "heft+rank"))
          sum.heftRank = ms_;
        sum.bound = bound;
        bool hetero = m.devices.size() > 1;
        table.row({d.name, m.name, v.name, fmt("%llu", (unsigned long long)r.report.tasks),
                   fmt("%.1f", ms_), fmt("%.1f", r.report.critical_path_seconds * 1e3),
                   fmt("%.1f", r.report.work_bound_seconds * 1e3),
                   fmt("%.1f", r.report.window_bound_seconds * 1e3), fmt("%.1f", bound),
                   fmt("%.3f", ms_ / bound),
                   fmt("%.2f", sum.eager / ms_), hetero ? fmt("%llu", (unsigned long long)r.accTasks) : "-",
                   hetero ? fmt("%.0f%%", r.accBusy * 100) : "-",
                   hetero ? fmt("%.0f", r.h2dMiB) : "-",
                   r.plans ? fmt("%llu", (unsigned long long)r.plans) : "-",
                   r.plans ? fmt("%.2f", r.planningMs) : "-"});
      }
      table.separator();
      summary.push_back(sum);
      if (!opt.dagDir.empty() && !makespans.empty()) // not when every simulation failed
        writeDag(opt.dagDir, d, m, report, makespans);
    }
  }
  table.print();

  std::printf("\nsummary: target heft <= 1.15 x bound (the runtime's) and faster than eager "
              "(\"tie\": eager and heft both at the bound)\n");
  Table s({"dag / machine", "heft x bound", "vs eager", "target", "heft+rank x bound",
           "vs eager", "target"});
  for (auto &x : summary) {
    auto verdict = [&](double h) {
      bool atBound = h <= 1.15 * x.bound;
      bool tie = h <= 1.001 * x.bound && x.eager <= 1.001 * x.bound;
      bool faster = h < x.eager * (1 - 1e-9);
      if (!atBound)
        return std::string(faster ? "MISSED (bound)" : "MISSED (bound, eager)");
      if (faster)
        return std::string("met");
      return std::string(tie ? "met (tie)" : "MISSED (eager)");
    };
    s.row({x.what, fmt("%.3f", x.heft / x.bound), fmt("%.2f", x.eager / x.heft), verdict(x.heft),
           fmt("%.3f", x.heftRank / x.bound), fmt("%.2f", x.eager / x.heftRank),
           verdict(x.heftRank)});
  }
  s.print();
  std::puts("");
  return ok;
}

} // namespace rtbench
