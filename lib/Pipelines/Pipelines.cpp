//===- Pipelines.cpp - The fwc compilation pipeline -----------------------===//

#include "fw/Pipelines/Pipelines.h"
#include "fw/Dialect/FW/Transforms/Canonicalize.h"

#include "fw/Conversion/Passes.h"
#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

std::optional<mlir::fw::Phase> mlir::fw::parsePhase(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("input", Phase::Input)
      .Case("tasks", Phase::Tasks)
      .Case("executables", Phase::Executables)
      .Case("buffers", Phase::Buffers)
      .Case("host", Phase::Host)
      .Case("llvm", Phase::LLVM)
      .Default(std::nullopt);
}

llvm::StringRef mlir::fw::getPhaseNames() {
  return "input, tasks, executables, buffers, host, llvm";
}

void mlir::fw::buildFwcPipeline(OpPassManager &pm, const FwcOptions &options) {
  // Input: calls inlined (without simplifying the callees: the checks of what
  // folding would remove come first), unused functions and declarations
  // dropped, tensor arithmetic to linalg, then a clean start.
  pm.addPass(createInlinerPass({}, [](OpPassManager &) {}));
  pm.addPass(createSymbolDCEPass());
  pm.addNestedPass<func::FuncOp>(mlir::fw::createPrepareInputPass());
  // Elementwise producers fused into their consumers.
  if (options.optLevel > 0)
    pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(mlir::fw::createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.compileTo == Phase::Input)
    return;

  mlir::fw::FormTasksPassOptions formTasks;
  formTasks.fuseEpilogues = options.optLevel > 0;
  formTasks.fusePrologues = options.optLevel > 0;
  pm.addNestedPass<func::FuncOp>(mlir::fw::createFormTasksPass(formTasks));
  pm.addPass(mlir::fw::createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (!options.profileUse.empty()) {
    mlir::fw::ApplyProfilePassOptions apply;
    apply.profile = options.profileUse;
    apply.sourceId = options.sourceId;
    if (options.optLevel == 0) {
      apply.mergeBelowUs = 0;
      apply.splitAboveUs = 0;
    }
    pm.addPass(mlir::fw::createApplyProfilePass(apply));
    // Merged and split tasks leave shape arithmetic on the host.
    pm.addPass(mlir::fw::createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Indices the kernels compute themselves are checked where they do.
  pm.addNestedPass<func::FuncOp>(mlir::fw::createTaskChecksPass());
  if (options.compileTo == Phase::Tasks)
    return;

  pm.addPass(mlir::fw::createOutlineTasksPass());
  if (!options.profileUse.empty() || options.autotune > 1) {
    mlir::fw::TuneVariantsPassOptions tune;
    tune.candidates = options.autotune;
    pm.addPass(mlir::fw::createTuneVariantsPass(tune));
  }
  if (options.compileTo == Phase::Executables)
    return;

  pm.addPass(mlir::fw::createBufferizePass());
  pm.addPass(mlir::fw::createCanonicalizerPass());
  pm.addPass(mlir::fw::createKernelErrorWordPass());
  if (options.optLevel > 0 || options.reportMemory) {
    mlir::fw::ReuseBuffersPassOptions reuse;
    reuse.reuse = options.optLevel > 0;
    reuse.report = options.reportMemory;
    pm.addPass(mlir::fw::createReuseBuffersPass(reuse));
  }
  pm.addPass(mlir::fw::createTaskPrioritiesPass());
  if (options.compileTo == Phase::Buffers)
    return;

  pm.addPass(mlir::fw::createConvertFWHostToRuntimePass());
  pm.addPass(mlir::fw::createCanonicalizerPass());
  if (options.compileTo == Phase::Host)
    return;

  if (options.testGpuMappingOnCpu) {
    mlir::fw::TestGPUMappingOnCPUPassOptions test;
    test.knobs = options.testGpuKnobs;
    pm.addPass(mlir::fw::createTestGPUMappingOnCPUPass(test));
  }
  mlir::fw::ConvertFWGPUVariantsToBinaryPassOptions gpu;
  gpu.cudaPath = options.cudaPath;
  gpu.rocmPath = options.rocmPath;
  pm.addPass(mlir::fw::createConvertFWGPUVariantsToBinaryPass(gpu));
  pm.addPass(mlir::fw::createConvertFWCPUVariantsToLLVMPass());
  // Host code's floor and ceiling divisions (sizes computed from sizes, kept
  // on the host by the checks of them) in the ops LLVM has.
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(mlir::fw::createConvertFWHostToLLVMPass());
}

void mlir::fw::registerFwDialects(DialectRegistry &registry) {
  registry.insert<mlir::fw::FWDialect, affine::AffineDialect,
                  arith::ArithDialect, bufferization::BufferizationDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  gpu::GPUDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect, index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, tensor::TensorDialect, ub::UBDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerInferTypeOpInterfaceExternalModels(registry);
  // How buffers pass through these ops' regions and terminators, for the
  // ownership-based deallocation (without them, a buffer allocated in the
  // body of an scf.forall was never freed).
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  // Shape reasoning for result sizes that no op can reify directly.
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  linalg::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  func::registerInlinerExtension(registry);
  // NVIDIA code generation: the NVVM target serializes gpu.modules through
  // LLVM IR.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // AMD: the ROCDL target serializes them to HSACO code objects.
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  // convert-gpu-to-nvvm converts every dialect through its
  // ConvertToLLVMPatternInterface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

namespace {
struct FwcPipelineOptions : public PassPipelineOptions<FwcPipelineOptions> {
  Option<std::string> compileTo{
      *this, "compile-to",
      llvm::cl::desc("Stop after this phase: input, tasks, executables, "
                     "buffers, host, llvm"),
      llvm::cl::init("llvm")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("0 disables fusion"),
                            llvm::cl::init(3)};
};
} // namespace

void mlir::fw::registerFwPasses() {
  mlir::fw::registerFWPasses();
  mlir::fw::registerFWConversionPasses();
  // Registered with its own option checks (PassPipelineRegistration would
  // take any phase name and level).
  registerPassPipeline(
      "fwc-pipeline", "The fwc compilation pipeline, up to a phase",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        FwcPipelineOptions opts;
        if (failed(opts.parseFromString(text)))
          return failure();
        std::optional<Phase> phase = parsePhase(opts.compileTo);
        if (!phase)
          return errorHandler("fwc-pipeline: unknown phase '" +
                              opts.compileTo +
                              "' for compile-to (expected input, tasks, "
                              "executables, buffers, host or llvm)");
        if (opts.optLevel > 3)
          return errorHandler("fwc-pipeline: opt-level must be 0 to 3, not " +
                              Twine(opts.optLevel));
        FwcOptions options;
        options.compileTo = *phase;
        options.optLevel = opts.optLevel;
        buildFwcPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(FwcPipelineOptions());
      });
}
