//===- CPUKernelAllocator.cpp - A CPU kernel's buffers from the runtime ---===//
//
// A CPU kernel's own buffers (`memref.alloc`: temporaries, packed panels,
// tensors sized from the data) come from the runtime, which frees what a
// workgroup still holds when it returns: a kernel that stops early loses
// nothing. The memref lowering calls MLIR's generic allocation functions;
// this pass calls the runtime's through the module's function table instead
// (docs/runtime.md, host-call ABI version 4).
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/FWHostToRuntime/RuntimeABI.h"
#include "fw/Dialect/FW/Transforms/Passes.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUKERNELALLOCATORPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// The functions `finalize-memref-to-llvm{use-generic-functions}` calls.
static constexpr llvm::StringLiteral kGenericAlloc =
    "_mlir_memref_to_llvm_alloc";
static constexpr llvm::StringLiteral kGenericAlignedAlloc =
    "_mlir_memref_to_llvm_aligned_alloc";
static constexpr llvm::StringLiteral kGenericFree = "_mlir_memref_to_llvm_free";

namespace {

struct CPUKernelAllocatorPass
    : public fw::impl::CPUKernelAllocatorPassBase<CPUKernelAllocatorPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i64Type = IntegerType::get(ctx, 64);
    // The signatures the memref lowering gives them.
    auto allocType = LLVM::LLVMFunctionType::get(ptrType, {i64Type});
    auto alignedAllocType =
        LLVM::LLVMFunctionType::get(ptrType, {i64Type, i64Type});
    auto freeType =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrType});
    SmallVector<LLVM::CallOp> calls;
    bool bad = false;
    // This module's functions, not those of modules nested in it.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      func.walk([&](LLVM::CallOp call) {
        std::optional<StringRef> callee = call.getCallee();
        if (!callee)
          return;
        LLVM::LLVMFunctionType expected =
            *callee == kGenericAlloc          ? allocType
            : *callee == kGenericAlignedAlloc ? alignedAllocType
            : *callee == kGenericFree         ? freeType
                                              : nullptr;
        if (!expected)
          return;
        if (call.getCalleeFunctionType() != expected) {
          call.emitOpError("calls '")
              << *callee << "' as " << call.getCalleeFunctionType()
              << "; the memref lowering calls it as " << expected;
          bad = true;
          return;
        }
        calls.push_back(call);
      });
    if (bad)
      return signalPassFailure();
    if (calls.empty())
      return;
    if (module.lookupSymbol(kRuntimeTableSymbol)) {
      module.emitError("symbol '")
          << kRuntimeTableSymbol << "' is reserved for the runtime";
      return signalPassFailure();
    }

    auto tableType =
        LLVM::LLVMArrayType::get(ptrType, std::size(kRuntimeFunctions));
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    // A declaration: the host code defines the table, in the same object.
    auto table = LLVM::GlobalOp::create(
        b, module.getLoc(), tableType, /*isConstant=*/false,
        LLVM::Linkage::External, kRuntimeTableSymbol, Attribute(),
        /*alignment=*/8);

    int32_t allocSlot = *getRuntimeFunctionSlot("fw_rt_kernel_alloc");
    int32_t freeSlot = *getRuntimeFunctionSlot("fw_rt_kernel_free");
    for (LLVM::CallOp call : calls) {
      b.setInsertionPoint(call);
      Location loc = call.getLoc();
      StringRef callee = *call.getCallee();
      bool isFree = callee == kGenericFree;
      SmallVector<Value> operands;
      if (callee == kGenericAlloc)
        operands.push_back(LLVM::ConstantOp::create(
            b, loc, i64Type, b.getI64IntegerAttr(0))); // default alignment
      llvm::append_range(operands, call.getArgOperands());
      Value base = LLVM::AddressOfOp::create(b, loc, table);
      Value entry = LLVM::GEPOp::create(
          b, loc, ptrType, tableType, base,
          ArrayRef<LLVM::GEPArg>{0, isFree ? freeSlot : allocSlot});
      Value fn = LLVM::LoadOp::create(b, loc, ptrType, entry);
      auto fnType = isFree
                        ? LLVM::LLVMFunctionType::get(
                              LLVM::LLVMVoidType::get(ctx), {ptrType})
                        : LLVM::LLVMFunctionType::get(ptrType,
                                                      {i64Type, i64Type});
      operands.insert(operands.begin(), fn);
      auto indirect = LLVM::CallOp::create(b, loc, fnType, operands);
      call.replaceAllUsesWith(indirect.getResults());
      call.erase();
    }
    for (StringRef name : {kGenericAlloc, kGenericAlignedAlloc, kGenericFree})
      if (auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
          decl && decl.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(decl, module))
        decl.erase();
  }
};

} // namespace
