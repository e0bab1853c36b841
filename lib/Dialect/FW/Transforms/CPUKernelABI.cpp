//===- CPUKernelABI.cpp - Uniform entry points for CPU kernels ------------===//
//
// The runtime calls every CPU kernel as
//   void kernel(void *const *descriptors, const fw_workgroup_t *workgroup);
// This pass emits that entry for each lowered kernel: it loads one memref
// descriptor pointer per binding and calls the kernel's C interface.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUKERNELABIPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Attribute naming the runtime symbol of a kernel.
static constexpr llvm::StringLiteral kKernelSymbolAttr = "fw.kernel_symbol";

namespace {

struct CPUKernelABIPass
    : public fw::impl::CPUKernelABIPassBase<CPUKernelABIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto voidType = LLVM::LLVMVoidType::get(ctx);

    SmallVector<LLVM::LLVMFuncOp> kernels;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(kKernelSymbolAttr) &&
          !func.getSymName().starts_with("_mlir_ciface_"))
        kernels.push_back(func);

    for (LLVM::LLVMFuncOp kernel : kernels) {
      auto symbol = kernel->getAttrOfType<StringAttr>(kKernelSymbolAttr);
      std::string cifaceName = ("_mlir_ciface_" + kernel.getSymName()).str();
      auto ciface = symbols.lookup<LLVM::LLVMFuncOp>(cifaceName);
      if (!ciface) {
        kernel.emitOpError("has no C interface '")
            << cifaceName << "'; mark it with llvm.emit_c_interface";
        return signalPassFailure();
      }
      if (symbols.lookup(symbol.getValue())) {
        kernel.emitOpError("kernel symbol '")
            << symbol.getValue() << "' is already defined";
        return signalPassFailure();
      }
      for (Type t : ciface.getFunctionType().getParams())
        if (!isa<LLVM::LLVMPointerType>(t)) {
          kernel.emitOpError("has a non-memref argument of type ")
              << t << "; CPU kernels take buffers only";
          return signalPassFailure();
        }

      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      Location loc = kernel.getLoc();
      auto entry = LLVM::LLVMFuncOp::create(
          b, loc, symbol.getValue(),
          LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType}));
      Block *block = entry.addEntryBlock(b);
      b.setInsertionPointToStart(block);
      SmallVector<Value> descriptors;
      for (unsigned i = 0, e = ciface.getNumArguments(); i < e; ++i) {
        Value slot = LLVM::GEPOp::create(
            b, loc, ptrType, ptrType, block->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        descriptors.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
      }
      LLVM::CallOp::create(b, loc, ciface, descriptors);
      LLVM::ReturnOp::create(b, loc, ValueRange{});

      kernel->removeAttr(kKernelSymbolAttr);
      ciface->removeAttr(kKernelSymbolAttr);
    }
  }
};

} // namespace
