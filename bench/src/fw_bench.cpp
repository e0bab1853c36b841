// fw-bench: fw-compiled kernels side by side with OpenBLAS, Eigen and plain C.
//
// The .fwb files are compiled by the CMake project (bench/CMakeLists.txt) from
// bench/mlir/*.mlir; this program only loads and calls them through the C++
// runtime API. For every case it creates the inputs once, checks the fw result
// against the reference (max abs / rel error), then times fw and the reference
// alternately in the same loop (one call each per repetition) and prints the
// minimum and median of each, and the ratio of the minima:
//   ratio = reference time / fw time   (= fw speed relative to the reference)
// fw's time is one fw::Module::call (Module::call -> fw_module_call), which
// includes allocating its result and intermediate buffers;
// results are released after the clock stops. References write into memory
// allocated and touched once, before timing.
//
// Usage: fw-bench [--modules DIR] [--reps N] [--budget SECONDS] [--only SUBSTR]...
//                 [--threads N] [--markdown]
// --threads N gives fw N CPU workers and OpenBLAS N threads (default 1); Eigen
// and the plain C loops stay single-threaded. With N > 1 it restarts itself with
// OPENBLAS_THREAD_TIMEOUT=4 (unless set), so OpenBLAS's idle threads stop spinning
// soon after each call instead of competing with the fw workers timed next.

#include "references.h"

#include <fw/runtime.hpp>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#ifndef FW_BENCH_MODULE_DIR
#define FW_BENCH_MODULE_DIR "."
#endif
#ifndef FW_BENCH_TARGETS
#define FW_BENCH_TARGETS "?"
#endif
#ifndef FW_BENCH_CXX_COMPILER
#define FW_BENCH_CXX_COMPILER "?"
#endif

extern "C" {
// Declared by OpenBLAS's cblas.h; repeated here in case another cblas.h is found first.
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char *openblas_get_config(void);
char *openblas_get_corename(void);
}

namespace {

struct Options {
  std::string modules = FW_BENCH_MODULE_DIR;
  int reps = 0;          // 0: adaptive
  double budget = 2.0;   // seconds per side and case when adaptive
  std::vector<std::string> only;
  bool markdown = false;
  int threads = 1;       // fw CPU workers and OpenBLAS threads
};

// ---------------------------------------------------------------------------
// Memory and data

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};
using FloatArray = std::unique_ptr<float[], FreeDeleter>;

// 64-byte aligned, written once (so timing never sees first-touch page faults).
FloatArray allocFloats(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) & ~size_t(63);
  auto *p = static_cast<float *>(std::aligned_alloc(64, bytes));
  if (!p) {
    std::fprintf(stderr, "fw-bench: out of memory (%zu bytes)\n", bytes);
    std::exit(1);
  }
  std::memset(p, 0, bytes);
  return FloatArray(p);
}

// Deterministic uniform values in [lo, hi).
std::vector<float> randomFloats(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    float u = float((s >> 40) & 0xFFFFFF) / float(1 << 24);
    v[i] = lo + (hi - lo) * u;
  }
  return v;
}

[[noreturn]] void die(const std::string &what, const fw::Status &status) {
  std::fflush(stdout);
  std::fprintf(stderr, "fw-bench: %s: %s\n", what.c_str(), status.message());
  std::exit(1);
}

fw::Buffer makeBuffer(fw::Runtime &rt, const std::vector<int64_t> &dims,
                      const std::vector<float> &values) {
  fw::Result<fw::Buffer> b = fw::Buffer::fromVector<float>(rt, dims, values);
  if (!b.ok())
    die("creating an input buffer", b.status());
  return *b;
}

const float *dataOf(const fw::Buffer &b) { return static_cast<const float *>(b.data()); }

// ---------------------------------------------------------------------------
// Correctness

struct Error {
  double maxAbs = 0;   // max |fw - ref|
  double maxRel = 0;   // max |fw - ref| / max |ref| (relative to the largest reference value,
                       // so that entries near zero after cancellation do not dominate)
  size_t nonFinite = 0;
};

Error compare(const float *got, const float *want, size_t n) {
  Error e;
  double maxRef = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(got[i]) || !std::isfinite(want[i])) {
      if (!(std::isnan(got[i]) && std::isnan(want[i])) && got[i] != want[i])
        ++e.nonFinite;
      continue;
    }
    e.maxAbs = std::max(e.maxAbs, std::fabs(double(got[i]) - double(want[i])));
    maxRef = std::max(maxRef, std::fabs(double(want[i])));
  }
  e.maxRel = maxRef > 0 ? e.maxAbs / maxRef : e.maxAbs;
  return e;
}

bool g_allCorrect = true;

// Prints the check; `relTol` bounds the relative error (abs error is reported too).
bool reportError(const char *label, const char *against, const Error &e, double relTol) {
  bool ok = e.nonFinite == 0 && e.maxRel <= relTol;
  std::printf("  check %-22s vs %-14s max abs err %.3g, max rel err %.3g (to max|ref|)%s -> %s\n", label,
              against, e.maxAbs, e.maxRel,
              e.nonFinite ? (" , " + std::to_string(e.nonFinite) + " non-finite mismatches").c_str()
                          : "",
              ok ? "ok" : "MISMATCH");
  if (!ok)
    g_allCorrect = false;
  return ok;
}

// ---------------------------------------------------------------------------
// Timing

using Clock = std::chrono::steady_clock;

struct Stats {
  double minMs = 0, medianMs = 0;
  int reps = 0;
};

Stats summarize(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  Stats s;
  s.reps = int(t.size());
  s.minMs = t.front();
  s.medianMs = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
  return s;
}

// Each callable runs one call and returns its time in ms (so fw can exclude
// releasing its results). All sides run once per repetition, in turn.
std::vector<Stats> timeSideBySide(const Options &opt,
                                  const std::vector<std::function<double()>> &sides) {
  std::vector<std::vector<double>> times(sides.size());
  int reps = opt.reps;
  if (reps <= 0) {
    // One warm-up round, then as many rounds as the slowest side fits in the budget.
    double slowest = 0;
    for (auto &side : sides)
      slowest = std::max(slowest, side());
    reps = int(std::clamp(opt.budget * 1000.0 / std::max(slowest, 1e-3), 5.0, 30.0));
  } else {
    for (auto &side : sides)
      side();
  }
  for (int r = 0; r < reps; ++r)
    for (size_t s = 0; s < sides.size(); ++s)
      times[s].push_back(sides[s]());
  std::vector<Stats> out;
  for (auto &t : times)
    out.push_back(summarize(t));
  return out;
}

template <typename F> double timeMs(F &&f) {
  auto t0 = Clock::now();
  f();
  auto t1 = Clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// One fw call, timed; the results are released after the clock stops.
std::function<double()> fwSide(const fw::Module &m, size_t fn, std::vector<fw::Buffer> args) {
  return [&m, fn, args = std::move(args)]() {
    std::optional<fw::Result<std::vector<fw::Buffer>>> r;
    double ms = timeMs([&] { r.emplace(m.call(fn, args)); });
    if (!r->ok())
      die("fw call", r->status());
    return ms;
  };
}

// ---------------------------------------------------------------------------
// Output

struct Row {
  std::string name, fwTime, refName, refTime, ratio, target;
};
std::vector<Row> g_rows;

std::string fmtMs(const Stats &s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f ms", s.minMs);
  return buf;
}

std::string fmtRatio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

// `work` > 0: also print GFLOP/s (work in FLOP).
void printLine(const std::string &name, const Stats &fw, const std::string &refName,
               const Stats &ref, double work, const std::string &target) {
  double ratio = ref.minMs / fw.minMs;
  auto rate = [&](const Stats &s) {
    char buf[48];
    if (work > 0)
      std::snprintf(buf, sizeof buf, " (%.1f GFLOP/s)", work / (s.minMs * 1e6));
    else
      buf[0] = 0;
    return std::string(buf);
  };
  std::printf("%s: fw %.1f ms%s | %s %.1f ms%s | ratio %.2f%s\n", name.c_str(), fw.minMs,
              rate(fw).c_str(), refName.c_str(), ref.minMs, rate(ref).c_str(), ratio,
              target.empty() ? "" : (" (target >= " + target + ")").c_str());
  std::printf("  medians: fw %.1f ms, %s %.1f ms (%d reps each, interleaved)\n", fw.medianMs,
              refName.c_str(), ref.medianMs, fw.reps);
  Row row;
  row.name = name;
  row.fwTime = fmtMs(fw) + (work > 0 ? rate(fw) : "");
  row.refName = refName;
  row.refTime = fmtMs(ref) + (work > 0 ? rate(ref) : "");
  row.ratio = fmtRatio(ratio);
  row.target = target.empty() ? "-" : ">= " + target;
  g_rows.push_back(row);
}

// ---------------------------------------------------------------------------
// Cases

struct Bench {
  Options opt;
  fw::Runtime rt;

  fw::Module load(const char *file) {
    std::string path = opt.modules + "/" + file;
    fw::Result<fw::Module> m = fw::Module::loadFile(rt, path);
    if (!m.ok())
      die("loading " + path, m.status());
    return *m;
  }
  size_t lookup(const fw::Module &m, const char *fn) {
    fw::Result<size_t> i = m.lookup(fn);
    if (!i.ok())
      die(std::string("looking up @") + fn, i.status());
    return *i;
  }
  std::vector<fw::Buffer> call(const fw::Module &m, size_t fn, const std::vector<fw::Buffer> &args,
                               const char *what) {
    fw::Result<std::vector<fw::Buffer>> r = m.call(fn, args);
    if (!r.ok())
      die(std::string("calling @") + what, r.status());
    return *r;
  }
  bool selected(const std::string &name) const {
    if (opt.only.empty())
      return true;
    for (auto &s : opt.only)
      if (name.find(s) != std::string::npos)
        return true;
    return false;
  }

  void matmul(int n) {
    std::string name = "matmul " + std::to_string(n);
    if (!selected(name))
      return;
    std::printf("\n== %s (f32, C = A @ B, %dx%dx%d)\n", name.c_str(), n, n, n);
    fw::Module m = load("matmul.fwb");
    std::string fnName = "matmul_" + std::to_string(n);
    size_t fn = lookup(m, fnName.c_str());
    size_t nn = size_t(n) * n;
    fw::Buffer a = makeBuffer(rt, {n, n}, randomFloats(nn, 1, -1, 1));
    fw::Buffer b = makeBuffer(rt, {n, n}, randomFloats(nn, 2, -1, 1));
    FloatArray c = allocFloats(nn);
    ref_sgemm(dataOf(a), dataOf(b), c.get(), n, n, n);
    {
      std::vector<fw::Buffer> r = call(m, fn, {a, b}, fnName.c_str());
      reportError(name.c_str(), "OpenBLAS", compare(dataOf(r[0]), c.get(), nn), 1e-4);
    }
    std::vector<Stats> s = timeSideBySide(
        opt, {fwSide(m, fn, {a, b}), [&] {
                return timeMs([&] { ref_sgemm(dataOf(a), dataOf(b), c.get(), n, n, n); });
              }});
    printLine(name, s[0], "OpenBLAS", s[1], 2.0 * n * n * double(n), "0.8");
  }

  void matmulBiasRelu() {
    const int n = 1024;
    std::string name = "matmul+bias+relu 1024";
    if (!selected(name))
      return;
    std::printf("\n== %s (relu(X @ W + b), one fw function; reference: sgemm, then a bias+ReLU "
                "loop)\n",
                name.c_str());
    fw::Module m = load("matmul_bias_relu.fwb");
    size_t fn = lookup(m, "matmul_bias_relu");
    size_t nn = size_t(n) * n;
    fw::Buffer x = makeBuffer(rt, {n, n}, randomFloats(nn, 3, -1, 1));
    fw::Buffer w = makeBuffer(rt, {n, n}, randomFloats(nn, 4, -1, 1));
    fw::Buffer bias = makeBuffer(rt, {n}, randomFloats(n, 5, -1, 1));
    FloatArray c = allocFloats(nn);
    auto ref = [&] {
      ref_sgemm(dataOf(x), dataOf(w), c.get(), n, n, n);
      ref_bias_relu(c.get(), dataOf(bias), n, n);
    };
    ref();
    {
      std::vector<fw::Buffer> r = call(m, fn, {x, w, bias}, "matmul_bias_relu");
      reportError(name.c_str(), "OpenBLAS+loop", compare(dataOf(r[0]), c.get(), nn), 1e-4);
    }
    std::vector<Stats> s =
        timeSideBySide(opt, {fwSide(m, fn, {x, w, bias}), [&] { return timeMs(ref); }});
    printLine(name, s[0], "OpenBLAS+loop", s[1], 2.0 * n * n * double(n) + 2.0 * nn, "");
  }

  void conv() {
    const int h = 56, w = 56, c = 64, f = 64;
    std::string name = "conv3x3+bias+relu 56x56x64";
    if (!selected(name) && !selected("conv"))
      return;
    std::printf("\n== %s (relu(conv(x, w) + b), NHWC x HWCF, one fw function; reference: "
                "im2col, sgemm, bias+ReLU loop)\n",
                name.c_str());
    fw::Module m = load("conv.fwb");
    size_t fn = lookup(m, "conv_bias_relu");
    size_t in = size_t(h + 2) * (w + 2) * c, pixels = size_t(h) * w, k = 9 * size_t(c);
    fw::Buffer x = makeBuffer(rt, {1, h + 2, w + 2, c}, randomFloats(in, 6, -1, 1));
    fw::Buffer wt = makeBuffer(rt, {3, 3, c, f}, randomFloats(k * f, 7, -1, 1));
    fw::Buffer bias = makeBuffer(rt, {f}, randomFloats(f, 8, -1, 1));
    FloatArray cols = allocFloats(pixels * k), out = allocFloats(pixels * f);
    auto ref = [&] {
      ref_im2col3x3(dataOf(x), cols.get(), h, w, c);
      // The HWCF filter is already the K x F matrix of the GEMM.
      ref_sgemm(cols.get(), dataOf(wt), out.get(), int(pixels), f, int(k));
      ref_bias_relu(out.get(), dataOf(bias), int(pixels), f);
    };
    ref();
    {
      std::vector<fw::Buffer> r = call(m, fn, {x, wt, bias}, "conv_bias_relu");
      reportError(name.c_str(), "im2col+OpenBLAS", compare(dataOf(r[0]), out.get(), pixels * f),
                  1e-4);
    }
    std::vector<Stats> s =
        timeSideBySide(opt, {fwSide(m, fn, {x, wt, bias}), [&] { return timeMs(ref); }});
    printLine(name, s[0], "im2col+OpenBLAS+loop", s[1], 2.0 * double(pixels) * f * double(k), "");
  }

  void chain() {
    const size_t n = size_t(1) << 24;
    std::string name = "elementwise chain 16M";
    if (!selected(name) && !selected("chain"))
      return;
    std::printf("\n== %s (max(tanh(exp(a*b + c) - a), 0) * b + 1, 8 ops, f32)\n", name.c_str());
    fw::Module m = load("elementwise_chain.fwb");
    size_t fnGeneric = lookup(m, "chain");
    size_t fnArith = lookup(m, "chain_arith");
    int64_t dim = int64_t(n);
    fw::Buffer a = makeBuffer(rt, {dim}, randomFloats(n, 6, -1, 1));
    fw::Buffer b = makeBuffer(rt, {dim}, randomFloats(n, 7, -1, 1));
    fw::Buffer c = makeBuffer(rt, {dim}, randomFloats(n, 8, -1, 1));
    FloatArray eigenOut = allocFloats(n), cOut = allocFloats(n);
    std::vector<FloatArray> tmp;
    std::vector<float *> tmpPtrs;
    for (int i = 0; i < 7; ++i) {
      tmp.push_back(allocFloats(n));
      tmpPtrs.push_back(tmp.back().get());
    }
    auto runEigen = [&] { ref_chain_eigen(dataOf(a), dataOf(b), dataOf(c), eigenOut.get(), n); };
    auto runC = [&] {
      ref_chain_unfused(dataOf(a), dataOf(b), dataOf(c), tmpPtrs.data(), cOut.get(), n);
    };
    runEigen();
    runC();
    reportError("Eigen (reference)", "plain C", compare(eigenOut.get(), cOut.get(), n), 1e-5);
    {
      std::vector<fw::Buffer> r = call(m, fnGeneric, {a, b, c}, "chain");
      reportError("chain (generics)", "plain C", compare(dataOf(r[0]), cOut.get(), n), 1e-5);
      std::vector<fw::Buffer> r2 = call(m, fnArith, {a, b, c}, "chain_arith");
      reportError("chain_arith", "plain C", compare(dataOf(r2[0]), cOut.get(), n), 1e-5);
    }
    std::vector<Stats> s = timeSideBySide(
        opt, {fwSide(m, fnGeneric, {a, b, c}), fwSide(m, fnArith, {a, b, c}),
              [&] { return timeMs(runEigen); }, [&] { return timeMs(runC); }});
    printLine("chain 16M (8 generics) vs Eigen", s[0], "Eigen fused", s[2], 0, "0.9");
    printLine("chain 16M (8 generics) vs unfused C", s[0], "C 8 passes", s[3], 0, "3");
    printLine("chain 16M (arith on tensors) vs Eigen", s[1], "Eigen fused", s[2], 0, "0.9");
    printLine("chain 16M (arith on tensors) vs unfused C", s[1], "C 8 passes", s[3], 0, "3");
  }

  void softmax() {
    const int rows = 4096, cols = 1024;
    std::string name = "softmax 4096x1024";
    if (!selected(name))
      return;
    std::printf("\n== %s (rows; fw: 4 linalg.generic / linalg.softmax; reference: C loop)\n",
                name.c_str());
    fw::Module m = load("softmax.fwb");
    size_t fnGeneric = lookup(m, "softmax");
    size_t fnNamed = lookup(m, "softmax_named");
    size_t n = size_t(rows) * cols;
    fw::Buffer x = makeBuffer(rt, {rows, cols}, randomFloats(n, 9, -4, 4));
    FloatArray y = allocFloats(n);
    auto ref = [&] { ref_softmax(dataOf(x), y.get(), rows, cols); };
    ref();
    {
      std::vector<fw::Buffer> r = call(m, fnGeneric, {x}, "softmax");
      reportError("softmax (generics)", "C loop", compare(dataOf(r[0]), y.get(), n), 1e-5);
      std::vector<fw::Buffer> r2 = call(m, fnNamed, {x}, "softmax_named");
      reportError("softmax (linalg.softmax)", "C loop", compare(dataOf(r2[0]), y.get(), n),
                  1e-5);
    }
    std::vector<Stats> s = timeSideBySide(
        opt, {fwSide(m, fnGeneric, {x}), fwSide(m, fnNamed, {x}), [&] { return timeMs(ref); }});
    printLine("softmax 4096x1024 (generics)", s[0], "C loop", s[2], 0, "");
    printLine("softmax 4096x1024 (linalg.softmax)", s[1], "C loop", s[2], 0, "");
  }

  void rowSum() {
    const int rows = 4096, cols = 4096;
    std::string name = "row sum 4096x4096";
    if (!selected(name))
      return;
    std::printf("\n== %s (linalg.reduce over the last axis; reference: C loop)\n", name.c_str());
    fw::Module m = load("row_sum.fwb");
    size_t fn = lookup(m, "row_sum");
    size_t n = size_t(rows) * cols;
    fw::Buffer x = makeBuffer(rt, {rows, cols}, randomFloats(n, 10, -1, 1));
    FloatArray y = allocFloats(rows);
    auto ref = [&] { ref_row_sum(dataOf(x), y.get(), rows, cols); };
    ref();
    {
      std::vector<fw::Buffer> r = call(m, fn, {x}, "row_sum");
      reportError(name.c_str(), "C loop", compare(dataOf(r[0]), y.get(), rows), 1e-4);
    }
    std::vector<Stats> s =
        timeSideBySide(opt, {fwSide(m, fn, {x}), [&] { return timeMs(ref); }});
    printLine(name, s[0], "C loop", s[1], 0, "");
  }

  void gather() {
    const int64_t rows = 100000, n = 262144;
    const int cols = 64;
    std::string name = "gather 262144x64";
    if (!selected(name))
      return;
    std::printf("\n== %s (embedding lookup with checked ids; reference: C row copies)\n",
                name.c_str());
    fw::Module m = load("gather.fwb");
    size_t fn = lookup(m, "lookup");
    fw::Buffer table =
        makeBuffer(rt, {rows, cols}, randomFloats(size_t(rows) * cols, 11, -1, 1));
    std::vector<int64_t> idValues(n);
    uint64_t state = 12;
    for (int64_t &id : idValues) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      id = int64_t((state >> 33) % uint64_t(rows));
    }
    fw::Result<fw::Buffer> ids = fw::Buffer::fromVector<int64_t>(rt, {n}, idValues);
    if (!ids.ok())
      die("creating an input buffer", ids.status());
    size_t total = size_t(n) * cols;
    FloatArray y = allocFloats(total);
    auto ref = [&] { ref_gather(dataOf(table), idValues.data(), y.get(), n, cols); };
    ref();
    {
      std::vector<fw::Buffer> r = call(m, fn, {table, *ids}, "lookup");
      reportError(name.c_str(), "C row copies", compare(dataOf(r[0]), y.get(), total), 0);
    }
    std::vector<Stats> s =
        timeSideBySide(opt, {fwSide(m, fn, {table, *ids}), [&] { return timeMs(ref); }});
    printLine(name, s[0], "C row copies", s[1], 0, "");
  }
};

void usage() {
  std::puts("usage: fw-bench [--modules DIR] [--reps N] [--budget SECONDS] [--only SUBSTR]... "
            "[--threads N] [--markdown]\n"
            "  --modules DIR   where the .fwb files are (default: the build's bench modules)\n"
            "  --reps N        timed repetitions per side (default: adaptive, 5..30 within the budget)\n"
            "  --budget S      adaptive: seconds per side and case (default 2)\n"
            "  --only SUBSTR   run only cases whose name contains SUBSTR (repeatable): "
            "'matmul 1024', 'matmul 2048', 'matmul+bias', 'conv', 'chain', 'softmax', 'row sum',\n"
            "                  'gather'\n"
            "  --threads N     fw CPU workers and OpenBLAS threads (default 1; Eigen and C stay at 1)\n"
            "  --markdown      also print the results as a markdown table");
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--modules")
      opt.modules = value();
    else if (a == "--reps")
      opt.reps = std::atoi(value().c_str());
    else if (a == "--budget")
      opt.budget = std::atof(value().c_str());
    else if (a == "--only")
      opt.only.push_back(value());
    else if (a == "--markdown")
      opt.markdown = true;
    else if (a == "--threads")
      opt.threads = std::max(1, std::atoi(value().c_str()));
    else {
      usage();
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }

  // OpenBLAS's idle threads spin for a long time after each call, taking cores from the fw
  // workers timed right after them: with several threads, ask them to sleep sooner. The
  // setting is read when OpenBLAS loads, hence the restart.
  if (opt.threads > 1 && !std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    execv("/proc/self/exe", argv);
    std::perror("fw-bench: restarting with OPENBLAS_THREAD_TIMEOUT=4");
  }
  openblas_set_num_threads(opt.threads);
  fw_runtime_options_t options;
  std::memset(&options, 0, sizeof(options));
  options.num_workers = static_cast<uint32_t>(opt.threads);
  fw::Result<fw::Runtime> rt = fw::Runtime::create(options);
  if (!rt.ok())
    die("creating the runtime", rt.status());

  std::printf("fw-bench: %d thread(s) (fw CPU workers, OpenBLAS); fw modules from %s "
              "(fwc --targets=%s)\n",
              opt.threads, opt.modules.c_str(), FW_BENCH_TARGETS);
  std::printf("references: %s, -O3 -march=native; OpenBLAS %s, core %s, %d thread(s)\n",
              FW_BENCH_CXX_COMPILER, openblas_get_config(), openblas_get_corename(),
              openblas_get_num_threads());
  std::printf("times: minimum over interleaved repetitions; ratio = reference time / fw time "
              "(> 1: fw faster)\n");

  Bench bench{opt, *rt};
  bench.matmul(1024);
  bench.matmul(2048);
  bench.matmulBiasRelu();
  bench.conv();
  bench.chain();
  bench.softmax();
  bench.rowSum();
  bench.gather();

  if (opt.markdown && !g_rows.empty()) {
    std::puts("\n| case | fw | reference | reference time | ratio | target |");
    std::puts("|---|---|---|---|---|---|");
    for (const Row &r : g_rows)
      std::printf("| %s | %s | %s | %s | %s | %s |\n", r.name.c_str(), r.fwTime.c_str(),
                  r.refName.c_str(), r.refTime.c_str(), r.ratio.c_str(), r.target.c_str());
  }
  if (!g_allCorrect) {
    std::puts("\nfw-bench: some results do not match their reference (see MISMATCH above)");
    return 1;
  }
  return 0;
}
