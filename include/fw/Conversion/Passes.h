//===- Passes.h - fw conversion passes --------------------------*- C++ -*-===//

#ifndef FW_CONVERSION_PASSES_H
#define FW_CONVERSION_PASSES_H

#include "fw/Dialect/FW/IR/FWOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fw {

#define GEN_PASS_DECL
#include "fw/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fw/Conversion/Passes.h.inc"

} // namespace mlir::fw

#endif // FW_CONVERSION_PASSES_H
