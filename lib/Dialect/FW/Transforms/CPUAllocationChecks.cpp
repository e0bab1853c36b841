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
// returns; the runtime frees the buffers the kernel allocated and still holds
// (fw-cpu-kernel-allocator).
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

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

    // One block raises the check and returns (the runtime frees the buffers
    // the kernel holds then: fw-cpu-kernel-allocator).
    OpBuilder b(&getContext());
    Location loc = kernel.getLoc();
    Block *refused = b.createBlock(&body, body.end());
    Value number = arith::ConstantIntOp::create(b, loc, check.getInt(), 32);
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxu, number,
                                word, ValueRange{});
    func::ReturnOp::create(b, loc);

    for (memref::AllocOp alloc : allocs) {
      Location at = alloc.getLoc();
      if (!alloc.getDynamicSizes().empty()) {
        Block *before = alloc->getBlock();
        Block *allocating = before->splitBlock(alloc->getIterator());
        b.setInsertionPointToEnd(before);
        Value fits = sizeFits(b, alloc);
        cf::CondBranchOp::create(b, at, fits, allocating, ValueRange{},
                                 refused, ValueRange{},
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
      cf::CondBranchOp::create(b, at, null, refused,
                               ValueRange{}, after, ValueRange{},
                               ArrayRef<int32_t>{kRefusedWeight, kGivenWeight});
    }
  }
};

} // namespace
