//===- PrepareInput.cpp - Normalize input functions -----------------------===//
//
// Elementwise tensor ops to linalg (without folding), reductions and named
// elementwise ops to linalg.generic, large splat constants to fills, empty
// concat operands dropped.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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

struct PrepareInputPass
    : public fw::impl::PrepareInputPassBase<PrepareInputPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    patterns.add<SplatConstantToFill, DropEmptyConcatOperands,
                 GeneralizeForFusion>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};

} // namespace
