//===- CPUTile.cpp - Cache tiling of contractions on the CPU --------------===//
//
// Tiles the reduction loop and the innermost (vectorized) loop of
// contractions so that a block of the operand they share stays in the L2
// cache while every row of the output passes over it.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUTILEPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

struct CPUTilePass : public fw::impl::CPUTilePassBase<CPUTilePass> {
  using CPUTilePassBase::CPUTilePassBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumReductionLoops() > 0 &&
          op.getNumParallelLoops() >= 2 && op.getNumLoops() <= 4)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      unsigned numLoops = op.getNumLoops();
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      auto iterators = op.getIteratorTypesArray();
      // Innermost loop (the vectorized one) and the innermost reduction.
      unsigned inner = numLoops - 1;
      if (iterators[inner] != utils::IteratorType::parallel)
        continue;
      int reduction = -1;
      for (int l = inner - 1; l >= 0; --l)
        if (iterators[l] == utils::IteratorType::reduction) {
          reduction = l;
          break;
        }
      if (reduction < 0)
        continue;
      unsigned elementBytes = 4;
      int64_t innerTile = std::max<int64_t>(64, innerBytes / elementBytes);
      int64_t reductionTile = std::max<int64_t>(
          16, l2Bytes / 2 / (innerTile * elementBytes));
      auto worth = [&](unsigned loop, int64_t tile) {
        return ShapedType::isDynamic(ranges[loop]) || ranges[loop] > tile;
      };
      if (!worth(inner, innerTile) && !worth(reduction, reductionTile))
        continue;
      SmallVector<OpFoldResult> sizes(numLoops, rewriter.getIndexAttr(0));
      sizes[inner] = rewriter.getIndexAttr(innerTile);
      sizes[reduction] = rewriter.getIndexAttr(reductionTile);
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      auto tileable = dyn_cast<TilingInterface>(op.getOperation());
      if (!tileable)
        continue; // The tiling models are not registered in this context.
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, tileable, options);
      if (failed(tiled))
        continue;
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
