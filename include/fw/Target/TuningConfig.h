//===- TuningConfig.h - Code-generation knobs of one kernel variant -*- C++ -*-===//
//
// The knobs a kernel's code generation takes per variant: on CPUs the register
// tile, the cache blocking and how finely work is divided among workgroups; on
// GPUs the threads per block and the tiles of a GEMM. Their text form
// (`kc=256,mr=4,nr=16`, written into fat binaries and profiles), their
// validation against a target's facts, and the candidates autotuning tries.
// A knob that is not set takes the value the target description implies.
//
//===----------------------------------------------------------------------===//

#ifndef FW_TARGET_TUNINGCONFIG_H
#define FW_TARGET_TUNINGCONFIG_H

#include "fw/Target/TargetDescription.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fw {

struct TuningConfig {
  /// Register tile of a packed GEMM: rows (`mr`) and columns (`nr`).
  std::optional<int64_t> mr, nr;
  /// Cache blocking of a packed GEMM: reduction steps per packed panel
  /// (`kc`) and rows per packed block of A (`mc`).
  std::optional<int64_t> kc, mc;
  /// Iterations below which an op is not divided among workgroups.
  std::optional<int64_t> minElements;
  /// GPU: threads per block of a kernel that is not a GEMM (elementwise
  /// work, row reductions).
  std::optional<int64_t> block;
  /// GPU GEMM: the result tile of a block (`tile_m` x `tile_n`), the
  /// reduction steps staged in workgroup memory at a time (`tile_k`), and the
  /// micro-tile each thread accumulates (`thread_m` x `thread_n`); the block
  /// has one thread per micro-tile.
  std::optional<int64_t> tileM, tileN, tileK, threadM, threadN;

  bool empty() const { return *this == TuningConfig(); }
  bool operator==(const TuningConfig &other) const {
    return mr == other.mr && nr == other.nr && kc == other.kc &&
           mc == other.mc && minElements == other.minElements &&
           block == other.block && tileM == other.tileM &&
           tileN == other.tileN && tileK == other.tileK &&
           threadM == other.threadM && threadN == other.threadN;
  }
  /// Whether a CPU knob is set.
  bool hasCpuKnobs() const { return mr || nr || kc || mc || minElements; }
  /// Whether a knob of the GPU GEMM is set.
  bool hasGemmKnobs() const {
    return tileM || tileN || tileK || threadM || threadN;
  }
};

/// The kind of kernel, which decides the knobs worth tuning.
enum class KernelClass {
  /// A matmul or convolution: register tile and cache blocking (on GPUs, a
  /// matmul: the GEMM's tiles).
  Contraction,
  /// Other linalg work that can be divided among workgroups: the granularity
  /// of the division (on GPUs, the threads per block).
  Divisible,
  /// Nothing to tune.
  Other,
};

/// The knob names in text form, sorted: block, kc, mc, min_elements, mr, nr,
/// thread_m, thread_n, tile_k, tile_m, tile_n.
llvm::ArrayRef<llvm::StringRef> getTuningKeys();

/// `kc=256,mr=4,nr=16`: set knobs only, sorted by name; "" when none is set.
std::string formatTuningConfig(const TuningConfig &config);

/// Parses the text form; "" is the empty config. Errors name the offending
/// entry, or a knob outside the values it may take on any target.
llvm::Expected<TuningConfig> parseTuningConfig(llvm::StringRef text);

/// Sets knob `key` (one of getTuningKeys()); false for an unknown key.
bool setTuningKnob(TuningConfig &config, llvm::StringRef key, int64_t value);

/// Checks that the knobs fit `target`: CPU knobs on CPU targets and GPU knobs
/// on GPU targets, the register tile fits the vector registers, blocks are
/// whole warps (waves) within the target's limit, a GEMM's tiles divide into
/// its threads and fit workgroup memory, sizes are positive and within sane
/// bounds. The error says which knob and why.
llvm::Error verifyTuningConfig(const TuningConfig &config,
                               const TargetDescription &target);

/// The packed GEMM's sizes with the knobs of `config` applied; unset knobs
/// follow from the vector width, register count and cache sizes. `kc` is a
/// multiple of 8 (the packing reads 8 reduction steps at a time) and `mc` a
/// multiple of `mr`.
struct GemmBlocking {
  int64_t mr, nr, kc, mc;
};
GemmBlocking getGemmBlocking(int64_t vectorBits, int64_t vectorRegisters,
                             int64_t l1Bytes, int64_t l2Bytes,
                             const TuningConfig &config = {});
GemmBlocking getGemmBlocking(const TargetDescription &target,
                             const TuningConfig &config = {});

/// The GPU kernel shapes with the knobs of `config` applied: 256 threads per
/// block, and a 64x64 GEMM tile stepping 16 reduction steps at a time, 4x4
/// per thread, unless set (see also getSizedGemmTiling).
struct GPUTiling {
  int64_t block;
  int64_t tileM, tileN, tileK, threadM, threadN;
  /// Whether knobs set the GEMM tile; when not, the GEMM mapping may pick a
  /// bigger one for a big result (getSizedGemmTiling).
  bool gemmKnobs = false;
  /// Threads of a GEMM block: one per micro-tile.
  int64_t gemmThreads() const { return (tileM / threadM) * (tileN / threadN); }
  /// Elements padding each k-row of the GEMM's transposed A slice in workgroup
  /// memory: fewer bank conflicts when it is written, and rows of 4- and
  /// 8-byte elements that stay 16-byte aligned for vector reads (rows of f16
  /// are 8-byte aligned only every other row; a pad of 8 for 2-byte types
  /// would align them, not measured yet).
  static constexpr int64_t kSliceAPad = 4;
  /// Workgroup memory the GEMM's slices of A and B take, elements of
  /// `elementBytes`.
  int64_t gemmSliceBytes(int64_t elementBytes) const {
    return ((tileM + kSliceAPad) + tileN) * tileK * elementBytes;
  }
};
GPUTiling getGPUTiling(const TuningConfig &config = {});

/// The GEMM tile a kernel with an M x N result gets from `tiling`: the one set
/// by knobs, else the default one, except for results known to be big (at
/// least 128 x 64 and 512 tiles of 128x64, so that every SM of a big GPU gets
/// several): 128x64, 8x4 per thread, 16 reduction steps (the same 256
/// threads). On an H200 a 4096^3 f32 matmul runs 1.26x faster with it than
/// with 64x64 (fastest calls, 3.57 against 4.51 ms).
GPUTiling getSizedGemmTiling(const GPUTiling &tiling, std::optional<int64_t> m,
                             std::optional<int64_t> n);

/// Up to `count` configurations worth measuring for a kernel of class `kind`
/// on `target`, the target's defaults (the empty config) first. Each one
/// differs from the defaults and from the others.
llvm::SmallVector<TuningConfig> getTuningCandidates(
    const TargetDescription &target, KernelClass kind, unsigned count);

} // namespace mlir::fw

#endif // FW_TARGET_TUNINGCONFIG_H
