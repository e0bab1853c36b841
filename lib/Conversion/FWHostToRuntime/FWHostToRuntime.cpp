//===- FWHostToRuntime.cpp - Host functions to runtime calls --------------===//
//
// Rewrites every entry function over #fw.tier buffers into a host entry
// `void __fw_entry_<name>(fw_invocation_t *)` made of calls into the runtime's
// host ABI (docs/runtime.md). Errors inside the runtime are sticky, so the
// generated code is straight-line.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CONVERTFWHOSTTORUNTIMEPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

/// Emits calls into the runtime's host ABI for one host entry.
class RuntimeCallBuilder {
public:
  RuntimeCallBuilder(ModuleOp module, OpBuilder &b, Value invocation)
      : module(module), b(b), invocation(invocation),
        ptrType(LLVM::LLVMPointerType::get(module.getContext())),
        i64(b.getI64Type()), i32(b.getI32Type()) {}

  Value arg(Location loc, int64_t index) {
    return call(loc, "fw_rt_arg", ptrType, {constI64(loc, index)});
  }
  Value dim(Location loc, Value buffer, int64_t index) {
    Value size = call(loc, "fw_rt_buffer_dim", i64,
                      {buffer, constI64(loc, index)});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
  }
  Value alloc(Location loc, Tier tier, uint32_t elementType,
              ArrayRef<Value> sizes) {
    Value dims = array(loc, i64, sizes);
    return call(loc, "fw_rt_buffer_alloc", ptrType,
                {constI32(loc, static_cast<int32_t>(tier)),
                 constI32(loc, elementType),
                 constI64(loc, static_cast<int64_t>(sizes.size())), dims});
  }
  void release(Location loc, Value buffer) {
    call(loc, "fw_rt_buffer_release", nullptr, {buffer});
  }
  void prefetch(Location loc, Value buffer, Tier tier) {
    call(loc, "fw_rt_prefetch", nullptr,
         {buffer, constI32(loc, static_cast<int32_t>(tier))});
  }
  /// A dispatch; one with `after` tokens becomes fw_rt_dispatch_after, whose
  /// task the runtime orders after theirs (an edge of the graph, not a wait).
  Value dispatch(Location loc, int64_t executable, ArrayRef<Value> buffers,
                 ArrayRef<Value> after) {
    Value list = array(loc, ptrType, buffers);
    SmallVector<Value> args = {
        constI64(loc, executable),
        constI64(loc, static_cast<int64_t>(buffers.size())), list};
    if (after.empty())
      return call(loc, "fw_rt_dispatch", ptrType, args);
    // Host-call ABI version 2 (docs/runtime.md): recorded for the metadata.
    module->setAttr(kHostAbiAttrName, b.getI32IntegerAttr(2));
    args.push_back(constI64(loc, static_cast<int64_t>(after.size())));
    args.push_back(array(loc, ptrType, after));
    return call(loc, "fw_rt_dispatch_after", ptrType, args);
  }
  void wait(Location loc, Value token) {
    call(loc, "fw_rt_wait", nullptr, {token});
  }
  void setResult(Location loc, int64_t index, Value buffer) {
    call(loc, "fw_rt_set_result", nullptr, {constI64(loc, index), buffer});
  }
  void check(Location loc, Value condition, StringRef message) {
    Value flag = arith::ExtUIOp::create(b, loc, i32, condition);
    std::string name = ("__fw_msg_" + Twine(messageCounter++)).str();
    while (module.lookupSymbol(name))
      name = ("__fw_msg_" + Twine(messageCounter++)).str();
    // NUL-terminated: the runtime reads it as a C string.
    std::string terminated = message.str();
    terminated.push_back('\0');
    Value text = LLVM::createGlobalString(loc, b, name, terminated,
                                          LLVM::Linkage::Internal);
    call(loc, "fw_rt_assert", nullptr, {flag, text});
  }

private:
  Value constI64(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  }
  Value constI32(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  }

  /// Stores `values` (index values are widened to i64) into a stack array.
  Value array(Location loc, Type elementType, ArrayRef<Value> values) {
    Value count = constI64(loc, std::max<int64_t>(1, values.size()));
    Value base =
        LLVM::AllocaOp::create(b, loc, ptrType, elementType, count, 8);
    for (auto [i, v] : llvm::enumerate(values)) {
      Value element = v;
      if (element.getType().isIndex())
        element = arith::IndexCastOp::create(b, loc, i64, element);
      Value slot = LLVM::GEPOp::create(
          b, loc, ptrType, elementType, base,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, element, slot);
    }
    return base;
  }

  /// Calls runtime function `name`, declaring it on first use.
  Value call(Location loc, StringRef name, Type result,
             SmallVector<Value> args) {
    args.insert(args.begin(), invocation);
    SmallVector<Type> results;
    if (result)
      results.push_back(result);
    auto decl = module.lookupSymbol<func::FuncOp>(name);
    if (!decl) {
      OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
      decl = func::FuncOp::create(
          mb, loc, name,
          mb.getFunctionType(ValueRange(args).getTypes(), results));
      decl.setPrivate();
    }
    auto op = func::CallOp::create(b, loc, decl, args);
    return result ? op.getResult(0) : Value();
  }

  ModuleOp module;
  OpBuilder &b;
  Value invocation;
  Type ptrType, i64, i32;
  unsigned messageCounter = 0;
};

/// Returns the tier of a host buffer type.
Tier getTier(Type type) {
  return cast<TierAttr>(cast<MemRefType>(type).getMemorySpace()).getValue();
}

LogicalResult lowerHostFunction(func::FuncOp func,
                                const llvm::DenseMap<StringAttr, int64_t>
                                    &ordinals) {
  ModuleOp module = func->getParentOfType<ModuleOp>();
  MLIRContext *ctx = func.getContext();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to be lowered to "
                            "runtime calls");
  auto signature = func->getAttrOfType<TypeAttr>(kSignatureAttrName);
  if (!signature)
    return func.emitOpError("has no '")
           << kSignatureAttrName << "' attribute; run fw-bufferize first";

  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  std::string entryName = getHostEntrySymbol(func.getSymName());
  if (module.lookupSymbol(entryName))
    return func.emitOpError("host entry symbol '")
           << entryName << "' is already defined";
  OpBuilder mb(func);
  auto entry = func::FuncOp::create(mb, func.getLoc(), entryName,
                                    mb.getFunctionType({ptrType}, {}));
  entry->setAttr(kSignatureAttrName, signature);
  entry->setAttr(kEntryNameAttrName, func.getSymNameAttr());
  Block *block = entry.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(block);
  RuntimeCallBuilder rt(module, b, block->getArgument(0));

  IRMapping mapping;
  Block &old = func.getBody().front();
  for (auto [i, arg] : llvm::enumerate(old.getArguments()))
    mapping.map(arg, rt.arg(arg.getLoc(), i));

  for (Operation &op : old) {
    Location loc = op.getLoc();
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index)
        return dim.emitOpError("needs a constant dimension index");
      auto type = cast<MemRefType>(dim.getSource().getType());
      if (*index < 0 || *index >= type.getRank())
        return dim.emitOpError("dimension index out of range");
      Value size =
          type.isDynamicDim(*index)
              ? rt.dim(loc, mapping.lookup(dim.getSource()), *index)
              : arith::ConstantIndexOp::create(b, loc,
                                               type.getDimSize(*index))
                    .getResult();
      mapping.map(dim.getResult(), size);
      continue;
    }
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      MemRefType type = alloc.getType();
      std::optional<uint32_t> code = getElementTypeCode(type.getElementType());
      if (!code)
        return alloc.emitOpError("element type ")
               << type.getElementType() << " is not supported by the runtime";
      SmallVector<Value> sizes;
      unsigned dynamic = 0;
      for (int64_t size : type.getShape())
        sizes.push_back(ShapedType::isDynamic(size)
                            ? mapping.lookupOrDefault(
                                  alloc.getDynamicSizes()[dynamic++])
                            : arith::ConstantIndexOp::create(b, loc, size)
                                  .getResult());
      mapping.map(alloc.getResult(),
                  rt.alloc(loc, getTier(type), *code, sizes));
      continue;
    }
    if (auto dealloc = dyn_cast<DeallocOp>(op)) {
      rt.release(loc, mapping.lookup(dealloc.getBuffer()));
      continue;
    }
    if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
      rt.prefetch(loc, mapping.lookup(prefetch.getBuffer()),
                  prefetch.getTier());
      continue;
    }
    if (auto dispatch = dyn_cast<DispatchOp>(op)) {
      auto it = ordinals.find(dispatch.getCalleeAttr().getAttr());
      if (it == ordinals.end())
        return dispatch.emitOpError("refers to unknown executable ")
               << dispatch.getCalleeAttr();
      SmallVector<Value> buffers, after;
      for (Value buffer : dispatch.getBuffers())
        buffers.push_back(mapping.lookup(buffer));
      for (Value token : dispatch.getAfter())
        after.push_back(mapping.lookup(token));
      mapping.map(dispatch.getToken(),
                  rt.dispatch(loc, it->second, buffers, after));
      continue;
    }
    if (auto wait = dyn_cast<WaitOp>(op)) {
      for (Value token : wait.getTokens())
        rt.wait(loc, mapping.lookup(token));
      continue;
    }
    if (auto check = dyn_cast<AssertOp>(op)) {
      rt.check(loc, mapping.lookupOrDefault(check.getCondition()),
               check.getMessage());
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        rt.setResult(loc, i, mapping.lookup(v));
      func::ReturnOp::create(b, loc);
      continue;
    }
    bool touchesBuffers =
        llvm::any_of(op.getOperandTypes(),
                     [](Type t) { return isa<ShapedType>(t); }) ||
        llvm::any_of(op.getResultTypes(),
                     [](Type t) { return isa<ShapedType>(t); });
    if (touchesBuffers || op.getNumRegions() != 0)
      return op.emitOpError("cannot be lowered to runtime calls on the host");
    b.clone(op, mapping);
  }
  func.erase();
  return success();
}

struct ConvertFWHostToRuntimePass
    : public fw::impl::ConvertFWHostToRuntimePassBase<
          ConvertFWHostToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Executables are numbered in module order; the number is recorded on
    // each so the fat binary's executable table uses the same one.
    llvm::DenseMap<StringAttr, int64_t> ordinals;
    for (auto exe : module.getOps<ExecutableOp>()) {
      int64_t ordinal = ordinals.size();
      ordinals.try_emplace(exe.getSymNameAttr(), ordinal);
      exe->setAttr(kOrdinalAttrName,
                   IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                    ordinal));
    }
    SmallVector<func::FuncOp> hosts;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isDeclaration() && func->hasAttr(kSignatureAttrName) &&
          !func->hasAttr(kEntryNameAttrName))
        hosts.push_back(func);
    for (func::FuncOp func : hosts)
      if (failed(lowerHostFunction(func, ordinals)))
        return signalPassFailure();
  }
};

} // namespace
