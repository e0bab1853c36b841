//===- ProfileAttrs.h - What profile-guided passes leave on the IR -*- C++ -*-===//
//
// `fw.profile` on a task or an executable: a dictionary of the measured median
// seconds per device kind (`cpu`, `cuda`, `hip`), and, when several variants of
// its CPU kernel were measured, the target and knobs of the fastest (`arch`,
// `config`) and how many were measured (`candidates`), the same per GPU
// target when several variants for it were measured (`gpu_config = {sm_90 =
// "block=512"}`, `gpu_candidates = {sm_90 = 3}`), and the most workgroups
// a CPU run was divided into (`workgroups`; 1: one worker ran it whole). Set by
// fw-apply-profile, carried by
// fw-outline-tasks, read by fw-tune-variants and fw-task-priorities (through
// getMeasuredSeconds for executables).
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_TRANSFORMS_PROFILEATTRS_H
#define FW_DIALECT_FW_TRANSFORMS_PROFILEATTRS_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::fw {

class ExecutableOp;

constexpr llvm::StringLiteral kProfileAttrName = "fw.profile";
constexpr llvm::StringLiteral kProfileConfigName = "config";
constexpr llvm::StringLiteral kProfileArchName = "arch";
constexpr llvm::StringLiteral kProfileCandidatesName = "candidates";
constexpr llvm::StringLiteral kProfileWorkgroupsName = "workgroups";
constexpr llvm::StringLiteral kProfileGPUConfigName = "gpu_config";
constexpr llvm::StringLiteral kProfileGPUCandidatesName = "gpu_candidates";

/// The measured seconds of one run of `exe` (its fw.profile): on the device
/// kind of its placement hint, else on its fastest; none when not profiled.
std::optional<double> getMeasuredSeconds(ExecutableOp exe);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_PROFILEATTRS_H
