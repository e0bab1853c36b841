// fw-run: loads a compiled fw module (.fwb), runs one of its functions on the fw
// runtime and prints or saves the results. Flags follow iree-run-module:
//
//   fw-run model.fwb [--function=NAME] [--input=2x3xf32=1,2,3,4,5,6]... [--input=@x.npy]...
//          [--output=@y.npy | --output=-]... [--default-dim=N] [--print-max-elements=N]
//   fw-run --list model.fwb
//
// Every error is one line "fw-run: error: <message>" on stderr and exit code 1.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "files.h"
#include "fw/runtime.h"
#include "host_tensor.h"
#include "machine.h"
#include "npy.h"
#include "profile.h"
#include "report.h"

namespace {

using fwrun::formatSeconds;
using fwrun::HostTensor;

int fail(std::string message) {
  for (char &c : message)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "fw-run: error: %s\n", message.c_str());
  return 1;
}

// Takes ownership of `status`; returns its message.
std::string take(fw_status_t status) {
  std::string m = fw_status_message(status);
  fw_status_free(status);
  return m;
}

struct RuntimeDeleter {
  void operator()(fw_runtime_t *r) const { fw_runtime_destroy(r); }
};
struct ModuleDeleter {
  void operator()(fw_module_t *m) const { fw_module_release(m); }
};
struct BufferDeleter {
  void operator()(fw_buffer_t *b) const { fw_buffer_release(b); }
};
using BufferPtr = std::unique_ptr<fw_buffer_t, BufferDeleter>;

using fwrun::accessName;
using fwrun::typeString;

std::string signature(const fw_function_info_t &f) {
  std::string s = "@" + std::string(f.name) + "(";
  for (size_t i = 0; i < f.num_args; ++i) s += (i ? ", " : "") + typeString(f.arg_types[i]);
  s += ") -> (";
  for (size_t i = 0; i < f.num_results; ++i)
    s += (i ? ", " : "") + typeString(f.result_types[i]);
  return s + ")";
}

int listModule(fw_module_t *m) {
  std::printf("module %s\n", fw_module_name(m));
  for (size_t i = 0; i < fw_module_target_count(m); ++i) {
    fw_target_info_t t;
    fw_status_t s = fw_module_target_info(m, i, &t);
    if (s) return fail(take(s));
    std::printf("target %s %s (%s)%s%s\n", fwrun::targetKindName(t.kind), t.arch, t.triple,
                t.features[0] ? " features=" : "", t.features);
  }
  for (size_t i = 0; i < fw_module_function_count(m); ++i) {
    fw_function_info_t f;
    fw_status_t s = fw_module_function_info(m, i, &f);
    if (s) return fail(take(s));
    std::printf("func %s\n", signature(f).c_str());
  }
  for (size_t i = 0; i < fw_module_executable_count(m); ++i) {
    fw_executable_info_t e;
    fw_status_t s = fw_module_executable_info(m, i, &e);
    if (s) return fail(take(s));
    std::string bindings;
    for (size_t b = 0; b < e.num_bindings; ++b)
      bindings += (b ? ", " : "") + std::string(accessName(e.bindings[b].access)) + " " +
                  typeString(e.bindings[b].type);
    std::string hints;
    // With dynamic shapes the count is a sum of terms in the bindings' dims:
    // "flops=16*b0.d0*b0.d1+8*b0.d0".
    std::string flops = e.cost_flops ? std::to_string(e.cost_flops) : "";
    for (size_t t = 0; t < fw_module_cost_term_count(m, i); ++t) {
      fw_cost_term_info_t term;
      s = fw_module_cost_term_info(m, i, t, &term);
      if (s) return fail(take(s));
      flops += (flops.empty() ? "" : "+") + std::to_string(term.coefficient);
      for (uint32_t k = 0; k < term.num_factors; ++k)
        flops += "*b" + std::to_string(term.binding[k]) + ".d" + std::to_string(term.dim[k]);
    }
    if (!flops.empty()) hints += " flops=" + flops;
    if (e.cost_bytes) hints += " bytes=" + std::to_string(e.cost_bytes);
    if (e.priority) hints += " priority=" + std::to_string(e.priority);
    std::printf("executable @%s(%s)%s\n", e.name, bindings.c_str(), hints.c_str());
    for (size_t v = 0; v < e.num_variants; ++v) {
      fw_variant_info_t vi;
      fw_target_info_t t;
      s = fw_module_variant_info(m, i, v, &vi);
      if (!s) s = fw_module_target_info(m, vi.target, &t);
      if (s) return fail(take(s));
      std::printf("  variant %s %s: %s %s", fwrun::targetKindName(t.kind), t.arch,
                  vi.kind == FW_VARIANT_KIND_CPU_SYMBOL ? "symbol" : "image-kernel", vi.kernel);
      // How it runs: divided among the CPU workers, or blocks of so many threads.
      if (vi.kind == FW_VARIANT_KIND_CPU_SYMBOL && vi.workgroup_size[0] == 0)
        std::printf(" (divided among workers)");
      else if (vi.kind == FW_VARIANT_KIND_DEVICE_IMAGE)
        std::printf(" (blocks of %u threads)", vi.workgroup_size[0]);
      if (vi.config && vi.config[0]) std::printf(" config %s", vi.config);
      std::printf("\n");
    }
    for (size_t c = 0; c < e.num_checks; ++c)
      std::printf("  check %zu: %s\n", c + 1, e.checks[c]);
  }
  static const char *const kFormats[] = {"?", "cubin", "ptx", "hsaco", "spirv"};
  for (size_t i = 0, n = fw_module_image_count(m); i < n; ++i) {
    fw_image_info_t im;
    fw_target_info_t t;
    fw_status_t s = fw_module_image_info(m, i, &im);
    if (!s) s = fw_module_target_info(m, im.target, &t);
    if (s) return fail(take(s));
    std::printf("image %zu: %s %s %s, %llu bytes\n", i, fwrun::targetKindName(t.kind), t.arch,
                im.format >= 1 && im.format <= 4 ? kFormats[im.format] : kFormats[0],
                (unsigned long long)im.size);
  }
  return std::fflush(stdout) == 0 ? 0 : fail("cannot write to stdout");
}

// Picks --function, the only function, or @main.
bool pickFunction(fw_module_t *m, const std::string &requested, size_t *out_index,
                  std::string *error) {
  if (!requested.empty()) {
    fw_status_t s = fw_module_lookup_function(m, requested.c_str(), out_index);
    if (s) *error = take(s);
    return !s;
  }
  size_t n = fw_module_function_count(m);
  if (n == 1) {
    *out_index = 0;
    return true;
  }
  fw_status_t s = fw_module_lookup_function(m, "main", out_index);
  if (!s) return true;
  fw_status_free(s);
  std::string names;
  for (size_t i = 0; i < n; ++i) {
    fw_function_info_t f;
    fw_status_free(fw_module_function_info(m, i, &f));
    names += (i ? ", @" : "@") + std::string(f.name ? f.name : "?");
  }
  *error = n == 0 ? "module " + std::string(fw_module_name(m)) + " has no functions"
                  : "module " + std::string(fw_module_name(m)) + " has " + std::to_string(n) +
                        " functions and none is @main; pick one with --function: " + names;
  return false;
}

/* The buffer's contents, or in `error` why they cannot be brought back. */
HostTensor readBuffer(fw_buffer_t *b, std::string &error) {
  HostTensor t;
  fw_tensor_type_t type;
  fw_status_free(fw_buffer_type(b, &type));
  t.type = type.element_type;
  t.dims.assign(type.dims, type.dims + type.rank);
  void *data = nullptr;
  if (fw_status_t s = fw_buffer_map(b, &data)) {
    error = take(s);
    return t;
  }
  const uint8_t *p = static_cast<const uint8_t *>(data);
  t.data.assign(p, p + fw_buffer_byte_size(b));
  fw_buffer_unmap(b);  // copied: the runtime may move it again (a capped host tier)
  return t;
}

/* The devices fw_probe_devices finds, and the kinds it does not with the reason. */
bool probeDevices(std::vector<fw_device_report_t> *reports, std::string *error) {
  size_t count = 0;
  fw_status_t s = fw_probe_devices(nullptr, 0, &count);
  if (!s) {
    reports->resize(count);
    s = fw_probe_devices(reports->data(), reports->size(), &count);
    reports->resize(std::min(count, reports->size()));
  }
  if (s) *error = take(s);
  return !s;
}

/* --list-devices: one line per device found, and per kind missing with the reason. */
int listDevices() {
  std::vector<fw_device_report_t> reports;
  std::string error;
  if (!probeDevices(&reports, &error)) return fail(error);
  for (const fw_device_report_t &r : reports) {
    const char *kind = fwrun::targetKindName(r.kind);
    if (!r.available) {
      std::printf("%s: none (%s)\n", kind, r.why);
      continue;
    }
    std::printf("%s: %s, %s, %u %s", kind, r.name, r.arch, r.compute_units,
                r.kind == FW_TARGET_KIND_CPU ? "CPUs usable" : "compute units");
    if (r.memory_bytes)
      std::printf(", %.1f GiB", double(r.memory_bytes) / double(1ull << 30));
    std::printf("\n");
  }
  return std::fflush(stdout) == 0 ? 0 : fail("cannot write to stdout");
}

/* --devices (or FW_DEVICES, named by `source`) lists a GPU kind this machine lacks: the
 * run goes on, its kernels on the CPU, but a run meant for a GPU should not pass for one
 * silently. */
void warnMissingDevices(const std::string &devices, const char *source) {
  std::vector<fw_device_report_t> reports;
  std::string error;
  if (!probeDevices(&reports, &error)) return;
  std::stringstream list(devices);
  for (std::string kind; std::getline(list, kind, ',');) {
    if (kind == "cpu") continue;
    bool found = false;
    std::string why = "not found";
    for (const fw_device_report_t &r : reports)
      if (kind == fwrun::targetKindName(r.kind)) {
        found |= r.available != 0;
        if (!r.available) why = r.why;
      }
    if (!found)
      std::fprintf(stderr,
                   "fw-run: warning: %s lists %s, but this machine has none (%s); its "
                   "kernels run on the CPU\n",
                   source, kind.c_str(), why.c_str());
  }
}

int run(int argc, char **argv) {
  CLI::App app{"Runs a function of a compiled fw module (.fwb) on the fw runtime.", "fw-run"};
  std::string module_path, function;
  std::vector<std::string> inputs, outputs;
  bool list = false;
  int64_t default_dim = 4;
  int64_t print_max = 1024;
  int64_t benchmark = 0;
  bool list_devices = false;
  app.add_option("module", module_path, "The .fwb module to load (required but with --list-devices)");
  app.add_option("--function", function,
                 "Function to call (default: the only function, or main)");
  app.add_option("--input", inputs,
                 "Input value: DIMSxTYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6, f32=3.5) or "
                 "@FILE.npy; once per argument")
      ->allow_extra_args(false);
  app.add_option("--output", outputs,
                 "Where result i goes: @FILE.npy or - (print); none prints all results")
      ->allow_extra_args(false);
  app.add_flag("--list", list, "List the module's targets, functions and executables");
  app.add_flag("--list-devices", list_devices,
               "List this machine's devices (and, for kinds it lacks, why) and exit");
  app.add_option("--default-dim", default_dim,
                 "Size of dynamic dimensions of generated inputs (default 4)");
  app.add_option("--print-max-elements", print_max,
                 "Maximum number of elements printed per result (default 1024)");
  app.add_option("--benchmark", benchmark,
                 "After the first call (a warm-up whose results are output as "
                 "usual), call the function N more times on the same inputs and "
                 "print the minimum and median time per call")
      ->check(CLI::Range(int64_t(0), int64_t(1000000000)));
  int64_t benchmark_gap_us = 0;
  app.add_option("--benchmark-gap-us", benchmark_gap_us,
                 "Sleep this many microseconds between the timed calls (not counted): "
                 "calls that come apart, as requests to a server, which find the "
                 "runtime's threads asleep once the gap exceeds FW_SPIN_US")
      ->check(CLI::Range(int64_t(0), int64_t(10000000)));
  std::string trace_path, simulate_path, scheduler, tier_limits, host_memory, storage_dir,
      history, devices, profile_path;
  bool stats = false, no_prefetch = false;
  uint32_t workers = 0;
  app.add_option("--scheduler", scheduler, "Scheduling policy: eager, ws or heft (FW_SCHED)")
      ->check(CLI::IsMember({"eager", "ws", "heft"}));
  app.add_option("--workers", workers,
                 "CPU worker threads (FW_NUM_WORKERS; default: the CPUs this process may use)");
  app.add_option("--devices", devices,
                 "Device kinds kernels run on, e.g. cpu,cuda (FW_DEVICES; default: all "
                 "found). Without cpu, kernels go to the listed devices wherever they have "
                 "code there; the CPU runs the rest");
  app.add_option("--tier-limits", tier_limits,
                 "Memory tier capacities, e.g. host=64MiB,storage=1GiB, or host=min (as "
                 "little as the tasks allow) (FW_TIER_LIMITS)");
  app.add_option("--host-memory", host_memory,
                 "The host tier's capacity when --tier-limits does not cap it: a size "
                 "(4GiB), or unlimited (FW_HOST_MEMORY; default: the memory available at "
                 "the start)");
  app.add_option("--storage-dir", storage_dir,
                 "Directory of the storage tier (FW_STORAGE_DIR; default: a new one in $TMPDIR)");
  app.add_flag("--no-prefetch", no_prefetch, "Move data only when a task needs it (FW_PREFETCH=0)");
  app.add_option("--history", history,
                 "Execution-time history file, read at start and updated at exit (FW_HISTORY)");
  app.add_option("--trace", trace_path, "Write a Chrome/Perfetto trace (JSON) of the run");
  app.add_option("--profile-out", profile_path,
                 "Profile every kernel run (times, hardware or software counters) and add "
                 "it to this JSON file (docs/profile.md)");
  app.add_flag("--stats", stats,
               "Print tasks per device, bytes moved between tiers, evictions and prefetches");
  app.add_option("--simulate", simulate_path,
                 "Run the scheduler in virtual time on the machine described by this JSON "
                 "file, without executing kernels, and report the makespan");
  // "--trace=" with nothing after the '=' would take the next argument as its value.
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.back() == '=')
      return fail("option " + arg.substr(0, arg.size() - 1) + " needs a value after '='");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    return fail(e.what());
  }
  if (default_dim < 0) return fail("--default-dim must be >= 0");
  if (list_devices) return listDevices();
  if (module_path.empty()) return fail("no module given (fw-run MODULE.fwb ...; --help)");
  if (print_max < 0) return fail("--print-max-elements must be >= 0");
  if (benchmark_gap_us > 0 && benchmark == 0)
    return fail("--benchmark-gap-us needs --benchmark=N (it spaces the timed calls)");

  fwrun::Machine machine;
  fw_runtime_options_t options = {};
  if (!simulate_path.empty()) {
    std::string error;
    if (!machine.parseFile(simulate_path, &error)) return fail(error);
    if (benchmark > 0) return fail("--benchmark cannot be combined with --simulate");
    // The machine file says which devices there are and how many workers each has.
    if (!devices.empty())
      return fail("--devices cannot be combined with --simulate (the machine file lists the "
                  "devices)");
    if (workers) return fail("--workers cannot be combined with --simulate (the machine file "
                             "gives each device's workers)");
    if (!outputs.empty()) return fail("--output cannot be combined with --simulate (no kernel runs)");
    options.simulate = machine.get();
  }
  if (!scheduler.empty())
    options.scheduler = scheduler == "eager" ? FW_SCHEDULER_EAGER
                        : scheduler == "ws"  ? FW_SCHEDULER_WS
                                             : FW_SCHEDULER_HEFT;
  options.num_workers = workers;
  if (!tier_limits.empty()) options.tier_limits = tier_limits.c_str();
  if (!host_memory.empty()) options.host_memory = host_memory.c_str();
  if (!storage_dir.empty()) options.storage_dir = storage_dir.c_str();
  if (!history.empty()) options.history_path = history.c_str();
  if (!devices.empty()) options.devices = devices.c_str();
  if (no_prefetch) options.flags |= FW_RUNTIME_NO_PREFETCH;
  if (!trace_path.empty()) options.flags |= FW_RUNTIME_TRACE;
  if (!profile_path.empty()) {
    if (!simulate_path.empty()) return fail("--profile-out cannot be combined with --simulate");
    options.flags |= FW_RUNTIME_PROFILE;
  }
  fw_runtime_t *raw_rt = nullptr;
  if (fw_status_t s = fw_runtime_create(&options, &raw_rt)) return fail(take(s));
  std::unique_ptr<fw_runtime_t, RuntimeDeleter> rt(raw_rt);
  if (!devices.empty()) {
    warnMissingDevices(devices, "--devices");
  } else if (!options.simulate) {
    const char *env = std::getenv("FW_DEVICES");
    if (env && *env) warnMissingDevices(env, "FW_DEVICES");
  }
  fw_module_t *raw_module = nullptr;
  if (fw_status_t s = fw_module_load_file(rt.get(), module_path.c_str(), &raw_module))
    return fail(take(s));
  std::unique_ptr<fw_module_t, ModuleDeleter> module(raw_module);
  // Declared after the runtime and module so that they are released first.
  std::vector<BufferPtr> args, results;

  if (list) return listModule(module.get());
  if (options.simulate)
    for (const std::string &w : machine.unknownKernels(module.get()))
      std::fprintf(stderr, "fw-run: warning: %s: %s\n", simulate_path.c_str(), w.c_str());

  size_t index = 0;
  std::string error;
  if (!pickFunction(module.get(), function, &index, &error)) return fail(error);
  fw_function_info_t f;
  if (fw_status_t s = fw_module_function_info(module.get(), index, &f)) return fail(take(s));

  std::vector<HostTensor> host_inputs;
  if (inputs.empty()) {
    // Generated inputs are for trying a module out: more than 1 GiB in all
    // is almost certainly not what the user meant.
    constexpr size_t kMaxGeneratedBytes = size_t(1) << 30;
    size_t generated_bytes = 0;
    uint64_t state = 0x853c49e6748fea9bull;
    for (size_t i = 0; i < f.num_args; ++i) {
      const fw_tensor_type_t &t = f.arg_types[i];
      std::vector<int64_t> dims(t.dims, t.dims + t.rank);
      for (int64_t &d : dims)
        if (d < 0) d = default_dim;
      HostTensor h;
      size_t count = 0, esize = fw_element_type_size(t.element_type);
      if (!fwrun::elementCount(dims, esize, &count) ||
          (generated_bytes += count * esize) > kMaxGeneratedBytes)
        return fail("input " + std::to_string(i) + ": generated inputs of @" + f.name +
                    " would exceed 1 GiB; pass --input values or files");
      error = fwrun::generateTensor(t.element_type, dims, &state, &h);
      if (!error.empty()) return fail("input " + std::to_string(i) + ": " + error);
      std::fprintf(stderr, "input[%zu]: %s (generated)\n", i,
                   fwrun::formatType(h.type, h.dims).c_str());
      host_inputs.push_back(std::move(h));
    }
  } else {
    if (inputs.size() != f.num_args)
      return fail("@" + std::string(f.name) + " expects " + std::to_string(f.num_args) +
                  " inputs, got " + std::to_string(inputs.size()) + " --input flags");
    for (size_t i = 0; i < inputs.size(); ++i) {
      HostTensor h;
      if (!inputs[i].empty() && inputs[i][0] == '@')
        error = fwrun::readNpy(inputs[i].substr(1), &h);
      else
        error = fwrun::parseInlineTensor(inputs[i], &h, &f.arg_types[i]);
      if (!error.empty()) return fail("input " + std::to_string(i) + ": " + error);
      host_inputs.push_back(std::move(h));
    }
  }
  if (!outputs.empty() && outputs.size() != f.num_results)
    return fail("got " + std::to_string(outputs.size()) + " --output flags but @" + f.name +
                " has " + std::to_string(f.num_results) + " results");
  for (const std::string &o : outputs)
    if (o != "-" && (o.size() < 2 || o[0] != '@'))
      return fail("--output must be @FILE.npy or -, got '" + o + "'");
  // What the run writes at its end can be written: checked now, not after the work.
  std::vector<std::pair<std::string, std::string>> written = {{"--trace", trace_path},
                                                              {"--profile-out", profile_path}};
  for (const std::string &o : outputs)
    if (o != "-") written.emplace_back("--output", o.substr(1));
  for (const auto &[flag, path] : written)
    if (!path.empty() && !fwrun::canWriteFile(path, &error))
      return fail(flag + ": cannot write '" + path + "': " + error);

  std::vector<fw_buffer_t *> arg_ptrs;
  for (const HostTensor &h : host_inputs) {
    fw_buffer_t *b = nullptr;
    if (fw_status_t s = fw_buffer_create(rt.get(), h.type, h.dims.size(), h.dims.data(),
                                         h.data.data(), h.data.size(), &b))
      return fail(take(s));
    args.emplace_back(b);
    arg_ptrs.push_back(b);
  }
  // Statistics and the trace come after the last call, and after a failed call (what ran
  // before it failed; a failed run writes no profile).
  auto finish = [&](bool failed = false) -> int {
    if (stats) {
      fw_runtime_stats_t st;
      if (fw_status_t s = fw_runtime_get_stats(rt.get(), &st)) return fail(take(s));
      std::printf("%s", fwrun::formatStats(st).c_str());
      std::printf("%s", fwrun::formatTuning(module.get()).c_str());
      std::printf("%s", fwrun::formatDivision(module.get()).c_str());
    }
    if (!trace_path.empty())
      if (fw_status_t s = fw_runtime_write_trace(rt.get(), trace_path.c_str()))
        return fail(take(s));
    if (!profile_path.empty() && !failed) {
      std::string warning, error;
      if (!fwrun::writeProfile(rt.get(), module.get(), profile_path, &warning, &error))
        return fail(error);
      if (!warning.empty()) std::fprintf(stderr, "fw-run: warning: %s\n", warning.c_str());
    }
    // The runtime saves the history again when it is destroyed, where a failure has no
    // one to report to: saved here first, a full disk is an error.
    const char *history_file = !history.empty() ? history.c_str() : std::getenv("FW_HISTORY");
    if (history_file && *history_file && !options.simulate)
      if (fw_status_t s = fw_runtime_save_history(rt.get(), history_file)) return fail(take(s));
    if (std::fflush(stdout) != 0) return fail("cannot write to stdout");
    return 0;
  };

  std::vector<fw_buffer_t *> result_ptrs(f.num_results, nullptr);
  fw_status_t s = fw_module_call(module.get(), index, arg_ptrs.data(), arg_ptrs.size(),
                                 result_ptrs.data(), result_ptrs.size());
  if (s) {
    int rc = fail(take(s));
    finish(/*failed=*/true);
    return rc;
  }
  for (fw_buffer_t *b : result_ptrs) results.emplace_back(b);

  if (options.simulate) {
    fw_sim_report_t report;
    if (fw_status_t s = fw_runtime_simulation_report(rt.get(), &report)) return fail(take(s));
    bool calibrated = false;
    for (size_t d = 0; d < options.simulate->num_devices; ++d)
      calibrated |= options.simulate->devices[d].history_speed > 0;
    std::printf("%s", fwrun::formatSimulation(report, calibrated).c_str());
    return finish();
  }

  for (size_t i = 0; i < results.size(); ++i) {
    std::string why;
    HostTensor t = readBuffer(results[i].get(), why);
    if (!why.empty())
      return fail("result " + std::to_string(i) +
                  ": its contents cannot be brought back to host memory: " + why);
    if (!outputs.empty() && outputs[i] != "-") {
      error = fwrun::writeNpy(outputs[i].substr(1), t);
      if (!error.empty()) return fail("result " + std::to_string(i) + ": " + error);
      continue;
    }
    std::printf("result[%zu]: %s\n%s\n", i, fwrun::formatType(t.type, t.dims).c_str(),
                fwrun::formatTensor(t, size_t(print_max)).c_str());
  }
  if (benchmark > 0) {
    results.clear();  // free their memory (and the host tier) for the timed calls
    std::vector<double> times;
    times.reserve(size_t(benchmark));
    for (int64_t n = 0; n < benchmark; ++n) {
      if (benchmark_gap_us > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(benchmark_gap_us));
      std::vector<fw_buffer_t *> out(f.num_results, nullptr);
      auto start = std::chrono::steady_clock::now();
      fw_status_t status = fw_module_call(module.get(), index, arg_ptrs.data(),
                                          arg_ptrs.size(), out.data(), out.size());
      auto stop = std::chrono::steady_clock::now();
      for (fw_buffer_t *b : out) fw_buffer_release(b);
      if (status) {
        int rc = fail("benchmark call " + std::to_string(n) + ": " + take(status));
        finish(/*failed=*/true);
        return rc;
      }
      times.push_back(std::chrono::duration<double>(stop - start).count());
    }
    std::sort(times.begin(), times.end());
    size_t mid = times.size() / 2;
    double median =
        times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
    std::printf("benchmark @%s: %lld calls after 1 warm-up", f.name, (long long)benchmark);
    if (benchmark_gap_us > 0) std::printf(", %lld us apart", (long long)benchmark_gap_us);
    std::printf("\n");
    std::printf("min: %s\n", formatSeconds(times.front()).c_str());
    std::printf("median: %s\n", formatSeconds(median).c_str());
  }
  return finish();
}

}  // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  } catch (const std::exception &e) {
    return fail(e.what());
  } catch (...) {
    return fail("unexpected internal error");
  }
}
