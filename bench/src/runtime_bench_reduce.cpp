// Part "reduce": how long the runtime takes to combine a reduction's accumulators
// (FW_ACCESS_REDUCE) once its contributions are done, against folding them one after
// another on one core in plain C, in the same run.
//
// For each policy, worker count W and buffer size (--reduce-mib): a fresh runtime with W
// CPU workers; an f32 buffer of that size holding zeros, with a sum reduction of this
// program's (init: zeros; combine: dst[i] += src[i], the loop the reference runs, and
// counting the accumulators made); --reduce-parts contributions per worker (default 2),
// contribution p adding p + 1 to every element of its accumulator, the first W waiting for
// each other (so that every worker runs one); then a task reading the buffer. A task that
// holds the buffer (a writer before the group) keeps the group open until every
// contribution is submitted. Measured per run: from the end of the last contribution to the
// start of the reader ("combine"), which spans the reduction task, the pair tasks that
// combine the accumulators of a large buffer first (when the passes they save outweigh the
// tree's levels: docs/task-graph.md) and are left after the last contribution, and the
// reader's wake-up; and from the start of the first contribution to the start of the
// reader ("total", which counts the pairs made while the last contributions still run).
// The reference: k arrays of the buffer's size (k: the accumulators the run made), written
// just before, folded into one more, one after another, by this thread: k passes (what the
// reduction task alone would do, minus the wake-ups). Reported: the best of --reps runs of
// each, their ratio, and the accumulators and pair tasks of the run with the best combine.
// Every element of the buffer is checked against the exact sum (small integers: exact in
// f32).
#include "runtime_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

namespace rtbench {
namespace {

struct Run {
  std::atomic<int> accumulators{0};
  std::atomic<int> inside{0}; // contributions that started
  int workers = 0;
  std::mutex lock;
  double firstStart = 1e30; // start of the first contribution
  double lastEnd = 0;    // end of the last contribution
  double readStart = 0;  // start of the reader
  size_t elements = 0;
  std::atomic<bool> open{false};
};

struct Part {
  Run *run;
  float amount;
};

void initZero(void *user, void *data, size_t size) {
  static_cast<Run *>(user)->accumulators.fetch_add(1);
  std::memset(data, 0, size);
}

void foldInto(float *dst, const float *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] += src[i];
}

void combineSum(void *, void *dst, const void *src, size_t size) {
  foldInto(static_cast<float *>(dst), static_cast<const float *>(src), size / sizeof(float));
}

// The first `workers` contributions wait for each other (up to 5 s): one on each worker,
// so that the group has an accumulator per worker (none wait when `workers` is 0).
void contribute(void *user, void *const *data, size_t) {
  auto *p = static_cast<Part *>(user);
  Run *run = p->run;
  double start = nowSeconds();
  if (run->inside.fetch_add(1) < run->workers) {
    double until = nowSeconds() + 5;
    while (run->inside.load() < run->workers && nowSeconds() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  float *acc = static_cast<float *>(data[0]);
  for (size_t i = 0; i < p->run->elements; ++i)
    acc[i] += p->amount;
  double end = nowSeconds();
  std::lock_guard<std::mutex> g(p->run->lock);
  p->run->firstStart = std::min(p->run->firstStart, start);
  p->run->lastEnd = std::max(p->run->lastEnd, end);
}

void holdUntilOpen(void *user, void *const *, size_t) {
  auto *run = static_cast<Run *>(user);
  while (!run->open.load())
    std::this_thread::yield();
}

void readStart(void *user, void *const *, size_t) {
  static_cast<Run *>(user)->readStart = nowSeconds();
}

struct Result {
  double combine = 0; // seconds
  double total = 0;
  int accumulators = 0;
  uint64_t pairTasks = 0;
  uint64_t toStorage = 0; // bytes moved from host memory to the storage tier
  bool ok = true;
};

Result runOnce(fw_scheduler_kind_t policy, int workers, size_t bytes, int partsPerWorker,
               const char *tierLimits) {
  fw_runtime_options_t o = {};
  o.num_workers = static_cast<uint32_t>(workers);
  o.devices = "cpu";
  o.scheduler = policy;
  o.tier_limits = tierLimits;
  fw_runtime_t *rt = nullptr;
  check(fw_runtime_create(&o, &rt), "fw_runtime_create");
  Run run;
  /* Under tier limits a worker may have to wait for room for its accumulator: the first
   * contributions do not wait for each other then. */
  run.workers = tierLimits ? 0 : workers;
  run.elements = bytes / sizeof(float);
  std::vector<float> zeros(run.elements, 0.0f);
  const int64_t dims[1] = {static_cast<int64_t>(run.elements)};
  fw_buffer_t *sum = nullptr;
  check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, zeros.data(), bytes, &sum),
        "fw_buffer_create");
  fw_reduction_t r = {initZero, combineSum, &run};
  check(fw_buffer_set_reduction(sum, &r), "fw_buffer_set_reduction");

  auto submit = [&](const char *name, fw_task_fn_t fn, void *user, fw_access_t mode) {
    fw_task_access_t a = {sum, mode};
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = name;
    d.fn = fn;
    d.user_data = user;
    d.accesses = &a;
    d.num_accesses = 1;
    check(fw_task_submit(rt, &d, nullptr), std::string("fw_task_submit ") + name);
  };
  fw_runtime_stats_t before;
  check(fw_runtime_get_stats(rt, &before), "fw_runtime_get_stats");
  submit("hold", holdUntilOpen, &run, FW_ACCESS_WRITE);
  int numParts = partsPerWorker * workers;
  std::vector<Part> parts(numParts);
  for (int p = 0; p < numParts; ++p) {
    parts[p] = {&run, float(p + 1)};
    submit("part", contribute, &parts[p], FW_ACCESS_REDUCE);
  }
  run.open = true;
  submit("read", readStart, &run, FW_ACCESS_READ);
  check(fw_runtime_wait_all(rt), "fw_runtime_wait_all");
  fw_runtime_stats_t after;
  check(fw_runtime_get_stats(rt, &after), "fw_runtime_get_stats");

  Result res;
  res.combine = run.readStart - run.lastEnd;
  res.total = run.readStart - run.firstStart;
  res.accumulators = run.accumulators.load();
  // hold, the parts, the reduction task, the reader: the rest are pair tasks.
  res.pairTasks = after.tasks_executed - before.tasks_executed - uint64_t(numParts) - 3;
  res.toStorage = after.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE] -
                  before.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE];
  const float *got = static_cast<const float *>(fw_buffer_data(sum));
  float expect = float(numParts) * float(numParts + 1) / 2;
  for (size_t i = 0; got && i < run.elements && res.ok; ++i)
    res.ok = got[i] == expect;
  if (!got || !res.ok)
    std::fprintf(stderr, "fw-runtime-bench reduce: wrong sum (%s, %d workers, %zu bytes)\n",
                 policyName(policy), workers, bytes);
  res.ok = res.ok && got;
  fw_buffer_unmap(sum);
  fw_buffer_release(sum);
  fw_runtime_destroy(rt);
  return res;
}

// Folding `k` arrays of `bytes` into another, one after another, on this thread (the
// arrays written just before): k passes.
double serialFold(int k, size_t bytes) {
  size_t n = bytes / sizeof(float);
  std::vector<std::vector<float>> arrays(k + 1, std::vector<float>(n));
  for (int j = 0; j <= k; ++j)
    std::fill(arrays[j].begin(), arrays[j].end(), float(j));
  double start = nowSeconds();
  for (int j = 1; j <= k; ++j)
    foldInto(arrays[0].data(), arrays[j].data(), n);
  double seconds = nowSeconds() - start;
  if (n && arrays[0][n / 2] != float(k) * float(k + 1) / 2)
    std::fprintf(stderr, "fw-runtime-bench reduce: the reference's sum is wrong\n");
  return seconds;
}

} // namespace

bool runReduce(const Options &opt) {
  std::printf("\n== reduce: combining a reduction's accumulators once its contributions are "
              "done (best of %d%s%s) ==\n",
              opt.reps, opt.reduceTierLimits ? ", tier limits " : "",
              opt.reduceTierLimits ? opt.reduceTierLimits : "");
  Table table({"policy", "workers", "MiB", "accumulators", "pair tasks", "combine us",
               "serial fold us", "ratio", "total us", "to storage MiB"},
              1);
  bool ok = true;
  for (fw_scheduler_kind_t policy : opt.policies)
    for (int workers : opt.workers)
      for (double mib : opt.reduceMiB) {
        size_t bytes = static_cast<size_t>(mib * 1048576.0) / 64 * 64;
        Result best;
        best.combine = 1e30;
        double reference = 1e30, total = 1e30;
        for (int rep = 0; rep < opt.reps; ++rep) {
          Result r = runOnce(policy, workers, bytes, opt.reduceParts, opt.reduceTierLimits);
          ok &= r.ok;
          reference = std::min(reference, serialFold(r.accumulators, bytes));
          total = std::min(total, r.total);
          if (r.combine < best.combine)
            best = r;
        }
        table.row({policyName(policy), fmt("%d", workers), fmt("%g", mib),
                   fmt("%d", best.accumulators), fmt("%llu", (unsigned long long)best.pairTasks),
                   fmt("%.1f", best.combine * 1e6), fmt("%.1f", reference * 1e6),
                   fmt("%.2f", best.combine / reference), fmt("%.1f", total * 1e6),
                   fmt("%.1f", double(best.toStorage) / 1048576.0)});
      }
  table.print();
  return ok;
}

} // namespace rtbench
