//===- FWHostToLLVM.cpp - Host side to the LLVM dialect -------------------===//
//
// Converts the functions outside fw.executable ops to the LLVM dialect; the
// executables keep whatever their own backends produced.
//
//===----------------------------------------------------------------------===//

#include "fw/Conversion/Passes.h"

#include "fw/Conversion/FWHostToRuntime/RuntimeABI.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CONVERTFWHOSTTOLLVMPASS
#include "fw/Conversion/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Defines the runtime function table and turns every call of a runtime
/// function into a call through its slot.
static LogicalResult callRuntimeThroughTable(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (getRuntimeFunctionSlot(call.getCallee()))
      calls.push_back(call);
  });
  if (calls.empty())
    return success();
  if (module.lookupSymbol(kRuntimeTableSymbol))
    return module.emitError("symbol '")
           << kRuntimeTableSymbol << "' is reserved for the runtime";

  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto tableType =
      LLVM::LLVMArrayType::get(ptrType, std::size(kRuntimeFunctions));
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto table = LLVM::GlobalOp::create(
      b, module.getLoc(), tableType, /*isConstant=*/false,
      LLVM::Linkage::External, kRuntimeTableSymbol, Attribute(),
      /*alignment=*/8);
  b.setInsertionPointToStart(b.createBlock(&table.getInitializerRegion()));
  Value zero = LLVM::ZeroOp::create(b, module.getLoc(), tableType);
  LLVM::ReturnOp::create(b, module.getLoc(), zero);

  for (func::CallOp call : calls) {
    b.setInsertionPoint(call);
    Location loc = call.getLoc();
    int32_t slot = *getRuntimeFunctionSlot(call.getCallee());
    Value base = LLVM::AddressOfOp::create(b, loc, table);
    Value entry = LLVM::GEPOp::create(b, loc, ptrType, tableType, base,
                                      ArrayRef<LLVM::GEPArg>{0, slot});
    Value fn = LLVM::LoadOp::create(b, loc, ptrType, entry);
    Type result = call.getNumResults() ? call.getResult(0).getType()
                                       : LLVM::LLVMVoidType::get(ctx);
    auto fnType = LLVM::LLVMFunctionType::get(
        result, llvm::to_vector(call.getOperandTypes()));
    SmallVector<Value> operands = {fn};
    llvm::append_range(operands, call.getOperands());
    auto indirect = LLVM::CallOp::create(b, loc, fnType, operands);
    call.replaceAllUsesWith(indirect.getResults());
    call.erase();
  }
  for (StringRef name : kRuntimeFunctions)
    if (auto decl = module.lookupSymbol<func::FuncOp>(name);
        decl && decl.isDeclaration())
      decl.erase();
  return success();
}

namespace {

struct ConvertFWHostToLLVMPass
    : public fw::impl::ConvertFWHostToLLVMPassBase<ConvertFWHostToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(callRuntimeThroughTable(module)))
      return signalPassFailure();

    SmallVector<Operation *> hostOps;
    for (Operation &op : *module.getBody())
      if (isa<func::FuncOp>(op))
        hostOps.push_back(&op);
    if (hostOps.empty())
      return;

    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateAffineToStdConversionPatterns(patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    // The scalar math fw-form-tasks leaves on the host (isRematerializable).
    populateMathToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(hostOps, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
