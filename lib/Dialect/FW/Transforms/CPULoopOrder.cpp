//===- CPULoopOrder.cpp - Unit-stride inner loops for CPU kernels ---------===//
//
// Chooses the innermost loop of each linalg op so that as many operands as
// possible are walked with unit stride or stay invariant in it.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPULOOPORDERPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// How well loop `loop` suits the innermost position: every operand walked
/// with unit stride counts 2, every invariant operand 1, every strided one -2,
/// and a parallel loop 1 more.
static int scoreInnermost(linalg::LinalgOp op, unsigned loop) {
  int score = 0;
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (map.getNumResults() == 0 || !map.isFunctionOfDim(loop)) {
      score += 1;
      continue;
    }
    AffineExpr last = map.getResults().back();
    bool inLast = last.isFunctionOfDim(loop);
    bool inOthers = llvm::any_of(map.getResults().drop_back(), [&](AffineExpr e) {
      return e.isFunctionOfDim(loop);
    });
    // Unit stride: the last index is the loop, possibly plus another term
    // (a convolution window), and no other index uses it.
    auto isLoop = [&](AffineExpr e) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      return dim && dim.getPosition() == loop;
    };
    bool unit = inLast && !inOthers && isLoop(last);
    if (auto sum = dyn_cast<AffineBinaryOpExpr>(last);
        inLast && !inOthers && sum && sum.getKind() == AffineExprKind::Add)
      unit = isLoop(sum.getLHS()) || isLoop(sum.getRHS());
    score += unit ? 2 : -2;
  }
  if (op.getIteratorTypesArray()[loop] == utils::IteratorType::parallel)
    score += 1;
  return score;
}

namespace {

struct CPULoopOrderPass
    : public fw::impl::CPULoopOrderPassBase<CPULoopOrderPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      unsigned numLoops = op.getNumLoops();
      if (numLoops < 2 || !op.hasPureBufferSemantics())
        continue;
      unsigned innermost = numLoops - 1, best = innermost;
      int bestScore = scoreInnermost(op, innermost);
      auto iterators = op.getIteratorTypesArray();
      for (unsigned loop = 0; loop < innermost; ++loop) {
        // Moving a reduction past another reduction would change the order
        // in which an output element accumulates (argmax ties, say).
        if (iterators[loop] == utils::IteratorType::reduction &&
            llvm::any_of(llvm::seq(loop + 1, numLoops), [&](unsigned l) {
              return iterators[l] == utils::IteratorType::reduction;
            }))
          continue;
        int score = scoreInnermost(op, loop);
        if (score > bestScore) {
          best = loop;
          bestScore = score;
        }
      }
      if (best == innermost)
        continue;
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue; // Ops without a region builder keep their order.
        generic = *generalized;
      }
      SmallVector<unsigned> order;
      for (unsigned loop = 0; loop < numLoops; ++loop)
        if (loop != best)
          order.push_back(loop);
      order.push_back(best);
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
        continue;
    }
  }
};

} // namespace
