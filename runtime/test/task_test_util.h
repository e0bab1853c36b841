// Shared helpers for the tests of the task graph, the memory tiers and the simulator
// (public API only).
#ifndef FW_RUNTIME_TEST_TASK_TEST_UTIL_H_
#define FW_RUNTIME_TEST_TASK_TEST_UTIL_H_

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "test_util.h"

namespace fwtest {

inline const char *schedulerName(fw_scheduler_kind_t kind) {
  switch (kind) {
  case FW_SCHEDULER_EAGER: return "eager";
  case FW_SCHEDULER_WS: return "ws";
  case FW_SCHEDULER_HEFT: return "heft";
  default: return "default";
  }
}

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/fw-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) path_ = buf.data();
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  // Names of the entries in the directory.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(path_, ec))
      names.push_back(e.path().filename().string());
    return names;
  }

 private:
  std::string path_;
};

// Whether the file system under `dir` takes an O_DIRECT write of one 4 KiB block from
// aligned memory: where it does, the storage tier moves large buffers with direct I/O.
inline bool directIoWorks(const std::string &dir) {
  std::string path = dir + "/.direct-io-probe";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
  if (fd < 0) return false;
  void *block = std::aligned_alloc(4096, 4096);
  bool ok = false;
  if (block) {
    std::memset(block, 0, 4096);
    ok = pwrite(fd, block, 4096, 0) == 4096;
    std::free(block);
  }
  close(fd);
  unlink(path.c_str());
  return ok;
}

// Options with every field explicit, so that FW_* environment variables do not change
// what a test checks.
inline fw_runtime_options_t taskOptions(fw_scheduler_kind_t kind, uint32_t workers) {
  fw_runtime_options_t o;
  std::memset(&o, 0, sizeof(o));
  o.scheduler = kind;
  o.num_workers = workers;
  return o;
}

// A 1-D buffer of `count` uint64 values, filled with `values` when non-empty.
inline fw_buffer_t *makeU64Buffer(fw_runtime_t *rt, size_t count,
                                  const std::vector<uint64_t> &values = {}) {
  const int64_t dims[1] = {int64_t(count)};
  fw_buffer_t *b = nullptr;
  fw_status_t s = fw_buffer_create(rt, FW_ELEMENT_TYPE_I64, 1, dims,
                                   values.empty() ? nullptr : values.data(),
                                   values.empty() ? 0 : values.size() * sizeof(uint64_t), &b);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  return b;
}

inline std::vector<uint64_t> readU64(fw_buffer_t *b) {
  size_t n = fw_buffer_element_count(b);
  const auto *p = static_cast<const uint64_t *>(fw_buffer_data(b));
  EXPECT_NE(p, nullptr);
  if (!p) return {};
  return std::vector<uint64_t>(p, p + n);
}

// The description of a task named `name` whose CPU body is `fn` with `user`, over
// `accesses` (which must outlive it); everything else unset.
inline fw_task_desc_t describeTask(const char *name, fw_task_fn_t fn, void *user,
                                   const std::vector<fw_task_access_t> &accesses = {}) {
  fw_task_desc_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = name;
  d.fn = fn;
  d.user_data = user;
  d.accesses = accesses.data();
  d.num_accesses = accesses.size();
  return d;
}

// Submits a task, after the tasks in `after` too; keeps the handle in `*out` when given.
inline fw_status_t submit(fw_runtime_t *rt, const char *name, fw_task_fn_t fn, void *user,
                          std::vector<fw_task_access_t> accesses, fw_task_t **out = nullptr,
                          std::vector<fw_task_t *> after = {}) {
  fw_task_desc_t d = describeTask(name, fn, user, accesses);
  d.after = after.data();
  d.num_after = after.size();
  return fw_task_submit(rt, &d, out);
}

// A task body that adds 1 to element 0 of its first buffer (an i64 counter).
inline void addOne(void *, void *const *data, size_t) { ++static_cast<uint64_t *>(data[0])[0]; }

// A chain of `length` tasks, each accessing `buffer` in `mode` and adding 1 to it (addOne),
// each submitted by the completion callback (fw_task_desc_t.on_done) of the one before:
// startCallbackChain submits the first; `links` counts them (`length` once all ran).
struct CallbackChain {
  fw_runtime_t *rt;
  fw_buffer_t *buffer;
  fw_access_t mode;
  int length;
  int links = 0;
};

inline void submitNextLink(void *user, fw_status_t status) {
  auto *c = static_cast<CallbackChain *>(user);
  EXPECT_EQ(status, nullptr);
  if (++c->links == c->length) return;
  fw_task_access_t access = {c->buffer, c->mode};
  fw_task_desc_t d = describeTask("link", addOne, c);
  d.accesses = &access;
  d.num_accesses = 1;
  d.on_done = submitNextLink;
  EXPECT_EQ(fw_task_submit(c->rt, &d, nullptr), nullptr);
}

inline void startCallbackChain(CallbackChain *c) {
  c->links = -1;
  submitNextLink(c, FW_OK);
}

// Instantiates a test suite parameterized by fw_scheduler_kind_t under every policy, each
// instance named after its policy.
#define FW_INSTANTIATE_FOR_EVERY_POLICY(Suite)                                           \
  INSTANTIATE_TEST_SUITE_P(                                                              \
      Policies, Suite,                                                                   \
      ::testing::Values(FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT),         \
      [](const ::testing::TestParamInfo<fw_scheduler_kind_t> &info) {                    \
        return std::string(fwtest::schedulerName(info.param));                           \
      })

// Sets an environment variable (unsets it, for NULL) for the scope, and puts back what it
// was.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    const char *old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

 private:
  const char *name_;
  bool had_;
  std::string old_;
};

inline void sleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// Polls `ready` every millisecond until it holds, 10 s at most (a gate a test opens, a
// state it waits for): whether it held.
template <typename Ready>
bool waitUntil(Ready ready) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    sleepMs(1);
  }
  return true;
}

// A deterministic 64-bit mix (splitmix64's finaliser).
inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Holds `workers` workers (of runtime `rt`, which has that many) with tasks that wait,
// submits four tasks of priority 1 then one of priority 5, lets the workers go, and
// expects the later one of higher priority among the first `workers` to start: the workers
// let go together each take a task, and which of them stamps first is up to the threads
// (under TSan a low task taken beside the high one stamped first). A low task waits, after
// its stamp, for the high one to start (two seconds at most), so that a worker cannot go on
// to more low tasks while the one that took the high task has yet to stamp it.
inline void expectLaterHigherPriorityTaskRunsFirst(fw_runtime_t *rt, int workers) {
  struct Gate {
    std::atomic<int> started{0};
    std::atomic<bool> open{false};
  };
  struct Order {
    std::atomic<int> next{0};
    std::atomic<bool> highStarted{false};
    std::chrono::steady_clock::time_point deadline;
  };
  struct Ticket {
    Order *order;
    bool high;
    int at = -1;
  };
  auto hold = [](void *user, void *const *, size_t) {
    auto *g = static_cast<Gate *>(user);
    g->started.fetch_add(1);
    while (!g->open.load()) std::this_thread::yield();
  };
  auto stamp = [](void *user, void *const *, size_t) {
    auto *t = static_cast<Ticket *>(user);
    Order *o = t->order;
    t->at = o->next.fetch_add(1);
    if (t->high) o->highStarted.store(true);
    while (!o->highStarted.load() && std::chrono::steady_clock::now() < o->deadline)
      std::this_thread::yield();
  };
  Gate gate;
  for (int i = 0; i < workers; ++i) FW_ASSERT_OK(submit(rt, "hold", hold, &gate, {}));
  while (gate.started.load() < workers) std::this_thread::yield();
  Order order;
  std::vector<Ticket> low(4, Ticket{&order, false});
  Ticket high{&order, true};
  auto submitAt = [&](Ticket *t, int32_t priority) {
    fw_task_desc_t d;
    std::memset(&d, 0, sizeof(d));
    d.name = "stamp";
    d.fn = stamp;
    d.user_data = t;
    d.priority = priority;
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  };
  for (Ticket &t : low) submitAt(&t, 1);
  submitAt(&high, 5);
  order.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  gate.open.store(true);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_LT(high.at, workers) << "the high-priority task started after low ones";
}

// A simulated device (fw_runtime_options_t.simulate) of `workers` workers at `gflops`,
// everything else unset.
inline fw_sim_device_t simDevice(const char *name, fw_target_kind_t kind, uint32_t workers,
                                 double gflops) {
  fw_sim_device_t d;
  std::memset(&d, 0, sizeof(d));
  d.name = name;
  d.kind = kind;
  d.workers = workers;
  d.gflops = gflops;
  return d;
}

// A runtime with options `o`; NULL, failing the test, when it cannot be made.
inline fw_runtime_t *createRuntime(const fw_runtime_options_t &o) {
  fw_runtime_t *rt = nullptr;
  fw_status_t s = fw_runtime_create(&o, &rt);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  return rt;
}

// A runtime of `workers` CPU workers under `policy` that records a trace
// (FW_RUNTIME_TRACE); NULL, failing the test, when it cannot be made.
inline fw_runtime_t *tracedRuntime(fw_scheduler_kind_t policy, uint32_t workers) {
  fw_runtime_options_t o = taskOptions(policy, workers);
  o.flags = FW_RUNTIME_TRACE;
  return createRuntime(o);
}

// The trace `rt` recorded so far, as text, written through a file in `dir` (empty,
// failing the test, when it cannot be written).
inline std::string traceText(fw_runtime_t *rt, const TempDir &dir) {
  std::string path = dir.file("trace.json");
  fw_status_t s = fw_runtime_write_trace(rt, path.c_str());
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  std::vector<uint8_t> bytes = readFile(path);
  return std::string(bytes.begin(), bytes.end());
}

// How many times the regular expression `pattern` matches in `text`.
inline size_t countMatches(const std::string &text, const std::string &pattern) {
  std::regex re(pattern);
  return size_t(std::distance(std::sregex_iterator(text.begin(), text.end(), re),
                              std::sregex_iterator()));
}

// The dependency edges of a trace (its flow starts).
inline size_t traceFlows(const std::string &text) {
  return countMatches(text, "\\{\"ph\":\"s\",");
}

// A runtime that simulates one CPU device of `workers` workers at `gflops` each, under
// heft (the runtime copies the machine); NULL, failing the test, when it cannot be made.
inline fw_runtime_t *simulatedCpuRuntime(uint32_t workers, double gflops,
                                         uint32_t max_submitted_tasks = 0) {
  fw_sim_device_t cpu = simDevice("cpu", FW_TARGET_KIND_CPU, workers, gflops);
  fw_sim_machine_t machine = {1, &cpu};
  fw_runtime_options_t o = taskOptions(FW_SCHEDULER_HEFT, 0);
  o.simulate = &machine;
  o.max_submitted_tasks = max_submitted_tasks;
  return createRuntime(o);
}

// A fixture with a runtime of two CPU workers under the policy the test is instantiated
// with.
class TwoWorkerPolicyTest : public ::testing::TestWithParam<fw_scheduler_kind_t> {
 protected:
  void SetUp() override { rt_ = createRuntime(taskOptions(GetParam(), 2)); }
  void TearDown() override { fw_runtime_destroy(rt_); }
  fw_runtime_t *rt_ = nullptr;
};

// A runtime on `devices` (options.devices, e.g. "cpu,cuda": the stand-in GPU of
// fake_cuda.c in service, with the test on its LD_LIBRARY_PATH) with `workers` CPU
// workers; NULL, failing the test, when it cannot be made.
inline fw_runtime_t *runtimeOn(const char *devices, fw_scheduler_kind_t policy,
                               uint32_t workers) {
  fw_runtime_options_t o = taskOptions(policy, workers);
  o.devices = devices;
  return createRuntime(o);
}

inline fw_runtime_stats_t statsOf(fw_runtime_t *rt) {
  fw_runtime_stats_t st;
  std::memset(&st, 0, sizeof(st));
  fw_status_t s = fw_runtime_get_stats(rt, &st);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
  return st;
}

// cuLaunchHostFunc (hipLaunchHostFunc) of the stand-in the runtime loaded: a function
// queued on a stream runs when something waits for the stream, as a kernel's work is done
// by then (fake_host_funcs.h).
using LaunchHostFunc = int (*)(void *stream, void (*fn)(void *), void *user);
inline LaunchHostFunc lookUpLaunchHostFunc(const char *library, const char *symbol) {
  void *lib = dlopen(library, RTLD_NOW | RTLD_NOLOAD);  // the runtime's: loaded already
  if (!lib) return nullptr;
  auto fn = reinterpret_cast<LaunchHostFunc>(dlsym(lib, symbol));
  dlclose(lib);  // the runtime holds it
  return fn;
}

// Looked up at each launch: a test that loads no HIP runtime may come first.
inline LaunchHostFunc launchHostFunc(bool hip) {
  return hip ? lookUpLaunchHostFunc("libamdhip64.so.6", "hipLaunchHostFunc")
             : lookUpLaunchHostFunc("libcuda.so.1", "cuLaunchHostFunc");
}

// The tasks the one GPU beside the CPU ran, failing the test when no GPU is in service.
inline uint64_t gpuTasks(fw_runtime_t *rt) {
  fw_runtime_stats_t st = statsOf(rt);
  EXPECT_EQ(st.num_devices, 2u) << "the stand-in GPU is not in service";
  return st.num_devices == 2 ? st.devices[1].tasks : ~uint64_t{0};
}

}  // namespace fwtest

#endif
