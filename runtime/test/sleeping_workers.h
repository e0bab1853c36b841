// For tests of what happens while the CPU workers sleep (internal state: the scheduler's
// workers, read under its lock).
#ifndef FW_RUNTIME_TEST_SLEEPING_WORKERS_H_
#define FW_RUNTIME_TEST_SLEEPING_WORKERS_H_

#include "runtime_internal.h"
#include "scheduler.h"
#include "task_test_util.h"

namespace fwtest {

// Waits (10 s at most) until every CPU worker of `rt` sleeps, not woken and not lent:
// whether they got there. A runtime started with FW_SPIN_US=0 and nothing to run gets
// there as soon as its threads are scheduled.
inline bool cpuWorkersAsleep(fw_runtime_t *rt) {
  fw_scheduler_t *s = &rt->sched;
  return waitUntil([s] {
    bool asleep = true;
    fw_sched_lock(s);
    for (size_t i = 0; i < s->num_workers; ++i) {
      const fw_worker_t &w = s->workers[i];
      if (w.kind == FW_TARGET_KIND_CPU && (!w.sleeping || !w.parked || w.lent)) asleep = false;
    }
    fw_sched_unlock(s);
    return asleep;
  });
}

}  // namespace fwtest

#endif
