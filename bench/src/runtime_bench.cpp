// fw-runtime-bench: benchmarks of the runtime's task graph through its public C API
// (fw/runtime.h), without compiled modules.
//
//   overhead  per-task cost of fw_task_submit + scheduling + completion for empty C tasks
//             (runtime_bench_overhead.cpp)
//   sched     scheduling quality of eager / ws / heft on standard DAGs in the virtual-time
//             simulator, against lower bounds (runtime_bench_sched.cpp); reductions with
//             their contributions on the CPU only or on the GPUs too
//             (runtime_bench_sched_reduce.cpp)
//   tiers     a working set 4x the host tier's limit, swept by real tasks, with prefetch on
//             and off (runtime_bench_tiers.cpp)
//   reduce    combining a reduction's accumulators (FW_ACCESS_REDUCE) against folding them
//             one after another in plain C (runtime_bench_reduce.cpp)
//
// Usage: fw-runtime-bench [--only=overhead|sched|tiers|reduce[,...]] [options]; --help lists
// them.
// Exit status 1 when a result is wrong (a failed task, a wrong sum, data that changed);
// missed performance targets are reported in the tables, not in the exit status.

#include "runtime_bench.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace rtbench {

void check(fw_status_t status, const std::string &what) {
  if (status == FW_OK)
    return;
  std::fflush(stdout);
  std::fprintf(stderr, "fw-runtime-bench: %s: %s (%s)\n", what.c_str(), fw_status_message(status),
               fw_status_code_name(fw_status_code(status)));
  fw_status_free(status);
  std::exit(1);
}

const char *policyName(fw_scheduler_kind_t kind) {
  switch (kind) {
  case FW_SCHEDULER_EAGER:
    return "eager";
  case FW_SCHEDULER_WS:
    return "ws";
  case FW_SCHEDULER_HEFT:
    return "heft";
  default:
    return "default";
  }
}

std::string fmt(const char *format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

void Table::print() const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c)
    width[c] = header_[c].size();
  for (const auto &r : rows_)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string> &cells) {
    std::string out;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string &s = c < cells.size() ? cells[c] : std::string();
      std::string pad(width[c] - s.size(), ' ');
      if (c)
        out += "  ";
      out += c < left_ ? s + pad : pad + s;
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    std::puts(out.c_str());
  };
  line(header_);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c)
    total += width[c] + (c ? 2 : 0);
  std::string rule(total, '-');
  std::puts(rule.c_str());
  for (const auto &r : rows_) {
    if (r.empty())
      std::puts("");
    else
      line(r);
  }
}

} // namespace rtbench

namespace {

void usage() {
  std::puts(
      "usage: fw-runtime-bench [--only=overhead|sched|tiers|reduce[,...]] [options]\n"
      "  --only=PARTS        comma-separated parts to run (default: all four)\n"
      "  --reps=N            repetitions, best of N (overhead, tiers, reduce; default 3)\n"
      "  --trace-dir=DIR     write a Chrome trace of every simulation (sched) and tiers run\n"
      "                      into DIR (an existing directory)\n"
      "  --dag-dir=DIR       sched: write each DAG on each machine, with its run times per\n"
      "                      device class and the policies' makespans, as JSON into DIR\n"
      "                      (the input of bench/sched/optimal.py)\n"
      "overhead:\n"
      "  --tasks=N           empty tasks per measurement (default 200000)\n"
      "  --rounds=R          submit them in R rounds of tasks/R, fw_runtime_wait_all after each\n"
      "                      (a program calling the runtime again and again; default 1)\n"
      "  --round-wait=W      how a round is waited for: all (fw_runtime_wait_all, default),\n"
      "                      task (fw_task_wait on its last task), map (fw_buffer_map of the\n"
      "                      buffer its last task writes: cases chain and buffers), run (its\n"
      "                      last task through fw_task_run: submitted and waited for at once)\n"
      "  --round-gap-us=G    the caller sleeps G us between rounds, not counted (calls that\n"
      "                      come apart, finding the workers asleep once G exceeds FW_SPIN_US)\n"
      "  --workers=A,B       CPU worker counts (default 1,2; reduce too)\n"
      "  --policies=P,...    scheduling policies among eager, ws, heft (default: all three;\n"
      "                      reduce too)\n"
      "  --cases=C,...       among independent, chain, buffers (default: those three), and\n"
      "                      after (a chain of control edges, fw_task_desc_t.after),\n"
      "                      commute (one group of commutative updates of one buffer) and\n"
      "                      reduce (contributions to a sum of one buffer, FW_ACCESS_REDUCE)\n"
      "  --devices=K,...     device kinds in service (FW_DEVICES; default cpu): the tasks run\n"
      "                      on the CPU, cpu,cuda measures them with a GPU worker in service\n"
      "sched (simulated):\n"
      "  --tile=B            Cholesky tile size (default 512)\n"
      "  --cholesky=T,...    tile counts (default 8,16,24)\n"
      "  --seeds=S,...       random layered DAG seeds (default 1,2,3)\n"
      "  --layers=L          random DAG layers (default 20)\n"
      "  --widths=W,...      random DAG tasks per layer (default 20,60)\n"
      "  --link-gbps=G       the simulated GPUs' link bandwidth in GB/s (default 25)\n"
      "  --gpu-memory-mib=M  the simulated GPUs' memory in MiB (default 16384)\n"
      "  --reduce-sim-mib=M  the simulated reductions' sums in MiB (default 16)\n"

      "tiers (real tasks, a storage directory under $TMPDIR or /tmp):\n"
      "  --buffers=N         buffers in the working set (default 64)\n"
      "  --buffer-mib=M      MiB per buffer (default 4)\n"
      "  --tier-limits=S     the host tier's limit (default host=64MiB)\n"
      "  --sweeps=N          sweeps over the working set (default 8)\n"
      "  --passes=N          compute passes over each buffer per task (default: calibrated)\n"
      "  --compute-ratio=R   calibrate the passes so that a task computes R times as long as\n"
      "                      reading its buffer's file takes (default 1)\n"
      "  --tier-workers=N    CPU workers (default 2)\n"
      "  --prefetch-window=N the runtime's lookahead window (default: the runtime's, 16)\n"
      "  --result-buffers    write each sum into slot `sweep` of a small f64 runtime buffer per\n"
      "                      data buffer (read-write: chains the sweeps of a buffer) instead of\n"
      "                      into memory the benchmark owns (independent tasks)\n"
      "  --idle-compute      a task computes one pass (its checked result) and sleeps out the\n"
      "                      rest of its compute time: its worker is as busy, a core is not\n"
      "                      (more workers than cores behave as on a machine with more cores)\n"
      "reduce (real tasks):\n"
      "  --reduce-mib=M,...  buffer sizes in MiB (default 0.5,4)\n"
      "  --reduce-parts=N    contributions per worker (default 2)\n"
      "  --reduce-tier-limits=S  tier limits for the reductions (e.g. host=64MiB: the\n"
      "                      accumulators spill to the storage tier; the first contributions\n"
      "                      then do not wait for each other; default none)");
}

// The non-empty items of a comma-separated list.
std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

template <typename T> std::vector<T> parseList(const std::string &text) {
  std::vector<T> out;
  for (const std::string &item : splitList(text))
    out.push_back(static_cast<T>(std::strtoull(item.c_str(), nullptr, 10)));
  return out;
}

// The names of a list option (at least one, each one `known` accepts), or a message
// and the usage.
bool nameList(const std::string &key, const std::string &value, const char *what,
              bool (*known)(const std::string &), std::vector<std::string> *out) {
  std::vector<std::string> names = splitList(value);
  if (names.empty()) {
    std::fprintf(stderr, "fw-runtime-bench: %s needs at least one %s\n", key.c_str(), what);
    usage();
    return false;
  }
  for (const std::string &name : names)
    if (!known(name)) {
      std::fprintf(stderr, "fw-runtime-bench: unknown %s '%s'\n", what, name.c_str());
      usage();
      return false;
    }
  *out = std::move(names);
  return true;
}

// The policy policyName() calls `name`; FW_SCHEDULER_DEFAULT when none does.
fw_scheduler_kind_t policyByName(const std::string &name) {
  for (fw_scheduler_kind_t kind : {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT})
    if (name == rtbench::policyName(kind))
      return kind;
  return FW_SCHEDULER_DEFAULT;
}

bool isPolicy(const std::string &name) { return policyByName(name) != FW_SCHEDULER_DEFAULT; }

} // namespace

int main(int argc, char **argv) {
  // A line at a time, also into a pipe: a run stopped at a time limit keeps what it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  rtbench::Options opt;
  static std::string tierLimits;
  static std::string reduceTierLimits;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--result-buffers") { // the flags without a value
      opt.resultBuffers = true;
      continue;
    }
    if (a == "--idle-compute") {
      opt.idleCompute = true;
      continue;
    }
    std::string key = a, value;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      key = a.substr(0, eq);
      value = a.substr(eq + 1);
    } else if (a != "-h" && a != "--help" && i + 1 < argc) {
      value = argv[++i];
    }
    if (key == "--only") {
      opt.overhead = opt.sched = opt.tiers = opt.reduce = false;
      std::stringstream ss(value);
      std::string part;
      while (std::getline(ss, part, ',')) {
        if (part == "overhead")
          opt.overhead = true;
        else if (part == "sched")
          opt.sched = true;
        else if (part == "tiers")
          opt.tiers = true;
        else if (part == "reduce")
          opt.reduce = true;
        else {
          std::fprintf(stderr, "fw-runtime-bench: unknown part '%s'\n", part.c_str());
          usage();
          return 2;
        }
      }
    } else if (key == "--reps") {
      opt.reps = std::max(1, std::atoi(value.c_str()));
    } else if (key == "--tasks") {
      opt.tasks = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "--rounds") {
      opt.rounds = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "--round-gap-us") {
      opt.roundGapUs = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (key == "--round-wait") {
      if (value != "all" && value != "task" && value != "map" && value != "run") {
        std::fprintf(stderr,
                     "fw-runtime-bench: --round-wait is all, task, map or run, not '%s'\n",
                     value.c_str());
        return 2;
      }
      opt.roundWait = value;
    } else if (key == "--devices") {
      opt.devices = value;
    } else if (key == "--workers") {
      opt.workers = parseList<int>(value);
    } else if (key == "--policies") {
      std::vector<std::string> names;
      if (!nameList(key, value, "policy", isPolicy, &names))
        return 2;
      opt.policies.clear();
      for (const std::string &name : names)
        opt.policies.push_back(policyByName(name));
    } else if (key == "--cases") {
      if (!nameList(key, value, "case", rtbench::isOverheadCase, &opt.overheadCases))
        return 2;
    } else if (key == "--tile") {
      opt.tile = std::atoi(value.c_str());
    } else if (key == "--cholesky") {
      opt.choleskyTiles = parseList<int>(value);
    } else if (key == "--seeds") {
      opt.seeds = parseList<uint64_t>(value);
    } else if (key == "--layers") {
      opt.layers = std::atoi(value.c_str());
    } else if (key == "--widths") {
      opt.widths = parseList<int>(value);
    } else if (key == "--link-gbps") {
      opt.linkGbps = std::atof(value.c_str());
    } else if (key == "--gpu-memory-mib") {
      opt.gpuMemoryMiB = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "--trace-dir") {
      opt.traceDir = value;
    } else if (key == "--dag-dir") {
      opt.dagDir = value;
    } else if (key == "--buffers") {
      opt.tierBuffers = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "--buffer-mib") {
      opt.tierBufferMiB = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "--tier-limits") {
      tierLimits = value;
      opt.tierLimit = tierLimits.c_str();
    } else if (key == "--sweeps") {
      opt.sweeps = std::atoi(value.c_str());
    } else if (key == "--passes") {
      opt.passes = std::atoi(value.c_str());
    } else if (key == "--compute-ratio") {
      opt.computeRatio = std::atof(value.c_str());
    } else if (key == "--tier-workers") {
      opt.tierWorkers = std::atoi(value.c_str());
    } else if (key == "--reduce-mib") {
      opt.reduceMiB.clear();
      for (const std::string &item : splitList(value))
        opt.reduceMiB.push_back(std::atof(item.c_str()));
    } else if (key == "--reduce-sim-mib") {
      opt.reduceSimMiB = std::atof(value.c_str());
    } else if (key == "--reduce-parts") {
      opt.reduceParts = std::atoi(value.c_str());
    } else if (key == "--reduce-tier-limits") {
      reduceTierLimits = value;
      opt.reduceTierLimits = reduceTierLimits.c_str();
    } else if (key == "--prefetch-window") {
      opt.prefetchWindow = static_cast<uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
    } else {
      usage();
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  if (opt.roundWait == "map" &&
      std::find(opt.overheadCases.begin(), opt.overheadCases.end(), "independent") !=
          opt.overheadCases.end()) {
    std::fprintf(stderr, "fw-runtime-bench: --round-wait=map needs --cases without "
                         "independent (its tasks write no buffer)\n");
    return 2;
  }
  if (opt.tasks == 0 || opt.rounds == 0 || opt.rounds > opt.tasks || opt.workers.empty() ||
      opt.tile <= 0 || opt.layers <= 0 ||
      opt.widths.empty() || opt.tierBuffers == 0 || opt.tierBufferMiB == 0 || opt.sweeps <= 0 ||
      opt.tierWorkers <= 0 || !(opt.computeRatio > 0) || !(opt.linkGbps > 0) ||
      opt.gpuMemoryMiB == 0 || opt.reduceParts <= 0 || opt.reduceMiB.empty() ||
      !(opt.reduceSimMiB * 1048576.0 >= 4) || !(opt.reduceSimMiB <= 65536) ||
      std::any_of(opt.reduceMiB.begin(), opt.reduceMiB.end(),
                  [](double m) { return !(m * 1048576.0 >= 64); })) {
    usage();
    return 2;
  }

  bool ok = true;
  if (opt.overhead)
    ok &= rtbench::runOverhead(opt);
  if (opt.sched) {
    ok &= rtbench::runSched(opt);
    ok &= rtbench::runSchedReduce(opt);
  }
  if (opt.tiers)
    ok &= rtbench::runTiers(opt);
  if (opt.reduce)
    ok &= rtbench::runReduce(opt);
  if (!ok) {
    std::puts("\nfw-runtime-bench: some results are wrong (see FAILED above)");
    return 1;
  }
  return 0;
}
