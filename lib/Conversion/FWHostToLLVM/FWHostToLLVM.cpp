//===- FWHostToLLVM.cpp - Host side to the LLVM dialect -------------------===//
//
// Converts the functions outside fw.executable ops to the LLVM dialect; the
// executables keep whatever their own backends produced.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CONVERTFWHOSTTOLLVMPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

struct ConvertFWHostToLLVMPass
    : public fw::impl::ConvertFWHostToLLVMPassBase<ConvertFWHostToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    SmallVector<Operation *> hostOps;
    for (Operation &op : *module.getBody())
      if (isa<func::FuncOp>(op))
        hostOps.push_back(&op);
    if (hostOps.empty())
      return;

    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateAffineToStdConversionPatterns(patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(hostOps, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
