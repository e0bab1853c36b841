// Recycled task memory: blocks come back zeroed, large requests bypass the pool, blocks
// are cut from chunks that go back (all but one) when every block is home, and blocks
// freed by other threads while the owner allocates are never handed out twice.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "task_pool.h"

namespace {

class TaskPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { fw_task_pool_init(&pool_); }
  void TearDown() override { fw_task_pool_fini(&pool_); }
  size_t outstanding() { return atomic_load(&pool_.outstanding); }
  size_t chunks() { return atomic_load(&pool_.num_chunks); }
  fw_task_pool_t pool_;
};

bool allZero(const void *p, size_t n) {
  const auto *b = static_cast<const unsigned char *>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i]) return false;
  return true;
}

TEST_F(TaskPoolTest, ReusedBlocksComeBackZeroed) {
  void *a = fw_task_pool_alloc(&pool_, 500);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(allZero(a, 500));
  std::memset(a, 0xAB, 500);
  EXPECT_EQ(outstanding(), 1u);
  fw_task_pool_free(&pool_, a, 500);
  EXPECT_EQ(outstanding(), 0u);
  void *b = fw_task_pool_alloc(&pool_, 300);  // any request up to the block size fits
  EXPECT_EQ(b, a);
  EXPECT_TRUE(allZero(b, 300));
  fw_task_pool_free(&pool_, b, 300);
}

TEST_F(TaskPoolTest, LargeRequestsBypassThePool) {
  size_t big = FW_TASK_POOL_BLOCK + 1;
  void *a = fw_task_pool_alloc(&pool_, big);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(allZero(a, big));
  EXPECT_EQ(outstanding(), 0u);
  EXPECT_EQ(chunks(), 0u);
  fw_task_pool_free(&pool_, a, big);
}

// A burst needs several chunks; they stay while any block is out, and all but one go when
// the last comes back. Blocks are distinct, on cache lines, and reusable afterwards.
TEST_F(TaskPoolTest, ChunksBeyondTheFirstGoBackWhenEveryBlockIsHome) {
  const size_t per_chunk = FW_TASK_POOL_CHUNK_BLOCKS;
  std::vector<void *> blocks;
  std::set<uintptr_t> distinct;
  for (size_t i = 0; i < per_chunk * 5 / 2; ++i) {
    void *p = fw_task_pool_alloc(&pool_, FW_TASK_POOL_BLOCK);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(allZero(p, FW_TASK_POOL_BLOCK));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, 0xCD, FW_TASK_POOL_BLOCK);  // overlapping blocks would show below
    distinct.insert(reinterpret_cast<uintptr_t>(p));
    blocks.push_back(p);
  }
  EXPECT_EQ(distinct.size(), blocks.size());
  EXPECT_EQ(chunks(), 3u);
  void *last = blocks.back();
  blocks.pop_back();
  for (void *b : blocks) fw_task_pool_free(&pool_, b, FW_TASK_POOL_BLOCK);
  EXPECT_EQ(chunks(), 3u);  // one block is still out
  fw_task_pool_free(&pool_, last, FW_TASK_POOL_BLOCK);
  EXPECT_EQ(chunks(), 1u);
  EXPECT_EQ(outstanding(), 0u);
  // The chunk kept is cut again: a chunk's worth fits in it, zeroed, before a second one.
  blocks.clear();
  for (size_t i = 0; i < per_chunk; ++i) {
    void *p = fw_task_pool_alloc(&pool_, FW_TASK_POOL_BLOCK);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(allZero(p, FW_TASK_POOL_BLOCK));
    blocks.push_back(p);
  }
  EXPECT_EQ(chunks(), 1u);
  blocks.push_back(fw_task_pool_alloc(&pool_, 64));
  EXPECT_EQ(chunks(), 2u);
  for (void *b : blocks) fw_task_pool_free(&pool_, b, 64);
  EXPECT_EQ(chunks(), 1u);
}

// One thread allocates (as a submitter does) while four free what it hands them (as
// workers do): a block is never live twice, and every block comes back zeroed.
TEST_F(TaskPoolTest, BlocksFreedByOtherThreadsAreHandedOutOnce) {
  constexpr int kFreers = 4, kBlocks = 20000;
  std::mutex lock;
  std::set<void *> live;
  std::vector<std::vector<void *>> inbox(kFreers);
  std::vector<std::mutex> inbox_lock(kFreers);
  std::atomic<bool> done{false};
  std::atomic<int> duplicates{0}, dirty{0};
  std::vector<std::thread> freers;
  for (int f = 0; f < kFreers; ++f)
    freers.emplace_back([&, f] {
      for (;;) {
        std::vector<void *> mine;
        {
          std::lock_guard<std::mutex> g(inbox_lock[f]);
          mine.swap(inbox[f]);
        }
        if (mine.empty() && done.load()) return;
        for (void *p : mine) {
          {
            std::lock_guard<std::mutex> g(lock);
            live.erase(p);
          }
          std::memset(p, 0x5A, 128);
          fw_task_pool_free(&pool_, p, 128);
        }
        std::this_thread::yield();
      }
    });
  for (int i = 0; i < kBlocks; ++i) {
    void *p = fw_task_pool_alloc(&pool_, 128);
    ASSERT_NE(p, nullptr);
    if (!allZero(p, 128)) dirty.fetch_add(1);
    {
      std::lock_guard<std::mutex> g(lock);
      if (!live.insert(p).second) duplicates.fetch_add(1);
    }
    std::lock_guard<std::mutex> g(inbox_lock[i % kFreers]);
    inbox[i % kFreers].push_back(p);
  }
  done.store(true);
  for (auto &t : freers) t.join();
  EXPECT_EQ(duplicates.load(), 0);
  EXPECT_EQ(dirty.load(), 0);
  EXPECT_TRUE(live.empty());
  EXPECT_EQ(outstanding(), 0u);
  EXPECT_EQ(chunks(), 1u);
}

}  // namespace
