//===- Workgroups.h - Dividing a CPU kernel among workgroups ----*- C++ -*-===//
//
// A CPU kernel may divide its work among the workgroups the runtime runs
// concurrently (fw.workgroup_id of fw.workgroup_count). These helpers give
// each workgroup its part of an iteration range.
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_TRANSFORMS_WORKGROUPS_H
#define FW_DIALECT_FW_TRANSFORMS_WORKGROUPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace mlir::fw {

/// The workgroup id and count of the kernel `func`, created at its entry the
/// first time they are asked for.
std::pair<Value, Value> getWorkgroupIdAndCount(func::FuncOp func);

/// The part [lo, hi) of [0, size) that the current workgroup computes:
/// contiguous, balanced parts made of whole `granule`s (the last part ends at
/// `size`). Parts are empty when there are more workgroups than granules.
std::pair<Value, Value> getWorkgroupRange(OpBuilder &b, Location loc,
                                          func::FuncOp func, Value size,
                                          int64_t granule);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_WORKGROUPS_H
