//===- CPUStopAtFailedChecks.cpp - Loops end at a failed check ------------===//
//
// A failed check guards its access and the kernel goes on, which is what a
// GPU's threads must do. A loop of a CPU kernel whose bounds come from the
// data could then run on for as long as they say (2^63 iterations from a
// lower bound of INT64_MIN), every one failing, and one whose bound or value
// a failed check replaced by 0 as long, or for ever. Here every loop the
// kernel was written with stops once a check failed: a flag of the kernel's
// own, set where a check records its failure, ends the loop (which becomes
// an scf.while) after that iteration (StopAtFailedChecks.cpp, which the GPU
// mapping uses for each thread's loops). The kernel goes on after it,
// guarded as before, and frees what it allocated.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/LoopUtils.h"
#include "fw/Dialect/FW/Transforms/StopAtFailedChecks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUSTOPATFAILEDCHECKSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// The loops of `kernel` (up to it) around `op` (a forall of no dimensions
/// runs once: not a loop).
static void collectLoops(Operation *op, func::FuncOp kernel,
                         llvm::SetVector<Operation *> &loops) {
  for (Operation *parent = op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp()) {
    auto forall = dyn_cast<scf::ForallOp>(parent);
    if (isa<LoopLikeOpInterface>(parent) && !(forall && forall.getRank() == 0))
      loops.insert(parent);
  }
}

/// Makes the loops around the failures recorded on `word` scf.for or
/// scf.while loops, those that can stop: scf.forall, scf.parallel and affine
/// loops become nests of scf.for (their bodies copied, failures too). Fails
/// when one cannot be converted.
static LogicalResult makeStoppable(RewriterBase &rewriter,
                                   func::FuncOp kernel, Value word) {
  for (;;) {
    llvm::SetVector<Operation *> loops;
    for (memref::AtomicRMWOp failure : failuresOf(word))
      collectLoops(failure, kernel, loops);
    auto *it = llvm::find_if(loops, [](Operation *op) {
      return !isa<scf::ForOp, scf::WhileOp>(op);
    });
    Operation *loop = it == loops.end() ? nullptr : *it;
    if (!loop)
      return success();
    LogicalResult converted = failure();
    if (auto forall = dyn_cast<scf::ForallOp>(loop))
      converted = scf::forallToForLoop(rewriter, forall);
    else if (auto parallel = dyn_cast<scf::ParallelOp>(loop)) {
      parallelToForNest(rewriter, parallel);
      converted = success();
    } else if (isa<affine::AffineDialect>(loop->getDialect()))
      converted = lowerAffine(loop, /*everything=*/true);
    if (failed(converted))
      return loop->emitOpError(
          "holds a check, but cannot become loops that stop at a failed one");
  }
}

namespace {

struct CPUStopAtFailedChecksPass
    : public fw::impl::CPUStopAtFailedChecksPassBase<
          CPUStopAtFailedChecksPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal() || !kernel->hasAttr("fw.error_word") ||
        kernel->hasAttr(kEmulatedGPUAttrName))
      return;
    // The error word is the last buffer (fw-kernel-error-word); a check
    // records its failure there.
    Value word;
    for (BlockArgument arg : kernel.getArguments())
      if (isa<MemRefType>(arg.getType()))
        word = arg;
    if (!word)
      return;
    if (failuresOf(word).empty())
      return;
    IRRewriter rewriter(&getContext());
    if (failed(makeStoppable(rewriter, kernel, word)))
      return signalPassFailure();
    SmallVector<memref::AtomicRMWOp> failures = failuresOf(word);
    // The loops around a failure, and every other for or while loop: one
    // whose bounds or values a failed check replaced (its guarded access
    // read 0) may run on for as long as they say, or never end.
    llvm::SetVector<Operation *> loops;
    for (memref::AtomicRMWOp failure : failures)
      collectLoops(failure, kernel, loops);
    kernel.walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::WhileOp>(op))
        loops.insert(op);
    });
    if (loops.empty())
      return; // the kernel ends anyway (and is divided as before)

    Location loc = kernel.getLoc();
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
    auto flagType = MemRefType::get({}, rewriter.getI1Type());
    Value stopped = memref::AllocaOp::create(rewriter, loc, flagType);
    memref::StoreOp::create(
        rewriter, loc, arith::ConstantIntOp::create(rewriter, loc, 0, 1),
        stopped);
    stopLoopsAtFailures(rewriter, word, stopped, loops.getArrayRef());
  }
};

} // namespace
