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
#include "fw/Dialect/FW/Transforms/Workgroups.h"
#include "fw/Target/TuningConfig.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/RegionUtils.h"

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
  /// A linalg.fill of C right before the contraction: the first block of
  /// reduction steps starts from this value instead of reading C.
  linalg::FillOp fill;
  /// An elementwise linalg.generic right after it that reads C (a buffer of
  /// this kernel that nothing else reads) and writes another buffer: it is
  /// applied to the register tile after the last block of reduction steps,
  /// which writes the epilogue's output instead of C.
  linalg::GenericOp epilogue;
  unsigned epilogueInput = 0; // the epilogue's operand that is C
  /// Elementwise linalg.generic ops that compute A or B into a buffer of the
  /// kernel that only the contraction reads: computed while packing instead.
  linalg::GenericOp prologue[2];

  /// A 2-D NHWC x HWCF convolution computed as a GEMM: rows m = (n, oh, ow),
  /// columns n = f, reduction k = (kh, kw, c). B and C are the filter and the
  /// output viewed as matrices; A is the input read through an implicit
  /// im2col while it is packed.
  struct Im2col {
    Value input;
    int64_t strides[2], dilations[2];
    int64_t kw, channels; // static
    /// A 4-D buffer shaped like the output that outlives the rewrite (the
    /// epilogue's output when the convolution's own disappears), and its
    /// M x F view: where the sizes are read from.
    Value shape4d, shape2d;
  };
  std::optional<Im2col> im2col;

  /// The operands the GEMM reads and writes (A, B, C) and their maps over
  /// the loop dimensions: the op's own for a contraction, matrix views for a
  /// convolution (A unused), set up by prepare().
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  /// The epilogue's operands and maps over (m, n): its own for a matmul;
  /// for a convolution, 4-D operands indexed like the output are viewed as
  /// M x F matrices and (d3) becomes (d1).
  SmallVector<Value> epilogueOperands;
  SmallVector<AffineMap> epilogueMaps;
};

/// The operand's memref has a unit-stride innermost dimension, so vector
/// transfers along it are contiguous.
static bool hasUnitInnerStride(Value operand) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  if (!type || type.getRank() < 1)
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
  Contraction c;
  c.op = op;
  c.m = dims->m[0];
  c.n = dims->n[0];
  c.k = dims->k[0];
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

/// An f32 2-D NHWC x HWCF convolution on contiguous buffers whose channel
/// count is a multiple of `vk`, so every group of vk reduction steps reads
/// consecutive channels of one input pixel.
static std::optional<Contraction> matchConvolution(linalg::LinalgOp op,
                                                   int64_t vk) {
  auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation());
  if (!conv || !conv.hasPureBufferSemantics())
    return std::nullopt;
  for (Value v : conv->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32() ||
        !type.getLayout().isIdentity())
      return std::nullopt;
  }
  auto filter = cast<MemRefType>(conv.getInputs()[1].getType());
  int64_t channels = filter.getDimSize(2), kw = filter.getDimSize(1);
  if (ShapedType::isDynamic(channels) || ShapedType::isDynamic(kw) ||
      channels % vk != 0)
    return std::nullopt;
  Contraction c;
  c.op = op;
  c.m = 0;
  c.n = 1;
  c.k = 2;
  Contraction::Im2col im;
  im.input = conv.getInputs()[0];
  im.kw = kw;
  im.channels = channels;
  for (int i = 0; i < 2; ++i) {
    im.strides[i] = conv.getStrides().getValues<int64_t>()[i];
    im.dilations[i] = conv.getDilations().getValues<int64_t>()[i];
  }
  c.im2col = im;
  return c;
}

/// Sets the operands and maps of the GEMM (creating the matrix views of a
/// convolution's filter and output before it).
static void prepare(Contraction &c) {
  if (c.epilogue && !c.im2col) {
    c.epilogueOperands.assign(c.epilogue->getOperands().begin(),
                              c.epilogue->getOperands().end());
    c.epilogueMaps = c.epilogue.getIndexingMapsArray();
  }
  if (!c.im2col) {
    c.operands.assign(c.op->getOperands().begin(),
                      c.op->getOperands().begin() + 3);
    c.maps = c.op.getIndexingMapsArray();
    return;
  }
  if (c.epilogue) {
    OpBuilder b(c.op);
    MLIRContext *ctx = b.getContext();
    SmallVector<ReassociationIndices> rows = {{0, 1, 2}, {3}};
    for (OpOperand &operand : c.epilogue->getOpOperands()) {
      AffineMap map = c.epilogue.getMatchingIndexingMap(&operand);
      Value v = operand.get();
      if (map.isIdentity()) {
        v = memref::CollapseShapeOp::create(b, c.epilogue.getLoc(), v, rows);
        map = AffineMap::getMultiDimIdentityMap(2, ctx);
      } else {
        map = map.getNumResults() == 0
                  ? AffineMap::get(2, 0, {}, ctx)
                  : AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
      }
      c.epilogueOperands.push_back(v);
      c.epilogueMaps.push_back(map);
    }
  }
  OpBuilder b(c.op);
  Location loc = c.op.getLoc();
  SmallVector<ReassociationIndices> rows = {{0, 1, 2}, {3}};
  Value filter = memref::CollapseShapeOp::create(b, loc, c.op->getOperand(1),
                                                 rows);
  Value out = memref::CollapseShapeOp::create(b, loc, c.op->getOperand(2),
                                              rows);
  MLIRContext *ctx = b.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  c.operands = {c.im2col->input, filter, out};
  c.im2col->shape4d = c.epilogue ? c.epilogue.getDpsInitOperand(0)->get()
                                 : c.op->getOperand(2);
  c.im2col->shape2d = c.epilogue ? c.epilogueOperands.back() : out;
  c.maps = {AffineMap::get(3, 0, {m, k}, ctx), AffineMap::get(3, 0, {k, n}, ctx),
            AffineMap::get(3, 0, {m, n}, ctx)};
}

/// The first op after `op` in its block that may touch memory.
static Operation *nextEffectfulOp(Operation *op) {
  for (op = op->getNextNode(); op; op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return op;
  return nullptr;
}

/// A linalg.fill of the whole of C with a value, right before `c.op`.
static linalg::FillOp findFill(Contraction &c) {
  Value out = c.op.getDpsInitOperand(0)->get();
  for (Operation *op = c.op->getPrevNode(); op; op = op->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (fill && fill.hasPureBufferSemantics() &&
        fill.getDpsInitOperand(0)->get() == out)
      return fill;
    if (!isMemoryEffectFree(op))
      return nullptr;
  }
  return nullptr;
}

/// Whether `op`'s body is scalar elementwise code that vectorizeBody can
/// recreate on vectors.
static bool isVectorizableBody(linalg::GenericOp op) {
  for (Operation &inner : op.getRegion().front().without_terminator())
    if (inner.getNumRegions() != 0 || inner.getNumResults() != 1 ||
        !(OpTrait::hasElementwiseMappableTraits(&inner) ||
          isa<arith::ConstantOp>(inner)) ||
        !inner.getResult(0).getType().isIntOrIndexOrFloat())
      return false;
  return true;
}

/// The elementwise consumer that can be applied in registers: see
/// Contraction::epilogue. Inputs other than C must index at most the two
/// dimensions of C, with the column innermost and unit-stride, so each row
/// of the tile reads a contiguous vector or one scalar.
static bool findEpilogue(Contraction &c) {
  // Without a fill, C's initial contents would be read: C must stay.
  Value out = c.op.getDpsInitOperand(0)->get();
  if (c.batch || !c.fill || !out.getDefiningOp<memref::AllocOp>())
    return false;
  // C is written by the fill and the contraction, read by the epilogue and
  // then only deallocated.
  auto ep = dyn_cast_or_null<linalg::GenericOp>(nextEffectfulOp(c.op));
  for (Operation *user : out.getUsers()) {
    if (user == c.op.getOperation() || user == c.fill.getOperation() ||
        isa<memref::DeallocOp>(user))
      continue;
    if (user != ep.getOperation())
      return false;
  }
  // Over (m, n) for a matmul, (n, oh, ow, f) for a convolution.
  unsigned loops = c.im2col ? 4 : 2;
  if (!ep || !ep.hasPureBufferSemantics() || ep.getNumDpsInits() != 1 ||
      ep.getNumLoops() != loops || ep.getNumReductionLoops() != 0)
    return false;
  SmallVector<AffineMap> maps = ep.getIndexingMapsArray();
  OpOperand *init = ep.getDpsInitOperand(0);
  Value dst = init->get();
  Block &body = ep.getRegion().front();
  // Partial sums go through the destination between blocks of reduction
  // steps: it must hold f32.
  if (!maps.back().isIdentity() || !body.getArgument(init->getOperandNumber())
                                         .use_empty() ||
      !hasUnitInnerStride(dst) || !getElementTypeOrSelf(dst.getType()).isF32())
    return false;
  // A convolution's output pixels are the rows: 4-D operands must be
  // contiguous (viewed as M x F), others index only the filter or nothing.
  auto convOperandOk = [&](Value v, AffineMap map) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type)
      return false;
    if (map.isIdentity())
      return type.getLayout().isIdentity();
    auto dims = dimsOf(map);
    return dims && (dims->empty() || *dims == SmallVector<unsigned>{3});
  };
  if (c.im2col && !convOperandOk(dst, maps.back()))
    return false;
  std::optional<unsigned> cInput;
  for (OpOperand *in : ep.getDpsInputOperands()) {
    unsigned i = in->getOperandNumber();
    if (in->get() == out) {
      if (cInput || !maps[i].isIdentity())
        return false;
      cInput = i;
      continue;
    }
    if (!isa<MemRefType>(in->get().getType()) ||
        !maps[i].isProjectedPermutation())
      return false;
    if (c.im2col) {
      if (!convOperandOk(in->get(), maps[i]))
        return false;
      continue;
    }
    auto dims = dimsOf(maps[i]);
    if (llvm::is_contained(*dims, 1u) &&
        (dims->back() != 1 || !hasUnitInnerStride(in->get())))
      return false;
  }
  if (!cInput)
    return false;
  // The GEMM, at the contraction's place, reads and writes the epilogue's
  // operands and the values its body uses: they must be defined before it.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(ep.getRegion(), captured);
  SmallVector<Value> needed(ep->getOperands());
  needed.append(captured.begin(), captured.end());
  for (Value v : needed) {
    Operation *def = v.getDefiningOp();
    if (v != out && def &&
        (def->getBlock() != c.op->getBlock() || !def->isBeforeInBlock(c.op)))
      return false;
  }
  if (!isVectorizableBody(ep))
    return false;
  c.epilogue = ep;
  c.epilogueInput = *cInput;
  return true;
}

/// The elementwise op that computes operand `operand` (A or B) of the
/// contraction: see Contraction::prologue. Its inputs are indexed like its
/// output (so they are read where the operand would be), and nothing between
/// it and the contraction writes them.
static linalg::GenericOp findPrologue(Contraction &c, unsigned operand) {
  Value v = c.op->getOperand(operand);
  if (c.im2col || !v.getDefiningOp<memref::AllocOp>() ||
      c.op->getOperand(0) == c.op->getOperand(1))
    return nullptr;
  linalg::GenericOp producer;
  for (Operation *user : v.getUsers()) {
    if (user == c.op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || producer)
      return nullptr;
    producer = generic;
  }
  if (!producer || producer->getBlock() != c.op->getBlock() ||
      !producer->isBeforeInBlock(c.op) || !producer.hasPureBufferSemantics() ||
      producer.getNumDpsInits() != 1 || producer.getDpsInits()[0] != v ||
      producer.getNumReductionLoops() != 0 || !isVectorizableBody(producer) ||
      !producer.getRegion()
           .front()
           .getArgument(producer.getNumDpsInputs())
           .use_empty())
    return nullptr;
  for (AffineMap map : producer.getIndexingMapsArray())
    if (!map.isIdentity())
      return nullptr;
  SmallVector<Value> inputs = producer.getDpsInputs();
  for (Value in : inputs)
    if (!hasUnitInnerStride(in) || in == c.op->getOperand(2))
      return nullptr;
  for (Operation *op = producer->getNextNode(); op != c.op.getOperation();
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op) || isa<memref::AllocOp, memref::AllocaOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || llvm::any_of(linalgOp.getDpsInits(), [&](Value init) {
          return llvm::is_contained(inputs, init);
        }))
      return nullptr;
  }
  return producer;
}

/// Recreates the scalar elementwise ops of `body` on vectors of `shape`:
/// block arguments are what `map` says, values from outside the body are
/// broadcast (once: `broadcasts` caches them) and constants splat. Returns
/// the yielded value.
static Value vectorizeBody(OpBuilder &b, Location loc, Block &body,
                           IRMapping &map, ArrayRef<int64_t> shape,
                           llvm::DenseMap<Value, Value> &broadcasts) {
  for (Operation &op : body.without_terminator()) {
    auto resultType = VectorType::get(shape, op.getResult(0).getType());
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto splat = DenseElementsAttr::get(resultType, cst.getValue());
      map.map(op.getResult(0), arith::ConstantOp::create(b, loc, splat));
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      if (Value mapped = map.lookupOrNull(operand)) {
        operands.push_back(mapped);
        continue;
      }
      Value &v = broadcasts[operand];
      if (!v)
        v = vector::BroadcastOp::create(
            b, loc, VectorType::get(shape, operand.getType()), operand);
      operands.push_back(v);
    }
    OperationState state(loc, op.getName());
    state.addOperands(operands);
    state.addAttributes(op.getAttrs());
    state.addTypes(resultType);
    map.map(op.getResult(0), b.create(state)->getResult(0));
  }
  return map.lookup(body.getTerminator()->getOperand(0));
}

/// Emits the GEMM loop nest for one contraction.
/// The rows [mLo, mHi) and columns [nLo, nHi) of C a workgroup computes.
struct Rectangle {
  Value mLo, mHi, nLo, nHi;
};

class GemmBuilder {
public:
  /// `distribute`: divide C among the kernel's workgroups, by rows or by
  /// columns (whichever is larger); `rowsOnly`: by rows always.
  GemmBuilder(const Contraction &c, const Blocking &blocking, bool distribute,
              bool rowsOnly = false)
      : c(c), blk(blocking), distribute(distribute), rowsOnly(rowsOnly),
        b(c.op->getLoc(), c.op) {
    f32 = b.getF32Type();
  }

  /// Builds the GEMM in place of the contraction; returns the part of C it
  /// computes (all of it unless divided among workgroups).
  Rectangle build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }

  /// Indices into an operand given the current value of each loop dimension.
  SmallVector<Value> indicesOf(unsigned operand) {
    SmallVector<Value> idx;
    for (AffineExpr e : c.maps[operand].getResults())
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
  void packIm2col(Value packed, Value row0, Value rowCount, Value k0,
                  Value kCount);
  void microKernel(Value aPanel, Value bPanel, Value row0, Value col0,
                   Value kCount, Value first, Value last);
  SmallVector<Value> readTile(Value source, ArrayRef<Value> indices);
  void writeTile(ArrayRef<Value> rows, Value dest, ArrayRef<Value> indices);
  SmallVector<Value> applyEpilogue(ArrayRef<Value> rows, Value row0,
                                   Value col0);

  Contraction c;
  Blocking blk;
  /// Divide the rows (or the columns, when there are more) among the
  /// kernel's workgroups.
  bool distribute;
  bool rowsOnly;
  ImplicitLocOpBuilder b;
  Type f32;
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
  Value source = c.operands[operand];
  bool direct = cast<AffineDimExpr>(c.maps[operand].getResults().back())
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
    SmallVector<int64_t> shape = direct ? SmallVector<int64_t>{width}
                                        : SmallVector<int64_t>{width, blk.vk};
    SmallVector<bool> inBounds(shape.size(), false);
    // The operand's elements at idx: read, or computed by its prologue from
    // the prologue's inputs at the same place.
    auto read = [&]() -> Value {
      linalg::GenericOp prologue = c.prologue[operand];
      if (!prologue)
        return vector::TransferReadOp::create(
            b, VectorType::get(shape, f32), source, idx, zero, inBounds);
      Block &body = prologue.getRegion().front();
      IRMapping map;
      for (OpOperand *in : prologue.getDpsInputOperands()) {
        Type element = getElementTypeOrSelf(in->get().getType());
        Value pad = arith::ConstantOp::create(b, b.getZeroAttr(element));
        map.map(body.getArgument(in->getOperandNumber()),
                vector::TransferReadOp::create(
                    b, VectorType::get(shape, element), in->get(), idx, pad,
                    inBounds));
      }
      llvm::DenseMap<Value, Value> broadcasts;
      return vectorizeBody(b, b.getLoc(), body, map, shape, broadcasts);
    };
    if (direct) {
      // One row of the panel: `width` consecutive elements, masked at the
      // operand's edge.
      vector::StoreOp::create(b, read(), packed, ValueRange{p, kk, c0});
    } else {
      Value t = vector::TransposeOp::create(b, read(), ArrayRef<int64_t>{1, 0});
      for (int64_t i = 0; i < blk.vk; ++i) {
        Value row = vector::ExtractOp::create(b, t, ArrayRef<int64_t>{i});
        vector::StoreOp::create(b, row, packed,
                                ValueRange{p, add(kk, index(i)), c0});
      }
    }
  }
}

/// packBlock for a convolution's implicit A: row m of A is output pixel
/// (n, oh, ow) = m, and reduction step k is (kh, kw, c) = k, so
/// A[m][k] = input[n][oh * sh + kh * dh][ow * sw + kw * dw][c]. Each row of
/// the panel reads vk consecutive channels of one input pixel (the channel
/// count is a multiple of vk); the mr x vk block is transposed in registers.
/// Rows past the end read the last row (they are computed and not written).
void GemmBuilder::packIm2col(Value packed, Value row0, Value rowCount,
                             Value k0, Value kCount) {
  const Contraction::Im2col &im = *c.im2col;
  Value input = im.input;
  Value oh = memref::DimOp::create(b, im.shape4d, 1);
  Value ow = memref::DimOp::create(b, im.shape4d, 2);
  Value lastRow = sub(memref::DimOp::create(b, im.shape2d, 0), index(1));
  Value c0 = index(0), cWidth = index(blk.mr);
  auto mul = [&](Value x, int64_t y) {
    return y == 1 ? x : arith::MulIOp::create(b, x, index(y)).getResult();
  };
  auto div = [&](Value x, Value y) { return arith::DivUIOp::create(b, x, y); };
  auto rem = [&](Value x, Value y) { return arith::RemUIOp::create(b, x, y); };
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  scf::ForOp panels = scf::ForOp::create(b, c0, rowCount, cWidth);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(panels.getBody());
  Value p0 = panels.getInductionVar();
  Value p = div(p0, cWidth);
  // Per row: image, and the input position of the window's corner.
  SmallVector<Value> images, ys, xs;
  for (int64_t r = 0; r < blk.mr; ++r) {
    Value m = min(add(add(row0, p0), index(r)), lastRow);
    Value pixel = rem(m, arith::MulIOp::create(b, oh, ow));
    images.push_back(div(m, arith::MulIOp::create(b, oh, ow)));
    ys.push_back(mul(div(pixel, ow), im.strides[0]));
    xs.push_back(mul(rem(pixel, ow), im.strides[1]));
  }
  scf::ForOp steps = scf::ForOp::create(b, c0, kCount, index(blk.vk));
  b.setInsertionPointToStart(steps.getBody());
  Value kk = steps.getInductionVar();
  Value k = add(k0, kk);
  Value channel = rem(k, index(im.channels));
  Value tap = div(k, index(im.channels));
  Value dy = mul(div(tap, index(im.kw)), im.dilations[0]);
  Value dx = mul(rem(tap, index(im.kw)), im.dilations[1]);
  auto blockType = VectorType::get({blk.mr, blk.vk}, f32);
  Value block = arith::ConstantOp::create(b, b.getZeroAttr(blockType));
  for (int64_t r = 0; r < blk.mr; ++r) {
    Value row = vector::TransferReadOp::create(
        b, VectorType::get({blk.vk}, f32), input,
        ValueRange{images[r], add(ys[r], dy), add(xs[r], dx), channel}, zero,
        ArrayRef<bool>{true});
    block = vector::InsertOp::create(b, row, block, ArrayRef<int64_t>{r});
  }
  Value t = vector::TransposeOp::create(b, block, ArrayRef<int64_t>{1, 0});
  for (int64_t i = 0; i < blk.vk; ++i) {
    Value column = vector::ExtractOp::create(b, t, ArrayRef<int64_t>{i});
    vector::StoreOp::create(b, column, packed,
                            ValueRange{p, add(kk, index(i)), c0});
  }
}

/// The mr x nr tile of `source` at `indices` (masked at its edges), one
/// vector per row.
SmallVector<Value> GemmBuilder::readTile(Value source,
                                         ArrayRef<Value> indices) {
  auto tileType = VectorType::get({blk.mr, blk.nr}, f32);
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  Value tile = vector::TransferReadOp::create(b, tileType, source, indices,
                                              zero,
                                              ArrayRef<bool>{false, false});
  SmallVector<Value> rows;
  for (int64_t r = 0; r < blk.mr; ++r)
    rows.push_back(vector::ExtractOp::create(b, tile, ArrayRef<int64_t>{r}));
  return rows;
}

/// Writes one vector per row as a tile of `dest` (masked at its edges).
void GemmBuilder::writeTile(ArrayRef<Value> rows, Value dest,
                            ArrayRef<Value> indices) {
  auto rowType = cast<VectorType>(rows.front().getType());
  auto tileType =
      VectorType::get({blk.mr, blk.nr}, rowType.getElementType());
  Value tile = arith::ConstantOp::create(b, b.getZeroAttr(tileType));
  for (auto [r, row] : llvm::enumerate(rows))
    tile = vector::InsertOp::create(b, row, tile,
                                    ArrayRef<int64_t>{(int64_t)r});
  vector::TransferWriteOp::create(b, tile, dest, indices,
                                  ArrayRef<bool>{false, false});
}

/// The epilogue's body on vectors: for each row of the tile, its scalar ops
/// are recreated on vectors of nr elements, with C's element replaced by the
/// row of accumulators, other inputs read as a row vector (when they index
/// the column) or a broadcast scalar, and values from outside broadcast.
SmallVector<Value> GemmBuilder::applyEpilogue(ArrayRef<Value> rows,
                                              Value row0, Value col0) {
  linalg::GenericOp ep = c.epilogue;
  Block &body = ep.getRegion().front();
  ArrayRef<AffineMap> epMaps = c.epilogueMaps;
  Value sizeM = memref::DimOp::create(b, c.epilogueOperands.back(), 0);
  Value lastRow = sub(sizeM, index(1));
  auto vectorOf = [&](Type t) { return VectorType::get({blk.nr}, t); };
  // Reads input `i` of the epilogue at (row, col0) as a vector of nr.
  auto readInput = [&](unsigned i, Value row) -> Value {
    Value source = c.epilogueOperands[i];
    Type element = getElementTypeOrSelf(source.getType());
    SmallVector<Value> idx;
    bool columns = false;
    for (AffineExpr e : epMaps[i].getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      idx.push_back(d == 0 ? row : col0);
      columns |= d == 1;
    }
    if (columns) {
      Value pad = arith::ConstantOp::create(b, b.getZeroAttr(element));
      return vector::TransferReadOp::create(b, vectorOf(element), source, idx,
                                            pad, ArrayRef<bool>{false});
    }
    Value scalar = memref::LoadOp::create(b, source, idx);
    return vector::BroadcastOp::create(b, vectorOf(element), scalar);
  };
  llvm::DenseMap<Value, Value> invariant; // per tile: outside values, row-free inputs
  SmallVector<Value> results;
  for (int64_t r = 0; r < blk.mr; ++r) {
    // Rows past the end are computed on the last row and not written.
    Value row = min(add(row0, index(r)), lastRow);
    IRMapping map;
    for (OpOperand *in : ep.getDpsInputOperands()) {
      unsigned i = in->getOperandNumber();
      BlockArgument arg = body.getArgument(i);
      if (i == c.epilogueInput) {
        map.map(arg, rows[r]);
      } else if (llvm::is_contained(*dimsOf(epMaps[i]), 0u)) {
        map.map(arg, readInput(i, row));
      } else {
        Value &v = invariant[arg];
        if (!v)
          v = readInput(i, row);
        map.map(arg, v);
      }
    }
    results.push_back(
        vectorizeBody(b, b.getLoc(), body, map, {blk.nr}, invariant));
  }
  return results;
}

/// C[row0:+mr, col0:+nr] += aPanel^T * bPanel over kCount steps, with the
/// tile of C in registers. C is read and written through masked transfers,
/// so edge tiles need no separate code. `first` and `last` tell whether this
/// is the first and the last block of reduction steps: the first starts from
/// the fill value or C's initial contents, the last applies the epilogue.
void GemmBuilder::microKernel(Value aPanel, Value bPanel, Value row0,
                              Value col0, Value kCount, Value first,
                              Value last) {
  Value out = c.operands[2];
  Value dst = c.epilogue ? c.epilogueOperands.back() : out;
  dimValues[c.m] = row0;
  dimValues[c.n] = col0;
  SmallVector<Value> cIdx = indicesOf(2);
  SmallVector<Value> dstIdx = c.epilogue ? SmallVector<Value>{row0, col0} : cIdx;
  auto rowType = VectorType::get({blk.nr}, f32);
  SmallVector<Type> rowTypes(blk.mr, rowType);

  // The accumulator travels through the reduction loop as one vector per
  // row, so each becomes a register rather than an aggregate.
  SmallVector<Value> rows;
  if (c.fill || c.epilogue) {
    // Later blocks continue from the partial sums in the destination.
    auto init = scf::IfOp::create(b, rowTypes, first, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(init.thenBlock());
      SmallVector<Value> start;
      if (c.fill)
        start.assign(blk.mr, vector::BroadcastOp::create(
                                 b, rowType, c.fill.getDpsInputs()[0]));
      else
        start = readTile(out, cIdx);
      scf::YieldOp::create(b, start);
      b.setInsertionPointToStart(init.elseBlock());
      scf::YieldOp::create(b, readTile(dst, dstIdx));
    }
    rows.assign(init.getResults().begin(), init.getResults().end());
  } else {
    rows = readTile(out, cIdx);
  }

  auto tileType = VectorType::get({blk.mr, blk.nr}, f32);
  Value zeroTile = arith::ConstantOp::create(b, b.getZeroAttr(tileType));
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
        Value acc = zeroTile;
        for (auto [r, part] : llvm::enumerate(accs))
          acc = vector::InsertOp::create(nested, loc, part, acc,
                                         ArrayRef<int64_t>{(int64_t)r});
        Value sum = vector::ContractionOp::create(nested, loc, a, bv, acc,
                                                  exprRefs, iterators);
        SmallVector<Value> next;
        for (int64_t r = 0; r < blk.mr; ++r)
          next.push_back(vector::ExtractOp::create(nested, loc, sum,
                                                   ArrayRef<int64_t>{r}));
        scf::YieldOp::create(nested, loc, next);
      });
  SmallVector<Value> sums(loop.getResults().begin(), loop.getResults().end());
  if (!c.epilogue) {
    writeTile(sums, out, cIdx);
    return;
  }
  auto done = scf::IfOp::create(b, TypeRange{}, last, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(done.thenBlock());
  writeTile(applyEpilogue(sums, row0, col0), dst, dstIdx);
  b.setInsertionPointToStart(done.elseBlock());
  writeTile(sums, dst, dstIdx);
}

Rectangle GemmBuilder::build() {
  linalg::LinalgOp op = c.op;
  Value c0 = index(0);
  Value sizeM, sizeN, sizeK, sizeBatch;
  if (c.im2col) {
    // The matrix views: C is M x F, B is K x F.
    auto outType = cast<MemRefType>(c.operands[2].getType());
    auto filterType = cast<MemRefType>(c.operands[1].getType());
    staticSizes = {outType.getDimSize(0), outType.getDimSize(1),
                   filterType.getDimSize(0)};
    sizeM = memref::DimOp::create(b, c.im2col->shape2d, 0);
    sizeN = memref::DimOp::create(b, c.im2col->shape2d, 1);
    sizeK = memref::DimOp::create(b, c.operands[1], 0);
    dimValues.assign(3, c0);
  } else {
    staticSizes = op.getStaticLoopRanges();
    SmallVector<Range> ranges = op.createLoopRanges(b, b.getLoc());
    auto size = [&](unsigned dim) {
      return getValueOrCreateConstantIndexOp(b, b.getLoc(), ranges[dim].size);
    };
    dimValues.assign(op.getNumLoops(), c0);
    sizeM = size(c.m);
    sizeN = size(c.n);
    sizeK = size(c.k);
    if (c.batch)
      sizeBatch = size(*c.batch);
  }
  // The rows and columns of C this workgroup computes. Splitting the larger
  // dimension keeps the packing each workgroup repeats (all of the other
  // operand) small next to its share of the multiply-adds.
  Value mLo = c0, mHi = sizeM, nLo = c0, nHi = sizeN;
  if (distribute) {
    auto func = c.op->getParentOfType<func::FuncOp>();
    auto [rowLo, rowHi] =
        getWorkgroupRange(b, b.getLoc(), func, sizeM, blk.mr);
    auto [colLo, colHi] =
        getWorkgroupRange(b, b.getLoc(), func, sizeN, blk.nr);
    Value rows =
        rowsOnly ? arith::ConstantIntOp::create(b, 1, 1).getResult()
                 : arith::CmpIOp::create(b, arith::CmpIPredicate::uge, sizeM,
                                         sizeN)
                       .getResult();
    mLo = arith::SelectOp::create(b, rows, rowLo, c0);
    mHi = arith::SelectOp::create(b, rows, rowHi, sizeM);
    nLo = arith::SelectOp::create(b, rows, c0, colLo);
    nHi = arith::SelectOp::create(b, rows, sizeN, colHi);
  }

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
    auto batchLoop = scf::ForOp::create(b, c0, sizeBatch, index(1));
    b.setInsertionPointToStart(batchLoop.getBody());
    dimValues[*c.batch] = batchLoop.getInductionVar();
  }
  auto jcLoop = scf::ForOp::create(b, nLo, nHi, index(blk.nc));
  b.setInsertionPointToStart(jcLoop.getBody());
  Value jc = jcLoop.getInductionVar();
  Value nb = min(index(blk.nc), sub(nHi, jc));

  // With a fill or an epilogue, C is produced by the blocks of reduction
  // steps: there is at least one, empty when K is 0.
  Value kSteps = sizeK;
  if (c.fill || c.epilogue)
    kSteps = arith::MaxSIOp::create(b, sizeK, index(1));
  auto pcLoop = scf::ForOp::create(b, c0, kSteps, index(blk.kc));
  b.setInsertionPointToStart(pcLoop.getBody());
  Value pc = pcLoop.getInductionVar();
  Value kb = min(index(blk.kc), sub(sizeK, pc));
  Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, pc, c0);
  Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                                     add(pc, index(blk.kc)), sizeK);
  packBlock(1, c.n, bPacked, blk.nr, jc, nb, pc, kb);

  auto icLoop = scf::ForOp::create(b, mLo, mHi, index(blk.mc));
  b.setInsertionPointToStart(icLoop.getBody());
  Value ic = icLoop.getInductionVar();
  Value mb = min(index(blk.mc), sub(mHi, ic));
  if (c.im2col)
    packIm2col(aPacked, ic, mb, pc, kb);
  else
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
  microKernel(aPanel, bPanel, add(ic, ir), add(jc, jr), kb, first, last);

  b.setInsertionPointAfter(c.batch ? jcLoop->getParentOp() : jcLoop);
  memref::DeallocOp::create(b, aPacked);
  memref::DeallocOp::create(b, bPacked);
  return {mLo, mHi, nLo, nHi};
}

/// Whether the epilogue's destination shares no buffer with what the GEMM
/// still reads after writing partial sums into it: A, B (or what their
/// prologues read) and the epilogue's other inputs.
static bool epilogueOwnsDestination(Contraction &c) {
  auto rootBuffer = [](Value v) {
    return memref::skipViewLikeOps(cast<MemrefValue>(v));
  };
  Value dst = rootBuffer(c.epilogue.getDpsInits()[0]);
  SmallVector<Value> read = {c.op->getOperand(0), c.op->getOperand(1)};
  for (unsigned i = 0; i < 2; ++i)
    if (c.prologue[i])
      llvm::append_range(read, c.prologue[i].getDpsInputs());
  for (OpOperand *in : c.epilogue.getDpsInputOperands())
    if (in->getOperandNumber() != c.epilogueInput)
      read.push_back(in->get());
  return llvm::none_of(read, [&](Value v) { return rootBuffer(v) == dst; });
}

/// Whether `tail`, the linalg ops of the kernel after a matmul (and its
/// epilogue), is elementwise work over the rows and columns of C that each
/// workgroup can do on its own part of C: every tail op is all-parallel over
/// two loops; it writes with identity maps; every buffer the matmul or the
/// tail writes is read by tail ops only at the element being computed (an
/// identity map), and by each tail op through one such buffer at least (so
/// its loops are C's rows and columns); and nothing the tail writes is read
/// by the matmul. Buffers nobody writes may be read anyhow (a bias row).
static bool isDivisibleTail(Contraction &c, ArrayRef<linalg::LinalgOp> tail) {
  if (c.batch || c.im2col || tail.empty())
    return false;
  Operation *last = c.epilogue ? c.epilogue.getOperation() : c.op.getOperation();
  // Written buffers must be whole buffers, not views that could alias.
  auto isWholeBuffer = [](Value v) {
    return isa<BlockArgument>(v) || v.getDefiningOp<memref::AllocOp>();
  };
  llvm::SmallPtrSet<Value, 8> written;
  written.insert(c.epilogue ? c.epilogue.getDpsInits()[0] : c.op->getOperand(2));
  for (linalg::LinalgOp op : tail) {
    if (!op.hasPureBufferSemantics() || op.getNumLoops() != 2 ||
        op.getNumParallelLoops() != 2 || !last->isBeforeInBlock(op))
      return false;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (!isWholeBuffer(init.get()) ||
          !op.getMatchingIndexingMap(&init).isIdentity())
        return false;
      written.insert(init.get());
    }
  }
  if (!llvm::all_of(written, isWholeBuffer))
    return false;
  for (linalg::LinalgOp op : tail) {
    // Written buffers read through inputs (its own inits are written ones
    // by construction, which says nothing about its loops).
    bool overC = false;
    for (OpOperand &operand : op->getOpOperands()) {
      auto memref = dyn_cast<MemrefValue>(operand.get());
      if (!memref)
        continue; // a scalar
      Value buffer = memref::skipViewLikeOps(memref);
      if (!written.contains(buffer))
        continue;
      if (buffer != operand.get() ||
          !op.getMatchingIndexingMap(&operand).isIdentity())
        return false;
      overC |= op.isDpsInput(&operand);
    }
    if (!overC)
      return false;
  }
  SmallVector<Value> read = {c.op->getOperand(0), c.op->getOperand(1)};
  for (unsigned i = 0; i < 2; ++i)
    if (c.prologue[i])
      llvm::append_range(read, c.prologue[i].getDpsInputs());
  if (c.epilogue)
    llvm::append_range(read, c.epilogue.getDpsInputs());
  return llvm::none_of(read, [&](Value v) {
    auto memref = dyn_cast<MemrefValue>(v);
    return memref && written.contains(memref::skipViewLikeOps(memref));
  });
}

/// Whether the contraction (with its fill and epilogue) is all the kernel
/// does to memory, apart from allocating and freeing, or is followed by
/// elementwise work over the rows and columns of C (`tail`, see
/// isDivisibleTail): only then may it be divided among workgroups, since
/// every workgroup runs the whole kernel and anything else would run once
/// per workgroup, on its own scratch buffers.
static bool isWholeKernel(Contraction &c, size_t numContractions,
                          SmallVectorImpl<linalg::LinalgOp> &tail) {
  if (numContractions != 1)
    return false;
  auto func = c.op->getParentOfType<func::FuncOp>();
  if (!func || c.op->getParentOp() != func.getOperation())
    return false;
  Value out = c.op->getOperand(2);
  for (Operation &op : func.getBody().front()) {
    if (&op == c.op.getOperation() || &op == c.fill.getOperation() ||
        &op == c.epilogue.getOperation() || isMemoryEffectFree(&op) ||
        isa<func::ReturnOp>(op))
      continue;
    bool staging = false;
    for (unsigned i = 0; i < 2; ++i) {
      if (!c.prologue[i])
        continue;
      Value v = c.op->getOperand(i);
      staging |= &op == c.prologue[i].getOperation() ||
                 (isa<memref::AllocOp, memref::DeallocOp>(op) &&
                  (llvm::is_contained(op.getOperands(), v) ||
                   llvm::is_contained(op.getResults(), v)));
    }
    if (staging)
      continue;
    // The staging buffer of a folded epilogue disappears with it.
    if (c.epilogue && isa<memref::AllocOp, memref::DeallocOp>(op) &&
        llvm::is_contained(op.getOperands(), out))
      continue;
    if (c.epilogue && op.getNumResults() == 1 && op.getResult(0) == out)
      continue;
    // Scratch buffers of the tail come and go.
    if (isa<memref::AllocOp, memref::DeallocOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return false;
    tail.push_back(linalgOp);
  }
  return tail.empty() || isDivisibleTail(c, tail);
}

/// Cuts each op of a divisible tail down to the part of C its workgroup
/// computed.
static LogicalResult divideTail(MutableArrayRef<linalg::LinalgOp> tail,
                                const Rectangle &part) {
  OpBuilder b(tail.front());
  Location loc = tail.front().getLoc();
  SmallVector<OpFoldResult> offsets = {part.mLo, part.nLo};
  SmallVector<OpFoldResult> sizes = {
      arith::SubIOp::create(b, loc, part.mHi, part.mLo).getResult(),
      arith::SubIOp::create(b, loc, part.nHi, part.nLo).getResult()};
  for (linalg::LinalgOp op : tail) {
    b.setInsertionPoint(op);
    if (failed(cast<TilingInterface>(op.getOperation())
                   .getTiledImplementation(b, offsets, sizes)))
      return op.emitOpError("could not be divided among workgroups with the "
                            "matmul before it");
    op->erase();
  }
  return success();
}

namespace {

struct CPUMatmulPass : public fw::impl::CPUMatmulPassBase<CPUMatmulPass> {
  using CPUMatmulPassBase::CPUMatmulPassBase;

  Blocking blocking() const {
    TuningConfig config;
    if (mr > 0)
      config.mr = mr;
    if (nr > 0)
      config.nr = nr;
    if (kc > 0)
      config.kc = kc;
    if (mc > 0)
      config.mc = mc;
    GemmBlocking sizes =
        getGemmBlocking(vectorBits, vectorRegisters, l1Bytes, l2Bytes, config);
    Blocking blk;
    blk.mr = sizes.mr;
    blk.nr = sizes.nr;
    blk.kc = Blocking::roundUp(sizes.kc, blk.vk);
    blk.mc = sizes.mc;
    blk.nc = std::max<int64_t>(blk.nr, nc / blk.nr * blk.nr);
    return blk;
  }

  void runOnOperation() override {
    Blocking blk = blocking();
    SmallVector<Contraction, 2> found;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<Contraction> c = matchContraction(op))
        found.push_back(*c);
      else if (std::optional<Contraction> c = matchConvolution(op, blk.vk))
        found.push_back(*c);
    });
    for (Contraction &c : found) {
      if (fuse) {
        c.fill = findFill(c);
        for (unsigned i = 0; i < 2; ++i)
          c.prologue[i] = findPrologue(c, i);
        if (findEpilogue(c) && !epilogueOwnsDestination(c))
          c.epilogue = nullptr;
      }
      prepare(c);
      SmallVector<linalg::LinalgOp> tail;
      bool divide = distribute && isWholeKernel(c, found.size(), tail);
      // With a tail, every workgroup allocates the kernel's intermediates
      // whole: divided by rows, each touches only its own pages of them.
      Rectangle part = GemmBuilder(c, blk, divide, !tail.empty()).build();
      // The tail does its elementwise work on the workgroup's part of C.
      if (divide && !tail.empty() && failed(divideTail(tail, part)))
        return signalPassFailure();
      Value out = c.op.getDpsInitOperand(0)->get();
      Value staged[2] = {c.op->getOperand(0), c.op->getOperand(1)};
      c.op->erase();
      if (c.fill)
        c.fill->erase();
      for (unsigned i = 0; i < 2; ++i) {
        if (!c.prologue[i])
          continue;
        // The operand it computed was only staged for the contraction.
        c.prologue[i]->erase();
        for (Operation *user : llvm::make_early_inc_range(staged[i].getUsers()))
          user->erase();
        staged[i].getDefiningOp()->erase();
      }
      if (c.epilogue) {
        // C was only a staging buffer between the contraction and the
        // epilogue.
        c.epilogue->erase();
        for (Operation *user : llvm::make_early_inc_range(out.getUsers()))
          user->erase();
        out.getDefiningOp()->erase();
      }
    }
  }
};

} // namespace
