//===- GPUMapping.cpp - Kernels onto a GPU grid ----------------------------===//
//
// A kernel's linalg ops become loop nests; nests with the same bounds fuse,
// so a fill, the reduction that accumulates into it and an elementwise
// epilogue run per output element in one thread; an intermediate touched only
// at the current element becomes a private scalar (a register); each
// remaining nest becomes a grid-stride loop, and work without a parallel loop
// runs in the first thread. There is no barrier across the grid, so the
// remaining nests must be independent. Matmuls take the tiled path of
// GPUContraction.cpp instead, and kernels of row reductions the block-per-row
// path of GPURows.cpp.
//
//===----------------------------------------------------------------------===//

#include "GPUMapping.h"

#include "fw/Dialect/FW/Transforms/StopAtFailedChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fw;

SmallVector<linalg::LinalgOp> mlir::fw::getKernelLinalgOps(func::FuncOp kernel) {
  SmallVector<linalg::LinalgOp> ops;
  if (!kernel || kernel.isExternal())
    return {};
  for (Operation &op : kernel.getBody().front()) {
    if (isMemoryEffectFree(&op) ||
        isa<func::ReturnOp, memref::AllocOp, memref::DeallocOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics())
      return {};
    ops.push_back(linalgOp);
  }
  return ops;
}

Value mlir::fw::rootMemory(Value v) {
  if (auto memref = dyn_cast<TypedValue<MemRefType>>(v))
    return memref::skipViewLikeOps(memref);
  return v;
}


/// Whether two memrefs may overlap: distinct arguments and distinct
/// allocations do not (the runtime binds distinct buffers).
static bool mayAlias(Value a, Value b) {
  Value ra = rootMemory(a), rb = rootMemory(b);
  auto known = [](Value v) {
    return isa<BlockArgument>(v) || v.getDefiningOp<memref::AllocOp>() ||
           v.getDefiningOp<memref::AllocaOp>();
  };
  return !known(ra) || !known(rb) || ra == rb;
}

/// Turns each allocation of the kernel (an intermediate such as a GEMM's
/// accumulator before its epilogue) into one private scalar per element, when
/// only one fused loop nest touches it and only at the element of the current
/// iteration. Fails for any other allocation: a kernel does not allocate
/// device memory.
static LogicalResult privatizeAllocations(gpu::GPUFuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (memref::AllocOp alloc : allocs) {
    scf::ParallelOp owner;
    SmallVector<Operation *> deallocs;
    for (Operation *user : alloc->getUsers()) {
      if (isa<memref::DeallocOp>(user)) {
        deallocs.push_back(user);
        continue;
      }
      auto parallel = user->getParentOfType<scf::ParallelOp>();
      if (!parallel || (owner && parallel != owner))
        return failure();
      owner = parallel;
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(user))
        indices = load.getIndices();
      else if (auto store = dyn_cast<memref::StoreOp>(user);
               store && store.getMemRef() == alloc.getResult())
        indices = store.getIndices();
      else
        return failure();
      if (indices != ValueRange(parallel.getInductionVars()))
        return failure();
    }
    if (!owner)
      return failure();
    // At the function's entry, where LLVM turns it into a register: each
    // thread handles its elements one after the other.
    OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
    auto scalar = memref::AllocaOp::create(
        b, alloc.getLoc(), MemRefType::get({}, alloc.getType().getElementType()));
    for (Operation *user : llvm::to_vector(alloc->getUsers())) {
      b.setInsertionPoint(user);
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        load.replaceAllUsesWith(
            memref::LoadOp::create(b, load.getLoc(), scalar, ValueRange{})
                .getResult());
        load.erase();
      } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
        memref::StoreOp::create(b, store.getLoc(), store.getValueToStore(),
                                scalar, ValueRange{});
        store.erase();
      }
    }
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    alloc.erase();
  }
  return success();
}

/// The kernel arguments a phase (a loop nest, or the work of one thread) reads
/// and writes; failure when it touches memory that is not an argument's.
static LogicalResult
collectAccesses(ArrayRef<Operation *> phase,
                llvm::SmallDenseSet<BlockArgument> &reads,
                llvm::SmallDenseSet<BlockArgument> &writes) {
  for (Operation *root : phase) {
    WalkResult result = root->walk([&](Operation *op) {
      if (isMemoryEffectFree(op) || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface)
        return WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (auto &effect : effects) {
        // A thread's private scalars (privatizeAllocations) are its own.
        Value memory = rootMemory(effect.getValue());
        if (memory && memory.getDefiningOp<memref::AllocaOp>())
          continue;
        BlockArgument arg = dyn_cast_or_null<BlockArgument>(memory);
        if (!arg)
          return WalkResult::interrupt();
        if (isa<MemoryEffects::Write>(effect.getEffect()))
          writes.insert(arg);
        else if (isa<MemoryEffects::Read>(effect.getEffect()))
          reads.insert(arg);
        else
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}

/// Iterations of an elementwise nest a thread runs per trip of its grid-stride
/// loop. One iteration has few loads in flight per thread (two for an add), too
/// few bytes in flight to cover the memory latency at full bandwidth; several
/// iterations' loads issued together are.
static constexpr int64_t kGridStrideUnroll = 4;

/// Whether `body` is straight-line code (no regions) whose memory accesses
/// are loads, then stores: its iterations' loads can all be issued before
/// their stores. Iterations of an scf.parallel are independent, so only the
/// order within one iteration matters. (An unrolled iteration past the end
/// reads the last element again, possibly while the thread that owns it
/// stores it in place; the value read is thrown away.)
static bool storesFollowLoads(Block &body) {
  bool stored = false;
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() != 0)
      return false;
    if (isa<memref::StoreOp>(op)) {
      stored = true;
      continue;
    }
    if (isa<memref::LoadOp>(op)) {
      if (stored)
        return false;
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return false;
  }
  return stored;
}

/// Spreads the loop nests of `func` over the grid. Each top-level scf.parallel
/// becomes a grid-stride loop over its linearized iteration space; the other
/// work (reductions to a scalar, stores to rank-0 buffers) runs in the first
/// thread. Without a barrier across the grid, these phases must not depend on
/// each other: none may write an argument another reads or writes. Adjacent
/// nests with the same bounds are fused first (a fill with the reduction that
/// accumulates into it), so that their order holds per element.
static LogicalResult distributeOverGrid(gpu::GPUFuncOp func) {
  Block &entry = func.getBody().front();
  scf::naivelyFuseParallelOps(func.getBody(), mayAlias);
  if (failed(privatizeAllocations(func)))
    return failure();
  Operation *terminator = entry.getTerminator();
  SmallVector<scf::ParallelOp> parallels;
  SmallVector<Operation *> serial, everywhere;
  for (Operation &op : entry) {
    if (&op == terminator || isMemoryEffectFree(&op) || isa<memref::AllocaOp>(op))
      continue;
    if (auto parallel = dyn_cast<scf::ParallelOp>(op))
      parallels.push_back(parallel);
    else if (hasEffect<MemoryEffects::Read>(&op) && !hasEffect<MemoryEffects::Write>(&op) &&
             !hasEffect<MemoryEffects::Allocate>(&op) && !hasEffect<MemoryEffects::Free>(&op))
      everywhere.push_back(&op); // a scalar load the loops use: every thread does it
    else
      serial.push_back(&op);
  }
  for (Operation *op : serial)
    for (Value result : op->getResults())
      if (!result.use_empty())
        return failure();
  SmallVector<SmallVector<Operation *>> phases;
  for (scf::ParallelOp parallel : parallels)
    phases.push_back({parallel.getOperation()});
  if (!serial.empty())
    phases.push_back(serial);
  if (!everywhere.empty())
    phases.push_back(everywhere);
  SmallVector<llvm::SmallDenseSet<BlockArgument>> reads(phases.size()),
      writes(phases.size());
  for (auto [i, phase] : llvm::enumerate(phases))
    if (failed(collectAccesses(phase, reads[i], writes[i])))
      return failure();
  for (size_t i = 0; i < phases.size(); ++i)
    for (size_t j = 0; j < phases.size(); ++j)
      if (i != j)
        for (BlockArgument arg : writes[i])
          if (reads[j].contains(arg) || writes[j].contains(arg))
            return failure();

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

  if (!serial.empty()) {
    b.setInsertionPoint(terminator);
    Value isFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first, c0);
    auto guard = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
    for (Operation *op : serial)
      op->moveBefore(guard.thenBlock()->getTerminator());
  }

  for (scf::ParallelOp parallel : parallels) {
    b.setInsertionPoint(parallel);
    // Extents of the parallel dimensions and their product.
    SmallVector<Value> extents;
    Value total = c1;
    for (auto [lb, ub, step] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep())) {
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      Value extent = arith::CeilDivUIOp::create(b, loc, span, step);
      extents.push_back(extent);
      total = arith::MulIOp::create(b, loc, total, extent);
    }
    // A straight-line body whose stores all follow its loads runs
    // kGridStrideUnroll iterations per trip, their loads first.
    int64_t unroll = storesFollowLoads(*parallel.getBody()) ? kGridStrideUnroll : 1;
    Value step = arith::MulIOp::create(b, loc, stride,
                                       arith::ConstantIndexOp::create(b, loc, unroll));
    auto loop = scf::ForOp::create(b, loc, first, total, step);
    b.setInsertionPointToStart(loop.getBody());
    Value last = arith::SubIOp::create(b, loc, total, c1);
    SmallVector<IRMapping> maps(unroll);
    SmallVector<Value> inside(unroll);
    for (int64_t u = 0; u < unroll; ++u) {
      // Iteration u of the trip; past the end (u > 0 only) it reads the last
      // element again and stores nothing.
      Value flat = loop.getInductionVar();
      if (u > 0) {
        flat = arith::AddIOp::create(
            b, loc, flat,
            arith::MulIOp::create(b, loc, stride, arith::ConstantIndexOp::create(b, loc, u)));
        inside[u] = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, flat, total);
        flat = arith::MinUIOp::create(b, loc, flat, last);
      }
      // Delinearize, the last dimension fastest.
      SmallVector<Value> ivs(extents.size());
      Value rest = flat;
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
      maps[u].map(parallel.getInductionVars(), ivs);
      for (Operation &op : parallel.getBody()->without_terminator()) {
        if (unroll > 1 && isa<memref::StoreOp>(op))
          continue;
        b.clone(op, maps[u]);
      }
    }
    // The stores of the unrolled iterations, after all their loads.
    if (unroll > 1)
      for (int64_t u = 0; u < unroll; ++u) {
        OpBuilder::InsertionGuard guard(b);
        if (u > 0) {
          auto branch = scf::IfOp::create(b, loc, inside[u], /*withElseRegion=*/false);
          b.setInsertionPoint(branch.thenBlock()->getTerminator());
        }
        for (Operation &op : parallel.getBody()->without_terminator())
          if (isa<memref::StoreOp>(op))
            b.clone(op, maps[u]);
      }
    parallel.erase();
  }
  return success();
}

Value mlir::fw::inlineLinalgBody(OpBuilder &b, linalg::LinalgOp op, ArrayRef<Value> args,
                                 ArrayRef<Value> loops) {
  Block *body = op.getBlock();
  IRMapping map;
  for (auto [arg, value] : llvm::zip(body->getArguments(), args))
    if (value)
      map.map(arg, value);
  // Outside the op, its loop indices are the values it runs at: those of its
  // body are mapped to them, those nested deeper replaced once cloned.
  SmallVector<Operation *> cloned;
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    cloned.push_back(b.clone(inner, map));
  }
  for (Operation *inner : cloned)
    inner->walk([&](linalg::IndexOp index) {
      index.replaceAllUsesWith(loops[index.getDim()]);
      index.erase();
    });
  return map.lookupOrDefault(body->getTerminator()->getOperand(0));
}

LogicalResult mlir::fw::eraseIntermediate(memref::AllocOp alloc) {
  SmallVector<OpFoldResult> sizes = alloc.getMixedSizes();
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
    if (auto dim = dyn_cast<memref::DimOp>(user)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index)
        return failure();
      OpBuilder at(dim);
      dim.replaceAllUsesWith(getValueOrCreateConstantIndexOp(at, dim.getLoc(), sizes[*index]));
    } else if (!isa<memref::DeallocOp>(user)) {
      return failure();
    }
    user->erase();
  }
  alloc.erase();
  return success();
}

/// A product feeding a sum may become one FMA, as the CPU kernels do.
static void allowContraction(gpu::GPUFuncOp func) {
  func.walk([](arith::ArithFastMathInterface op) {
    auto flags = op.getFastMathFlagsAttr();
    auto contract = arith::FastMathFlagsAttr::get(
        op->getContext(),
        (flags ? flags.getValue() : arith::FastMathFlags::none) |
            arith::FastMathFlags::contract);
    op->setAttr(op.getFastMathAttrName(), contract);
  });
}

namespace {
/// Which buffer dimensions the kernel's ops prove equal: a loop dimension
/// indexes each operand it appears in, so those extents are the same. Loop
/// bounds taken from different buffers then become one value, and loop nests
/// over dynamic shapes can fuse.
class EqualExtents {
public:
  void addOp(linalg::LinalgOp op) {
    SmallVector<std::pair<Value, unsigned>> byLoop(op.getNumLoops(), {Value(), 0});
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (unsigned r = 0; r < map.getNumResults(); ++r) {
        auto dim = dyn_cast<AffineDimExpr>(map.getResult(r));
        if (!dim)
          continue;
        std::pair<Value, unsigned> key{operand.get(), r};
        auto &first = byLoop[dim.getPosition()];
        if (first.first)
          classes.unionSets(first, key);
        else
          classes.insert(first = key);
      }
    }
  }

  /// Replaces each `memref.dim` at the top of `block` by the first one of its
  /// class (which comes before it, so it dominates).
  void unify(Block &block) {
    llvm::DenseMap<std::pair<Value, unsigned>, Value> representative;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto dim = dyn_cast<memref::DimOp>(op);
      std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
      if (!index)
        continue;
      std::pair<Value, unsigned> key{dim.getSource(), static_cast<unsigned>(*index)};
      if (!classes.contains(key))
        continue;
      Value &rep = representative[classes.getLeaderValue(key)];
      if (!rep) {
        rep = dim.getResult();
        continue;
      }
      dim.replaceAllUsesWith(rep);
      dim.erase();
    }
  }

private:
  llvm::EquivalenceClasses<std::pair<Value, unsigned>> classes;
};
} // namespace

FailureOr<GridMapping> mlir::fw::mapKernelToGrid(gpu::GPUFuncOp func,
                                                 const GPUTiling &tiling,
                                                 bool *sameAsDefaults) {
  MLIRContext *ctx = func.getContext();
  FailureOr<bool> gemm = mapContractionToGrid(func, tiling, sameAsDefaults);
  if (failed(gemm))
    return failure();
  if (*gemm) {
    allowContraction(func);
    return GridMapping::Gemm;
  }
  FailureOr<bool> rows = mapRowsToGrid(func, tiling.block);
  if (failed(rows))
    return failure();
  if (*rows) {
    allowContraction(func);
    return GridMapping::Rows;
  }
  SmallVector<linalg::LinalgOp> cloned;
  func.walk([&](linalg::LinalgOp l) { cloned.push_back(l); });
  EqualExtents extents;
  for (linalg::LinalgOp op : cloned)
    extents.addOp(op);
  IRRewriter rewriter(ctx);
  for (linalg::LinalgOp op : cloned) {
    // Parallel dimensions outermost (a reduction over the first dimension, a
    // column sum), so that they become the nest's parallel loop.
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
      SmallVector<unsigned> order;
      for (auto [d, type] : llvm::enumerate(generic.getIteratorTypesArray()))
        if (type == utils::IteratorType::parallel)
          order.push_back(d);
      for (auto [d, type] : llvm::enumerate(generic.getIteratorTypesArray()))
        if (type != utils::IteratorType::parallel)
          order.push_back(d);
      if (!llvm::is_sorted(order)) {
        rewriter.setInsertionPoint(generic);
        FailureOr<linalg::GenericOp> reordered =
            linalg::interchangeGenericOp(rewriter, generic, order);
        if (failed(reordered))
          return failure();
        op = *reordered;
      }
    }
    rewriter.setInsertionPoint(op);
    if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
      return failure();
    rewriter.eraseOp(op);
  }
  // Identical bounds become identical values, so that loops can fuse.
  {
    PassManager cleanup(ctx, gpu::GPUFuncOp::getOperationName());
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());
    if (failed(cleanup.run(func)))
      return failure();
  }
  // Equal extents of different buffers become one value too.
  extents.unify(func.getBody().front());
  if (failed(distributeOverGrid(func)))
    return GridMapping::None;
  allowContraction(func);
  return GridMapping::Loops;
}

/// Whether `v` may come from data the kernel reads (a load, a value carried
/// by a loop): a for loop whose bounds do not is as long as the sizes and the
/// grid say (the GPU mapping's own loops, a tile's), whatever fails.
static bool mayComeFromData(Value v, llvm::DenseMap<Value, bool> &known,
                            unsigned depth = 0) {
  if (depth > 32)
    return true;
  if (auto it = known.find(v); it != known.end())
    return it->second; // Shared index arithmetic is looked at once.
  auto from = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value u) {
      return mayComeFromData(u, known, depth + 1);
    });
  };
  bool result;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    auto loop = dyn_cast<scf::ForOp>(owner);
    if (isa<gpu::GPUFuncOp>(owner))
      result = false; // A buffer or a size the kernel is given.
    else
      result = !loop || arg != loop.getInductionVar() ||
               from({loop.getLowerBound(), loop.getUpperBound(),
                     loop.getStep()});
  } else {
    Operation *def = v.getDefiningOp();
    result = def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
             from(def->getOperands());
  }
  known[v] = result;
  return result;
}

void mlir::fw::stopThreadLoopsAtFailedChecks(gpu::GPUFuncOp func,
                                             func::FuncOp kernel,
                                             GridMapping mapping) {
  if (!kernel->hasAttr("fw.error_word"))
    return;
  // The kernel's own arguments (the workgroup memory the mapping added comes
  // after them).
  Value word;
  for (BlockArgument arg :
       func.getArguments().take_front(func.getNumArguments()))
    if (isa<MemRefType>(arg.getType()))
      word = arg;
  if (!word || failuresOf(word).empty())
    return;
  // While loops, and for loops whose bounds may come from the data; none
  // that holds a barrier.
  SmallVector<Operation *> loops;
  llvm::DenseMap<Value, bool> known;
  func.walk([&](Operation *op) {
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!isa<scf::WhileOp>(op) &&
        !(forOp && llvm::any_of(ValueRange{forOp.getLowerBound(),
                                           forOp.getUpperBound(),
                                           forOp.getStep()},
                                [&](Value b) {
                                  return mayComeFromData(b, known);
                                })))
      return;
    if (!op->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      loops.push_back(op);
  });
  if (loops.empty())
    return;
  IRRewriter rewriter(func.getContext());
  Location loc = func.getLoc();
  // Private memory: one flag per thread (an alloca of the entry block).
  rewriter.setInsertionPointToStart(&func.getBody().front());
  Value stopped = memref::AllocaOp::create(
      rewriter, loc, MemRefType::get({}, rewriter.getI1Type()));
  memref::StoreOp::create(rewriter, loc,
                          arith::ConstantIntOp::create(rewriter, loc, 0, 1),
                          stopped);
  // Threads of a GEMM or a row kernel share what they read through
  // workgroup memory: one may loop on a 0 another's failed check read, so
  // their while loops also read the error word.
  stopLoopsAtFailures(rewriter, word, stopped, loops,
                      /*readWord=*/mapping != GridMapping::Loops);
}
