//===- CPUMatmul.cpp - Packed, register-tiled f32 contractions ------------===//
//
// The GEMM loop nest of BLIS and OpenBLAS, generated for each f32
// matmul-like contraction of a CPU kernel:
//
//   for jc in N step nc:                     B block (kc x nc) in the LLC
//     for pc in K step kc:
//       pack B[pc:+kc, jc:+nc] into nr-wide panels
//       for ic in M step mc:                 A block (mc x kc) in L2
//         pack A[ic:+mc, pc:+kc] into mr-tall panels
//         for jr in nc step nr:              B micro-panel (kc x nr) in L1
//           for ir in mc step mr:
//             C[mr x nr] += Apanel * Bpanel  (registers; vector.contract)
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUMATMULPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

/// Block and register-tile sizes.
struct Blocking {
  int64_t mr, nr, kc, mc, nc;
  /// Reduction steps transposed at once when an operand's innermost
  /// dimension is the reduction.
  int64_t vk = 8;
  /// kc rounded up to a multiple of vk: the packed panels' depth.
  int64_t kcPadded() const { return roundUp(kc, vk); }

  static int64_t roundUp(int64_t x, int64_t multiple) {
    return (x + multiple - 1) / multiple * multiple;
  }
};

/// A contraction this pass handles, with the loop dimension of each role.
struct Contraction {
  linalg::LinalgOp op;
  std::optional<unsigned> batch;
  unsigned m, n, k;
};

/// The operand's memref has a unit-stride innermost dimension, so vector
/// transfers along it are contiguous.
static bool hasUnitInnerStride(Value operand) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  if (!type || type.getRank() < 2)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// The loop dimensions an operand's map indexes, in order.
static std::optional<SmallVector<unsigned>> dimsOf(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

/// `dims` is [batch?, x, y] with {x, y} == {a, b}, in either order when
/// `anyOrder`.
static bool indexes(ArrayRef<unsigned> dims, std::optional<unsigned> batch,
                    unsigned a, unsigned b, bool anyOrder) {
  unsigned lead = batch ? 1 : 0;
  if (dims.size() != lead + 2 || (batch && dims[0] != *batch))
    return false;
  if (dims[lead] == a && dims[lead + 1] == b)
    return true;
  return anyOrder && dims[lead] == b && dims[lead + 1] == a;
}

static std::optional<Contraction> matchContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32() ||
        !hasUnitInnerStride(operand.get()))
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  Contraction c{op, std::nullopt, dims->m[0], dims->n[0], dims->k[0]};
  if (!dims->batch.empty())
    c.batch = dims->batch[0];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto a = dimsOf(maps[0]), b = dimsOf(maps[1]), out = dimsOf(maps[2]);
  if (!a || !b || !out || !indexes(*a, c.batch, c.m, c.k, true) ||
      !indexes(*b, c.batch, c.k, c.n, true) ||
      !indexes(*out, c.batch, c.m, c.n, false))
    return std::nullopt;
  return c;
}

/// Emits the GEMM loop nest for one contraction.
class GemmBuilder {
public:
  GemmBuilder(const Contraction &c, const Blocking &blocking)
      : c(c), blk(blocking), b(c.op->getLoc(), c.op) {
    f32 = b.getF32Type();
  }

  void build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }

  /// Indices into an operand given the current value of each loop dimension.
  SmallVector<Value> indicesOf(unsigned operand) {
    SmallVector<Value> idx;
    for (AffineExpr e : maps[operand].getResults())
      idx.push_back(dimValues[cast<AffineDimExpr>(e).getPosition()]);
    return idx;
  }

  /// A packed-panel buffer for a block of up to `extent` rows (or columns)
  /// of width `width`, or with the static extent when it is smaller.
  Value allocPanels(int64_t block, int64_t width, unsigned dim) {
    int64_t rows = Blocking::roundUp(block, width);
    if (!ShapedType::isDynamic(staticSizes[dim]))
      rows = std::min(rows, Blocking::roundUp(staticSizes[dim], width));
    int64_t depth = blk.kcPadded();
    if (!ShapedType::isDynamic(staticSizes[c.k]))
      depth = std::min(depth, Blocking::roundUp(staticSizes[c.k], blk.vk));
    auto type =
        MemRefType::get({rows / width, depth, width}, f32);
    return memref::AllocOp::create(b, type, b.getI64IntegerAttr(64));
  }

  void packBlock(unsigned operand, unsigned outerDim, Value packed,
                 int64_t width, Value outer0, Value outerCount, Value k0,
                 Value kCount);
  void microKernel(Value aPanel, Value bPanel, Value row0, Value col0,
                   Value kCount);

  Contraction c;
  Blocking blk;
  ImplicitLocOpBuilder b;
  Type f32;
  SmallVector<AffineMap> maps;
  SmallVector<int64_t> staticSizes;
  /// The current value of every loop dimension while the nest is built.
  SmallVector<Value> dimValues;
  Value aPacked, bPacked;
};

} // namespace

/// Copies rows [outer0, outer0 + outerCount) x reduction steps
/// [k0, k0 + kCount) of `operand` into `packed`, laid out
/// packed[p][kk][w] = operand[outer0 + p * width + w][k0 + kk], with zeros
/// past the last row. An operand whose innermost dimension is the reduction
/// is read vk steps at a time and transposed in registers.
void GemmBuilder::packBlock(unsigned operand, unsigned outerDim, Value packed,
                            int64_t width, Value outer0, Value outerCount,
                            Value k0, Value kCount) {
  Value source = c.op->getOperand(operand);
  bool direct = cast<AffineDimExpr>(maps[operand].getResults().back())
                    .getPosition() == outerDim;
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  Value c0 = index(0), cWidth = index(width);
  scf::ForOp panels = scf::ForOp::create(b, c0, outerCount, cWidth);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(panels.getBody());
    Value p0 = panels.getInductionVar();
    Value p = arith::DivUIOp::create(b, p0, cWidth);
    dimValues[outerDim] = add(outer0, p0);
    int64_t step = direct ? 1 : blk.vk;
    scf::ForOp steps = scf::ForOp::create(b, c0, kCount, index(step));
    b.setInsertionPointToStart(steps.getBody());
    Value kk = steps.getInductionVar();
    dimValues[c.k] = add(k0, kk);
    SmallVector<Value> idx = indicesOf(operand);
    if (direct) {
      // One row of the panel: `width` consecutive elements, masked at the
      // operand's edge.
      Value v = vector::TransferReadOp::create(
          b, VectorType::get({width}, f32), source, idx, zero,
          ArrayRef<bool>{false});
      vector::StoreOp::create(b, v, packed, ValueRange{p, kk, c0});
    } else {
      Value v = vector::TransferReadOp::create(
          b, VectorType::get({width, blk.vk}, f32), source, idx, zero,
          ArrayRef<bool>{false, false});
      Value t = vector::TransposeOp::create(b, v, ArrayRef<int64_t>{1, 0});
      for (int64_t i = 0; i < blk.vk; ++i) {
        Value row = vector::ExtractOp::create(b, t, ArrayRef<int64_t>{i});
        vector::StoreOp::create(b, row, packed,
                                ValueRange{p, add(kk, index(i)), c0});
      }
    }
  }
}

/// C[row0:+mr, col0:+nr] += aPanel^T * bPanel over kCount steps, with the
/// tile of C in registers. C is read and written through masked transfers,
/// so edge tiles need no separate code.
void GemmBuilder::microKernel(Value aPanel, Value bPanel, Value row0,
                              Value col0, Value kCount) {
  Value out = c.op.getDpsInitOperand(0)->get();
  dimValues[c.m] = row0;
  dimValues[c.n] = col0;
  SmallVector<Value> cIdx = indicesOf(2);
  auto tileType = VectorType::get({blk.mr, blk.nr}, f32);
  auto rowType = VectorType::get({blk.nr}, f32);
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  Value tile = vector::TransferReadOp::create(b, tileType, out, cIdx, zero,
                                              ArrayRef<bool>{false, false});
  // The accumulator travels through the reduction loop as one vector per
  // row, so each becomes a register rather than an aggregate.
  SmallVector<Value> rows;
  for (int64_t r = 0; r < blk.mr; ++r)
    rows.push_back(vector::ExtractOp::create(b, tile, ArrayRef<int64_t>{r}));
  Value zeroTile = arith::ConstantOp::create(
      b, DenseElementsAttr::get(tileType, b.getF32FloatAttr(0.0f)));
  auto assemble = [&](OpBuilder &builder, Location loc, ValueRange parts) {
    Value acc = zeroTile;
    for (auto [r, part] : llvm::enumerate(parts))
      acc = vector::InsertOp::create(builder, loc, part, acc,
                                     ArrayRef<int64_t>{(int64_t)r});
    return acc;
  };

  MLIRContext *ctx = b.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<SmallVector<AffineExpr>> exprs = {{k, m}, {k, n}, {m, n}};
  SmallVector<ArrayRef<AffineExpr>> exprRefs(exprs.begin(), exprs.end());
  SmallVector<vector::IteratorType> iterators = {
      vector::IteratorType::parallel, vector::IteratorType::parallel,
      vector::IteratorType::reduction};
  Value c0 = index(0);
  auto loop = scf::ForOp::create(
      b, c0, kCount, index(1), rows,
      [&](OpBuilder &nested, Location loc, Value kk, ValueRange accs) {
        auto lhsType = VectorType::get({1, blk.mr}, f32);
        auto rhsType = VectorType::get({1, blk.nr}, f32);
        Value a = vector::LoadOp::create(nested, loc,
                                         VectorType::get({blk.mr}, f32),
                                         aPanel, ValueRange{kk, c0});
        Value bv = vector::LoadOp::create(nested, loc, rowType, bPanel,
                                          ValueRange{kk, c0});
        a = vector::ShapeCastOp::create(nested, loc, lhsType, a);
        bv = vector::ShapeCastOp::create(nested, loc, rhsType, bv);
        Value acc = assemble(nested, loc, accs);
        Value sum = vector::ContractionOp::create(nested, loc, a, bv, acc,
                                                  exprRefs, iterators);
        SmallVector<Value> next;
        for (int64_t r = 0; r < blk.mr; ++r)
          next.push_back(vector::ExtractOp::create(nested, loc, sum,
                                                   ArrayRef<int64_t>{r}));
        scf::YieldOp::create(nested, loc, next);
      });
  Value result = assemble(b, b.getLoc(), loop.getResults());
  vector::TransferWriteOp::create(b, result, out, cIdx,
                                  ArrayRef<bool>{false, false});
}

void GemmBuilder::build() {
  linalg::LinalgOp op = c.op;
  maps = op.getIndexingMapsArray();
  staticSizes = op.getStaticLoopRanges();
  SmallVector<Range> ranges = op.createLoopRanges(b, b.getLoc());
  auto size = [&](unsigned dim) {
    return getValueOrCreateConstantIndexOp(b, b.getLoc(), ranges[dim].size);
  };
  Value c0 = index(0);
  dimValues.assign(op.getNumLoops(), c0);
  Value sizeM = size(c.m), sizeN = size(c.n), sizeK = size(c.k);

  bPacked = allocPanels(blk.nc, blk.nr, c.n);
  aPacked = allocPanels(blk.mc, blk.mr, c.m);
  auto panelView = [&](Value packed, Value panel) {
    // packed[panel] as a kc x width memref.
    auto type = cast<MemRefType>(packed.getType());
    SmallVector<OpFoldResult> offsets = {panel, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                       b.getIndexAttr(type.getDimSize(1)),
                                       b.getIndexAttr(type.getDimSize(2))};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    auto viewType = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes,
        strides));
    return memref::SubViewOp::create(b, viewType, packed, offsets, sizes,
                                     strides)
        .getResult();
  };

  OpBuilder::InsertionGuard guard(b);
  if (c.batch) {
    auto batchLoop = scf::ForOp::create(b, c0, size(*c.batch), index(1));
    b.setInsertionPointToStart(batchLoop.getBody());
    dimValues[*c.batch] = batchLoop.getInductionVar();
  }
  auto jcLoop = scf::ForOp::create(b, c0, sizeN, index(blk.nc));
  b.setInsertionPointToStart(jcLoop.getBody());
  Value jc = jcLoop.getInductionVar();
  Value nb = min(index(blk.nc), sub(sizeN, jc));

  auto pcLoop = scf::ForOp::create(b, c0, sizeK, index(blk.kc));
  b.setInsertionPointToStart(pcLoop.getBody());
  Value pc = pcLoop.getInductionVar();
  Value kb = min(index(blk.kc), sub(sizeK, pc));
  packBlock(1, c.n, bPacked, blk.nr, jc, nb, pc, kb);

  auto icLoop = scf::ForOp::create(b, c0, sizeM, index(blk.mc));
  b.setInsertionPointToStart(icLoop.getBody());
  Value ic = icLoop.getInductionVar();
  Value mb = min(index(blk.mc), sub(sizeM, ic));
  packBlock(0, c.m, aPacked, blk.mr, ic, mb, pc, kb);

  auto jrLoop = scf::ForOp::create(b, c0, nb, index(blk.nr));
  b.setInsertionPointToStart(jrLoop.getBody());
  Value jr = jrLoop.getInductionVar();
  Value bPanel =
      panelView(bPacked, arith::DivUIOp::create(b, jr, index(blk.nr)));
  auto irLoop = scf::ForOp::create(b, c0, mb, index(blk.mr));
  b.setInsertionPointToStart(irLoop.getBody());
  Value ir = irLoop.getInductionVar();
  Value aPanel =
      panelView(aPacked, arith::DivUIOp::create(b, ir, index(blk.mr)));
  microKernel(aPanel, bPanel, add(ic, ir), add(jc, jr), kb);

  b.setInsertionPointAfter(c.batch ? jcLoop->getParentOp() : jcLoop);
  memref::DeallocOp::create(b, aPacked);
  memref::DeallocOp::create(b, bPacked);
}

namespace {

struct CPUMatmulPass : public fw::impl::CPUMatmulPassBase<CPUMatmulPass> {
  using CPUMatmulPassBase::CPUMatmulPassBase;

  Blocking blocking() const {
    int64_t lanes = std::max<int64_t>(4, vectorBits / 32);
    Blocking blk;
    blk.nr = nr > 0 ? nr : 2 * lanes;
    // Two registers of B, one broadcast of A, the rest accumulate C.
    int64_t vectorsPerRow = llvm::divideCeil(blk.nr, lanes);
    blk.mr = mr > 0 ? mr
                    : std::max<int64_t>(
                          1, (vectorRegisters - vectorsPerRow - 1) /
                                 vectorsPerRow);
    // A micro-panel of B fills L1 (it is reused by every micro-tile of a
    // block of A, while the A micro-panels stream from L2); a block of A
    // fills half of L2. Measured on Zen 4: kc = 256 for a 14 x 32 tile and
    // 512 for 6 x 16 are 10-25% faster than half of those.
    blk.kc = kc > 0 ? kc
                    : std::clamp<int64_t>(l1Bytes / (blk.nr * 4), 64, 512);
    int64_t rows = mc > 0 ? mc : l2Bytes / 2 / (blk.kc * 4);
    blk.mc = std::max<int64_t>(blk.mr, rows / blk.mr * blk.mr);
    blk.nc = std::max<int64_t>(blk.nr, nc / blk.nr * blk.nr);
    return blk;
  }

  void runOnOperation() override {
    SmallVector<Contraction> found;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<Contraction> c = matchContraction(op))
        found.push_back(*c);
    });
    Blocking blk = blocking();
    for (const Contraction &c : found) {
      GemmBuilder(c, blk).build();
      c.op->erase();
    }
  }
};

} // namespace
