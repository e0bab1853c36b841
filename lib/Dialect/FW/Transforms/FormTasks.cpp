//===- FormTasks.cpp - Wrap tensor computations in fw.task ----------------===//
//
// Forms one fw.task per tensor computation of a function. Values a task needs
// from outside become operands when they are tensors computed elsewhere; cheap
// producers (constants, tensor.empty, index arithmetic, tensor.dim) are
// rematerialized inside so the task region is isolated from above.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "fw/Dialect/FW/Transforms/CostEstimate.h"
#include "fw/Dialect/FW/Transforms/FormTasks.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fw {
#define GEN_PASS_DEF_FORMTASKSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Ops whose results may be recomputed inside a task instead of being passed
/// in: side-effect free, region free, and cheap.
bool mlir::fw::isRematerializable(Operation *op) {
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  if (isa<tensor::EmptyOp, tensor::DimOp, arith::ConstantOp,
          affine::AffineApplyOp, tensor::ExtractOp>(op))
    return true;
  // Scalar arithmetic (index computations feeding shapes), and the math the
  // host lowers to LLVM intrinsics (torch-mlir sizes an upsampled image with
  // math.floor).
  if (isa<arith::ArithDialect>(op->getDialect()) ||
      isa<math::AbsFOp, math::AbsIOp, math::CeilOp, math::CopySignOp,
          math::CosOp, math::CountLeadingZerosOp, math::CountTrailingZerosOp,
          math::CtPopOp, math::Exp2Op, math::ExpOp, math::FloorOp,
          math::FmaOp, math::Log10Op, math::Log2Op, math::LogOp,
          math::PowFOp, math::RoundEvenOp, math::RoundOp, math::RsqrtOp,
          math::SinOp, math::SqrtOp, math::TruncOp>(op))
    return llvm::all_of(op->getOperandTypes(),
                        [](Type t) { return t.isIntOrIndexOrFloat(); }) &&
           llvm::all_of(op->getResultTypes(),
                        [](Type t) { return t.isIntOrIndexOrFloat(); });
  return false;
}

namespace {

/// Ops that stay on the host between tasks.
bool staysOnHost(Operation *op) {
  if (isa<func::ReturnOp, TaskOp, AssertOp, tensor::EmptyOp, tensor::DimOp>(
          op))
    return true;
  if (isa<arith::ConstantOp>(op))
    return true;
  return isRematerializable(op) &&
         llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<TensorType>(t); });
}

/// Returns the fill that produces `init` when `user` is its only user.
linalg::FillOp getExclusiveFill(Value init, Operation *user) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !init.hasOneUse() || fill->getBlock() != user->getBlock() ||
      !fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return nullptr;
  return fill;
}

/// Returns the value outside the task that has the same shape as `value`:
/// results of ops joining the task (a fill of the init) are traced to their
/// own init, which stays outside.
Value traceShapeSource(Value value, ArrayRef<Operation *> ops) {
  while (auto producer = dyn_cast<OpResult>(value)) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(producer.getOwner());
    if (!dps || !llvm::is_contained(ops, producer.getOwner()))
      break;
    value = dps.getDpsInitOperand(producer.getResultNumber())->get();
  }
  return value;
}

/// Inside a task, sizes the empty init of a linalg op from its inputs: a
/// dynamic output size indexed by the same loop as an input size equals it
/// (the host checks that). The task then needs no operand just to know the
/// size of its result, which would be a false dependency for the scheduler.
void sizeInitsFromInputs(OpBuilder &b, linalg::LinalgOp op) {
  for (OpOperand &init : op.getDpsInitsMutable()) {
    // The init, possibly through a fill that is part of the task.
    OpOperand *emptyUse = &init;
    auto fill = init.get().getDefiningOp<linalg::FillOp>();
    if (fill && fill->getBlock() != op->getBlock())
      continue; // Computed outside the task: it is an operand.
    if (fill)
      emptyUse = &fill.getDpsInitsMutable()[0];
    auto empty = emptyUse->get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || empty.getType().hasStaticShape())
      continue;
    AffineMap initMap = op.getMatchingIndexingMap(&init);
    SmallVector<Value> sizes;
    for (int64_t d = 0, e = empty.getType().getRank(); d < e; ++d) {
      if (!empty.getType().isDynamicDim(d))
        continue;
      Value size;
      if (auto loop = dyn_cast<AffineDimExpr>(initMap.getResult(d))) {
        for (OpOperand *input : op.getDpsInputOperands()) {
          auto type = dyn_cast<ShapedType>(input->get().getType());
          if (!type)
            continue;
          AffineMap map = op.getMatchingIndexingMap(input);
          for (auto [j, expr] : llvm::enumerate(map.getResults()))
            if (expr == loop && !size) {
              b.setInsertionPoint(op);
              size = tensor::DimOp::create(b, op.getLoc(), input->get(), j);
            }
        }
      }
      if (!size)
        break;
      sizes.push_back(size);
    }
    if (sizes.size() != empty.getType().getNumDynamicDims())
      continue; // Some size has no input to come from.
    b.setInsertionPoint(op);
    auto sized = tensor::EmptyOp::create(b, empty.getLoc(), empty.getType(),
                                         sizes);
    emptyUse->set(sized);
    if (fill)
      fill->moveAfter(sized);
  }
}

/// The tensor.from_elements that makes the shape of `op`, a tensor.reshape,
/// from sizes the host computes: it joins the reshape's task (reshapedSize).
/// A shape something else uses too is copied for the reshape first.
tensor::FromElementsOp getExclusiveShape(Operation *op) {
  auto reshape = dyn_cast<tensor::ReshapeOp>(op);
  if (!reshape)
    return nullptr;
  auto shape = reshape.getShape().getDefiningOp<tensor::FromElementsOp>();
  if (!shape || shape->getBlock() != op->getBlock() ||
      !llvm::all_of(shape.getElements(), isHostComputable))
    return nullptr;
  if (!shape->hasOneUse()) {
    OpBuilder b(reshape);
    shape = cast<tensor::FromElementsOp>(b.clone(*shape));
    reshape.getShapeMutable().assign(shape);
  }
  return shape;
}

/// Finds a tensor the op uses (an operand, or a value its regions capture)
/// whose size in dimension `dim` provably equals that of `result` (e.g. the
/// init of an scf.for that keeps its shape, the source of a tensor.cast) and
/// returns that size, or a null value.
Value proveSizeFromOperands(OpBuilder &b, OpResult result, int64_t dim) {
  Operation *op = result.getOwner();
  llvm::SetVector<Value> candidates;
  for (Value operand : op->getOperands())
    candidates.insert(operand);
  getUsedValuesDefinedAbove(op->getRegions(), candidates);
  for (Value candidate : candidates) {
    auto type = dyn_cast<RankedTensorType>(candidate.getType());
    if (!type || type.getRank() <= dim)
      continue;
    FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
        {result, dim}, {candidate, dim});
    if (succeeded(equal) && *equal)
      return type.isDynamicDim(dim)
                 ? tensor::DimOp::create(b, op->getLoc(), candidate, dim)
                       .getResult()
                 : arith::ConstantIndexOp::create(b, op->getLoc(),
                                                  type.getDimSize(dim))
                       .getResult();
  }
  return nullptr;
}

/// Whether `value` is defined outside `loop`.
bool definedOutside(Value value, Operation *loop) {
  return !loop->isAncestor(value.getParentRegion()->getParentOp());
}

/// Whether the size in dimension `dim` of `yielded`, which a loop carries
/// into the value `init` starts it with, equals that of `init` whenever the
/// size of what the loop carries there does (`isCarried` says which
/// (value, dim) pairs of the loop body are that): it is the carried size
/// itself, or a size from outside the loop that equals that of `init`. By
/// induction the carried size is then always that of `init`.
bool keepsSize(Value yielded, Value init, int64_t dim, Operation *loop,
               function_ref<bool(Value, int64_t)> isCarried) {
  AffineMap map;
  ValueDimList operands;
  auto stop = [&](Value v, std::optional<int64_t> d,
                  ValueBoundsConstraintSet &) {
    return definedOutside(v, loop) ||
           (d && isa<BlockArgument>(v) &&
            cast<BlockArgument>(v).getOwner()->getParentOp() == loop);
  };
  if (failed(ValueBoundsConstraintSet::computeBound(
          map, operands, presburger::BoundType::EQ, {yielded, dim}, stop)))
    return false;
  if (map.getNumResults() != 1)
    return false;
  ValueBoundsConstraintSet::Variable initSize(init, dim);
  if (auto constant = dyn_cast<AffineConstantExpr>(map.getResult(0))) {
    FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
        initSize, OpFoldResult(IntegerAttr::get(IndexType::get(
                                                    loop->getContext()),
                                                constant.getValue())));
    return succeeded(equal) && *equal;
  }
  if (operands.size() != 1 ||
      !isa<AffineDimExpr, AffineSymbolExpr>(map.getResult(0)))
    return false;
  auto [value, valueDim] = operands.front();
  if (valueDim && isCarried(value, *valueDim))
    return true;
  if (!definedOutside(value, loop))
    return false;
  FailureOr<bool> equal =
      valueDim ? ValueBoundsConstraintSet::areEqual({value, *valueDim},
                                                    initSize)
               : ValueBoundsConstraintSet::areEqual(OpFoldResult(value),
                                                    initSize);
  return succeeded(equal) && *equal;
}

/// The size in dimension `dim` of a result of an scf.for or scf.while whose
/// every iteration keeps the size the loop starts with (keepsSize): that of
/// the init, e.g. a loop whose body writes into a tensor.empty made before
/// it, or sized from what it carries. Null otherwise.
Value carriedSize(OpBuilder &b, OpResult result, int64_t dim) {
  Operation *loop = result.getOwner();
  Value init, yielded;
  std::function<bool(Value, int64_t)> isCarried;
  unsigned i = result.getResultNumber();
  if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
    init = forOp.getInits()[i];
    yielded = forOp.getYieldedValues()[i];
    BlockArgument carried = forOp.getRegionIterArgs()[i];
    isCarried = [=](Value v, int64_t d) { return v == carried && d == dim; };
  } else if (auto whileOp = dyn_cast<scf::WhileOp>(loop)) {
    // The result is what the condition passes on; it must be an argument of
    // the `before` region, unchanged, for it to be what the loop carries.
    scf::ConditionOp condition = whileOp.getConditionOp();
    auto passed = dyn_cast<BlockArgument>(condition.getArgs()[i]);
    if (!passed || passed.getOwner() != whileOp.getBeforeBody())
      return nullptr;
    unsigned k = passed.getArgNumber();
    init = whileOp.getInits()[k];
    yielded = whileOp.getYieldOp().getOperand(k);
    // In the `after` region, the arguments the condition passed it from
    // argument k of the `before` region.
    Block *after = whileOp.getAfterBody();
    SmallVector<Value> passedOn(condition.getArgs());
    isCarried = [=](Value v, int64_t d) {
      auto arg = dyn_cast<BlockArgument>(v);
      return d == dim && arg &&
             ((arg.getOwner() == after &&
               passedOn[arg.getArgNumber()] == passed) ||
              arg == passed);
    };
  } else {
    return nullptr;
  }
  auto type = dyn_cast<RankedTensorType>(init.getType());
  if (!type || type.getRank() <= dim ||
      !keepsSize(yielded, init, dim, loop, isCarried))
    return nullptr;
  Location loc = loop->getLoc();
  return type.isDynamicDim(dim)
             ? tensor::DimOp::create(b, loc, init, dim).getResult()
             : arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim))
                   .getResult();
}

/// The size in dimension `dim` of the result of a tensor.reshape whose shape
/// is a constant or made of scalars the host computes (tensor.from_elements
/// of sizes, as exporters write a dynamic reshape): that element of the
/// shape. Null otherwise.
Value reshapedSize(OpBuilder &b, OpResult result, int64_t dim) {
  auto reshape = dyn_cast<tensor::ReshapeOp>(result.getOwner());
  if (!reshape)
    return nullptr;
  DenseIntElementsAttr constant;
  if (matchPattern(reshape.getShape(), m_Constant(&constant)))
    return arith::ConstantIndexOp::create(
        b, reshape.getLoc(),
        constant.getValues<APInt>()[dim].getSExtValue());
  auto shape = reshape.getShape().getDefiningOp<tensor::FromElementsOp>();
  if (!shape || !isHostComputable(shape.getElements()[dim]))
    return nullptr;
  Value size = shape.getElements()[dim];
  if (size.getType().isIndex())
    return size;
  return arith::IndexCastOp::create(b, reshape.getLoc(), b.getIndexType(),
                                    size);
}

/// Gives each op that a fill of an empty tensor initializes its own copy of
/// the fill, so that the fill joins every such op's task (a packed GEMM then
/// writes its zeros itself) instead of becoming a task of its own whose
/// result every op must read and copy. Uses as an input keep the original.
void duplicateSharedFills(Block &block) {
  for (Operation &op : block) {
    auto fill = dyn_cast<linalg::FillOp>(&op);
    if (!fill || !fill.hasPureTensorSemantics() ||
        !fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
      continue;
    Value result = fill->getResult(0);
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
      if (result.hasOneUse())
        break;
      auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
      if (!dps || !dps.isDpsInit(&use) || use.getOwner()->getBlock() != &block)
        continue;
      OpBuilder b(use.getOwner());
      use.set(b.clone(*fill)->getResult(0));
    }
  }
}

/// A tensor the task captures only to read its sizes (a scalar derived from
/// the batch size, say) would be a false dependency, and a copy to a GPU:
/// when another tensor the task reads provably has the same size, its size is
/// read instead and the capture dropped.
void readSizesFromOperands(TaskOp task, llvm::SetVector<Value> &captures) {
  // Tensors the task reads data from: never dropped, so safe to read from.
  SmallVector<Value> read;
  auto onlySizes = [&](Value v) {
    return llvm::all_of(v.getUses(), [&](OpOperand &use) {
      return !task->isAncestor(use.getOwner()) ||
             isa<tensor::DimOp>(use.getOwner());
    });
  };
  for (Value capture : captures)
    if (!onlySizes(capture))
      read.push_back(capture);
  for (Value capture : llvm::to_vector(captures)) {
    if (!onlySizes(capture))
      continue;
    SmallVector<std::tuple<tensor::DimOp, Value, int64_t>> replacements;
    for (OpOperand &use : capture.getUses()) {
      auto dim = dyn_cast<tensor::DimOp>(use.getOwner());
      if (!dim || !task->isAncestor(dim))
        continue;
      std::optional<int64_t> index = dim.getConstantIndex();
      std::optional<std::pair<Value, int64_t>> found;
      for (Value other : read) {
        int64_t rank = cast<RankedTensorType>(other.getType()).getRank();
        for (int64_t k = 0; k < rank && index && !found; ++k) {
          FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
              {capture, *index}, {other, k});
          if (succeeded(equal) && *equal)
            found = {other, k};
        }
        if (found)
          break;
      }
      if (!found)
        break;
      replacements.emplace_back(dim, found->first, found->second);
    }
    size_t uses = llvm::count_if(capture.getUses(), [&](OpOperand &use) {
      return task->isAncestor(use.getOwner());
    });
    if (replacements.size() != uses)
      continue;
    for (auto [dim, other, k] : replacements) {
      OpBuilder b(dim);
      dim.getSourceMutable().assign(other);
      dim.getIndexMutable().assign(
          arith::ConstantIndexOp::create(b, dim.getLoc(), k));
    }
    captures.remove(capture);
  }
}

/// The size in dimension `dim` of a whole tensor an arith.select picks with a
/// scalar condition (the two may differ in size): chosen with the condition
/// where the host computes it; else the two must have the same size, which
/// the host checks. Null for another op.
Value selectedSize(OpBuilder &b, OpResult result, int64_t dim) {
  auto select = dyn_cast<arith::SelectOp>(result.getOwner());
  if (!select || isa<ShapedType>(select.getCondition().getType()))
    return nullptr;
  Location loc = select.getLoc();
  Value ifTrue = tensor::DimOp::create(b, loc, select.getTrueValue(), dim);
  Value ifFalse = tensor::DimOp::create(b, loc, select.getFalseValue(), dim);
  if (isHostComputable(select.getCondition()))
    return arith::SelectOp::create(b, loc, select.getCondition(), ifTrue,
                                   ifFalse);
  Value same =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ifTrue, ifFalse);
  AssertOp::create(
      b, loc, same,
      b.getStringAttr(checkMessage(
          select, "dimension " + Twine(dim) +
                      " of the two tensors differs, and the condition "
                      "that picks one is read from tensor data")));
  return ifTrue;
}

FailureOr<TaskOp> formTaskImpl(ArrayRef<Operation *> ops, bool emitChecks) {
  Operation *root = ops.back();
  // Everything the task needs is available at the root, which comes last.
  OpBuilder b(root);
  Location loc = root->getLoc();

  if (emitChecks)
    for (Operation *op : ops)
      emitShapeChecks(b, op,
                      [&](Value v) { return traceShapeSource(v, ops); });

  // Dynamic result dimensions, computed on the host.
  SmallVector<Value> resultDims;
  bool anyDynamic = llvm::any_of(root->getResultTypes(), [](Type t) {
    return !cast<ShapedType>(t).hasStaticShape();
  });
  if (anyDynamic) {
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(root)) {
      // A result has the shape of its init; look through inits produced by
      // ops that join the task (a fill), whose own init stays outside.
      for (OpResult result : root->getResults()) {
        Value source = traceShapeSource(
            dps.getDpsInitOperand(result.getResultNumber())->get(), ops);
        auto shaped = cast<ShapedType>(result.getType());
        for (int64_t i = 0, e = shaped.getRank(); i < e; ++i)
          if (shaped.isDynamicDim(i))
            resultDims.push_back(tensor::DimOp::create(b, loc, source, i));
      }
    } else {
      ReifiedRankedShapedTypeDims reified;
      if (succeeded(reifyResultShapes(b, root, reified))) {
        for (auto [type, sizes] :
             llvm::zip(root->getResultTypes(), reified)) {
          auto shaped = cast<ShapedType>(type);
          for (auto [i, size] : llvm::enumerate(sizes))
            if (shaped.isDynamicDim(i))
              resultDims.push_back(
                  getValueOrCreateConstantIndexOp(b, loc, size));
        }
      } else {
        for (OpResult result : root->getResults()) {
          auto shaped = cast<ShapedType>(result.getType());
          for (int64_t d = 0, e = shaped.getRank(); d < e; ++d) {
            if (!shaped.isDynamicDim(d))
              continue;
            Value size = proveSizeFromOperands(b, result, d);
            if (!size)
              size = carriedSize(b, result, d);
            if (!size)
              size = reshapedSize(b, result, d);
            if (!size)
              size = selectedSize(b, result, d);
            if (!size) {
              root->emitOpError("result #")
                  << result.getResultNumber() << " has a dynamic size in "
                  << "dimension " << d
                  << " that fw cannot compute before running the task; "
                     "give it a static size";
              return failure();
            }
            resultDims.push_back(size);
          }
        }
      }
    }
  }

  auto task = TaskOp::create(b, loc, root->getResultTypes(), ValueRange{},
                             resultDims);
  if (emitChecks)
    task->setAttr(kHostCheckedAttrName, b.getUnitAttr());
  root->replaceUsesWithIf(task.getResults(), [&](OpOperand &use) {
    return !task->isAncestor(use.getOwner());
  });
  Block *body = &task.getBody().front();
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  YieldOp::create(inner, loc, root->getResults());
  for (Operation *op : ops)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      sizeInitsFromInputs(inner, linalgOp);

  // Rematerialize cheap producers inside; collect tensor captures.
  llvm::SetVector<Value> tensorCaptures;
  llvm::DenseMap<Value, Value> cloned;
  while (true) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(task.getBody(), above);
    bool changed = false;
    for (Value value : above) {
      if (tensorCaptures.contains(value))
        continue;
      if (auto it = cloned.find(value); it != cloned.end()) {
        replaceAllUsesInRegionWith(value, it->second, task.getBody());
        changed = true;
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (def && isRematerializable(def)) {
        inner.setInsertionPointToStart(body);
        Operation *copy = inner.clone(*def);
        for (auto [orig, repl] :
             llvm::zip(def->getResults(), copy->getResults())) {
          cloned[orig] = repl;
          replaceAllUsesInRegionWith(orig, repl, task.getBody());
        }
        changed = true;
        continue;
      }
      if (!isa<RankedTensorType>(value.getType())) {
        root->emitOpError("uses a value of type ")
            << value.getType()
            << " computed on the host; only tensors and index computations "
               "on tensor shapes can flow into a task";
        return failure();
      }
      tensorCaptures.insert(value);
    }
    if (!changed)
      break;
  }
  sortTopologically(body);
  readSizesFromOperands(task, tensorCaptures);

  // Turn tensor captures into operands and block arguments.
  for (Value capture : tensorCaptures) {
    BlockArgument arg = body->addArgument(capture.getType(), capture.getLoc());
    replaceAllUsesInRegionWith(capture, arg, task.getBody());
  }
  task.getArgsMutable().assign(tensorCaptures.getArrayRef());
  setCostEstimate(task);
  return task;
}

/// Checks that an entry function's signature only has tensors the runtime can
/// hold.
LogicalResult verifyEntrySignature(func::FuncOp func) {
  StringRef name = func.getSymName();
  if (name.starts_with("fw_rt_") || name.starts_with("__fw"))
    return func.emitOpError("name '")
           << name
           << "' is reserved: names starting with 'fw_rt_' or '__fw' belong "
              "to the fw runtime";
  if (name.contains('\0'))
    return func.emitOpError("name contains a NUL byte, which the fat "
                            "binary's function names cannot hold");
  auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return func.emitOpError()
             << what << " #" << i << " has type " << type
             << "; fw entry points take and return ranked tensors";
    if (!getElementTypeCode(tensor.getElementType()))
      return func.emitOpError()
             << what << " #" << i << " has element type "
             << tensor.getElementType()
             << ", which the runtime does not support (supported: "
             << getSupportedElementTypesString() << ")";
    if (tensor.getRank() > 8)
      return func.emitOpError()
             << what << " #" << i << " has rank " << tensor.getRank()
             << "; the runtime supports ranks up to 8";
    // The static sizes' bytes must be a size the runtime can hold (int64).
    int64_t bytes = static_cast<int64_t>(llvm::divideCeil(
        tensor.getElementType().getIntOrFloatBitWidth(), 8));
    for (int64_t d : tensor.getShape())
      if (!llvm::is_contained(tensor.getShape(), 0) &&
          !ShapedType::isDynamic(d) && llvm::MulOverflow(bytes, d, bytes))
        return func.emitOpError()
               << what << " #" << i << " of type " << type
               << " holds 2^63 bytes or more";
    return success();
  };
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (failed(check(type, "argument", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

/// Returns the elementwise linalg.generic that is the only user of `op`'s
/// single result, if any: it can join `op`'s task as an epilogue.
linalg::GenericOp getEpilogue(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  auto consumer = dyn_cast<linalg::GenericOp>(*op->getResult(0).user_begin());
  if (!consumer || consumer->getBlock() != op->getBlock() ||
      consumer.getNumResults() != 1 ||
      consumer.getNumParallelLoops() != consumer.getNumLoops() ||
      !consumer.hasPureTensorSemantics())
    return nullptr;
  // The producer's result must be an input, not the consumer's init.
  if (!llvm::is_contained(consumer.getDpsInputs(), op->getResult(0)))
    return nullptr;
  return consumer;
}

/// The elementwise linalg.generic ops whose only use is as an input of the
/// contraction or convolution `op`: they can join its task as prologues.
SmallVector<Operation *> getPrologues(Operation *op) {
  SmallVector<Operation *> prologues;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !(linalg::isaContractionOpInterface(linalgOp) ||
                     linalg::isaConvolutionOpInterface(linalgOp)))
    return prologues;
  for (Value input : linalgOp.getDpsInputs()) {
    auto producer = input.getDefiningOp<linalg::GenericOp>();
    if (!producer || producer->getBlock() != op->getBlock() ||
        producer.getNumResults() != 1 || !input.hasOneUse() ||
        producer.getNumParallelLoops() != producer.getNumLoops() ||
        !producer.hasPureTensorSemantics() ||
        llvm::is_contained(prologues, producer.getOperation()))
      continue;
    // An epilogue of its own producer stays there (one task per layer).
    if (llvm::any_of(producer.getDpsInputs(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && isa<linalg::LinalgOp>(def) &&
                 getEpilogue(def) == producer;
        }))
      continue;
    prologues.push_back(producer);
  }
  llvm::sort(prologues,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return prologues;
}

/// Constants and empty tensors returned directly need a task to materialize
/// them into a result buffer: each gets its own copy before the return.
llvm::SmallPtrSet<Operation *, 4> cloneReturnedConstants(func::ReturnOp ret) {
  llvm::SmallPtrSet<Operation *, 4> copies;
  for (OpOperand &operand : ret->getOpOperands()) {
    Operation *def = operand.get().getDefiningOp();
    if (!def || !isa<arith::ConstantOp, tensor::EmptyOp>(def))
      continue;
    OpBuilder b(ret);
    Operation *copy = b.clone(*def);
    operand.set(copy->getResult(0));
    copies.insert(copy);
  }
  return copies;
}

/// Checks that a top-level op that does not stay on the host can become a
/// task; `isTask` is set when it should.
LogicalResult classifyTopLevelOp(Operation *op, bool &isTask) {
  isTask = false;
  if (isa<func::CallOp, func::CallIndirectOp>(op))
    return op->emitOpError("calls a function fwc does not inline (a "
                           "recursive one, a declaration, an indirect "
                           "call); an fw entry point is compiled whole");
  bool producesTensors = llvm::any_of(
      op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
  // A loop or a branch left with checks alone (what it computed folded away)
  // still checks the data: a task without results.
  if (op->getNumResults() == 0 && op->getNumRegions() != 0 &&
      op->walk([](AssertOp) { return WalkResult::interrupt(); })
          .wasInterrupted()) {
    isTask = true;
    return success();
  }
  if (!producesTensors) {
    // Scalars read from tensors are recomputed inside the tasks that use
    // them; whatever is left on the host is checked afterwards.
    if (isRematerializable(op))
      return success();
    return op->emitOpError("is not supported at the top level of an fw "
                           "entry point");
  }
  if (!llvm::all_of(op->getResultTypes(),
                    [](Type t) { return isa<RankedTensorType>(t); }))
    return op->emitOpError("produces both tensors and other values at the "
                           "top level of an fw entry point; tasks produce "
                           "tensors only");
  isTask = true;
  return success();
}

/// Whether a run of checks stops at `op`: one with effects or regions (a task)
/// may depend on what they check, or change it.
bool endsChecksRun(Operation *op) {
  return op->getNumRegions() != 0 || !isMemoryEffectFree(op);
}

/// The checks right before the last of `ops` (past ops without effects and
/// the others of `ops`, which join its task) whose conditions read tensor
/// data.
SmallVector<Operation *> dataChecksBefore(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> checks;
  for (Operation *it = ops.back()->getPrevNode(); it; it = it->getPrevNode()) {
    auto check = dyn_cast<AssertOp>(it);
    if (check && !isHostComputable(check.getCondition()))
      checks.push_back(it);
    else if (!check && !llvm::is_contained(ops, it) && endsChecksRun(it))
      break;
  }
  std::reverse(checks.begin(), checks.end());
  return checks;
}

/// Erases host ops whose users all moved into tasks; anything still reading
/// tensor data on the host is an error.
LogicalResult cleanUpHost(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    if (isa<func::ReturnOp, TaskOp, AssertOp, tensor::DimOp>(op))
      continue;
    if (op.use_empty() && isMemoryEffectFree(&op)) {
      op.erase();
      continue;
    }
    if (llvm::any_of(op.getOperandTypes(),
                     [](Type t) { return isa<TensorType>(t); }))
      return op.emitOpError("reads tensor data on the host, which fw does "
                            "not support; compute it inside a tensor "
                            "operation");
  }
  return success();
}

struct FormTasksPass : public fw::impl::FormTasksPassBase<FormTasksPass> {
  using FormTasksPassBase::FormTasksPassBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    if (failed(verifyEntrySignature(func)))
      return signalPassFailure();
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError("has control flow between blocks at the top level; "
                       "fw entry points must be a single block");
      return signalPassFailure();
    }
    Block &block = func.getBody().front();
    llvm::SmallPtrSet<Operation *, 4> materialize =
        cloneReturnedConstants(cast<func::ReturnOp>(block.getTerminator()));
    duplicateSharedFills(block);

    // Fills that only initialize one operation join that operation's task,
    // and so do elementwise prologues of contractions and convolutions.
    llvm::SmallPtrSet<Operation *, 8> absorbed;
    llvm::DenseMap<Operation *, SmallVector<Operation *>> prologues;
    if (fusePrologues)
      for (Operation &op : block) {
        SmallVector<Operation *> found = getPrologues(&op);
        if (found.empty())
          continue;
        absorbed.insert(found.begin(), found.end());
        prologues[&op] = std::move(found);
      }
    for (Operation &op : block)
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(&op))
        for (OpOperand &init : dps.getDpsInitsMutable())
          if (linalg::FillOp fill = getExclusiveFill(init.get(), &op))
            absorbed.insert(fill);
    // So does the shape of a tensor.reshape made of scalars (reshapedSize).
    for (Operation &op : block)
      if (tensor::FromElementsOp shape = getExclusiveShape(&op))
        absorbed.insert(shape);

    SmallVector<Operation *> worklist =
        llvm::map_to_vector(block, [](Operation &op) { return &op; });
    // Scalars read from tensors at the top level are computed again inside
    // the tasks that use them: their indices are checked here, on the host;
    // and so are the sizes a task written in the input declares.
    for (Operation *op : worklist) {
      OpBuilder b(op);
      if (auto extract = dyn_cast<tensor::ExtractOp>(op))
        emitShapeChecks(b, extract, [](Value v) { return v; });
      else if (auto task = dyn_cast<TaskOp>(op))
        if (failed(emitTaskDimsChecks(b, task)))
          return signalPassFailure();
    }
    for (Operation *op : worklist) {
      if (absorbed.contains(op) ||
          (!materialize.contains(op) && staysOnHost(op)))
        continue;
      bool isTask = false;
      if (failed(classifyTopLevelOp(op, isTask)))
        return signalPassFailure();
      if (!isTask)
        continue;
      SmallVector<Operation *> ops;
      if (auto it = prologues.find(op); it != prologues.end())
        for (Operation *prologue : it->second) {
          // A prologue brings the fill of its own init, like an epilogue.
          for (OpOperand &init :
               cast<DestinationStyleOpInterface>(prologue).getDpsInitsMutable())
            if (linalg::FillOp fill = getExclusiveFill(init.get(), prologue))
              ops.push_back(fill);
          ops.push_back(prologue);
        }
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
        for (OpOperand &init : dps.getDpsInitsMutable())
          if (linalg::FillOp fill = getExclusiveFill(init.get(), op))
            ops.push_back(fill);
      if (tensor::FromElementsOp shape = getExclusiveShape(op))
        ops.push_back(shape);
      ops.push_back(op);
      // Elementwise epilogues join the task, in block order.
      if (fuseEpilogues && isa<linalg::LinalgOp>(op))
        for (linalg::GenericOp epilogue = getEpilogue(op); epilogue;
             epilogue = getEpilogue(epilogue)) {
          for (OpOperand &init : epilogue.getDpsInitsMutable())
            if (linalg::FillOp fill = getExclusiveFill(init.get(), epilogue))
              ops.push_back(fill);
          ops.push_back(epilogue);
          absorbed.insert(epilogue);
        }
      // Checks of what the host cannot compute, made before the op (by
      // fw-prepare-input), run in its kernel.
      SmallVector<Operation *> checks = dataChecksBefore(ops);
      ops.insert(ops.begin(), checks.begin(), checks.end());
      if (failed(formTaskImpl(ops, /*emitChecks=*/true)))
        return signalPassFailure();
    }
    // Those left (the op they were made for folded away) run in a task of
    // their own, one for each run of them.
    SmallVector<Operation *> run;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto check = dyn_cast<AssertOp>(&op)) {
        if (!isHostComputable(check.getCondition()))
          run.push_back(check);
        continue;
      }
      if (!endsChecksRun(&op) && !op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (!run.empty() && failed(formTaskImpl(run, /*emitChecks=*/false)))
        return signalPassFailure();
      run.clear();
    }
    if (failed(cleanUpHost(block)))
      return signalPassFailure();
    // What passes between tasks is a buffer of the runtime's: a tensor of
    // index elements (an arith.index_cast of a whole tensor, say) cannot be
    // one; named here, with the op that makes it.
    for (TaskOp task : block.getOps<TaskOp>())
      for (auto [r, result] : llvm::enumerate(task.getResults())) {
        Type element = cast<ShapedType>(result.getType()).getElementType();
        if (getElementTypeCode(element))
          continue;
        Value yielded = task.getBody().front().getTerminator()->getOperand(r);
        Operation *maker = yielded.getDefiningOp();
        if (!maker)
          maker = task;
        auto writtenAs = maker->getAttrOfType<StringAttr>(kWrittenAsAttrName);
        emitError(maker->getLoc())
            << "'"
            << (writtenAs ? writtenAs.getValue()
                          : maker->getName().getStringRef())
            << "' op makes a tensor of " << element
            << " elements that another task or the caller reads; "
            << "tensors between tasks hold " << getSupportedElementTypesString()
            << " elements (cast it to i64, or compute it inside the operation "
               "that reads it)";
        return signalPassFailure();
      }
    // Integer divisions left on the host (sizes computed from sizes) must not
    // trap: a divisor of 0 fails the call with a message.
    for (Operation &op : llvm::make_early_inc_range(block))
      if (isIntegerDivision(&op)) {
        OpBuilder b(&op);
        emitShapeChecks(b, &op, [](Value v) { return v; });
      }
  }
};

} // namespace

FailureOr<TaskOp> mlir::fw::formTask(ArrayRef<Operation *> ops,
                                     bool emitChecks) {
  return formTaskImpl(ops, emitChecks);
}
