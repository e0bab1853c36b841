//===- CPUAllocationChecks.cpp - Kernel buffers the machine refuses -------===//
//
// A CPU kernel allocates some buffers itself (temporaries, tensors sized from
// the data). When the machine cannot give one, the allocation yields null,
// and the kernel would write through it. After the kernel's loops became
// branches, each allocation is followed by a test of its pointer: null
// raises the kernel's out-of-memory check on its error word and returns.
// What the kernel allocated before is not freed on that path.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUALLOCATIONCHECKSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Branch weights of the test: the machine almost always gives the buffer.
static constexpr int32_t kRefusedWeight = 1, kGivenWeight = 1 << 20;

namespace {

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

    // One block raises the check and returns.
    OpBuilder b(&getContext());
    Location loc = kernel.getLoc();
    Block *refused = b.createBlock(&body, body.end());
    Value number = arith::ConstantIntOp::create(b, loc, check.getInt(), 32);
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxu, number,
                                word, ValueRange{});
    func::ReturnOp::create(b, loc);

    for (memref::AllocOp alloc : allocs) {
      Block *before = alloc->getBlock();
      Block *after = before->splitBlock(std::next(alloc->getIterator()));
      b.setInsertionPointToEnd(before);
      Location at = alloc.getLoc();
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(b, at, alloc);
      Value zero = arith::ConstantIndexOp::create(b, at, 0);
      Value null = arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq,
                                         pointer, zero);
      cf::CondBranchOp::create(b, at, null, refused, ValueRange{}, after,
                               ValueRange{},
                               ArrayRef<int32_t>{kRefusedWeight, kGivenWeight});
    }
  }
};

} // namespace
