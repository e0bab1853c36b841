//===- Pipelines.h - The fwc compilation pipeline ---------------*- C++ -*-===//
//
// The pipeline `fwc` runs, as a library that `fwc`, `fw-opt` and tests share.
//
//===----------------------------------------------------------------------===//

#ifndef FW_PIPELINES_PIPELINES_H
#define FW_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::fw {

/// The stages of the pipeline, in order. `fwc --compile-to=<phase>` stops
/// after the named one.
enum class Phase {
  Input,       ///< Parsed and verified input, after preprocessing.
  Tasks,       ///< One fw.task per tensor computation.
  Executables, ///< Tasks outlined into executables with per-target variants.
  Buffers,     ///< Host and kernels on buffers.
  Host,        ///< Host side as calls into the runtime.
  LLVM,        ///< Host and CPU kernels in the LLVM dialect.
};

/// Parses a phase name (`input`, `tasks`, `executables`, `buffers`, `host`,
/// `llvm`).
std::optional<Phase> parsePhase(llvm::StringRef name);
/// The list of phase names, for help text and diagnostics.
llvm::StringRef getPhaseNames();

struct FwcOptions {
  Phase compileTo = Phase::LLVM;
  /// 0 keeps one task per operation and fuses nothing (for debugging);
  /// 1 and above fuse elementwise operations and epilogues into tasks.
  unsigned optLevel = 3;
  /// Report the peak memory of intermediate buffers as a remark per function.
  bool reportMemory = false;
  /// The CUDA toolkit whose ptxas assembles cubins for NVIDIA targets.
  std::string cudaPath = "/usr/local/cuda";
  /// A ROCm installation for AMD targets (amdgcn/bitcode, llvm/bin/ld.lld);
  /// empty: Debian's rocm-device-libs and LLVM's own ld.lld.
  std::string rocmPath;
  /// For tests: CPU kernels run the GPU mapping on an emulated grid
  /// (fw-test-gpu-mapping-on-cpu).
  bool testGpuMappingOnCpu = false;
  /// For tests: the GPU knobs that mapping takes (`block=512`).
  std::string testGpuKnobs;
  /// A profile of an earlier run (fw-run --profile-out) that guides placement,
  /// task granularity, priorities and the variant knobs; empty: none.
  std::string profileUse;
  /// The source hash of the program (0x...), so that a profile of another
  /// source is ignored; empty: not checked.
  std::string sourceId;
  /// Candidate variants per hot executable for the runtime to measure (1: no
  /// autotuning).
  unsigned autotune = 1;
};

/// Adds the passes of the fwc pipeline up to `options.compileTo` to `pm`,
/// which must be anchored on builtin.module.
void buildFwcPipeline(mlir::OpPassManager &pm, const FwcOptions &options);

/// Registers the fw dialect and every dialect the pipeline produces.
void registerFwDialects(mlir::DialectRegistry &registry);

/// Registers fw's passes and the `fwc-pipeline` pass pipeline.
void registerFwPasses();

} // namespace mlir::fw

#endif // FW_PIPELINES_PIPELINES_H
