//===- ShapeChecks.cpp - Run-time checks of dynamic shapes ----------------===//

#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "fw/Dialect/FW/IR/FWOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::fw;

namespace {

/// Builds checks for one operation.
class CheckBuilder {
public:
  CheckBuilder(OpBuilder &b, Operation *op,
               function_ref<Value(Value)> shapeSource, bool inKernel = false)
      : b(b), op(op), loc(op->getLoc()), shapeSource(shapeSource),
        inKernel(inKernel) {}

  /// The size of dimension `dim` of `value` as an index value.
  Value size(Value value, int64_t dim) {
    auto type = cast<ShapedType>(value.getType());
    if (!type.isDynamicDim(dim))
      return index(type.getDimSize(dim));
    return tensor::DimOp::create(b, loc, shapeSource(value), dim);
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value value(OpFoldResult ofr) {
    return getValueOrCreateConstantIndexOp(b, loc, ofr);
  }
  Value cmp(arith::CmpIPredicate pred, Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, loc, pred, lhs, rhs);
  }
  Value orOp(Value lhs, Value rhs) {
    return arith::OrIOp::create(b, loc, lhs, rhs);
  }
  Value andOp(Value lhs, Value rhs) {
    return arith::AndIOp::create(b, loc, lhs, rhs);
  }
  Value checkedProduct(ArrayRef<Value> factors, Value &ok) {
    return emitCheckedProduct(b, loc, factors, ok);
  }

  /// Asserts `condition` with a message naming the op and its location.
  void check(Value condition, const Twine &what) {
    AssertOp::create(b, loc, condition,
                     b.getStringAttr(checkMessage(op, what)));
  }

  void linalgChecks(linalg::LinalgOp linalgOp);
  bool bounds(AffineExpr expr, ArrayRef<Value> last, Value &lowest,
              Value &highest, Value &exact, bool &dense,
              llvm::SmallBitVector &used);
  void concatChecks(tensor::ConcatOp concat);
  void castChecks(tensor::CastOp cast);
  void sliceChecks(OffsetSizeAndStrideOpInterface slice, Value source,
                   StringRef what);
  void insertedSizeChecks(tensor::InsertSliceOp insert);
  void expandChecks(tensor::ExpandShapeOp expand);
  void elementIndexChecks(Value tensor, ValueRange indices);
  void padChecks(tensor::PadOp pad);
  void loopStepChecks(scf::ForOp loop);
  void loopIndexChecks(scf::ForOp loop);
  void sameShapeChecks(Value a, Value b, StringRef what);
  void reshapeChecks(tensor::ReshapeOp reshape);
  template <typename RelayoutOp>
  void relayoutChecks(RelayoutOp relayout);
  void divisionChecks(Operation *division);
  LogicalResult taskDimsChecks(TaskOp task);
  Value hostSizeOf(TaskOp task, Value yielded, int64_t dim);
  Value cloneToHost(Value v, Block &body, IRMapping &map, unsigned depth);
  /// Whether a check can compute `v`: on the host, a value computed from
  /// sizes and scalars; in a kernel, any.
  bool computable(Value v);

private:
  OpBuilder &b;
  Operation *op;
  Location loc;
  function_ref<Value(Value)> shapeSource;
  bool inKernel;
};

bool isDynamicDim(Value v, int64_t dim) {
  return cast<ShapedType>(v.getType()).isDynamicDim(dim);
}

/// `expr` times `scale` as a sum of loop dimensions times constants plus a
/// constant, added into `coeffs` and `constant`: false when it is not one
/// (mod, divisions, symbols) or a coefficient overflows. Over the iteration
/// space such an index is smallest and largest at corners: each loop at 0
/// or at its last iteration, by the sign of its coefficient.
bool addLinearForm(AffineExpr expr, int64_t scale,
                   SmallVectorImpl<int64_t> &coeffs, int64_t &constant) {
  auto add = [&](int64_t &into, int64_t v) {
    int64_t product, sum;
    if (llvm::MulOverflow(v, scale, product) ||
        llvm::AddOverflow(into, product, sum))
      return false;
    into = sum;
    return true;
  };
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return add(coeffs[dim.getPosition()], 1);
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return add(constant, c.getValue());
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return addLinearForm(bin.getLHS(), scale, coeffs, constant) &&
           addLinearForm(bin.getRHS(), scale, coeffs, constant);
  if (bin.getKind() != AffineExprKind::Mul)
    return false;
  auto factor = dyn_cast<AffineConstantExpr>(bin.getRHS());
  AffineExpr other = bin.getLHS();
  if (!factor) {
    factor = dyn_cast<AffineConstantExpr>(bin.getLHS());
    other = bin.getRHS();
  }
  int64_t scaled;
  if (!factor || llvm::MulOverflow(scale, factor.getValue(), scaled))
    return false;
  return addLinearForm(other, scaled, coeffs, constant);
}

void CheckBuilder::linalgChecks(linalg::LinalgOp linalgOp) {
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  unsigned numLoops = linalgOp.getNumLoops();

  // 1. Sizes indexed directly by the same loop must be equal.
  SmallVector<SmallVector<std::pair<Value, unsigned>>> uses(numLoops);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    AffineMap map = maps[operand.getOperandNumber()];
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        uses[dim.getPosition()].push_back(
            {operand.get(), static_cast<unsigned>(i)});
  }
  for (auto &dimUses : uses) {
    if (dimUses.size() < 2)
      continue;
    auto [first, firstDim] = dimUses.front();
    llvm::SmallDenseSet<std::pair<Value, unsigned>> seen;
    seen.insert({first, firstDim});
    for (auto [value, dim] : ArrayRef(dimUses).drop_front()) {
      if (!seen.insert({value, dim}).second)
        continue; // The same size twice.
      if (!isDynamicDim(value, dim) && !isDynamicDim(first, firstDim))
        continue;
      auto operandIndex = [&](Value v) -> unsigned {
        return llvm::find(op->getOperands(), v) - op->operand_begin();
      };
      unsigned a = operandIndex(first), c = operandIndex(value);
      check(cmp(arith::CmpIPredicate::eq, size(first, firstDim),
                size(value, dim)),
            "dimension " + Twine(firstDim) + " of operand " + Twine(a) +
                " and dimension " + Twine(dim) + " of operand " + Twine(c) +
                " must be equal");
    }
  }

  // 2. Indices computed from several loops (convolution and pooling windows,
  //    constant offsets) must stay inside their operand.
  AffineMap shapesToLoops = linalgOp.getShapesToLoopsMap();
  if (!shapesToLoops)
    return;
  SmallVector<OpFoldResult> operandSizes;
  bool anyDynamic = false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type)
      continue;
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      anyDynamic |= type.isDynamicDim(d);
      operandSizes.push_back(size(operand.get(), d));
    }
  }
  if (!anyDynamic)
    return; // The op's verifier checked static shapes.
  SmallVector<Value> lastIteration, loopRanges;
  Value one = index(1);
  for (AffineExpr expr : shapesToLoops.getResults()) {
    Value range = value(affine::makeComposedFoldedAffineApply(
        b, loc, AffineMap::get(shapesToLoops.getNumDims(), 0, expr),
        operandSizes));
    loopRanges.push_back(range);
    lastIteration.push_back(arith::SubIOp::create(b, loc, range, one));
  }
  if (loopRanges.size() != numLoops)
    return;
  Value noIterations = nullptr;
  for (Value range : loopRanges) {
    Value empty = cmp(arith::CmpIPredicate::eq, range, index(0));
    noIterations = noIterations ? orOp(noIterations, empty) : empty;
  }
  MLIRContext *ctx = b.getContext();
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    AffineMap map = maps[operand.getOperandNumber()];
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (isa<AffineDimExpr>(expr))
        continue;
      std::string operandName =
          ("operand " + Twine(operand.getOperandNumber())).str();
      SmallVector<int64_t> coeffs(numLoops, 0);
      int64_t constant = 0;
      if (!addLinearForm(expr, 1, coeffs, constant)) {
        // Divisions and remainders: bounds from the operands' bounds, where
        // they are the values taken (else unchecked).
        Value lowest, highest, exact;
        bool dense;
        llvm::SmallBitVector used(numLoops);
        if (!bounds(expr, lastIteration, lowest, highest, exact, dense, used))
          continue;
        Value inside =
            andOp(cmp(arith::CmpIPredicate::sge, lowest, index(0)),
                  cmp(arith::CmpIPredicate::slt, highest,
                      size(operand.get(), i)));
        if (exact)
          inside = orOp(inside, arith::XOrIOp::create(
                                    b, loc, exact,
                                    arith::ConstantIntOp::create(b, loc, 1, 1)));
        check(orOp(noIterations, inside),
              operandName + " is indexed outside dimension " + Twine(i) +
                  " for the iteration space");
        continue;
      }
      // The index at its smallest and at its largest over the iterations.
      AffineExpr lowest = getAffineConstantExpr(constant, ctx);
      AffineExpr highest = lowest;
      bool belowZero = constant < 0;
      for (auto [loop, coeff] : llvm::enumerate(coeffs)) {
        AffineExpr term = getAffineDimExpr(loop, ctx) * coeff;
        if (coeff < 0) {
          lowest = lowest + term;
          belowZero = true;
        } else if (coeff > 0) {
          highest = highest + term;
        }
      }
      auto at = [&](AffineExpr e) -> Value {
        return affine::AffineApplyOp::create(
            b, loc, AffineMap::get(numLoops, 0, e), lastIteration);
      };
      if (belowZero)
        check(orOp(noIterations,
                   cmp(arith::CmpIPredicate::sge, at(lowest), index(0))),
              operandName + " is indexed before its start in dimension " +
                  Twine(i) + " for the iteration space (a negative offset)");
      check(orOp(noIterations, cmp(arith::CmpIPredicate::slt, at(highest),
                                   size(operand.get(), i))),
            operandName + " is too small in dimension " + Twine(i) +
                " for the iteration space (window or offset past its end)");
    }
  }
}

/// The smallest and the largest value of `expr` (with floor and ceiling
/// divisions and remainders by positive constants) as each loop goes from 0
/// to `last`, computed on the host; false for an expression it cannot bound
/// exactly: symbols, other divisors, a loop that appears twice. `exact` is
/// then null, or a host value false when a remainder spans several periods
/// of an operand that skips values (its bounds would be wider than the
/// values taken; `dense`: the expression takes every integer between its
/// bounds). `used` marks the loops seen.
bool CheckBuilder::bounds(AffineExpr expr, ArrayRef<Value> last,
                          Value &lowest, Value &highest, Value &exact,
                          bool &dense, llvm::SmallBitVector &used) {
  MLIRContext *ctx = b.getContext();
  auto apply = [&](AffineExpr e, ValueRange operands) -> Value {
    return affine::AffineApplyOp::create(
        b, loc, AffineMap::get(operands.size(), 0, e), operands);
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  exact = nullptr;
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    if (used.test(dim.getPosition()))
      return false;
    used.set(dim.getPosition());
    lowest = index(0);
    highest = last[dim.getPosition()];
    dense = true;
    return true;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    lowest = highest = index(c.getValue());
    dense = true;
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  Value lhsLow, lhsHigh, lhsExact;
  bool lhsDense;
  if (!bounds(bin.getLHS(), last, lhsLow, lhsHigh, lhsExact, lhsDense, used))
    return false;
  exact = lhsExact;
  if (bin.getKind() == AffineExprKind::Add) {
    Value rhsLow, rhsHigh, rhsExact;
    bool rhsDense;
    if (!bounds(bin.getRHS(), last, rhsLow, rhsHigh, rhsExact, rhsDense,
                used))
      return false;
    lowest = arith::AddIOp::create(b, loc, lhsLow, rhsLow);
    highest = arith::AddIOp::create(b, loc, lhsHigh, rhsHigh);
    exact = !exact ? rhsExact : !rhsExact ? exact : andOp(exact, rhsExact);
    // Terms of distinct loops vary independently: two that take every
    // integer between their bounds sum to one that does.
    dense = lhsDense && rhsDense;
    return true;
  }
  auto k = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (!k)
    return false;
  int64_t factor = k.getValue();
  switch (bin.getKind()) {
  case AffineExprKind::Mul:
    lowest = apply(d0 * factor, factor >= 0 ? lhsLow : lhsHigh);
    highest = apply(d0 * factor, factor >= 0 ? lhsHigh : lhsLow);
    dense = lhsDense && (factor == 1 || factor == -1 || factor == 0);
    return true;
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    if (factor <= 0)
      return false;
    AffineExpr e = bin.getKind() == AffineExprKind::FloorDiv
                       ? d0.floorDiv(factor)
                       : d0.ceilDiv(factor);
    lowest = apply(e, lhsLow);
    highest = apply(e, lhsHigh);
    dense = lhsDense;
    return true;
  }
  case AffineExprKind::Mod: {
    if (factor <= 0)
      return false;
    // Within one period the residues keep their order; across periods a
    // dense operand takes every residue, one that skips values may not.
    Value onePeriod = cmp(arith::CmpIPredicate::eq,
                          apply(d0.floorDiv(factor), lhsLow),
                          apply(d0.floorDiv(factor), lhsHigh));
    lowest = arith::SelectOp::create(b, loc, onePeriod,
                                     apply(d0 % factor, lhsLow), index(0));
    highest = arith::SelectOp::create(
        b, loc, onePeriod, apply(d0 % factor, lhsHigh), index(factor - 1));
    if (!lhsDense)
      exact = exact ? andOp(exact, onePeriod) : onePeriod;
    dense = false;
    return true;
  }
  default:
    return false;
  }
}

void CheckBuilder::castChecks(tensor::CastOp castOp) {
  // Every size the cast makes static must be that size.
  auto source = castOp.getSource();
  auto result = cast<ShapedType>(castOp.getType());
  if (!result.hasRank() || !cast<ShapedType>(source.getType()).hasRank())
    return;
  for (int64_t d = 0, e = result.getRank(); d < e; ++d)
    if (!result.isDynamicDim(d) && isDynamicDim(source, d))
      check(cmp(arith::CmpIPredicate::eq, size(source, d),
                index(result.getDimSize(d))),
            "dimension " + Twine(d) + " of the operand must be " +
                Twine(result.getDimSize(d)));
}

void CheckBuilder::concatChecks(tensor::ConcatOp concat) {
  int64_t axis = concat.getDim();
  ValueRange inputs = concat.getInputs();
  Value first = inputs.front();
  int64_t rank = cast<ShapedType>(first.getType()).getRank();
  auto result = cast<ShapedType>(concat.getType());
  // Static sizes of the result: the other dimensions of every operand, and
  // the sum along the axis.
  for (int64_t d = 0; d < rank; ++d) {
    if (result.isDynamicDim(d))
      continue;
    if (d == axis) {
      if (llvm::none_of(inputs, [&](Value v) { return isDynamicDim(v, d); }))
        continue;
      Value total = index(0);
      for (Value input : inputs)
        total = arith::AddIOp::create(b, loc, total, size(input, d));
      check(cmp(arith::CmpIPredicate::eq, total, index(result.getDimSize(d))),
            "the operands' sizes along dimension " + Twine(d) +
                " must add up to " + Twine(result.getDimSize(d)));
      continue;
    }
    for (auto [i, input] : llvm::enumerate(inputs))
      if (isDynamicDim(input, d))
        check(cmp(arith::CmpIPredicate::eq, size(input, d),
                  index(result.getDimSize(d))),
              "dimension " + Twine(d) + " of operand " + Twine(i) +
                  " must be " + Twine(result.getDimSize(d)));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis)
      continue;
    for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
      if (!isDynamicDim(first, d) && !isDynamicDim(input, d))
        continue;
      check(cmp(arith::CmpIPredicate::eq, size(first, d), size(input, d)),
            "dimension " + Twine(d) + " of operand 0 and operand " +
                Twine(i + 1) + " must be equal");
    }
  }
}

void CheckBuilder::sliceChecks(OffsetSizeAndStrideOpInterface slice,
                               Value source, StringRef what) {
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  SmallVector<OpFoldResult> strides = slice.getMixedStrides();
  auto sourceType = cast<ShapedType>(source.getType());
  for (int64_t d = 0, e = sourceType.getRank(); d < e; ++d) {
    bool allStatic = !sourceType.isDynamicDim(d) &&
                     getConstantIntValue(offsets[d]) &&
                     getConstantIntValue(sizes[d]) &&
                     getConstantIntValue(strides[d]);
    if (allStatic)
      continue; // The op's verifier checked it.
    Value offset = value(offsets[d]), count = value(sizes[d]),
          stride = value(strides[d]);
    // A size computed at run time must not be negative (the checks below
    // would let a negative one through: no element is reached).
    if (!getConstantIntValue(sizes[d]))
      check(cmp(arith::CmpIPredicate::sge, count, index(0)),
            "the size of dimension " + Twine(d) + " of the slice is negative");
    // Empty, or offset >= 0 and offset + (count - 1) * stride < size.
    Value last = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc,
                              arith::SubIOp::create(b, loc, count, index(1)),
                              stride));
    Value inside = andOp(
        andOp(cmp(arith::CmpIPredicate::sge, offset, index(0)),
              cmp(arith::CmpIPredicate::sgt, stride, index(0))),
        cmp(arith::CmpIPredicate::slt, last, size(source, d)));
    std::optional<int64_t> constantStride = getConstantIntValue(strides[d]);
    bool strideFine = constantStride && *constantStride >= 1;
    check(orOp(cmp(arith::CmpIPredicate::eq, count, index(0)), inside),
          "the slice reaches past the end of the " + what + " in dimension " +
              Twine(d) + (strideFine ? "" : " (or has a stride below 1)"));
  }
}

void CheckBuilder::insertedSizeChecks(tensor::InsertSliceOp insert) {
  // The inserted tensor must have the slice's sizes (dimensions dropped by a
  // rank-reducing insertion have size 1).
  Value source = insert.getSource();
  SmallVector<OpFoldResult> sizes = insert.getMixedSizes();
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  int64_t sourceDim = 0;
  for (auto [d, sliceSize] : llvm::enumerate(sizes)) {
    if (dropped.test(d))
      continue;
    int64_t s = sourceDim++;
    if (!isDynamicDim(source, s) && getConstantIntValue(sliceSize))
      continue;
    check(cmp(arith::CmpIPredicate::eq, size(source, s), value(sliceSize)),
          "dimension " + Twine(s) + " of the inserted tensor differs from "
          "the slice size");
  }
}

void CheckBuilder::expandChecks(tensor::ExpandShapeOp expand) {
  // Each group of output sizes must multiply to its input size.
  SmallVector<OpFoldResult> outputShape = expand.getMixedOutputShape();
  for (auto [i, group] : llvm::enumerate(expand.getReassociationIndices())) {
    bool dynamic = isDynamicDim(expand.getSrc(), i);
    for (int64_t d : group)
      dynamic |= !getConstantIntValue(outputShape[d]).has_value();
    if (!dynamic)
      continue;
    SmallVector<Value> factors;
    for (int64_t d : group)
      factors.push_back(value(outputShape[d]));
    Value ok;
    Value product = checkedProduct(factors, ok);
    check(andOp(ok, cmp(arith::CmpIPredicate::eq, product,
                        size(expand.getSrc(), i))),
          "the sizes of result dimensions " + Twine(group.front()) + " to " +
              Twine(group.back()) + " do not multiply to dimension " +
              Twine(i) + " of the source");
  }
}

/// Whether `v` is computed on the host from sizes and scalars alone: a check
/// of it there reads no tensor data (a value read from a tensor is computed
/// inside the task that uses it, and cannot be checked before).
bool hostComputable(Value v, unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return !isa<TensorType>(v.getType()); // An argument.
  if (isa<tensor::DimOp>(def))
    return true;
  if (depth > 32 || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return !isa<TensorType>(operand.getType()) &&
           hostComputable(operand, depth + 1);
  });
}

bool CheckBuilder::computable(Value v) { return inKernel || hostComputable(v); }

void CheckBuilder::elementIndexChecks(Value tensor, ValueRange indices) {
  // Each index inside its dimension (fw-prepare-input rejects constant ones
  // outside a static size); not an index read from a tensor.
  for (auto [d, indexValue] : llvm::enumerate(indices)) {
    std::optional<int64_t> constant = getConstantIntValue(indexValue);
    if ((constant && !isDynamicDim(tensor, d)) || !computable(indexValue))
      continue;
    check(andOp(cmp(arith::CmpIPredicate::sge, indexValue, index(0)),
                cmp(arith::CmpIPredicate::slt, indexValue, size(tensor, d))),
          "the index into dimension " + Twine(d) + " is out of range");
  }
}

void CheckBuilder::padChecks(tensor::PadOp pad) {
  // Padding sizes computed at run time must not be negative (constant ones
  // are the op's verifier's).
  auto checkSide = [&](StringRef side, ArrayRef<OpFoldResult> sizes) {
    for (auto [d, padSize] : llvm::enumerate(sizes))
      if (!getConstantIntValue(padSize) && computable(cast<Value>(padSize)))
        check(cmp(arith::CmpIPredicate::sge, value(padSize), index(0)),
              "the " + side + " padding of dimension " + Twine(d) +
                  " is negative");
  };
  checkSide("low", pad.getMixedLowPad());
  checkSide("high", pad.getMixedHighPad());
  if (!inKernel)
    return;
  // In a kernel, paddings read from the data: the result's sizes must not
  // wrap around, nor its bytes pass kMaxKernelTensorBytes (its allocation
  // would fail).
  auto isConstant = [](OpFoldResult f) {
    return getConstantIntValue(f).has_value();
  };
  if (llvm::all_of(pad.getMixedLowPad(), isConstant) &&
      llvm::all_of(pad.getMixedHighPad(), isConstant))
    return;
  auto type = pad.getResultType();
  SmallVector<Value> factors{index(elementBytes(type.getElementType()))};
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value source = size(pad.getSource(), d);
    Value withLow =
        arith::AddIOp::create(b, loc, source, value(pad.getMixedLowPad()[d]));
    Value padded =
        arith::AddIOp::create(b, loc, withLow, value(pad.getMixedHighPad()[d]));
    ok = andOp(ok, andOp(cmp(arith::CmpIPredicate::uge, withLow, source),
                         cmp(arith::CmpIPredicate::uge, padded, withLow)));
    factors.push_back(padded);
  }
  Value productOk;
  Value bytes = checkedProduct(factors, productOk);
  check(andOp(andOp(ok, productOk),
              cmp(arith::CmpIPredicate::ule, bytes,
                  index(kMaxKernelTensorBytes))),
        "the padded tensor's sizes overflow or it would take more than 2^47 "
        "bytes");
}

void CheckBuilder::loopStepChecks(scf::ForOp loop) {
  // A step computed at run time must be positive (a constant one is
  // fw-prepare-input's): a step of 0 never ends.
  if (getConstantIntValue(loop.getStep()) || !hostComputable(loop.getStep()))
    return;
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(loop.getStep().getType()));
  Value ok = cmp(arith::CmpIPredicate::sgt, loop.getStep(), zero);
  // A loop with no iterations takes no steps.
  if (hostComputable(loop.getLowerBound()) &&
      hostComputable(loop.getUpperBound()))
    ok = orOp(ok, cmp(loop.getUnsignedCmp() ? arith::CmpIPredicate::uge
                                            : arith::CmpIPredicate::sge,
                      loop.getLowerBound(), loop.getUpperBound()));
  check(ok, "the loop's step is not positive");
}

void CheckBuilder::loopIndexChecks(scf::ForOp loop) {
  // The loop runs inside its task, where nothing can be checked; but an
  // element its body reads or writes at the induction variable plus a
  // constant, of a tensor from before the loop or carried by it with its
  // size, is in range for every iteration when it is for the first and the
  // last, which the host knows.
  Value iv = loop.getInductionVar();
  if (!iv.getType().isIndex() || !hostComputable(loop.getLowerBound()) ||
      !hostComputable(loop.getUpperBound()) ||
      !hostComputable(loop.getStep()) || loop.getUnsignedCmp())
    return;
  // The tensor's size on the host: its own, or its init's when the loop
  // provably keeps it.
  auto hostTensor = [&](Value tensor, int64_t d) -> Value {
    if (auto arg = dyn_cast<BlockArgument>(tensor)) {
      if (arg.getOwner() != loop.getBody() || arg == iv)
        return nullptr;
      Value init = loop.getTiedLoopInit(arg)->get();
      FailureOr<bool> kept = ValueBoundsConstraintSet::areEqual(
          ValueBoundsConstraintSet::Variable(arg, d),
          ValueBoundsConstraintSet::Variable(init, d));
      return succeeded(kept) && *kept ? init : nullptr;
    }
    return loop->isAncestor(tensor.getParentBlock()->getParentOp()) ? nullptr
                                                                     : tensor;
  };
  // The offset of an index `iv + c` (or `iv`).
  auto offsetOf = [&](Value index) -> std::optional<int64_t> {
    if (index == iv)
      return 0;
    auto add = index.getDefiningOp<arith::AddIOp>();
    if (!add)
      return std::nullopt;
    Value other = add.getLhs() == iv ? add.getRhs()
                  : add.getRhs() == iv ? add.getLhs()
                                       : Value();
    return other ? getConstantIntValue(other) : std::nullopt;
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value noIterations = cmp(arith::CmpIPredicate::sge, lb, ub);
  Value lastIv = nullptr;
  for (Operation &op : loop.getBody()->without_terminator()) {
    Value tensor;
    ValueRange indices;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      tensor = extract.getTensor();
      indices = extract.getIndices();
    } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
      tensor = insert.getDest();
      indices = insert.getIndices();
    } else {
      continue;
    }
    for (auto [d, indexValue] : llvm::enumerate(indices)) {
      std::optional<int64_t> offset = offsetOf(indexValue);
      Value source = offset ? hostTensor(tensor, d) : nullptr;
      if (!source)
        continue;
      if (!lastIv) {
        // lb + ((ub - lb - 1) floordiv step) * step, for a loop that runs.
        AffineExpr l = getAffineDimExpr(0, b.getContext()),
                   u = getAffineDimExpr(1, b.getContext());
        Value span = affine::AffineApplyOp::create(
            b, loc, AffineMap::get(2, 0, u - l - 1), ValueRange{lb, ub});
        Value step = loop.getStep();
        Value safeStep = arith::SelectOp::create(
            b, loc, cmp(arith::CmpIPredicate::sgt, step, index(0)), step,
            index(1));
        Value trips = arith::FloorDivSIOp::create(b, loc, span, safeStep);
        lastIv = arith::AddIOp::create(
            b, loc, lb, arith::MulIOp::create(b, loc, trips, safeStep));
      }
      Value first = arith::AddIOp::create(b, loc, lb, index(*offset));
      Value last = arith::AddIOp::create(b, loc, lastIv, index(*offset));
      Value extent = size(source, d);
      check(orOp(noIterations,
                 andOp(cmp(arith::CmpIPredicate::sge, first, index(0)),
                       cmp(arith::CmpIPredicate::slt, last, extent))),
            "'" + op.getName().getStringRef() +
                "' in its body: the index into dimension " + Twine(d) +
                " goes out of range over the iterations");
    }
  }
}

void CheckBuilder::sameShapeChecks(Value a, Value b, StringRef what) {
  auto type = cast<ShapedType>(a.getType());
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (isDynamicDim(a, d) || isDynamicDim(b, d))
      check(cmp(arith::CmpIPredicate::eq, size(a, d), size(b, d)),
            "dimension " + Twine(d) + " of the " + what + " differs");
}

void CheckBuilder::reshapeChecks(tensor::ReshapeOp reshape) {
  // As many elements after as before: the result's count from its static
  // sizes, or from a constant shape operand (else it is not known here).
  auto result = cast<ShapedType>(reshape.getType());
  std::optional<int64_t> count;
  if (result.hasStaticShape()) {
    count = result.getNumElements();
  } else {
    DenseIntElementsAttr shape;
    if (matchPattern(reshape.getShape(), m_Constant(&shape))) {
      count = 1;
      for (const APInt &v : shape.getValues<APInt>())
        if (!count || llvm::MulOverflow(*count, v.getSExtValue(), *count))
          count = std::nullopt;
    }
  }
  Value source = reshape.getSource();
  Value elements = index(1);
  for (int64_t d = 0, e = cast<ShapedType>(source.getType()).getRank(); d < e;
       ++d)
    elements = arith::MulIOp::create(b, loc, elements, size(source, d));
  if (inKernel && !matchPattern(reshape.getShape(), m_Constant())) {
    // The sizes read from the shape tensor in the kernel: none negative,
    // their product (not overflowing) the source's number of elements, and
    // each the result's where that is static.
    Value shape = reshape.getShape();
    SmallVector<Value> sizes;
    auto shapeType = cast<RankedTensorType>(shape.getType());
    for (int64_t k = 0, e = shapeType.getDimSize(0); k < e; ++k) {
      Value v = tensor::ExtractOp::create(b, loc, shape, index(k));
      if (!v.getType().isIndex())
        v = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
      sizes.push_back(v);
    }
    Value ok;
    Value product = checkedProduct(sizes, ok);
    check(andOp(ok, cmp(arith::CmpIPredicate::eq, elements, product)),
          "the shape's sizes are negative or do not multiply to the source's "
          "number of elements");
    // A static size of the result is the shape's there.
    for (auto [d, v] : llvm::enumerate(sizes))
      if (!result.isDynamicDim(d))
        check(cmp(arith::CmpIPredicate::eq, v, index(result.getDimSize(d))),
              "dimension " + Twine(d) + " of the shape differs from the "
              "result's (" + Twine(result.getDimSize(d)) + ")");
    return;
  }
  if (!count || cast<ShapedType>(source.getType()).hasStaticShape())
    return; // Unknown here, or the op's verifier's.
  check(cmp(arith::CmpIPredicate::eq, elements, index(*count)),
        "the source has another number of elements than the result (" +
            Twine(*count) + ")");
}

/// A linalg.pack of a tensor (inner tiles of constant sizes: fw-prepare-input
/// refuses others) or its inverse, a linalg.unpack: the packed tensor's outer
/// dimension for a tiled dimension of the unpacked one holds its number of
/// tiles (rounded up), for another its size; its inner dimensions, the
/// tiles'. Without a padding value, a pack's tiles must be full. The op's
/// verifier checks static sizes; these, those known at run time.
template <typename RelayoutOp>
void CheckBuilder::relayoutChecks(RelayoutOp relayout) {
  constexpr bool isPack = std::is_same_v<RelayoutOp, linalg::PackOp>;
  Value unpacked = isPack ? relayout.getSource() : relayout.getDest();
  Value packed = isPack ? relayout.getDest() : relayout.getSource();
  StringRef packedName = isPack ? "result" : "source";
  StringRef unpackedName = isPack ? "source" : "result";
  int64_t rank = cast<RankedTensorType>(unpacked.getType()).getRank();
  SmallVector<int64_t> tiles;
  for (OpFoldResult tile : relayout.getMixedTiles())
    tiles.push_back(*foldedConstant(tile));
  DenseMap<int64_t, int64_t> tileOf;
  for (auto [d, tile] : llvm::zip(relayout.getInnerDimsPos(), tiles))
    tileOf[d] = tile;
  ArrayRef<int64_t> perm = relayout.getOuterDimsPerm();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = perm.empty() ? i : perm[i];
    if (!isDynamicDim(unpacked, d) && !isDynamicDim(packed, i))
      continue;
    Value sizeD = size(unpacked, d);
    auto tile = tileOf.find(d);
    if (tile == tileOf.end()) {
      check(cmp(arith::CmpIPredicate::eq, size(packed, i), sizeD),
            "dimension " + Twine(i) + " of the " + packedName +
                " differs from dimension " + Twine(d) + " of the " +
                unpackedName);
      continue;
    }
    Value tiles = arith::CeilDivUIOp::create(b, loc, sizeD,
                                             index(tile->second));
    check(cmp(arith::CmpIPredicate::eq, size(packed, i), tiles),
          "dimension " + Twine(i) + " of the " + packedName +
              " is not the number of tiles of " + Twine(tile->second) +
              " along dimension " + Twine(d) + " of the " + unpackedName);
    if constexpr (isPack) {
      if (!relayout.getPaddingValue() && isDynamicDim(unpacked, d))
        check(cmp(arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(b, loc, sizeD, index(tile->second)),
                  index(0)),
              "dimension " + Twine(d) + " of the source is not a multiple " +
                  "of its inner tile (" + Twine(tile->second) +
                  ") and the pack has no padding value");
    }
  }
  for (auto [j, tile] : llvm::enumerate(tiles))
    if (isDynamicDim(packed, rank + j))
      check(cmp(arith::CmpIPredicate::eq, size(packed, rank + j),
                index(tile)),
            "dimension " + Twine(rank + j) + " of the " + packedName +
                " is not the inner tile size " + Twine(tile));
}

void CheckBuilder::divisionChecks(Operation *division) {
  // An integer division on the host by 0 (or of the lowest value by -1)
  // would trap: the call fails with a message instead (kernels divide by 1
  // without one: FWCPUVariantsToLLVM.cpp).
  Value lhs = division->getOperand(0), rhs = division->getOperand(1);
  Type type = rhs.getType();
  auto constant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  Value ok = cmp(arith::CmpIPredicate::ne, rhs, constant(APInt(width, 0)));
  if (isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
          arith::FloorDivSIOp>(division) &&
      width > 1)
    ok = andOp(ok, orOp(cmp(arith::CmpIPredicate::ne, lhs,
                            constant(APInt::getSignedMinValue(width))),
                        cmp(arith::CmpIPredicate::ne, rhs,
                            constant(APInt::getAllOnes(width)))));
  check(ok, "integer division by zero (or overflow)");
  // The host code goes on after a failed check (the call then fails): it
  // divides by 1 instead.
  division->setOperand(
      1, arith::SelectOp::create(b, loc, ok, rhs, constant(APInt(width, 1))));
}

LogicalResult CheckBuilder::taskDimsChecks(TaskOp task) {
  // Each dynamic size of a result, given by `dims`, must be the size the body
  // yields: value-bounds analysis relates that one to a size of an operand
  // (or a constant), which is checked on the host.
  Block &body = task.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  unsigned position = 0;
  for (auto [r, result] : llvm::enumerate(task.getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      Value declared = task.getResultDims()[position++];
      ValueBoundsConstraintSet::Variable yielded(yield.getValues()[r], d);
      // Provably the same (sizes computed alike, as fwc's own tasks' are):
      // nothing to check.
      FailureOr<bool> same = ValueBoundsConstraintSet::areEqual(
          ValueBoundsConstraintSet::Variable(declared), yielded);
      if (succeeded(same) && *same)
        continue;
      Value expected = hostSizeOf(task, yield.getValues()[r], d);
      std::string what = "from its operands' sizes";
      for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
        auto argType = dyn_cast<RankedTensorType>(arg.getType());
        for (int64_t k = 0; argType && !expected && k < argType.getRank();
             ++k) {
          FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
              yielded, ValueBoundsConstraintSet::Variable(arg, k));
          if (succeeded(equal) && *equal) {
            expected = size(task.getArgs()[j], k);
            what = ("dimension " + Twine(k) + " of operand " + Twine(j)).str();
          }
        }
      }
      if (!expected) {
        FailureOr<int64_t> constant =
            ValueBoundsConstraintSet::computeConstantBound(
                presburger::BoundType::EQ, yielded);
        if (failed(constant))
          return task.emitOpError("yields result #")
                 << r << " with a size in dimension " << d
                 << " that cannot be related to its operands, so its 'dims' "
                    "cannot be checked";
        expected = index(*constant);
        what = std::to_string(*constant);
      }
      check(cmp(arith::CmpIPredicate::eq, declared, expected),
            "dims: dimension " + Twine(d) + " of result " + Twine(r) +
                " is not the size it yields (" + what + ")");
    }
  }
  return success();
}

} // namespace

/// Size `dim` of `yielded`, a value of `task`'s body, computed before the task
/// from its operands: reified in the body (in terms of its arguments' sizes)
/// and that computation cloned to the host. Null when it cannot be (an op
/// that does not reify its shape, a size read from a tensor's data).
Value CheckBuilder::hostSizeOf(TaskOp task, Value yielded, int64_t dim) {
  Block &body = task.getBody().front();
  IRMapping map;
  for (auto [arg, operand] : llvm::zip(body.getArguments(), task.getArgs()))
    map.map(arg, operand);
  if (auto arg = dyn_cast<BlockArgument>(yielded))
    return arg.getOwner() == &body ? size(map.lookup(arg), dim) : nullptr;
  auto result = cast<OpResult>(yielded);
  OpBuilder inner(body.getTerminator());
  FailureOr<OpFoldResult> size = reifyDimOfResult(
      inner, result.getOwner(), result.getResultNumber(), dim);
  if (failed(size))
    return nullptr;
  if (std::optional<int64_t> constant = getConstantIntValue(*size))
    return index(*constant);
  return cloneToHost(cast<Value>(*size), body, map, 0);
}

Value CheckBuilder::cloneToHost(Value v, Block &body, IRMapping &map,
                                unsigned depth) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32 || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def))
    return nullptr;
  if (auto dim = dyn_cast<tensor::DimOp>(def)) {
    // A size of a tensor the body makes (an init, an empty tensor): reified
    // in turn from that op's operands.
    std::optional<int64_t> index = dim.getConstantIndex();
    auto source = dyn_cast<OpResult>(dim.getSource());
    if (!map.lookupOrNull(dim.getSource())) {
      if (!index || !source || source.getOwner()->getBlock() != &body)
        return nullptr;
      OpBuilder inner(body.getTerminator());
      FailureOr<OpFoldResult> size = reifyDimOfResult(
          inner, source.getOwner(), source.getResultNumber(), *index);
      if (failed(size))
        return nullptr;
      std::optional<int64_t> constant = getConstantIntValue(*size);
      Value onHost =
          constant ? this->index(*constant)
                   : cloneToHost(cast<Value>(*size), body, map, depth + 1);
      // The ops that use the size are cloned with `map`: they use this.
      if (onHost)
        map.map(v, onHost);
      return onHost;
    }
  }
  for (Value operand : def->getOperands()) {
    if (isa<TensorType>(operand.getType())) {
      // Only the sizes of the body's arguments (the task's operands).
      if (!isa<tensor::DimOp>(def) || !map.lookupOrNull(operand))
        return nullptr;
      continue;
    }
    if (!cloneToHost(operand, body, map, depth + 1))
      return nullptr;
  }
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

LogicalResult mlir::fw::emitTaskDimsChecks(OpBuilder &b, TaskOp task) {
  CheckBuilder checks(b, task, [](Value v) { return v; });
  return checks.taskDimsChecks(task);
}

Value mlir::fw::emitCheckedProduct(OpBuilder &b, Location loc,
                                   ArrayRef<Value> factors, Value &ok) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto cmp = [&](arith::CmpIPredicate pred, Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(b, loc, pred, lhs, rhs);
  };
  auto andOp = [&](Value lhs, Value rhs) -> Value {
    return arith::AndIOp::create(b, loc, lhs, rhs);
  };
  Value product = index(1);
  ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (Value factor : factors) {
    // Unsigned, with the high half of the product: exact when it is 0 (and
    // no division, which the host would check for a divisor of 0).
    auto wide = arith::MulUIExtendedOp::create(b, loc, product, factor);
    Value next = wide.getLow();
    ok = andOp(ok, andOp(cmp(arith::CmpIPredicate::sge, factor, index(0)),
                         andOp(cmp(arith::CmpIPredicate::eq, wide.getHigh(),
                                   index(0)),
                               cmp(arith::CmpIPredicate::sge, next,
                                   index(0)))));
    product = next;
  }
  return product;
}

/// Where in the source `loc` is: the file and line of an op as written, of
/// the callee's op for one inlined from a call, of the first op for one
/// fused from several.
static FileLineColLoc sourceLine(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return fileLoc;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return sourceLine(callSite.getCallee());
  if (auto name = dyn_cast<NameLoc>(loc))
    return sourceLine(name.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (FileLineColLoc fileLoc = sourceLine(part))
        return fileLoc;
  return nullptr;
}

std::string mlir::fw::checkMessage(Operation *op, const Twine &what) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (auto writtenAs = op->getAttrOfType<StringAttr>(kWrittenAsAttrName))
    os << "'" << writtenAs.getValue() << "': " << what;
  else
    os << "'" << op->getName() << "': " << what;
  if (FileLineColLoc fileLoc = sourceLine(op->getLoc()))
    os << " (" << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine()
       << ")";
  // A message is a C string where it fails the call: a NUL byte in what the
  // program wrote is spelled out.
  std::string escaped;
  for (char c : message)
    escaped += c == '\0' ? std::string("\\0") : std::string(1, c);
  return escaped;
}

bool mlir::fw::isHostComputable(Value v) { return hostComputable(v); }

std::optional<int64_t> mlir::fw::foldedConstant(OpFoldResult size) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return constant;
  FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::EQ, ValueBoundsConstraintSet::Variable(size));
  if (failed(bound))
    return std::nullopt;
  return *bound;
}

bool mlir::fw::isIntegerDivision(Operation *op) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op) &&
         op->getResult(0).getType().isIntOrIndex();
}

void mlir::fw::emitShapeChecks(OpBuilder &b, Operation *op,
                               function_ref<Value(Value)> shapeSource,
                               bool inKernel) {
  if (!inKernel && op->hasAttr(kHostCheckedAttrName))
    return; // Checked before the canonicalizer ran (ChecksBeforeFolding).
  CheckBuilder checks(b, op, shapeSource, inKernel);
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](linalg::LinalgOp linalgOp) {
        if (!linalgOp.hasPureBufferSemantics())
          checks.linalgChecks(linalgOp);
      })
      .Case([&](tensor::ConcatOp concat) { checks.concatChecks(concat); })
      .Case([&](tensor::CastOp cast) { checks.castChecks(cast); })
      .Case([&](tensor::ExtractSliceOp slice) {
        checks.sliceChecks(slice, slice.getSource(), "source");
      })
      .Case([&](tensor::InsertSliceOp slice) {
        checks.sliceChecks(slice, slice.getDest(), "destination");
        checks.insertedSizeChecks(slice);
      })
      .Case([&](tensor::ExpandShapeOp expand) { checks.expandChecks(expand); })
      .Case([&](tensor::InsertOp insert) {
        checks.elementIndexChecks(insert.getDest(), insert.getIndices());
      })
      .Case([&](tensor::ExtractOp extract) {
        checks.elementIndexChecks(extract.getTensor(), extract.getIndices());
      })
      .Case([&](tensor::PadOp pad) { checks.padChecks(pad); })
      .Case([&](linalg::SoftmaxOp softmax) {
        checks.sameShapeChecks(softmax.getInput(), softmax.getOutput(),
                               "input and the output");
      })
      .Case([&](tensor::ReshapeOp reshape) { checks.reshapeChecks(reshape); })
      .Case([&](linalg::PackOp pack) { checks.relayoutChecks(pack); })
      .Case([&](linalg::UnPackOp unpack) { checks.relayoutChecks(unpack); })
      .Case([&](scf::ForOp loop) {
        checks.loopStepChecks(loop);
        checks.loopIndexChecks(loop);
      })
      .Default([&](Operation *other) {
        if (isIntegerDivision(other))
          checks.divisionChecks(other);
      });
}
