// Part "sched", reductions: a split-K product in the virtual-time simulator, on the machines
// of the sched part. R sums (f32 buffers of --reduce-sim-mib) of P contributions each
// (FW_ACCESS_REDUCE; kernel "gemm", 2 GFLOP, each reading an input of its own of 4 MiB),
// then a reader per sum. Three ways to submit the same work: the contributions with a CPU
// implementation alone (as reductions had to be before they ran on GPUs), with CPU and GPU
// implementations (each GPU worker then has an accumulator in its memory, brought back to
// host memory over its link to be combined), and the same updates as commutative ones
// (FW_ACCESS_READ_WRITE_COMMUTE, one at a time per buffer, wherever it is). Reported per
// machine, way and policy: the makespan against the runtime's lower bound, the tasks the
// GPUs ran, and the speed-up over the CPU-only contributions under the same policy.
#include "runtime_bench.h"

#include <cstdio>
#include <cstring>

namespace rtbench {
namespace {

constexpr int kSums = 4, kParts = 32;
constexpr double kPartFlops = 2e9;
const int64_t kInputDims[2] = {1024, 1024}; // 4 MiB of f32

void noBody(void *, void *const *, size_t) {}
fw_status_t noKernel(void *, void *const *, size_t, void *) { return FW_OK; }

struct Way {
  const char *name;
  fw_access_t mode;
  bool gpu; // with a GPU implementation
};

struct Outcome {
  fw_sim_report_t report = {};
  uint64_t gpuTasks = 0, submitted = 0;
};

Outcome simulate(const Machine &m, const Way &way, fw_scheduler_kind_t policy, double sumMiB,
                 const std::string &tracePath) {
  fw_sim_machine_t sm = m.machine();
  fw_runtime_t *rt = simulatedRuntime(sm, policy, !tracePath.empty());
  const int64_t sumElements = int64_t(sumMiB * (1 << 20) / 4);
  std::vector<fw_buffer_t *> buffers;
  auto buffer = [&](size_t rank, const int64_t *dims) {
    fw_buffer_t *b = nullptr;
    check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, rank, dims, nullptr, 0, &b),
          "creating a buffer");
    buffers.push_back(b);
    return b;
  };
  Outcome out;
  for (int r = 0; r < kSums; ++r) {
    fw_buffer_t *sum = buffer(1, &sumElements);
    check(fw_buffer_set_reduction_op(sum, FW_REDUCTION_SUM), "setting the reduction");
    for (int p = 0; p < kParts; ++p) {
      fw_task_access_t acc[2] = {{buffer(2, kInputDims), FW_ACCESS_READ}, {sum, way.mode}};
      fw_task_desc_t d = {};
      d.name = "gemm";
      d.fn = noBody;
      d.cuda_fn = way.gpu ? noKernel : nullptr;
      d.accesses = acc;
      d.num_accesses = 2;
      d.flops = kPartFlops;
      check(fw_task_submit(rt, &d, nullptr), "fw_task_submit");
      ++out.submitted;
    }
    fw_task_access_t read = {sum, FW_ACCESS_READ};
    fw_task_desc_t d = {};
    d.name = "dense";
    d.fn = noBody;
    d.accesses = &read;
    d.num_accesses = 1;
    d.flops = 1e7;
    check(fw_task_submit(rt, &d, nullptr), "fw_task_submit");
    ++out.submitted;
  }
  check(fw_runtime_simulation_report(rt, &out.report), "fw_runtime_simulation_report");
  check(fw_runtime_wait_all(rt), "fw_runtime_wait_all");
  if (!tracePath.empty())
    check(fw_runtime_write_trace(rt, tracePath.c_str()), "fw_runtime_write_trace");
  fw_runtime_stats_t st;
  check(fw_runtime_get_stats(rt, &st), "fw_runtime_get_stats");
  for (size_t i = 0; i < st.num_devices; ++i)
    if (std::strcmp(st.devices[i].name, "cpu") != 0)
      out.gpuTasks += st.devices[i].tasks;
  for (fw_buffer_t *b : buffers)
    fw_buffer_release(b);
  fw_runtime_destroy(rt);
  return out;
}

} // namespace

bool runSchedReduce(const Options &opt) {
  const Way ways[] = {{"reduce, CPU only", FW_ACCESS_REDUCE, false},
                      {"reduce, CPU+GPU", FW_ACCESS_REDUCE, true},
                      {"commute, CPU+GPU", FW_ACCESS_READ_WRITE_COMMUTE, true}};
  const fw_scheduler_kind_t policies[] = {FW_SCHEDULER_EAGER, FW_SCHEDULER_HEFT};
  std::printf("== sched, reductions: %d sums of %g MiB (f32), %d contributions each (gemm, "
              "%.0f GFLOP, an input of 4 MiB each), then a reader per sum; the machines "
              "above (link %g GB/s)\n",
              kSums, opt.reduceSimMiB, kParts, kPartFlops / 1e9, opt.linkGbps);
  std::printf("ways: the contributions with a CPU implementation alone, with CPU and GPU "
              "implementations (an accumulator per GPU), or as commutative updates (one at a "
              "time per sum); vs CPU only = the CPU-only way's makespan / this one, same "
              "policy\n\n");
  bool ok = true;
  Table table({"machine", "way", "policy", "tasks", "makespan ms", "bound ms", "x bound",
               "gpu tasks", "vs CPU only"},
              3);
  for (const Machine &m : machines(opt.linkGbps, opt.gpuMemoryMiB)) {
    for (fw_scheduler_kind_t policy : policies) {
      double cpuOnly = 0;
      for (const Way &way : ways) {
        std::string trace;
        if (!opt.traceDir.empty()) {
          trace = fmt("%s/reduce_%gMiB-%s-%s-%s.json", opt.traceDir.c_str(), opt.reduceSimMiB,
                      m.name.c_str(), way.name, policyName(policy));
          for (size_t i = opt.traceDir.size() + 1; i < trace.size(); ++i)
            if (trace[i] == ' ' || trace[i] == ',')
              trace[i] = '_';
        }
        Outcome r = simulate(m, way, policy, opt.reduceSimMiB, trace);
        double makespan = r.report.makespan_seconds, bound = r.report.lower_bound_seconds;
        if (!std::strcmp(way.name, "reduce, CPU only"))
          cpuOnly = makespan;
        if (r.report.tasks < r.submitted) {
          std::printf("FAILED: %s, %s, %s: %llu of %llu tasks simulated\n", m.name.c_str(),
                      way.name, policyName(policy), (unsigned long long)r.report.tasks,
                      (unsigned long long)r.submitted);
          ok = false;
        }
        if (bound > makespan * (1 + 1e-9)) {
          std::printf("WARNING: %s, %s, %s: the lower bound %.6f s is above the makespan "
                      "%.6f s\n",
                      m.name.c_str(), way.name, policyName(policy), bound, makespan);
          ok = false;
        }
        table.row({m.name, way.name, policyName(policy),
                   fmt("%llu", (unsigned long long)r.report.tasks), fmt("%.1f", makespan * 1e3),
                   fmt("%.1f", bound * 1e3), fmt("%.3f", makespan / bound),
                   fmt("%llu", (unsigned long long)r.gpuTasks), fmt("%.2f", cpuOnly / makespan)});
      }
      table.separator();
    }
  }
  table.print();
  std::puts("");
  return ok;
}

} // namespace rtbench
