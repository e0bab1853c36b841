//===- FWDialect.h - fw dialect ---------------------------------*- C++ -*-===//

#ifndef FW_DIALECT_FW_IR_FWDIALECT_H
#define FW_DIALECT_FW_IR_FWDIALECT_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "fw/Dialect/FW/IR/FWDialect.h.inc"

#endif // FW_DIALECT_FW_IR_FWDIALECT_H
