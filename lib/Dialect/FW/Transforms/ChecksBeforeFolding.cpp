//===- ChecksBeforeFolding.cpp - Checks the canonicalizer would drop ------===//
//
// Some canonicalizations take an op's run-time condition away with the op: a
// tensor.dim of a cast that makes a size static folds to that size and the
// cast goes; a rank-1 tensor.reshape to its own type folds to its source, and
// a reshape of a reshape skips the inner one; an insert of a cast that
// forgets a static size takes that size instead of the slice's. Their checks
// are made here, before any canonicalization, so that a call with data that
// breaks them still fails with a message.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fw;

/// Whether the canonicalizer may take `reshape` away: a reshape of rank 1 or
/// 0 to its source's own type, or one another reshape reads.
static bool mayFoldAway(tensor::ReshapeOp reshape) {
  if (reshape.getSource().getType() == reshape.getType() &&
      reshape.getType().getRank() <= 1)
    return true;
  return llvm::any_of(reshape->getUsers(), [&](Operation *user) {
    auto next = dyn_cast<tensor::ReshapeOp>(user);
    return next && next.getSource() == reshape.getResult();
  });
}

/// Checks that each size a cast of the inserted tensor forgot is the slice's
/// size there (the canonicalizer replaces the slice's by the cast's).
static void castInsertChecks(OpBuilder &b, Operation *op) {
  auto insert = cast<OffsetSizeAndStrideOpInterface>(op);
  Value source = isa<tensor::InsertSliceOp>(op)
                     ? cast<tensor::InsertSliceOp>(op).getSource()
                     : cast<tensor::ParallelInsertSliceOp>(op).getSource();
  auto castOp = source.getDefiningOp<tensor::CastOp>();
  if (!castOp || !tensor::canFoldIntoConsumerOp(castOp))
    return;
  auto known = cast<RankedTensorType>(castOp.getSource().getType());
  llvm::SmallBitVector dropped =
      isa<tensor::InsertSliceOp>(op)
          ? cast<tensor::InsertSliceOp>(op).getDroppedDims()
          : cast<tensor::ParallelInsertSliceOp>(op).getDroppedDims();
  Location loc = op->getLoc();
  int64_t sourceDim = 0;
  for (auto [d, size] : llvm::enumerate(insert.getMixedSizes())) {
    if (dropped.test(d))
      continue;
    int64_t s = sourceDim++;
    auto value = dyn_cast<Value>(size);
    if (!value || known.isDynamicDim(s))
      continue;
    Value same = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, value,
        arith::ConstantIndexOp::create(b, loc, known.getDimSize(s)));
    AssertOp::create(b, loc, same,
                     b.getStringAttr(checkMessage(
                         op, "dimension " + Twine(s) +
                                 " of the inserted tensor differs from the "
                                 "slice size")));
  }
}

void mlir::fw::emitChecksBeforeFolding(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
      auto from = dyn_cast<RankedTensorType>(castOp.getSource().getType());
      auto to = dyn_cast<RankedTensorType>(castOp.getType());
      if (from && to &&
          llvm::any_of(llvm::seq<int64_t>(0, to.getRank()), [&](int64_t d) {
            return from.isDynamicDim(d) && !to.isDynamicDim(d);
          }))
        ops.push_back(op);
    } else if (auto reshape = dyn_cast<tensor::ReshapeOp>(op)) {
      if (mayFoldAway(reshape))
        ops.push_back(op);
    } else if (isa<tensor::InsertSliceOp, tensor::ParallelInsertSliceOp>(op)) {
      ops.push_back(op);
    }
  });
  OpBuilder b(func.getContext());
  auto identity = [](Value v) { return v; };
  for (Operation *op : ops) {
    // At the top level the checks run on the host where they read no tensor
    // data (fw-form-tasks gives the others a task of their own); inside a
    // loop or a branch, in the kernel the op becomes part of, where
    // fw-task-checks checks and guards it again if it is still there.
    bool onHost = op->getParentOp() == func.getOperation();
    // A parallel insert sits in the terminator of its loop: its checks go
    // before that terminator.
    if (isa<tensor::ParallelInsertSliceOp>(op))
      b.setInsertionPoint(op->getParentOp());
    else
      b.setInsertionPoint(op);
    if (isa<tensor::ReshapeOp>(op)) {
      emitShapeChecks(b, op, identity, /*inKernel=*/true);
    } else if (isa<tensor::CastOp>(op)) {
      emitShapeChecks(b, op, identity, /*inKernel=*/!onHost);
    } else {
      castInsertChecks(b, op);
      continue;
    }
    if (onHost)
      op->setAttr(kHostCheckedAttrName, b.getUnitAttr());
  }
}
