// Human-readable runtime statistics and simulation reports for fw-run.
#ifndef FW_TOOLS_FW_RUN_REPORT_H_
#define FW_TOOLS_FW_RUN_REPORT_H_

#include <string>

#include "fw/runtime.h"

namespace fwrun {

// "cpu", "cuda", "hip"; "device", "host", "storage".
const char *targetKindName(fw_target_kind_t kind);
const char *tierName(int tier);
// "read", "write", "readwrite".
const char *accessName(fw_access_t access);
// "4x?x784xf32".
std::string typeString(const fw_tensor_type_t &type);
// The types of an executable's bindings in order, "?x784xf32, 784x256xf32, ?x256xf32":
// what a profile records so that fwc can tell its tasks apart from another build's.
std::string bindingTypes(const fw_executable_info_t &executable);

std::string formatBytes(uint64_t bytes);
std::string formatSeconds(double seconds);
// `--stats`: tasks per device, bytes moved per tier pair, evictions, prefetches.
std::string formatStats(const fw_runtime_stats_t &stats);
// `--stats`: what autotuning chose, per executable with candidates and size class ("" when
// the module has none).
std::string formatTuning(fw_module_t *module);
// `--stats`: whether each CPU kernel that divides its work runs whole or divided, and the
// runs that decided it ("" when none was measured).
std::string formatDivision(fw_module_t *module);
// `--simulate`: makespan against the lower bound.
// `calibrated`: a simulated device takes its times from the history (history_speed).
std::string formatSimulation(const fw_sim_report_t &report, bool calibrated);

}  // namespace fwrun

#endif
