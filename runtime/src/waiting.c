/* Idle workers and waiting threads: a worker sleeps until a push wakes it; a thread that
 * waits for tasks (a task, a group, a buffer) polls, runs tasks in a parked worker's place
 * (lending it: fw_scheduler_lend, fw_engine_help) and then sleeps until completions wake
 * it. The graph and the completions that wake them are in scheduler.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "scheduler.h"
#include "runtime_internal.h"

/* ---- Workers: sleeping, waking, lending ------------------------------------------ */

void fw_scheduler_notify(fw_scheduler_t *s, fw_worker_t *w) {
  w->notified = 1;
  atomic_fetch_add_explicit(&w->mail, 1, memory_order_release);
  fw_scheduler_wake(s, w);
}

fw_worker_t *fw_scheduler_idle_worker(fw_scheduler_t *s, const fw_task_t *task) {
  fw_worker_t *sleeper = NULL;
  for (size_t i = 0; i < s->num_workers; ++i) {
    fw_worker_t *w = &s->workers[i];
    if (w->running || w->notified || !fw_worker_can_run(w, task)) continue;
    if (!w->sleeping) return w; /* polling: picks it up without a wake-up */
    if (!sleeper) sleeper = w;
  }
  return sleeper;
}

void fw_scheduler_wake(fw_scheduler_t *s, fw_worker_t *w) {
  if (!w->sleeping) return;
  if (s->spare_wake && w->kind == FW_TARGET_KIND_CPU) {
    /* The thread that released the tasks takes its place (spin_until). Left untold too: a
     * worker asleep and told would be passed over by every later push
     * (fw_scheduler_idle_worker) once another worker took its task. */
    s->spare_wake = 0;
    w->notified = 0;
    return;
  }
  /* Woken now, even if its thread has not run yet: the next push must wake another. */
  w->sleeping = 0;
  pthread_mutex_lock(&w->sleep_lock);
  w->wake_token = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->sleep_lock);
}

/* Waits for a wake-up's token (sleep_lock held). */
static void await_token(fw_worker_t *w) {
  while (!w->wake_token) pthread_cond_wait(&w->cv, &w->sleep_lock);
  w->wake_token = 0;
}

static void set_parked(fw_scheduler_t *s, fw_worker_t *w, int parked) {
  w->parked = parked;
  if (w->kind == FW_TARGET_KIND_CPU) atomic_fetch_add(&s->num_lendable, parked ? 1u : -1u);
}

void fw_scheduler_sleep(fw_scheduler_t *s, fw_worker_t *w) {
  w->sleeping = 1;
  set_parked(s, w, 1);
  pthread_mutex_lock(&w->sleep_lock);
  w->in_sleep = 1;
  pthread_mutex_unlock(&w->sleep_lock);
  double at = s->policy->wake_at && !s->simulated ? s->policy->wake_at(s, w) : 0;
  /* Letting the lock go may insert staged tasks, and a push for this worker leaves it a
   * token: then it does not sleep at all. */
  fw_sched_unlock(s);
  struct timespec until = {(time_t)at, (long)((at - (double)(time_t)at) * 1e9)};
  pthread_mutex_lock(&w->sleep_lock);
  while (!w->wake_token) {
    if (at <= 0) pthread_cond_wait(&w->cv, &w->sleep_lock);
    else if (pthread_cond_timedwait(&w->cv, &w->sleep_lock, &until) == ETIMEDOUT) break;
  }
  w->wake_token = 0;
  w->in_sleep = 0;
  pthread_mutex_unlock(&w->sleep_lock);
  fw_sched_lock(s);
  w->sleeping = 0;
  /* Lent to a waiting thread meanwhile: it comes back once given back. */
  while (w->lent) {
    w->awaiting_return = 1;
    fw_sched_unlock(s);
    pthread_mutex_lock(&w->sleep_lock);
    await_token(w);
    pthread_mutex_unlock(&w->sleep_lock);
    fw_sched_lock(s);
    w->awaiting_return = 0;
  }
  set_parked(s, w, 0);
}

fw_worker_t *fw_scheduler_lend(fw_scheduler_t *s, fw_task_t **out_task) {
  *out_task = NULL;
  /* First the workers woken for work and not back yet (the policy chose them: a plan's
   * chain goes on there, rather than waiting for another wake-up on its planned worker),
   * then those still asleep. */
  for (size_t k = 0; k < 2 * s->num_workers && !s->shutdown; ++k) {
    fw_worker_t *w = &s->workers[k % s->num_workers];
    int woken = !w->sleeping || w->notified;
    if (w->kind != FW_TARGET_KIND_CPU || !w->parked || w->lent || w->lost ||
        woken != (k < s->num_workers))
      continue;
    /* Awake from the policies' view while lent: nobody wakes its thread for the tasks
     * given to it, which its borrower runs. Undone below when it has none (the lock was
     * held throughout, so nothing else changed). */
    int sleeping = w->sleeping;
    w->lent = 1;
    w->sleeping = 0;
    fw_task_t *t = fw_scheduler_pop_locked(s, w);
    if (t) {
      atomic_fetch_sub(&s->num_lendable, 1);
      *out_task = t;
      return w;
    }
    w->lent = 0;
    w->sleeping = sleeping;
  }
  return NULL;
}

void fw_scheduler_give_back(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *next, uint64_t ran) {
  fw_sched_lock(s);
  w->lent = 0;
  w->handoff = next;
  s->tasks_by_waiters += ran;
  atomic_fetch_add(&s->num_lendable, 1); /* parked until its thread is back */
  int work = next || w->notified || s->shutdown || atomic_load(&s->num_ready) > 0;
  pthread_mutex_lock(&w->sleep_lock);
  if (w->awaiting_return || (w->in_sleep && !w->wake_token && work)) {
    /* Back and waiting for this, or still asleep with work to do. */
    w->wake_token = 1;
    pthread_cond_signal(&w->cv);
  } else if (w->in_sleep && !w->wake_token) {
    w->sleeping = 1; /* still asleep and nothing to do: it sleeps on, as before */
  } /* else woken already, on its way back: it finds what there is */
  pthread_mutex_unlock(&w->sleep_lock);
  fw_sched_unlock(s);
}

/* ---- Waiting threads ------------------------------------------------------------ */

/* Waiting for completions: read the epoch, look at the condition, and sleep only while
 * the epoch has not moved since (a completion after the look moves it). */
static uint64_t done_epoch(fw_scheduler_t *s) {
  pthread_mutex_lock(&s->done_lock);
  uint64_t epoch = s->done_epoch;
  pthread_mutex_unlock(&s->done_lock);
  return epoch;
}

static void wait_done_after(fw_scheduler_t *s, uint64_t seen) {
  pthread_mutex_lock(&s->done_lock);
  while (s->done_epoch == seen) pthread_cond_wait(&s->done_cv, &s->done_lock);
  pthread_mutex_unlock(&s->done_lock);
}

/* The last step of completion, without the lock: waiters on the group may go. A waiter
 * counts itself under the lock before it looks at the counters, and this looks at the
 * waiters after lowering them (both sequentially consistent), so one of the two always
 * sees the other; the broadcast takes the lock, so it cannot fall between a waiter's look
 * and its sleep. */
void fw_scheduler_wake_waiters(fw_scheduler_t *s, int group_done, int all_done,
                               size_t left) {
  if (atomic_load(&s->other_waiters) > 0 ||
      ((group_done || all_done) && atomic_load(&s->group_waiters) > 0) ||
      (left == s->runtime->submit_resume && atomic_load(&s->submit_waiters) > 0)) {
    pthread_mutex_lock(&s->done_lock);
    ++s->done_epoch;
    pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->done_lock);
  }
}

static int is_zero(void *count) {
  return atomic_load_explicit((atomic_size_t *)count, memory_order_acquire) == 0;
}

typedef struct {
  atomic_size_t *count;
  size_t at_most;
} below_t;

/* Sequentially consistent, as leave_group's side of the protocol needs (see
 * fw_scheduler_wake_waiters). */
static int is_below(void *arg) {
  const below_t *b = arg;
  return atomic_load(b->count) <= b->at_most;
}

static int is_done(void *task) {
  return atomic_load_explicit(&((fw_task_t *)task)->done, memory_order_acquire) != 0;
}

/* A waiting thread runs tasks in the place of a parked worker while there are some for
 * it (fw_engine_help), then polls `ready(arg)` for the runtime's spin time
 * (FW_DEFAULT_SPIN_US) at most, yielding its core as idle workers do (fw_poll_again):
 * polling without yielding beside workers that computed took a third of two cores from
 * them. It helps again whenever a task is ready and a worker parked (two loads without
 * the lock). Whether it held. */
static int spin_until(fw_scheduler_t *s, int (*ready)(void *), void *arg) {
  if (ready(arg)) return 1;
  /* Until no parked worker has a task for it (one left asleep for it by
   * fw_scheduler_release_held is run here, also without polling). */
  while (fw_engine_help(s, ready, arg) && !ready(arg)) {
  }
  uint64_t spin_ns = s->runtime->spin_ns;
  if (spin_ns == 0) return ready(arg);
  uint64_t until = fw_now_ns() + spin_ns;
  for (unsigned polls = 0; !ready(arg); ++polls) {
    if (fw_engine_help(s, ready, arg)) {
      until = fw_now_ns() + spin_ns;
      continue;
    }
    if (!fw_poll_again(polls, until)) return 0;
  }
  return 1;
}

void fw_scheduler_wait_group(fw_scheduler_t *s, fw_task_group_t *group) {
  if (s->simulated) {
    fw_simulator_run(s);
    return;
  }
  atomic_size_t *outstanding = group ? &group->outstanding : &s->outstanding;
  if (spin_until(s, is_zero, outstanding)) return;
  atomic_fetch_add(&s->group_waiters, 1); /* before looking: see leave_group */
  for (;;) {
    uint64_t seen = done_epoch(s);
    if (atomic_load(outstanding) == 0) break;
    wait_done_after(s, seen);
  }
  atomic_fetch_sub(&s->group_waiters, 1);
}

void fw_scheduler_wait_below(fw_scheduler_t *s, size_t count) {
  below_t below = {&s->outstanding, count};
  if (spin_until(s, is_below, &below)) return;
  atomic_fetch_add(&s->submit_waiters, 1); /* before looking: see leave_group */
  for (;;) {
    uint64_t seen = done_epoch(s);
    if (is_below(&below)) break;
    wait_done_after(s, seen);
  }
  atomic_fetch_sub(&s->submit_waiters, 1);
}

void fw_scheduler_wait_task(fw_scheduler_t *s, fw_task_t *task) {
  if (s->simulated) {
    fw_simulator_run(s);
    return;
  }
  if (spin_until(s, is_done, task)) return;
  atomic_fetch_add(&s->other_waiters, 1); /* before looking: see leave_group */
  for (;;) {
    uint64_t seen = done_epoch(s);
    if (atomic_load(&task->done)) break; /* set before leave_group wakes */
    wait_done_after(s, seen);
  }
  atomic_fetch_sub(&s->other_waiters, 1);
}

/* Whether a task submitted before writes `buffer` (its last writer, updates of a group of
 * commutative ones, or the reduction of a group of contributions), or (with `all`) reads
 * it. */
static int buffer_busy(fw_scheduler_t *s, const fw_buffer_t *buffer, int all) {
  fw_sched_lock(s);
  int busy = buffer->last_writer || buffer->commute_join || buffer->redux_join ||
             (all && buffer->num_readers > 0);
  fw_sched_unlock(s);
  return busy;
}

/* What a thread waiting for a buffer polls (spin_until): the buffer's state, read under
 * the lock, first and then each time the count of unfinished tasks moves (a task
 * completed, or another was submitted), so that it takes the lock once per completion at
 * most. A completion missed (one completes as another is submitted in between) is seen
 * at the next, or by the sleeping wait after. */
typedef struct {
  fw_scheduler_t *s;
  const fw_buffer_t *buffer;
  int all, looked;
  size_t looked_at; /* s->outstanding when it last looked */
} buffer_poll_t;

static int buffer_idle(void *arg) {
  buffer_poll_t *p = arg;
  size_t outstanding = atomic_load_explicit(&p->s->outstanding, memory_order_acquire);
  if (p->looked && outstanding == p->looked_at) return 0;
  p->looked = 1;
  p->looked_at = outstanding;
  return !buffer_busy(p->s, p->buffer, p->all);
}

void fw_scheduler_wait_buffer(fw_scheduler_t *s, fw_buffer_t *buffer, int all) {
  if (s->simulated) {
    fw_simulator_run(s);
    return;
  }
  buffer_poll_t poll = {s, buffer, all, 0, 0};
  if (spin_until(s, buffer_idle, &poll)) return;
  atomic_fetch_add(&s->other_waiters, 1); /* before looking: see leave_group */
  for (;;) {
    uint64_t seen = done_epoch(s);
    if (!buffer_busy(s, buffer, all)) break;
    wait_done_after(s, seen);
  }
  atomic_fetch_sub(&s->other_waiters, 1);
}
