//===- CPUKernelABI.cpp - Uniform entry points for CPU kernels ------------===//
//
// The runtime calls every CPU kernel as
//   void kernel(void *const *descriptors, const fw_workgroup_t *workgroup);
// This pass emits that entry for each lowered kernel: it loads one memref
// descriptor pointer per binding (and, for kernels that divide their work,
// the workgroup id and count) and calls the kernel's C interface.
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
    Type i32Type = IntegerType::get(ctx, 32), i64Type = IntegerType::get(ctx, 64);

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
      // Buffers, then the workgroup id and count when the kernel divides its
      // work (fw-cpu-workgroup-args).
      ArrayRef<Type> params = ciface.getFunctionType().getParams();
      bool workgroups = kernel->hasAttr("fw.workgroups");
      unsigned numBuffers = params.size() - (workgroups ? 2 : 0);
      if (workgroups && (params.size() < 2 ||
                         !params.take_back(2).equals({i64Type, i64Type}))) {
        kernel.emitOpError("is marked fw.workgroups but does not end with "
                           "two i64 arguments");
        return signalPassFailure();
      }
      for (Type t : params.take_front(numBuffers))
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
      SmallVector<Value> args;
      for (unsigned i = 0; i < numBuffers; ++i) {
        Value slot = LLVM::GEPOp::create(
            b, loc, ptrType, ptrType, block->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
      }
      if (workgroups) {
        // fw_workgroup_t is {uint32_t id[3]; uint32_t count[3];}: the linear
        // id is id[0] and the count count[0] (one-dimensional on the CPU).
        for (int32_t field : {0, 3}) {
          Value slot = LLVM::GEPOp::create(
              b, loc, ptrType, i32Type, block->getArgument(1),
              ArrayRef<LLVM::GEPArg>{field});
          Value v = LLVM::LoadOp::create(b, loc, i32Type, slot);
          args.push_back(LLVM::ZExtOp::create(b, loc, i64Type, v));
        }
      }
      LLVM::CallOp::create(b, loc, ciface, args);
      LLVM::ReturnOp::create(b, loc, ValueRange{});

      kernel->removeAttr(kKernelSymbolAttr);
      ciface->removeAttr(kKernelSymbolAttr);
    }
  }
};

} // namespace
