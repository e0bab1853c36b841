//===- TargetDescriptionTest.cpp - The target description table -----------===//
//
// The table is the one place architecture facts live; the passes size tiles,
// vector widths and launch bounds from it. These tests pin the facts the
// code generators rely on and the rules derived from them.
//
//===----------------------------------------------------------------------===//

#include "fw/Target/TargetDescription.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir::fw;

TEST(TargetDescription, NamesAreUniqueAndFound) {
  std::set<std::string> seen;
  for (const TargetDescription &t : getTargetDescriptions()) {
    EXPECT_TRUE(seen.insert(t.arch.str()).second) << t.arch.str();
    EXPECT_EQ(lookupTarget(t.arch), &t);
    EXPECT_FALSE(t.triple.empty()) << t.arch.str();
    EXPECT_FALSE(t.llvmCpu.empty()) << t.arch.str();
  }
  EXPECT_EQ(lookupTarget("gfx1100"), nullptr);
  EXPECT_EQ(lookupTarget(""), nullptr);
  EXPECT_NE(lookupTarget(getDefaultCpuArch()), nullptr);
}

TEST(TargetDescription, CpuLevelsComeFirstAndWiden) {
  auto targets = getTargetDescriptions();
  ASSERT_GE(targets.size(), 4u);
  unsigned previous = 0;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(targets[i].kind, TargetKind::CPU);
    EXPECT_EQ(targets[i].triple, "x86_64-unknown-linux-gnu");
    EXPECT_GE(targets[i].vectorBits, previous);
    previous = targets[i].vectorBits;
    EXPECT_EQ(targets[i].warpSize, 0u);
  }
  EXPECT_EQ(lookupTarget("x86-64-v3")->vectorBits, 256u);
  EXPECT_EQ(lookupTarget("x86-64-v4")->vectorBits, 512u);
  EXPECT_EQ(lookupTarget("x86-64-v4")->vectorRegisters, 32u);
}

TEST(TargetDescription, GpuFacts) {
  for (const TargetDescription &t : getTargetDescriptions()) {
    if (t.kind == TargetKind::CPU)
      continue;
    EXPECT_EQ(t.warpSize, t.kind == TargetKind::CUDA ? 32u : 64u) << t.arch.str();
    EXPECT_EQ(t.triple, t.kind == TargetKind::CUDA ? "nvptx64-nvidia-cuda"
                                                    : "amdgcn-amd-amdhsa");
    EXPECT_EQ(t.maxThreadsPerBlock, 1024u);
    EXPECT_GT(t.sharedMemoryPerBlock, 0u);
    EXPECT_GT(t.registersPerMultiprocessor, t.registersPerThread);
  }
  EXPECT_EQ(lookupTarget("sm_90")->sharedMemoryPerBlock, 227u << 10);
  EXPECT_EQ(lookupTarget("gfx942")->sharedMemoryPerBlock, 64u << 10);
}

TEST(TargetDescription, LaunchBoundsFollowTheRegisterFile) {
  // NVIDIA: 65536 registers per SM, 128 per thread, blocks of 256: two blocks.
  GPULaunchBounds sm90 = getGPULaunchBounds(*lookupTarget("sm_90"), 256);
  EXPECT_EQ(sm90.registersPerThread, 128u);
  EXPECT_EQ(sm90.minBlocksPerMultiprocessor, 2u);
  // Smaller blocks: more of them.
  EXPECT_EQ(getGPULaunchBounds(*lookupTarget("sm_80"), 128).minBlocksPerMultiprocessor, 4u);
  // AMD CDNA: 512 VGPRs per SIMD lane, 128 per thread: four waves per SIMD.
  GPULaunchBounds gfx942 = getGPULaunchBounds(*lookupTarget("gfx942"), 256);
  EXPECT_EQ(gfx942.registersPerThread, 128u);
  EXPECT_EQ(gfx942.wavesPerExecutionUnit, 4u);
  // Never below one, whatever the block.
  EXPECT_EQ(getGPULaunchBounds(*lookupTarget("sm_90"), 1024).minBlocksPerMultiprocessor, 1u);
  // CPUs have none.
  EXPECT_EQ(getGPULaunchBounds(*lookupTarget("x86-64-v3"), 256).registersPerThread, 0u);
}
