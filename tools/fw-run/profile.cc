// Profile files: JSON, version 2 (docs/profile.md).
#include "profile.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "files.h"
#include "report.h"

using nlohmann::json;

namespace fwrun {
namespace {

constexpr int kVersion = 2;

const char *sourceName(fw_counter_source_t source) {
  switch (source) {
  case FW_COUNTERS_HARDWARE: return "hardware";
  case FW_COUNTERS_SOFTWARE: return "software";
  case FW_COUNTERS_NONE: return "none";
  }
  return "none";
}

// One entry as the file keeps it.
struct Entry {
  uint64_t count = 0;
  double total = 0, min = INFINITY, max = 0;
  std::map<int, uint64_t> histogram;
  std::map<std::string, double> counters;
  std::map<std::string, uint64_t> moved; // "host->device"
  std::string bindings;                   // the executable's binding types
  double deviceTotal = 0;                 // GPU event timing
  uint64_t deviceRuns = 0;
  uint64_t workgroups = 0;                // CPU: the most a run's code divided it into
};
// task, device, size class, variant target, variant knobs, chosen by autotuning
using Key = std::tuple<std::string, std::string, int, std::string, std::string, bool>;

// The copies between two tiers over the merged runs.
struct Transfers {
  uint64_t bytes = 0;
  double seconds = 0;
};

// The power of one GPU over the merged runs.
struct Power {
  uint64_t samples = 0;
  double seconds = 0, sumWatts = 0, maxWatts = 0, joules = 0;
};

// o[key], or null where `o` is no object or has no `key` (operator[] of a const json that
// lacks the key is undefined behaviour, not an exception).
const json &field(const json &o, const char *key) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}

// a + b, or the largest count where that overflows (a file may hold any count).
uint64_t plus(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// The time below which a fraction `q` of the runs fall, from the histogram (the centre
// of its bucket, within the smallest and largest times seen).
double quantile(const Entry &e, double q) {
  uint64_t seen = 0, want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(e.count)));
  if (want == 0) want = 1;
  for (const auto &[bucket, n] : e.histogram) {
    seen = plus(seen, n);
    if (seen >= want) {
      double t = std::exp2((bucket + 0.5) / FW_PROFILE_BUCKETS_PER_OCTAVE) * 1e-9;
      return std::fmin(std::fmax(t, std::isfinite(e.min) ? e.min : t), e.max);
    }
  }
  return e.max;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

bool fail(std::string *error, const std::string &path, const std::string &what) {
  *error = "profile '" + path + "': " + what;
  return false;
}

} // namespace

bool writeProfile(fw_runtime_t *runtime, const fw_module_t *module, const std::string &path,
                  std::string *warning, std::string *error) {
  warning->clear();
  std::string name = fw_module_name(module);
  std::string build = hex(fw_module_build_id(module));
  std::map<Key, Entry> entries;
  std::map<std::string, Power> power; // by device
  std::map<std::string, Transfers> transfers; // by tier pair, "host->device"
  uint64_t runs = 0, cpuWorkers = 0;
  std::string oldSource;
  std::vector<std::string> oldNames;

  // What the file holds already.
  std::string text, why;
  ReadResult read = readRegularFile(path, &text, &why);
  if (read == ReadResult::kFailed) return fail(error, path, why + " (not overwritten)");
  // Merges what the file holds; a value of the wrong type that the checks below let
  // through throws, and is reported as a malformed file.
  auto readOld = [&]() -> bool {
    json old = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (old.is_discarded() || !old.is_object() || !old["format"].is_string() ||
        old["format"].get<std::string>() != "fw-profile")
      return fail(error, path, "exists and is not an fw profile (not overwritten)");
    const json &version = old["version"];
    if (!version.is_number_integer() || version.get<int64_t>() != kVersion)
      return fail(error, path,
                  (version.is_number_integer() ? "has format version " + version.dump()
                                               : std::string("has no integer format version")) +
                      "; this fw-run writes " + std::to_string(kVersion) + " (not overwritten)");
    const json &mod = old["module"];
    if (!field(mod, "name").is_string() || !field(mod, "build_id").is_string())
      return fail(error, path, "has no module name and build id (not overwritten)");
    if (field(mod, "name").get<std::string>() != name)
      return fail(error, path,
                  "holds a profile of module '" + field(mod, "name").get<std::string>() +
                      "', not of '" + name + "' (not overwritten)");
    if (field(mod, "build_id").get<std::string>() != build) {
      *warning = "profile '" + path + "' was made with another build of module '" + name +
                 "' (" + field(mod, "build_id").get<std::string>() + ", this one " + build +
                 "): its figures are replaced";
    } else {
      if (old.contains("runs") && !old["runs"].is_number_unsigned())
        return fail(error, path, "has a malformed \"runs\" (not overwritten)");
      runs = old.value("runs", uint64_t(0));
      if (old.contains("cpu_workers") && !old["cpu_workers"].is_number_unsigned())
        return fail(error, path, "has a malformed \"cpu_workers\" (not overwritten)");
      cpuWorkers = old.value("cpu_workers", uint64_t(0));
      const json &counters = old["counters"];
      if (counters.is_object()) {
        oldSource = counters.value("source", "");
        if (field(counters, "names").is_array())
          for (const json &n : field(counters, "names"))
            if (n.is_string()) oldNames.push_back(n.get<std::string>());
      }
      if (old.contains("transfers")) {
        const json &pairs = old["transfers"];
        if (!pairs.is_object())
          return fail(error, path, "has a malformed \"transfers\" (not overwritten)");
        for (const auto &[pair, t] : pairs.items()) {
          if (!field(t, "bytes").is_number_unsigned() || !field(t, "seconds").is_number())
            return fail(error, path, "has a malformed \"transfers\" (not overwritten)");
          transfers[pair].bytes = field(t, "bytes").get<uint64_t>();
          transfers[pair].seconds = field(t, "seconds").get<double>();
        }
      }
      if (old.contains("power")) {
        const json &devices = old["power"]["devices"];
        if (!devices.is_array())
          return fail(error, path, "has a malformed \"power\" (not overwritten)");
        for (const json &d : devices) {
          if (!field(d, "device").is_string() || !field(d, "samples").is_number_unsigned() ||
              !field(d, "seconds").is_number() || !field(d, "average_watts").is_number() ||
              !field(d, "max_watts").is_number() || !field(d, "joules").is_number())
            return fail(error, path, "has a malformed \"power\" (not overwritten)");
          Power &p = power[field(d, "device").get<std::string>()];
          p.samples = field(d, "samples").get<uint64_t>();
          p.seconds = field(d, "seconds").get<double>();
          p.sumWatts = field(d, "average_watts").get<double>() * static_cast<double>(p.samples);
          p.maxWatts = field(d, "max_watts").get<double>();
          p.joules = field(d, "joules").get<double>();
        }
      }
      const json &tasks = old["tasks"];
      if (!tasks.is_array()) return fail(error, path, "has no \"tasks\" array (not overwritten)");
      for (const json &t : tasks) {
        if (!t.is_object() || !field(t, "task").is_string() || !field(t, "device").is_string() ||
            !field(t, "size_class").is_number_unsigned() ||
            field(t, "size_class").get<uint64_t>() > 64 ||
            !field(t, "count").is_number_unsigned() ||
            !field(t, "seconds").is_object() || !field(t, "histogram").is_array() ||
            (t.contains("config") && !field(t, "config").is_string()) ||
            (t.contains("arch") && !field(t, "arch").is_string()))
          return fail(error, path, "has a malformed entry in \"tasks\" (not overwritten)");
        Entry &e = entries[{field(t, "task").get<std::string>(),
                            field(t, "device").get<std::string>(),
                            field(t, "size_class").get<int>(), t.value("arch", ""),
                            t.value("config", ""), t.value("selected", false)}];
        if ((t.contains("bindings") && !field(t, "bindings").is_string()) ||
            (t.contains("workgroups") && !field(t, "workgroups").is_number_unsigned()))
          return fail(error, path, "has a malformed entry in \"tasks\" (not overwritten)");
        e.workgroups = t.value("workgroups", uint64_t(0));
        e.bindings = t.value("bindings", "");
        if (t.contains("device_seconds")) {
          const json &d = field(t, "device_seconds");
          if (!field(d, "total").is_number() || !field(d, "runs").is_number_unsigned())
            return fail(error, path, "has a malformed \"device_seconds\" (not overwritten)");
          e.deviceTotal = field(d, "total").get<double>();
          e.deviceRuns = field(d, "runs").get<uint64_t>();
        }
        e.count = field(t, "count").get<uint64_t>();
        e.total = field(t, "seconds").value("total", 0.0);
        e.min = field(t, "seconds").value("min", INFINITY);
        e.max = field(t, "seconds").value("max", 0.0);
        for (const json &b : field(t, "histogram")) {
          if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() ||
              !b[1].is_number_unsigned() || b[0].get<int64_t>() < 0 ||
              b[0].get<int64_t>() >= FW_PROFILE_BUCKETS)
            return fail(error, path, "has a malformed histogram (not overwritten)");
          uint64_t &n = e.histogram[b[0].get<int>()];
          n = plus(n, b[1].get<uint64_t>());
        }
        if (field(t, "counters").is_object())
          for (const auto &[counter, value] : field(t, "counters").items())
            if (value.is_number()) e.counters[counter] = value.get<double>();
        if (field(t, "bytes_moved").is_object())
          for (const auto &[pair, value] : field(t, "bytes_moved").items())
            if (value.is_number_unsigned()) e.moved[pair] = value.get<uint64_t>();
      }
    }
    return true;
  };
  if (read == ReadResult::kRead) {
    try {
      if (!readOld()) return false;
    } catch (const json::exception &) {
      return fail(error, path, "has a value of the wrong type (not overwritten)");
    }
  }

  // This run.
  fw_profile_info_t info;
  struct Context {
    std::map<Key, Entry> *entries;
    const fw_profile_info_t *info;
    bool dropOldCounters;
  } context{&entries, &info, false};
  if (fw_status_t s = fw_runtime_profile(runtime, &info, nullptr, nullptr)) {
    *error = fw_status_message(s);
    fw_status_free(s);
    return false;
  }
  // A kernel that ran whole says something only next to the workers that could have
  // helped: a run with one CPU worker adds no workgroup figures, and figures from runs
  // with fewer workers than this one are forgotten where this run does not renew them.
  if (info.cpu_workers > cpuWorkers)
    for (auto &[key, e] : entries) e.workgroups = 0;
  std::string source = sourceName(info.source);
  if (!oldSource.empty() && oldSource != source) {
    context.dropOldCounters = true;
    if (warning->empty())
      *warning = "profile '" + path + "': its counters came from the " + oldSource +
                 " source, this run's from the " + source + " one: the old counts are dropped";
    for (auto &[key, e] : entries) e.counters.clear();
  }
  auto visit = [](void *user, const fw_profile_entry_t *p) {
    auto *c = static_cast<Context *>(user);
    Entry &e = (*c->entries)[{p->task, targetKindName(p->device),
                              static_cast<int>(p->size_class), p->arch ? p->arch : "",
                              p->config ? p->config : "", p->selected != 0}];
    e.deviceTotal += p->device_seconds;
    e.deviceRuns = plus(e.deviceRuns, p->device_runs);
    if (c->info->cpu_workers > 1)
      e.workgroups = std::max<uint64_t>(e.workgroups, p->workgroups);
    e.count = plus(e.count, p->count);
    e.total += p->total_seconds;
    e.min = std::fmin(e.min, p->min_seconds);
    e.max = std::fmax(e.max, p->max_seconds);
    for (int b = 0; b < FW_PROFILE_BUCKETS; ++b)
      if (p->histogram[b]) e.histogram[b] = plus(e.histogram[b], p->histogram[b]);
    for (uint32_t i = 0; i < c->info->num_counters; ++i)
      e.counters[c->info->counter_names[i]] += p->counters[i];
    for (int from = 0; from < FW_NUM_TIERS; ++from)
      for (int to = 0; to < FW_NUM_TIERS; ++to)
        if (p->bytes_moved[from][to])
        {
          uint64_t &moved = e.moved[std::string(tierName(from)) + "->" + tierName(to)];
          moved = plus(moved, p->bytes_moved[from][to]);
        }
  };
  if (fw_status_t s = fw_runtime_profile(runtime, &info, visit, &context)) {
    *error = fw_status_message(s);
    fw_status_free(s);
    return false;
  }
  for (int from = 0; from < FW_NUM_TIERS; ++from)
    for (int to = 0; to < FW_NUM_TIERS; ++to)
      if (info.copy_bytes[from][to]) {
        Transfers &t = transfers[std::string(tierName(from)) + "->" + tierName(to)];
        t.bytes = plus(t.bytes, info.copy_bytes[from][to]);
        t.seconds += info.copy_seconds[from][to];
      }
  for (uint32_t i = 0; i < info.num_power; ++i) {
    const fw_power_info_t &now = info.power[i];
    Power &p = power[now.device];
    p.samples = plus(p.samples, now.samples);
    p.seconds += now.seconds;
    p.sumWatts += now.average_watts * static_cast<double>(now.samples);
    p.maxWatts = std::fmax(p.maxWatts, now.max_watts);
    p.joules += now.joules;
  }

  json out;
  out["format"] = "fw-profile";
  out["version"] = kVersion;
  out["module"] = {{"name", name}, {"build_id", build},
                   {"source_id", hex(fw_module_source_id(module))}};
  out["runs"] = plus(runs, 1);
  out["cpu_workers"] = std::max<uint64_t>(cpuWorkers, info.cpu_workers);
  json names = json::array();
  for (uint32_t i = 0; i < info.num_counters; ++i) names.push_back(info.counter_names[i]);
  out["counters"] = {{"source", source}, {"names", names}};
  // The binding types of each executable, which fwc compares with its tasks'.
  std::map<std::string, std::string> bindings;
  for (size_t i = 0; i < fw_module_executable_count(module); ++i) {
    fw_executable_info_t exe;
    if (fw_status_t s = fw_module_executable_info(module, i, &exe)) {
      fw_status_free(s);
      continue;
    }
    bindings[name + "." + exe.name] = bindingTypes(exe);
  }
  json tasks = json::array();
  for (const auto &[key, e] : entries) {
    json t;
    t["task"] = std::get<0>(key);
    if (auto it = bindings.find(std::get<0>(key)); it != bindings.end())
      t["bindings"] = it->second;
    else if (!e.bindings.empty())
      t["bindings"] = e.bindings;
    t["device"] = std::get<1>(key);
    t["size_class"] = std::get<2>(key);
    t["arch"] = std::get<3>(key);
    t["config"] = std::get<4>(key);
    if (std::get<5>(key)) t["selected"] = true;
    t["count"] = e.count;
    t["seconds"] = {{"total", e.total},
                    {"min", std::isfinite(e.min) ? e.min : 0.0},
                    {"max", e.max},
                    {"median", quantile(e, 0.5)},
                    {"p10", quantile(e, 0.1)},
                    {"p90", quantile(e, 0.9)}};
    if (e.workgroups) t["workgroups"] = e.workgroups;
    if (e.deviceRuns)
      t["device_seconds"] = {{"total", e.deviceTotal}, {"runs", e.deviceRuns}};
    json histogram = json::array();
    for (const auto &[bucket, n] : e.histogram) histogram.push_back({bucket, n});
    t["histogram"] = histogram;
    json counters = json::object();
    for (const auto &[counter, value] : e.counters) counters[counter] = value;
    t["counters"] = counters;
    json moved = json::object();
    for (const auto &[pair, bytes] : e.moved) moved[pair] = bytes;
    t["bytes_moved"] = moved;
    tasks.push_back(t);
  }
  out["tasks"] = tasks;
  json pairs = json::object();
  for (const auto &[pair, t] : transfers)
    pairs[pair] = {{"bytes", t.bytes}, {"seconds", t.seconds}};
  out["transfers"] = pairs;
  if (!power.empty() || info.power_note) {
    json devices = json::array();
    for (const auto &[device, p] : power)
      devices.push_back({{"device", device},
                         {"samples", p.samples},
                         {"seconds", p.seconds},
                         {"average_watts", p.samples ? p.sumWatts / static_cast<double>(p.samples) : 0.0},
                         {"max_watts", p.maxWatts},
                         {"joules", p.joules}});
    out["power"] = {{"source", "nvml"}, {"devices", devices}};
    if (power.empty() && info.power_note) out["power"]["note"] = info.power_note;
  }
  std::string failure;
  if (!replaceFile(path, out.dump(1) + "\n", &failure))
    return fail(error, path, "cannot be written: " + failure + " (an earlier profile is kept)");
  return true;
}

} // namespace fwrun
