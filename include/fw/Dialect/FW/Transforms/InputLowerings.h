//===- InputLowerings.h - Input ops rewritten into others ------*- C++ -*-===//

#ifndef FW_DIALECT_FW_TRANSFORMS_INPUTLOWERINGS_H
#define FW_DIALECT_FW_TRANSFORMS_INPUTLOWERINGS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fw {

/// Rewrites the ops of `func` that no kernel holds as they are into ops that
/// do, after checks of the sizes they need to agree at run time: linalg.pack
/// and linalg.unpack (by upstream's lowerPack and lowerUnPack), tensor.gather
/// (a linalg.generic that reads the indices and the source), tensor.scatter
/// (an scf.forall inserting each slice of the source; one insert for one
/// update), a tensor.pad of an empty tensor (a fill or a tensor.generate: it
/// is all padding). The new tensor ops keep the name the program wrote in
/// `fw.written_as`, for their own checks' messages. Fails, with an error on
/// the op, on a form upstream cannot lower.
LogicalResult lowerInputOps(func::FuncOp func);

} // namespace mlir::fw

#endif // FW_DIALECT_FW_TRANSFORMS_INPUTLOWERINGS_H
