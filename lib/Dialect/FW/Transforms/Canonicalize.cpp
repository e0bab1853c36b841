//===- Canonicalize.cpp - The canonicalizer fw's pipelines run ------------===//

#include "fw/Dialect/FW/Transforms/Canonicalize.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include <string>

std::unique_ptr<mlir::Pass> mlir::fw::createCanonicalizerPass() {
  // The settings of the canonicalize pass's options.
  GreedyRewriteConfig config;
  config.setUseTopDownTraversal(true)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Normal)
      .setMaxIterations(10);
  // Patterns are known by their type names, as the compiler that built MLIR
  // spells them (clang and GCC differ).
  static const std::string disabled[] = {
      "(anonymous namespace)::ForOpTensorCastFolder",
      "{anonymous}::ForOpTensorCastFolder",
      "(anonymous namespace)::FoldTensorCastOfOutputIntoForallOp",
      "{anonymous}::FoldTensorCastOfOutputIntoForallOp",
  };
  return mlir::createCanonicalizerPass(config, disabled);
}
