//===- LoopUtils.cpp - Loops the checks rewrite ---------------------------===//

#include "fw/Dialect/FW/Transforms/LoopUtils.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

scf::LoopNest mlir::fw::parallelToForNest(RewriterBase &rewriter,
                                          scf::ParallelOp loop) {
  rewriter.setInsertionPoint(loop);
  auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), loop.getInitVals(),
      [&](OpBuilder &b, Location, ValueRange ivs, ValueRange acc) {
        IRMapping map;
        map.map(loop.getInductionVars(), ivs);
        for (Operation &op : loop.getBody()->without_terminator())
          b.clone(op, map);
        scf::ValueVector next;
        for (auto [i, region] : llvm::enumerate(reduce.getReductions())) {
          Block &combine = region.front();
          map.map(combine.getArgument(0), acc[i]);
          map.map(combine.getArgument(1),
                  map.lookupOrDefault(reduce.getOperands()[i]));
          for (Operation &op : combine.without_terminator())
            b.clone(op, map);
          next.push_back(map.lookupOrDefault(
              cast<scf::ReduceReturnOp>(combine.getTerminator())
                  .getResult()));
        }
        return next;
      });
  rewriter.replaceOp(loop, nest.results);
  return nest;
}

namespace {
/// Collects the SCF loops and branches a conversion inserts.
struct InsertedSCF : public RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    if (isa<scf::ForOp, scf::IfOp, scf::ParallelOp>(op))
      inserted.push_back(op);
  }
  SmallVector<Operation *> inserted;
};
} // namespace

LogicalResult mlir::fw::lowerAffine(Operation *root, bool everything) {
  MLIRContext *ctx = root->getContext();
  ConversionTarget target(*ctx);
  if (everything)
    target.addIllegalDialect<affine::AffineDialect>();
  else
    target.addIllegalOp<affine::AffineForOp, affine::AffineIfOp,
                        affine::AffineParallelOp, affine::AffineYieldOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(ctx);
  populateAffineToStdConversionPatterns(patterns);
  if (everything)
    affine::populateAffineExpandIndexOpsPatterns(patterns);
  // The loops and branches made keep the names written (for the checks'
  // messages); those already there only move.
  llvm::SmallPtrSet<Operation *, 8> before;
  root->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::IfOp, scf::ParallelOp>(op))
      before.insert(op);
  });
  InsertedSCF listener;
  ConversionConfig config;
  config.listener = &listener;
  if (failed(applyPartialConversion(root, target, std::move(patterns),
                                    config)))
    return failure();
  for (Operation *op : listener.inserted)
    if (!before.contains(op) && !op->hasAttr(kWrittenAsAttrName))
      op->setAttr(kWrittenAsAttrName,
                  StringAttr::get(ctx, isa<scf::ForOp>(op) ? "affine.for"
                                       : isa<scf::IfOp>(op)
                                           ? "affine.if"
                                           : "affine.parallel"));
  return success();
}
