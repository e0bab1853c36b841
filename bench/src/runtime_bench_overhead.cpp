// Part "overhead": the runtime's cost per task for empty C tasks.
//
// For each case, policy and worker count: a fresh runtime (prefetch and everything else
// at their defaults), N submissions of a task whose function does nothing, then
// fw_runtime_wait_all (with --rounds=R: R rounds of N/R submissions, each followed by
// fw_runtime_wait_all, as a program that calls the runtime again and again, or by the
// wait --round-wait names; with --round-gap-us=G the caller sleeps G us between rounds,
// as calls that come apart).
// Reported:
// (wall time from the first fw_task_submit to the return of the last
// fw_runtime_wait_all) / N, best of --reps runs (and the median), plus the part of it
// spent in the submitting thread's fw_task_submit calls.
//   independent  no buffers: no dependencies
//   chain        every task reads and writes the same buffer: a chain of N tasks
//   2 buffers    task i reads in[i % 64] and reads+writes out[i % 64]: 64 chains, with
//                readers accumulating on each `in` buffer
//   after        no buffers, each task after the previous one (fw_task_desc_t.after): a
//                chain of control edges, the previous handle released once named (only
//                with --cases=after)
//   commute      every task a commutative update of the same buffer
//                (FW_ACCESS_READ_WRITE_COMMUTE): one group, its updates one at a time in
//                any order (only with --cases=commute; compare with chain)
//   reduce       every task a contribution to a sum of the same buffer
//                (FW_ACCESS_REDUCE): one group or a few, its tasks side by side on
//                per-worker accumulators, plus a reduction task per group (only with
//                --cases=reduce; compare with independent and commute)
#include "runtime_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

namespace rtbench {
namespace {

void emptyTask(void *, void *const *, size_t) {}

enum class Case { Independent, Chain, TwoBuffers, After, Commute, Reduce };
constexpr int kPool = 64;

// The names --cases takes.
const struct {
  const char *name;
  Case value;
} kCaseNames[] = {{"independent", Case::Independent}, {"chain", Case::Chain},
                  {"buffers", Case::TwoBuffers}, {"after", Case::After},
                  {"commute", Case::Commute}, {"reduce", Case::Reduce}};

const char *caseName(Case c) {
  switch (c) {
  case Case::Independent:
    return "independent";
  case Case::Chain:
    return "chain (1 buffer rw)";
  case Case::TwoBuffers:
    return "2 buffers (r + rw)";
  case Case::After:
    return "chain (after)";
  case Case::Commute:
    return "group (1 buffer commute)";
  case Case::Reduce:
    return "group (1 buffer reduce)";
  }
  return "?";
}

struct Sample {
  double totalNs = 0;  // per task
  double submitNs = 0; // per task
};

// Submits tasks [first, last) of case `c`; the last one's handle goes to `*lastTask`
// when it is not null. With `runLast` the last one goes through fw_task_run instead,
// which also waits for it; its outcome is returned.
fw_status_t submitRound(Case c, fw_task_desc_t &d, const std::vector<fw_buffer_t *> &in,
                        const std::vector<fw_buffer_t *> &outb, size_t first, size_t last,
                        fw_runtime_t *rt, fw_task_t **lastTask, bool runLast) {
  fw_status_t ran = FW_OK;
  fw_task_access_t acc[2];
  fw_task_t *prev = nullptr; // Case::After: the task the next one runs after
  for (size_t i = first; i < last; ++i) {
    if (c == Case::Chain || c == Case::Commute || c == Case::Reduce) {
      acc[0] = {outb[0], c == Case::Chain     ? FW_ACCESS_READ_WRITE
                         : c == Case::Commute ? FW_ACCESS_READ_WRITE_COMMUTE
                                              : FW_ACCESS_REDUCE};
      d.accesses = acc;
      d.num_accesses = 1;
    } else if (c == Case::TwoBuffers) {
      acc[0] = {in[i % kPool], FW_ACCESS_READ};
      acc[1] = {outb[i % kPool], FW_ACCESS_READ_WRITE};
      d.accesses = acc;
      d.num_accesses = 2;
    }
    fw_task_t *handle = nullptr;
    bool keep = c == Case::After || (i + 1 == last && lastTask);
    d.after = prev ? &prev : nullptr;
    d.num_after = prev ? 1 : 0;
    if (runLast && i + 1 == last) {
      ran = fw_task_run(rt, &d);
      break;
    }
    fw_status_t s = fw_task_submit(rt, &d, keep ? &handle : nullptr);
    if (s != FW_OK)
      check(s, "fw_task_submit");
    if (c == Case::After) {
      fw_task_release(prev);
      prev = handle;
    }
    if (i + 1 == last && lastTask)
      *lastTask = c == Case::After ? std::exchange(prev, nullptr) : handle;
  }
  fw_task_release(prev);
  d.after = nullptr;
  d.num_after = 0;
  return ran;
}

// Waits for the round that ended with task `last - 1` as `how` says (Options::roundWait).
fw_status_t waitRound(const std::string &how, Case c, const std::vector<fw_buffer_t *> &outb,
                      size_t last, fw_runtime_t *rt, fw_task_t *lastTask) {
  if (how == "task") {
    fw_status_t s = fw_task_wait(lastTask);
    fw_task_release(lastTask);
    return s;
  }
  if (how == "map" && c != Case::Independent) {
    fw_buffer_t *b = outb[c == Case::TwoBuffers ? (last - 1) % kPool : 0];
    void *data = nullptr;
    fw_status_t s = fw_buffer_map(b, &data);
    if (s == FW_OK)
      fw_buffer_unmap(b);
    return s;
  }
  return fw_runtime_wait_all(rt);
}

bool measure(Case c, fw_scheduler_kind_t policy, int workers, const Options &opt,
             Sample *out) {
  const size_t n = opt.tasks, rounds = opt.rounds;
  fw_runtime_options_t o = {};
  o.num_workers = static_cast<uint32_t>(workers);
  // The tasks are CPU tasks: by default a GPU found on the machine is left out of service
  // (it would only add its worker); "cpu,cuda" measures them with a GPU worker in service.
  o.devices = opt.devices.c_str();
  o.scheduler = policy;
  fw_runtime_t *rt = nullptr;
  check(fw_runtime_create(&o, &rt), "creating a runtime");
  int64_t dims[1] = {16};
  std::vector<fw_buffer_t *> in, outb;
  int buffers = c == Case::Independent  ? 0
                : c == Case::TwoBuffers ? kPool
                                        : 1;
  for (int i = 0; i < buffers; ++i) {
    fw_buffer_t *b = nullptr;
    check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, nullptr, 0, &b), "buffer");
    if (c == Case::Reduce)
      check(fw_buffer_set_reduction_op(b, FW_REDUCTION_SUM), "fw_buffer_set_reduction_op");
    outb.push_back(b);
    if (c == Case::TwoBuffers) {
      check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, nullptr, 0, &b), "buffer");
      in.push_back(b);
    }
  }
  fw_task_desc_t d = {};
  d.name = "empty";
  d.fn = emptyTask;
  double t0 = nowSeconds(), submitSeconds = 0, gapSeconds = 0;
  fw_status_t waited = FW_OK;
  for (size_t r = 0; r < rounds && waited == FW_OK; ++r) {
    size_t first = n * r / rounds, last = n * (r + 1) / rounds;
    fw_task_t *lastTask = nullptr;
    if (opt.roundGapUs && r > 0) {
      double g0 = nowSeconds();
      std::this_thread::sleep_for(std::chrono::microseconds(opt.roundGapUs));
      gapSeconds += nowSeconds() - g0;
    }
    double s0 = nowSeconds();
    if (opt.roundWait == "run") { // submitted and waited for in one call: not split
      waited = submitRound(c, d, in, outb, first, last, rt, nullptr, true);
      continue;
    }
    submitRound(c, d, in, outb, first, last, rt, opt.roundWait == "task" ? &lastTask : nullptr,
                false);
    submitSeconds += nowSeconds() - s0;
    waited = waitRound(opt.roundWait, c, outb, last, rt, lastTask);
  }
  if (waited == FW_OK) // the rounds' other tasks, where a round waited for one
    waited = fw_runtime_wait_all(rt);
  double t2 = nowSeconds();
  bool ok = true;
  if (waited != FW_OK) {
    std::printf("FAILED: %s: %s\n", caseName(c), fw_status_message(waited));
    fw_status_free(waited);
    ok = false;
  }
  fw_runtime_stats_t st;
  check(fw_runtime_get_stats(rt, &st), "fw_runtime_get_stats");
  // Contributions to a reduction come with a reduction task per group.
  bool executed = c == Case::Reduce ? st.tasks_executed > n : st.tasks_executed == n;
  if (!executed || st.tasks_failed != 0) {
    std::printf("FAILED: %s: %llu of %zu tasks executed, %llu failed\n", caseName(c),
                (unsigned long long)st.tasks_executed, n, (unsigned long long)st.tasks_failed);
    ok = false;
  }
  for (fw_buffer_t *b : in)
    fw_buffer_release(b);
  for (fw_buffer_t *b : outb)
    fw_buffer_release(b);
  fw_runtime_destroy(rt);
  out->totalNs = (t2 - t0 - gapSeconds) * 1e9 / double(n);
  out->submitNs = submitSeconds * 1e9 / double(n);
  return ok;
}

} // namespace

bool isOverheadCase(const std::string &name) {
  for (const auto &known : kCaseNames)
    if (name == known.name)
      return true;
  return false;
}

bool runOverhead(const Options &opt) {
  std::printf("== overhead: empty C tasks, %zu per run, best of %d (fresh runtime per run)\n",
              opt.tasks, opt.reps);
  if (opt.rounds > 1)
    std::printf("each run in %zu rounds of about %zu tasks, each waited for with %s\n",
                opt.rounds, opt.tasks / opt.rounds,
                opt.roundWait == "task"  ? "fw_task_wait on its last task"
                : opt.roundWait == "run" ? "its last task submitted with fw_task_run"
                : opt.roundWait == "map"
                    ? "fw_buffer_map of the buffer its last task writes"
                    : "fw_runtime_wait_all");
  if (opt.roundGapUs)
    std::printf("the caller sleeps %u us between rounds (not counted)\n", opt.roundGapUs);
  if (opt.devices != "cpu")
    std::printf("device kinds in service: %s\n", opt.devices.c_str());
  std::printf("ns/task = (first fw_task_submit .. fw_runtime_wait_all returns) / tasks; "
              "submit = the fw_task_submit calls alone\n");
  std::printf("target: <= 1000 ns/task (StarPU: about 4000 ns/task); "
              "x target = 1000 / ns, x StarPU = 4000 / ns (> 1: better)\n\n");
  Table table({"case", "policy", "workers", "ns/task", "median", "submit", "x target", "x StarPU"},
              2);
  bool ok = true;
  std::vector<Case> cases;
  for (const std::string &name : opt.overheadCases)
    for (const auto &known : kCaseNames)
      if (name == known.name)
        cases.push_back(known.value);
  for (size_t k = 0; k < cases.size(); ++k) {
    Case c = cases[k];
    for (fw_scheduler_kind_t p : opt.policies) {
      for (int w : opt.workers) {
        std::vector<Sample> samples;
        for (int r = 0; r < opt.reps; ++r) {
          Sample s;
          ok &= measure(c, p, w, opt, &s);
          samples.push_back(s);
        }
        std::sort(samples.begin(), samples.end(),
                  [](const Sample &a, const Sample &b) { return a.totalNs < b.totalNs; });
        const Sample &best = samples.front();
        double median = samples[samples.size() / 2].totalNs;
        table.row({caseName(c), policyName(p), fmt("%d", w), fmt("%.0f", best.totalNs),
                   fmt("%.0f", median), fmt("%.0f", best.submitNs), fmt("%.2f", 1000.0 / best.totalNs),
                   fmt("%.2f", 4000.0 / best.totalNs)});
      }
    }
    if (k + 1 < cases.size())
      table.separator();
  }
  table.print();
  std::puts("");
  return ok;
}

} // namespace rtbench
