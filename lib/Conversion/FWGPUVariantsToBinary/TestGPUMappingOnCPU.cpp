//===- TestGPUMappingOnCPU.cpp - The GPU mapping, emulated on the CPU -----===//
//
// Replaces each CPU kernel the GPU mapping accepts by its mapped form, with
// the grid emulated by loops over blocks and threads, so that the end-to-end
// suite checks the mapping's results on a machine without a GPU. Threads run
// one after the other between barriers, which is exact for kernels whose
// threads communicate only through workgroup memory across barriers.
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

bool containsBarrier(Operation *op) {
  return op->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

/// Writes a mapped gpu.func as CPU code: a loop over the blocks of the grid; in
/// it the block's code, where every run of code between barriers becomes a
/// loop over the block's threads. Loops that contain barriers must have the
/// same bounds in every thread (they do in the mapped kernels) and stay
/// outside the thread loops. A thread's private memory (its allocas) becomes
/// one slice per thread of a larger allocation; workgroup memory becomes one
/// allocation; values a thread computes before a barrier and uses after it
/// are computed again, which the mapped kernels allow (they are pure).
class Emulator {
public:
  Emulator(gpu::GPUFuncOp func, func::FuncOp kernel, int64_t grid, int64_t threads)
      : func(func), kernel(kernel), grid(grid), threads(threads) {}

  LogicalResult run() {
    Block &entry = func.getBody().front();
    Block &body = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockEnd(&body);
    Location loc = kernel.getLoc();
    uniform.map(entry.getArguments().take_front(func.getNumArguments()),
                kernel.getArguments());
    for (BlockArgument memory : func.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(memory.getType());
      uniform.map(memory, memref::AllocaOp::create(
                              b, loc, MemRefType::get(type.getShape(), type.getElementType())));
    }
    for (auto alloca : entry.getOps<memref::AllocaOp>()) {
      MemRefType type = alloca.getType();
      SmallVector<int64_t> shape = {threads};
      llvm::append_range(shape, type.getShape());
      privates.push_back(
          {alloca, memref::AllocaOp::create(b, loc, MemRefType::get(shape, type.getElementType()))});
    }
    c0 = arith::ConstantIndexOp::create(b, loc, 0);
    c1 = arith::ConstantIndexOp::create(b, loc, 1);
    gridValue = arith::ConstantIndexOp::create(b, loc, grid);
    threadsValue = arith::ConstantIndexOp::create(b, loc, threads);
    auto blocks = scf::ForOp::create(b, loc, c0, gridValue, c1);
    blockId = blocks.getInductionVar();
    outside = OpBuilder(blocks);
    OpBuilder inner = OpBuilder::atBlockBegin(blocks.getBody());
    if (failed(emitRegion(entry, inner)))
      return failure();
    func::ReturnOp::create(b, loc);
    return success();
  }

private:
  struct Private {
    memref::AllocaOp original;
    Value expanded;
  };
  struct Capture {
    Value value, slots;
  };

  /// A value every thread of a block computes the same way.
  bool isUniform(Operation &op) {
    if (!isMemoryEffectFree(&op) || op.getNumRegions() || isa<gpu::ThreadIdOp>(op))
      return false;
    return llvm::all_of(op.getOperands(), [&](Value v) { return uniform.contains(v); });
  }

  LogicalResult emitRegion(Block &block, OpBuilder &b) {
    SmallVector<Operation *> pending;
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>() || isa<memref::AllocaOp>(op))
        continue;
      if (isa<gpu::BarrierOp>(op)) {
        if (failed(flush(pending, b)))
          return failure();
        continue;
      }
      if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
        if (failed(emitAllReduce(reduce, pending, b)))
          return failure();
        continue;
      }
      Value special = isa<gpu::BlockIdOp>(op)     ? blockId
                      : isa<gpu::GridDimOp>(op)  ? gridValue
                      : isa<gpu::BlockDimOp>(op) ? threadsValue
                                                 : Value();
      if (special) {
        uniform.map(op.getResult(0), special);
        continue;
      }
      if (isUniform(op)) {
        b.clone(op, uniform);
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(op);
      if (loop && containsBarrier(loop)) {
        if (failed(flush(pending, b)))
          return failure();
        if (loop.getNumRegionIterArgs() || !uniform.contains(loop.getLowerBound()) ||
            !uniform.contains(loop.getUpperBound()) || !uniform.contains(loop.getStep()))
          return loop.emitOpError("has a barrier but differs between threads");
        auto copy = scf::ForOp::create(b, loop.getLoc(), uniform.lookup(loop.getLowerBound()),
                                       uniform.lookup(loop.getUpperBound()),
                                       uniform.lookup(loop.getStep()));
        uniform.map(loop.getInductionVar(), copy.getInductionVar());
        OpBuilder inner = OpBuilder::atBlockBegin(copy.getBody());
        if (failed(emitRegion(*loop.getBody(), inner)))
          return failure();
        continue;
      }
      if (containsBarrier(&op))
        return op.emitOpError("has a barrier where the emulation cannot place it");
      pending.push_back(&op);
    }
    return flush(pending, b);
  }

  /// Computes `v` again in the current thread, from the uniform values and the
  /// thread id.
  LogicalResult rematerialize(Value v, IRMapping &map, OpBuilder &b) {
    if (map.contains(v))
      return success();
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<gpu::ThreadIdOp>(def)) {
      map.map(v, currentThread);
      return success();
    }
    if (!def || !isMemoryEffectFree(def) || def->getNumRegions())
      return emitError(v.getLoc(), "a value crosses a barrier and cannot be recomputed: ")
             << (def ? def->getName().getStringRef() : StringRef("a block argument of "))
             << (def ? StringRef() : cast<BlockArgument>(v).getOwner()->getParentOp()->getName().getStringRef());
    for (Value operand : def->getOperands())
      if (failed(rematerialize(operand, map, b)))
        return failure();
    b.clone(*def, map);
    return success();
  }

  /// A reduction across the block: every thread's value goes into one slot
  /// per thread (at the end of the code before it), then the slots are
  /// combined in thread order into a value all threads share.
  LogicalResult emitAllReduce(gpu::AllReduceOp reduce, SmallVector<Operation *> &pending,
                              OpBuilder &b) {
    if (!reduce.getOp())
      return reduce.emitOpError("with a region is not emulated");
    Location loc = reduce.getLoc();
    Type type = reduce.getType();
    Value slots = memref::AllocaOp::create(outside, loc, MemRefType::get({threads}, type));
    captures.push_back({reduce.getValue(), slots});
    if (failed(flush(pending, b, /*always=*/true)))
      return failure();
    Value first = memref::LoadOp::create(b, loc, slots, ValueRange{c0});
    auto fold = scf::ForOp::create(b, loc, c1, threadsValue, c1, ValueRange{first});
    OpBuilder inner = OpBuilder::atBlockBegin(fold.getBody());
    Value acc = fold.getRegionIterArg(0);
    Value next = memref::LoadOp::create(inner, loc, slots, ValueRange{fold.getInductionVar()});
    bool isFloat = isa<FloatType>(type);
    using K = gpu::AllReduceOperation;
    Value combined;
    switch (*reduce.getOp()) {
    case K::ADD:
      combined = isFloat ? arith::AddFOp::create(inner, loc, acc, next).getResult()
                         : arith::AddIOp::create(inner, loc, acc, next).getResult();
      break;
    case K::MUL:
      combined = isFloat ? arith::MulFOp::create(inner, loc, acc, next).getResult()
                         : arith::MulIOp::create(inner, loc, acc, next).getResult();
      break;
    case K::MAXIMUMF: combined = arith::MaximumFOp::create(inner, loc, acc, next); break;
    case K::MINIMUMF: combined = arith::MinimumFOp::create(inner, loc, acc, next); break;
    case K::MAXNUMF: combined = arith::MaxNumFOp::create(inner, loc, acc, next); break;
    case K::MINNUMF: combined = arith::MinNumFOp::create(inner, loc, acc, next); break;
    case K::MAXSI: combined = arith::MaxSIOp::create(inner, loc, acc, next); break;
    case K::MINSI: combined = arith::MinSIOp::create(inner, loc, acc, next); break;
    case K::MAXUI: combined = arith::MaxUIOp::create(inner, loc, acc, next); break;
    case K::MINUI: combined = arith::MinUIOp::create(inner, loc, acc, next); break;
    case K::AND: combined = arith::AndIOp::create(inner, loc, acc, next); break;
    case K::OR: combined = arith::OrIOp::create(inner, loc, acc, next); break;
    case K::XOR: combined = arith::XOrIOp::create(inner, loc, acc, next); break;
    }
    scf::YieldOp::create(inner, loc, combined);
    uniform.map(reduce.getResult(), fold.getResult(0));
    return success();
  }

  /// Runs the pending operations for every thread of the block, in turn.
  LogicalResult flush(SmallVector<Operation *> &pending, OpBuilder &b, bool always = false) {
    if (pending.empty() && !always)
      return success();
    if (pending.empty()) {
      // Only values to capture: a loop over the threads all the same.
      Location loc = captures.back().value.getLoc();
      auto loop = scf::ForOp::create(b, loc, c0, threadsValue, c1);
      OpBuilder t = OpBuilder::atBlockBegin(loop.getBody());
      IRMapping map = uniform;
      currentThread = loop.getInductionVar();
      return storeCaptures(map, t);
    }
    Location loc = pending.front()->getLoc();
    auto loop = scf::ForOp::create(b, loc, c0, threadsValue, c1);
    OpBuilder t = OpBuilder::atBlockBegin(loop.getBody());
    IRMapping map = uniform;
    Value thread = loop.getInductionVar();
    currentThread = thread;
    for (Operation *root : pending)
      root->walk([&](gpu::ThreadIdOp id) { map.map(id.getResult(), thread); });
    // This thread's slice of each private allocation.
    for (Private &p : privates) {
      MemRefType type = p.original.getType();
      int64_t rank = type.getRank();
      SmallVector<OpFoldResult> offsets(rank + 1, t.getIndexAttr(0)), sizes, strides(rank + 1, t.getIndexAttr(1));
      offsets[0] = thread;
      sizes.push_back(t.getIndexAttr(1));
      for (int64_t d : type.getShape())
        sizes.push_back(t.getIndexAttr(d));
      auto reduced = memref::SubViewOp::inferRankReducedResultType(
          type.getShape(), cast<MemRefType>(p.expanded.getType()), offsets, sizes, strides);
      map.map(p.original.getResult(),
              memref::SubViewOp::create(t, loc, cast<MemRefType>(reduced), p.expanded, offsets,
                                        sizes, strides));
    }
    // Values from before a barrier that these operations use.
    llvm::SmallPtrSet<Operation *, 16> inside;
    for (Operation *root : pending)
      root->walk([&](Operation *op) { inside.insert(op); });
    for (Operation *root : pending) {
      WalkResult result = root->walk([&](Operation *op) {
        for (Value v : op->getOperands()) {
          Operation *def = v.getDefiningOp();
          if ((def && inside.contains(def)) || map.contains(v))
            continue;
          if (auto arg = dyn_cast<BlockArgument>(v))
            if (inside.contains(arg.getOwner()->getParentOp()))
              continue;
          if (failed(rematerialize(v, map, t)))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (result.wasInterrupted())
        return failure();
    }
    for (Operation *op : pending)
      if (!isa<gpu::ThreadIdOp>(op))
        t.clone(*op, map);
    pending.clear();
    return storeCaptures(map, t);
  }

  /// Each thread's value for the block reductions that follow.
  LogicalResult storeCaptures(IRMapping &map, OpBuilder &t) {
    for (const Capture &c : captures) {
      if (failed(rematerialize(c.value, map, t)))
        return failure();
      memref::StoreOp::create(t, c.value.getLoc(), map.lookup(c.value), c.slots,
                              ValueRange{currentThread});
    }
    captures.clear();
    return success();
  }

  gpu::GPUFuncOp func;
  func::FuncOp kernel;
  int64_t grid, threads;
  IRMapping uniform;
  SmallVector<Private> privates;
  Value c0, c1, gridValue, threadsValue, blockId, currentThread;
  OpBuilder outside{kernel.getContext()}; // before the loop over blocks
  SmallVector<Capture> captures;
};

struct TestGPUMappingOnCPUPass
    : public fw::impl::TestGPUMappingOnCPUPassBase<TestGPUMappingOnCPUPass> {
  using TestGPUMappingOnCPUPassBase::TestGPUMappingOnCPUPassBase;

  /// The shapes the mapping is asked for: the knobs, else the defaults.
  GPUTiling tiling;

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
    FailureOr<GridMapping> mapped = mapKernelToGrid(func, tiling);
    if (failed(mapped))
      return kernel.emitOpError("could not map the kernel onto a grid");
    if (*mapped == GridMapping::None)
      return success();
    stopThreadLoopsAtFailedChecks(func, kernel, *mapped);

    // A mapping made for a block size (the tiled matmul) runs with it.
    int64_t threads = blockSize;
    if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
      threads = (*known)[0];
    Block &body = kernel.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      op.erase();
    kernel->setAttr(kEmulatedGPUAttrName, UnitAttr::get(kernel.getContext()));
    return Emulator(func, kernel, gridSize, threads).run();
  }

  void runOnOperation() override {
    llvm::Expected<TuningConfig> config = parseTuningConfig(knobs);
    if (!config) {
      getOperation().emitError("invalid GPU knobs '")
          << knobs << "': " << llvm::toString(config.takeError());
      return signalPassFailure();
    }
    tiling = getGPUTiling(*config);
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
