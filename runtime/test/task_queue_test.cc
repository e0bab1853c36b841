// The ready-task heap (a binary heap plus a run of entries pushed in pop order): it pops
// in exactly the order of fw_task_before, whatever mix of in-order and out-of-order pushes,
// pops and conditional pops it sees, and fw_task_heap_at reaches every entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "scheduler.h"
#include "task_queue.h"

namespace {

// Tasks with only the keys the heap orders by.
class Tasks {
 public:
  fw_task_t *make(int32_t priority, double rank) {
    auto t = std::make_unique<fw_task_t>();
    std::memset(t.get(), 0, sizeof(fw_task_t));
    t->priority = priority;
    t->rank = rank;
    t->seq = next_seq_++;
    tasks_.push_back(std::move(t));
    return tasks_.back().get();
  }

 private:
  std::vector<std::unique_ptr<fw_task_t>> tasks_;
  uint64_t next_seq_ = 0;
};

struct Before {
  bool operator()(const fw_task_t *a, const fw_task_t *b) const { return fw_task_before(a, b); }
};

// Every entry through fw_task_heap_at, as a set.
std::multiset<const fw_task_t *> entries(const fw_task_heap_t &h) {
  std::multiset<const fw_task_t *> all;
  for (size_t i = 0; i < h.size; ++i) all.insert(fw_task_heap_at(&h, i));
  return all;
}

TEST(TaskHeapTest, InOrderPushesPopInOrder) {
  Tasks tasks;
  fw_task_heap_t h = {};
  std::vector<fw_task_t *> pushed;
  for (int i = 0; i < 1000; ++i) {
    pushed.push_back(tasks.make(0, 0.0));
    ASSERT_TRUE(fw_task_heap_push(&h, pushed.back()));
  }
  EXPECT_EQ(h.size, 1000u);
  EXPECT_EQ(h.heap_size, 0u);  // all in the run
  for (fw_task_t *t : pushed) EXPECT_EQ(fw_task_heap_pop(&h), t);
  EXPECT_EQ(fw_task_heap_pop(&h), nullptr);
  fw_task_heap_free(&h);
}

TEST(TaskHeapTest, MixedPushesPopsAndConditionalPopsFollowTheOrder) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    Tasks tasks;
    fw_task_heap_t h = {};
    std::multiset<fw_task_t *, Before> reference;
    for (int step = 0; step < 3000; ++step) {
      int op = int(rng() % 10);
      if (op < 5 || reference.empty()) {
        // Mostly equal keys (in order: the run), some higher or lower ones (the heap).
        int kind = int(rng() % 4);
        fw_task_t *t = kind == 0   ? tasks.make(int32_t(rng() % 3) - 1, 0.0)
                       : kind == 1 ? tasks.make(0, double(rng() % 5))
                                   : tasks.make(0, 0.0);
        ASSERT_TRUE(fw_task_heap_push(&h, t));
        reference.insert(t);
      } else if (op < 7) {
        fw_task_t *t = fw_task_heap_pop(&h);
        ASSERT_EQ(t, *reference.begin()) << "round " << round << " step " << step;
        reference.erase(reference.begin());
      } else if (op < 9) {
        // A walk over the first entries in pop order, taking those with a sequence number
        // divisible by 3, and ending early now and then.
        struct Walk {
          std::vector<fw_task_t *> visited;
          size_t stop_after;
        } walk = {{}, rng() % 4 == 0 ? size_t(rng() % 8) : SIZE_MAX};
        size_t limit = 1 + rng() % 80;
        fw_task_heap_walk(
            &h, limit,
            [](void *ctx, fw_task_t *t, const fw_task_heap_entry_t *e) {
              auto *w = static_cast<Walk *>(ctx);
              EXPECT_EQ(e->task, t);
              w->visited.push_back(t);
              int what = t->seq % 3 == 0 ? FW_TASK_HEAP_TAKE : FW_TASK_HEAP_LEAVE;
              return what | (w->visited.size() > w->stop_after ? FW_TASK_HEAP_STOP : 0);
            },
            &walk);
        size_t stop = walk.stop_after == SIZE_MAX ? SIZE_MAX : walk.stop_after + 1;
        size_t expected_visits =
            std::min({limit, size_t(FW_TASK_HEAP_WALK_MAX), reference.size(), stop});
        ASSERT_EQ(walk.visited.size(), expected_visits) << "round " << round << " step " << step;
        auto it = reference.begin();
        for (fw_task_t *t : walk.visited) {
          ASSERT_EQ(t, *it) << "round " << round << " step " << step;
          it = t->seq % 3 == 0 ? reference.erase(it) : std::next(it);
        }
      } else {
        // Only tasks with an even sequence number: the best of those.
        auto even = [](const void *, const fw_task_t *t) { return int(t->seq % 2 == 0); };
        fw_task_t *t = fw_task_heap_pop_if(&h, even, nullptr);
        auto it = std::find_if(reference.begin(), reference.end(),
                               [](const fw_task_t *r) { return r->seq % 2 == 0; });
        if (it == reference.end()) {
          ASSERT_EQ(t, nullptr);
        } else {
          ASSERT_EQ(t, *it) << "round " << round << " step " << step;
          reference.erase(it);
        }
      }
      ASSERT_EQ(h.size, reference.size());
      ASSERT_EQ(h.size, h.heap_size + h.run_size);
      if (step % 97 == 0) {
        std::multiset<const fw_task_t *> expected(reference.begin(), reference.end());
        ASSERT_EQ(entries(h), expected);
      }
    }
    while (!reference.empty()) {
      ASSERT_EQ(fw_task_heap_pop(&h), *reference.begin());
      reference.erase(reference.begin());
    }
    EXPECT_EQ(fw_task_heap_pop(&h), nullptr);
    fw_task_heap_free(&h);
  }
}

// A conditional pop looks at the entries in the order they pop and stops at the first
// acceptable one: with 20 tasks only a GPU runs ahead of 10^4 CPU tasks, a CPU worker's
// pop reads 21 tasks, not every one. With more rejected ahead than the search keeps
// (FW_TASK_HEAP_WALK_MAX) it reads them all, and still finds the best.
TEST(TaskHeapTest, ConditionalPopReadsOnlyTheEntriesAheadOfItsTask) {
  for (int ahead : {20, 300}) {
    SCOPED_TRACE(ahead);
    Tasks tasks;
    fw_task_heap_t h = {};
    std::mt19937 rng(7);
    std::vector<fw_task_t *> cpu;
    for (int i = 0; i < 10000 + ahead; ++i) {
      bool gpu = i % ((10000 + ahead) / ahead) == 0 && ahead-- > 0;
      // Ranks drawn at random, so that the entries go to the heap, not the run.
      fw_task_t *t = tasks.make(gpu ? 1 : 0, double(rng() % 1000));
      t->kind_mask = gpu ? 1u << FW_TARGET_KIND_CUDA : 1u << FW_TARGET_KIND_CPU;
      if (!gpu) cpu.push_back(t);
      ASSERT_TRUE(fw_task_heap_push(&h, t));
    }
    struct Count {
      size_t calls = 0;
    } count;
    auto runsOnCpu = [](const void *ctx, const fw_task_t *t) {
      ++const_cast<Count *>(static_cast<const Count *>(ctx))->calls;
      return int((t->kind_mask >> FW_TARGET_KIND_CPU) & 1u);
    };
    fw_task_t *best = *std::min_element(cpu.begin(), cpu.end(), Before());
    EXPECT_EQ(fw_task_heap_pop_if(&h, runsOnCpu, &count), best);
    size_t rejected = h.size + 1 - cpu.size();
    if (rejected < FW_TASK_HEAP_WALK_MAX) EXPECT_EQ(count.calls, rejected + 1);
    else EXPECT_GT(count.calls, h.size);
    fw_task_heap_free(&h);
  }
}

// Which kinds of device the queued tasks run on is counted as they come and go.
TEST(TaskHeapTest, KnowsWhichKindsOfDeviceItsTasksRunOn) {
  Tasks tasks;
  fw_task_heap_t h = {};
  EXPECT_FALSE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CPU));
  fw_task_t *cpu = tasks.make(0, 0.0), *both = tasks.make(1, 0.0), *hip = tasks.make(0, 0.0);
  cpu->kind_mask = 1u << FW_TARGET_KIND_CPU;
  both->kind_mask = 1u << FW_TARGET_KIND_CPU | 1u << FW_TARGET_KIND_CUDA;
  hip->kind_mask = 1u << FW_TARGET_KIND_HIP;
  ASSERT_TRUE(fw_task_heap_push(&h, cpu));
  EXPECT_TRUE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CPU));
  EXPECT_FALSE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CUDA));
  ASSERT_TRUE(fw_task_heap_push(&h, both)); // to the heap: it pops first
  ASSERT_TRUE(fw_task_heap_push(&h, hip));
  EXPECT_TRUE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CUDA));
  EXPECT_TRUE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_HIP));
  EXPECT_EQ(fw_task_heap_pop(&h), both);
  EXPECT_FALSE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CUDA));
  auto isHip = [](const void *, const fw_task_t *t) { return int(t->kind_mask >> FW_TARGET_KIND_HIP); };
  EXPECT_EQ(fw_task_heap_pop_if(&h, isHip, nullptr), hip);
  EXPECT_FALSE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_HIP));
  EXPECT_TRUE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CPU));
  EXPECT_EQ(fw_task_heap_pop(&h), cpu);
  EXPECT_FALSE(fw_task_heap_holds_kind(&h, FW_TARGET_KIND_CPU));
  fw_task_heap_free(&h);
}

// Tasks alike for placement (name, work, data size, devices) share a key; a difference in
// any of them gives another.
TEST(TaskHeapTest, PlacementKeySeparatesTasksThatWorkersRunDifferently) {
  Tasks tasks;
  fw_task_t *a = tasks.make(0, 0.0), *b = tasks.make(3, 1.0);
  for (fw_task_t *t : {a, b}) {
    t->name_hash = 42;
    t->data_bytes = 4096;
    t->flops = 1e6;
    t->bytes = 8192;
    t->kind_mask = 1u << FW_TARGET_KIND_CPU;
  }
  EXPECT_EQ(fw_task_placement_key(a), fw_task_placement_key(b));  // order keys do not count
  std::vector<void (*)(fw_task_t *)> changes = {
      [](fw_task_t *t) { t->name_hash = 43; },
      [](fw_task_t *t) { t->data_bytes = 4097; },
      [](fw_task_t *t) { t->flops = 2e6; },
      [](fw_task_t *t) { t->bytes = 1; },
      [](fw_task_t *t) { t->kind_mask |= 1u << FW_TARGET_KIND_CUDA; },
      [](fw_task_t *t) { t->prefer_mask = 1u << FW_TARGET_KIND_CUDA; },
      [](fw_task_t *t) { t->gpu_mask = 2; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    fw_task_t saved = *b;
    changes[i](b);
    EXPECT_NE(fw_task_placement_key(a), fw_task_placement_key(b)) << "change " << i;
    *b = saved;
  }
}

}  // namespace
