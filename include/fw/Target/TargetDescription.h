//===- TargetDescription.h - Architecture facts per target ------*- C++ -*-===//
//
// The single table of architecture facts that passes consult: vector widths,
// cache sizes, warp sizes, register and shared-memory budgets. Targets are
// named the way users name them on the command line (`x86-64-v3`, `sm_90`,
// `gfx942`).
//
//===----------------------------------------------------------------------===//

#ifndef FW_TARGET_TARGETDESCRIPTION_H
#define FW_TARGET_TARGETDESCRIPTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::fw {

enum class TargetKind { CPU, CUDA, HIP };

struct TargetDescription {
  TargetKind kind;
  /// Architecture name: "x86-64-v3", "sm_90", "gfx942".
  llvm::StringRef arch;
  /// LLVM target triple.
  llvm::StringRef triple;
  /// LLVM CPU name and feature string used for code generation.
  llvm::StringRef llvmCpu;
  llvm::StringRef llvmFeatures;
  /// Widest native vector register in bits (CPU), 0 when not applicable.
  unsigned vectorBits;
  /// Architectural vector registers (CPU), 0 when not applicable.
  unsigned vectorRegisters;
  /// Data cache sizes in bytes (per core on CPUs, per SM/CU on GPUs).
  uint64_t l1Bytes, l2Bytes;
  /// GPU facts; 0 on CPUs.
  unsigned warpSize;
  unsigned maxThreadsPerBlock;
  uint64_t sharedMemoryPerBlock;
  unsigned registersPerThread;
  unsigned registersPerMultiprocessor;
};

/// How a GPU kernel of `blockSize` threads may use registers, from the
/// target's facts: each thread keeps at most `registersPerThread` (128, or
/// fewer where the architecture has fewer), so that `minBlocksPerMultiprocessor`
/// blocks fit on an SM or CU at once (NVIDIA: launch bounds, `nvvm.minctasm`)
/// and `wavesPerExecutionUnit` waves fit on each SIMD (AMD:
/// `amdgpu-waves-per-eu`, with 4 SIMDs per CU).
struct GPULaunchBounds {
  unsigned registersPerThread;
  unsigned minBlocksPerMultiprocessor;
  unsigned wavesPerExecutionUnit;
};
GPULaunchBounds getGPULaunchBounds(const TargetDescription &target,
                                   unsigned blockSize);

/// Every target fw knows, CPU levels first.
llvm::ArrayRef<TargetDescription> getTargetDescriptions();

/// Returns the description of `arch`, or nullptr when fw does not know it.
const TargetDescription *lookupTarget(llvm::StringRef arch);

/// The CPU target used when a module names none: portable x86-64-v3.
llvm::StringRef getDefaultCpuArch();

} // namespace mlir::fw

#endif // FW_TARGET_TARGETDESCRIPTION_H
