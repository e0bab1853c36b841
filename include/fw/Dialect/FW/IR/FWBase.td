//===- FWBase.td - fw dialect definition -------------------*- tablegen -*-===//
//
// The fw dialect: tasks, executables with per-target variants, buffers in
// memory tiers, and asynchronous dispatch with tokens.
//
//===----------------------------------------------------------------------===//

#ifndef FW_DIALECT_FW_IR_FWBASE_TD
#define FW_DIALECT_FW_IR_FWBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def FW_Dialect : Dialect {
  let name = "fw";
  let cppNamespace = "::mlir::fw";
  let summary = "Tasks, executables and memory tiers for heterogeneous machines";
  let description = [{
    The `fw` dialect describes a program as tasks over tensors, outlined into
    executables that hold one variant per target (CPU ISA level, NVIDIA SM,
    AMD gfx target), and a host program that allocates buffers in memory tiers
    and dispatches executables asynchronously with explicit access modes.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

class FW_Op<string mnemonic, list<Trait> traits = []>
    : Op<FW_Dialect, mnemonic, traits>;

#endif // FW_DIALECT_FW_IR_FWBASE_TD
