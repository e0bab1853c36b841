//===- CostEstimate.h - Compile-time cost of a task -------------*- C++ -*-===//
//
// The operation and byte counts the scheduler's cost model starts from before
// the runtime has measured a task.
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_TRANSFORMS_COSTESTIMATE_H
#define FW_DIALECT_FW_TRANSFORMS_COSTESTIMATE_H

#include "fw/Dialect/FW/IR/FWOps.h"

namespace mlir::fw {

/// Sets `task`'s cost estimates from its body, replacing any it has: one
/// operation per body op per iteration of each linalg op, and the bytes of
/// their operands. With static shapes these are `flops` and `bytes`. Where a
/// loop range is a dynamic size, the count is `flops_terms`, each size named
/// as a dim of a task operand or result that equals it, for the runtime to
/// evaluate at dispatch; `bytes` is then left unset (the runtime knows the
/// buffers' sizes). A body with ops it cannot count (not linalg, nor cheap
/// shape arithmetic), or a dynamic loop range it cannot trace to an operand
/// or result, gets no estimate.
void setCostEstimate(TaskOp task);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_COSTESTIMATE_H
