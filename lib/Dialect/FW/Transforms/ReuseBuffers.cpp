//===- ReuseBuffers.cpp - Liveness-based reuse of host buffers ------------===//
//
// A released intermediate buffer serves a later allocation of the same type
// and sizes. The runtime infers write-after-read ordering from the access
// modes, so reuse never changes results; it trades some concurrency for
// memory.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

namespace mlir::fw {
#define GEN_PASS_DEF_REUSEBUFFERSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Bytes of a statically shaped buffer, or std::nullopt.
static std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

namespace {

/// Peak of live intermediate memory over a block, in program order.
struct PeakTracker {
  int64_t live = 0, peak = 0, dynamicAllocs = 0;
  void alloc(MemRefType type) {
    if (std::optional<int64_t> bytes = staticBytes(type)) {
      live += *bytes;
      peak = std::max(peak, live);
    } else {
      ++dynamicAllocs;
    }
  }
  void release(MemRefType type) {
    if (std::optional<int64_t> bytes = staticBytes(type))
      live -= *bytes;
  }
};

struct ReuseBuffersPass
    : public fw::impl::ReuseBuffersPassBase<ReuseBuffersPass> {
  using ReuseBuffersPassBase::ReuseBuffersPassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isDeclaration() && func.getBody().hasOneBlock())
        reuseInBlock(func, func.getBody().front());
  }

  /// Finds the first allocation after `from` that `buffer` can serve and
  /// that no other buffer serves yet.
  static AllocOp findTaker(AllocOp buffer, Operation *from,
                           const llvm::DenseMap<Operation *, Value> &taken) {
    for (Operation *op = from->getNextNode(); op; op = op->getNextNode()) {
      auto alloc = dyn_cast<AllocOp>(op);
      if (alloc && !taken.count(alloc) && alloc.getType() == buffer.getType() &&
          llvm::equal(alloc.getDynamicSizes(), buffer.getDynamicSizes()))
        return alloc;
    }
    return nullptr;
  }

  void reuseInBlock(func::FuncOp func, Block &block) {
    PeakTracker before, after;
    // Allocations that will use an earlier buffer instead.
    llvm::DenseMap<Operation *, Value> taken;
    int64_t reused = 0;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto dealloc = dyn_cast<DeallocOp>(op)) {
        auto type = dealloc.getBuffer().getType();
        before.release(type);
        // Its root allocation (a buffer may already serve several).
        AllocOp root = dealloc.getBuffer().getDefiningOp<AllocOp>();
        AllocOp taker =
            root && reuse ? findTaker(root, dealloc, taken) : nullptr;
        if (!taker) {
          after.release(type);
          continue;
        }
        // Handed over instead of released: the taker's own release (now of
        // this buffer) frees it later.
        taken[taker] = dealloc.getBuffer();
        dealloc.erase();
        continue;
      }
      if (auto alloc = dyn_cast<AllocOp>(op)) {
        before.alloc(alloc.getType());
        auto it = taken.find(alloc);
        if (it == taken.end()) {
          after.alloc(alloc.getType());
          continue;
        }
        alloc.getResult().replaceAllUsesWith(it->second);
        taken.erase(it);
        alloc.erase();
        ++reused;
      }
    }
    if (report)
      func.emitRemark() << "allocated buffers: peak " << before.peak
                        << " bytes before reuse, " << after.peak
                        << " bytes after (" << reused << " reused"
                        << (before.dynamicAllocs
                                ? ", " + std::to_string(before.dynamicAllocs) +
                                      " dynamically sized not counted"
                                : std::string())
                        << ")";
  }
};

} // namespace
