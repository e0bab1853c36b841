//===- FWCPUVariantsToLLVM.cpp - CPU kernels to the LLVM dialect ----------===//
//
// Runs the CPU kernel pipeline on the module of every CPU variant. Variants
// of other targets are left for their own backends.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CONVERTFWCPUVARIANTSTOLLVMPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// The pipeline from bufferized linalg to the LLVM dialect for one kernel
/// module.
static void buildCpuKernelPipeline(OpPassManager &pm) {
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createCanonicalizerPass());
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createConvertLinalgToLoopsPass());
  funcPm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCPUKernelABIPass());
  pm.addPass(createCanonicalizerPass());
}

namespace {

struct ConvertFWCPUVariantsToLLVMPass
    : public fw::impl::ConvertFWCPUVariantsToLLVMPassBase<
          ConvertFWCPUVariantsToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpPassManager pm(ModuleOp::getOperationName());
    buildCpuKernelPipeline(pm);

    for (auto exe : module.getOps<ExecutableOp>()) {
      for (auto variant : exe.getOps<VariantOp>()) {
        if (!isa<CPUTargetAttr>(variant.getTarget()))
          continue;
        ModuleOp inner = variant.getInnerModule();
        auto kernel = inner.lookupSymbol<func::FuncOp>(exe.getSymName());
        if (!kernel) {
          variant.emitOpError("has no kernel function @")
              << exe.getSymName();
          return signalPassFailure();
        }
        std::string name =
            (exe.getSymName() + "_" + variant.getSymName()).str();
        if (failed(SymbolTable::replaceAllSymbolUses(
                kernel, StringAttr::get(&getContext(), name), inner)))
          return signalPassFailure();
        kernel.setSymName(name);
        kernel->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
        kernel->setAttr("fw.kernel_symbol",
                        StringAttr::get(&getContext(),
                                        getCpuKernelSymbol(
                                            exe.getSymName(),
                                            variant.getSymName())));
        if (failed(runPipeline(pm, inner)))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
