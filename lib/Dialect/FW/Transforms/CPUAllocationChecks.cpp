//===- CPUAllocationChecks.cpp - Kernel buffers the machine refuses -------===//
//
// A CPU kernel allocates some buffers itself (temporaries, tensors sized from
// the data). When the machine cannot give one, the allocation yields null,
// and the kernel would write through it; when its sizes multiply past the
// address space (2^31 x 2^31 floats, from the sizes of inputs), the byte
// count wraps around to a small buffer the kernel then writes past. After
// the kernel's loops became branches, a dynamically sized allocation is
// preceded by a test of its byte count (at most 2^47 bytes, the product
// checked for overflow) and each is followed by a test of its pointer: a
// failure raises the kernel's out-of-memory check on its error word and
// returns, first freeing every buffer the kernel allocated that is still held
// there on every path to the failure (a forward must-analysis over the
// branches: an allocation holds its buffer, a free of it or of a buffer it
// cannot trace lets it go).
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/BitVector.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUALLOCATIONCHECKSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Branch weights of the test: the machine almost always gives the buffer.
static constexpr int32_t kRefusedWeight = 1, kGivenWeight = 1 << 20;

/// Whether the byte count of `alloc` is at most kMaxKernelTensorBytes, at the
/// builder's insertion point.
static Value sizeFits(OpBuilder &b, memref::AllocOp alloc) {
  Location loc = alloc.getLoc();
  MemRefType type = alloc.getType();
  SmallVector<Value> factors{arith::ConstantIndexOp::create(
      b, loc, elementBytes(type.getElementType()))};
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d))
      factors.push_back(
          arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)));
  llvm::append_range(factors, alloc.getDynamicSizes());
  Value ok;
  Value bytes = emitCheckedProduct(b, loc, factors, ok);
  return arith::AndIOp::create(
      b, loc, ok,
      arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, bytes,
          arith::ConstantIndexOp::create(b, loc, kMaxKernelTensorBytes)));
}

/// The allocation whose buffer `value` views, if it is one of `allocs`.
static std::optional<unsigned>
allocationOf(Value value, const DenseMap<Operation *, unsigned> &allocs) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto found = allocs.find(def); found != allocs.end())
      return found->second;
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      value = metadata.getSource();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    value = view.getViewSource();
  }
  return std::nullopt;
}

namespace {

/// Which of a kernel's allocations hold their buffer at a point: allocated
/// on every path to it and not freed since. An op that frees a buffer that
/// is not traced to one of them, or that could (an op of unknown effects
/// taking a buffer), lets every one go, so a buffer is freed at a refusal
/// only where it certainly is held.
class HeldBuffers {
public:
  HeldBuffers(Region &body, ArrayRef<memref::AllocOp> allocs) {
    for (auto [i, alloc] : llvm::enumerate(allocs))
      index[alloc] = i;
    unsigned n = allocs.size();
    for (Block &block : body)
      entry[&block] = llvm::BitVector(n, /*t=*/!block.isEntryBlock());
    // Iterate to the greatest fixpoint (held on every path).
    bool changed = true;
    while (changed) {
      changed = false;
      for (Block &block : body) {
        if (block.isEntryBlock())
          continue;
        llvm::BitVector in(n, true);
        bool reached = false;
        for (Block *pred : block.getPredecessors()) {
          in &= exitOf(*pred);
          reached = true;
        }
        if (!reached)
          in.reset();
        if (in != entry[&block]) {
          entry[&block] = in;
          changed = true;
        }
      }
    }
  }

  /// The allocations holding their buffer just before `op`.
  llvm::BitVector before(Operation *op) {
    llvm::BitVector held = entry[op->getBlock()];
    for (Operation &it : *op->getBlock()) {
      if (&it == op)
        break;
      apply(it, held);
    }
    return held;
  }

private:
  llvm::BitVector exitOf(Block &block) {
    llvm::BitVector held = entry[&block];
    for (Operation &op : block)
      apply(op, held);
    return held;
  }

  void apply(Operation &op, llvm::BitVector &held) {
    if (auto found = index.find(&op); found != index.end()) {
      held.set(found->second);
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (llvm::any_of(op.getOperandTypes(),
                       [](Type t) { return isa<BaseMemRefType>(t); }))
        held.reset();
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> frees;
    effects.getEffects<MemoryEffects::Free>(frees);
    for (MemoryEffects::EffectInstance &effect : frees) {
      Value freed = effect.getValue();
      std::optional<unsigned> which =
          freed ? allocationOf(freed, index) : std::nullopt;
      if (which)
        held.reset(*which);
      else
        held.reset();
    }
  }

  DenseMap<Operation *, unsigned> index;
  DenseMap<Block *, llvm::BitVector> entry;
};

struct CPUAllocationChecksPass
    : public fw::impl::CPUAllocationChecksPassBase<CPUAllocationChecksPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    auto check = kernel->getAttrOfType<IntegerAttr>(kAllocationCheckAttrName);
    if (!check)
      return;
    kernel->removeAttr(kAllocationCheckAttrName);
    SmallVector<memref::AllocOp> allocs;
    kernel.walk([&](memref::AllocOp op) { allocs.push_back(op); });
    if (allocs.empty())
      return;
    if (kernel.isExternal() || kernel.getNumResults() != 0) {
      kernel.emitOpError("has an allocation check but is not a kernel that "
                         "returns nothing");
      return signalPassFailure();
    }
    // The error word is the last buffer (fw-kernel-error-word).
    Value word;
    for (BlockArgument arg : kernel.getArguments())
      if (isa<MemRefType>(arg.getType()))
        word = arg;
    auto wordType = word ? dyn_cast<MemRefType>(word.getType()) : nullptr;
    if (!kernel->hasAttr("fw.error_word") || !wordType ||
        wordType.getRank() != 0 || !wordType.getElementType().isInteger(32)) {
      kernel.emitOpError("has an allocation check but no error word");
      return signalPassFailure();
    }
    Region &body = kernel.getBody();
    for (memref::AllocOp alloc : allocs)
      if (alloc->getParentRegion() != &body) {
        alloc.emitOpError("is nested in an operation; the allocation checks "
                          "need the kernel's loops lowered to branches");
        return signalPassFailure();
      }

    // Where each test will branch, the buffers held there (before the
    // branches are made: a split block changes nothing held).
    HeldBuffers held(body, allocs);
    DominanceInfo dominance(kernel);
    auto heldAt = [&](Operation *at) {
      SmallVector<Value> buffers;
      for (unsigned i : held.before(at).set_bits())
        if (allocs[i] != at && dominance.properlyDominates(allocs[i].getOperation(), at))
          buffers.push_back(allocs[i]);
      return buffers;
    };
    // (The same before an allocation's test of its size and after the test
    // of its pointer.)
    SmallVector<SmallVector<Value>> heldBuffers;
    for (memref::AllocOp alloc : allocs)
      heldBuffers.push_back(heldAt(alloc));

    // One block raises the check and returns.
    OpBuilder b(&getContext());
    Location loc = kernel.getLoc();
    Block *refused = b.createBlock(&body, body.end());
    Value number = arith::ConstantIntOp::create(b, loc, check.getInt(), 32);
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxu, number,
                                word, ValueRange{});
    func::ReturnOp::create(b, loc);

    // A refusal frees the buffers held there, then goes to `refused`.
    auto refusing = [&](Location at, ArrayRef<Value> buffers) {
      if (buffers.empty())
        return refused;
      OpBuilder::InsertionGuard guard(b);
      Block *freeing = b.createBlock(refused);
      for (Value buffer : buffers)
        memref::DeallocOp::create(b, at, buffer);
      cf::BranchOp::create(b, at, refused);
      return freeing;
    };
    for (auto [alloc, buffers] : llvm::zip(allocs, heldBuffers)) {
      Location at = alloc.getLoc();
      if (!alloc.getDynamicSizes().empty()) {
        Block *before = alloc->getBlock();
        Block *allocating = before->splitBlock(alloc->getIterator());
        b.setInsertionPointToEnd(before);
        Value fits = sizeFits(b, alloc);
        cf::CondBranchOp::create(b, at, fits, allocating, ValueRange{},
                                 refusing(at, buffers), ValueRange{},
                                 ArrayRef<int32_t>{kGivenWeight,
                                                   kRefusedWeight});
      }
      Block *before = alloc->getBlock();
      Block *after = before->splitBlock(std::next(alloc->getIterator()));
      b.setInsertionPointToEnd(before);
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(b, at, alloc);
      Value zero = arith::ConstantIndexOp::create(b, at, 0);
      Value null = arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq,
                                         pointer, zero);
      cf::CondBranchOp::create(b, at, null, refusing(at, buffers),
                               ValueRange{}, after, ValueRange{},
                               ArrayRef<int32_t>{kRefusedWeight, kGivenWeight});
    }
  }
};

} // namespace
