// For tests of what happens while the CPU workers sleep (internal state: the scheduler's
// workers, read under its lock).
#ifndef FW_RUNTIME_TEST_SLEEPING_WORKERS_H_
#define FW_RUNTIME_TEST_SLEEPING_WORKERS_H_

#include <chrono>
#include <thread>

#include "runtime_internal.h"
#include "scheduler.h"

namespace fwtest {

// Waits (10 s at most) until every CPU worker of `rt` sleeps, not woken and not lent:
// whether they got there. A runtime started with FW_SPIN_US=0 and nothing to run gets
// there as soon as its threads are scheduled.
inline bool cpuWorkersAsleep(fw_runtime_t *rt) {
  fw_scheduler_t *s = &rt->sched;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    bool asleep = true;
    fw_sched_lock(s);
    for (size_t i = 0; i < s->num_workers; ++i) {
      const fw_worker_t &w = s->workers[i];
      if (w.kind == FW_TARGET_KIND_CPU && (!w.sleeping || !w.parked || w.lent)) asleep = false;
    }
    fw_sched_unlock(s);
    if (asleep) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace fwtest

#endif
