//===- ReuseBuffers.cpp - Liveness-based reuse of host buffers ------------===//
//
// A dispatch whose kernel can update an input in place writes its result
// into that input's buffer when it is the input's last use, and a released
// intermediate buffer serves a later allocation of the same type and sizes.
// The runtime infers write-after-read ordering from the access modes, so
// neither changes results; they trade some concurrency for memory.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fw {
#define GEN_PASS_DEF_REUSEBUFFERSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Bytes of a statically shaped buffer, or std::nullopt.
static std::optional<int64_t> staticBytes(MemRefType type) {
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !element.isIntOrIndexOrFloat())
    return std::nullopt;
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// Whether every variant of `exe` may be given one buffer for its bindings
/// `in` (read) and `out` (written): the kernel is one elementwise
/// linalg.generic that reads `in` and writes `out` at the same index (both
/// maps are the identity) and touches them nowhere else, so each element is
/// read before it is overwritten and by no one else.
static bool canUpdateInPlace(ExecutableOp exe, unsigned in, unsigned out) {
  bool any = false;
  for (auto variant : exe.getOps<VariantOp>()) {
    auto kernel =
        variant.getInnerModule().lookupSymbol<func::FuncOp>(exe.getSymName());
    if (!kernel || kernel.isExternal() ||
        kernel.getNumArguments() <= std::max(in, out))
      return false;
    linalg::GenericOp generic;
    for (Operation &op : kernel.getBody().front()) {
      if (isMemoryEffectFree(&op) || isa<func::ReturnOp>(op))
        continue;
      auto g = dyn_cast<linalg::GenericOp>(op);
      if (!g || generic)
        return false;
      generic = g;
    }
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumParallelLoops() != generic.getNumLoops())
      return false;
    Value input = kernel.getArgument(in), output = kernel.getArgument(out);
    for (Value arg : {input, output})
      for (Operation *user : arg.getUsers())
        if (user != generic.getOperation() && !isa<memref::DimOp>(user))
          return false;
    auto uses = [&](Value v) {
      return llvm::count_if(generic->getOpOperands(),
                            [&](OpOperand &o) { return o.get() == v; });
    };
    if (uses(input) != 1 || uses(output) != 1 ||
        !llvm::is_contained(generic.getDpsInits(), output) ||
        !llvm::is_contained(generic.getDpsInputs(), input))
      return false;
    for (OpOperand &operand : generic->getOpOperands())
      if ((operand.get() == input || operand.get() == output) &&
          !generic.getMatchingIndexingMap(&operand).isIdentity())
        return false;
    any = true;
  }
  return any;
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

  /// Gives a dispatch's fresh output the buffer of an intermediate input
  /// that it reads for the last time, when its kernel can update that input
  /// in place: the output's allocation and the input's release disappear.
  static int64_t updateInPlace(Block &block, SymbolTable &symbols) {
    int64_t count = 0;
    for (auto dispatch : llvm::to_vector(block.getOps<DispatchOp>())) {
      auto exe = symbols.lookup<ExecutableOp>(dispatch.getCallee());
      if (!exe)
        continue;
      SmallVector<Access> access = llvm::map_to_vector(
          dispatch.getAccess().getAsRange<AccessAttr>(),
          [](AccessAttr a) { return a.getValue(); });
      OperandRange buffers = dispatch.getBuffers();
      for (unsigned out = 0; out < buffers.size(); ++out) {
        auto fresh = buffers[out].getDefiningOp<AllocOp>();
        if (access[out] != Access::write || !fresh ||
            llvm::any_of(fresh->getUsers(), [&](Operation *user) {
              return user != dispatch.getOperation() &&
                     user->isBeforeInBlock(dispatch);
            }))
          continue;
        for (unsigned in = 0; in < buffers.size(); ++in) {
          Value input = buffers[in];
          auto alloc = input.getDefiningOp<AllocOp>();
          if (access[in] != Access::read || !alloc || input == buffers[out] ||
              alloc.getType() != fresh.getType() ||
              !llvm::equal(alloc.getDynamicSizes(), fresh.getDynamicSizes()) ||
              llvm::count(buffers, input) != 1)
            continue;
          // After this dispatch the input is only released.
          SmallVector<DeallocOp> releases;
          bool usedLater = false;
          for (Operation *user : input.getUsers()) {
            if (user == dispatch.getOperation() ||
                user->isBeforeInBlock(dispatch))
              continue;
            if (auto dealloc = dyn_cast<DeallocOp>(user))
              releases.push_back(dealloc);
            else
              usedLater = true;
          }
          if (usedLater || releases.size() != 1 ||
              !canUpdateInPlace(exe, in, out))
            continue;
          releases.front().erase();
          fresh.getResult().replaceAllUsesWith(input);
          fresh.erase();
          // Its kernel now reads and writes one buffer through two bindings.
          exe->setAttr(kInPlaceAttrName, UnitAttr::get(exe.getContext()));
          ++count;
          break;
        }
      }
    }
    return count;
  }

  void reuseInBlock(func::FuncOp func, Block &block) {
    SymbolTable symbols(getOperation());
    // The peak before is that of the program as it came, in place or not.
    PeakTracker before, after;
    for (Operation &op : block) {
      if (auto alloc = dyn_cast<AllocOp>(op))
        before.alloc(alloc.getType());
      else if (auto dealloc = dyn_cast<DeallocOp>(op))
        before.release(dealloc.getBuffer().getType());
    }
    int64_t inPlace = reuse ? updateInPlace(block, symbols) : 0;
    // Allocations that will use an earlier buffer instead.
    llvm::DenseMap<Operation *, Value> taken;
    int64_t reused = 0;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto dealloc = dyn_cast<DeallocOp>(op)) {
        auto type = dealloc.getBuffer().getType();
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
                        << " bytes after (" << reused << " reused, "
                        << inPlace << " updated in place"
                        << (before.dynamicAllocs
                                ? ", " + std::to_string(before.dynamicAllocs) +
                                      " dynamically sized not counted"
                                : std::string())
                        << ")";
  }
};

} // namespace
