//===- GPUMapping.h - Kernels onto a GPU grid -------------------*- C++ -*-===//
//
// Maps the kernel of a variant, once cloned into a gpu.func, onto a grid of
// thread blocks: vendor-independent, shared by the NVIDIA and AMD lowerings.
//
//===----------------------------------------------------------------------===//

#ifndef FW_LIB_CONVERSION_FWGPUVARIANTSTOBINARY_GPUMAPPING_H
#define FW_LIB_CONVERSION_FWGPUVARIANTSTOBINARY_GPUMAPPING_H

#include "fw/Target/TuningConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::fw {

/// The linalg ops of a kernel the GPU mapping may handle: every op with memory
/// effects is a linalg op on buffers or an allocation (of an intermediate,
/// which must become private to a thread). Empty when the kernel has anything
/// else.
SmallVector<linalg::LinalgOp> getKernelLinalgOps(func::FuncOp kernel);

/// How mapKernelToGrid spread a kernel over the grid.
enum class GridMapping {
  /// Not at all: the kernel cannot run on a GPU yet.
  None,
  /// A tiled GEMM (mapContractionToGrid): blocks of its tile's threads (the
  /// function's `known_block_size`).
  Gemm,
  /// A block per row (mapRowsToGrid): blocks of `tiling.block` threads.
  Rows,
  /// Fused loop nests over a grid-stride loop: any block size (`tiling.block`
  /// is launched).
  Loops,
};

/// Maps a matmul kernel with mapContractionToGrid, a row kernel with
/// mapRowsToGrid; otherwise turns the linalg ops of `func` into loop nests,
/// fuses nests with the same bounds per element, keeps intermediates in
/// registers, and spreads the nests over the grid (see GPUMapping.cpp).
/// None when the nests depend on each other across elements (nothing orders
/// the grid): the kernel cannot run on a GPU yet. Failure when the IR could
/// not be transformed.
/// For a GEMM, `sameAsDefaults` (when given) says whether the tile used is the
/// one the kernel gets without knobs.
FailureOr<GridMapping> mapKernelToGrid(gpu::GPUFuncOp func, const GPUTiling &tiling,
                                       bool *sameAsDefaults = nullptr);

/// Makes the loops each thread of `func` (`kernel` mapped as `mapping` says)
/// runs (while loops, and for loops whose bounds may come from the data;
/// none with a barrier, which every thread must reach alike) end
/// after the iteration in which one of its checks failed, recorded on the
/// kernel's error word (its last buffer, fw-kernel-error-word): a flag of the
/// thread's own, and for a while loop of a GEMM or row kernel, whose threads
/// share data, the error word itself. As on the CPU, a loop whose bounds or values a failed
/// check replaced could run on for as long as they say, or for ever.
void stopThreadLoopsAtFailedChecks(gpu::GPUFuncOp func, func::FuncOp kernel,
                                   GridMapping mapping);

/// When the kernel is a matmul (any operand layout) with optionally the fill
/// of its accumulator and one elementwise epilogue, and the tiles of `tiling`
/// (sized to the result by getSizedGemmTiling) divide evenly among its
/// threads: a tiled GEMM through workgroup memory (GPUContraction.cpp); the
/// function gets `known_block_size`. False when the kernel is anything else.
/// `sameAsDefaults` as for mapKernelToGrid.
FailureOr<bool> mapContractionToGrid(gpu::GPUFuncOp func, const GPUTiling &tiling,
                                     bool *sameAsDefaults = nullptr);

/// When the kernel works row by row (row reductions into row values, and
/// elementwise ops that may read them, as in softmax) and some row is long (32
/// and more, or unknown): a block of `blockSize` threads per row, the
/// reductions combined across the block with gpu.all_reduce (GPURows.cpp);
/// the function gets `known_block_size`. False when the kernel is anything
/// else.
FailureOr<bool> mapRowsToGrid(gpu::GPUFuncOp func, int64_t blockSize);

/// The memory a memref value views: a kernel argument or an allocation.
Value rootMemory(Value v);

/// Clones the body of `op` at `b`, its block arguments bound to `args` (a null
/// value leaves an argument unbound: it must be unused) and its `linalg.index`
/// ops to `loops` (the values of its loops, one per loop); returns what it
/// yields first.
Value inlineLinalgBody(OpBuilder &b, linalg::LinalgOp op, ArrayRef<Value> args,
                       ArrayRef<Value> loops);

/// Erases an intermediate allocation the mapped kernel no longer uses: its
/// sizes replace the `memref.dim`s of it, its deallocations go.
LogicalResult eraseIntermediate(memref::AllocOp alloc);

} // namespace mlir::fw

#endif
