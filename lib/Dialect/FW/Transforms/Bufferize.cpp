//===- Bufferize.cpp - Tensors to buffers on the host and in kernels ------===//
//
// Kernels: decompose aggregate linalg ops, eliminate tensor.empty in favour of
// the destination buffers, then One-Shot Bufferize each variant's module.
// Host: rewrite each entry function over #fw.tier<host> buffers, turning
// fw.invoke into fw.alloc + fw.dispatch. The host code returns without waiting
// for its dispatches: the runtime hands the results over once the call's tasks
// are done (fw_call_wait), so fw_module_call_async returns once they are
// submitted.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fw {
#define GEN_PASS_DEF_BUFFERIZEPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Decomposes ops such as linalg.softmax into simpler linalg ops.
static LogicalResult decomposeAggregates(ModuleOp module) {
  SmallVector<linalg::AggregatedOpInterface> ops;
  module.walk([&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
  IRRewriter rewriter(module.getContext());
  for (linalg::AggregatedOpInterface op : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
    if (failed(results) || results->empty())
      return op->emitOpError("could not be decomposed into linalg ops");
    rewriter.replaceOp(op, *results);
  }
  return success();
}

/// The empty tensors whose contents may reach `value`: through the inits of
/// destination-style ops, casts, slices, branches and loops (a superset of the
/// chains empty-tensor elimination follows).
static void collectEmptiesReaching(Value value,
                                   SmallPtrSetImpl<Operation *> &empties,
                                   DenseSet<Value> &seen) {
  if (!isa<TensorType>(value.getType()) || !seen.insert(value).second)
    return;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (OpOperand *init = loop.getTiedLoopInit(arg)) {
        collectEmptiesReaching(init->get(), empties, seen);
        collectEmptiesReaching(loop.getTiedLoopYieldedValue(arg)->get(),
                               empties, seen);
      }
    return;
  }
  Operation *def = value.getDefiningOp();
  auto result = cast<OpResult>(value);
  if (isa<tensor::EmptyOp>(def)) {
    empties.insert(def);
  } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
    collectEmptiesReaching(dps.getTiedOpOperand(result)->get(), empties, seen);
  } else if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
      if (!region->empty())
        collectEmptiesReaching(
            region->front().getTerminator()->getOperand(
                result.getResultNumber()),
            empties, seen);
  } else if (auto loop = dyn_cast<scf::ForOp>(def)) {
    collectEmptiesReaching(loop.getInits()[result.getResultNumber()], empties,
                           seen);
    collectEmptiesReaching(loop.getYieldedValues()[result.getResultNumber()],
                           empties, seen);
  } else if (isa<tensor::CastOp, tensor::ExtractSliceOp>(def)) {
    collectEmptiesReaching(def->getOperand(0), empties, seen);
  }
}

/// An empty tensor whose contents an insert checked in the kernel
/// (fw-task-checks) writes is not built in place in the insert's
/// destination, as empty-tensor elimination would: where it goes is known
/// to lie within the destination only once the check has passed, and built in
/// place it would be written there first. It gets a buffer of its own.
static void keepCheckedInsertsApart(ModuleOp module) {
  SmallPtrSet<Operation *, 8> empties;
  DenseSet<Value> seen;
  module.walk([&](tensor::InsertSliceOp insert) {
    if (insert->hasAttr(kCheckedAttrName))
      collectEmptiesReaching(insert.getSource(), empties, seen);
  });
  IRRewriter rewriter(module.getContext());
  for (Operation *op : empties) {
    auto empty = cast<tensor::EmptyOp>(op);
    rewriter.setInsertionPoint(empty);
    rewriter.replaceOpWithNewOp<bufferization::AllocTensorOp>(
        empty, empty.getType(), empty.getDynamicSizes());
  }
}

/// A tensor.expand_shape whose group of result dimensions has more than one
/// dynamic size becomes a tensor.reshape to all its result sizes: its memref
/// form has strides no lowering computes (expand-strided-metadata fails on
/// it), a reshape's are those of a fresh contiguous layout.
static void reshapeDynamicExpands(Operation *root) {
  SmallVector<tensor::ExpandShapeOp> expands;
  root->walk([&](tensor::ExpandShapeOp expand) {
    auto type = expand.getResultType();
    for (const ReassociationIndices &group : expand.getReassociationIndices())
      if (llvm::count_if(group, [&](int64_t d) {
            return type.isDynamicDim(d);
          }) > 1) {
        expands.push_back(expand);
        return;
      }
  });
  IRRewriter rewriter(root->getContext());
  for (tensor::ExpandShapeOp expand : expands) {
    rewriter.setInsertionPoint(expand);
    Location loc = expand.getLoc();
    SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
        rewriter, loc, expand.getMixedOutputShape());
    Value shape = tensor::FromElementsOp::create(rewriter, loc, sizes);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(
        expand, expand.getResultType(), expand.getSrc(), shape);
  }
}

static LogicalResult bufferizeKernel(ModuleOp module) {
  if (failed(decomposeAggregates(module)))
    return failure();
  reshapeDynamicExpands(module);
  keepCheckedInsertsApart(module);
  IRRewriter rewriter(module.getContext());
  if (failed(bufferization::eliminateEmptyTensors(rewriter, module)))
    return failure();

  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = false;
  options.allowReturnAllocsFromLoops = true;
  options.unknownTypeConverterFn = [](TensorType type, Attribute memorySpace,
                                      const bufferization::BufferizationOptions
                                          &) -> BaseMemRefType {
    return bufferization::getMemRefTypeWithStaticIdentityLayout(type,
                                                                memorySpace);
  };
  // Copies become loops in the kernel: no runtime support library needed.
  options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                        Value to) -> LogicalResult {
    linalg::CopyOp::create(b, loc, from, to);
    return success();
  };
  bufferization::BufferizationState state;
  return bufferization::runOneShotBufferize(module, options, state);
}

//===----------------------------------------------------------------------===//
// Host
//===----------------------------------------------------------------------===//

static MemRefType getHostBufferType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType(),
                         MemRefLayoutAttrInterface(),
                         TierAttr::get(type.getContext(), Tier::host));
}

/// Rewrites one entry function from tensors to host buffers.
static LogicalResult bufferizeHostFunction(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  if (func.isDeclaration())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to be bufferized");

  FunctionType oldType = func.getFunctionType();
  SmallVector<Type> argTypes, resultTypes;
  for (Type t : oldType.getInputs()) {
    if (!isa<RankedTensorType>(t))
      return func.emitOpError("argument of type ")
             << t << " is not a ranked tensor";
    argTypes.push_back(getHostBufferType(t));
  }
  for (Type t : oldType.getResults()) {
    if (!isa<RankedTensorType>(t))
      return func.emitOpError("result of type ")
             << t << " is not a ranked tensor";
    resultTypes.push_back(getHostBufferType(t));
  }

  Block &oldBlock = func.getBody().front();
  Block *newBlock = new Block();
  func.getBody().push_back(newBlock);
  for (auto [type, arg] : llvm::zip(argTypes, oldBlock.getArguments()))
    newBlock->addArgument(type, arg.getLoc());

  IRMapping mapping;
  mapping.map(oldBlock.getArguments(), newBlock->getArguments());
  OpBuilder b = OpBuilder::atBlockEnd(newBlock);
  SmallVector<Value> allocations;
  // Last dispatch using each allocation, to release it right after.
  llvm::DenseMap<Value, Operation *> lastUse;
  // Dynamic sizes of each invoke result, so shape queries need no runtime
  // call.
  llvm::DenseMap<Value, SmallVector<Value>> resultSizes;

  for (Operation &op : oldBlock) {
    Location loc = op.getLoc();
    if (auto invoke = dyn_cast<InvokeOp>(op)) {
      SmallVector<Value> buffers;
      SmallVector<Attribute> access;
      for (Value arg : invoke.getArgs()) {
        Value buffer = mapping.lookupOrNull(arg);
        if (!buffer)
          return invoke.emitOpError("operand is not available as a buffer");
        buffers.push_back(buffer);
        access.push_back(AccessAttr::get(ctx, Access::read));
      }
      ValueRange dims = invoke.getResultDims();
      for (Value result : invoke.getResults()) {
        auto type = getHostBufferType(result.getType());
        SmallVector<Value> sizes;
        for (int64_t i = 0, e = type.getNumDynamicDims(); i < e; ++i) {
          sizes.push_back(mapping.lookupOrDefault(dims.front()));
          dims = dims.drop_front();
        }
        auto alloc = AllocOp::create(b, loc, type, sizes);
        mapping.map(result, alloc.getResult());
        resultSizes[result] = sizes;
        buffers.push_back(alloc);
        allocations.push_back(alloc);
        access.push_back(AccessAttr::get(ctx, Access::write));
      }
      auto dispatch =
          DispatchOp::create(b, loc, TokenType::get(ctx),
                             invoke.getCalleeAttr(), buffers,
                             b.getArrayAttr(access), ValueRange{});
      for (Value buffer : buffers)
        lastUse[buffer] = dispatch;
      continue;
    }
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      if (auto empty = dim.getSource().getDefiningOp<tensor::EmptyOp>()) {
        std::optional<int64_t> index = dim.getConstantIndex();
        if (!index)
          return dim.emitOpError("needs a constant index on an empty tensor");
        Value size =
            empty.getType().isDynamicDim(*index)
                ? mapping.lookupOrDefault(empty.getDynamicSize(*index))
                : arith::ConstantIndexOp::create(
                      b, loc, empty.getType().getDimSize(*index))
                      .getResult();
        mapping.map(dim.getResult(), size);
        continue;
      }
      auto known = resultSizes.find(dim.getSource());
      std::optional<int64_t> index = dim.getConstantIndex();
      auto sourceType = cast<RankedTensorType>(dim.getSource().getType());
      if (known != resultSizes.end() && index && *index >= 0 &&
          *index < sourceType.getRank() && sourceType.isDynamicDim(*index)) {
        mapping.map(dim.getResult(),
                    known->second[sourceType.getDynamicDimIndex(*index)]);
        continue;
      }
      Value buffer = mapping.lookupOrNull(dim.getSource());
      if (!buffer)
        return dim.emitOpError("source is not available as a buffer");
      auto newDim = memref::DimOp::create(
          b, loc, buffer, mapping.lookupOrDefault(dim.getIndex()));
      mapping.map(dim.getResult(), newDim.getResult());
      continue;
    }
    if (isa<tensor::EmptyOp>(op) ||
        (isa<arith::ConstantOp>(op) &&
         isa<TensorType>(op.getResult(0).getType()))) {
      // Only used by shape queries (handled above) once tasks are outlined.
      for (Operation *user : op.getUsers())
        if (!isa<tensor::DimOp>(user))
          return user->emitOpError("uses a tensor that was never computed by "
                                   "a task; run fw-form-tasks first");
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<Value> results;
      for (Value v : ret.getOperands()) {
        Value buffer = mapping.lookupOrNull(v);
        if (!buffer)
          return ret.emitOpError("returns a value that is not a buffer");
        results.push_back(buffer);
      }
      func::ReturnOp::create(b, loc, results);
      // Release intermediates after their last dispatch.
      for (Value alloc : allocations) {
        if (llvm::is_contained(results, alloc))
          continue;
        OpBuilder after(lastUse.lookup(alloc)->getNextNode());
        DeallocOp::create(after, loc, alloc);
      }
      continue;
    }
    bool touchesTensors =
        llvm::any_of(op.getOperandTypes(),
                     [](Type t) { return isa<TensorType>(t); }) ||
        llvm::any_of(op.getResultTypes(),
                     [](Type t) { return isa<TensorType>(t); });
    if (touchesTensors)
      return op.emitOpError("cannot run on the host; run fw-form-tasks and "
                            "fw-outline-tasks first");
    b.clone(op, mapping);
  }

  func->setAttr(kSignatureAttrName, TypeAttr::get(oldType));
  func.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));
  oldBlock.dropAllDefinedValueUses();
  oldBlock.erase();
  return success();
}

namespace {

struct BufferizePass : public fw::impl::BufferizePassBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto exe : module.getOps<ExecutableOp>())
      for (auto variant : exe.getOps<VariantOp>())
        if (ModuleOp inner = variant.getInnerModule())
          if (failed(bufferizeKernel(inner)))
            return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      reshapeDynamicExpands(func);
      if (failed(bufferizeHostFunction(func)))
        return signalPassFailure();
    }
  }
};

} // namespace
