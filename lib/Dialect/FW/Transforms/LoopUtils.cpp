//===- LoopUtils.cpp - Loops the checks rewrite ---------------------------===//

#include "fw/Dialect/FW/Transforms/LoopUtils.h"

#include "mlir/IR/IRMapping.h"

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
