// Recycled task memory: blocks come back zeroed, large requests bypass the pool, the pool
// keeps at most FW_TASK_POOL_MAX blocks, and blocks freed by other threads while the owner
// allocates are never handed out twice.
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
  unsigned pooled() { return atomic_load(&pool_.pooled); }
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
  fw_task_pool_free(&pool_, a, 500);
  EXPECT_EQ(pooled(), 1u);
  void *b = fw_task_pool_alloc(&pool_, 300);  // any request up to the block size fits
  EXPECT_EQ(b, a);
  EXPECT_TRUE(allZero(b, 300));
  EXPECT_EQ(pooled(), 0u);
  fw_task_pool_free(&pool_, b, 300);
}

TEST_F(TaskPoolTest, LargeRequestsBypassThePool) {
  size_t big = FW_TASK_POOL_BLOCK + 1;
  void *a = fw_task_pool_alloc(&pool_, big);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(allZero(a, big));
  fw_task_pool_free(&pool_, a, big);
  EXPECT_EQ(pooled(), 0u);
}

TEST_F(TaskPoolTest, KeepsAtMostTheCap) {
  std::vector<void *> blocks;
  for (unsigned i = 0; i < FW_TASK_POOL_MAX + 10; ++i)
    blocks.push_back(fw_task_pool_alloc(&pool_, 64));
  for (void *b : blocks) fw_task_pool_free(&pool_, b, 64);
  EXPECT_EQ(pooled(), FW_TASK_POOL_MAX);
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
  EXPECT_LE(pooled(), FW_TASK_POOL_MAX);
}

}  // namespace
