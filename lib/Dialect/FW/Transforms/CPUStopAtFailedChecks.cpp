//===- CPUStopAtFailedChecks.cpp - Loops end at a failed check ------------===//
//
// A failed check guards its access and the kernel goes on, which is what a
// GPU's threads must do. A loop of a CPU kernel whose bounds come from the
// data could then run on for as long as they say (2^63 iterations from a
// lower bound of INT64_MIN), every one failing, and one whose bound or value
// a failed check replaced by 0 as long, or for ever. Here every loop the
// kernel was written with stops once a check failed: a flag of the kernel's
// own, set where a check records its failure, ends the loop (which becomes
// an scf.while) after that iteration. The kernel goes on after it, guarded
// as before, and frees what it allocated.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/LoopUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

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

/// Where the kernel records a failed check: the atomic updates of its error
/// word.
static SmallVector<memref::AtomicRMWOp> failuresOf(Value word) {
  SmallVector<memref::AtomicRMWOp> failures;
  for (Operation *user : word.getUsers())
    if (auto failure = dyn_cast<memref::AtomicRMWOp>(user))
      failures.push_back(failure);
  return failures;
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

/// `loop` as an scf.while that also ends when `stopped` holds.
static void stopWhen(RewriterBase &rewriter, scf::ForOp loop,
                     Value stopped) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits = {loop.getLowerBound()};
  llvm::append_range(inits, loop.getInitArgs());
  TypeRange types = ValueRange(inits).getTypes();
  SmallVector<Location> locs(inits.size(), loc);
  auto whileOp = scf::WhileOp::create(rewriter, loc, types, inits);

  Block *before =
      rewriter.createBlock(&whileOp.getBefore(), {}, types, locs);
  Value iv = before->getArgument(0);
  Value inRange = arith::CmpIOp::create(
      rewriter, loc,
      loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                            : arith::CmpIPredicate::slt,
      iv, loop.getUpperBound());
  Value failed = memref::LoadOp::create(rewriter, loc, stopped);
  Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  Value goOn = arith::AndIOp::create(
      rewriter, loc, inRange, arith::XOrIOp::create(rewriter, loc, failed, yes));
  scf::ConditionOp::create(rewriter, loc, goOn, before->getArguments());

  Block *after = rewriter.createBlock(&whileOp.getAfter(), {}, types, locs);
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  rewriter.mergeBlocks(body, after, after->getArguments());
  rewriter.setInsertionPoint(yield);
  SmallVector<Value> next = {arith::AddIOp::create(
      rewriter, loc, after->getArgument(0), loop.getStep())};
  llvm::append_range(next, yield.getOperands());
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);
  rewriter.replaceOp(loop, whileOp.getResults().drop_front());
}

/// Adds to the condition of `loop` that `stopped` does not hold.
static void stopWhen(RewriterBase &rewriter, scf::WhileOp loop,
                     Value stopped) {
  scf::ConditionOp condition = loop.getConditionOp();
  Location loc = condition.getLoc();
  rewriter.setInsertionPoint(condition);
  Value failed = memref::LoadOp::create(rewriter, loc, stopped);
  Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  Value goOn = arith::AndIOp::create(
      rewriter, loc, condition.getCondition(),
      arith::XOrIOp::create(rewriter, loc, failed, yes));
  rewriter.modifyOpInPlace(
      condition, [&] { condition.getConditionMutable().assign(goOn); });
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
    for (memref::AtomicRMWOp failure : failures) {
      rewriter.setInsertionPointAfter(failure);
      memref::StoreOp::create(
          rewriter, failure.getLoc(),
          arith::ConstantIntOp::create(rewriter, failure.getLoc(), 1, 1),
          stopped);
    }
    for (Operation *loop : loops) {
      if (auto forOp = dyn_cast<scf::ForOp>(loop))
        stopWhen(rewriter, forOp, stopped);
      else
        stopWhen(rewriter, cast<scf::WhileOp>(loop), stopped);
    }
  }
};

} // namespace
