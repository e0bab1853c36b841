//===- CPUKernelABI.cpp - Uniform entry points for CPU kernels ------------===//
//
// The runtime calls every CPU kernel as
//   void kernel(void *const *descriptors, const fw_workgroup_t *workgroup);
// This pass emits that entry for each lowered kernel: it loads one memref
// descriptor pointer per binding (and, for kernels that divide their work,
// the workgroup id and count; for kernels that check what they compute, the
// error word) and calls the kernel's C interface.
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
/// Positions of the kernel's arguments to mark noalias.
static constexpr llvm::StringLiteral kNoAliasParamsAttr = "fw.noalias_params";

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
      // An error word (fw-kernel-error-word) comes after the buffers.
      ArrayRef<Type> params = ciface.getFunctionType().getParams();
      bool workgroups = kernel->hasAttr("fw.workgroups");
      bool errorWord = kernel->hasAttr("fw.error_word");
      unsigned extra = (workgroups ? 2 : 0) + (errorWord ? 1 : 0);
      if (params.size() < extra ||
          (workgroups && !params.take_back(2).equals({i64Type, i64Type}))) {
        kernel.emitOpError("is marked fw.workgroups but does not end with "
                           "two i64 arguments");
        return signalPassFailure();
      }
      unsigned numBuffers = params.size() - extra;
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
      if (errorWord) {
        // fw_workgroup_t's `uint32_t *error` (at byte 24) as the descriptor
        // of a memref<i32>: {allocated, aligned, offset}.
        Value slot = LLVM::GEPOp::create(b, loc, ptrType, i32Type,
                                         block->getArgument(1),
                                         ArrayRef<LLVM::GEPArg>{6});
        Value word = LLVM::LoadOp::create(b, loc, ptrType, slot);
        auto descType = LLVM::LLVMStructType::getLiteral(
            ctx, {ptrType, ptrType, i64Type});
        Value one = LLVM::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
        Value desc = LLVM::AllocaOp::create(b, loc, ptrType, descType, one);
        Value value = LLVM::PoisonOp::create(b, loc, Type(descType));
        value = LLVM::InsertValueOp::create(b, loc, value, word,
                                            ArrayRef<int64_t>{0});
        value = LLVM::InsertValueOp::create(b, loc, value, word,
                                            ArrayRef<int64_t>{1});
        Value zero = LLVM::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
        value = LLVM::InsertValueOp::create(b, loc, value, zero,
                                            ArrayRef<int64_t>{2});
        LLVM::StoreOp::create(b, loc, value, desc);
        args.push_back(desc);
      }
      if (workgroups) {
        // fw_workgroup_t is {uint32_t id[3]; uint32_t count[3]; ...}: the linear
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

      // Arguments through which nothing else is reached
      // (fw-convert-cpu-variants-to-llvm).
      if (auto params =
              kernel->getAttrOfType<DenseI32ArrayAttr>(kNoAliasParamsAttr)) {
        for (int32_t i : params.asArrayRef())
          if (i >= 0 && static_cast<unsigned>(i) < kernel.getNumArguments() &&
              isa<LLVM::LLVMPointerType>(kernel.getArgument(i).getType()))
            kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                              UnitAttr::get(ctx));
      }
      kernel->removeAttr(kNoAliasParamsAttr);
      ciface->removeAttr(kNoAliasParamsAttr);
      kernel->removeAttr(kKernelSymbolAttr);
      ciface->removeAttr(kKernelSymbolAttr);
    }
  }
};

} // namespace
