//===- FWOps.cpp - fw operations ------------------------------------------===//

#include "fw/Dialect/FW/IR/FWOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fw;

/// Number of dynamic dimensions over all shaped `types`.
static int64_t countDynamicDims(TypeRange types) {
  int64_t count = 0;
  for (Type type : types)
    if (auto shaped = dyn_cast<ShapedType>(type))
      count += shaped.getNumDynamicDims();
  return count;
}

/// Verifies that there is one result size per dynamic result dimension.
static LogicalResult verifyResultDims(Operation *op, TypeRange results,
                                     ValueRange dims) {
  int64_t expected = countDynamicDims(results);
  if (static_cast<int64_t>(dims.size()) == expected)
    return success();
  return op->emitOpError("expects ")
         << expected << " result dims (one per dynamic dimension), got "
         << dims.size();
}

/// Checks `flops_terms` against the types of the bindings it names: each term
/// is `array<i64: c, b0, d0, ...>` with c >= 1, at most kMaxFlopsTermFactors
/// (b, d) pairs, and each d a dynamic dim of binding b.
static LogicalResult verifyFlopsTerms(Operation *op, ArrayAttr terms,
                                      IntegerAttr flops, TypeRange bindings) {
  if (!terms)
    return success();
  if (flops)
    return op->emitOpError("has both 'flops' and 'flops_terms'; the terms are "
                           "the whole estimate");
  for (auto [i, attr] : llvm::enumerate(terms)) {
    auto term = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!term)
      return op->emitOpError("'flops_terms' #")
             << i << " must be an array<i64: coefficient, binding, dim, ...>";
    ArrayRef<int64_t> v = term.asArrayRef();
    if (v.empty() || v.size() % 2 == 0)
      return op->emitOpError("'flops_terms' #")
             << i << " must hold a coefficient and (binding, dim) pairs";
    if (v[0] < 1)
      return op->emitOpError("'flops_terms' #")
             << i << " has coefficient " << v[0] << "; it must be at least 1";
    if ((v.size() - 1) / 2 > kMaxFlopsTermFactors)
      return op->emitOpError("'flops_terms' #")
             << i << " multiplies " << (v.size() - 1) / 2
             << " dims; at most " << kMaxFlopsTermFactors << " are supported";
    for (size_t k = 1; k < v.size(); k += 2) {
      int64_t binding = v[k], dim = v[k + 1];
      if (binding < 0 || binding >= static_cast<int64_t>(bindings.size()))
        return op->emitOpError("'flops_terms' #")
               << i << " names binding " << binding << " of "
               << bindings.size();
      auto type = cast<RankedTensorType>(bindings[binding]);
      if (dim < 0 || dim >= type.getRank() || !type.isDynamicDim(dim))
        return op->emitOpError("'flops_terms' #")
               << i << " names dim " << dim << " of binding " << binding
               << " (" << type << "), which is not a dynamic dim";
    }
  }
  return success();
}

/// Verifies that a memref is placed in an fw memory tier.
static LogicalResult verifyTierMemRef(Operation *op, MemRefType type) {
  if (isa_and_nonnull<TierAttr>(type.getMemorySpace()))
    return success();
  return op->emitOpError("expects a memref in an #fw.tier memory space, got ")
         << type;
}

/// Returns true when `a` and `b` are ranked shaped types with the same element
/// type and rank whose static dimensions agree.
static bool isShapeCompatible(ShapedType a, ShapedType b) {
  if (a.getElementType() != b.getElementType() || a.getRank() != b.getRank())
    return false;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

/// Looks up the executable `callee` refers to.
static FailureOr<ExecutableOp> lookupExecutable(Operation *op,
                                                FlatSymbolRefAttr callee,
                                                SymbolTableCollection &tables) {
  auto exe = tables.lookupNearestSymbolFrom<ExecutableOp>(op, callee);
  if (!exe)
    return op->emitOpError("refers to unknown executable ") << callee;
  return exe;
}

/// Checks `types` against the bindings of `exe`, starting at binding `first`.
static LogicalResult checkBindings(Operation *op, ExecutableOp exe,
                                   TypeRange types, size_t first,
                                   StringRef what) {
  ArrayAttr bindings = exe.getBindings();
  for (auto [i, type] : llvm::enumerate(types)) {
    auto expected = cast<ShapedType>(
        cast<TypeAttr>(bindings[first + i]).getValue());
    if (!isShapeCompatible(cast<ShapedType>(type), expected))
      return op->emitOpError()
             << what << " #" << i << " of type " << type
             << " is not compatible with binding #" << first + i << " ("
             << expected << ") of "
             << FlatSymbolRefAttr::get(exe.getSymNameAttr());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

void TaskOp::build(OpBuilder &builder, OperationState &state,
                   TypeRange resultTypes, ValueRange args,
                   ValueRange resultDims) {
  state.addTypes(resultTypes);
  state.addOperands(args);
  state.addOperands(resultDims);
  state.getOrAddProperties<Properties>().operandSegmentSizes = {
      static_cast<int32_t>(args.size()),
      static_cast<int32_t>(resultDims.size())};
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value arg : args)
    block->addArgument(arg.getType(), arg.getLoc());
}

/// A dynamic size of a result is its operand among `dims`: value-bounds
/// analysis on the host sees through tasks. Inside, an argument of the body
/// has the size of its operand.
void TaskOp::populateBoundsForShapedValueDim(Value value, int64_t dim,
                                             ValueBoundsConstraintSet &cstr) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner()->getParentOp() == getOperation() &&
        arg.getArgNumber() < getArgs().size())
      cstr.bound(value)[dim] ==
          cstr.getExpr(getArgs()[arg.getArgNumber()], dim);
    return;
  }
  auto result = cast<OpResult>(value);
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(dim))
    return;
  unsigned position = 0;
  for (unsigned i = 0; i < result.getResultNumber(); ++i)
    position += cast<RankedTensorType>(getResult(i).getType()).getNumDynamicDims();
  for (int64_t d = 0; d < dim; ++d)
    position += type.isDynamicDim(d) ? 1 : 0;
  if (position < getResultDims().size())
    cstr.bound(value)[dim] == getResultDims()[position];
}

LogicalResult TaskOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getArgs().size())
    return emitOpError("expects ")
           << getArgs().size() << " region arguments (one per operand), got "
           << block.getNumArguments();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), getArgs()))) {
    auto [argType, operand] = pair;
    if (argType != operand.getType())
      return emitOpError("region argument #")
             << i << " has type " << argType << " but operand #" << i
             << " has type " << operand.getType();
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().size() != getNumResults())
    return emitOpError("yields ")
           << yield.getValues().size() << " values but has "
           << getNumResults() << " results";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), getResultTypes()))) {
    auto [yieldType, resultType] = pair;
    if (yieldType != resultType)
      return emitOpError("yield operand #")
             << i << " has type " << yieldType << " but result #" << i
             << " has type " << resultType;
  }
  SmallVector<Type> bindings(getArgs().getTypes());
  llvm::append_range(bindings, getResultTypes());
  if (failed(verifyFlopsTerms(*this, getFlopsTermsAttr(), getFlopsAttr(),
                              bindings)))
    return failure();
  return verifyResultDims(*this, getResultTypes(), getResultDims());
}

//===----------------------------------------------------------------------===//
// ExecutableOp / VariantOp
//===----------------------------------------------------------------------===//

void ExecutableOp::build(OpBuilder &builder, OperationState &state,
                         StringRef name, ArrayAttr bindings,
                         ArrayAttr access) {
  auto &props = state.getOrAddProperties<Properties>();
  props.sym_name = builder.getStringAttr(name);
  props.bindings = bindings;
  props.access = access;
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult ExecutableOp::verify() {
  if (getBindings().size() != getAccess().size())
    return emitOpError("has ")
           << getBindings().size() << " bindings but " << getAccess().size()
           << " access modes";
  for (auto [i, attr] : llvm::enumerate(getBindings())) {
    auto type = dyn_cast<TypeAttr>(attr);
    if (!type || !isa<RankedTensorType>(type.getValue()))
      return emitOpError("binding #") << i << " must be a ranked tensor type";
  }
  SmallVector<Type> bindings = llvm::map_to_vector(
      getBindings(), [](Attribute a) { return cast<TypeAttr>(a).getValue(); });
  if (failed(verifyFlopsTerms(*this, getFlopsTermsAttr(), getFlopsAttr(),
                              bindings)))
    return failure();
  // Variants of one target are candidates that differ in their knobs.
  llvm::SmallDenseSet<std::pair<Attribute, Attribute>> targets;
  size_t numVariants = 0;
  for (Operation &op : getBlock()) {
    auto variant = dyn_cast<VariantOp>(op);
    if (!variant)
      return emitOpError("may only contain fw.variant ops, found ")
             << op.getName();
    Attribute config = variant.getConfigAttr();
    if (config && cast<DictionaryAttr>(config).empty())
      config = nullptr;
    if (!targets.insert({variant.getTarget(), config}).second)
      return emitOpError("has two variants for target ")
             << variant.getTarget() << " with the same config";
    ++numVariants;
  }
  if (numVariants == 0)
    return emitOpError("must contain at least one fw.variant");
  if (ArrayAttr checks = getChecksAttr())
    for (auto [i, check] : llvm::enumerate(checks.getAsValueRange<StringAttr>()))
      if (check.empty())
        return emitOpError("check #") << i + 1 << " has an empty message";
  return success();
}

void VariantOp::build(OpBuilder &builder, OperationState &state,
                      StringRef name, Attribute target) {
  auto &props = state.getOrAddProperties<Properties>();
  props.sym_name = builder.getStringAttr(name);
  props.target = target;
  Region *body = state.addRegion();
  body->push_back(new Block());
}

std::string mlir::fw::getVariantName(TargetAttrInterface target) {
  std::string name = (target.getKindName() + "_" + target.getArchName()).str();
  for (char &c : name)
    if (!llvm::isAlnum(c))
      c = '_';
  return name;
}

ModuleOp VariantOp::getInnerModule() {
  for (Operation &op : getBlock())
    if (auto module = dyn_cast<ModuleOp>(op))
      return module;
  return nullptr;
}

LogicalResult VariantOp::verify() {
  if (!isa<TargetAttrInterface>(getTarget()))
    return emitOpError("target must be an fw target attribute "
                       "(#fw.cpu, #fw.cuda or #fw.hip), got ")
           << getTarget();
  Block &block = getBlock();
  if (block.getOperations().size() != 1 || !isa<ModuleOp>(block.front()))
    return emitOpError("must contain exactly one builtin.module");
  if (DictionaryAttr config = getConfigAttr()) {
    TuningConfig tuning;
    for (NamedAttribute entry : config) {
      auto value = dyn_cast<IntegerAttr>(entry.getValue());
      if (!value || !value.getType().isInteger(64) ||
          !setTuningKnob(tuning, entry.getName().getValue(), value.getInt()))
        return emitOpError("config entry '")
               << entry.getName().getValue() << "' must be one of "
               << llvm::join(getTuningKeys(), ", ") << " with an i64 value";
    }
    const TargetDescription *desc =
        lookupTarget(getTargetInterface().getArchName());
    if (desc)
      if (llvm::Error err = verifyTuningConfig(tuning, *desc))
        return emitOpError("config does not fit ")
               << getTargetInterface().getArchName() << ": "
               << llvm::toString(std::move(err));
  }
  return success();
}

TuningConfig VariantOp::getTuning() {
  TuningConfig tuning;
  if (DictionaryAttr config = getConfigAttr())
    for (NamedAttribute entry : config)
      if (auto value = dyn_cast<IntegerAttr>(entry.getValue()))
        setTuningKnob(tuning, entry.getName().getValue(), value.getInt());
  return tuning;
}

void VariantOp::setTuning(const TuningConfig &tuning) {
  if (tuning.empty()) {
    removeConfigAttr();
    return;
  }
  Builder b(getContext());
  SmallVector<NamedAttribute> entries;
  std::string text = formatTuningConfig(tuning);
  for (llvm::StringRef entry : llvm::split(text, ',')) {
    auto [key, value] = entry.split('=');
    int64_t number = 0;
    value.getAsInteger(10, number);
    entries.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(number)));
  }
  setConfigAttr(b.getDictionaryAttr(entries));
}

//===----------------------------------------------------------------------===//
// InvokeOp
//===----------------------------------------------------------------------===//

LogicalResult InvokeOp::verify() {
  return verifyResultDims(*this, getResultTypes(), getResultDims());
}

LogicalResult InvokeOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<ExecutableOp> exe =
      lookupExecutable(*this, getCalleeAttr(), tables);
  if (failed(exe))
    return failure();
  size_t numBindings = exe->getBindings().size();
  if (getArgs().size() + getNumResults() != numBindings)
    return emitOpError("has ")
           << getArgs().size() << " operands and " << getNumResults()
           << " results but " << getCalleeAttr() << " has " << numBindings
           << " bindings";
  if (failed(checkBindings(*this, *exe, getArgs().getTypes(), 0, "operand")))
    return failure();
  return checkBindings(*this, *exe, getResultTypes(), getArgs().size(),
                       "result");
}

//===----------------------------------------------------------------------===//
// Buffer ops
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  MemRefType type = getResult().getType();
  if (failed(verifyTierMemRef(*this, type)))
    return failure();
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError("expects ")
           << type.getNumDynamicDims()
           << " dynamic sizes (one per dynamic dimension), got "
           << getDynamicSizes().size();
  if (!type.getLayout().isIdentity())
    return emitOpError("expects an identity layout, got ") << type;
  return success();
}

LogicalResult DeallocOp::verify() {
  return verifyTierMemRef(*this, getBuffer().getType());
}

LogicalResult PrefetchOp::verify() {
  return verifyTierMemRef(*this, getBuffer().getType());
}

//===----------------------------------------------------------------------===//
// DispatchOp / WaitOp / AssertOp
//===----------------------------------------------------------------------===//

LogicalResult DispatchOp::verify() {
  if (getAccess().size() != getBuffers().size())
    return emitOpError("has ")
           << getBuffers().size() << " buffers but " << getAccess().size()
           << " access modes";
  for (Value buffer : getBuffers())
    if (failed(verifyTierMemRef(*this, cast<MemRefType>(buffer.getType()))))
      return failure();
  return success();
}

LogicalResult DispatchOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<ExecutableOp> exe =
      lookupExecutable(*this, getCalleeAttr(), tables);
  if (failed(exe))
    return failure();
  if (getBuffers().size() != exe->getBindings().size())
    return emitOpError("has ")
           << getBuffers().size() << " buffers but " << getCalleeAttr()
           << " has " << exe->getBindings().size() << " bindings";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getAccess(), exe->getAccess()))) {
    auto [mine, theirs] = pair;
    if (mine != theirs)
      return emitOpError("access mode of buffer #")
             << i << " (" << mine << ") differs from binding #" << i << " ("
             << theirs << ") of " << getCalleeAttr();
  }
  return checkBindings(*this, *exe, getBuffers().getTypes(), 0, "buffer");
}

LogicalResult WaitOp::verify() {
  if (getTokens().empty())
    return emitOpError("requires at least one token");
  return success();
}

LogicalResult AssertOp::canonicalize(AssertOp op, PatternRewriter &rewriter) {
  // A check that always holds is dropped.
  if (!matchPattern(op.getCondition(), m_One()))
    return failure();
  rewriter.eraseOp(op);
  return success();
}

LogicalResult AssertOp::verify() {
  if (getMessage().empty())
    return emitOpError("requires a non-empty message");
  if (getMessage().contains('\0'))
    return emitOpError("has a message with a NUL byte; it is a C string where "
                       "it fails the call");
  return success();
}

#define GET_OP_CLASSES
#include "fw/Dialect/FW/IR/FWOps.cpp.inc"
