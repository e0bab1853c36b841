//===- ChecksBeforeFolding.cpp - Checks the canonicalizer would drop ------===//
//
// Some canonicalizations take an op's run-time condition away with the op: a
// tensor.dim of a cast that makes a size static folds to that size and the
// cast goes (casts through an unranked type are joined first); a rank-1
// tensor.reshape to its own type folds to its source, a reshape of a reshape
// skips the inner one, a reshape of a constant folds; an insert of a cast
// (or a chain of them) that forgets a static size takes that size instead of
// the slice's; at the top level, a tensor.dim of a slice or of an elementwise
// op reads the size the op's check compares, and whole pairs (a collapse of
// an expand, a slice of an insert) fold away. Their checks are made here,
// before any canonicalization, so that a call with data that breaks them
// still fails with a message: those of the casts, reshapes and inserts
// anywhere, and every check the host makes of a top-level op.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::fw;

/// The sizes a chain of casts ending in `v` knows statically: in each
/// dimension, the static size of any ranked type along it (-1: none; empty
/// where the ranks differ).
static SmallVector<int64_t> staticSizesAlongCasts(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return {};
  SmallVector<int64_t> sizes(type.getRank(), -1);
  for (;;) {
    if (auto ranked = dyn_cast<RankedTensorType>(v.getType())) {
      if (ranked.getRank() != type.getRank())
        return {};
      for (auto [d, size] : llvm::enumerate(ranked.getShape()))
        if (!ShapedType::isDynamic(size))
          sizes[d] = size;
    }
    auto castOp = v.getDefiningOp<tensor::CastOp>();
    if (!castOp)
      return sizes;
    v = castOp.getSource();
  }
}

/// The ranked tensor a chain of casts through unranked types starts from.
static Value rankedOrigin(Value v) {
  while (auto castOp = v.getDefiningOp<tensor::CastOp>()) {
    v = castOp.getSource();
    if (isa<RankedTensorType>(v.getType()))
      return v;
  }
  return nullptr;
}

/// Checks that each size a cast from an unranked tensor makes static is the
/// size of the ranked tensor the chain started from (the canonicalizer joins
/// the casts, then folds a tensor.dim of the last to that size).
static void unrankedCastChecks(OpBuilder &b, tensor::CastOp castOp) {
  auto to = cast<RankedTensorType>(castOp.getType());
  Value origin = rankedOrigin(castOp.getSource());
  if (!origin)
    return;
  auto from = cast<RankedTensorType>(origin.getType());
  Location loc = castOp.getLoc();
  if (from.getRank() != to.getRank()) {
    Value never = arith::ConstantIntOp::create(b, loc, 0, 1);
    AssertOp::create(b, loc, never,
                     b.getStringAttr(checkMessage(
                         castOp, "the operand has rank " +
                                     Twine(from.getRank()) + ", not " +
                                     Twine(to.getRank()))));
    return;
  }
  for (int64_t d = 0, e = to.getRank(); d < e; ++d) {
    if (to.isDynamicDim(d) || !from.isDynamicDim(d))
      continue;
    Value same = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        tensor::DimOp::create(b, loc, origin, d),
        arith::ConstantIndexOp::create(b, loc, to.getDimSize(d)));
    AssertOp::create(b, loc, same,
                     b.getStringAttr(checkMessage(
                         castOp, "dimension " + Twine(d) +
                                     " of the operand must be " +
                                     Twine(to.getDimSize(d)))));
  }
}

/// Checks that each size a cast of the inserted tensor forgot is the slice's
/// size there (the canonicalizer replaces the slice's by the cast's).
static void castInsertChecks(OpBuilder &b, Operation *op) {
  auto insert = cast<OffsetSizeAndStrideOpInterface>(op);
  Value source = isa<tensor::InsertSliceOp>(op)
                     ? cast<tensor::InsertSliceOp>(op).getSource()
                     : cast<tensor::ParallelInsertSliceOp>(op).getSource();
  if (!source.getDefiningOp<tensor::CastOp>())
    return;
  SmallVector<int64_t> known = staticSizesAlongCasts(source);
  if (known.empty())
    return;
  auto type = cast<RankedTensorType>(source.getType());
  llvm::SmallBitVector dropped =
      isa<tensor::InsertSliceOp>(op)
          ? cast<tensor::InsertSliceOp>(op).getDroppedDims()
          : cast<tensor::ParallelInsertSliceOp>(op).getDroppedDims();
  Location loc = op->getLoc();
  int64_t sourceDim = 0;
  for (auto [d, size] : llvm::enumerate(insert.getMixedSizes())) {
    if (dropped.test(d))
      continue;
    int64_t s = sourceDim++;
    auto value = dyn_cast<Value>(size);
    if (!value || known[s] < 0 || !type.isDynamicDim(s))
      continue;
    Value same = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, value,
        arith::ConstantIndexOp::create(b, loc, known[s]));
    AssertOp::create(b, loc, same,
                     b.getStringAttr(checkMessage(
                         op, "dimension " + Twine(s) +
                                 " of the inserted tensor differs from the "
                                 "slice size")));
  }
}

namespace {
/// Collects the tensor.dim ops a builder creates.
struct DimCollector : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    if (isa<tensor::DimOp>(op))
      created.push_back(op);
  }
  SmallVector<Operation *> created;
};
} // namespace

/// Whether `op` reads or writes an element of a tensor the canonicalizer could
/// fold the access into (an extract of a constant, a fill, a tensor built
/// from elements or by an insert; an insert into a constant): its index, read
/// from tensor data too, is then checked before; else the kernel that does
/// the access checks it.
static bool readsFoldingSource(Operation *op) {
  if (auto insert = dyn_cast<tensor::InsertOp>(op)) // into a splat of it
    return insert.getDest().getDefiningOp<arith::ConstantOp>() != nullptr;
  auto extract = dyn_cast<tensor::ExtractOp>(op);
  if (!extract)
    return false;
  Operation *def = extract.getTensor().getDefiningOp();
  return def && isa<arith::ConstantOp, linalg::FillOp, tensor::SplatOp,
                    tensor::FromElementsOp, tensor::InsertOp,
                    tensor::GenerateOp>(def);
}

void mlir::fw::emitChecksBeforeFolding(func::FuncOp func) {
  // Every reshape (a rank-1 one to its own type folds to its source, one of
  // a reshape skips it, one of a constant folds, a tensor.dim of a static
  // result folds to that size), the casts that make a size static, inserts.
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
      auto from = dyn_cast<RankedTensorType>(castOp.getSource().getType());
      auto to = dyn_cast<RankedTensorType>(castOp.getType());
      if (to && (!from || llvm::any_of(
                              llvm::seq<int64_t>(0, to.getRank()),
                              [&](int64_t d) {
                                return from.isDynamicDim(d) &&
                                       !to.isDynamicDim(d);
                              })))
        ops.push_back(op);
    } else if (isa<tensor::ReshapeOp, tensor::InsertSliceOp,
                   tensor::ParallelInsertSliceOp>(op)) {
      ops.push_back(op);
    }
  });
  // The sizes the checks read (tensor.dim ops) are collected, to be resolved
  // below.
  DimCollector dims;
  OpBuilder b(func.getContext(), &dims);
  auto identity = [](Value v) { return v; };
  for (Operation *op : ops) {
    // At the top level the checks run on the host where they read no tensor
    // data (fw-form-tasks gives the others a task of their own); inside a
    // loop or a branch, in the kernel the op becomes part of, where
    // fw-task-checks checks and guards it again if it is still there.
    bool onHost = op->getParentOp() == func.getOperation();
    // A parallel insert sits in the terminator of its loop: its checks go
    // before that terminator.
    if (isa<tensor::ParallelInsertSliceOp>(op))
      b.setInsertionPoint(op->getParentOp());
    else
      b.setInsertionPoint(op);
    if (isa<tensor::ReshapeOp>(op)) {
      emitShapeChecks(b, op, identity, /*inKernel=*/true);
    } else if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
      if (isa<RankedTensorType>(castOp.getSource().getType()))
        emitShapeChecks(b, op, identity, /*inKernel=*/!onHost);
      else
        unrankedCastChecks(b, castOp);
    } else {
      castInsertChecks(b, op);
      continue; // The other checks of an insert at the top level are below.
    }
    if (onHost)
      op->setAttr(kHostCheckedAttrName, b.getUnitAttr());
  }

  // The other checks the host makes of an op at the top level, made before
  // the canonicalizer too (a tensor.dim of a slice or of an elementwise op
  // folds to a size the op's check would compare; a collapse of an expand,
  // an extract of an insert, an insert of an extract, an identity
  // linalg.generic fold away). fw-form-tasks then leaves those ops alone;
  // those that read tensor data get a task of their own.
  for (Operation &op : func.getBody().getOps()) {
    if (op.hasAttr(kHostCheckedAttrName) ||
        !isa<linalg::LinalgOp, linalg::SoftmaxOp, tensor::ConcatOp,
             tensor::ExtractSliceOp, tensor::InsertSliceOp,
             tensor::ExpandShapeOp, tensor::InsertOp, tensor::ExtractOp,
             tensor::PadOp, scf::ForOp>(op))
      continue;
    b.setInsertionPoint(&op);
    // An element index read from the data too where the access could fold
    // (an extract of a splat or of a fill folds to the value, whatever the
    // index).
    emitShapeChecks(b, &op, identity, /*inKernel=*/readsFoldingSource(&op));
    op.setAttr(kHostCheckedAttrName, b.getUnitAttr());
  }

  // A size read from an op's result is read from its operands instead (those
  // of a linalg op's init, a reshape's, ...): a check is no use of an
  // intermediate tensor, which would keep elementwise fusion from folding its
  // producer away, and sees no size a later fold changes (a cast of a fill
  // folds into the fill's init, a tensor.dim of which is then the cast's).
  RewritePatternSet patterns(func.getContext());
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(dims.created, std::move(patterns), config);
}
