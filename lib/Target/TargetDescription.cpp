//===- TargetDescription.cpp - Architecture facts per target --------------===//

#include "fw/Target/TargetDescription.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir::fw;

static constexpr llvm::StringLiteral kX86Triple = "x86_64-unknown-linux-gnu";
static constexpr llvm::StringLiteral kNVPTXTriple = "nvptx64-nvidia-cuda";
static constexpr llvm::StringLiteral kAMDGCNTriple = "amdgcn-amd-amdhsa";

static const TargetDescription kTargets[] = {
    // kind, arch, triple, llvmCpu, features, vectorBits, vector registers,
    // L1, L2,
    // warp, maxThreads, shared, regs/thread, regs/SM
    {TargetKind::CPU, "x86-64", kX86Triple, "x86-64", "", 128, 16, 32 << 10,
     256 << 10, 0, 0, 0, 0, 0},
    {TargetKind::CPU, "x86-64-v2", kX86Triple, "x86-64-v2", "", 128, 16, 32 << 10,
     256 << 10, 0, 0, 0, 0, 0},
    {TargetKind::CPU, "x86-64-v3", kX86Triple, "x86-64-v3", "", 256, 16, 32 << 10,
     512 << 10, 0, 0, 0, 0, 0},
    {TargetKind::CPU, "x86-64-v4", kX86Triple, "x86-64-v4", "", 512, 32, 32 << 10,
     1 << 20, 0, 0, 0, 0, 0},
    {TargetKind::CUDA, "sm_80", kNVPTXTriple, "sm_80", "+ptx70", 0, 0, 192 << 10,
     40 << 20, 32, 1024, 163 << 10, 255, 65536},
    {TargetKind::CUDA, "sm_90", kNVPTXTriple, "sm_90", "+ptx80", 0, 0, 256 << 10,
     50 << 20, 32, 1024, 227 << 10, 255, 65536},
    {TargetKind::HIP, "gfx90a", kAMDGCNTriple, "gfx90a", "", 0, 0, 16 << 10,
     8 << 20, 64, 1024, 64 << 10, 512, 131072},
    {TargetKind::HIP, "gfx942", kAMDGCNTriple, "gfx942", "", 0, 0, 32 << 10,
     4 << 20, 64, 1024, 64 << 10, 512, 131072},
};

llvm::ArrayRef<TargetDescription> mlir::fw::getTargetDescriptions() {
  return kTargets;
}

const TargetDescription *mlir::fw::lookupTarget(llvm::StringRef arch) {
  const auto *it = llvm::find_if(
      kTargets, [&](const TargetDescription &t) { return t.arch == arch; });
  return it == std::end(kTargets) ? nullptr : it;
}

llvm::StringRef mlir::fw::getDefaultCpuArch() { return "x86-64-v3"; }

GPULaunchBounds mlir::fw::getGPULaunchBounds(const TargetDescription &target,
                                             unsigned blockSize) {
  /// Enough registers for a fused kernel's accumulators and addresses, few
  /// enough for two blocks of 256 threads per SM.
  constexpr unsigned kRegisterBudget = 128;
  GPULaunchBounds bounds{0, 1, 1};
  if (target.kind == TargetKind::CPU || blockSize == 0)
    return bounds;
  bounds.registersPerThread = std::min(target.registersPerThread, kRegisterBudget);
  bounds.minBlocksPerMultiprocessor = std::max(
      1u, target.registersPerMultiprocessor /
              (blockSize * bounds.registersPerThread));
  constexpr unsigned kSimdsPerCU = 4;
  if (target.kind == TargetKind::HIP && target.warpSize)
    bounds.wavesPerExecutionUnit = std::max(
        1u, target.registersPerMultiprocessor / kSimdsPerCU / target.warpSize /
                bounds.registersPerThread);
  return bounds;
}
