//===- PrepareInput.cpp - Normalize input functions -----------------------===//
//
// Elementwise tensor ops to linalg (without folding), reductions and named
// elementwise ops to linalg.generic, large splat constants to fills, empty
// concat operands dropped, affine loops to SCF, whole-tensor selects to
// scf.if, reshapes by constant shapes to static result types, packs,
// unpacks, gathers and scatters to ops that bufferize (InputLowerings.cpp;
// their checks first); constant element indices outside a static size,
// constant loop steps below 1 and constant shapes that contradict a
// reshape's type rejected (undefined at run time, and folded away unseen by
// the canonicalizer that follows); then the checks that canonicalizer could
// drop (ChecksBeforeFolding.cpp).
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/InputLowerings.h"
#include "fw/Dialect/FW/Transforms/LoopUtils.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fw {
#define GEN_PASS_DEF_PREPAREINPUTPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Splat constants with at least this many elements become fills.
static constexpr int64_t kSplatToFillThreshold = 4096;

namespace {

/// `math.isinf` (which no backend lowers) as a compare of the magnitude.
struct ExpandIsInf : public OpRewritePattern<math::IsInfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsInfOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getOperand().getType();
    auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    // On tensors, once it is a linalg.generic of scalars.
    if (!floatType || isa<TensorType>(type))
      return failure();
    TypedAttr inf = rewriter.getFloatAttr(
        floatType, APFloat::getInf(floatType.getFloatSemantics()));
    if (auto shaped = dyn_cast<ShapedType>(type))
      inf = DenseElementsAttr::get(shaped, inf);
    Value magnitude = math::AbsFOp::create(rewriter, loc, op.getOperand());
    Value infinity = arith::ConstantOp::create(rewriter, loc, inf);
    rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::OEQ,
                                               magnitude, infinity);
    return success();
  }
};

/// `math.clampf` (which no backend lowers) as the larger of the value and
/// the minimum, then the smaller of that and the maximum; NaN propagates.
struct ExpandClampF : public OpRewritePattern<math::ClampFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ClampFOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<TensorType>(op.getType()))
      return failure(); // once it is a linalg.generic of scalars
    Value atLeast = arith::MaximumFOp::create(
        rewriter, op.getLoc(), op.getValue(), op.getMin(),
        op.getFastmath());
    rewriter.replaceOpWithNewOp<arith::MinimumFOp>(op, atLeast, op.getMax(),
                                                   op.getFastmath());
    return success();
  }
};

/// `cf.assert` aborts the process; as `fw.assert` it fails the call instead,
/// on the host or, inside a task, through the kernel's error word.
void assertsAsChecks(func::FuncOp func) {
  func.walk([](cf::AssertOp op) {
    OpBuilder b(op);
    StringRef message = op.getMsg();
    AssertOp::create(
        b, op.getLoc(), op.getArg(),
        checkMessage(op, message.empty() ? "the assertion failed" : message));
    op.erase();
  });
}

/// Tasks produce tensors only: a loop at the top level of a function that
/// carries scalars (a running sum next to the tensor it fills) carries them
/// as tensors of rank 0 instead, read back where the loop's results are used
/// (a tensor.extract, which the tasks that use it compute again); an index
/// carried with them as an i64 (no tensor of index elements passes between
/// tasks).
void carryScalarsAsTensors(func::FuncOp func) {
  auto isScalar = [](Type type) {
    return isa<IntegerType, FloatType>(type) &&
           getElementTypeCode(type).has_value();
  };
  if (func.isExternal())
    return;
  for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
    auto loop = dyn_cast<scf::ForOp>(&op);
    if (!loop || llvm::none_of(loop.getResultTypes(), isScalar))
      continue;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Type i64 = b.getI64Type();
    auto wrap = [&](Value v) -> Value {
      Type type = v.getType();
      if (type.isIndex())
        v = arith::IndexCastOp::create(b, loc, i64, v);
      else if (!isScalar(type))
        return v;
      return tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({}, v.getType()), v);
    };
    auto unwrap = [&](Value v, Type type) -> Value {
      if (!isScalar(type) && !type.isIndex())
        return v;
      Value scalar = tensor::ExtractOp::create(b, loc, v, ValueRange{});
      if (type.isIndex())
        scalar = arith::IndexCastOp::create(b, loc, type, scalar);
      return scalar;
    };
    SmallVector<Value> inits = llvm::map_to_vector(
        loop.getInitArgs(), [&](Value v) { return wrap(v); });
    auto wrapped = scf::ForOp::create(b, loc, loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep(),
                                      inits);
    wrapped.setUnsignedCmp(loop.getUnsignedCmp());
    wrapped->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    Block *body = wrapped.getBody();
    b.setInsertionPointToStart(body);
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), wrapped.getInductionVar());
    for (auto [old, carried] :
         llvm::zip(loop.getRegionIterArgs(), wrapped.getRegionIterArgs()))
      mapping.map(old, unwrap(carried, old.getType()));
    for (Operation &inner : loop.getBody()->without_terminator())
      b.clone(inner, mapping);
    SmallVector<Value> yielded = llvm::map_to_vector(
        loop.getYieldedValues(),
        [&](Value v) { return wrap(mapping.lookupOrDefault(v)); });
    scf::YieldOp::create(b, loop.getBody()->getTerminator()->getLoc(),
                         yielded);
    b.setInsertionPointAfter(wrapped);
    for (auto [old, result] :
         llvm::zip(loop.getResults(), wrapped.getResults()))
      old.replaceAllUsesWith(unwrap(result, old.getType()));
    loop.erase();
  }
}

/// A tensor.reshape whose shape has integers narrower than 64 bits reads
/// them as i64 (the memref lowering of a reshape by an i32 shape leaves a
/// cast LLVM cannot translate): a constant shape is made again as i64, one
/// made of scalars of their sign extensions, another is extended as a tensor.
struct WideReshapeShape : public OpRewritePattern<tensor::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto shapeType = cast<RankedTensorType>(op.getShape().getType());
    auto element = dyn_cast<IntegerType>(shapeType.getElementType());
    if (!element || element.getWidth() >= 64)
      return failure();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto wideType = RankedTensorType::get(shapeType.getShape(), i64);
    Value wide;
    DenseIntElementsAttr constant;
    if (matchPattern(op.getShape(), m_Constant(&constant))) {
      SmallVector<int64_t> sizes = llvm::map_to_vector(
          constant.getValues<APInt>(),
          [](const APInt &size) { return size.getSExtValue(); });
      wide = arith::ConstantOp::create(
          rewriter, loc, DenseIntElementsAttr::get(wideType, sizes));
    } else if (auto scalars =
                   op.getShape().getDefiningOp<tensor::FromElementsOp>()) {
      SmallVector<Value> sizes;
      for (Value size : scalars.getElements())
        sizes.push_back(arith::ExtSIOp::create(rewriter, loc, i64, size));
      wide = tensor::FromElementsOp::create(rewriter, loc, wideType, sizes);
    } else {
      wide = arith::ExtSIOp::create(rewriter, loc, wideType, op.getShape());
    }
    rewriter.modifyOpInPlace(op, [&] { op.getShapeMutable().assign(wide); });
    return success();
  }
};

struct SplatConstantToFill : public OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!splat || !type || !type.hasStaticShape() ||
        type.getNumElements() < kSplatToFillThreshold)
      return failure();
    Location loc = op.getLoc();
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    Value scalar = arith::ConstantOp::create(
        rewriter, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
    return success();
  }
};

struct DropEmptyConcatOperands : public OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    int64_t axis = op.getDim();
    SmallVector<Value> kept;
    for (Value input : op.getInputs())
      if (cast<ShapedType>(input.getType()).getDimSize(axis) != 0)
        kept.push_back(input);
    if (kept.size() == op.getInputs().size() || kept.empty())
      return failure();
    if (kept.size() == 1) {
      rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(),
                                                  kept.front());
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, op.getType(), axis,
                                                  kept);
    return success();
  }
};

/// Whether value bounds prove the two tensors `select` picks from of one size.
static bool sameSizes(arith::SelectOp select) {
  using Variable = ValueBoundsConstraintSet::Variable;
  auto type = cast<RankedTensorType>(select.getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d) &&
        !ValueBoundsConstraintSet::compare(
            Variable(select.getTrueValue(), d),
            ValueBoundsConstraintSet::ComparisonOperator::EQ,
            Variable(select.getFalseValue(), d)))
      return false;
  return true;
}

/// An arith.select with a scalar condition picks a whole tensor, and the two
/// may differ in their dynamic sizes, where the elementwise conversion would
/// ask them to agree: it becomes an scf.if, left alone here (the canonicalizer
/// makes it a select again, which fw-form-tasks sizes with the condition):
/// where the host computes the condition and the sizes may differ.
struct WholeTensorSelect : public OpRewritePattern<arith::SelectOp> {
  WholeTensorSelect(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(arith::SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.hasStaticShape() ||
        isa<ShapedType>(op.getCondition().getType()))
      return failure();
    // Picked by data, the two must have one size anyway (the result's is
    // known before the task runs); known to have one, nothing differs: the
    // elementwise form then, which fuses with what uses it.
    if (!isHostComputable(op.getCondition()) || sameSizes(op))
      return failure();
    auto branch = scf::IfOp::create(rewriter, op.getLoc(), type,
                                    op.getCondition(), /*withElse=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(rewriter, op.getLoc(), op.getTrueValue());
    rewriter.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(rewriter, op.getLoc(), op.getFalseValue());
    rewriter.replaceOp(op, branch.getResults());
    return success();
  }
};

/// A reshape whose shape is a constant gets the static result type it gives
/// (cast back to the type written): the host knows its sizes then.
struct StaticShapeReshape : public OpRewritePattern<tensor::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    DenseIntElementsAttr shape;
    if (!type || type.hasStaticShape() ||
        !matchPattern(op.getShape(), m_Constant(&shape)))
      return failure();
    SmallVector<int64_t> sizes;
    for (const APInt &v : shape.getValues<APInt>()) {
      if (v.isNegative())
        return failure(); // Checked at run time.
      sizes.push_back(v.getSExtValue());
    }
    auto known = RankedTensorType::get(sizes, type.getElementType(),
                                       type.getEncoding());
    Value reshaped = tensor::ReshapeOp::create(rewriter, op.getLoc(), known,
                                               op.getSource(), op.getShape());
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, type, reshaped);
    return success();
  }
};

/// Reductions, maps and named elementwise ops become linalg.generic, so that
/// elementwise producers fuse into them (linalg-fuse-elementwise-ops only
/// fuses generics). Fills, copies and contractions stay named: later passes
/// look for them by name.
struct GeneralizeForFusion
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(op) ||
        !op.hasPureTensorSemantics())
      return failure();
    if (!isa<linalg::ReduceOp, linalg::MapOp>(op) && !linalg::isElementwise(op))
      return failure();
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return failure();
    return success();
  }
};

/// Constant indices of tensor.extract and tensor.insert must be inside their
/// static sizes, that of tensor.dim inside the rank, and a constant scf.for
/// step must be positive (dynamic ones are checked at run time:
/// ShapeChecks.cpp); packs and unpacks by tiles of sizes known at run time
/// only, 8-bit floats and complex numbers are not supported.
LogicalResult checkInput(func::FuncOp func) {
  auto checkIndices = [](Operation *op, Value tensor,
                         ValueRange indices) -> LogicalResult {
    auto type = cast<RankedTensorType>(tensor.getType());
    for (auto [d, index] : llvm::enumerate(indices)) {
      std::optional<int64_t> value = getConstantIntValue(index);
      if (!value || type.isDynamicDim(d) ||
          (*value >= 0 && *value < type.getDimSize(d)))
        continue;
      return op->emitOpError("index ")
             << *value << " is out of range for dimension " << d
             << " of size " << type.getDimSize(d);
    }
    return success();
  };
  // Element types no kernel computes in (8-bit and smaller floats, complex
  // numbers), named here rather than by the LLVM translation later.
  auto unsupported = [](Type type) {
    Type element = getElementTypeOrSelf(type);
    auto floatType = dyn_cast<FloatType>(element);
    return isa<ComplexType>(element) ||
           (floatType && floatType.getWidth() < 16);
  };
  auto check = [&](Operation *op) -> LogicalResult {
    auto exotic = llvm::find_if(op->getResultTypes(), unsupported);
    if (exotic != op->getResultTypes().end())
      return op->emitOpError("produces element type ")
             << getElementTypeOrSelf(*exotic)
             << ", which fw does not support (floats: f16, bf16, f32, f64)";
    // Ops no kernel can hold yet, named here rather than by the
    // bufferization that would fail on them later.
    auto dynamicTile = [](OpFoldResult tile) {
      return !foldedConstant(tile).has_value();
    };
    if ((isa<linalg::PackOp>(op) &&
         llvm::any_of(cast<linalg::PackOp>(op).getMixedTiles(),
                      dynamicTile)) ||
        (isa<linalg::UnPackOp>(op) &&
         llvm::any_of(cast<linalg::UnPackOp>(op).getMixedTiles(),
                      dynamicTile)))
      return op->emitOpError("with an inner tile size computed at run time "
                             "is not supported yet");
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      return checkIndices(op, extract.getTensor(), extract.getIndices());
    if (auto insert = dyn_cast<tensor::InsertOp>(op))
      return checkIndices(op, insert.getDest(), insert.getIndices());
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
      std::optional<int64_t> index = dim.getConstantIndex();
      if (type && index && (*index < 0 || *index >= type.getRank()))
        return dim.emitOpError("index ")
               << *index << " is out of range for a tensor of rank "
               << type.getRank();
    }
    if (auto reshape = dyn_cast<tensor::ReshapeOp>(op)) {
      DenseIntElementsAttr shape;
      auto type = dyn_cast<RankedTensorType>(reshape.getType());
      if (type && matchPattern(reshape.getShape(), m_Constant(&shape)))
        for (auto [d, v] : llvm::enumerate(shape.getValues<APInt>())) {
          int64_t size = type.getDimSize(d);
          if (!ShapedType::isDynamic(size) && v.getSExtValue() != size)
            return reshape.emitOpError("shape gives dimension ")
                   << d << " the size " << v.getSExtValue()
                   << ", its result type " << size;
        }
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      if (std::optional<int64_t> step = getConstantIntValue(loop.getStep());
          step && *step <= 0)
        return loop.emitOpError("has a step of ")
               << *step << "; the step must be positive";
    return success();
  };
  WalkResult result = func.walk([&](Operation *op) {
    return failed(check(op)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Names the op that replaces another (a linalg.generic for an arith op on
/// tensors or a named linalg op) with the one the program wrote, for the
/// checks' messages (kWrittenAsAttrName).
struct WrittenAs : public RewriterBase::Listener {
  void notifyOperationReplaced(Operation *op, ValueRange replacement) override {
    if (replacement.empty())
      return;
    Operation *by = replacement.front().getDefiningOp();
    if (!by || by->getName() == op->getName() || isa<arith::ConstantOp>(op) ||
        by->hasAttr(kWrittenAsAttrName) ||
        llvm::any_of(replacement,
                     [&](Value v) { return v.getDefiningOp() != by; }))
      return;
    StringAttr name = op->getAttrOfType<StringAttr>(kWrittenAsAttrName);
    by->setAttr(kWrittenAsAttrName,
                name ? name
                     : StringAttr::get(op->getContext(),
                                       op->getName().getStringRef()));
  }
};

/// The runtime holds no buffers of index elements, so a tensor of them cannot
/// pass between tasks: an elementwise producer of one at the top level of a
/// function (an arith.index_cast of a whole tensor, now a linalg.generic) is
/// fused into the elementwise consumers that read it, at every optimization
/// level (the default one fuses every elementwise producer).
struct FuseIndexTensorProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isa<func::FuncOp>(consumer->getParentOp()))
      return failure();
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || getElementTypeCode(type.getElementType()) ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      Operation *producer = operand.get().getDefiningOp();
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      if (Attribute name = consumer->getAttr(kWrittenAsAttrName))
        fused->fusedOp->setAttr(kWrittenAsAttrName, name);
      // The consumer's results only: the producer stays for its other users.
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.get().getDefiningOp() != producer;
        });
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }
};

struct PrepareInputPass
    : public fw::impl::PrepareInputPassBase<PrepareInputPass> {
  void runOnOperation() override {
    if (failed(checkInput(getOperation())))
      return signalPassFailure();
    // fwc inlined every call it could before.
    WalkResult calls = getOperation().walk([](Operation *op) {
      if (!isa<func::CallOp, func::CallIndirectOp>(op))
        return WalkResult::advance();
      op->emitOpError("calls a function fwc does not inline (a recursive "
                      "one, a declaration, an indirect call); an fw entry "
                      "point is compiled whole");
      return WalkResult::interrupt();
    });
    if (calls.wasInterrupted())
      return signalPassFailure();
    // Marks of the compiler's own checks mean nothing in the input: an op or a
    // task marked so there is checked like any.
    getOperation().walk([](Operation *op) {
      op->removeAttr(kCheckedAttrName);
      op->removeAttr(kHostCheckedAttrName);
    });
    assertsAsChecks(getOperation());
    // Affine loops and branches on tensors as SCF ones, which bufferize and
    // whose sizes and steps the checks know.
    if (failed(lowerAffine(getOperation(), /*everything=*/false)) ||
        failed(lowerInputOps(getOperation())))
      return signalPassFailure();
    carryScalarsAsTensors(getOperation());
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    patterns.add<ExpandIsInf, ExpandClampF, WideReshapeShape,
                 SplatConstantToFill,
                 DropEmptyConcatOperands,
                 GeneralizeForFusion, WholeTensorSelect, StaticShapeReshape>(
        &getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    WrittenAs writtenAs;
    config.setListener(&writtenAs);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
    emitChecksBeforeFolding(getOperation());
    RewritePatternSet fusion(&getContext());
    fusion.add<FuseIndexTensorProducer>(&getContext());
    // What a fused producer's other uses kept as results of the fused op
    // goes once those uses are fused too.
    linalg::populateEraseUnusedOperandsAndResultsPatterns(fusion);
    if (failed(applyPatternsGreedily(getOperation(), std::move(fusion),
                                     config)))
      return signalPassFailure();
  }
};

} // namespace
