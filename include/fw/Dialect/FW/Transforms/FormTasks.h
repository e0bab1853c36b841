//===- FormTasks.h - Wrapping tensor computations in tasks ------*- C++ -*-===//
//
// What fw-form-tasks does to one group of operations, for the passes that
// form tasks again later (fw-apply-profile splits a measured task).
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_TRANSFORMS_FORMTASKS_H
#define FW_DIALECT_FW_TRANSFORMS_FORMTASKS_H

#include "fw/Dialect/FW/IR/FWOps.h"

namespace mlir::fw {

/// Ops whose results a task recomputes instead of taking them as operands:
/// side-effect free, region free and cheap (constants, tensor.empty,
/// tensor.dim, scalar and index arithmetic, tensor.extract).
bool isRematerializable(Operation *op);

/// Wraps `ops`, top-level operations of one function block in block order
/// whose last one produces the task's results, in one fw.task at the place
/// of the last: tensors computed outside become operands, cheap producers
/// (constants, tensor.empty, shape arithmetic) are recomputed inside, the
/// dynamic sizes of the results are computed on the host, and the cost
/// estimates are set. `emitChecks` also emits the host's checks of the ops'
/// operand shapes (fw.assert). Errors are emitted on the last op.
FailureOr<TaskOp> formTask(ArrayRef<Operation *> ops, bool emitChecks = true);

/// The groups of operations of `task`'s body that `splitTask` makes tasks
/// of, in order: a contraction or convolution with the fill of its
/// accumulator and its elementwise epilogue (the unit the CPU code generator
/// packs and divides among workers), each run of other operations between
/// them (one group per operation when the task has no contraction), cut
/// where a result is used outside its group; an operation that is not
/// destination-style (a reshape) is a group of its own. Cheap producers belong to no
/// group: every task recomputes them. Empty when the body has operations
/// with results other than tensors, or yields an operand or a cheap value.
SmallVector<SmallVector<Operation *>> getSplitGroups(TaskOp task);

/// Replaces `task` by one task per group of `groups` (`getSplitGroups(task)`,
/// at least two), in order, each with the task's placement hint; values that
/// cross groups become results and operands. Fails, leaving `task` alone,
/// when there are fewer than two groups; an error on forming a part is
/// emitted and the IR is left partly split (the caller's pass fails).
FailureOr<SmallVector<TaskOp>>
splitTask(TaskOp task, ArrayRef<SmallVector<Operation *>> groups);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_FORMTASKS_H
