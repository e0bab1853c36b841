//===- Canonicalize.h - The canonicalizer fw's pipelines run ----*- C++ -*-===//

#ifndef FW_DIALECT_FW_TRANSFORMS_CANONICALIZE_H
#define FW_DIALECT_FW_TRANSFORMS_CANONICALIZE_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::fw {

/// MLIR's canonicalizer with its default settings, less the upstream
/// patterns that change what a valid program computes: `scf.for` folding a
/// `tensor.cast` of its init into the loop, which casts what the body yields
/// back to the init's static shape (a loop that grows its tensor then
/// reports the init's size), and `scf.forall` folding a cast of a shared
/// output, which sends the parallel inserts to the outputs in the order they
/// are written rather than to the ones they name.
std::unique_ptr<Pass> createCanonicalizerPass();

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_CANONICALIZE_H
