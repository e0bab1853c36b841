#include "machine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "files.h"

namespace fwrun {
namespace {

using nlohmann::json;

// A simulated device's memory at most (the runtime takes 2^64 - 1 for "as little as the
// tasks allow").
constexpr uint64_t kMaxMemoryBytes = 1ull << 60;

// Refuses an object that names a key twice (the JSON library keeps the last one, which
// would silently take the second of two "workers").
struct DuplicateKey {
  std::string key;
};

json parseRefusingDuplicates(const std::string &text) {
  std::vector<std::unordered_set<std::string>> keys;  // per open object
  return json::parse(text, [&](int, json::parse_event_t event, json &parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty()) {
      std::string key = parsed.get<std::string>();
      if (!keys.back().insert(key).second) throw DuplicateKey{key};
    }
    return true;
  });
}

// Line and column (from 1) of byte `offset` of `text`.
std::string position(const std::string &text, size_t offset) {
  size_t stop = std::min(offset, text.size()), line = 1, column = 1;
  for (size_t i = 0; i < stop; ++i, ++column)
    if (text[i] == '\n') line += 1, column = 0;
  return std::to_string(line) + ":" + std::to_string(column);
}

// A number from `min` to `max` (the ranges fw_runtime_create accepts).
bool number(const json &v, const std::string &where, double min, double max, double *out,
            std::string *error) {
  if (!v.is_number() || !(v.get<double>() >= min && v.get<double>() <= max)) {
    std::ostringstream os;
    os << where << ": expected a number from " << min << " to " << max;
    *error = os.str();
    return false;
  }
  *out = v.get<double>();
  return true;
}

}  // namespace

std::vector<std::string> Machine::unknownKernels(const fw_module_t *module) const {
  std::vector<std::string> known, unknown;
  for (size_t e = 0; e < fw_module_executable_count(module); ++e) {
    fw_executable_info_t info;
    if (fw_module_executable_info(module, e, &info) == FW_OK)
      known.push_back(std::string(fw_module_name(module)) + "." + info.name);
  }
  for (size_t d = 0; d < owned_.size(); ++d)
    for (const std::string &name : owned_[d].kernelNames)
      if (std::find(known.begin(), known.end(), name) == known.end())
        unknown.push_back("devices[" + std::to_string(d) + "].kernel_speed names '" + name +
                          "', which is no kernel of module " + fw_module_name(module));
  return unknown;
}

bool Machine::parseFile(const std::string &path, std::string *error) {
  std::string text, why;
  switch (readRegularFile(path, &text, &why)) {
  case ReadResult::kRead: return parse(text, path, error);
  case ReadResult::kMissing: why = "no such file"; break;
  case ReadResult::kFailed: break;
  }
  *error = "cannot read the machine file '" + path + "': " + why;
  return false;
}

bool Machine::parse(const std::string &text, const std::string &where, std::string *error) {
  json doc;
  try {
    doc = parseRefusingDuplicates(text);
  } catch (const json::parse_error &e) {
    // e.byte: where the parser stopped, from 1 (0: before anything).
    *error = where + ":" + position(text, e.byte ? e.byte - 1 : 0) + ": not valid JSON";
    return false;
  } catch (const json::out_of_range &e) {
    // A number beyond a double ("1e400"): the library names the text, not where it is.
    std::string what = e.what(), token;
    size_t quote = what.find("parsing '");
    if (quote != std::string::npos) token = what.substr(quote + 9, what.rfind('\'') - quote - 9);
    size_t at = token.empty() ? std::string::npos : text.find(token);
    *error = where + (at == std::string::npos ? "" : ":" + position(text, at)) +
             ": not valid JSON (a number out of range" +
             (token.empty() ? std::string() : ": " + token) + ")";
    return false;
  } catch (const DuplicateKey &d) {
    *error = where + ": the key \"" + d.key + "\" appears twice in one object";
    return false;
  }
  if (!doc.is_object()) {
    *error = where + ": expected an object with a \"devices\" array";
    return false;
  }
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "devices") {
      *error = where + ": unknown key \"" + it.key() + "\" (expected \"devices\")";
      return false;
    }
  auto devs = doc.find("devices");
  if (devs == doc.end() || !devs->is_array() || devs->empty()) {
    *error = where + ": \"devices\" must be a non-empty array";
    return false;
  }
  owned_.assign(devs->size(), Device());
  devices_.assign(devs->size(), fw_sim_device_t());
  for (size_t i = 0; i < devs->size(); ++i) {
    const json &d = (*devs)[i];
    std::string at = where + ": devices[" + std::to_string(i) + "]";
    if (!d.is_object()) {
      *error = at + ": expected an object";
      return false;
    }
    Device &own = owned_[i];
    fw_sim_device_t &dev = devices_[i];
    dev.workers = 1;
    dev.link_gbps = 16;
    bool haveKind = false, haveMemory = false;
    for (auto it = d.begin(); it != d.end(); ++it) {
      const std::string &key = it.key();
      const json &v = it.value();
      std::string field = at + "." + key;
      if (key == "name") {
        std::string text = v.is_string() ? v.get<std::string>() : "";
        if (text.empty() || std::any_of(text.begin(), text.end(), [](char c) {
              return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
            })) {
          *error = field + ": expected a non-empty string without control characters";
          return false;
        }
        own.name = v.get<std::string>();
      } else if (key == "kind") {
        std::string k = v.is_string() ? v.get<std::string>() : "";
        if (k == "cpu") dev.kind = FW_TARGET_KIND_CPU;
        else if (k == "cuda") dev.kind = FW_TARGET_KIND_CUDA;
        else if (k == "hip") dev.kind = FW_TARGET_KIND_HIP;
        else {
          *error = field + ": expected \"cpu\", \"cuda\" or \"hip\"";
          return false;
        }
        haveKind = true;
      } else if (key == "workers") {
        if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > 1024) {
          *error = field + ": expected an integer from 1 to 1024";
          return false;
        }
        dev.workers = uint32_t(v.get<uint64_t>());
      } else if (key == "gflops") {
        if (!number(v, field, FW_SIM_MIN_RATE, FW_SIM_MAX_RATE, &dev.gflops, error)) return false;
      } else if (key == "memory_gbps") {
        if (!number(v, field, FW_SIM_MIN_RATE, FW_SIM_MAX_RATE, &dev.memory_gbps, error)) return false;
      } else if (key == "link_gbps") {
        if (!number(v, field, FW_SIM_MIN_RATE, FW_SIM_MAX_RATE, &dev.link_gbps, error)) return false;
      } else if (key == "link_latency_us") {
        if (!number(v, field, 0, FW_SIM_MAX_US, &dev.link_latency_us, error)) return false;
      } else if (key == "task_overhead_us") {
        if (!number(v, field, 0, FW_SIM_MAX_US, &dev.task_overhead_us, error)) return false;
      } else if (key == "history_speed") {
        if (!number(v, field, FW_SIM_MIN_SPEED, FW_SIM_MAX_SPEED, &dev.history_speed, error)) return false;
      } else if (key == "memory") {
        uint64_t bytes = 0;
        if (v.is_number_unsigned()) bytes = v.get<uint64_t>();
        else if (v.is_string()) fw_parse_byte_size(v.get<std::string>().c_str(), &bytes);
        if (bytes == 0 || bytes > kMaxMemoryBytes) {
          *error = field +
                   ": expected a size from 1 byte to 1 EiB, in bytes or a string like "
                   "\"16GiB\" (leave it out for a device without a limit)";
          return false;
        }
        dev.memory_bytes = bytes;
        haveMemory = true;
      } else if (key == "kernel_speed") {
        if (!v.is_object()) {
          *error = field + ": expected an object of kernel name -> relative speed";
          return false;
        }
        for (auto k = v.begin(); k != v.end(); ++k) {
          double speed = 0;
          if (!number(k.value(), field + "." + k.key(), FW_SIM_MIN_SPEED, FW_SIM_MAX_SPEED, &speed, error)) return false;
          own.kernelNames.push_back(k.key());
          own.kernelSpeeds.push_back(speed);
        }
      } else {
        *error = at + ": unknown key \"" + key +
                 "\" (known: name, kind, workers, gflops, memory_gbps, memory, link_gbps, "
                 "link_latency_us, task_overhead_us, kernel_speed, history_speed)";
        return false;
      }
    }
    if (!haveKind) {
      *error = at + ": missing \"kind\"";
      return false;
    }
    if (haveMemory && dev.kind == FW_TARGET_KIND_CPU) {
      *error = at + ".memory: a CPU computes in host memory, whose limit is the host tier's "
                    "(--tier-limits=host=SIZE)";
      return false;
    }
    if (dev.gflops == 0 && dev.memory_gbps == 0) {
      *error = at + ": needs \"gflops\" or \"memory_gbps\"";
      return false;
    }
    if (own.name.empty()) own.name = "device" + std::to_string(i);
    for (size_t j = 0; j < i; ++j)
      if (owned_[j].name == own.name) {
        *error = at + ": the name \"" + own.name + "\" is used twice";
        return false;
      }
  }
  for (size_t i = 0; i < owned_.size(); ++i) {
    Device &own = owned_[i];
    for (const std::string &n : own.kernelNames) own.kernelNamePtrs.push_back(n.c_str());
    devices_[i].name = own.name.c_str();
    devices_[i].num_kernel_speeds = own.kernelNames.size();
    devices_[i].kernel_names = own.kernelNamePtrs.data();
    devices_[i].kernel_speeds = own.kernelSpeeds.data();
  }
  machine_.num_devices = devices_.size();
  machine_.devices = devices_.data();
  return true;
}

}  // namespace fwrun
