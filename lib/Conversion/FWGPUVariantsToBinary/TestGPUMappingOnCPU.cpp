//===- TestGPUMappingOnCPU.cpp - The GPU mapping, emulated on the CPU -----===//
//
// Replaces each CPU kernel the GPU mapping accepts by its mapped form, with
// the grid emulated by loops over blocks and threads, so that the end-to-end
// suite checks the mapping's results on a machine without a GPU. The mapped
// kernels have no barrier, so running the threads one after the other is
// exact.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fw {
#define GEN_PASS_DEF_TESTGPUMAPPINGONCPUPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

struct TestGPUMappingOnCPUPass
    : public fw::impl::TestGPUMappingOnCPUPassBase<TestGPUMappingOnCPUPass> {
  using TestGPUMappingOnCPUPassBase::TestGPUMappingOnCPUPassBase;

  /// Replaces the body of `kernel` by its GPU mapping run on an emulated
  /// grid; leaves it alone when the mapping does not accept it.
  LogicalResult emulate(func::FuncOp kernel) {
    if (getKernelLinalgOps(kernel).empty())
      return success();
    Location loc = kernel.getLoc();
    // The mapping works on a gpu.func in a gpu.module.
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    OpBuilder b = OpBuilder::atBlockEnd(scratch->getBody());
    auto module = gpu::GPUModuleOp::create(b, loc, "emulated");
    b.setInsertionPointToStart(module.getBody());
    auto func = gpu::GPUFuncOp::create(b, loc, kernel.getName(),
                                       kernel.getFunctionType());
    Block &entry = func.getBody().front();
    IRMapping toGpu;
    toGpu.map(kernel.getArguments(), entry.getArguments());
    b.setInsertionPointToEnd(&entry);
    for (Operation &op : kernel.getBody().front().without_terminator())
      b.clone(op, toGpu);
    gpu::ReturnOp::create(b, loc);
    FailureOr<bool> mapped = mapKernelToGrid(func);
    if (failed(mapped))
      return kernel.emitOpError("could not map the kernel onto a grid");
    if (!*mapped)
      return success();

    // The new body: the thread-private scalars once, then every thread of
    // every block in turn.
    Block &body = kernel.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      op.erase();
    b.setInsertionPointToEnd(&body);
    IRMapping toCpu;
    toCpu.map(entry.getArguments(), kernel.getArguments());
    for (auto alloca : entry.getOps<memref::AllocaOp>())
      b.clone(*alloca, toCpu);
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    Value grid = arith::ConstantIndexOp::create(b, loc, gridSize);
    Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
    auto blocks = scf::ForOp::create(b, loc, c0, grid, c1);
    b.setInsertionPointToStart(blocks.getBody());
    auto threads = scf::ForOp::create(b, loc, c0, block, c1);
    b.setInsertionPointToStart(threads.getBody());
    for (Operation &op : entry.without_terminator()) {
      if (isa<memref::AllocaOp>(op))
        continue;
      Value replacement;
      if (isa<gpu::ThreadIdOp>(op))
        replacement = threads.getInductionVar();
      else if (isa<gpu::BlockIdOp>(op))
        replacement = blocks.getInductionVar();
      else if (isa<gpu::BlockDimOp>(op))
        replacement = block;
      else if (isa<gpu::GridDimOp>(op))
        replacement = grid;
      if (replacement) {
        toCpu.map(op.getResult(0), replacement);
        continue;
      }
      b.clone(op, toCpu);
    }
    b.setInsertionPointToEnd(&body);
    func::ReturnOp::create(b, loc);
    return success();
  }

  void runOnOperation() override {
    for (auto exe : getOperation().getOps<ExecutableOp>())
      for (auto variant : exe.getOps<VariantOp>()) {
        if (!isa<CPUTargetAttr>(variant.getTarget()))
          continue;
        auto kernel =
            variant.getInnerModule().lookupSymbol<func::FuncOp>(exe.getSymName());
        if (kernel && !kernel.isExternal() && failed(emulate(kernel)))
          return signalPassFailure();
      }
  }
};

} // namespace
