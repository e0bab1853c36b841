//===- InputLowerings.cpp - Input ops rewritten into others ---------------===//
//
// Packs, unpacks, gathers, scatters and pads of empty tensors of the input,
// rewritten by fw-prepare-input into ops the rest of the pipeline bufferizes
// and maps onto every target (InputLowerings.h).
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/InputLowerings.h"

#include "fw/Dialect/FW/IR/FWOps.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::fw;

/// Whether `type` is a tensor with a dimension of static size 0 (empty).
static bool hasStaticZero(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && llvm::is_contained(ranked.getShape(), 0);
}

namespace {

/// Marks every tensor op a rewriter creates as written as `name`.
struct MarkCreated : public RewriterBase::Listener {
  explicit MarkCreated(StringAttr name) : name(name) {}
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    if (!op->hasAttr(kWrittenAsAttrName) &&
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>))
      op->setAttr(kWrittenAsAttrName, name);
  }
  StringAttr name;
};

/// Builds the rewrite of one op: its checks, then the ops that replace it.
class Lowering {
public:
  Lowering(Operation *op, RewriterBase &rewriter)
      : op(op), b(rewriter), loc(op->getLoc()),
        name(b.getStringAttr(op->getName().getStringRef())) {}

  /// Asserts that dimension `d` of `x` equals dimension `e` of `y` where
  /// either is known at run time only.
  void sameSize(Value x, int64_t d, Value y, int64_t e, const Twine &what) {
    auto xType = cast<RankedTensorType>(x.getType());
    auto yType = cast<RankedTensorType>(y.getType());
    if (!xType.isDynamicDim(d) && !yType.isDynamicDim(e))
      return;
    Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       size(x, d), size(y, e));
    AssertOp::create(b, loc, same, b.getStringAttr(checkMessage(op, what)));
  }

  Value size(Value x, int64_t d) {
    return getValueOrCreateConstantIndexOp(b, loc,
                                           tensor::getMixedSize(b, loc, x, d));
  }

  /// Indices of index type cast from integers (then reshaped, sliced or
  /// cast, maybe) are read as those integers, cast alike: no tensor of index
  /// type is made, which buffers between tasks cannot hold.
  Value integerIndices(Value indices) {
    SmallVector<Operation *> chain;
    Value v = indices;
    while (Operation *def = v.getDefiningOp()) {
      if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
        break;
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
               tensor::ExtractSliceOp, tensor::CastOp>(def))
        return indices;
      chain.push_back(def);
      v = def->getOperand(0);
    }
    Operation *indexCast = v.getDefiningOp();
    if (!indexCast)
      return indices;
    unsignedIndices = isa<arith::IndexCastUIOp>(indexCast);
    // The chain again, on the integers.
    Value integers = indexCast->getOperand(0);
    Type element = getElementTypeOrSelf(integers.getType());
    for (Operation *op : llvm::reverse(chain)) {
      IRMapping map;
      map.map(op->getOperand(0), integers);
      Operation *copy = b.clone(*op, map);
      Value result = copy->getResult(0);
      result.setType(cast<ShapedType>(result.getType()).clone(element));
      integers = result;
    }
    return integers;
  }

  /// Element `k` of the index vector at `batch` in `indices`, as an index
  /// (an integer one is signed unless cast unsigned: a negative index fails
  /// its check).
  Value indexAt(Value indices, ValueRange batch, int64_t k) {
    SmallVector<Value> at(batch);
    at.push_back(arith::ConstantIndexOp::create(b, loc, k));
    Value v = tensor::ExtractOp::create(b, loc, indices, at);
    mark(v.getDefiningOp());
    if (v.getType().isIndex())
      return v;
    if (unsignedIndices)
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }

  /// Names the op the program wrote, for `op`'s own checks.
  void mark(Operation *created) {
    created->setAttr(kWrittenAsAttrName, name);
  }

  LogicalResult gather(tensor::GatherOp gather);
  LogicalResult scatter(tensor::ScatterOp scatter);
  LogicalResult emptyPad(tensor::PadOp pad);

private:
  Operation *op;
  RewriterBase &b;
  Location loc;
  StringAttr name;
  bool unsignedIndices = false;
};

} // namespace

/// result[batch..., rest...] = source[rest... with each gathered dimension
/// replaced by indices[batch..., k]]; a gathered dimension is 1 in the
/// result, or left out where the result's rank is reduced. The sizes always
/// agree (the verifier's).
LogicalResult Lowering::gather(tensor::GatherOp gather) {
  Value source = gather.getSource(),
        indices = integerIndices(gather.getIndices());
  RankedTensorType resultType = gather.getResultType();
  int64_t rank = resultType.getRank();
  int64_t batchRank = gather.getIndicesType().getRank() - 1;
  int64_t sourceRank = gather.getSourceType().getRank();
  ArrayRef<int64_t> dims = gather.getGatherDims();
  bool reduced = rank != batchRank + sourceRank;
  // Where each dimension of the result comes from: the batch's from the
  // indices, the others from the source (a gathered one is 1).
  SmallVector<std::pair<Value, int64_t>> from;
  for (int64_t r = 0; r < batchRank; ++r)
    from.push_back({indices, r});
  SmallVector<int64_t> resultDimOf(sourceRank, -1);
  for (int64_t s = 0; s < sourceRank; ++s) {
    if (!llvm::is_contained(dims, s)) {
      resultDimOf[s] = from.size();
      from.push_back({source, s});
    } else if (!reduced) {
      from.push_back({Value(), 0});
    }
  }
  // (The verifier makes the result's type the one these give.)
  SmallVector<Value> dynamicSizes;
  for (auto [r, origin] : llvm::enumerate(from))
    if (resultType.isDynamicDim(r))
      dynamicSizes.push_back(size(origin.first, origin.second));
  Value init = tensor::EmptyOp::create(b, loc, resultType, dynamicSizes);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &, Location, ValueRange) {
        SmallVector<Value> ivs;
        for (int64_t r = 0; r < rank; ++r)
          ivs.push_back(linalg::IndexOp::create(b, loc, r));
        ValueRange batch = ValueRange(ivs).take_front(batchRank);
        SmallVector<Value> at(sourceRank);
        for (int64_t s = 0; s < sourceRank; ++s)
          if (resultDimOf[s] >= 0)
            at[s] = ivs[resultDimOf[s]];
        for (auto [k, s] : llvm::enumerate(dims))
          at[s] = indexAt(indices, batch, k);
        auto element = tensor::ExtractOp::create(b, loc, source, at);
        mark(element);
        linalg::YieldOp::create(b, loc, element.getResult());
      });
  mark(generic);
  b.replaceOp(gather, generic.getResults());
  return success();
}

/// Each slice source[batch..., rest...] goes into the destination at the
/// place indices[batch..., k] gives in each scattered dimension (1 there in
/// the source, or left out where its rank is reduced), all slices at once:
/// the op promises that no two places are the same (`unique`).
LogicalResult Lowering::scatter(tensor::ScatterOp scatter) {
  Value source = scatter.getSource(), dest = scatter.getDest(),
        indices = integerIndices(scatter.getIndices());
  auto sourceType = cast<RankedTensorType>(source.getType());
  auto destType = scatter.getDestType();
  int64_t batchRank = scatter.getIndicesType().getRank() - 1;
  int64_t destRank = destType.getRank();
  ArrayRef<int64_t> dims = scatter.getScatterDims();
  bool reduced = sourceType.getRank() != batchRank + destRank;
  // The source's batch is the indices', its other sizes the destination's.
  for (int64_t d = 0; d < batchRank; ++d)
    sameSize(source, d, indices, d,
             "dimension " + Twine(d) + " of the source differs from " +
                 "dimension " + Twine(d) + " of the indices");
  for (int64_t d = 0, s = batchRank; d < destRank; ++d) {
    if (llvm::is_contained(dims, d)) {
      if (!reduced)
        ++s;
      continue;
    }
    sameSize(source, s, dest, d,
             "dimension " + Twine(s) + " of the source differs from " +
                 "dimension " + Twine(d) + " of the destination");
    ++s;
  }
  // An empty destination takes nothing (and a slice of a size-0 dimension
  // at offset 0 would not verify).
  if (hasStaticZero(destType)) {
    b.replaceOp(scatter, dest);
    return success();
  }
  // The slice of the source at `batch` and its place in `out`.
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> unit(destRank, one);
  auto place = [&](ValueRange batch, Value out, Value &slice,
                   SmallVector<OpFoldResult> &at,
                   SmallVector<OpFoldResult> &extent) {
    SmallVector<OpFoldResult> offsets(batch.begin(), batch.end());
    SmallVector<OpFoldResult> sizes(batchRank, one);
    SmallVector<int64_t> sliceShape;
    for (int64_t s = batchRank; s < sourceType.getRank(); ++s) {
      offsets.push_back(zero);
      sizes.push_back(tensor::getMixedSize(b, loc, source, s));
      sliceShape.push_back(sourceType.getDimSize(s));
    }
    auto extract = tensor::ExtractSliceOp::create(
        b, loc,
        RankedTensorType::get(sliceShape, sourceType.getElementType()),
        source, offsets, sizes,
        SmallVector<OpFoldResult>(sourceType.getRank(), one));
    mark(extract);
    slice = extract;
    at.assign(destRank, zero);
    for (int64_t d = 0; d < destRank; ++d)
      extent.push_back(tensor::getMixedSize(b, loc, out, d));
    for (auto [k, d] : llvm::enumerate(dims)) {
      at[d] = indexAt(indices, batch, k);
      extent[d] = one;
    }
  };
  Value slice;
  SmallVector<OpFoldResult> at, extent;
  // One update (a batch of static size 1): an insert (a loop of one
  // iteration would be folded into one without the op's name).
  auto indicesType = cast<RankedTensorType>(indices.getType());
  if (llvm::all_of(indicesType.getShape().drop_back(),
                   [](int64_t size) { return size == 1; })) {
    SmallVector<Value> batch(batchRank,
                             arith::ConstantIndexOp::create(b, loc, 0));
    place(batch, dest, slice, at, extent);
    auto insert = tensor::InsertSliceOp::create(b, loc, slice, dest, at,
                                                extent, unit);
    mark(insert);
    b.replaceOp(scatter, insert.getResult());
    return success();
  }
  SmallVector<OpFoldResult> counts;
  for (int64_t d = 0; d < batchRank; ++d)
    counts.push_back(tensor::getMixedSize(b, loc, indices, d));
  auto forall = scf::ForallOp::create(b, loc, counts, ValueRange{dest},
                                      std::nullopt);
  mark(forall);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  Value out = forall.getRegionIterArgs().front();
  place(forall.getInductionVars(), out, slice, at, extent);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  auto insert =
      tensor::ParallelInsertSliceOp::create(b, loc, slice, out, at, extent,
                                            unit);
  mark(insert);
  b.replaceOp(scatter, forall.getResults());
  return success();
}

/// A pad of an empty tensor (a static size 0) is all padding: a fill of the
/// padding value, or a tensor.generate of the pad's body where that depends
/// on the indices (bufferized, the pad would insert its empty source at an
/// offset past the end of a size-0 dimension, which does not verify).
LogicalResult Lowering::emptyPad(tensor::PadOp pad) {
  ReifiedRankedShapedTypeDims reified;
  if (failed(reifyResultShapes(b, pad, reified)))
    return failure();
  RankedTensorType type = pad.getResultType();
  SmallVector<Value> dynamicSizes;
  for (auto [d, size] : llvm::enumerate(reified.front()))
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  Operation *all;
  if (Value padding = pad.getConstantPaddingValue()) {
    Value empty = tensor::EmptyOp::create(b, loc, type, dynamicSizes);
    all = linalg::FillOp::create(b, loc, ValueRange{padding},
                                 ValueRange{empty});
  } else {
    auto generate = tensor::GenerateOp::create(b, loc, type, dynamicSizes);
    b.inlineRegionBefore(pad.getRegion(), generate.getBody(),
                         generate.getBody().end());
    all = generate;
  }
  mark(all);
  b.replaceOp(pad, all->getResults());
  return success();
}

/// `type` with each dynamic size that `known` gives static.
static RankedTensorType withKnownSizes(RankedTensorType type,
                                       ArrayRef<int64_t> known) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [size, k] : llvm::zip(shape, known))
    if (ShapedType::isDynamic(size))
      size = k;
  return type.clone(shape);
}

/// `value` cast to `type`, unless it has it.
static Value castTo(RewriterBase &rewriter, Location loc, Value value,
                    RankedTensorType type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(rewriter, loc, type, value);
}

/// A pack or unpack whose tiles are constant values, or whose packed tensor
/// (or unpacked one, in a dimension that is not tiled) leaves dynamic a size
/// the other side fixes, rebuilt with constant tiles and those sizes static
/// (casts around it): upstream's lowerings build ops of mismatched types
/// otherwise. The checks of the sizes were made before.
template <typename RelayoutOp>
static RelayoutOp withStaticSizes(RewriterBase &rewriter, RelayoutOp op) {
  constexpr bool isPack = std::is_same_v<RelayoutOp, linalg::PackOp>;
  SmallVector<OpFoldResult> tiles;
  SmallVector<int64_t> staticTiles;
  for (OpFoldResult tile : op.getMixedTiles()) {
    staticTiles.push_back(*foldedConstant(tile));
    tiles.push_back(rewriter.getIndexAttr(staticTiles.back()));
  }
  Value source = op.getSource(), dest = op.getDest();
  RankedTensorType unpackedType = isPack ? op.getSourceType() : op.getDestType();
  RankedTensorType packedType = isPack ? op.getDestType() : op.getSourceType();
  RankedTensorType packed = withKnownSizes(
      packedType,
      linalg::PackOp::inferPackedType(unpackedType, staticTiles,
                                      op.getInnerDimsPos(),
                                      op.getOuterDimsPerm())
          .getShape());
  RankedTensorType unpacked = unpackedType;
  if constexpr (!isPack) {
    // A dimension that is not tiled has the packed tensor's size.
    SmallVector<int64_t> known(unpackedType.getRank(), ShapedType::kDynamic);
    ArrayRef<int64_t> perm = op.getOuterDimsPerm();
    for (int64_t i = 0, e = unpackedType.getRank(); i < e; ++i) {
      int64_t d = perm.empty() ? i : perm[i];
      if (!llvm::is_contained(op.getInnerDimsPos(), d))
        known[d] = packed.getDimSize(i);
    }
    unpacked = withKnownSizes(unpackedType, known);
  }
  bool constantValues = llvm::any_of(op.getMixedTiles(), [](OpFoldResult t) {
    return isa<Value>(t);
  });
  if (!constantValues && packed == packedType && unpacked == unpackedType)
    return op;
  Location loc = op.getLoc();
  RelayoutOp rebuilt;
  if constexpr (isPack) {
    std::optional<Value> padding;
    if (op.getPaddingValue())
      padding = op.getPaddingValue();
    rebuilt = linalg::PackOp::create(
        rewriter, loc, source, castTo(rewriter, loc, dest, packed),
        op.getInnerDimsPos(), tiles, padding, op.getOuterDimsPerm());
  } else {
    rebuilt = linalg::UnPackOp::create(
        rewriter, loc, castTo(rewriter, loc, source, packed),
        castTo(rewriter, loc, dest, unpacked), op.getInnerDimsPos(), tiles,
        op.getOuterDimsPerm());
  }
  rewriter.replaceOp(op, castTo(rewriter, loc, rebuilt.getResult(),
                                cast<RankedTensorType>(op.getType())));
  return rebuilt;
}

LogicalResult mlir::fw::lowerInputOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    auto pad = dyn_cast<tensor::PadOp>(op);
    if (isa<linalg::PackOp, linalg::UnPackOp, tensor::GatherOp,
            tensor::ScatterOp>(op) ||
        (pad && hasStaticZero(pad.getSourceType())))
      ops.push_back(op);
  });
  auto identity = [](Value v) { return v; };
  for (Operation *op : ops) {
    // (`op` may be replaced before its lowering fails.)
    Location loc = op->getLoc();
    StringRef name = op->getName().getStringRef();
    MarkCreated mark(StringAttr::get(op->getContext(), name));
    IRRewriter rewriter(op->getContext(), &mark);
    rewriter.setInsertionPoint(op);
    Lowering lowering(op, rewriter);
    LogicalResult lowered = failure();
    if (auto gather = dyn_cast<tensor::GatherOp>(op)) {
      lowered = lowering.gather(gather);
    } else if (auto scatter = dyn_cast<tensor::ScatterOp>(op)) {
      lowered = lowering.scatter(scatter);
    } else if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      // Its paddings computed at run time must not be negative, as any
      // pad's (ShapeChecks.cpp).
      emitShapeChecks(rewriter, op, identity,
                      /*inKernel=*/op->getParentOp() != func.getOperation());
      lowered = lowering.emptyPad(pad);
    } else {
      // The checks of the sizes (ShapeChecks.cpp), then upstream's lowering.
      emitShapeChecks(rewriter, op, identity,
                      /*inKernel=*/op->getParentOp() != func.getOperation());
      // An empty result is its destination (upstream's lowerings would
      // slice its size-0 dimensions at offset 0, which does not verify).
      if (hasStaticZero(op->getResult(0).getType())) {
        rewriter.replaceOp(op, cast<DestinationStyleOpInterface>(op)
                                   .getDpsInitOperand(0)
                                   ->get());
        continue;
      }
      if (auto pack = dyn_cast<linalg::PackOp>(op))
        lowered = linalg::lowerPack(rewriter, withStaticSizes(rewriter, pack));
      else
        lowered = linalg::lowerUnPack(
            rewriter, withStaticSizes(rewriter, cast<linalg::UnPackOp>(op)));
    }
    if (failed(lowered))
      return emitError(loc) << "'" << name
                            << "' op is not supported yet in this form";
  }
  return success();
}
