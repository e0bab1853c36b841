//===- TuningConfigTest.cpp - Knobs of kernel variants --------------------===//
//
// The knobs' text form (written into fat binaries and profiles, read back by
// fwc --profile-use), their validation against the target table, and the
// candidates autotuning builds.
//
//===----------------------------------------------------------------------===//

#include "fw/Target/TuningConfig.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir::fw;

namespace {

/// The error verifyTuningConfig gives, or "" when the knobs fit.
std::string check(llvm::StringRef text, llvm::StringRef arch) {
  llvm::Expected<TuningConfig> config = parseTuningConfig(text);
  if (!config)
    return "parse: " + llvm::toString(config.takeError());
  const TargetDescription *target = lookupTarget(arch);
  if (!target)
    return "no target";
  if (llvm::Error err = verifyTuningConfig(*config, *target))
    return llvm::toString(std::move(err));
  return "";
}

} // namespace

TEST(TuningConfig, TextRoundTripsSortedByKey) {
  llvm::Expected<TuningConfig> config =
      parseTuningConfig("tile_n=64, thread_m=8,tile_m=128,block=512,tile_k=8,thread_n=4");
  ASSERT_TRUE(static_cast<bool>(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(formatTuningConfig(*config),
            "block=512,thread_m=8,thread_n=4,tile_k=8,tile_m=128,tile_n=64");
  EXPECT_TRUE(config->hasGemmKnobs());
  EXPECT_FALSE(config->hasCpuKnobs());
  llvm::Expected<TuningConfig> again = parseTuningConfig(formatTuningConfig(*config));
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(*again, *config);
  EXPECT_TRUE(parseTuningConfig("")->empty());
}

TEST(TuningConfig, ParseErrorsNameTheEntry) {
  llvm::Expected<TuningConfig> unknown = parseTuningConfig("block=256,tile=4");
  ASSERT_FALSE(static_cast<bool>(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown knob 'tile' (known: block, kc, mc, min_elements, mr, nr, thread_m, "
            "thread_n, tile_k, tile_m, tile_n)");
  llvm::Expected<TuningConfig> twice = parseTuningConfig("block=256,block=512");
  ASSERT_FALSE(static_cast<bool>(twice));
  EXPECT_EQ(llvm::toString(twice.takeError()), "knob 'block' is given twice");
  llvm::Expected<TuningConfig> form = parseTuningConfig("block");
  ASSERT_FALSE(static_cast<bool>(form));
  EXPECT_EQ(llvm::toString(form.takeError()), "'block' is not of the form knob=integer");
  llvm::Expected<TuningConfig> range = parseTuningConfig("thread_m=0");
  ASSERT_FALSE(static_cast<bool>(range));
  EXPECT_EQ(llvm::toString(range.takeError()), "thread_m=0 is outside [1, 16]");
}

TEST(TuningConfig, GPUTilingDefaults) {
  GPUTiling t = getGPUTiling();
  EXPECT_EQ(t.block, 256);
  EXPECT_EQ(t.tileM, 64);
  EXPECT_EQ(t.tileN, 64);
  EXPECT_EQ(t.tileK, 16);
  EXPECT_EQ(t.gemmThreads(), 256);
  TuningConfig c;
  c.tileM = 128;
  c.threadM = 8;
  c.block = 1024;
  GPUTiling u = getGPUTiling(c);
  EXPECT_EQ(u.block, 1024);
  EXPECT_EQ(u.gemmThreads(), 256);
}

TEST(TuningConfig, BigKnownResultsGetTheBigGemmTile) {
  GPUTiling defaults = getGPUTiling();
  // 2048x2048 is 512 tiles of 128x64: the big tile, the same 256 threads.
  GPUTiling big = getSizedGemmTiling(defaults, 2048, 2048);
  EXPECT_EQ(big.tileM, 128);
  EXPECT_EQ(big.tileN, 64);
  EXPECT_EQ(big.tileK, 16);
  EXPECT_EQ(big.threadM, 8);
  EXPECT_EQ(big.threadN, 4);
  EXPECT_EQ(big.gemmThreads(), 256);
  // One tile fewer, an unknown extent, or tiles set by knobs: unchanged.
  // A short, wide result (32 x 32768, 512 tiles) keeps 64x64: its tiles would
  // be 3/4 empty rows.
  for (GPUTiling t : {getSizedGemmTiling(defaults, 2048, 2048 - 64),
                      getSizedGemmTiling(defaults, std::nullopt, 1 << 20),
                      getSizedGemmTiling(defaults, 1 << 20, std::nullopt),
                      getSizedGemmTiling(defaults, 32, 32768)}) {
    EXPECT_EQ(t.tileM, 64);
    EXPECT_EQ(t.tileN, 64);
  }
  TuningConfig c;
  c.tileK = 32;
  GPUTiling knobs = getSizedGemmTiling(getGPUTiling(c), 4096, 4096);
  EXPECT_EQ(knobs.tileM, 64);
  EXPECT_EQ(knobs.tileK, 32);
}

TEST(TuningConfig, KnobsBelongToTheirKindOfTarget) {
  EXPECT_EQ(check("mr=4", "x86-64-v3"), "");
  EXPECT_EQ(check("block=512", "sm_90"), "");
  EXPECT_EQ(check("block=512", "gfx942"), "");
  EXPECT_NE(check("mr=4", "sm_90").find("are for CPU targets"), std::string::npos);
  EXPECT_NE(check("tile_m=128", "x86-64-v4").find("are for GPU targets"), std::string::npos);
  EXPECT_NE(check("block=512", "x86-64-v3").find("are for GPU targets"), std::string::npos);
}

TEST(TuningConfig, GPUBlocksAreWholeWarpsWithinTheLimit) {
  EXPECT_EQ(check("block=96", "sm_90"), "");
  EXPECT_EQ(check("block=96", "gfx90a"),
            "block=96 has 96 threads; gfx90a runs blocks of whole 64-thread warps, at most "
            "1024");
  EXPECT_NE(check("block=2048", "sm_80"), ""); // outside the knob's range
}

TEST(TuningConfig, GemmTilesMustShareOutEvenlyAndFit) {
  EXPECT_EQ(check("tile_m=128,tile_n=128,tile_k=8,thread_m=8,thread_n=8", "sm_90"), "");
  EXPECT_NE(check("tile_n=48,thread_n=5", "sm_90").find("does not divide"), std::string::npos);
  EXPECT_NE(check("thread_m=16,thread_n=8", "sm_90").find("more than 64 accumulators"),
            std::string::npos);
  EXPECT_NE(check("tile_k=2", "sm_90").find("cannot share the staging"), std::string::npos);
  // 256 + 256 rows of 64 steps of 8 bytes: 256 KiB, more than a block has.
  EXPECT_NE(check("tile_m=256,tile_n=256,tile_k=64,thread_m=8,thread_n=8", "sm_90")
                .find("bytes of workgroup memory"),
            std::string::npos);
}

TEST(TuningConfig, GPUCandidatesDifferAndFit) {
  for (llvm::StringRef arch : {"sm_80", "sm_90", "gfx90a", "gfx942"}) {
    const TargetDescription *target = lookupTarget(arch);
    ASSERT_NE(target, nullptr);
    for (KernelClass kind : {KernelClass::Contraction, KernelClass::Divisible}) {
      llvm::SmallVector<TuningConfig> candidates = getTuningCandidates(*target, kind, 8);
      ASSERT_GE(candidates.size(), 4u) << arch.str();
      EXPECT_TRUE(candidates.front().empty());
      for (size_t i = 0; i < candidates.size(); ++i) {
        const TuningConfig &c = candidates[i];
        EXPECT_FALSE(c.hasCpuKnobs());
        // GEMM kernels vary the tiles, the rest the block size.
        if (i)
          EXPECT_EQ(c.hasGemmKnobs(), kind == KernelClass::Contraction);
        if (llvm::Error err = verifyTuningConfig(c, *target))
          ADD_FAILURE() << arch.str() << " " << formatTuningConfig(c) << ": "
                        << llvm::toString(std::move(err));
        for (size_t j = 0; j < i; ++j)
          EXPECT_FALSE(c == candidates[j]) << formatTuningConfig(c);
      }
    }
    EXPECT_EQ(getTuningCandidates(*target, KernelClass::Other, 8).size(), 1u);
    EXPECT_EQ(getTuningCandidates(*target, KernelClass::Divisible, 2).size(), 2u);
  }
}
