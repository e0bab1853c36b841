//===- ApproximateMath.cpp - Vectorizable transcendental functions --------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fw {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

struct ApproximateMathPass
    : public fw::impl::ApproximateMathPassBase<ApproximateMathPass> {
  void runOnOperation() override {
    static const llvm::StringSet<> approximated = {
        "math.exp", "math.expm1", "math.log1p", "math.tanh", "math.erf"};
    auto predicate = [](StringRef name) {
      return approximated.contains(name);
    };
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, predicate);
    populateMathPolynomialApproximationPatterns(patterns, predicate);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
