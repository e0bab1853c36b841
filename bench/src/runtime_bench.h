// fw-runtime-bench: shared pieces of the runtime benchmarks (runtime_bench*.cpp).
#ifndef FW_BENCH_RUNTIME_BENCH_H_
#define FW_BENCH_RUNTIME_BENCH_H_

#include <fw/runtime.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace rtbench {

struct Options {
  bool overhead = true, sched = true, tiers = true, reduce = true;
  int reps = 3;               // repetitions (best of) for the timed parts
  size_t tasks = 200000;      // overhead: tasks per measurement
  size_t rounds = 1;          // overhead: the tasks in this many waits on one runtime
  std::string roundWait = "all"; // overhead: how a round is waited for: all, task, map, run
  unsigned roundGapUs = 0;       // overhead: the caller sleeps this long between rounds
  std::string devices = "cpu";   // overhead: the device kinds in service (FW_DEVICES)
  std::vector<int> workers = {1, 2};
  std::vector<fw_scheduler_kind_t> policies = {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS,
                                               FW_SCHEDULER_HEFT}; // overhead
  std::vector<std::string> overheadCases = {"independent", "chain", "buffers"};
  int tile = 512;             // sched: Cholesky tile size b
  std::vector<int> choleskyTiles = {8, 16, 24};
  std::vector<uint64_t> seeds = {1, 2, 3}; // sched: random layered DAGs
  int layers = 20;
  std::vector<int> widths = {20, 60};     // sched: random layered DAG widths
  double linkGbps = 25;                   // sched: the GPUs' link bandwidth
  uint64_t gpuMemoryMiB = 16 << 10;       // sched: each GPU's memory
  std::string traceDir;                   // sched: write a Chrome trace per simulation
  std::string dagDir;                     // sched: write each DAG, machine and result as JSON
  double reduceSimMiB = 16;               // sched: the simulated reductions' sums
  size_t tierBuffers = 64;     // tiers: buffers of tierBufferMiB each
  size_t tierBufferMiB = 4;
  const char *tierLimit = "host=64MiB";
  int sweeps = 8;
  int passes = 0;              // tiers: compute passes per task; 0: calibrate
  double computeRatio = 1.0;   // tiers: calibrated compute time / time to read a buffer
  int tierWorkers = 2;
  uint32_t prefetchWindow = 0; // 0: the runtime's default
  bool resultBuffers = false;  // tiers: results in runtime buffers (read-write, chained)
  bool idleCompute = false;    // tiers: one pass, then sleep out the rest of the compute
  std::vector<double> reduceMiB = {0.5, 4}; // reduce: buffer sizes
  int reduceParts = 2;         // reduce: contributions per worker
  const char *reduceTierLimits = nullptr; // reduce: tier limits (nullptr: none)
};

// Exits with a message when `status` is an error (frees it).
void check(fw_status_t status, const std::string &what);

inline double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char *policyName(fw_scheduler_kind_t kind);
// Whether the overhead part has a case of that name (independent, chain, buffers).
bool isOverheadCase(const std::string &name);

// A plain-text table: columns right-aligned except the first ones marked left.
class Table {
public:
  explicit Table(std::vector<std::string> header, size_t leftColumns = 1)
      : header_(std::move(header)), left_(leftColumns) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void separator() { rows_.push_back({}); }
  void print() const;

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  size_t left_;
};

std::string fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));

// The simulated machines of the sched parts: "cpu16" (16 CPU workers of 50 GFLOP/s) and
// "cpu16+2gpu" (the same and two CUDA GPUs of 1000 GFLOP/s times a per-kernel speed, on
// links of `linkGbps`; runtime_bench_sched.cpp).
struct Machine {
  std::string name;
  std::vector<fw_sim_device_t> devices;
  fw_sim_machine_t machine() const { return {devices.size(), devices.data()}; }
  size_t workers() const {
    size_t n = 0;
    for (auto &d : devices)
      n += d.workers;
    return n;
  }
};
std::vector<Machine> machines(double linkGbps, uint64_t gpuMemoryMiB);
// A runtime simulating `machine` (which must outlive it) under `policy`, tracing when
// `traced`.
fw_runtime_t *simulatedRuntime(const fw_sim_machine_t &machine, fw_scheduler_kind_t policy,
                               bool traced);

// The four parts; each returns false when a result was wrong (not when a target is
// missed: targets are reported, not enforced).
bool runOverhead(const Options &opt);
bool runSched(const Options &opt);
// Reductions in simulation (runtime_bench_sched_reduce.cpp), with the sched part.
bool runSchedReduce(const Options &opt);
bool runTiers(const Options &opt);
bool runReduce(const Options &opt);

} // namespace rtbench

#endif // FW_BENCH_RUNTIME_BENCH_H_
