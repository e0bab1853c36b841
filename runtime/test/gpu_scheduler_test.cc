// The scheduler with a GPU in service beside the CPU workers, through the stand-in driver
// of fake_cuda.c (ctest puts it on LD_LIBRARY_PATH): C tasks, which only the CPU workers
// run, under each policy. heft leaves such tasks to the CPU worker that looks for work
// rather than placing them ahead (policy_heft.c, left_to_take), and plans a batch of them
// as on a machine of CPU workers alone (heft_plan.c, classes_in_use).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

// A runtime with `workers` CPU workers and the stand-in GPU in service.
fw_runtime_t *besideGpu(fw_scheduler_kind_t policy, uint32_t workers) {
  return fwtest::runtimeOn("cpu,cuda", policy, workers);
}

using fwtest::gpuTasks;
using fwtest::statsOf;

const fw_scheduler_kind_t kPolicies[] = {FW_SCHEDULER_EAGER, FW_SCHEDULER_WS, FW_SCHEDULER_HEFT};

void increment(void *, void *const *data, size_t) {
  auto *v = static_cast<uint64_t *>(data[0]);
  for (size_t i = 0; i < 64; ++i) ++v[i];
}

void addInto(void *, void *const *data, size_t) {
  const auto *in = static_cast<const uint64_t *>(data[0]);
  auto *out = static_cast<uint64_t *>(data[1]);
  for (size_t i = 0; i < 64; ++i) out[i] += in[i];
}

TEST(CpuTasksBesideGpu, DependentTasksGiveTheirResultsUnderEveryPolicy) {
  for (fw_scheduler_kind_t policy : kPolicies) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = besideGpu(policy, 2);
    ASSERT_NE(rt, nullptr);
    // 8 chains of increments, and sums of each chain into one total after each round.
    const std::vector<uint64_t> zeros(64, 0);
    std::vector<fw_buffer_t *> chains;
    for (int c = 0; c < 8; ++c) chains.push_back(fwtest::makeU64Buffer(rt, 64, zeros));
    fw_buffer_t *total = fwtest::makeU64Buffer(rt, 64, zeros);
    const int rounds = 50;
    for (int r = 0; r < rounds; ++r)
      for (fw_buffer_t *b : chains) {
        FW_ASSERT_OK(fwtest::submit(rt, "increment", increment, nullptr,
                                    {{b, FW_ACCESS_READ_WRITE}}));
        FW_ASSERT_OK(fwtest::submit(rt, "add", addInto, nullptr,
                                    {{b, FW_ACCESS_READ}, {total, FW_ACCESS_READ_WRITE}}));
      }
    FW_ASSERT_OK(fw_runtime_wait_all(rt));
    // Chain c holds r after round r; the total gets 1 + 2 + ... + rounds from each.
    for (fw_buffer_t *b : chains)
      EXPECT_EQ(fwtest::readU64(b), std::vector<uint64_t>(64, rounds));
    EXPECT_EQ(fwtest::readU64(total),
              std::vector<uint64_t>(64, 8u * rounds * (rounds + 1) / 2));
    EXPECT_EQ(gpuTasks(rt), 0u);
    for (fw_buffer_t *b : chains) fw_buffer_release(b);
    fw_buffer_release(total);
    fw_runtime_destroy(rt);
  }
}

// With a GPU in service heft placed CPU tasks ahead on the CPU workers' queues, two each:
// a task of higher priority submitted after four others waited behind them.
TEST(CpuTasksBesideGpu, LaterHigherPriorityTaskOvertakesQueuedOnes) {
  for (fw_scheduler_kind_t policy : {FW_SCHEDULER_EAGER, FW_SCHEDULER_HEFT}) {
    SCOPED_TRACE(fwtest::schedulerName(policy));
    fw_runtime_t *rt = besideGpu(policy, 2);
    ASSERT_NE(rt, nullptr);
    fwtest::expectLaterHigherPriorityTaskRunsFirst(rt, 2);
    EXPECT_EQ(gpuTasks(rt), 0u);
    fw_runtime_destroy(rt);
  }
}

// data[0][0] += 1.
void incrementFirst(void *, void *const *data, size_t) { ++static_cast<uint64_t *>(data[0])[0]; }

// A batch of held tasks (as a module call's) that only the CPU workers can run: heft makes
// the plans it makes without a GPU (its HEFT plan and the list plan), not those for
// several device classes, which are the same plans here (7 were made).
TEST(CpuTasksBesideGpu, BatchOnlyTheCpuRunsIsPlannedAsWithoutTheGpu) {
  fw_runtime_t *rt = besideGpu(FW_SCHEDULER_HEFT, 2);
  ASSERT_NE(rt, nullptr);
  constexpr int kChains = 16, kSteps = 12;
  std::vector<fw_buffer_t *> chains;
  for (int c = 0; c < kChains; ++c) chains.push_back(fwtest::makeU64Buffer(rt, 1, {0}));
  std::vector<fw_task_t *> held;
  for (int step = 0; step < kSteps; ++step)
    for (fw_buffer_t *chain : chains) {
      fw_task_access_t access = {chain, FW_ACCESS_READ_WRITE};
      fw_task_t *t = nullptr;
      FW_ASSERT_OK(fw_task_create(rt, "held", &access, 1, &t));
      t->fn = incrementFirst;
      t->flops = 1e8; // long enough by the model that more than one plan is worth making
      fw_memory_unmap(&rt->memory, chain);
      fw_scheduler_submit(&rt->sched, t, &rt->sched.api_group, 1);
      held.push_back(t);
    }
  fw_scheduler_release_held(&rt->sched, held.data(), held.size(), 0);
  for (fw_task_t *t : held) fw_task_release(t);
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  for (fw_buffer_t *chain : chains) EXPECT_EQ(fwtest::readU64(chain)[0], uint64_t(kSteps));
  fw_runtime_stats_t st = statsOf(rt);
  EXPECT_EQ(st.batches_planned, 1u);
  EXPECT_EQ(st.plans_made, 2u) << "HEFT's plan and the list plan";
  EXPECT_EQ(gpuTasks(rt), 0u);
  for (fw_buffer_t *chain : chains) fw_buffer_release(chain);
  fw_runtime_destroy(rt);
}

} // namespace
