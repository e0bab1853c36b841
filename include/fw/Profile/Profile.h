//===- Profile.h - Reading runtime profiles ----------------------*- C++ -*-===//
//
// The profiles `fw-run --profile-out` writes (docs/profile.md, format version
// 2), as the compiler reads them for `fwc --profile-use`: which tasks ran, on
// which device, with which variant knobs, how long.
//
//===----------------------------------------------------------------------===//

#ifndef FW_PROFILE_PROFILE_H
#define FW_PROFILE_PROFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fw {

/// The profile format version this compiler reads.
constexpr int kProfileVersion = 2;

struct ProfileEntry {
  /// `module.executable`, as the runtime names tasks.
  std::string task;
  /// `cpu`, `cuda` or `hip`.
  std::string device;
  /// floor(log2(bytes the task accessed)).
  int sizeClass = 0;
  /// The variant's target (`x86-64-v4`), "" when the profile does not say.
  std::string arch;
  /// The variant's knobs (`kc=256,mr=4`), "" for the target's defaults.
  std::string config;
  /// The runtime's autotuning chose this variant.
  bool selected = false;
  /// The executable's binding types, `?x784xf32, 784x256xf32, ?x256xf32`; ""
  /// when the profile does not say.
  std::string bindings;
  uint64_t count = 0;
  double totalSeconds = 0, medianSeconds = 0, minSeconds = 0;
  /// CPU runs: the most workgroups one run was divided into among the CPU
  /// workers (1: one worker ran the kernel whole); 0 when the profile does not
  /// say (GPU runs, older profiles).
  uint64_t workgroups = 0;
  /// GPU runs: the kernel's mean time on the device per run (event timing,
  /// without launch and synchronization); none when the profile does not say.
  std::optional<double> deviceSeconds;
  /// Bytes copied between tiers to bring the inputs of its runs where they ran
  /// (not those a prefetch moved earlier), summed over the runs: tier pair
  /// ("host->device") -> bytes.
  std::map<std::string, uint64_t> bytesMoved;

  /// The executable part of `task` (after the first '.').
  llvm::StringRef executable() const;
};

struct Profile {
  std::string moduleName;
  /// 64-bit FNV-1a hashes, parsed from their hex form.
  uint64_t buildId = 0, sourceId = 0;
  uint64_t runs = 0;
  /// The CPU workers the runs had (the most of any run); 0 when not said.
  uint64_t cpuWorkers = 0;
  std::vector<ProfileEntry> entries;
  /// Every copy between tiers the runs made, per tier pair ("host->device"):
  /// bytes and the seconds they took, so bytes / seconds is the rate a copy
  /// gets. Empty when the profile does not say.
  std::map<std::string, std::pair<uint64_t, double>> transfers;
};

/// Reads and validates a profile file. The error names the file and what is
/// wrong with it: unreadable, not JSON (with the position), not an fw
/// profile, another format version, a malformed field (with the entry).
llvm::Expected<Profile> readProfile(llvm::StringRef path);

/// Parses a profile from text; `path` only names it in errors.
llvm::Expected<Profile> parseProfile(llvm::StringRef text, llvm::StringRef path);

} // namespace mlir::fw

#endif // FW_PROFILE_PROFILE_H
