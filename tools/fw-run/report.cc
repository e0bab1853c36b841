#include "report.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

namespace fwrun {

const char *accessName(fw_access_t access) {
  switch (access) {
  case FW_ACCESS_READ: return "read";
  case FW_ACCESS_WRITE: return "write";
  case FW_ACCESS_READ_WRITE: return "readwrite";
  case FW_ACCESS_COMMUTE: return "commute";
  case FW_ACCESS_READ_WRITE_COMMUTE: return "readwrite commute";
  case FW_ACCESS_REDUCE: return "reduce";
  }
  return "unknown";
}

std::string typeString(const fw_tensor_type_t &type) {
  char buf[256];
  fw_tensor_type_format(&type, buf, sizeof(buf));
  return buf;
}

std::string bindingTypes(const fw_executable_info_t &executable) {
  std::string types;
  for (size_t b = 0; b < executable.num_bindings; ++b)
    types += (b ? ", " : "") + typeString(executable.bindings[b].type);
  return types;
}

namespace {

const char *const kTierNames[FW_NUM_TIERS] = {"device", "host", "storage"};

std::string printf1(const char *format, double value, const char *unit) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value, unit);
  return buf;
}

}  // namespace

const char *targetKindName(fw_target_kind_t kind) {
  switch (kind) {
  case FW_TARGET_KIND_CPU: return "cpu";
  case FW_TARGET_KIND_CUDA: return "cuda";
  case FW_TARGET_KIND_HIP: return "hip";
  }
  return "unknown";
}

const char *tierName(int tier) {
  return tier >= 0 && tier < FW_NUM_TIERS ? kTierNames[tier] : "unknown";
}

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  return printf1("%.1f %s", v, units[u]);
}

std::string formatSeconds(double seconds) {
  // Three significant digits; a value that rounds up to 1000 takes the next unit, so
  // 999.6 us reads 1 ms and not 1e+03 us.
  if (seconds < 0.9995e-3) return printf1("%.3g %s", seconds * 1e6, "us");
  if (seconds < 0.9995) return printf1("%.3g %s", seconds * 1e3, "ms");
  return printf1("%.3g %s", seconds, "s");
}

std::string formatStats(const fw_runtime_stats_t &s) {
  std::string out = "stats: scheduler " + std::string(s.scheduler ? s.scheduler : "?") + ", " +
                    std::to_string(s.tasks_submitted) + " tasks submitted, " +
                    std::to_string(s.tasks_executed) + " executed, " +
                    std::to_string(s.tasks_failed) + " failed\n";
  if (s.tasks_rerun || s.devices_lost)
    out += "  GPU failures: " + std::to_string(s.tasks_rerun) + " tasks rerun elsewhere, " +
           std::to_string(s.devices_lost) + (s.devices_lost == 1 ? " device" : " devices") +
           " taken out of service\n";
  for (size_t d = 0; d < s.num_devices; ++d)
    out += "  device " + std::string(s.devices[d].name) + ": " +
           std::to_string(s.devices[d].workers) + (s.devices[d].workers == 1 ? " worker, " : " workers, ") +
           std::to_string(s.devices[d].tasks) + " tasks, busy " +
           formatSeconds(s.devices[d].busy_seconds) +
           (s.devices[d].link_gbps > 0
                ? printf1(", link %.2f GB/s measured", s.devices[d].link_gbps, "")
                : std::string()) +
           (d == 0 && s.tasks_by_waiters
                ? " (" + std::to_string(s.tasks_by_waiters) + " run by waiting threads)"
                : std::string()) +
           "\n";
  if (s.kernel_buffers_freed)
    out += "  kernel buffers freed after their kernel returned: " +
           std::to_string(s.kernel_buffers_freed) + "\n";
  bool moved = false;
  for (int a = 0; a < FW_NUM_TIERS; ++a)
    for (int b = 0; b < FW_NUM_TIERS; ++b)
      if (s.bytes_moved[a][b]) {
        out += "  moved " + std::string(kTierNames[a]) + " -> " + kTierNames[b] + ": " +
               formatBytes(s.bytes_moved[a][b]);
        if (s.copy_seconds[a][b] > 0)
          out += printf1(" (%.2f GB/s a copy)",
                         static_cast<double>(s.bytes_moved[a][b]) / s.copy_seconds[a][b] * 1e-9,
                         "");
        out += "\n";
        moved = true;
      }
  if (!moved) out += "  moved: nothing between tiers\n";
  uint64_t storageBytes = 0;
  for (int t = 0; t < FW_NUM_TIERS; ++t)
    if (t != FW_TIER_STORAGE)
      storageBytes += s.bytes_moved[t][FW_TIER_STORAGE] + s.bytes_moved[FW_TIER_STORAGE][t];
  if (storageBytes)
    out += "  storage I/O: " + formatBytes(s.storage_direct_bytes) + " direct, " +
           formatBytes(storageBytes - std::min(storageBytes, s.storage_direct_bytes)) +
           " through the page cache\n";
  out += "  evictions: " + std::to_string(s.evictions) +
         ", prefetches: " + std::to_string(s.prefetch_requests) +
         ", prefetch hits: " + std::to_string(s.prefetch_hits) +
         ", demand fetches: " + std::to_string(s.demand_fetches) +
         ", input stall: " + formatSeconds(s.stall_seconds) + "\n";
  for (int t = 0; t < FW_NUM_TIERS; ++t)
    if (s.peak_bytes[t] || s.limit_bytes[t])
      out += "  peak " + std::string(kTierNames[t]) + ": " + formatBytes(s.peak_bytes[t]) +
             (s.limit_bytes[t] ? " of " + formatBytes(s.limit_bytes[t]) : std::string()) + "\n";
  if (s.batches_planned)
    out += "  planning: " + std::to_string(s.batches_planned) +
           (s.batches_planned == 1 ? " batch, " : " batches, ") + std::to_string(s.plans_made) +
           (s.plans_made == 1 ? " plan, " : " plans, ") + formatSeconds(s.planning_seconds) +
           "\n";
  return out;
}

std::string formatSimulation(const fw_sim_report_t &r, bool calibrated) {
  std::string out = "simulation: " + std::to_string(r.tasks) + " tasks\n";
  if (calibrated)
    out += "  timed from the history: " + std::to_string(r.measured_tasks) + " of " +
           std::to_string(r.tasks) +
           (r.measured_tasks == 0 ? " (it has no times for these tasks and sizes: run them "
                                    "with --history first)\n"
                                  : "\n");
  out += "  makespan: " + formatSeconds(r.makespan_seconds) + "\n";
  out += "  lower bound: " + formatSeconds(r.lower_bound_seconds) + " (critical path " +
         formatSeconds(r.critical_path_seconds) + ", work over capacity " +
         formatSeconds(r.work_bound_seconds) + ", work in time windows " +
         formatSeconds(r.window_bound_seconds) + ")\n";
  if (r.lower_bound_seconds > 0)
    out += printf1("  makespan / bound: %.3f%s\n", r.makespan_seconds / r.lower_bound_seconds, "");
  return out;
}

namespace {
// "  @executable (N KiB+)": a size class of an executable's calls (nothing when the module
// does not know the executable).
std::optional<std::string> sizeClassLabel(fw_module_t *module, size_t executable,
                                          uint32_t size_class) {
  fw_executable_info_t exe;
  if (fw_status_t s = fw_module_executable_info(module, executable, &exe)) {
    fw_status_free(s);
    return std::nullopt;
  }
  return "  @" + std::string(exe.name) + " (" + formatBytes(uint64_t(1) << size_class) + "+)";
}

// The lines `visit` appends to the string of its (string, module) context for each entry
// a module's report function (fw_module_tuning, fw_module_division) gives, under
// `header`; "" when there is none, or the report fails.
template <typename Info>
std::string visitLines(fw_module_t *module,
                       fw_status_t (*report)(fw_module_t *, void (*)(void *, const Info *),
                                             void *),
                       void (*visit)(void *, const Info *), const char *header) {
  std::pair<std::string, fw_module_t *> context{"", module};
  if (fw_status_t s = report(module, visit, &context)) {
    fw_status_free(s);
    return "";
  }
  return context.first.empty() ? "" : header + context.first;
}
}  // namespace

std::string formatTuning(fw_module_t *module) {
  auto visit = [](void *user, const fw_tuning_info_t *t) {
    auto *out = static_cast<std::pair<std::string, fw_module_t *> *>(user);
    std::optional<std::string> label = sizeClassLabel(out->second, t->executable, t->size_class);
    if (!label) return;
    std::string line =
        *label + (strcmp(t->device, "cpu") ? " on " + std::string(t->device) : "") + ": ";
    fw_variant_info_t v;
    fw_target_info_t target;
    if (!t->decided) {
      line += "measuring " + std::to_string(t->num_candidates) + " candidates";
    } else if (fw_status_t s = fw_module_variant_info(out->second, t->executable, t->variant,
                                                      &v)) {
      fw_status_free(s);
      return;
    } else if (fw_status_t s = fw_module_target_info(out->second, v.target, &target)) {
      fw_status_free(s);
      return;
    } else {
      line += std::string(target.arch) + " " + (v.config[0] ? v.config : "defaults") +
              ", the fastest of " + std::to_string(t->num_candidates) + " (" +
              formatSeconds(t->seconds) + ")";
    }
    out->first += line + "\n";
  };
  return visitLines(module, fw_module_tuning, +visit,
                    "autotuning (size class: bytes the calls access):\n");
}

std::string formatDivision(fw_module_t *module) {
  auto visit = [](void *user, const fw_division_info_t *d) {
    auto *out = static_cast<std::pair<std::string, fw_module_t *> *>(user);
    std::optional<std::string> label = sizeClassLabel(out->second, d->executable, d->size_class);
    if (!label) return;
    std::string line = *label + ": ";
    if (!d->decided)
      line += "measuring";
    else
      line += std::string(d->divided ? "divided" : "whole") + " (whole " +
              formatSeconds(d->whole_seconds) + ", divided " +
              formatSeconds(d->divided_seconds) + ")";
    out->first += line + "\n";
  };
  return visitLines(module, fw_module_division, +visit,
                    "CPU kernels run whole or divided among the workers (size class: bytes "
                    "the calls access; the fastest run of each way the choice compared):\n");
}

}  // namespace fwrun
