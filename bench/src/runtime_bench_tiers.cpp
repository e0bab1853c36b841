// Part "tiers": a working set larger than the host tier, swept by real tasks, with the
// runtime's prefetch on and off.
//
// A real runtime (--tier-workers CPU workers, default scheduler heft) with
// tier_limits = "host=64MiB" and a storage directory made with mkdtemp under $TMPDIR
// (else /tmp), removed afterwards. 64 buffers of 4 MiB (4x the host limit) are created
// with deterministic contents, which spills most of them to storage files. Then
// --sweeps sweeps submit, in order, one task per buffer i: it reads buffer i (its only
// access), sums it --passes times (scaled per pass; by default as much compute as the
// runtime takes to bring a 4 MiB buffer back from storage, measured at startup with a
// sweep without compute, times --compute-ratio) and stores the sum in memory this program
// owns (through user_data). The tasks are therefore independent and run in submission
// order: a cyclic sweep, the worst case for LRU, where every read misses unless it was
// prefetched. With --result-buffers each sum goes instead into slot `sweep` of a small
// f64 runtime buffer per data buffer (read-write), which chains the sweeps of a buffer:
// the scheduler may then run them back to back and hide the tier.
// After fw_runtime_wait_all every sum is compared bit for bit with the same function run
// here on regenerated data, and every buffer's contents (fw_buffer_data) with the
// regenerated data.
//
// Reported per run, for the sweeps only (counters taken before the first submission and
// after fw_runtime_wait_all): wall time, stats.stall_seconds (summed over the workers),
// prefetch requests and hits, demand fetches, evictions, bytes host->storage and
// storage->host. Modes: prefetch on (the default), off (FW_RUNTIME_NO_PREFETCH), and, as
// the floor, no host limit (everything stays in memory). Stall removed by prefetch =
// 1 - stall(on) / stall(off), on the medians over --reps (target >= 80%).
#include "runtime_bench.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <ctime>
#include <string>
#include <unistd.h>

namespace rtbench {
namespace {

// Deterministic contents of buffer `b`: floats in [-0.5, 0.5).
void fill(float *x, size_t n, size_t b) {
  uint64_t s = 0x9E3779B97F4A7C15ull * (b + 1);
  for (size_t j = 0; j < n; ++j) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[j] = float((s >> 40) & 0xFFFFFF) / float(1 << 24) - 0.5f;
  }
}

// The task's compute: `passes` scaled sums with 16 independent lanes (vectorizes without
// reassociation, so the result is the same wherever it runs).
double sweepSum(const float *x, size_t n, int passes) {
  double total = 0;
  for (int p = 0; p < passes; ++p) {
    float scale = 1.0f + 0.125f * float(p);
    float lane[16] = {};
    size_t j = 0;
    for (; j + 16 <= n; j += 16)
      for (int l = 0; l < 16; ++l)
        lane[l] += x[j + l] * scale;
    for (; j < n; ++j)
      lane[0] += x[j] * scale;
    for (int l = 0; l < 16; ++l)
      total += double(lane[l]);
  }
  return total;
}

struct TaskCtx {
  size_t n;
  int passes;
  int sweep;
  double *out; // NULL: data[1] is the result buffer (--result-buffers)
  double busySeconds; // --idle-compute: how long the task keeps its worker in all
};

void sweepTask(void *user, void *const *data, size_t) {
  const TaskCtx *c = static_cast<const TaskCtx *>(user);
  double t0 = nowSeconds();
  double sum = sweepSum(static_cast<const float *>(data[0]), c->n, c->passes);
  if (c->busySeconds > 0) {
    double left = c->busySeconds - (nowSeconds() - t0);
    if (left > 0) {
      timespec ts = {time_t(left), long((left - double(time_t(left))) * 1e9)};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
    }
  }
  if (c->out)
    *c->out = sum;
  else
    static_cast<double *>(data[1])[c->sweep] = sum;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string makeStorageDir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/fw-runtime-bench-XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) {
    std::fprintf(stderr, "fw-runtime-bench: mkdtemp %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(1);
  }
  return buf.data();
}

// Removes the directory; returns how many files were left in it.
size_t removeStorageDir(const std::string &dir) {
  size_t left = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, ".."))
        continue;
      ++left;
      unlink((dir + "/" + e->d_name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
  return left;
}

// Median seconds to read a `bytes` file from the page cache (open, pread, close: the
// runtime's storage tier with FW_STORAGE_IO=buffered) and for one compute pass over as
// many floats.
void calibrate(const std::string &dir, size_t bytes, double *readSeconds,
               double *passSeconds) {
  size_t n = bytes / sizeof(float);
  std::vector<float> x(n);
  fill(x.data(), n, 12345);
  std::string path = dir + "/calibrate.buf";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || write(fd, x.data(), bytes) != ssize_t(bytes)) {
    std::fprintf(stderr, "fw-runtime-bench: writing %s failed\n", path.c_str());
    std::exit(1);
  }
  close(fd);
  std::vector<float> y(n);
  std::vector<double> reads, passes;
  volatile double sink = 0;
  for (int r = 0; r < 15; ++r) {
    double t0 = nowSeconds();
    int f = open(path.c_str(), O_RDONLY);
    ssize_t got = pread(f, y.data(), bytes, 0);
    close(f);
    double t1 = nowSeconds();
    if (got != ssize_t(bytes)) {
      std::fprintf(stderr, "fw-runtime-bench: reading %s failed\n", path.c_str());
      std::exit(1);
    }
    sink = sink + sweepSum(y.data(), n, 1);
    double t2 = nowSeconds();
    reads.push_back(t1 - t0);
    passes.push_back(t2 - t1);
  }
  unlink(path.c_str());
  *readSeconds = median(reads);
  *passSeconds = median(passes);
}

// Mean seconds of one storage -> host copy as the runtime makes them: one sweep of tasks
// without compute over the working set under the tier limit, prefetch off (each read a
// demand fetch into a replica the runtime allocated). The file reads of `calibrate` alone
// miss the cost of bringing fresh memory in, which made tasks too short.
double runtimeReadSeconds(const Options &opt) {
  std::string dir = makeStorageDir();
  fw_runtime_options_t o = {};
  o.num_workers = 1;
  o.devices = "cpu";
  o.scheduler = FW_SCHEDULER_HEFT;
  o.tier_limits = opt.tierLimit;
  o.storage_dir = dir.c_str();
  o.flags = FW_RUNTIME_NO_PREFETCH;
  fw_runtime_t *rt = nullptr;
  check(fw_runtime_create(&o, &rt), "creating the calibration runtime");
  size_t nb = opt.tierBuffers, n = opt.tierBufferMiB * (1u << 20) / sizeof(float);
  std::vector<fw_buffer_t *> data(nb);
  std::vector<float> x(n);
  int64_t dims[1] = {int64_t(n)};
  for (size_t b = 0; b < nb; ++b) {
    fill(x.data(), n, b);
    check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, x.data(), n * sizeof(float),
                           &data[b]),
          "creating a calibration buffer");
  }
  std::vector<double> sums(2 * nb);
  std::vector<TaskCtx> ctx(2 * nb);
  fw_runtime_stats_t before, after;
  check(fw_runtime_get_stats(rt, &before), "fw_runtime_get_stats");
  // Two sweeps, both counted: the first one's reads also bring fresh memory in, which
  // puts the mean nearer to the reads in the runs, where copies share the cores with the
  // workers (the second sweep alone reads 30 % faster than the runs do).
  for (size_t i = 0; i < 2 * nb; ++i) {
    ctx[i] = {n, 0, 0, &sums[i], 0};
    fw_task_access_t acc = {data[i % nb], FW_ACCESS_READ};
    fw_task_desc_t d = {};
    d.name = "calibrate";
    d.fn = sweepTask;
    d.user_data = &ctx[i];
    d.accesses = &acc;
    d.num_accesses = 1;
    check(fw_task_submit(rt, &d, nullptr), "fw_task_submit");
  }
  check(fw_runtime_wait_all(rt), "calibration sweep");
  check(fw_runtime_get_stats(rt, &after), "fw_runtime_get_stats");
  for (fw_buffer_t *b : data)
    fw_buffer_release(b);
  fw_runtime_destroy(rt);
  removeStorageDir(dir);
  double reads = double(after.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST] -
                        before.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST]) /
                 double(n * sizeof(float));
  double seconds = after.copy_seconds[FW_TIER_STORAGE][FW_TIER_HOST] -
                   before.copy_seconds[FW_TIER_STORAGE][FW_TIER_HOST];
  return reads > 0 ? seconds / reads : 0;
}

enum class Mode { Prefetch, NoPrefetch, Unlimited };

const char *modeName(Mode m) {
  switch (m) {
  case Mode::Prefetch:
    return "prefetch on";
  case Mode::NoPrefetch:
    return "prefetch off";
  case Mode::Unlimited:
    return "no host limit";
  }
  return "?";
}

struct Run {
  double wall = 0, stall = 0;
  uint64_t requests = 0, hits = 0, demand = 0, evictions = 0;
  uint64_t toStorage = 0, fromStorage = 0, peakHost = 0, hostLimit = 0;
  uint64_t directBytes = 0; // of the storage traffic, moved with direct I/O
  double fromStorageMiB = 0, wastedPrefetches = 0; // for medians
  double readGBps = 0; // storage -> host bytes over the wall time
  double msPerRead = 0; // storage -> host copies: mean time of one, from start to end
  bool ok = true;
};

Run runOnce(const Options &opt, Mode mode, int passes, double busySeconds,
            const std::vector<double> &expected, int rep) {
  std::string dir = makeStorageDir();
  fw_runtime_options_t o = {};
  o.num_workers = uint32_t(opt.tierWorkers);
  o.devices = "cpu"; // the host and storage tiers, CPU workers alone
  o.scheduler = FW_SCHEDULER_HEFT;
  // "No limit": one far above the working set (so that FW_TIER_LIMITS is not read either).
  o.tier_limits = mode == Mode::Unlimited ? "host=1TiB" : opt.tierLimit;
  o.storage_dir = dir.c_str();
  o.prefetch_window = opt.prefetchWindow;
  if (mode == Mode::NoPrefetch)
    o.flags = FW_RUNTIME_NO_PREFETCH;
  if (!opt.traceDir.empty())
    o.flags |= FW_RUNTIME_TRACE;
  fw_runtime_t *rt = nullptr;
  check(fw_runtime_create(&o, &rt), "creating the runtime");

  size_t nb = opt.tierBuffers, n = opt.tierBufferMiB * (1u << 20) / sizeof(float);
  int sweeps = opt.sweeps;
  std::vector<fw_buffer_t *> data(nb), results(opt.resultBuffers ? nb : 0);
  {
    std::vector<float> x(n);
    int64_t dims[1] = {int64_t(n)}, rdims[1] = {sweeps};
    for (size_t b = 0; b < nb; ++b) {
      fill(x.data(), n, b);
      check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, x.data(), n * sizeof(float),
                             &data[b]),
            "creating a data buffer");
      if (opt.resultBuffers)
        check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F64, 1, rdims, nullptr, 0, &results[b]),
              "creating a result buffer");
    }
  }
  std::vector<double> sums(size_t(sweeps) * nb, 0.0);
  std::vector<TaskCtx> ctx(sums.size());
  for (int s = 0; s < sweeps; ++s)
    for (size_t b = 0; b < nb; ++b)
      ctx[s * nb + b] = {n, passes, s, opt.resultBuffers ? nullptr : &sums[s * nb + b],
                         busySeconds};

  fw_runtime_stats_t before, after;
  check(fw_runtime_get_stats(rt, &before), "fw_runtime_get_stats");
  double t0 = nowSeconds();
  for (int s = 0; s < sweeps; ++s)
    for (size_t b = 0; b < nb; ++b) {
      fw_task_access_t acc[2] = {{data[b], FW_ACCESS_READ}, {nullptr, FW_ACCESS_READ_WRITE}};
      if (opt.resultBuffers)
        acc[1].buffer = results[b];
      fw_task_desc_t d = {};
      d.name = "sweep";
      d.fn = sweepTask;
      d.user_data = &ctx[s * nb + b];
      d.accesses = acc;
      d.num_accesses = opt.resultBuffers ? 2 : 1;
      d.flops = 2.0 * double(n) * passes;
      check(fw_task_submit(rt, &d, nullptr), "fw_task_submit");
    }
  fw_status_t waited = fw_runtime_wait_all(rt);
  double t1 = nowSeconds();
  check(fw_runtime_get_stats(rt, &after), "fw_runtime_get_stats");
  if (!opt.traceDir.empty()) {
    std::string file = std::string("tiers-") + modeName(mode) + "-" + std::to_string(rep) + ".json";
    for (char &c : file)
      if (c == ' ')
        c = '_';
    check(fw_runtime_write_trace(rt, (opt.traceDir + "/" + file).c_str()),
          "fw_runtime_write_trace");
  }
  Run r;
  if (waited != FW_OK) {
    std::printf("FAILED: %s: %s\n", modeName(mode), fw_status_message(waited));
    fw_status_free(waited);
    r.ok = false;
  }
  r.wall = t1 - t0;
  r.stall = after.stall_seconds - before.stall_seconds;
  r.requests = after.prefetch_requests - before.prefetch_requests;
  r.hits = after.prefetch_hits - before.prefetch_hits;
  r.demand = after.demand_fetches - before.demand_fetches;
  r.evictions = after.evictions - before.evictions;
  r.toStorage = after.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE] -
                before.bytes_moved[FW_TIER_HOST][FW_TIER_STORAGE];
  r.fromStorage = after.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST] -
                  before.bytes_moved[FW_TIER_STORAGE][FW_TIER_HOST];
  r.peakHost = after.peak_bytes[FW_TIER_HOST];
  r.hostLimit = after.limit_bytes[FW_TIER_HOST];
  r.directBytes = after.storage_direct_bytes - before.storage_direct_bytes;
  r.readGBps = r.wall > 0 ? double(r.fromStorage) / r.wall * 1e-9 : 0;
  double readSeconds = after.copy_seconds[FW_TIER_STORAGE][FW_TIER_HOST] -
                       before.copy_seconds[FW_TIER_STORAGE][FW_TIER_HOST];
  if (r.fromStorage > 0)
    r.msPerRead = readSeconds * 1e3 / (double(r.fromStorage) / double(opt.tierBufferMiB << 20));
  r.fromStorageMiB = double(r.fromStorage) / double(1 << 20);
  r.wastedPrefetches = r.requests > r.hits ? double(r.requests - r.hits) : 0;

  // Verify: every sum bit for bit, then every buffer's contents (each released right
  // after, since a buffer mapped by fw_buffer_data stays in host memory).
  size_t wrongSums = 0, wrongBuffers = 0;
  for (size_t b = 0; b < nb; ++b) {
    const double *res = opt.resultBuffers
                            ? static_cast<const double *>(fw_buffer_data(results[b]))
                            : nullptr;
    for (int s = 0; s < sweeps; ++s) {
      const double *got = opt.resultBuffers ? (res ? &res[s] : nullptr) : &sums[s * nb + b];
      if (!got || std::memcmp(got, &expected[b], sizeof(double)) != 0)
        ++wrongSums;
    }
    fw_buffer_release(opt.resultBuffers ? results[b] : nullptr);
  }
  std::vector<float> x(n);
  for (size_t b = 0; b < nb; ++b) {
    const void *p = fw_buffer_data(data[b]);
    fill(x.data(), n, b);
    if (!p || std::memcmp(p, x.data(), n * sizeof(float)) != 0)
      ++wrongBuffers;
    fw_buffer_release(data[b]);
  }
  if (wrongSums || wrongBuffers) {
    std::printf("FAILED: %s: %zu of %zu sums and %zu of %zu buffers differ\n", modeName(mode),
                wrongSums, nb * sweeps, wrongBuffers, nb);
    r.ok = false;
  }
  fw_runtime_destroy(rt);
  if (size_t left = removeStorageDir(dir))
    std::printf("note: %s: %zu file(s) were left in the storage directory after "
                "fw_runtime_destroy\n",
                modeName(mode), left);
  return r;
}

double mib(uint64_t bytes) { return double(bytes) / double(1 << 20); }

} // namespace

bool runTiers(const Options &opt) {
  size_t bytes = opt.tierBufferMiB << 20, n = bytes / sizeof(float);
  double fileSeconds = 0, passSeconds = 0;
  {
    std::string dir = makeStorageDir();
    calibrate(dir, bytes, &fileSeconds, &passSeconds);
    removeStorageDir(dir);
  }
  // What a task waits for: the runtime's own reads (fall back to the file reads when the
  // working set fits the tier and nothing was read).
  double readSeconds = runtimeReadSeconds(opt);
  if (readSeconds <= 0)
    readSeconds = fileSeconds;
  int passes = opt.passes > 0
                   ? opt.passes
                   : std::max(1, int(std::lround(opt.computeRatio * readSeconds / passSeconds)));
  double taskSeconds = passes * passSeconds; // a task's compute time
  // --idle-compute: one pass, the rest of the task's time asleep.
  double busySeconds = opt.idleCompute ? taskSeconds : 0;
  if (opt.idleCompute)
    passes = 1;
  std::vector<double> expected(opt.tierBuffers);
  {
    std::vector<float> x(n);
    for (size_t b = 0; b < opt.tierBuffers; ++b) {
      fill(x.data(), n, b);
      expected[b] = sweepSum(x.data(), n, passes);
    }
  }
  size_t tasks = opt.tierBuffers * size_t(opt.sweeps);
  std::printf("== tiers: %zu buffers x %zu MiB = %zu MiB working set, %s, %d workers (heft), "
              "%d sweeps = %zu tasks, %d repetition(s)\n",
              opt.tierBuffers, opt.tierBufferMiB, opt.tierBuffers * opt.tierBufferMiB,
              opt.tierLimit, opt.tierWorkers, opt.sweeps, tasks, opt.reps);
  std::printf("results: %s\n",
              opt.resultBuffers ? "a read-write f64 runtime buffer per data buffer "
                                  "(--result-buffers: the sweeps of a buffer are chained)"
                                : "memory owned by the benchmark (independent tasks, one "
                                  "read access each)");
  std::printf("calibration: the runtime reads a %zu MiB buffer from storage in %.2f ms (the "
              "file alone from the page cache: %.2f ms), one compute pass %.2f ms -> %.2f ms "
              "of compute per task (%s)%s\n",
              opt.tierBufferMiB, readSeconds * 1e3, fileSeconds * 1e3, passSeconds * 1e3,
              taskSeconds * 1e3,
              opt.passes > 0 ? "--passes" : fmt("--compute-ratio=%g", opt.computeRatio).c_str(),
              opt.idleCompute ? ": one pass, the rest asleep (--idle-compute)" : "");
  std::printf("compute alone: %zu tasks x %.2f ms / %d workers = %.0f ms\n", tasks,
              taskSeconds * 1e3, opt.tierWorkers,
              double(tasks) * taskSeconds * 1e3 / opt.tierWorkers);
  // A copy thread reads one buffer per read time, while the workers consume one per
  // (compute time / workers).
  double perThread = std::min(1.0, taskSeconds / (opt.tierWorkers * readSeconds));
  std::printf("a copy thread reads a buffer per %.2f ms, %d workers consume one per %.2f ms: "
              "one copy thread can stay ahead of at most ~%.0f%% of the reads (the runtime "
              "has FW_PREFETCH_THREADS, default one per worker, 1 to 8)\n",
              readSeconds * 1e3, opt.tierWorkers, taskSeconds * 1e3 / opt.tierWorkers,
              perThread * 100);
  std::printf("counters cover the sweeps only (not the spill while the buffers are created); "
              "stall = summed over workers\n\n");

  const Mode modes[] = {Mode::Prefetch, Mode::NoPrefetch, Mode::Unlimited};
  std::vector<Run> runs[3];
  bool ok = true;
  Table table({"mode", "rep", "wall ms", "stall ms", "pf requests", "pf hits", "demand",
               "evictions", "host->sto MiB", "sto->host MiB", "peak host MiB"},
              1);
  for (int rep = 0; rep < opt.reps; ++rep)
    for (int m = 0; m < 3; ++m) {
      Run r = runOnce(opt, modes[m], passes, busySeconds, expected, rep + 1);
      ok &= r.ok;
      runs[m].push_back(r);
    }
  for (int m = 0; m < 3; ++m) {
    for (size_t i = 0; i < runs[m].size(); ++i) {
      const Run &r = runs[m][i];
      table.row({modeName(modes[m]), fmt("%zu", i + 1), fmt("%.0f", r.wall * 1e3),
                 fmt("%.0f", r.stall * 1e3), fmt("%llu", (unsigned long long)r.requests),
                 fmt("%llu", (unsigned long long)r.hits), fmt("%llu", (unsigned long long)r.demand),
                 fmt("%llu", (unsigned long long)r.evictions), fmt("%.0f", mib(r.toStorage)),
                 fmt("%.0f", mib(r.fromStorage)), fmt("%.0f", mib(r.peakHost))});
    }
    table.separator();
  }
  table.print();

  auto med = [&](int m, double Run::*field) {
    std::vector<double> v;
    for (const Run &r : runs[m])
      v.push_back(r.*field);
    return median(v);
  };
  auto best = [&](int m) {
    double b = INFINITY;
    for (const Run &r : runs[m])
      b = std::min(b, r.wall);
    return b;
  };
  double stallOn = med(0, &Run::stall), stallOff = med(1, &Run::stall);
  double removed = stallOff > 0 ? 1 - stallOn / stallOff : 0;
  std::printf("\nwall (best): prefetch on %.0f ms, off %.0f ms (off / on = %.2f), "
              "no limit %.0f ms\n",
              best(0) * 1e3, best(1) * 1e3, best(1) / best(0), best(2) * 1e3);
  std::printf("stall (median): on %.0f ms, off %.0f ms -> prefetch removes %.0f%% of the "
              "stall (target >= 80%%: %s)\n",
              stallOn * 1e3, stallOff * 1e3, removed * 100, removed >= 0.8 ? "met" : "MISSED");
  std::printf("storage -> host (median): on %.0f MiB, off %.0f MiB; prefetches not used "
              "(requests - hits, median): %.0f\n",
              med(0, &Run::fromStorageMiB), med(1, &Run::fromStorageMiB),
              med(0, &Run::wastedPrefetches));
  std::printf("one read from storage in the runs (median of the means): prefetch on %.2f ms, "
              "off %.2f ms (calibrated: %.2f ms)\n",
              med(0, &Run::msPerRead), med(1, &Run::msPerRead), readSeconds * 1e3);
  std::printf("storage -> host over the wall time (median): prefetch on %.2f GB/s, off %.2f GB/s "
              "(one read alone in the calibration: %.2f GB/s); storage I/O: %s\n",
              med(0, &Run::readGBps), med(1, &Run::readGBps),
              double(opt.tierBufferMiB << 20) / readSeconds * 1e-9,
              runs[0].empty() || runs[0][0].directBytes == 0
                  ? "through the page cache"
                  : fmt("direct (%.0f%% of the bytes)",
                        100.0 * double(runs[0][0].directBytes) /
                            double(runs[0][0].fromStorage + runs[0][0].toStorage))
                        .c_str());
  // Room to prefetch into: what the running tasks' inputs leave of the host tier.
  if (!runs[0].empty() && runs[0][0].hostLimit) {
    uint64_t fit = runs[0][0].hostLimit / (opt.tierBufferMiB << 20);
    if (fit < 2 * uint64_t(opt.tierWorkers))
      std::printf("note: the host tier holds %llu buffers and %d running tasks pin %d of them: "
                  "room for %llu prefetched buffers at most (a larger --tier-limits with as "
                  "many more --buffers keeps the working set at 4x the tier)\n",
                  (unsigned long long)fit, opt.tierWorkers, opt.tierWorkers,
                  (unsigned long long)(fit > uint64_t(opt.tierWorkers) ? fit - opt.tierWorkers : 0));
  }
  std::printf("results: %s\n\n", ok ? "all sums and buffers bit-identical" : "WRONG (see FAILED)");
  return ok;
}

} // namespace rtbench
