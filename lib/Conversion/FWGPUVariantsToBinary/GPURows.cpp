//===- GPURows.cpp - Row reductions onto a GPU grid, a block per row ------===//
//
// A kernel whose ops all work row by row (the same leading parallel
// dimensions), reducing rows into row values and applying elementwise ops
// that may read them (softmax: a row maximum, then exp(x - max); a row sum,
// then x / sum), runs one row per block at a time: the threads of the block
// split each row; a reduction combines their partial results with a
// `gpu.all_reduce` (warp shuffles and workgroup memory once lowered); row
// values live in workgroup memory between barriers. Rows depend on nothing
// but themselves, so blocks take rows with a grid-stride loop.
//
//===----------------------------------------------------------------------===//

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;

namespace {

/// How a reduction's body combines an element into the accumulator.
struct Combiner {
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// The body must be `yield (t <op> acc)` (or `acc <op> t`) where `t` does not
/// depend on the accumulator and `<op>` is associative and commutative.
std::optional<Combiner> matchCombiner(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  Value acc = body->getArguments().back();
  if (!acc.hasOneUse())
    return std::nullopt;
  Operation *combine = *acc.getUsers().begin();
  if (combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
      body->getTerminator()->getOperand(0) != combine->getResult(0) ||
      combine->getOperand(0) == combine->getOperand(1))
    return std::nullopt;
  Type type = acc.getType();
  Builder b(op.getContext());
  auto floatBits = [&](APFloat v) { return TypedAttr(b.getFloatAttr(type, v)); };
  const llvm::fltSemantics *sem =
      isa<FloatType>(type) ? &cast<FloatType>(type).getFloatSemantics() : nullptr;
  unsigned width = type.getIntOrFloatBitWidth();
  auto intValue = [&](APInt v) { return TypedAttr(b.getIntegerAttr(type, v)); };
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Combiner>>(combine)
      .Case([&](arith::AddFOp) { return Combiner{K::ADD, floatBits(APFloat::getZero(*sem, true))}; })
      .Case([&](arith::MulFOp) { return Combiner{K::MUL, floatBits(APFloat::getOne(*sem))}; })
      .Case([&](arith::MaximumFOp) { return Combiner{K::MAXIMUMF, floatBits(APFloat::getInf(*sem, true))}; })
      .Case([&](arith::MinimumFOp) { return Combiner{K::MINIMUMF, floatBits(APFloat::getInf(*sem, false))}; })
      .Case([&](arith::MaxNumFOp) { return Combiner{K::MAXNUMF, floatBits(APFloat::getQNaN(*sem))}; })
      .Case([&](arith::MinNumFOp) { return Combiner{K::MINNUMF, floatBits(APFloat::getQNaN(*sem))}; })
      .Case([&](arith::AddIOp) { return Combiner{K::ADD, intValue(APInt::getZero(width))}; })
      .Case([&](arith::MulIOp) { return Combiner{K::MUL, intValue(APInt(width, 1))}; })
      .Case([&](arith::MaxSIOp) { return Combiner{K::MAXSI, intValue(APInt::getSignedMinValue(width))}; })
      .Case([&](arith::MinSIOp) { return Combiner{K::MINSI, intValue(APInt::getSignedMaxValue(width))}; })
      .Case([&](arith::MaxUIOp) { return Combiner{K::MAXUI, intValue(APInt::getZero(width))}; })
      .Case([&](arith::MinUIOp) { return Combiner{K::MINUI, intValue(APInt::getAllOnes(width))}; })
      .Case([&](arith::AndIOp) { return Combiner{K::AND, intValue(APInt::getAllOnes(width))}; })
      .Case([&](arith::OrIOp) { return Combiner{K::OR, intValue(APInt::getZero(width))}; })
      .Case([&](arith::XOrIOp) { return Combiner{K::XOR, intValue(APInt::getZero(width))}; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The kernel's ops, with what the mapping needs to know about each.
struct RowOp {
  linalg::LinalgOp op;
  enum Kind { FillRow, Reduce, Elementwise } kind;
  std::optional<Combiner> combiner; // Reduce
};

struct RowKernel {
  unsigned rowDims = 0;
  SmallVector<RowOp> ops;
  SmallVector<Value> rowBuffers; // buffers of one value per row
};

bool startsWithRowDims(AffineMap map, unsigned rowDims) {
  if (map.getNumResults() < rowDims)
    return false;
  for (unsigned d = 0; d < rowDims; ++d)
    if (map.getResult(d) != getAffineDimExpr(d, map.getContext()))
      return false;
  return true;
}

FailureOr<RowKernel> match(gpu::GPUFuncOp func) {
  RowKernel k;
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : func.getBody().front()) {
    if (isMemoryEffectFree(&op) || isa<gpu::ReturnOp, memref::AllocOp, memref::DeallocOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() || linalgOp.getNumDpsInits() != 1)
      return failure();
    ops.push_back(linalgOp);
  }
  // The row rank: that of the reductions' outputs.
  for (linalg::LinalgOp op : ops)
    if (op.getNumReductionLoops() > 0) {
      unsigned rank = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType()).getRank();
      if (rank == 0 || (k.rowDims && k.rowDims != rank))
        return failure();
      k.rowDims = rank;
    }
  if (!k.rowDims)
    return failure();
  llvm::SmallDenseSet<Value> rows, written;
  for (linalg::LinalgOp op : ops) {
    Value out = op.getDpsInitOperand(0)->get();
    auto outType = cast<MemRefType>(out.getType());
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (op.getNumLoops() < k.rowDims)
      return failure();
    for (unsigned d = 0; d < k.rowDims; ++d)
      if (op.getIteratorTypesArray()[d] != utils::IteratorType::parallel)
        return failure();
    RowOp row{op, RowOp::Elementwise, std::nullopt};
    if (isa<linalg::FillOp>(op)) {
      row.kind = outType.getRank() == k.rowDims ? RowOp::FillRow : RowOp::Elementwise;
      if (row.kind == RowOp::FillRow && !outType.getLayout().isIdentity())
        return failure();
    } else if (op.getNumReductionLoops() > 0) {
      if (op.getNumReductionLoops() + k.rowDims != op.getNumLoops() ||
          outMap.getNumResults() != k.rowDims || !startsWithRowDims(outMap, k.rowDims))
        return failure();
      row.kind = RowOp::Reduce;
      row.combiner = matchCombiner(op);
      if (!row.combiner)
        return failure();
    } else if (!outMap.isIdentity() || !startsWithRowDims(outMap, k.rowDims)) {
      return failure();
    }
    // Inputs: a row value of this row, or memory no op of the kernel writes.
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!isa<MemRefType>(input->get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!map.isProjectedPermutation())
        return failure();
      if (rows.contains(input->get())) {
        if (map.getNumResults() != k.rowDims || !startsWithRowDims(map, k.rowDims))
          return failure();
      } else if (written.contains(fw::rootMemory(input->get()))) {
        return failure();
      }
    }
    if (row.kind != RowOp::Elementwise) {
      if (!rows.contains(out)) {
        // First written here: the fill's value, or (kernel arguments) what
        // the buffer holds.
        if (row.kind == RowOp::Reduce && out.getDefiningOp<memref::AllocOp>())
          return failure();
        rows.insert(out);
        k.rowBuffers.push_back(out);
      }
    } else if (rows.contains(out) || written.contains(fw::rootMemory(out))) {
      return failure();
    }
    written.insert(fw::rootMemory(out));
    k.ops.push_back(row);
  }
  // A row buffer is also read only through its row values (no view of it).
  for (Value buffer : k.rowBuffers)
    for (Operation *user : buffer.getUsers())
      if (!isa<linalg::LinalgOp, memref::DeallocOp>(user))
        return failure();
  // Worth a block per row: some row reduction is long, or its length unknown.
  bool longRows = false;
  for (RowOp &row : k.ops) {
    if (row.kind != RowOp::Reduce)
      continue;
    SmallVector<int64_t> ranges = row.op.getStaticLoopRanges();
    int64_t length = 1;
    for (int64_t d = k.rowDims; d < static_cast<int64_t>(ranges.size()); ++d)
      length = ShapedType::isDynamic(ranges[d]) || ShapedType::isDynamic(length)
                   ? ShapedType::kDynamic
                   : length * ranges[d];
    if (ShapedType::isDynamic(length) || length >= 32)
      longRows = true;
  }
  if (!longRows)
    return failure();
  return k;
}

struct Emit {
  OpBuilder &b;
  Location loc;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Splits `flat` into indices of `extents`, the last fastest.
  SmallVector<Value> delinearize(Value flat, ArrayRef<Value> extents) {
    SmallVector<Value> ivs(extents.size());
    for (int64_t d = extents.size() - 1; d >= 0; --d) {
      ivs[d] = d == 0 ? flat : arith::RemUIOp::create(b, loc, flat, extents[d]).getResult();
      if (d > 0)
        flat = arith::DivUIOp::create(b, loc, flat, extents[d]);
    }
    return ivs;
  }

  Value product(ArrayRef<Value> values) {
    Value p = idx(1);
    for (Value v : values)
      p = arith::MulIOp::create(b, loc, p, v);
    return p;
  }
};

} // namespace

FailureOr<bool> mlir::fw::mapRowsToGrid(gpu::GPUFuncOp func, int64_t blockSize) {
  FailureOr<RowKernel> matched = match(func);
  if (failed(matched))
    return false;
  RowKernel k = *matched;
  Location loc = func.getLoc();
  OpBuilder b(k.ops.front().op);
  Emit e{b, loc};
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({static_cast<int32_t>(blockSize), 1, 1}));

  // One workgroup value per row buffer.
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  llvm::DenseMap<Value, Value> shared;
  for (Value buffer : k.rowBuffers)
    shared[buffer] = func.addWorkgroupAttribution(
        MemRefType::get({1}, cast<MemRefType>(buffer.getType()).getElementType(),
                        MemRefLayoutAttrInterface(), workgroup),
        loc);

  // The rows: the leading loop ranges of the first op.
  SmallVector<Range> firstRanges = k.ops.front().op.createLoopRanges(b, loc);
  SmallVector<Value> rowExtents;
  for (unsigned d = 0; d < k.rowDims; ++d)
    rowExtents.push_back(getValueOrCreateConstantIndexOp(b, loc, firstRanges[d].size));
  Value rows = e.product(rowExtents);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value threads = e.idx(blockSize);
  Value zero = e.idx(0);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);

  auto rowLoop = scf::ForOp::create(b, loc, bid, rows, grid);
  b.setInsertionPointToStart(rowLoop.getBody());
  SmallVector<Value> rowIvs = e.delinearize(rowLoop.getInductionVar(), rowExtents);

  // Values of the op's operands at `ivs`: row values from workgroup memory,
  // the rest from their buffers.
  auto operandValues = [&](linalg::LinalgOp op, ArrayRef<Value> ivs,
                           OpOperand *skip) -> SmallVector<Value> {
    SmallVector<Value> args;
    for (OpOperand &operand : op->getOpOperands()) {
      if (&operand == skip) {
        args.push_back(Value());
        continue;
      }
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType())) {
        args.push_back(v);
        continue;
      }
      if (shared.count(v)) {
        args.push_back(memref::LoadOp::create(b, loc, shared[v], ValueRange{e.idx(0)}));
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(&operand);
      SmallVector<Value> at;
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        at.push_back(ivs[map.getDimPosition(r)]);
      args.push_back(memref::LoadOp::create(b, loc, v, at));
    }
    return args;
  };

  llvm::SmallDenseSet<Value> initialized;
  for (RowOp &row : k.ops) {
    linalg::LinalgOp op = row.op;
    OpOperand *out = op.getDpsInitOperand(0);
    Value buffer = out->get();
    if (row.kind == RowOp::FillRow) {
      auto first = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(first.thenBlock());
      memref::StoreOp::create(b, loc, op.getDpsInputOperand(0)->get(), shared[buffer],
                              ValueRange{e.idx(0)});
      if (isa<BlockArgument>(fw::rootMemory(buffer)))
        memref::StoreOp::create(b, loc, op.getDpsInputOperand(0)->get(), buffer, rowIvs);
      initialized.insert(buffer);
      continue;
    }
    // The inner iteration space of the row, split among the threads.
    SmallVector<Range> ranges = op.createLoopRanges(b, loc);
    SmallVector<Value> inner;
    for (unsigned d = k.rowDims; d < ranges.size(); ++d)
      inner.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].size));
    Value length = e.product(inner);
    if (row.kind == RowOp::Elementwise) {
      gpu::BarrierOp::create(b, loc); // the row values it reads are written
      auto loop = scf::ForOp::create(b, loc, tid, length, threads);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> ivs = rowIvs;
      llvm::append_range(ivs, e.delinearize(loop.getInductionVar(), inner));
      bool usesOut = !op.getMatchingBlockArgument(out).use_empty();
      SmallVector<Value> args = operandValues(op, ivs, usesOut ? nullptr : out);
      Value result =
          isa<linalg::FillOp>(op) ? op.getDpsInputOperand(0)->get()
                                  : fw::inlineLinalgBody(b, op, args, ivs);
      memref::StoreOp::create(b, loc, result, buffer, ivs);
      continue;
    }
    // Reduce: each thread folds its share from the identity, the block
    // combines the partial results, the first thread folds in the row value.
    if (!initialized.contains(buffer)) {
      auto first = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(first.thenBlock());
      memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, buffer, rowIvs),
                              shared[buffer], ValueRange{e.idx(0)});
      initialized.insert(buffer);
    }
    gpu::BarrierOp::create(b, loc); // the row values it reads are written
    Value identity = arith::ConstantOp::create(b, loc, row.combiner->identity);
    auto loop = scf::ForOp::create(b, loc, tid, length, threads, ValueRange{identity});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> ivs = rowIvs;
      llvm::append_range(ivs, e.delinearize(loop.getInductionVar(), inner));
      SmallVector<Value> args = operandValues(op, ivs, out);
      args.back() = loop.getRegionIterArg(0);
      scf::YieldOp::create(b, loc, fw::inlineLinalgBody(b, op, args, ivs));
    }
    auto total = gpu::AllReduceOp::create(b, loc, loop.getResult(0),
                                          gpu::AllReduceOperationAttr::get(
                                              b.getContext(), row.combiner->kind),
                                          /*uniform=*/true);
    auto first = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(first.thenBlock());
      // The body with the block's total as its element: total <op> value.
      Value before = memref::LoadOp::create(b, loc, shared[buffer], ValueRange{e.idx(0)});
      Block *body = op.getBlock();
      Operation *combine = *body->getArguments().back().getUsers().begin();
      IRMapping map;
      map.map(body->getArguments().back(), before);
      Value other = combine->getOperand(0) == body->getArguments().back()
                        ? combine->getOperand(1)
                        : combine->getOperand(0);
      map.map(other, total.getResult());
      Value after = b.clone(*combine, map)->getResult(0);
      memref::StoreOp::create(b, loc, after, shared[buffer], ValueRange{e.idx(0)});
      if (isa<BlockArgument>(fw::rootMemory(buffer)))
        memref::StoreOp::create(b, loc, after, buffer, rowIvs);
    }
  }
  // The next row's values overwrite these.
  gpu::BarrierOp::create(b, loc);

  for (RowOp &row : llvm::reverse(k.ops))
    row.op->erase();
  for (Value buffer : k.rowBuffers)
    if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
      if (failed(eraseIntermediate(alloc)))
        return failure();
  return true;
}
