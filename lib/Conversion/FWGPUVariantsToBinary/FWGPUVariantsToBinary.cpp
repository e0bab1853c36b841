//===- FWGPUVariantsToBinary.cpp - NVIDIA kernels to cubin and PTX --------===//
//
// Maps the kernel of each NVIDIA variant onto a gpu.func with a grid-stride
// loop, lowers it to NVVM and serializes it with MLIR's gpu-module-to-binary
// (PTX, and a cubin assembled by ptxas).
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"

#include "fw/Target/TargetDescription.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CONVERTFWGPUVARIANTSTOBINARYPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// The kernel's only op with memory effects, when it is a linalg op.
static linalg::LinalgOp soleLinalgOp(func::FuncOp kernel) {
  if (!kernel || kernel.isExternal())
    return nullptr;
  linalg::LinalgOp found;
  for (Operation &op : kernel.getBody().front()) {
    if (isMemoryEffectFree(&op) || isa<func::ReturnOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || found || !linalgOp.hasPureBufferSemantics())
      return nullptr;
    found = linalgOp;
  }
  return found;
}

/// Replaces the outermost scf.parallel of `func` by a grid-stride loop over
/// its linearized iteration space; without one (a full reduction), the body
/// runs in the first thread only.
static void distributeOverGrid(gpu::GPUFuncOp func) {
  scf::ParallelOp parallel;
  func.walk([&](scf::ParallelOp op) {
    if (!parallel && !op->getParentOfType<scf::ParallelOp>())
      parallel = op;
  });
  Block &entry = func.getBody().front();
  OpBuilder b(&entry, entry.begin());
  Location loc = func.getLoc();
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value gridDim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId, blockDim), threadId);
  Value stride = arith::MulIOp::create(b, loc, gridDim, blockDim);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);

  if (!parallel) {
    // No parallel loop: one thread does everything.
    Operation *terminator = entry.getTerminator();
    b.setInsertionPoint(terminator);
    Value isFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first, c0);
    auto guard = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
    Block *then = guard.thenBlock();
    SmallVector<Operation *> work;
    for (Operation &op : entry)
      if (&op != terminator && &op != guard.getOperation() &&
          op.isBeforeInBlock(guard) && !isMemoryEffectFree(&op))
        work.push_back(&op);
    for (Operation *op : work)
      op->moveBefore(then->getTerminator());
    return;
  }

  b.setInsertionPoint(parallel);
  // Extents of the parallel dimensions and their product.
  SmallVector<Value> extents;
  Value total = c1;
  for (auto [lb, ub, step] : llvm::zip(parallel.getLowerBound(),
                                       parallel.getUpperBound(),
                                       parallel.getStep())) {
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    Value extent = arith::CeilDivUIOp::create(b, loc, span, step);
    extents.push_back(extent);
    total = arith::MulIOp::create(b, loc, total, extent);
  }
  auto loop = scf::ForOp::create(b, loc, first, total, stride);
  b.setInsertionPointToStart(loop.getBody());
  // Delinearize, the last dimension fastest.
  SmallVector<Value> ivs(extents.size());
  Value rest = loop.getInductionVar();
  for (int64_t d = extents.size() - 1; d >= 0; --d) {
    Value index = d == 0 ? rest
                         : arith::RemUIOp::create(b, loc, rest, extents[d])
                               .getResult();
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, extents[d]);
    ivs[d] = arith::AddIOp::create(
        b, loc, parallel.getLowerBound()[d],
        arith::MulIOp::create(b, loc, index, parallel.getStep()[d]));
  }
  IRMapping map;
  map.map(parallel.getInductionVars(), ivs);
  for (Operation &op : parallel.getBody()->without_terminator())
    b.clone(op, map);
  parallel.erase();
}

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

namespace {

struct ConvertFWGPUVariantsToBinaryPass
    : public fw::impl::ConvertFWGPUVariantsToBinaryPassBase<
          ConvertFWGPUVariantsToBinaryPass> {
  using ConvertFWGPUVariantsToBinaryPassBase::
      ConvertFWGPUVariantsToBinaryPassBase;

  LogicalResult compile(ExecutableOp exe, VariantOp variant) {
    MLIRContext *ctx = &getContext();
    auto target = cast<CUDATargetAttr>(variant.getTarget());
    const TargetDescription *desc = lookupTarget(target.getArch());
    ModuleOp inner = variant.getInnerModule();
    auto kernel = inner.lookupSymbol<func::FuncOp>(exe.getSymName());
    if (!kernel)
      return variant.emitOpError("has no kernel function @")
             << exe.getSymName();
    SmallString<256> ptxas(cudaPath);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    if (!llvm::sys::fs::can_execute(ptxas))
      return variant.emitOpError("needs CUDA's ptxas to assemble cubins for ")
             << target.getArch() << ", but '" << ptxas
             << "' is not there; pass --cuda-path=<CUDA toolkit>";

    // The container: a gpu.module for the target with one kernel.
    OpBuilder b(ctx);
    OwningOpRef<ModuleOp> container = ModuleOp::create(variant.getLoc());
    (*container)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                          b.getUnitAttr());
    b.setInsertionPointToStart(container->getBody());
    auto nvvmTarget = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, desc->triple, desc->llvmCpu, desc->llvmFeatures);
    auto module = gpu::GPUModuleOp::create(b, variant.getLoc(), "kernels",
                                           b.getArrayAttr({nvvmTarget}));
    b.setInsertionPointToStart(module.getBody());
    auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), exe.getSymName(),
                                       kernel.getFunctionType());
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func->setAttr("nvvm.maxntid",
                  b.getDenseI32ArrayAttr({static_cast<int32_t>(blockSize), 1, 1}));
    IRMapping map;
    Block &entry = func.getBody().front();
    for (auto [from, to] :
         llvm::zip(kernel.getArguments(), entry.getArguments()))
      map.map(from, to);
    b.setInsertionPointToEnd(&entry);
    for (Operation &op : kernel.getBody().front().without_terminator())
      b.clone(op, map);
    gpu::ReturnOp::create(b, kernel.getLoc());

    // The op's parallel loops, spread over the grid.
    linalg::LinalgOp op = soleLinalgOp(kernel);
    linalg::LinalgOp cloned;
    func.walk([&](linalg::LinalgOp l) { cloned = l; });
    IRRewriter rewriter(ctx);
    rewriter.setInsertionPoint(cloned);
    if (!op || failed(linalg::linalgOpToParallelLoops(rewriter, cloned)))
      return variant.emitOpError("could not turn its kernel into loops for ")
             << target.getArch();
    rewriter.eraseOp(cloned);
    distributeOverGrid(func);

    PassManager pm(ctx);
    OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
    gpuPm.addPass(memref::createExpandStridedMetadataPass());
    gpuPm.addPass(createLowerAffinePass());
    gpuPm.addPass(arith::createArithExpandOpsPass());
    gpuPm.addPass(createSCFToControlFlowPass());
    gpuPm.addPass(createConvertGpuOpsToNVVMOps());
    gpuPm.addPass(createCanonicalizerPass());
    gpuPm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(*container)))
      return variant.emitOpError("could not lower its kernel to NVVM");

    FailureOr<std::string> ptx = serialize(*container, "isa", cudaPath);
    FailureOr<std::string> cubin = serialize(*container, "bin", cudaPath);
    if (failed(ptx) || failed(cubin))
      return variant.emitOpError("could not serialize its kernel for ")
             << target.getArch();

    variant->setAttr("fw.kernel", b.getStringAttr(exe.getSymName()));
    variant->setAttr("fw.block_size", b.getI64IntegerAttr(blockSize));
    variant->setAttr("fw.ptx", b.getStringAttr(*ptx));
    variant->setAttr("fw.cubin", b.getStringAttr(*cubin));
    for (Operation &op : llvm::make_early_inc_range(*inner.getBody()))
      op.erase();
    return success();
  }

  void runOnOperation() override {
    for (auto exe : llvm::to_vector(getOperation().getOps<ExecutableOp>())) {
      for (auto variant : llvm::to_vector(exe.getOps<VariantOp>())) {
        if (!isa<CUDATargetAttr>(variant.getTarget()))
          continue;
        if (soleLinalgOp(variant.getInnerModule().lookupSymbol<func::FuncOp>(
                exe.getSymName()))) {
          if (failed(compile(exe, variant)))
            return signalPassFailure();
          continue;
        }
        // Not mappable yet: the other variants run it.
        if (llvm::range_size(exe.getOps<VariantOp>()) == 1) {
          variant.emitOpError("cannot be compiled for ")
              << cast<CUDATargetAttr>(variant.getTarget()).getArch()
              << " yet: only kernels made of one linalg operation are "
                 "supported; add a CPU target";
          return signalPassFailure();
        }
        variant.emitWarning("not compiled for ")
            << cast<CUDATargetAttr>(variant.getTarget()).getArch()
            << ": only kernels made of one linalg operation are supported "
               "yet; the other targets run it";
        variant.erase();
      }
    }
  }
};

} // namespace
