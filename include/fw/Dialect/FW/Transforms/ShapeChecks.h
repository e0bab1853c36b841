//===- ShapeChecks.h - Run-time checks of dynamic shapes --------*- C++ -*-===//
//
// Emits fw.assert checks, on the host before a task, that the dynamic sizes
// of an operation's operands are consistent, so that a call with wrong shapes
// fails with a message instead of reading or writing out of bounds.
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_TRANSFORMS_SHAPECHECKS_H
#define FW_DIALECT_FW_TRANSFORMS_SHAPECHECKS_H

#include "fw/Dialect/FW/IR/FWOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::fw {

/// Emits checks for `op` at the builder's insertion point. Sizes of an operand
/// are read from `shapeSource(operand)`, a value with the same shape that is
/// available at the insertion point. Handles linalg ops (sizes indexed by the
/// same loop must agree; windows of convolutions and pooling, and constant
/// offsets either way, must stay inside their input), tensor.concat,
/// tensor.extract_slice, tensor.insert_slice, tensor.expand_shape,
/// tensor.cast, the indices of tensor.extract and tensor.insert, the padding
/// sizes of tensor.pad (not negative) and the step of scf.for (positive),
/// where those scalars are computed on the host (not read from a tensor).
/// Checks whose outcome is known statically are not emitted. `inKernel`: the
/// checks are made in the kernel (fw-task-checks), where every value is known,
/// a reshape's sizes read from its shape tensor too.
void emitShapeChecks(OpBuilder &b, Operation *op,
                     function_ref<Value(Value)> shapeSource,
                     bool inKernel = false);

/// The most bytes a tensor a kernel sizes from the data may take (beyond any
/// machine's memory): more, a negative size, or an overflow is a failed check
/// rather than a failed allocation.
inline constexpr int64_t kMaxKernelTensorBytes = int64_t(1) << 47;

/// The bytes an element of `type` takes in a buffer (8 for index, both parts
/// of a complex number, every lane of a vector).
inline int64_t elementBytes(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * elementBytes(complex.getElementType());
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * elementBytes(vector.getElementType());
  unsigned bits = type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 64;
  return std::max(1u, (bits + 7) / 8);
}

/// The product of `factors` (index values) at the builder's insertion point;
/// `ok` says whether each is at least 0 and the product does not overflow
/// (such a product of sizes from the data could wrap around to the size it is
/// compared with).
Value emitCheckedProduct(OpBuilder &b, Location loc, ArrayRef<Value> factors,
                         Value &ok);

/// The message of a run-time check of `op`: "'<op name>': <what> (<file>:<line>)",
/// with the name in its kWrittenAsAttrName attribute where a pass made `op`
/// from another the program wrote.
std::string checkMessage(Operation *op, const Twine &what);
inline constexpr llvm::StringLiteral kWrittenAsAttrName = "fw.written_as";

/// Marks a task whose own ops the host checks (fw-form-tasks made it and
/// emitted their checks before it); a task written in the input has none.
/// On an op at the top level: its host checks are made already (before the
/// canonicalizer, emitChecksBeforeFolding).
inline constexpr llvm::StringLiteral kHostCheckedAttrName = "fw.host_checked";

/// Marks an access or loop fw-task-checks has checked in a kernel (guarded by
/// an scf.if: it may not run).
inline constexpr llvm::StringLiteral kCheckedAttrName = "fw.checked";

/// The constant `size` is, where it is one once folded (an attribute, an
/// arith.constant, arithmetic on constants).
std::optional<int64_t> foldedConstant(OpFoldResult size);

/// Whether `v` is computed on the host from sizes and scalars alone (a check
/// of it there reads no tensor data).
bool isHostComputable(Value v);

/// Emits, before any canonicalization of `func`, the checks of ops the
/// canonicalizer could take away with their conditions: casts that make a
/// size static (a tensor.dim of one folds to that size), reshapes, inserts of
/// casts that forget a static size; and at the top level every check the host
/// makes of an op (the op is marked kHostCheckedAttrName). At the top level
/// the host makes them where it can compute them (fw-form-tasks gives the
/// others a task); inside a region, the kernel does. Defined in
/// ChecksBeforeFolding.cpp.
void emitChecksBeforeFolding(func::FuncOp func);

/// Whether `op` is an integer division or remainder (one that traps on a
/// divisor of 0), which emitShapeChecks checks on the host.
bool isIntegerDivision(Operation *op);

/// Emits checks, at the builder's insertion point before `task` (one written
/// by hand in the input), that each dynamic size its `dims` gives a result is
/// the size its body yields, as value-bounds analysis relates that one to an
/// operand's size or a constant; an error when it cannot.
LogicalResult emitTaskDimsChecks(OpBuilder &b, TaskOp task);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_SHAPECHECKS_H
