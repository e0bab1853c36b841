//===- CPUDistribute.cpp - Divide a kernel's loop nest among workgroups ---===//
//
// A kernel whose work is linalg ops gets a parallel loop of each cut into one
// contiguous part per workgroup, consistently across the buffers they share,
// so the runtime can run the parts of a large task on several CPU workers at
// once.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/Workgroups.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUDISTRIBUTEPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// The kernel's ops with memory effects other than allocating and freeing,
/// when they are all linalg ops on buffers at the top level; empty otherwise
/// (or when the kernel is already divided).
static SmallVector<linalg::LinalgOp> kernelOps(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> ops;
  if (func.isExternal())
    return ops; // A declaration: nothing to divide.
  for (Operation &op : func.getBody().front()) {
    if (isa<WorkgroupIdOp, WorkgroupCountOp>(op))
      return {};
    if (isMemoryEffectFree(&op) || isa<memref::AllocOp, memref::AllocaOp,
                                       memref::DeallocOp, func::ReturnOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics())
      return {};
    ops.push_back(linalgOp);
  }
  return ops;
}

/// The outermost parallel loop of `op` that indexes every output, so that
/// the parts write disjoint elements.
static std::optional<unsigned> splitLoop(linalg::LinalgOp op) {
  auto iterators = op.getIteratorTypesArray();
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
    if (iterators[loop] != utils::IteratorType::parallel)
      continue;
    if (llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
          return op.getMatchingIndexingMap(&init).isFunctionOfDim(loop);
        }))
      return loop;
  }
  return std::nullopt;
}

/// Chooses the loop each op is cut along, or fails. Each workgroup runs all
/// the ops on its part, with no synchronisation between them, so every
/// buffer the kernel writes must be cut the same way in every op that
/// touches it: indexed by the op's cut loop alone, at the same dimension.
/// Buffers the kernel only reads may be read whole. A written buffer must
/// not be reached through a view, which could hide such a use.
static std::optional<SmallVector<unsigned>>
chooseSplitLoops(ArrayRef<linalg::LinalgOp> ops) {
  llvm::SmallPtrSet<Value, 8> written;
  for (linalg::LinalgOp op : ops)
    for (Value init : op.getDpsInits())
      written.insert(init);
  for (Value buffer : written) {
    if (!isa<BlockArgument>(buffer) && !buffer.getDefiningOp<memref::AllocOp>())
      return std::nullopt;
    for (Operation *user : buffer.getUsers())
      if (!isa<linalg::LinalgOp, memref::DeallocOp>(user))
        return std::nullopt;
  }
  llvm::DenseMap<Value, unsigned> position; // written buffer -> cut dimension
  SmallVector<unsigned> loops;
  for (linalg::LinalgOp op : ops) {
    std::optional<unsigned> loop = splitLoop(op);
    if (!loop)
      return std::nullopt;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!written.contains(operand.get()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      std::optional<unsigned> pos;
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (dim && dim.getPosition() == *loop)
          pos = i;
        else if (e.isFunctionOfDim(*loop))
          return std::nullopt; // a window or other expression of the cut loop
      }
      if (!pos)
        return std::nullopt;
      auto [it, inserted] = position.try_emplace(operand.get(), *pos);
      if (!inserted && it->second != *pos)
        return std::nullopt;
    }
    loops.push_back(*loop);
  }
  return loops;
}

namespace {

struct CPUDistributePass
    : public fw::impl::CPUDistributePassBase<CPUDistributePass> {
  using CPUDistributePassBase::CPUDistributePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<linalg::LinalgOp> ops = kernelOps(func);
    if (ops.empty())
      return;
    std::optional<SmallVector<unsigned>> loops = chooseSplitLoops(ops);
    if (!loops)
      return;
    // Small kernels (when their size is known) are not worth dividing.
    bool large = false, innermost = false;
    for (auto [op, loop] : llvm::zip(ops, *loops)) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      large |= llvm::any_of(ranges, ShapedType::isDynamic) ||
               llvm::product_of(ranges) >= minElements;
      innermost |= loop == op.getNumLoops() - 1;
      if (!isa<TilingInterface>(op.getOperation()))
        return;
    }
    if (!large)
      return;
    // One granule for all ops, so ops sharing a buffer cut it identically.
    int64_t unit = innermost ? granule : 1;
    for (auto [op, loop] : llvm::zip(ops, *loops)) {
      auto tileable = cast<TilingInterface>(op.getOperation());
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Range> domain = tileable.getIterationDomain(b);
      SmallVector<OpFoldResult> offsets, sizes;
      for (const Range &r : domain) {
        offsets.push_back(r.offset);
        sizes.push_back(r.size);
      }
      Value size = getValueOrCreateConstantIndexOp(b, loc, domain[loop].size);
      auto [lo, hi] = getWorkgroupRange(b, loc, func, size, unit);
      offsets[loop] = lo;
      sizes[loop] = arith::SubIOp::create(b, loc, hi, lo).getResult();
      if (failed(tileable.getTiledImplementation(b, offsets, sizes))) {
        op.emitOpError("could not be divided among workgroups");
        return signalPassFailure();
      }
      op->erase();
    }
  }
};

} // namespace
