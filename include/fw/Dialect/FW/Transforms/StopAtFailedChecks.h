//===- StopAtFailedChecks.h - Loops that end at a failed check --*- C++ -*-===//
//
// A kernel records a failed check on its error word and goes on, guarded; a
// loop whose bounds or values come from the data could then run on for as
// long as they say, or for ever. These make loops end after the iteration in
// which a check failed, on the CPU (fw-cpu-stop-at-failed-checks) and in each
// thread of a GPU kernel (the GPU mapping).
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_TRANSFORMS_STOPATFAILEDCHECKS_H
#define FW_DIALECT_FW_TRANSFORMS_STOPATFAILEDCHECKS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fw {

/// Where a kernel records a failed check: the atomic maxima into its error
/// word.
SmallVector<memref::AtomicRMWOp> failuresOf(Value word);

/// Makes each of `loops` (scf.for, which becomes an scf.while, or scf.while)
/// also end once `stopped` (a memref<i1>, false at the start) holds, which
/// each failure recorded on `word` sets; with `readWord`, a while loop also
/// once `word` records a failure, read atomically each iteration (a failure
/// in another thread whose guarded 0 this one reads through shared memory).
void stopLoopsAtFailures(RewriterBase &rewriter, Value word, Value stopped,
                         ArrayRef<Operation *> loops, bool readWord = false);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_STOPATFAILEDCHECKS_H
