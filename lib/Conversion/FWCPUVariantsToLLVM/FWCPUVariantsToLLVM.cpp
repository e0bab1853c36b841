//===- FWCPUVariantsToLLVM.cpp - CPU kernels to the LLVM dialect ----------===//
//
// Runs the CPU kernel pipeline on the module of every CPU variant. Variants
// of other targets are left for their own backends.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"
#include "fw/Dialect/FW/Transforms/Canonicalize.h"

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Target/TargetDescription.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
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
/// module, with the knobs of its variant.
static void buildCpuKernelPipeline(OpPassManager &pm,
                                   const TargetDescription &target,
                                   const TuningConfig &tuning = {}) {
  pm.addNestedPass<func::FuncOp>(createCPUStopAtFailedChecksPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(mlir::fw::createCanonicalizerPass());
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  CPUMatmulPassOptions gemm;
  gemm.vectorBits = target.vectorBits;
  gemm.vectorRegisters = target.vectorRegisters;
  gemm.l1Bytes = static_cast<int64_t>(target.l1Bytes);
  gemm.l2Bytes = static_cast<int64_t>(target.l2Bytes);
  gemm.mr = tuning.mr.value_or(0);
  gemm.nr = tuning.nr.value_or(0);
  gemm.kc = tuning.kc.value_or(0);
  gemm.mc = tuning.mc.value_or(0);
  gemm.distribute = true;
  funcPm.addPass(createCPUMatmulPass(gemm));
  CPUDistributePassOptions division;
  if (tuning.minElements)
    division.minElements = *tuning.minElements;
  funcPm.addPass(createCPUDistributePass(division));
  funcPm.addPass(mlir::fw::createCanonicalizerPass());
  funcPm.addPass(createCPULoopOrderPass());
  CPUTilePassOptions tiling;
  tiling.l2Bytes = static_cast<int64_t>(target.l2Bytes);
  funcPm.addPass(createCPUTilePass(tiling));
  funcPm.addPass(createConvertLinalgToLoopsPass());
  // Transfers of more than one dimension become loops of 1-D transfers,
  // which lower to (masked) vector loads and stores.
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll();
  funcPm.addPass(createConvertVectorToSCFPass(transfers));
  funcPm.addPass(createApproximateMathPass());
  funcPm.addPass(createLoopInvariantCodeMotionPass());
  funcPm.addPass(createCPUWorkgroupArgsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addNestedPass<func::FuncOp>(createCPUAllocationChecksPass());
  // Integer powers become helper functions. Math on types without native
  // support (f16, bf16) is computed in f32, bf16 arithmetic too, and bf16
  // conversions are expanded to integer operations.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Contractions become outer products, then broadcasts and FMAs.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // The kernel's own buffers come from the runtime (fw-cpu-kernel-allocator).
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCPUKernelAllocatorPass());
  pm.addPass(createCPUKernelABIPass());
  pm.addPass(mlir::fw::createCanonicalizerPass());
}

/// Integer division by zero (and INT_MIN / -1) is undefined in MLIR and traps
/// on x86-64. Kernels divide by 1 instead, so such inputs give an
/// unspecified value rather than killing the process.
static void guardIntegerDivision(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op) &&
        op->getResult(0).getType().isIntOrIndex())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Type type = rhs.getType();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
    };
    Value one = constant(1);
    Value unsafe = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         rhs, constant(0));
    bool isSigned = isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                        arith::FloorDivSIOp>(op);
    if (isSigned) {
      unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
      if (width > 1) {
        Value minusOne = constant(-1);
        Value intMin = arith::ConstantOp::create(
            b, loc, type,
            b.getIntegerAttr(type, llvm::APInt::getSignedMinValue(width)));
        Value overflow = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs,
                                  intMin),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs,
                                  minusOne));
        unsafe = arith::OrIOp::create(b, loc, unsafe, overflow);
      }
    }
    Value safe = arith::SelectOp::create(b, loc, unsafe, one, rhs);
    op->setOperand(1, safe);
  }
}

/// The host binds to a dispatch's writes only fresh buffers or ones whose
/// last reader came before, so its bindings never overlap where one of them is
/// written, unless fw-reuse-buffers made a dispatch of the executable update
/// an input in place (`fw.in_place`). Then, since the runtime binds a buffer
/// only where its element type and rank match, only a binding whose element
/// type and rank no other binding shares is apart from the others. The
/// positions of the aligned pointers of bindings that are apart, among the
/// kernel's expanded arguments (each memref becomes allocated, aligned,
/// offset, sizes, strides), go in `fw.noalias_params`, for
/// fw-cpu-kernel-abi to mark them noalias once the arguments are expanded:
/// LLVM may then keep what it read through them across stores through the
/// others, and vectorize copies between them (an embedding lookup reads its
/// ids again for every element and copies element by element otherwise).
static void markDisjointBindings(ExecutableOp exe, func::FuncOp kernel) {
  SmallVector<MemRefType> bindings;
  for (Type t : kernel.getArgumentTypes())
    if (auto memref = dyn_cast<MemRefType>(t))
      bindings.push_back(memref);
  if (kernel->hasAttr("fw.error_word") && !bindings.empty())
    bindings.pop_back(); // not a buffer of the runtime's
  bool inPlace = exe->hasAttr(kInPlaceAttrName);
  SmallVector<int32_t> params;
  int32_t position = 0;
  for (MemRefType type : bindings) {
    int shared = llvm::count_if(bindings, [&](MemRefType other) {
      return other.getElementType() == type.getElementType() &&
             other.getRank() == type.getRank();
    });
    if (!inPlace || shared == 1)
      params.push_back(position + 1);
    position += 3 + 2 * static_cast<int32_t>(type.getRank());
  }
  if (!params.empty())
    kernel->setAttr("fw.noalias_params",
                    DenseI32ArrayAttr::get(kernel.getContext(), params));
}

namespace {

struct ConvertFWCPUVariantsToLLVMPass
    : public fw::impl::ConvertFWCPUVariantsToLLVMPassBase<
          ConvertFWCPUVariantsToLLVMPass> {
  /// The kernel pipeline runs nested, so every dialect its passes create must
  /// be loaded before this pass starts.
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertFWCPUVariantsToLLVMPassBase::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    buildCpuKernelPipeline(pm, *lookupTarget(getDefaultCpuArch()));
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();

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
        guardIntegerDivision(inner);
        markDisjointBindings(exe, kernel);
        // A fresh pipeline per kernel: some passes cache symbols they create.
        OpPassManager pm(ModuleOp::getOperationName());
        const TargetDescription *desc =
            lookupTarget(cast<CPUTargetAttr>(variant.getTarget()).getArch());
        buildCpuKernelPipeline(pm, *desc, variant.getTuning());
        if (failed(runPipeline(pm, inner)))
          return signalPassFailure();
        // A kernel that divides its work among workgroups says so in the
        // fat binary.
        for (auto func : inner.getOps<LLVM::LLVMFuncOp>())
          if (func->hasAttr("fw.workgroups"))
            variant->setAttr("fw.workgroups", UnitAttr::get(&getContext()));
        // Only the runtime entry is visible outside the kernel's module, so
        // helpers of variants for different ISA levels never mix at link time.
        std::string entry =
            getCpuKernelSymbol(exe.getSymName(), variant.getSymName());
        for (auto func : inner.getOps<LLVM::LLVMFuncOp>()) {
          if (func.isExternal() || func.getSymName() == entry)
            continue;
          func.setLinkage(LLVM::Linkage::Internal);
          func.setComdatAttr({});
        }
      }
    }
  }
};

} // namespace
