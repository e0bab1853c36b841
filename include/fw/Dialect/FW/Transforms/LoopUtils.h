//===- LoopUtils.h - Loops the checks rewrite ------------------*- C++ -*-===//

#ifndef FW_DIALECT_FW_TRANSFORMS_LOOPUTILS_H
#define FW_DIALECT_FW_TRANSFORMS_LOOPUTILS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fw {

/// Replaces `loop` by a nest of scf.for loops, one per dimension in order,
/// the innermost carrying its reductions, each combined in turn (the
/// accumulator first): what its iterations do on a CPU anyway. Its body is
/// copied. Returns the nest.
scf::LoopNest parallelToForNest(RewriterBase &rewriter, scf::ParallelOp loop);

/// Rewrites the affine loops and branches under `root` (affine.for, .if,
/// .parallel) as SCF ones; with `everything`, every other affine op too (as
/// arith: affine.apply, affine.min, the index ops).
LogicalResult lowerAffine(Operation *root, bool everything);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_LOOPUTILS_H
