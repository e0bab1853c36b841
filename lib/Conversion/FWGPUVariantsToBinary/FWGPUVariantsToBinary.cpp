//===- FWGPUVariantsToBinary.cpp - GPU kernels to device images ----------===//
//
// Compiles the kernel of each NVIDIA and AMD variant: a gpu.module for the
// target holds it as a gpu.func, GPUMapping.cpp spreads its loop nests over
// the grid, the vendor lowering (NVVM or ROCDL) follows, and MLIR's
// gpu-module-to-binary serializes it: PTX and a cubin assembled by ptxas for
// NVIDIA, an HSACO code object linked by ld.lld for AMD.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"
#include "fw/Dialect/FW/Transforms/Canonicalize.h"

#include "GPUMapping.h"
#include "fw/Target/TargetDescription.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#ifndef FW_LLVM_TOOLS_DIR
#define FW_LLVM_TOOLS_DIR ""
#endif

namespace mlir::fw {
#define GEN_PASS_DEF_CONVERTFWGPUVARIANTSTOBINARYPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Serializes the (lowered) gpu.module of `container` in `format`; returns
/// the bytes of the object.
static FailureOr<std::string> serialize(ModuleOp container, StringRef format,
                                        StringRef toolkit) {
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(container->clone());
  PassManager pm(container.getContext());
  GpuModuleToBinaryPassOptions options;
  options.compilationTarget = format.str();
  options.toolkitPath = toolkit.str();
  pm.addPass(createGpuModuleToBinaryPass(options));
  if (failed(pm.run(*copy)))
    return failure();
  for (auto binary : copy->getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        return object.getObject().getValue().str();
  return failure();
}

/// Math functions AMDGPU has no instruction for become ones it has: the
/// hyperbolic functions, powers and tan are expanded into exponentials,
/// logarithms, sines and cosines; the inverse tangents and erfc into
/// polynomials. No device library (whose bitcode may not exist for the
/// target, like gfx942 in Debian's rocm-device-libs) is needed for them.
static LogicalResult expandMathForAMDGPU(gpu::GPUModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  math::populateExpansionPatterns(
      patterns, {"tan", "tanh", "sinh", "cosh", "asinh", "acosh", "atanh", "powf"});
  auto approximated = [](StringRef name) {
    name.consume_front("math.");
    return name == "atan" || name == "atan2" || name == "erfc" || name == "asin" ||
           name == "acos";
  };
  populateMathF32ExpansionPatterns(patterns, approximated);
  populateMathPolynomialApproximationPatterns(patterns, approximated);
  return applyPatternsGreedily(module, std::move(patterns));
}

/// A directory laid out like a ROCm installation for gpu-module-to-binary:
/// amdgcn/bitcode (the device libraries) and llvm/bin/ld.lld. Given with
/// --rocm-path, or assembled from Debian's rocm-device-libs and LLVM's own
/// ld.lld as links in a fresh temporary directory (removed by the pass).
class ROCmToolkit {
public:
  ~ROCmToolkit() {
    if (!temporary.empty())
      (void)llvm::sys::fs::remove_directories(temporary);
  }

  /// The directory, or an error message.
  FailureOr<std::string> get(StringRef rocmPath, StringRef deviceLibs,
                             std::string &error) {
    if (!path.empty())
      return path;
    SmallString<256> lld;
    if (!rocmPath.empty()) {
      lld = rocmPath;
      llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
      if (!llvm::sys::fs::can_execute(lld)) {
        error = ("'" + lld + "' is not there; --rocm-path must hold ROCm's "
                 "llvm/bin/ld.lld and amdgcn/bitcode")
                    .str();
        return failure();
      }
      return path = rocmPath.str();
    }
    lld = FW_LLVM_TOOLS_DIR;
    llvm::sys::path::append(lld, "ld.lld");
    if (!llvm::sys::fs::can_execute(lld)) {
      error = ("LLVM's linker '" + lld +
               "' is not there (package lld-22); or pass --rocm-path=<ROCm>")
                  .str();
      return failure();
    }
    if (!llvm::sys::fs::is_directory(deviceLibs)) {
      error = ("the AMD device libraries '" + deviceLibs +
               "' are not there (package rocm-device-libs); or pass "
               "--rocm-path=<ROCm>")
                  .str();
      return failure();
    }
    SmallString<256> dir;
    if (llvm::sys::fs::createUniqueDirectory("fw-rocm", dir)) {
      error = "cannot create a temporary directory for the AMD toolchain";
      return failure();
    }
    temporary = dir.str().str();
    SmallString<256> amdgcn(dir), bin(dir);
    llvm::sys::path::append(amdgcn, "amdgcn");
    llvm::sys::path::append(bin, "llvm", "bin");
    SmallString<256> bitcode(amdgcn), linker(bin);
    llvm::sys::path::append(bitcode, "bitcode");
    llvm::sys::path::append(linker, "ld.lld");
    if (llvm::sys::fs::create_directories(amdgcn) ||
        llvm::sys::fs::create_directories(bin) ||
        llvm::sys::fs::create_link(deviceLibs, bitcode) ||
        llvm::sys::fs::create_link(lld, linker)) {
      error = ("cannot lay out the AMD toolchain in '" + dir + "'").str();
      return failure();
    }
    return path = temporary;
  }

private:
  std::string path, temporary;
};

namespace {

struct ConvertFWGPUVariantsToBinaryPass
    : public fw::impl::ConvertFWGPUVariantsToBinaryPassBase<
          ConvertFWGPUVariantsToBinaryPass> {
  using ConvertFWGPUVariantsToBinaryPassBase::
      ConvertFWGPUVariantsToBinaryPassBase;

  ROCmToolkit rocm;

  enum class Compiled {
    Yes,
    /// Its loop nests cannot be spread over the grid: the variant is dropped
    /// or reported.
    Unmappable,
    /// An autotuning candidate that would be another variant's kernel again:
    /// dropped.
    Redundant,
    /// An op of its kernel has no lowering for the target yet (`unlowered`
    /// names it): the variant is dropped or reported.
    Unlowered,
  };

  /// The op that kept the last kernel from lowering (Compiled::Unlowered).
  std::string unlowered;

  /// Whether `variant` follows another variant for the same target: an
  /// autotuning candidate (fw-tune-variants).
  static bool isCandidate(ExecutableOp exe, VariantOp variant) {
    for (VariantOp other : exe.getOps<VariantOp>()) {
      if (other == variant)
        return false;
      if (other.getTarget() == variant.getTarget())
        return true;
    }
    return false;
  }

  /// Compiles the variant's kernel.
  FailureOr<Compiled> compile(ExecutableOp exe, VariantOp variant) {
    MLIRContext *ctx = &getContext();
    auto target = cast<TargetAttrInterface>(variant.getTarget());
    bool nvidia = isa<CUDATargetAttr>(target);
    StringRef arch = target.getArchName();
    const TargetDescription *desc = lookupTarget(arch);
    if (!desc)
      return variant.emitOpError("targets '") << arch << "', which fw does not know";
    ModuleOp inner = variant.getInnerModule();
    auto kernel = inner.lookupSymbol<func::FuncOp>(exe.getSymName());
    if (!kernel)
      return variant.emitOpError("has no kernel function @")
             << exe.getSymName();
    // The vendor's tools.
    std::string toolkit;
    if (nvidia) {
      SmallString<256> ptxas(cudaPath);
      llvm::sys::path::append(ptxas, "bin", "ptxas");
      if (!llvm::sys::fs::can_execute(ptxas))
        return variant.emitOpError("needs CUDA's ptxas to assemble cubins for ")
               << arch << ", but '" << ptxas
               << "' is not there; pass --cuda-path=<CUDA toolkit>";
      toolkit = cudaPath;
    } else {
      std::string error;
      FailureOr<std::string> dir = rocm.get(rocmPath, amdDeviceLibs, error);
      if (failed(dir))
        return variant.emitOpError("needs the AMD toolchain to link code objects for ")
               << arch << ": " << error;
      toolkit = *dir;
    }

    // The container: a gpu.module for the target with one kernel.
    OpBuilder b(ctx);
    OwningOpRef<ModuleOp> container = ModuleOp::create(variant.getLoc());
    (*container)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                          b.getUnitAttr());
    b.setInsertionPointToStart(container->getBody());
    Attribute gpuTarget =
        nvidia ? Attribute(NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, desc->triple,
                                                     desc->llvmCpu, desc->llvmFeatures))
               : Attribute(ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3, desc->triple,
                                                       desc->llvmCpu, desc->llvmFeatures,
                                                       /*abiVersion=*/"500"));
    auto module = gpu::GPUModuleOp::create(b, variant.getLoc(), "kernels",
                                           b.getArrayAttr({gpuTarget}));
    b.setInsertionPointToStart(module.getBody());
    // What the kernel needs besides itself: the constants it reads and the
    // functions computing integer powers, made in a scratch module.
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(variant.getLoc());
    {
      OpBuilder sb = OpBuilder::atBlockEnd(scratch->getBody());
      llvm::SmallDenseSet<StringAttr> globals;
      kernel.walk([&](memref::GetGlobalOp get) {
        if (!globals.insert(get.getNameAttr().getAttr()).second)
          return;
        if (auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
                kernel, get.getNameAttr()))
          sb.clone(*global);
      });
      kernel = cast<func::FuncOp>(sb.clone(*kernel));
      PassManager helpers(ctx);
      helpers.addPass(createConvertMathToFuncs());
      if (failed(helpers.run(*scratch)))
        return variant.emitOpError("could not expand the math of its kernel");
    }
    for (Operation &op : *scratch->getBody())
      if (&op != kernel.getOperation())
        b.clone(op);
    auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), exe.getSymName(),
                                       kernel.getFunctionType());
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    IRMapping map;
    Block &entry = func.getBody().front();
    for (auto [from, to] :
         llvm::zip(kernel.getArguments(), entry.getArguments()))
      map.map(from, to);
    b.setInsertionPointToEnd(&entry);
    for (Operation &op : kernel.getBody().front().without_terminator())
      b.clone(op, map);
    gpu::ReturnOp::create(b, kernel.getLoc());

    // The ops' loop nests, spread over the grid, with the variant's knobs.
    TuningConfig knobs = variant.getTuning();
    GPUTiling tiling = getGPUTiling(knobs);
    if (!knobs.block)
      tiling.block = blockSize;
    bool defaultTiles = false;
    FailureOr<GridMapping> mapped = mapKernelToGrid(func, tiling, &defaultTiles);
    if (failed(mapped))
      return variant.emitOpError("could not map its kernel onto the grid for ")
             << arch;
    if (*mapped == GridMapping::None)
      return Compiled::Unmappable;
    stopThreadLoopsAtFailedChecks(func, kernel, *mapped);
    // A candidate whose knobs the mapping does not use (GEMM tiles of a
    // kernel that is no GEMM, a block size of one that is) or that asks for
    // the tile the defaults give this GEMM is the kernel of the target's
    // first variant again.
    bool gemm = *mapped == GridMapping::Gemm;
    if (isCandidate(exe, variant) &&
        ((gemm && (knobs.block || defaultTiles)) || (!gemm && knobs.hasGemmKnobs())))
      return Compiled::Redundant;

    // Launch bounds: the block size, and from the target's register file
    // how many blocks (NVIDIA) or waves (AMD) must fit at once.
    // A GEMM's block is its tile's (which the mapping may size to the result).
    int64_t threadsPerBlock = tiling.block;
    if (gemm)
      if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
        threadsPerBlock = (*known)[0];
    GPULaunchBounds bounds = getGPULaunchBounds(*desc, threadsPerBlock);
    auto threads = static_cast<int32_t>(threadsPerBlock);
    if (nvidia) {
      func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
      func->setAttr("nvvm.minctasm",
                    b.getI32IntegerAttr(bounds.minBlocksPerMultiprocessor));
    } else {
      func->setAttr(ROCDL::ROCDLDialect::FlatWorkGroupSizeAttrHelper::getNameStr(),
                    b.getStringAttr("1," + std::to_string(threads)));
      func->setAttr(ROCDL::ROCDLDialect::WavesPerEuAttrHelper::getNameStr(),
                    b.getI32IntegerAttr(bounds.wavesPerExecutionUnit));
    }

    if (!nvidia && failed(expandMathForAMDGPU(module)))
      return variant.emitOpError("could not expand the math of its kernel for ") << arch;

    PassManager pm(ctx);
    OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
    gpuPm.addPass(memref::createExpandStridedMetadataPass());
    gpuPm.addPass(createLowerAffinePass());
    gpuPm.addPass(arith::createArithExpandOpsPass());
    gpuPm.addPass(createSCFToControlFlowPass());
    if (nvidia) {
      gpuPm.addPass(createConvertGpuOpsToNVVMOps());
    } else {
      ConvertGpuOpsToROCDLOpsOptions rocdl;
      rocdl.chipset = arch.str();
      rocdl.runtime = gpu::amd::Runtime::HIP;
      gpuPm.addPass(createConvertGpuOpsToROCDLOps(rocdl));
    }
    gpuPm.addPass(mlir::fw::createCanonicalizerPass());
    gpuPm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(*container)))
      return variant.emitOpError("could not lower its kernel to ")
             << (nvidia ? "NVVM" : "ROCDL");
    // Ops the GPU lowering left (math ops without an NVVM or ROCDL form,
    // such as math.trunc or math.ctpop on NVIDIA) cannot become LLVM IR.
    WalkResult lowered = module.walk([&](Operation *op) {
      if (op == module.getOperation() ||
          isa<LLVM::LLVMDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect>(
              op->getDialect()))
        return WalkResult::advance();
      unlowered = op->getName().getStringRef().str();
      return WalkResult::interrupt();
    });
    if (lowered.wasInterrupted())
      return Compiled::Unlowered;

    variant->setAttr("fw.kernel", b.getStringAttr(exe.getSymName()));
    variant->setAttr("fw.block_size", b.getI64IntegerAttr(threadsPerBlock));
    if (nvidia) {
      FailureOr<std::string> ptx = serialize(*container, "isa", toolkit);
      FailureOr<std::string> cubin = serialize(*container, "bin", toolkit);
      if (failed(ptx) || failed(cubin))
        return variant.emitOpError("could not serialize its kernel for ") << arch;
      variant->setAttr("fw.ptx", b.getStringAttr(*ptx));
      variant->setAttr("fw.cubin", b.getStringAttr(*cubin));
    } else {
      FailureOr<std::string> hsaco = serialize(*container, "bin", toolkit);
      if (failed(hsaco))
        return variant.emitOpError("could not serialize its kernel for ") << arch;
      variant->setAttr("fw.hsaco", b.getStringAttr(*hsaco));
    }
    for (Operation &op : llvm::make_early_inc_range(*inner.getBody()))
      op.erase();
    return Compiled::Yes;
  }

  void runOnOperation() override {
    for (auto exe : llvm::to_vector(getOperation().getOps<ExecutableOp>())) {
      for (auto variant : llvm::to_vector(exe.getOps<VariantOp>())) {
        if (!isa<CUDATargetAttr, HIPTargetAttr>(variant.getTarget()))
          continue;
        StringRef arch = cast<TargetAttrInterface>(variant.getTarget()).getArchName();
        FailureOr<Compiled> compiled = Compiled::Unmappable;
        if (!getKernelLinalgOps(variant.getInnerModule().lookupSymbol<func::FuncOp>(
                                    exe.getSymName()))
                 .empty())
          compiled = compile(exe, variant);
        if (failed(compiled))
          return signalPassFailure();
        if (*compiled == Compiled::Yes)
          continue;
        if (*compiled == Compiled::Redundant) {
          variant.erase();
          continue;
        }
        // Not mappable or not lowerable yet: the other variants run it.
        std::string why =
            *compiled == Compiled::Unlowered
                ? "its op '" + unlowered + "' has no lowering for " +
                      arch.str() + " yet"
                : "only kernels whose loop nests fuse per element or are "
                  "independent are supported yet";
        if (llvm::range_size(exe.getOps<VariantOp>()) == 1) {
          variant.emitOpError("cannot be compiled for ")
              << arch << ": " << why << "; add a CPU target";
          return signalPassFailure();
        }
        variant.emitWarning("not compiled for ")
            << arch << ": " << why << "; the other targets run it";
        variant.erase();
      }
    }
  }
};

} // namespace
