// Completion callbacks (fw_task_desc_t.on_done): called once with the task's outcome when
// it ran, failed, was cancelled or could run nowhere, under every policy, before the
// waits see the task finished; a callback may submit tasks but not wait for them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fw/runtime.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;

// What a task's on_done saw.
struct Outcome {
  std::atomic<int> calls{0};
  std::atomic<bool> ran{false};  // the body ran before the callback
  std::atomic<bool> body{false};
  std::string error;  // "" for FW_OK
};

void noteOutcome(void *user, fw_status_t status) {
  auto *o = static_cast<Outcome *>(user);
  o->error = status ? fw_status_message(status) : "";
  o->ran = o->body.load();
  o->calls.fetch_add(1);
}

// noteOutcome after a while: a wait that did not wait for the callback would return first.
void noteOutcomeSlowly(void *user, fw_status_t status) {
  fwtest::sleepMs(1);
  noteOutcome(user, status);
}

void markBody(void *user, void *const *, size_t) {
  static_cast<Outcome *>(user)->body = true;
}

// A task whose on_done notes its outcome in `o`.
fw_task_desc_t describe(const char *name, fw_task_fn_t fn, Outcome *o,
                        const std::vector<fw_task_access_t> &accesses = {}) {
  fw_task_desc_t d = fwtest::describeTask(name, fn, o, accesses);
  d.on_done = noteOutcome;
  return d;
}

class OnDoneTest : public fwtest::TwoWorkerPolicyTest {};

// Once the task is seen finished, by any of the waits or by fw_task_is_done, its callback
// has run, once, after the body, with FW_OK; and fw_task_run's too.
TEST_P(OnDoneTest, RunsOnceBeforeTheWaitsSeeTheTaskFinished) {
  for (int round = 0; round < 60; ++round) {
    Outcome o;
    fw_task_desc_t d = describe("t", markBody, &o);
    d.on_done = noteOutcomeSlowly;
    fw_task_t *t = nullptr;
    FW_ASSERT_OK(fw_task_submit(rt_, &d, &t));
    switch (round % 3) {
    case 0:
      FW_ASSERT_OK(fw_task_wait(t));
      break;
    case 1:
      FW_ASSERT_OK(fw_runtime_wait_all(rt_));
      break;
    default:
      while (!fw_task_is_done(t)) {
      }
    }
    EXPECT_EQ(o.calls.load(), 1) << "round " << round;
    EXPECT_TRUE(o.ran.load());
    EXPECT_EQ(o.error, "");
    fw_task_release(t);
  }
  Outcome o;
  fw_task_desc_t d = describe("sync", markBody, &o);
  d.on_done = noteOutcomeSlowly;
  FW_ASSERT_OK(fw_task_run(rt_, &d));
  EXPECT_EQ(o.calls.load(), 1);
  EXPECT_TRUE(o.ran.load());
}

// A failed task's callback gets its error; a task it cancels gets that error without its
// body running; a task no device can run (only a CUDA body, no GPU) gets why.
TEST_P(OnDoneTest, GetsTheFailure) {
  fw_buffer_t *a = makeU64Buffer(rt_, 16);
  Outcome failing, reader, nowhere;
  std::vector<fw_task_access_t> w = {{a, FW_ACCESS_WRITE}}, r = {{a, FW_ACCESS_READ}};
  fw_task_desc_t d = describe(
      "parse",
      [](void *, void *const *, size_t) {
        FW_EXPECT_OK(fw_task_fail(fw_status_create(FW_STATUS_DATA_LOSS, "bad header")));
      },
      &failing, w);
  FW_ASSERT_OK(fw_task_submit(rt_, &d, nullptr));
  d = describe("use", markBody, &reader, r);
  FW_ASSERT_OK(fw_task_submit(rt_, &d, nullptr));
  d = describe("gpu only", nullptr, &nowhere);
  d.cuda_fn = [](void *, void *const *, size_t, void *) -> fw_status_t { return FW_OK; };
  FW_ASSERT_OK(fw_task_submit(rt_, &d, nullptr));
  EXPECT_FALSE(fwtest::consume(fw_runtime_wait_all(rt_)).empty());  // the first of two
  EXPECT_EQ(failing.calls.load(), 1);
  EXPECT_EQ(failing.error, "task @parse: bad header");
  EXPECT_EQ(reader.calls.load(), 1);
  EXPECT_FALSE(reader.ran.load());
  EXPECT_EQ(reader.error, "task @parse: bad header");
  EXPECT_EQ(nowhere.calls.load(), 1);
  EXPECT_NE(nowhere.error.find("task @gpu only: no device here can run it"), std::string::npos)
      << nowhere.error;
  fw_buffer_release(a);
}

// A callback submits the next task of a chain (a continuation): fw_runtime_wait_all waits
// for those too. One that waits for tasks is refused, naming the callback's task.
struct Chain {
  fw_runtime_t *rt;
  std::atomic<int> links{0};
  std::string refused;
};

void nextLink(void *user, fw_status_t status) {
  auto *c = static_cast<Chain *>(user);
  EXPECT_EQ(status, nullptr);
  if (c->links.fetch_add(1) + 1 == 50) {
    fw_status_t s = fw_runtime_wait_all(c->rt);
    c->refused = s ? fw_status_message(s) : "";
    fw_status_free(s);
    return;
  }
  fw_task_desc_t d = fwtest::describeTask("link", [](void *, void *const *, size_t) {}, c);
  d.on_done = nextLink;
  fw_status_t s = fw_task_submit(c->rt, &d, nullptr);
  EXPECT_EQ(s, nullptr) << fw_status_message(s);
  fw_status_free(s);
}

TEST_P(OnDoneTest, ACallbackMaySubmitButNotWait) {
  Chain chain{rt_};
  fw_task_desc_t d =
      fwtest::describeTask("first", [](void *, void *const *, size_t) {}, &chain);
  d.on_done = nextLink;
  FW_ASSERT_OK(fw_task_submit(rt_, &d, nullptr));
  FW_ASSERT_OK(fw_runtime_wait_all(rt_));
  EXPECT_EQ(chain.links.load(), 50);
  EXPECT_NE(chain.refused.find("fw_runtime_wait_all from the on_done of task 'link': a "
                               "completion callback cannot wait"),
            std::string::npos)
      << chain.refused;
}

FW_INSTANTIATE_FOR_EVERY_POLICY(OnDoneTest);

// In a simulation the callbacks run as the simulation completes the tasks, in virtual
// time order.
TEST(OnDoneSimulationTest, CallbacksRunAsTheSimulationCompletesTasks) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(1, 1);
  ASSERT_NE(rt, nullptr);
  static std::vector<int> order;
  order.clear();
  int ids[3] = {0, 1, 2};
  fw_buffer_t *b = makeU64Buffer(rt, 4);
  std::vector<fw_task_access_t> rw = {{b, FW_ACCESS_READ_WRITE}};
  for (int &id : ids) {
    fw_task_desc_t d = fwtest::describeTask("step", nullptr, &id, rw);
    d.flops = 1e9;
    d.on_done = [](void *user, fw_status_t) { order.push_back(*static_cast<int *>(user)); };
    FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  }
  EXPECT_TRUE(order.empty());  // nothing runs before the simulation does
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// Tasks a callback submits during a simulation run in it, from the virtual time they were
// submitted: a chain of three 1 s links, each submitted by the previous one's callback,
// beside an independent 2 s task on a second worker, takes 3 s (before, the run ended
// after the first link, with the second held).
struct SimChain {
  fw_runtime_t *rt;
  int links = 0;
};

void simNext(void *user, fw_status_t status) {
  auto *c = static_cast<SimChain *>(user);
  EXPECT_EQ(status, nullptr);
  if (++c->links == 4) return;
  fw_task_desc_t d = fwtest::describeTask("link", nullptr, c);
  d.flops = 1e9;
  d.on_done = simNext;
  FW_EXPECT_OK(fw_task_submit(c->rt, &d, nullptr));
}

TEST(OnDoneSimulationTest, TasksACallbackSubmitsRunInTheSimulation) {
  fw_runtime_t *rt = fwtest::simulatedCpuRuntime(2, 1);
  ASSERT_NE(rt, nullptr);
  SimChain chain{rt};
  fw_task_desc_t d = fwtest::describeTask("long", nullptr, nullptr);
  d.flops = 2e9;
  FW_ASSERT_OK(fw_task_submit(rt, &d, nullptr));
  simNext(&chain, FW_OK);  // submits the first link
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(chain.links, 4);
  fw_sim_report_t r;
  FW_ASSERT_OK(fw_runtime_simulation_report(rt, &r));
  EXPECT_EQ(r.tasks, 4u);  // the long one and three links
  EXPECT_NEAR(r.makespan_seconds, 3.0, 1e-9);
  fw_runtime_destroy(rt);
}

}  // namespace
