//===- TaskChecks.cpp - Checks of indices computed inside tasks -----------===//
//
// The host checks every index it computes before a task runs (ShapeChecks).
// An index a kernel computes itself (read from a tensor, or from loop indices
// the analysis does not relate to the sizes) is checked where it is computed:
// the access is guarded so that the kernel never reaches outside a buffer,
// and an fw.assert tells the runtime to fail the task once it has run.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/LoopUtils.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir::fw {
#define GEN_PASS_DEF_TASKCHECKSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

using Cmp = ValueBoundsConstraintSet::ComparisonOperator;

/// Marks an access or loop this pass has checked (a second run leaves it).
constexpr llvm::StringLiteral kCheckedAttr = kCheckedAttrName;

/// Whether `index` is provably in [0, size of dimension `dim` of `tensor`).
bool provenInBounds(Value index, Value tensor, int64_t dim) {
  using Variable = ValueBoundsConstraintSet::Variable;
  Variable i{OpFoldResult(index)};
  if (!ValueBoundsConstraintSet::compare(
          i, Cmp::GE,
          Variable(OpFoldResult(Builder(index.getContext()).getIndexAttr(0)))))
    return false;
  return ValueBoundsConstraintSet::compare(i, Cmp::LT, Variable(tensor, dim));
}

/// Asserts, before `op`, that each of `indices` lies within its dimension of
/// `tensor` where that is not proven; returns the conjunction (null: every
/// index is proven in range).
Value checkIndices(OpBuilder &b, Operation *op, Value tensor,
                   ValueRange indices) {
  Location loc = op->getLoc();
  Value all;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    if (provenInBounds(index, tensor, dim))
      continue;
    // One unsigned comparison: a negative index is a huge one.
    auto type = cast<RankedTensorType>(tensor.getType());
    Value size =
        type.isDynamicDim(dim)
            ? tensor::DimOp::create(b, loc, tensor, dim).getResult()
            : arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim))
                  .getResult();
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                     size);
    AssertOp::create(
        b, loc, in,
        b.getStringAttr(checkMessage(op, "the index into dimension " +
                                        Twine(dim) + " is out of range")));
    all = all ? arith::AndIOp::create(b, loc, all, in).getResult() : in;
  }
  return all;
}

/// A value of `type` for an extract that did not read: zero, or poison for a
/// type without one.
Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (TypedAttr zero = dyn_cast_or_null<TypedAttr>(b.getZeroAttr(type)))
    return arith::ConstantOp::create(b, loc, type, zero);
  return ub::PoisonOp::create(b, loc, type);
}

/// Replaces `op` by `scf.if %ok` running it, else yielding what `otherwise`
/// builds (in the else block).
void guard(OpBuilder &b, Operation *op, Value ok,
           function_ref<SmallVector<Value>(OpBuilder &)> otherwise) {
  Location loc = op->getLoc();
  op->setAttr(kCheckedAttr, b.getUnitAttr());
  b.setInsertionPoint(op);
  auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), ok,
                                /*withElseRegion=*/true);
  op->replaceAllUsesWith(ifOp.getResults());
  Block *then = ifOp.thenBlock();
  op->moveBefore(then, then->end());
  b.setInsertionPointToEnd(then);
  scf::YieldOp::create(b, loc, op->getResults());
  b.setInsertionPointToEnd(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, otherwise(b));
}

void guard(OpBuilder &b, Operation *op, Value ok, Value otherwise) {
  guard(b, op, ok, [&](OpBuilder &) { return SmallVector<Value>{otherwise}; });
}

bool shapeComputedInKernel(Value tensor, unsigned depth);

/// Whether `v` is computed inside the kernel from what the host cannot see:
/// data (an element read from a tensor), loop values, or the size of a tensor
/// whose shape depends on them. The host checks slice bounds computed from
/// the task's operands' sizes and constants (ShapeChecks).
bool computedInKernel(Value v, unsigned depth = 0) {
  if (depth > 32)
    return true;
  if (isa<BlockArgument>(v))
    return true; // a loop's or a linalg body's
  Operation *def = v.getDefiningOp();
  if (isa<arith::ConstantOp>(def))
    return false;
  if (auto dim = dyn_cast<tensor::DimOp>(def))
    return shapeComputedInKernel(dim.getSource(), depth + 1);
  if (isa<tensor::ExtractOp, linalg::IndexOp>(def) || def->getNumRegions())
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return computedInKernel(operand, depth + 1);
  });
}

/// Whether the shape of `tensor` depends on what the kernel computes: not for
/// the task's operands, nor for tensors sized from those (through inits,
/// casts, slices and empties sized so); else (a tensor a branch or a loop
/// chooses) it may.
bool shapeComputedInKernel(Value tensor, unsigned depth) {
  if (cast<ShapedType>(tensor.getType()).hasStaticShape())
    return false;
  if (depth > 32)
    return true;
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    return !isa<TaskOp>(arg.getOwner()->getParentOp());
  Operation *def = tensor.getDefiningOp();
  auto anyComputed = [&](ValueRange sizes) {
    return llvm::any_of(sizes, [&](Value size) {
      return computedInKernel(size, depth + 1);
    });
  };
  if (auto empty = dyn_cast<tensor::EmptyOp>(def))
    return anyComputed(empty.getDynamicSizes());
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def))
    return anyComputed(slice.getSizes());
  if (auto cast = dyn_cast<tensor::CastOp>(def))
    return shapeComputedInKernel(cast.getSource(), depth + 1);
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
    return shapeComputedInKernel(
        dps.getTiedOpOperand(cast<OpResult>(tensor))->get(), depth + 1);
  return true;
}

/// Whether `op` is one of the own ops (not nested in a loop or a branch) of a
/// task fw-form-tasks made, which checked them on the host (ShapeChecks); a
/// task written in the input was checked by nobody.
bool inHostCheckedTask(Operation *op) {
  Operation *parent = op->getParentOp();
  return isa<TaskOp>(parent) && parent->hasAttr(kHostCheckedAttrName);
}

/// Whether the host checks `op` before the task runs: an op of a checked
/// task's own, in a tensor whose shape the host knows, with `values` (its
/// offsets, sizes, indices) the host computes.
bool hostChecks(Operation *op, Value tensor, ArrayRef<OpFoldResult> values) {
  return inHostCheckedTask(op) && !shapeComputedInKernel(tensor, 0) &&
         llvm::none_of(values, [](OpFoldResult f) {
           auto v = dyn_cast<Value>(f);
           return v && computedInKernel(v);
         });
}

/// Whether dimension `d` of `op`'s slice needs no check in `tensor`: the host
/// checks it, or value bounds prove 0 <= offset and
/// offset + (size - 1) * stride < dim for a constant stride of 1 or more (a
/// loop over the slices of a size).
bool sliceDimSafe(OffsetSizeAndStrideOpInterface op, Value tensor,
                  int64_t d) {
  OpFoldResult offset = op.getMixedOffsets()[d], size = op.getMixedSizes()[d],
               stride = op.getMixedStrides()[d];
  if (hostChecks(op, tensor, {offset, size, stride}))
    return true;
  std::optional<int64_t> constantStride = getConstantIntValue(stride);
  if (!constantStride || *constantStride < 1)
    return false;
  using Variable = ValueBoundsConstraintSet::Variable;
  MLIRContext *ctx = op.getContext();
  AffineExpr o = getAffineDimExpr(0, ctx), sz = getAffineDimExpr(1, ctx);
  auto end = AffineMap::get(2, 0, o + (sz - 1) * *constantStride);
  Variable zeroVar(OpFoldResult(Builder(ctx).getIndexAttr(0)));
  return ValueBoundsConstraintSet::compare(Variable(offset), Cmp::GE,
                                           zeroVar) &&
         ValueBoundsConstraintSet::compare(Variable(size), Cmp::GE,
                                           zeroVar) &&
         ValueBoundsConstraintSet::compare(
             Variable(end,
                      ArrayRef<Variable>{Variable(offset), Variable(size)}),
             Cmp::LT, Variable(tensor, d));
}

/// Asserts, before `op`, that its slice lies within `tensor` (the source of
/// an extract, the destination of an insert) in each dimension not safe
/// (sliceDimSafe); returns the conjunction (null: nothing to check). In a
/// dimension of size D, a slice of s elements from offset o by stride t fits
/// when s is 0, or o < D, t >= 1 and s - 1 <= (D - 1 - o) / t (no product
/// that could overflow).
Value checkSlice(OpBuilder &b, OffsetSizeAndStrideOpInterface op, Value tensor,
                 StringRef what) {
  Location loc = op.getLoc();
  Value all;
  auto type = cast<RankedTensorType>(tensor.getType());
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (sliceDimSafe(op, tensor, d))
      continue;
    OpFoldResult offset = op.getMixedOffsets()[d], size = op.getMixedSizes()[d],
                 stride = op.getMixedStrides()[d];
    auto value = [&](OpFoldResult f) {
      return getValueOrCreateConstantIndexOp(b, loc, f);
    };
    auto cmp = [&](arith::CmpIPredicate pred, Value lhs, Value rhs) {
      return arith::CmpIOp::create(b, loc, pred, lhs, rhs).getResult();
    };
    Value o = value(offset), s = value(size), t = value(stride);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value dim = type.isDynamicDim(d)
                    ? tensor::DimOp::create(b, loc, tensor, d).getResult()
                    : arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
                          .getResult();
    // The stride only matters for two elements or more.
    Value positiveStride = cmp(arith::CmpIPredicate::sge, t, one);
    Value strideOk = arith::OrIOp::create(
        b, loc, positiveStride, cmp(arith::CmpIPredicate::ule, s, one));
    Value safeStride =
        arith::SelectOp::create(b, loc, positiveStride, t, one);
    Value room = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, dim, one),
                              o),
        safeStride);
    Value fits = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::ult, o, dim),
                              strideOk),
        cmp(arith::CmpIPredicate::ule, arith::SubIOp::create(b, loc, s, one),
            room));
    Value in = arith::OrIOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, s, zero), fits);
    std::optional<int64_t> constantStride = getConstantIntValue(stride);
    bool strideFine = constantStride && *constantStride >= 1;
    AssertOp::create(b, loc, in,
                     b.getStringAttr(checkMessage(
                         op, "the slice reaches outside dimension " +
                                 Twine(d) + " of the " + what +
                                 (strideFine ? ""
                                             : " (or has a stride below 1)"))));
    all = all ? arith::AndIOp::create(b, loc, all, in).getResult() : in;
  }
  return all;
}

/// For each dimension of an insert's source (`tensor.insert_slice`,
/// `tensor.parallel_insert_slice`) that the host does not check and value
/// bounds do not prove to have the slice's size: its number and that size.
template <typename InsertOp>
SmallVector<std::pair<int64_t, OpFoldResult>> unprovenInsertedSizes(
    InsertOp insert) {
  SmallVector<std::pair<int64_t, OpFoldResult>> unproven;
  Value source = insert.getSource();
  SmallVector<OpFoldResult> sizes = insert.getMixedSizes();
  if (hostChecks(insert, insert.getDest(), sizes) &&
      !shapeComputedInKernel(source, 0))
    return unproven;
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  int64_t k = 0;
  for (auto [d, size] : llvm::enumerate(sizes)) {
    if (dropped.test(d))
      continue;
    int64_t s = k++;
    using Variable = ValueBoundsConstraintSet::Variable;
    if (!ValueBoundsConstraintSet::compare(Variable(source, s), Cmp::EQ,
                                           Variable(size)))
      unproven.push_back({s, size});
  }
  return unproven;
}

/// After a failed check before `op`, each of `sizes` the kernel computes is
/// 0 for `op` and what comes after it (what is sized from it then has nothing
/// to do).
void zeroAfterFailure(OpBuilder &b, Operation *op, Value ok,
                      ValueRange sizes) {
  DominanceInfo dominance(op->getParentOfType<TaskOp>());
  Value zero = arith::ConstantIndexOp::create(b, op->getLoc(), 0);
  for (Value size : llvm::to_vector(sizes)) {
    if (!computedInKernel(size))
      continue;
    auto safe = arith::SelectOp::create(b, op->getLoc(), ok, size, zero);
    size.replaceUsesWithIf(safe, [&](OpOperand &use) {
      return use.getOwner() != safe &&
             (use.getOwner() == op ||
              dominance.properlyDominates(safe.getOperation(), use.getOwner()));
    });
  }
}

/// Whether the kernel computes `size` of a new tensor, other than as the size
/// of a tensor it has (which is a size).
bool computedSize(Value size) {
  return !size.getDefiningOp<tensor::DimOp>() && computedInKernel(size);
}

/// The dynamic sizes of a new tensor `op` makes (tensor.empty, tensor.splat,
/// tensor.generate); none for other ops.
ValueRange newTensorSizes(Operation *op) {
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return empty.getDynamicSizes();
  if (auto splat = dyn_cast<tensor::SplatOp>(op))
    return splat.getDynamicSizes();
  if (auto generate = dyn_cast<tensor::GenerateOp>(op))
    return generate.getDynamicExtents();
  return {};
}

/// A tensor the kernel sizes from what it computes is allocated as asked: a
/// negative size, or sizes whose bytes overflow or pass kMaxKernelTensorBytes
/// (beyond any machine's memory), would make the allocation fail and the
/// kernel write through a null pointer. Checked; a failing one is empty.
void checkNewTensorSizes(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  ValueRange sizes = newTensorSizes(op);
  SmallVector<Value> factors{arith::ConstantIndexOp::create(
      b, loc, elementBytes(type.getElementType()))};
  auto dynamic = sizes.begin();
  for (int64_t d = 0; d < type.getRank(); ++d)
    factors.push_back(type.isDynamicDim(d)
                          ? *dynamic++
                          : arith::ConstantIndexOp::create(b, loc,
                                                           type.getDimSize(d))
                                .getResult());
  Value ok;
  Value bytes = emitCheckedProduct(b, loc, factors, ok);
  ok = arith::AndIOp::create(
      b, loc, ok,
      arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, bytes,
          arith::ConstantIndexOp::create(b, loc, kMaxKernelTensorBytes)));
  AssertOp::create(b, loc, ok,
                   b.getStringAttr(checkMessage(
                       op, "a size is negative or the tensor would take "
                           "more than 2^47 bytes")));
  op->setAttr(kCheckedAttr, b.getUnitAttr());
  zeroAfterFailure(b, op, ok, sizes);
}

/// Asserts, before `insert`, that the inserted tensor has the slice's sizes
/// where that is not known; returns the conjunction (null: nothing to check).
Value checkInsertedSizes(OpBuilder &b, tensor::InsertSliceOp insert) {
  Location loc = insert.getLoc();
  Value source = insert.getSource(), all;
  for (auto [s, size] : unprovenInsertedSizes(insert)) {
    Value dim = tensor::DimOp::create(b, loc, source, s);
    Value same = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, dim,
        getValueOrCreateConstantIndexOp(b, loc, size));
    AssertOp::create(b, loc, same,
                     b.getStringAttr(checkMessage(
                         insert, "dimension " + Twine(s) +
                                     " of the inserted tensor differs from "
                                     "the slice size")));
    all = all ? arith::AndIOp::create(b, loc, all, same).getResult() : same;
  }
  return all;
}

/// Whether `op` needs in the kernel the checks the host makes of a task's own
/// ops (ShapeChecks: operand sizes that must agree): when the host did not
/// check it (nested in a loop or a branch, or in a task written in the
/// input), or an operand's shape or an index operand (a padding, a size) is
/// computed in the kernel.
bool needsKernelShapeChecks(Operation *op) {
  if (!isa<linalg::LinalgOp, linalg::SoftmaxOp, tensor::ConcatOp,
           tensor::CastOp, tensor::ExpandShapeOp, tensor::PadOp,
           tensor::ReshapeOp>(op) ||
      op->hasAttr(kCheckedAttr))
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    if (linalgOp.hasPureBufferSemantics())
      return false;
  // The sizes a reshape takes from a tensor the kernel computes.
  if (auto reshape = dyn_cast<tensor::ReshapeOp>(op))
    if (!matchPattern(reshape.getShape(), m_Constant()))
      return true;
  return !inHostCheckedTask(op) ||
         llvm::any_of(op->getOperands(), [](Value v) {
           return isa<RankedTensorType>(v.getType())
                      ? shapeComputedInKernel(v, 0)
                      : v.getType().isIndex() && computedInKernel(v);
         });
}

/// Makes those checks before `op` and guards it: one that fails them yields
/// its inits (a destination-style op) or an empty tensor of its result's type
/// with its dynamic sizes 0, so that nothing reads past the operands.
void checkShapes(OpBuilder &b, Operation *op) {
  Block *block = op->getBlock();
  Operation *before = op->getPrevNode();
  b.setInsertionPoint(op);
  emitShapeChecks(b, op, [](Value v) { return v; }, /*inKernel=*/true);
  // Sizes value bounds prove equal need no check (an init sized from the
  // input it is computed from).
  SmallVector<AssertOp> checks;
  for (Operation *it = before ? before->getNextNode() : &block->front();
       it != op; it = it->getNextNode())
    if (auto check = dyn_cast<AssertOp>(it))
      checks.push_back(check);
  Value all;
  for (AssertOp check : checks) {
    auto cmp = check.getCondition().getDefiningOp<arith::CmpIOp>();
    using Variable = ValueBoundsConstraintSet::Variable;
    if (cmp && cmp.getPredicate() == arith::CmpIPredicate::eq &&
        cmp.getLhs().getType().isIndex() &&
        ValueBoundsConstraintSet::compare(Variable(cmp.getLhs()), Cmp::EQ,
                                          Variable(cmp.getRhs()))) {
      check.erase();
      continue;
    }
    all = all ? arith::AndIOp::create(b, op->getLoc(), all,
                                      check.getCondition())
                    .getResult()
              : check.getCondition();
  }
  op->setAttr(kCheckedAttr, b.getUnitAttr());
  if (!all)
    return;
  guard(b, op, all, [&](OpBuilder &b) {
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      return SmallVector<Value>(dps.getDpsInits());
    SmallVector<Value> empties;
    for (Type type : op->getResultTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      SmallVector<Value> sizes(
          tensor.getNumDynamicDims(),
          arith::ConstantIndexOp::create(b, op->getLoc(), 0));
      empties.push_back(
          tensor::EmptyOp::create(b, op->getLoc(), tensor, sizes));
    }
    return empties;
  });
}

/// A loop never ends when its step is not positive, nor when its induction
/// variable overflows before it reaches the upper bound (it wraps below it):
/// either is checked unless constants or value bounds rule it out, and a loop
/// that fails its check runs no iteration (a loop without iterations may have
/// any step).
void checkLoop(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  Value step = loop.getStep(), lower = loop.getLowerBound(),
        upper = loop.getUpperBound();
  Type type = step.getType();
  bool isUnsigned = loop.getUnsignedCmp();
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  APInt max = isUnsigned ? APInt::getMaxValue(width)
                         : APInt::getSignedMaxValue(width);
  APInt stepValue, upperValue;
  bool constantStep = matchPattern(step, m_ConstantInt(&stepValue));
  bool positiveStep =
      constantStep &&
      (isUnsigned ? !stepValue.isZero() : stepValue.isStrictlyPositive());
  using Variable = ValueBoundsConstraintSet::Variable;
  if (!constantStep && type.isIndex())
    positiveStep = ValueBoundsConstraintSet::compare(
        Variable(OpFoldResult(step)), Cmp::GT,
        Variable(OpFoldResult(b.getIndexAttr(0))));
  // Any value below the bound plus the step stays at most the maximum:
  // with constants, upper - 1 + step <= max; with a step of 1 always; and up
  // to a tensor's size with a small step (no allocation comes near 2^62
  // bytes).
  bool fits =
      constantStep &&
      (stepValue.isOne() ||
       (upper.getDefiningOp<tensor::DimOp>() && stepValue.ule(1u << 20)) ||
       (matchPattern(upper, m_ConstantInt(&upperValue)) &&
        (isUnsigned ? upperValue.ule((max - stepValue) + 1)
                    : upperValue.sle((max - stepValue) + 1))));
  if (positiveStep && fits)
    return;

  auto constant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  auto cmp = [&](arith::CmpIPredicate signedPred,
                 arith::CmpIPredicate unsignedPred, Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, loc, isUnsigned ? unsignedPred : signedPred,
                                 lhs, rhs)
        .getResult();
  };
  Value one = constant(APInt(width, 1));
  Value none = cmp(arith::CmpIPredicate::sge, arith::CmpIPredicate::uge, lower,
                   upper);
  Value ok = Value();
  Value safeStep = step;
  if (!positiveStep) {
    Value positive = cmp(arith::CmpIPredicate::sgt, arith::CmpIPredicate::ne,
                         step, constant(APInt(width, 0)));
    AssertOp::create(b, loc, arith::OrIOp::create(b, loc, positive, none),
                     b.getStringAttr(checkMessage(
                         loop, "the loop's step is not positive")));
    safeStep = arith::SelectOp::create(b, loc, positive, step, one);
    ok = positive;
  }
  // The last value of the induction variable, lower + (upper - lower - 1) /
  // step * step (unsigned: the distance of a signed loop's bounds may exceed
  // the signed maximum, and stays below the bound), must leave room for one
  // more step: last <= max - step (which cannot overflow for a step of 1 or
  // more).
  Value distance = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, upper, lower), one);
  Value last = arith::AddIOp::create(
      b, loc, lower,
      arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, distance, safeStep),
          safeStep));
  Value limit = arith::SubIOp::create(b, loc, constant(max), safeStep);
  Value inRange = cmp(arith::CmpIPredicate::sle, arith::CmpIPredicate::ule,
                      last, limit);
  AssertOp::create(
      b, loc, arith::OrIOp::create(b, loc, inRange, none),
      b.getStringAttr(checkMessage(loop, "the loop's induction variable would "
                                    "overflow before it reaches its upper "
                                    "bound")));
  ok = ok ? arith::AndIOp::create(b, loc, ok, inRange).getResult() : inRange;
  loop.getStepMutable().assign(safeStep);
  loop.getUpperBoundMutable().assign(
      arith::SelectOp::create(b, loc, ok, upper, lower));
  loop->setAttr(kCheckedAttr, b.getUnitAttr());
}

/// Whether `forall` needs a check that its parallel inserts cannot take (an
/// scf.if cannot hold them): a slice not safe in its destination, or a step
/// other than 1 (checked as a loop's is).
bool needsSequentialChecks(scf::ForallOp forall) {
  auto yielding = forall.getTerminator().getYieldingOps();
  if (!llvm::all_of(yielding, llvm::IsaPred<tensor::ParallelInsertSliceOp>))
    return false; // another dialect's parallel updates: left as they are
  for (OpFoldResult step : forall.getMixedStep())
    if (getConstantIntValue(step) != 1)
      return true;
  for (Operation &op : yielding) {
    auto insert = cast<tensor::ParallelInsertSliceOp>(op);
    for (int64_t d = 0; d < insert.getDestType().getRank(); ++d)
      if (!sliceDimSafe(insert, insert.getDest(), d))
        return true;
    if (!unprovenInsertedSizes(insert).empty())
      return true;
  }
  return false;
}

/// Runs `forall`'s iterations in order in a nest of scf.for loops that carry
/// its shared outputs, its parallel inserts becoming tensor.insert_slice ops
/// in their order: what a CPU kernel does anyway (scf.forall lowers to
/// sequential loops), in a form whose slices and steps can be checked and
/// guarded like any. Iterations write disjoint slices, so the order is one
/// the forall allows.
void sequentialize(IRRewriter &rw, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  rw.setInsertionPoint(forall);
  auto values = [&](ArrayRef<OpFoldResult> folds) {
    return getValueOrCreateConstantIndexOp(rw, loc, folds);
  };
  SmallVector<Value> lower = values(forall.getMixedLowerBound()),
                     upper = values(forall.getMixedUpperBound()),
                     step = values(forall.getMixedStep());
  // A forall without dimensions runs once: a loop of one iteration.
  bool once = lower.empty();
  if (once) {
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    lower = {zero};
    upper = step = {one};
  }
  scf::LoopNest nest = scf::buildLoopNest(
      rw, loc, lower, upper, step, forall.getOutputs(),
      [](OpBuilder &, Location, ValueRange, ValueRange args) {
        return scf::ValueVector(args.begin(), args.end());
      });
  scf::ForOp inner = nest.loops.back();
  auto writtenAs = [&](Operation *op, Operation *original) {
    auto name = original->getAttrOfType<StringAttr>(kWrittenAsAttrName);
    op->setAttr(kWrittenAsAttrName,
                name ? name
                     : rw.getStringAttr(original->getName().getStringRef()));
  };
  SmallVector<Value> args;
  for (scf::ForOp loop : nest.loops) {
    if (!once)
      args.push_back(loop.getInductionVar());
    writtenAs(loop, forall);
  }
  llvm::append_range(args, inner.getRegionIterArgs());
  scf::InParallelOp terminator = forall.getTerminator();
  Operation *yield = inner.getBody()->getTerminator();
  rw.inlineBlockBefore(forall.getBody(), yield, args);
  SmallVector<Value> current(inner.getRegionIterArgs());
  rw.setInsertionPoint(terminator);
  for (Operation &op : terminator.getYieldingOps()) {
    auto insert = cast<tensor::ParallelInsertSliceOp>(op);
    Value &dest = current[llvm::find(inner.getRegionIterArgs(),
                                     insert.getDest()) -
                          inner.getRegionIterArgs().begin()];
    auto sequential = tensor::InsertSliceOp::create(
        rw, insert.getLoc(), insert.getSource(), dest,
        insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides());
    writtenAs(sequential, insert);
    dest = sequential;
  }
  rw.modifyOpInPlace(yield, [&] { yield->setOperands(current); });
  rw.eraseOp(terminator);
  rw.replaceOp(forall, nest.results);
}

struct TaskChecksPass : public fw::impl::TaskChecksPassBase<TaskChecksPass> {
  void runOnOperation() override {
    // Parallel inserts that need checks first become inserts in loops
    // (innermost first: each is moved whole into the loops that replace it).
    SmallVector<scf::ForallOp> foralls;
    getOperation().walk([&](TaskOp task) {
      task.getBody().walk([&](scf::ForallOp forall) {
        if (needsSequentialChecks(forall))
          foralls.push_back(forall);
      });
    });
    IRRewriter rw(&getContext());
    for (scf::ForallOp forall : foralls)
      sequentialize(rw, forall);
    // Parallel loops with bounds or steps the kernel computes become for
    // loops, whose steps and bounds are checked below (a step of 0 read from
    // the data ran for ever).
    SmallVector<scf::ParallelOp> parallels;
    getOperation().walk([&](TaskOp task) {
      task.getBody().walk([&](scf::ParallelOp loop) {
        auto constant = [](Value v) { return matchPattern(v, m_Constant()); };
        if (!llvm::all_of(loop.getLowerBound(), constant) ||
            !llvm::all_of(loop.getUpperBound(), constant) ||
            !llvm::all_of(loop.getStep(), constant))
          parallels.push_back(loop);
      });
    });
    for (scf::ParallelOp loop : parallels) {
      StringAttr name = rw.getStringAttr(loop->getName().getStringRef());
      for (scf::ForOp nested : parallelToForNest(rw, loop).loops)
        nested->setAttr(kWrittenAsAttrName, name);
    }

    SmallVector<Operation *> ops;
    getOperation().walk([&](TaskOp task) {
      task.getBody().walk([&](Operation *op) {
        if ((isa<tensor::ExtractOp, tensor::InsertOp, tensor::ExtractSliceOp,
                 tensor::InsertSliceOp, scf::ForOp>(op) &&
             !op->hasAttr(kCheckedAttr)) ||
            needsKernelShapeChecks(op))
          ops.push_back(op);
        else if (!op->hasAttr(kCheckedAttr) &&
                 llvm::any_of(newTensorSizes(op), computedSize))
          ops.push_back(op);
      });
    });
    OpBuilder b(&getContext());
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
        Value ok =
            checkIndices(b, op, extract.getTensor(), extract.getIndices());
        if (ok)
          guard(b, op, ok, zeroOf(b, loc, extract.getType()));
      } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
        Value ok = checkIndices(b, op, insert.getDest(), insert.getIndices());
        if (ok)
          guard(b, op, ok, insert.getDest());
      } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        // A slice that does not fit reads nothing, and is empty where its
        // size is computed: what is sized from that size after it (a
        // reshape, an init) then has nothing to do either.
        Value ok = checkSlice(b, slice, slice.getSource(), "source");
        if (!ok)
          continue;
        zeroAfterFailure(b, op, ok, slice.getSizes());
        SmallVector<OpFoldResult> sizes;
        llvm::SmallBitVector dropped = slice.getDroppedDims();
        for (auto [d, size] : llvm::enumerate(slice.getMixedSizes()))
          if (!dropped.test(d))
            sizes.push_back(size);
        Value empty = tensor::EmptyOp::create(
            b, loc, sizes, slice.getType().getElementType());
        if (empty.getType() != slice.getType())
          empty = tensor::CastOp::create(b, loc, slice.getType(), empty);
        guard(b, op, ok, empty);
      } else if (auto slice = dyn_cast<tensor::InsertSliceOp>(op)) {
        Value ok = checkSlice(b, slice, slice.getDest(), "destination");
        if (Value sizes = checkInsertedSizes(b, slice))
          ok = ok ? arith::AndIOp::create(b, loc, ok, sizes).getResult()
                  : sizes;
        if (ok)
          guard(b, op, ok, slice.getDest());
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        checkLoop(b, loop);
      } else if (!newTensorSizes(op).empty()) {
        checkNewTensorSizes(b, op);
      } else {
        checkShapes(b, op);
      }
    }
  }
};

} // namespace
