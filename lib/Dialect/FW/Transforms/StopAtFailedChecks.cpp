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
    if (auto failure = dyn_cast<memref::AtomicRMWOp>(user);
        failure && failure.getKind() == arith::AtomicRMWKind::maxu)
      failures.push_back(failure);
  return failures;
}

/// Whether to go on: `condition` holds and no check failed, by `stopped`
/// and, when given, by `word` itself (an atomic read that sees the failures
/// of other threads).
static Value goOn(RewriterBase &rewriter, Location loc, Value condition,
                  Value stopped, Value word) {
  Value failed = memref::LoadOp::create(rewriter, loc, stopped);
  if (word) {
    Value zero = arith::ConstantIntOp::create(rewriter, loc, 0, 32);
    Value recorded = memref::AtomicRMWOp::create(
        rewriter, loc, arith::AtomicRMWKind::ori, zero, word, ValueRange{});
    failed = arith::OrIOp::create(
        rewriter, loc, failed,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                              recorded, zero));
  }
  Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  return arith::AndIOp::create(
      rewriter, loc, condition,
      arith::XOrIOp::create(rewriter, loc, failed, yes));
}

/// `loop` as an scf.while that also ends once a check failed (goOn).
static void stopWhen(RewriterBase &rewriter, scf::ForOp loop, Value stopped,
                     Value word) {
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
  scf::ConditionOp::create(rewriter, loc,
                           goOn(rewriter, loc, inRange, stopped, word),
                           before->getArguments());

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

/// Adds to the condition of `loop` that no check failed (goOn).
static void stopWhen(RewriterBase &rewriter, scf::WhileOp loop, Value stopped,
                     Value word) {
  scf::ConditionOp condition = loop.getConditionOp();
  Location loc = condition.getLoc();
  rewriter.setInsertionPoint(condition);
  Value go =
      goOn(rewriter, loc, condition.getCondition(), stopped, word);
  rewriter.modifyOpInPlace(
      condition, [&] { condition.getConditionMutable().assign(go); });
}

void mlir::fw::stopLoopsAtFailures(RewriterBase &rewriter, Value word,
                                   Value stopped, ArrayRef<Operation *> loops,
                                   bool readWord) {
  // Only while loops read the word: a 0 another thread's failed check read
  // makes a for loop's bounds end it sooner, while a while loop may wait for
  // ever on it (and the loops the GPU mapping made over a row or a tile,
  // which run on every element, are for loops).
  Value shared = readWord ? word : Value();
  for (memref::AtomicRMWOp failure : failuresOf(word)) {
    rewriter.setInsertionPointAfter(failure);
    memref::StoreOp::create(
        rewriter, failure.getLoc(),
        arith::ConstantIntOp::create(rewriter, failure.getLoc(), 1, 1),
        stopped);
  }
  for (Operation *loop : loops) {
    if (auto forOp = dyn_cast<scf::ForOp>(loop))
      stopWhen(rewriter, forOp, stopped, Value());
    else
      stopWhen(rewriter, cast<scf::WhileOp>(loop), stopped, shared);
  }
}
