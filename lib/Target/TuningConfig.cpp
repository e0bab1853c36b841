//===- TuningConfig.cpp - Code-generation knobs of one kernel variant -----===//

#include "fw/Target/TuningConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>

using namespace mlir::fw;

namespace {
/// A knob: its name, its field, and the values it may take.
struct Knob {
  llvm::StringRef key;
  std::optional<int64_t> TuningConfig::*field;
  int64_t min, max;
};
} // namespace

// Sorted by key, the order of the text form.
static const Knob kKnobs[] = {
    {"block", &TuningConfig::block, 32, 1024},
    {"kc", &TuningConfig::kc, 8, 4096},
    {"mc", &TuningConfig::mc, 1, 1 << 16},
    {"min_elements", &TuningConfig::minElements, 1, int64_t(1) << 62},
    {"mr", &TuningConfig::mr, 1, 64},
    {"nr", &TuningConfig::nr, 4, 256},
    {"thread_m", &TuningConfig::threadM, 1, 16},
    {"thread_n", &TuningConfig::threadN, 1, 16},
    {"tile_k", &TuningConfig::tileK, 1, 64},
    {"tile_m", &TuningConfig::tileM, 8, 256},
    {"tile_n", &TuningConfig::tileN, 8, 256},
};

llvm::ArrayRef<llvm::StringRef> mlir::fw::getTuningKeys() {
  static const llvm::StringRef keys[] = {
      "block",    "kc",       "mc",     "min_elements", "mr",    "nr",
      "thread_m", "thread_n", "tile_k", "tile_m",       "tile_n"};
  return keys;
}

std::string mlir::fw::formatTuningConfig(const TuningConfig &config) {
  std::string out;
  for (const Knob &knob : kKnobs) {
    if (!(config.*knob.field))
      continue;
    if (!out.empty())
      out += ',';
    out += (knob.key + "=" + llvm::Twine(*(config.*knob.field))).str();
  }
  return out;
}

bool mlir::fw::setTuningKnob(TuningConfig &config, llvm::StringRef key,
                             int64_t value) {
  for (const Knob &knob : kKnobs) {
    if (knob.key != key)
      continue;
    config.*knob.field = value;
    return true;
  }
  return false;
}

/// Every knob given within the values it may take (whatever the target).
static llvm::Error checkKnobRanges(const TuningConfig &config) {
  for (const Knob &knob : kKnobs) {
    std::optional<int64_t> value = config.*knob.field;
    if (value && (*value < knob.min || *value > knob.max))
      return llvm::createStringError(
          llvm::formatv("{0}={1} is outside [{2}, {3}]", knob.key, *value,
                        knob.min, knob.max)
              .str());
  }
  return llvm::Error::success();
}

llvm::Expected<TuningConfig> mlir::fw::parseTuningConfig(llvm::StringRef text) {
  TuningConfig config;
  text = text.trim();
  if (text.empty())
    return config;
  llvm::SmallVector<llvm::StringRef> entries;
  text.split(entries, ',');
  for (llvm::StringRef entry : entries) {
    llvm::StringRef key = entry.split('=').first.trim();
    llvm::StringRef value = entry.split('=').second.trim();
    int64_t number;
    if (!entry.contains('=') || value.getAsInteger(10, number))
      return llvm::createStringError(
          "'%s' is not of the form knob=integer", entry.str().c_str());
    auto knob = llvm::find_if(kKnobs, [&](const Knob &k) { return k.key == key; });
    if (knob == std::end(kKnobs))
      return llvm::createStringError(
          "unknown knob '%s' (known: %s)", key.str().c_str(),
          llvm::join(getTuningKeys(), ", ").c_str());
    if (config.*knob->field)
      return llvm::createStringError("knob '%s' is given twice",
                                     key.str().c_str());
    config.*knob->field = number;
  }
  if (llvm::Error err = checkKnobRanges(config))
    return std::move(err);
  return config;
}

/// The GPU half of verifyTuningConfig.
static llvm::Error verifyGPUTuning(const TuningConfig &config,
                                   const TargetDescription &target) {
  if (config.hasCpuKnobs())
    return llvm::createStringError(
        "the knobs kc, mc, min_elements, mr and nr are for CPU targets; " +
        target.arch.str() +
        " takes block, thread_m, thread_n, tile_k, tile_m and tile_n");
  auto wholeWarps = [&](llvm::StringRef what, int64_t threads) -> llvm::Error {
    if (threads % target.warpSize != 0 || threads > target.maxThreadsPerBlock)
      return llvm::createStringError(
          llvm::formatv("{0} has {1} threads; {2} runs blocks of whole "
                        "{3}-thread warps, at most {4}",
                        what, threads, target.arch, target.warpSize,
                        target.maxThreadsPerBlock)
              .str());
    return llvm::Error::success();
  };
  GPUTiling tiling = getGPUTiling(config);
  if (config.block)
    if (llvm::Error err = wholeWarps("block=" + std::to_string(*config.block),
                                     tiling.block))
      return err;
  if (!config.hasGemmKnobs())
    return llvm::Error::success();
  std::string tile = llvm::formatv("the {0}x{1}x{2} GEMM tile with {3}x{4} "
                                   "per thread",
                                   tiling.tileM, tiling.tileN, tiling.tileK,
                                   tiling.threadM, tiling.threadN);
  if (tiling.tileM % tiling.threadM || tiling.tileN % tiling.threadN)
    return llvm::createStringError(
        tile + ": the thread's micro-tile does not divide the block's");
  if (tiling.threadM * tiling.threadN > 64)
    return llvm::createStringError(
        tile + ": more than 64 accumulators per thread");
  int64_t threads = tiling.gemmThreads();
  if (llvm::Error err = wholeWarps(tile, threads))
    return err;
  if ((tiling.tileM * tiling.tileK) % threads ||
      (tiling.tileK * tiling.tileN) % threads)
    return llvm::createStringError(
        llvm::formatv("{0}: its {1} threads cannot share the staging of the "
                      "{2}x{3} and {3}x{4} slices evenly",
                      tile, threads, tiling.tileM, tiling.tileK, tiling.tileN)
            .str());
  // Slices of 8-byte elements at worst.
  int64_t bytes = tiling.gemmSliceBytes(8);
  if (bytes > static_cast<int64_t>(target.sharedMemoryPerBlock))
    return llvm::createStringError(
        llvm::formatv("{0}: its slices take up to {1} bytes of workgroup "
                      "memory; {2} has {3} per block",
                      tile, bytes, target.arch, target.sharedMemoryPerBlock)
            .str());
  return llvm::Error::success();
}

llvm::Error mlir::fw::verifyTuningConfig(const TuningConfig &config,
                                         const TargetDescription &target) {
  if (llvm::Error err = checkKnobRanges(config))
    return err;
  if (target.kind != TargetKind::CPU)
    return verifyGPUTuning(config, target);
  if (config.block || config.hasGemmKnobs())
    return llvm::createStringError(
        "the knobs block, thread_m, thread_n, tile_k, tile_m and tile_n are "
        "for GPU targets; " +
        target.arch.str() + " takes kc, mc, min_elements, mr and nr");
  int64_t lanes = std::max<unsigned>(4, target.vectorBits / 32);
  if (config.nr && *config.nr % lanes != 0)
    return llvm::createStringError(
        llvm::formatv("nr={0} is not a multiple of the {1} lanes of a "
                      "{2}-bit vector",
                      *config.nr, lanes, target.vectorBits)
            .str());
  GemmBlocking blk = getGemmBlocking(target, config);
  int64_t accumulators = blk.mr * llvm::divideCeil(blk.nr, lanes);
  if (accumulators > target.vectorRegisters)
    return llvm::createStringError(
        llvm::formatv("a {0}x{1} register tile needs {2} vector registers; {3} "
                      "has {4}",
                      blk.mr, blk.nr, accumulators, target.arch,
                      target.vectorRegisters)
            .str());
  return llvm::Error::success();
}

GemmBlocking mlir::fw::getGemmBlocking(int64_t vectorBits,
                                       int64_t vectorRegisters, int64_t l1Bytes,
                                       int64_t l2Bytes,
                                       const TuningConfig &config) {
  int64_t lanes = std::max<int64_t>(4, vectorBits / 32);
  GemmBlocking blk;
  blk.nr = config.nr.value_or(2 * lanes);
  // Accumulators of C take three quarters of the registers; the rest hold a
  // row of B, broadcasts of A and what the register allocator needs (with 28
  // of 32 accumulators LLVM spills in the inner loop).
  int64_t vectorsPerRow = llvm::divideCeil(blk.nr, lanes);
  blk.mr = config.mr.value_or(
      std::max<int64_t>(1, vectorRegisters * 3 / 4 / vectorsPerRow));
  // A micro-panel of B fills L1 (it is reused by every micro-tile of a block
  // of A, while the A micro-panels stream from L2); a block of A fills half of
  // L2. Measured on Zen 4: kc = 256 for a 12 x 32 tile and 512 for 6 x 16 are
  // 10-25% faster than half of those.
  blk.kc = config.kc.value_or(
      std::clamp<int64_t>(l1Bytes / (blk.nr * 4), 64, 512));
  // Whole groups of 8 steps per block: the packing of A (and the implicit
  // im2col of a convolution) reads 8 steps at a time.
  blk.kc = llvm::alignTo(blk.kc, 8);
  int64_t rows = config.mc.value_or(l2Bytes / 2 / (blk.kc * 4));
  blk.mc = std::max<int64_t>(blk.mr, rows / blk.mr * blk.mr);
  return blk;
}

GemmBlocking mlir::fw::getGemmBlocking(const TargetDescription &target,
                                       const TuningConfig &config) {
  return getGemmBlocking(target.vectorBits, target.vectorRegisters,
                         static_cast<int64_t>(target.l1Bytes),
                         static_cast<int64_t>(target.l2Bytes), config);
}

GPUTiling mlir::fw::getGPUTiling(const TuningConfig &config) {
  GPUTiling t;
  t.block = config.block.value_or(256);
  t.tileM = config.tileM.value_or(64);
  t.tileN = config.tileN.value_or(64);
  t.tileK = config.tileK.value_or(16);
  t.threadM = config.threadM.value_or(4);
  t.threadN = config.threadN.value_or(4);
  t.gemmKnobs = config.hasGemmKnobs();
  return t;
}

GPUTiling mlir::fw::getSizedGemmTiling(const GPUTiling &tiling,
                                       std::optional<int64_t> m,
                                       std::optional<int64_t> n) {
  constexpr int64_t kBigM = 128, kBigN = 64, kBigTiles = 512;
  if (tiling.gemmKnobs || !m || !n || *m < kBigM || *n < kBigN ||
      llvm::divideCeil(*m, kBigM) * llvm::divideCeil(*n, kBigN) < kBigTiles)
    return tiling;
  GPUTiling big = tiling;
  big.tileM = kBigM;
  big.tileN = kBigN;
  big.tileK = 16;
  big.threadM = 8;
  big.threadN = 4;
  return big;
}

/// GPU candidates: GEMM tiles for a matmul, block sizes for the rest.
static llvm::SmallVector<TuningConfig>
getGPUAlternatives(KernelClass kind) {
  llvm::SmallVector<TuningConfig> alternatives;
  if (kind == KernelClass::Contraction) {
    // Bigger tiles reuse each staged element more (for large matrices),
    // smaller ones make more blocks (for small ones); all keep 256 threads.
    for (auto [m, n, k, tm, tn] :
         {std::array<int64_t, 5>{128, 128, 8, 8, 8},
          std::array<int64_t, 5>{32, 32, 32, 2, 2},
          std::array<int64_t, 5>{128, 64, 16, 8, 4},
          std::array<int64_t, 5>{64, 64, 32, 4, 4}}) {
      TuningConfig c;
      c.tileM = m;
      c.tileN = n;
      c.tileK = k;
      c.threadM = tm;
      c.threadN = tn;
      alternatives.push_back(c);
    }
    return alternatives;
  }
  for (int64_t threads : {512, 128, 1024}) {
    TuningConfig c;
    c.block = threads;
    alternatives.push_back(c);
  }
  return alternatives;
}

llvm::SmallVector<TuningConfig>
mlir::fw::getTuningCandidates(const TargetDescription &target, KernelClass kind,
                              unsigned count) {
  llvm::SmallVector<TuningConfig> candidates;
  if (count == 0)
    return candidates;
  candidates.push_back(TuningConfig());
  if (kind == KernelClass::Other)
    return candidates;

  llvm::SmallVector<TuningConfig> alternatives;
  if (target.kind != TargetKind::CPU) {
    alternatives = getGPUAlternatives(kind);
  } else if (kind == KernelClass::Contraction) {
    int64_t lanes = std::max<unsigned>(4, target.vectorBits / 32);
    int64_t budget = target.vectorRegisters * 3 / 4;
    GemmBlocking def = getGemmBlocking(target);
    auto tile = [&](int64_t nr, int64_t mr) {
      TuningConfig c;
      c.nr = nr;
      c.mr = mr;
      return c;
    };
    // Ordered by how often they win on common shapes: a shallower panel
    // first (better for small K and for caches shared with another core),
    // then narrower and wider register tiles, then a smaller block of A.
    TuningConfig halfK;
    halfK.kc = std::max<int64_t>(64, def.kc / 2);
    alternatives.push_back(halfK);
    alternatives.push_back(tile(lanes, std::min<int64_t>(budget, 2 * def.mr)));
    alternatives.push_back(tile(def.nr, std::max<int64_t>(1, def.mr * 2 / 3)));
    alternatives.push_back(tile(3 * lanes, std::max<int64_t>(1, budget / 3)));
    TuningConfig quarterK;
    quarterK.kc = std::max<int64_t>(32, def.kc / 4);
    alternatives.push_back(quarterK);
    TuningConfig halfM;
    halfM.mc = std::max<int64_t>(def.mr, def.mc / 2 / def.mr * def.mr);
    alternatives.push_back(halfM);
  } else {
    // Finer and coarser division among workgroups, and none at all.
    for (int64_t n : {int64_t(16384), int64_t(262144), int64_t(1) << 40}) {
      TuningConfig c;
      c.minElements = n;
      alternatives.push_back(c);
    }
  }
  for (TuningConfig &c : alternatives) {
    if (candidates.size() >= count)
      break;
    if (llvm::is_contained(candidates, c))
      continue;
    // Different knobs that give the same GEMM are the same candidate.
    if (kind == KernelClass::Contraction && target.kind == TargetKind::CPU) {
      GemmBlocking blk = getGemmBlocking(target, c);
      if (llvm::any_of(candidates, [&](const TuningConfig &other) {
            GemmBlocking o = getGemmBlocking(target, other);
            return o.mr == blk.mr && o.nr == blk.nr && o.kc == blk.kc &&
                   o.mc == blk.mc;
          }))
        continue;
    }
    if (llvm::Error err = verifyTuningConfig(c, target)) {
      llvm::consumeError(std::move(err));
      continue;
    }
    candidates.push_back(c);
  }
  return candidates;
}
