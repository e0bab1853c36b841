//===- StopAtFailedChecks.cpp - Loops that end at a failed check ----------===//
//
// A loop that stops becomes an scf.while (from an scf.for) whose condition
// also asks that no check failed yet: a flag in memory of the kernel's (or
// the thread's) own, set where a check records its failure, which LLVM keeps
// in a register.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/StopAtFailedChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fw;

SmallVector<memref::AtomicRMWOp> mlir::fw::failuresOf(Value word) {
  SmallVector<memref::AtomicRMWOp> failures;
  for (Operation *user : word.getUsers())
    if (auto failure = dyn_cast<memref::AtomicRMWOp>(user))
      failures.push_back(failure);
  return failures;
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

void mlir::fw::stopLoopsAtFailures(RewriterBase &rewriter, Value word,
                                   Value stopped,
                                   ArrayRef<Operation *> loops) {
  for (memref::AtomicRMWOp failure : failuresOf(word)) {
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
