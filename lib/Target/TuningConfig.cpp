//===- TuningConfig.cpp - Code-generation knobs of one kernel variant -----===//

#include "fw/Target/TuningConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

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
    {"kc", &TuningConfig::kc, 8, 4096},
    {"mc", &TuningConfig::mc, 1, 1 << 16},
    {"min_elements", &TuningConfig::minElements, 1, int64_t(1) << 62},
    {"mr", &TuningConfig::mr, 1, 64},
    {"nr", &TuningConfig::nr, 4, 256},
};

llvm::ArrayRef<llvm::StringRef> mlir::fw::getTuningKeys() {
  static const llvm::StringRef keys[] = {"kc", "mc", "min_elements", "mr",
                                         "nr"};
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
          "unknown knob '%s' (known: kc, mc, min_elements, mr, nr)",
          key.str().c_str());
    if (config.*knob->field)
      return llvm::createStringError("knob '%s' is given twice",
                                     key.str().c_str());
    config.*knob->field = number;
  }
  return config;
}

llvm::Error mlir::fw::verifyTuningConfig(const TuningConfig &config,
                                         const TargetDescription &target) {
  for (const Knob &knob : kKnobs) {
    std::optional<int64_t> value = config.*knob.field;
    if (value && (*value < knob.min || *value > knob.max))
      return llvm::createStringError(
          llvm::formatv("{0}={1} is outside [{2}, {3}]", knob.key, *value,
                        knob.min, knob.max)
              .str());
  }
  if (target.kind != TargetKind::CPU) {
    if (!config.empty())
      return llvm::createStringError(
          "target " + target.arch.str() + " takes no tuning knobs");
    return llvm::Error::success();
  }
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

llvm::SmallVector<TuningConfig>
mlir::fw::getTuningCandidates(const TargetDescription &target, KernelClass kind,
                              unsigned count) {
  llvm::SmallVector<TuningConfig> candidates;
  if (count == 0)
    return candidates;
  candidates.push_back(TuningConfig());
  if (target.kind != TargetKind::CPU || kind == KernelClass::Other)
    return candidates;

  llvm::SmallVector<TuningConfig> alternatives;
  if (kind == KernelClass::Contraction) {
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
    if (kind == KernelClass::Contraction) {
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
