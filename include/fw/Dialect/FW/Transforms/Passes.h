//===- Passes.h - fw dialect transformation passes --------------*- C++ -*-===//

#ifndef FW_DIALECT_FW_TRANSFORMS_PASSES_H
#define FW_DIALECT_FW_TRANSFORMS_PASSES_H

#include "fw/Dialect/FW/IR/FWOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fw {

#define GEN_PASS_DECL
#include "fw/Dialect/FW/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fw/Dialect/FW/Transforms/Passes.h.inc"

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_PASSES_H
