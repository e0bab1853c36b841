//===- GPUContraction.cpp - Matmuls onto a GPU grid, tiled ----------------===//
//
// A kernel made of a matmul (any operand layout), optionally elementwise ops
// computing its operands or the starting value of its accumulator (a fill, a
// copy, a scaling of A) and one elementwise epilogue, becomes a tiled GEMM: each block
// computes a tile_m x tile_n tile of the result (64x64 by default), staging
// tile_m x tile_k slices of A and tile_k x tile_n slices of B (tile_k 16) in
// workgroup memory (shared memory, LDS) between barriers, and each of its
// threads accumulates a thread_m x thread_n micro-tile (4x4: 256 threads) in
// registers; the epilogue is applied to the micro-tile before it is stored.
// A's slice is kept k-major (transposed, its rows padded by kAPad elements), so
// that a thread reads the thread_m values of A it needs at one k, like the
// thread_n values of B, from consecutive addresses (vector loads where the
// rows are 16-byte aligned: f32, f64); threads
// of a warp that share a row of the block read the same values (broadcast). The next slices are read from global memory
// into registers while the current ones are multiplied (one register stage of
// double buffering), so the loads' latency overlaps the arithmetic; the
// tile_k steps of a slice are unrolled.
// Blocks walk the tiles with a grid-stride loop, so any grid computes the
// whole result. The tiles are knobs of the variant (fw/Target/TuningConfig.h).
//
//===----------------------------------------------------------------------===//

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// The parts of a kernel this mapping handles.
struct Contraction {
  linalg::LinalgOp matmul;   // C(i,j) += A(.,.) * B(.,.)
  linalg::LinalgOp epilogue; // optional: elementwise, reads C at (i,j)
  /// Elementwise ops before the matmul that compute A, B (intermediates) or
  /// the starting value of C (a fill, a copy): computed per element where the
  /// matmul reads it, instead of through memory.
  llvm::SmallDenseMap<Value, linalg::LinalgOp> producers;
  SmallVector<linalg::LinalgOp> before;
  unsigned dimI = 0, dimJ = 0, dimK = 0; // the matmul's loop dimensions
  unsigned epilogueInput = 0;            // the epilogue's operand that reads C
};

/// Whether `map` only permutes or drops dimensions.
bool isPlainAccess(AffineMap map) { return map.isProjectedPermutation(/*allowZeroInResults=*/false); }

FailureOr<Contraction> match(gpu::GPUFuncOp func) {
  Contraction c;
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : func.getBody().front()) {
    if (isMemoryEffectFree(&op) || isa<gpu::ReturnOp, memref::AllocOp, memref::DeallocOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return failure();
    ops.push_back(linalgOp);
  }
  // Elementwise producers, the matmul, at most one epilogue.
  size_t at = 0;
  while (at < ops.size() && ops[at].getNumReductionLoops() == 0)
    c.before.push_back(ops[at++]);
  if (at >= ops.size())
    return failure();
  c.matmul = ops[at++];
  if (at < ops.size())
    c.epilogue = ops[at++];
  if (at != ops.size())
    return failure();

  // The matmul: two parallel dimensions and one reduction, a multiply-add
  // body, plain operand accesses, a 2-D accumulator indexed (i, j).
  linalg::LinalgOp mm = c.matmul;
  if (mm.getNumLoops() != 3 || mm.getNumDpsInputs() != 2 || mm.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(mm))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(mm);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1 ||
      !dims->batch.empty())
    return failure();
  c.dimI = dims->m[0];
  c.dimJ = dims->n[0];
  c.dimK = dims->k[0];
  SmallVector<AffineMap> maps = mm.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!isPlainAccess(map))
      return failure();
  AffineMap cMap = maps[2];
  if (cMap.getNumResults() != 2 || cMap.getDimPosition(0) != c.dimI ||
      cMap.getDimPosition(1) != c.dimJ)
    return failure();
  Value acc = mm.getDpsInitOperand(0)->get();
  if (cast<MemRefType>(acc.getType()).getRank() != 2)
    return failure();
  for (OpOperand &operand : mm->getOpOperands())
    if (!cast<MemRefType>(operand.get().getType()).getLayout().isIdentity() &&
        !isa<StridedLayoutAttr>(cast<MemRefType>(operand.get().getType()).getLayout()))
      return failure();

  // Producers: 2-D elementwise ops writing A, B or C whole (identity output
  // map), each operand computed once, from memory no op of the kernel writes.
  Value A = mm.getDpsInputOperand(0)->get(), B = mm.getDpsInputOperand(1)->get();
  llvm::SmallDenseSet<Value> written;
  for (linalg::LinalgOp op : ops)
    written.insert(fw::rootMemory(op.getDpsInitOperand(0)->get()));
  for (linalg::LinalgOp op : c.before) {
    Value out = op.getDpsInitOperand(0)->get();
    if (op.getNumLoops() != 2 || op.getNumDpsInits() != 1 ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        (out != A && out != B && out != acc) || c.producers.count(out))
      return failure();
    if (out != acc && !out.getDefiningOp<memref::AllocOp>())
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!isa<MemRefType>(input->get().getType()))
        continue;
      if (!isPlainAccess(op.getMatchingIndexingMap(input)) ||
          written.contains(fw::rootMemory(input->get())))
        return failure();
    }
    c.producers[out] = op;
  }
  // An intermediate A or B has no other users.
  for (Value operand : {A, B})
    if (auto alloc = operand.getDefiningOp<memref::AllocOp>()) {
      if (!c.producers.count(operand))
        return failure();
      for (Operation *user : alloc->getUsers())
        if (user != mm.getOperation() && user != c.producers[operand].getOperation() &&
            !isa<memref::DeallocOp, memref::DimOp>(user))
          return failure();
    }

  if (c.epilogue) {
    linalg::LinalgOp ep = c.epilogue;
    if (ep.getNumLoops() != 2 || ep.getNumParallelLoops() != 2 || ep.getNumDpsInits() != 1)
      return failure();
    unsigned readers = 0;
    for (OpOperand *input : ep.getDpsInputOperands()) {
      AffineMap map = ep.getMatchingIndexingMap(input);
      if (!isPlainAccess(map))
        return failure();
      if (input->get() == acc) {
        if (!map.isIdentity())
          return failure();
        c.epilogueInput = input->getOperandNumber();
        ++readers;
      } else if (fw::rootMemory(input->get()) == fw::rootMemory(acc)) {
        return failure();
      }
    }
    OpOperand *out = ep.getDpsInitOperand(0);
    if (readers != 1 || !ep.getMatchingIndexingMap(out).isIdentity() ||
        fw::rootMemory(out->get()) == fw::rootMemory(acc))
      return failure();
    // The accumulator is an intermediate nobody else sees.
    if (!acc.getDefiningOp<memref::AllocOp>())
      return failure();
  } else if (!isa<BlockArgument>(fw::rootMemory(acc))) {
    return failure();
  }
  // An intermediate accumulator must start from a producer and have no other
  // users.
  if (auto alloc = acc.getDefiningOp<memref::AllocOp>()) {
    if (!c.producers.count(acc))
      return failure();
    for (Operation *user : alloc->getUsers())
      if (user != c.producers[acc].getOperation() && user != mm.getOperation() &&
          user != c.epilogue.getOperation() && !isa<memref::DeallocOp, memref::DimOp>(user))
        return failure();
  }
  return c;
}

/// Builds the tiled kernel in place of the contraction's ops.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }

  /// The indices of `map`'s results for the loop values `loops`.
  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> loops) {
    SmallVector<Value> result;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      result.push_back(loops[map.getDimPosition(r)]);
    return result;
  }

  /// memref[indices] when `inBounds`, else zero of the element type.
  Value guardedLoad(Value memref, ValueRange indices, Value inBounds) {
    Type type = cast<MemRefType>(memref.getType()).getElementType();
    auto branch = scf::IfOp::create(b, loc, type, inBounds, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, memref::LoadOp::create(b, loc, memref, indices).getResult());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc,
                         arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult());
    return branch.getResult(0);
  }

  /// The element of `buffer` at `indices` when `inBounds`, else zero: computed
  /// by its producer when it has one, else loaded.
  Value element(const Contraction &c, Value buffer, SmallVector<Value> indices,
                Value inBounds) {
    auto it = c.producers.find(buffer);
    if (it == c.producers.end())
      return guardedLoad(buffer, indices, inBounds);
    linalg::LinalgOp producer = it->second;
    Type type = cast<MemRefType>(buffer.getType()).getElementType();
    auto branch = scf::IfOp::create(b, loc, type, inBounds, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    SmallVector<Value> args;
    for (OpOperand &operand : producer->getOpOperands()) {
      Value arg = producer.getMatchingBlockArgument(&operand);
      if (&operand == producer.getDpsInitOperand(0) || arg.use_empty()) {
        args.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(arg.getType())));
        continue;
      }
      if (!isa<MemRefType>(operand.get().getType())) {
        args.push_back(operand.get());
        continue;
      }
      args.push_back(memref::LoadOp::create(
          b, loc, operand.get(),
          this->indices(producer.getMatchingIndexingMap(&operand), indices)));
    }
    // Its output map is the identity: its loops run at the element's indices.
    scf::YieldOp::create(b, loc, fw::inlineLinalgBody(b, producer, args, indices));
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc,
                         arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult());
    return branch.getResult(0);
  }

};

} // namespace

FailureOr<bool> mlir::fw::mapContractionToGrid(gpu::GPUFuncOp func,
                                               const GPUTiling &requested,
                                               bool *sameAsDefaults) {
  FailureOr<Contraction> matched = match(func);
  if (failed(matched))
    return false;
  // The tile: the knobs', else one sized to the result when its shape is known.
  auto resultType = cast<MemRefType>(
      (matched->epilogue ? matched->epilogue.getDpsInitOperand(0)
                         : matched->matmul.getDpsInitOperand(0))
          ->get()
          .getType());
  auto extent = [&](unsigned d) -> std::optional<int64_t> {
    if (resultType.isDynamicDim(d))
      return std::nullopt;
    return resultType.getDimSize(d);
  };
  GPUTiling tiling = getSizedGemmTiling(requested, extent(0), extent(1));
  if (sameAsDefaults) {
    GPUTiling defaults = getSizedGemmTiling(getGPUTiling(), extent(0), extent(1));
    *sameAsDefaults = tiling.tileM == defaults.tileM && tiling.tileN == defaults.tileN &&
                      tiling.tileK == defaults.tileK && tiling.threadM == defaults.threadM &&
                      tiling.threadN == defaults.threadN;
  }
  // A block of kThreads threads computes kTileM x kTileN results, kThreadM x
  // kThreadN per thread, stepping through the reduction kTileK at a time.
  const int64_t kTileM = tiling.tileM, kTileN = tiling.tileN, kTileK = tiling.tileK;
  const int64_t kThreadM = tiling.threadM, kThreadN = tiling.threadN;
  const int64_t kThreadsN = kTileN / kThreadN;
  const int64_t kAPad = GPUTiling::kSliceAPad;
  const int64_t kThreads = tiling.gemmThreads();
  if (kTileM % kThreadM || kTileN % kThreadN || (kTileM * kTileK) % kThreads ||
      (kTileK * kTileN) % kThreads)
    return false;
  func.setKnownBlockSizeAttr(
      OpBuilder(func).getDenseI32ArrayAttr({static_cast<int32_t>(kThreads), 1, 1}));
  Contraction c = *matched;
  linalg::LinalgOp mm = c.matmul;
  Location loc = mm.getLoc();
  Block &entry = func.getBody().front();
  OpBuilder b(mm);
  IndexMath x{b, loc};

  Value A = mm.getDpsInputOperand(0)->get(), B = mm.getDpsInputOperand(1)->get();
  Value C = mm.getDpsInitOperand(0)->get();
  AffineMap aMap = mm.getIndexingMapsArray()[0], bMap = mm.getIndexingMapsArray()[1];
  Type aType = cast<MemRefType>(A.getType()).getElementType();
  Type bType = cast<MemRefType>(B.getType()).getElementType();
  Type accType = cast<MemRefType>(C.getType()).getElementType();

  // Workgroup memory for the slices of A and B, and the thread's accumulators.
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value aTile = func.addWorkgroupAttribution(
      MemRefType::get({kTileK, kTileM + kAPad}, aType, MemRefLayoutAttrInterface(), workgroup),
      loc);
  Value bTile = func.addWorkgroupAttribution(
      MemRefType::get({kTileK, kTileN}, bType, MemRefLayoutAttrInterface(), workgroup), loc);
  // 16-byte aligned slices: a thread's consecutive reads become vector loads.
  for (unsigned i = func.getNumWorkgroupAttributions() - 2; i < func.getNumWorkgroupAttributions();
       ++i)
    func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
  // Per thread: the accumulators, and the elements of the next slices it stages.
  const int64_t kStagedA = kTileM * kTileK / kThreads, kStagedB = kTileK * kTileN / kThreads;
  Value accs, aStaged, bStaged;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    accs = memref::AllocaOp::create(b, loc, MemRefType::get({kThreadM, kThreadN}, accType));
    aStaged = memref::AllocaOp::create(b, loc, MemRefType::get({kStagedA}, aType));
    bStaged = memref::AllocaOp::create(b, loc, MemRefType::get({kStagedB}, bType));
  }

  // Sizes: M and N from the result (the accumulator, or the epilogue's output
  // when the accumulator is an intermediate, which goes away), K from an
  // operand that has it.
  Value result = c.epilogue ? c.epilogue.getDpsInitOperand(0)->get() : C;
  Value M = memref::DimOp::create(b, loc, result, 0);
  Value N = memref::DimOp::create(b, loc, result, 1);
  Value K;
  for (auto [operand, map] : {std::make_pair(A, aMap), std::make_pair(B, bMap)})
    for (unsigned r = 0; r < map.getNumResults() && !K; ++r)
      if (map.getDimPosition(r) == c.dimK)
        K = memref::DimOp::create(b, loc, operand, r);

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value c0 = x.idx(0);
  Value tileM = x.idx(kTileM), tileN = x.idx(kTileN), tileK = x.idx(kTileK);
  Value tilesM = arith::CeilDivUIOp::create(b, loc, M, tileM);
  Value tilesN = arith::CeilDivUIOp::create(b, loc, N, tileN);
  Value tiles = x.mul(tilesM, tilesN);
  Value tx = x.rem(tid, x.idx(kThreadsN)), ty = x.div(tid, x.idx(kThreadsN));

  auto tileLoop = scf::ForOp::create(b, loc, bid, tiles, grid);
  b.setInsertionPointToStart(tileLoop.getBody());
  Value tile = tileLoop.getInductionVar();
  Value tm = x.div(tile, tilesN), tn = x.rem(tile, tilesN);
  Value rowBase = x.mul(tm, tileM), colBase = x.mul(tn, tileN);
  Value row0 = x.add(rowBase, x.mul(ty, x.idx(kThreadM)));
  Value col0 = x.add(colBase, x.mul(tx, x.idx(kThreadN)));

  // The accumulators start at C's value (a fill's, a copy's, or in memory).
  for (int64_t m = 0; m < kThreadM; ++m)
    for (int64_t n = 0; n < kThreadN; ++n) {
      Value i = x.add(row0, x.idx(m)), j = x.add(col0, x.idx(n));
      Value start = x.element(c, C, {i, j}, x.both(x.lt(i, M), x.lt(j, N)));
      memref::StoreOp::create(b, loc, start, accs, ValueRange{x.idx(m), x.idx(n)});
    }

  // Staging, in two halves. fetch: every thread reads its share of a slice
  // from global memory (zeros past the edges) into registers; element e of a
  // rows x cols slice is (e / cols, e % cols), at loop values (row dimension:
  // base + r, column dimension: base + c). put: it stores them to workgroup
  // memory, transposed for A.
  // The (row, column) of a rows x cols slice that element l of this thread's
  // share is.
  auto slot = [&](int64_t l, int64_t colsCount) {
    Value e = x.add(tid, x.idx(l * kThreads)), cols = x.idx(colsCount);
    return std::make_pair(x.div(e, cols), x.rem(e, cols));
  };
  auto fetch = [&](Value operand, AffineMap map, Value staged, int64_t rowsCount,
                   int64_t colsCount, unsigned rowDim, Value rowBase0, Value rowLimit,
                   unsigned colDim, Value colBase0, Value colLimit) {
    for (int64_t l = 0; l < rowsCount * colsCount / kThreads; ++l) {
      auto [r, col] = slot(l, colsCount);
      Value gr = x.add(rowBase0, r), gc = x.add(colBase0, col);
      SmallVector<Value> loops(3, c0);
      loops[rowDim] = gr;
      loops[colDim] = gc;
      Value v = x.element(c, operand, x.indices(map, loops),
                          x.both(x.lt(gr, rowLimit), x.lt(gc, colLimit)));
      memref::StoreOp::create(b, loc, v, staged, ValueRange{x.idx(l)});
    }
  };
  auto put = [&](Value staged, Value tileBuffer, int64_t rowsCount, int64_t colsCount,
                 bool transposed) {
    for (int64_t l = 0; l < rowsCount * colsCount / kThreads; ++l) {
      auto [r, col] = slot(l, colsCount);
      Value v = memref::LoadOp::create(b, loc, staged, ValueRange{x.idx(l)});
      memref::StoreOp::create(b, loc, v, tileBuffer,
                              transposed ? ValueRange{col, r} : ValueRange{r, col});
    }
  };
  auto fetchSlices = [&](Value k0) {
    fetch(A, aMap, aStaged, kTileM, kTileK, c.dimI, rowBase, M, c.dimK, k0, K);
    fetch(B, bMap, bStaged, kTileK, kTileN, c.dimK, k0, K, c.dimJ, colBase, N);
  };

  fetchSlices(c0);
  auto kLoop = scf::ForOp::create(b, loc, c0, K, tileK);
  b.setInsertionPointToStart(kLoop.getBody());
  Value k0 = kLoop.getInductionVar();
  put(aStaged, aTile, kTileM, kTileK, /*transposed=*/true);
  put(bStaged, bTile, kTileK, kTileN, /*transposed=*/false);
  gpu::BarrierOp::create(b, loc);
  // The next slices (zeros after the last) come in while this one is used.
  fetchSlices(x.add(k0, tileK));
  Value aRow = x.mul(ty, x.idx(kThreadM)), bCol = x.mul(tx, x.idx(kThreadN));
  // The loop values, for a matmul body that reads them.
  bool mmIndexed =
      c.matmul.getBlock()->walk([](linalg::IndexOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  for (int64_t k = 0; k < kTileK; ++k) {
    Value kk = x.idx(k);
    SmallVector<Value> as, bs;
    for (int64_t m = 0; m < kThreadM; ++m)
      as.push_back(memref::LoadOp::create(b, loc, aTile, ValueRange{kk, x.add(aRow, x.idx(m))}));
    for (int64_t n = 0; n < kThreadN; ++n)
      bs.push_back(memref::LoadOp::create(b, loc, bTile, ValueRange{kk, x.add(bCol, x.idx(n))}));
    for (int64_t m = 0; m < kThreadM; ++m)
      for (int64_t n = 0; n < kThreadN; ++n) {
        SmallVector<Value> at = {x.idx(m), x.idx(n)};
        Value acc = memref::LoadOp::create(b, loc, accs, at);
        SmallVector<Value> mmLoops(3);
        if (mmIndexed) {
          mmLoops[c.dimI] = x.add(row0, x.idx(m));
          mmLoops[c.dimJ] = x.add(col0, x.idx(n));
          mmLoops[c.dimK] = x.add(k0, kk);
        }
        Value next = fw::inlineLinalgBody(b, mm, {as[m], bs[n], acc}, mmLoops);
        memref::StoreOp::create(b, loc, next, accs, at);
      }
  }
  gpu::BarrierOp::create(b, loc);

  // The micro-tile, through the epilogue, to memory.
  b.setInsertionPointAfter(kLoop);
  for (int64_t m = 0; m < kThreadM; ++m)
    for (int64_t n = 0; n < kThreadN; ++n) {
      Value i = x.add(row0, x.idx(m)), j = x.add(col0, x.idx(n));
      auto inside = scf::IfOp::create(b, loc, x.both(x.lt(i, M), x.lt(j, N)),
                                      /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(inside.thenBlock());
      Value v = memref::LoadOp::create(b, loc, accs, ValueRange{x.idx(m), x.idx(n)});
      if (!c.epilogue) {
        memref::StoreOp::create(b, loc, v, C, ValueRange{i, j});
        continue;
      }
      linalg::LinalgOp ep = c.epilogue;
      SmallVector<Value> args;
      SmallVector<Value> loops = {i, j};
      for (OpOperand &operand : ep->getOpOperands()) {
        if (operand.getOperandNumber() == c.epilogueInput) {
          args.push_back(v);
          continue;
        }
        Value arg = ep.getMatchingBlockArgument(&operand);
        if (arg.use_empty()) { // the output's old value, usually
          args.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(arg.getType())));
          continue;
        }
        AffineMap map = ep.getMatchingIndexingMap(&operand);
        args.push_back(
            memref::LoadOp::create(b, loc, operand.get(), x.indices(map, loops)));
      }
      Value result = fw::inlineLinalgBody(b, ep, args, loops);
      memref::StoreOp::create(b, loc, result, ep.getDpsInitOperand(0)->get(),
                              ValueRange{i, j});
    }

  // The linalg ops and the intermediates are gone.
  SmallVector<Operation *> dead = {mm.getOperation()};
  for (linalg::LinalgOp op : c.before)
    dead.push_back(op);
  if (c.epilogue)
    dead.push_back(c.epilogue);
  for (Operation *op : dead)
    op->erase();
  for (Value buffer : {A, B, C})
    if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
      if (failed(eraseIntermediate(alloc)))
        return failure();
  return true;
}
