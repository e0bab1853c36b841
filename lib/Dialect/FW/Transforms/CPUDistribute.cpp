//===- CPUDistribute.cpp - Divide a kernel's loop nest among workgroups ---===//
//
// A kernel whose work is one linalg op gets its outermost parallel loop cut
// into one contiguous part per workgroup, so the runtime can run the parts
// of a large task on several CPU workers at once.
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

/// The kernel's only op with memory effects other than allocation, or null.
static linalg::LinalgOp soleLinalgOp(func::FuncOp func) {
  linalg::LinalgOp found;
  for (Operation &op : func.getBody().front()) {
    if (isa<WorkgroupIdOp, WorkgroupCountOp>(op))
      return nullptr; // already divided
    if (isMemoryEffectFree(&op) || isa<memref::AllocOp, memref::AllocaOp,
                                       memref::DeallocOp, func::ReturnOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || found)
      return nullptr;
    found = linalgOp;
  }
  return found;
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

namespace {

struct CPUDistributePass
    : public fw::impl::CPUDistributePassBase<CPUDistributePass> {
  using CPUDistributePassBase::CPUDistributePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    linalg::LinalgOp op = soleLinalgOp(func);
    if (!op || !op.hasPureBufferSemantics())
      return;
    auto tileable = dyn_cast<TilingInterface>(op.getOperation());
    std::optional<unsigned> loop = splitLoop(op);
    if (!tileable || !loop)
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::none_of(ranges, ShapedType::isDynamic) &&
        llvm::product_of(ranges) < minElements)
      return;

    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Range> domain = tileable.getIterationDomain(b);
    SmallVector<OpFoldResult> offsets, sizes;
    for (const Range &r : domain) {
      offsets.push_back(r.offset);
      sizes.push_back(r.size);
    }
    Value size = getValueOrCreateConstantIndexOp(b, loc, domain[*loop].size);
    bool innermost = *loop == op.getNumLoops() - 1;
    auto [lo, hi] =
        getWorkgroupRange(b, loc, func, size, innermost ? granule : 1);
    offsets[*loop] = lo;
    sizes[*loop] = arith::SubIOp::create(b, loc, hi, lo).getResult();
    FailureOr<TilingResult> tiled =
        tileable.getTiledImplementation(b, offsets, sizes);
    if (failed(tiled)) {
      // Leave the kernel as it was: one workgroup does everything.
      return signalPassFailure();
    }
    op->erase();
  }
};

} // namespace
