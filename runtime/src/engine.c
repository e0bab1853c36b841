/* The threaded engine: one thread per CPU worker and one per GPU. A CPU worker pops a
 * task from the policy, makes its buffers valid in host memory, runs it, and completes
 * it; GPU workers (gpu_worker.c) keep a few tasks launched at a time. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "history.h"
#include "memory.h"
#include "redux.h"
#include "runtime_internal.h"
#include "scheduler.h"
#include "status_internal.h"
#include "trace.h"

static _Thread_local fw_runtime_t *tls_owner;
/* The task whose body runs on this thread (a CPU worker), NULL between bodies. */
static _Thread_local const fw_task_t *tls_body;
/* The error its body failed it with (fw_task_fail), until the body returns. */
static _Thread_local fw_status_t tls_fail;
/* A thread waiting for tasks that runs them in a worker's place (fw_engine_help). */
static _Thread_local int tls_helping;
/* The task whose on_done runs on this thread, NULL outside one. */
static _Thread_local const fw_task_t *tls_on_done;

int fw_runtime_is_own_thread(const fw_runtime_t *rt) { return tls_owner == rt; }
void fw_runtime_mark_own_thread(fw_runtime_t *rt) { tls_owner = rt; }

int fw_engine_in_body(const fw_runtime_t *rt) {
  return tls_body && tls_body->runtime == rt;
}

uint32_t fw_engine_body_pins(fw_runtime_t *rt) {
  fw_task_t *body = (fw_task_t *)tls_body;
  if (!body || body->runtime != rt) return 0;
  /* Its buffers taken without the lock (in host memory: bodies run on CPU workers) are
   * pinned first: eviction would otherwise wait for the body to end before it makes the
   * room the body waits for. */
  if (body->fast_memory) fw_memory_pin_fast(&rt->memory, body, FW_NODE_HOST);
  uint32_t pins = (uint32_t)body->num_accesses;
  for (uint32_t k = 0; k < body->num_extra; ++k) pins += body->extra[k].buffer != NULL;
  return pins; /* (an extra buffer let go while it runs is no longer pinned) */
}

fw_status_t fw_engine_fail_body(fw_status_t status) {
  /* Not from a completion callback, even one run inside a body (a task the body submitted
   * that nothing can run completes on its thread). */
  if (!tls_body || tls_on_done) {
    fw_status_free(status);
    return fw_status_make(FW_STATUS_FAILED_PRECONDITION,
                          "fw_task_fail outside a task body (it fails the task whose body "
                          "calls it)");
  }
  if (!status) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "fw_task_fail: status is OK");
  if (tls_fail) fw_status_free(status); /* the first failure stands */
  else tls_fail = status;
  return FW_OK;
}

void fw_engine_call_on_done(fw_task_t *task) {
  const fw_task_t *outer = tls_on_done; /* an on_done that completes a task: nested */
  tls_on_done = task;
  task->on_done(task->user_data, task->status);
  tls_on_done = outer;
}

int fw_engine_in_on_done(const fw_runtime_t *rt) {
  return tls_on_done && tls_on_done->runtime == rt;
}

fw_status_t fw_engine_check_wait(const fw_runtime_t *rt, const char *call) {
  const fw_task_t *done = tls_on_done;
  if (done && done->runtime == rt)
    return fw_status_make(FW_STATUS_FAILED_PRECONDITION,
                          "%s from the on_done of task '%s': a completion callback cannot wait "
                          "for tasks of its own runtime (it runs where tasks complete); submit "
                          "a task instead",
                          call, done->name);
  const fw_task_t *body = tls_body;
  if (!body || body->runtime != rt) return FW_OK;
  return fw_status_make(FW_STATUS_FAILED_PRECONDITION,
                        "%s from the body of task '%s': a task body cannot wait for tasks of "
                        "its own runtime (the worker running it may be the one the wait needs); "
                        "submit a task that reads the results instead",
                        call, body->name);
}

/* ---- Workgroups shared with idle workers ---------------------------------------- */

struct fw_split_job_t {
  fw_runtime_t *runtime;
  const char *name;
  const fw_device_launch_t *launch; /* the whole grid */
  uint32_t count;
  atomic_uint next;         /* the next workgroup to claim */
  atomic_flag failed;       /* set by the first failure, which stores `status` */
  fw_status_t status;
};

/* Claims and runs workgroups of `job` until none is left; returns how many it ran. The
 * counter is read before it is bumped, so helpers that find nothing left never move it
 * (it cannot wrap around into a second run of a workgroup). */
static uint32_t run_workgroups(fw_split_job_t *job, fw_worker_t *w, int helper) {
  fw_runtime_t *rt = job->runtime;
  fw_device_t *device = rt->cpu_device;
  fw_device_launch_t one = *job->launch;
  one.num_workgroups = 1;
  uint32_t ran = 0;
  for (;; ++ran) {
    if (atomic_load_explicit(&job->next, memory_order_relaxed) >= job->count) return ran;
    uint32_t i = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
    if (i >= job->count) return ran;
    one.first_workgroup = i;
    uint64_t start = fw_now_ns();
    fw_status_t status = device->vtable->launch(device, NULL, &one);
    if (status != FW_OK) {
      if (!atomic_flag_test_and_set(&job->failed)) job->status = status;
      else fw_status_free(status);
    }
    if (helper && rt->trace.enabled)
      fw_trace_add(&rt->trace, w->index, job->name, start, fw_now_ns(), 0);
  }
}

/* A slot whose job is finishing: helpers skip it, and nobody offers a new job in it until
 * its owner has seen the last helper leave and cleared it. */
#define FW_SPLIT_CLOSING ((fw_split_job_t *)1)

/* Helps any offered job; returns whether it ran a workgroup. Called by idle CPU workers. */
static int help_split(fw_scheduler_t *s, fw_worker_t *w) {
  if (w->kind != FW_TARGET_KIND_CPU ||
      !atomic_load_explicit(&s->split_active, memory_order_acquire))
    return 0;
  int helped = 0;
  for (int k = 0; k < FW_SPLIT_SLOTS; ++k) {
    fw_split_slot_t *slot = &s->split[k];
    fw_split_job_t *seen = atomic_load_explicit(&slot->job, memory_order_relaxed);
    if (!seen || seen == FW_SPLIT_CLOSING) continue;
    atomic_fetch_add(&slot->refs, 1);
    fw_split_job_t *job = atomic_load(&slot->job);
    if (job && job != FW_SPLIT_CLOSING && run_workgroups(job, w, 1)) helped = 1;
    atomic_fetch_sub(&slot->refs, 1);
  }
  return helped;
}

/* Runs the whole grid of a kernel that divides its work: one workgroup per CPU worker,
 * offered to idle workers (sleeping ones woken with `wake`); the owner claims workgroups
 * too, so the launch completes even when nobody helps. */
static fw_status_t launch_split(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t,
                                fw_device_launch_t *launch, int wake) {
  fw_runtime_t *rt = s->runtime;
  uint32_t cpus = s->num_cpu_workers;
  fw_split_job_t job = {.runtime = rt, .name = t->name, .launch = launch, .count = cpus};
  atomic_init(&job.next, 0);
  atomic_flag_clear(&job.failed);
  launch->workgroup_count[0] = cpus;
  fw_split_slot_t *slot = NULL;
  for (int k = 0; cpus > 1 && k < FW_SPLIT_SLOTS && !slot; ++k) {
    fw_split_job_t *expected = NULL;
    if (atomic_compare_exchange_strong(&s->split[k].job, &expected, &job)) slot = &s->split[k];
  }
  if (!slot) {
    /* No helpers: one workgroup does everything. */
    launch->workgroup_count[0] = 1;
    return rt->cpu_device->vtable->launch(rt->cpu_device, NULL, launch);
  }
  atomic_fetch_add_explicit(&s->split_active, 1, memory_order_release);
  /* Wake sleeping CPU workers; spinning ones see the job by themselves. */
  if (wake) {
    fw_sched_lock(s);
    uint32_t woken = 0;
    for (size_t k = 0; k < s->num_workers && woken + 1 < cpus; ++k) {
      fw_worker_t *o = &s->workers[k];
      if (o != w && o->kind == FW_TARGET_KIND_CPU && o->sleeping) {
        fw_scheduler_wake(s, o);
        ++woken;
      }
    }
    fw_sched_unlock(s);
  }
  run_workgroups(&job, w, 0);
  /* Closed, not freed: a new job cannot take the slot (and its helpers count in `refs`)
   * until the helpers of this one have left. */
  atomic_store(&slot->job, FW_SPLIT_CLOSING);
  atomic_fetch_sub_explicit(&s->split_active, 1, memory_order_relaxed);
  while (atomic_load(&slot->refs)) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  atomic_store(&slot->job, NULL);
  return atomic_flag_test_and_set(&job.failed) ? job.status : FW_OK;
}

int64_t fw_engine_pick_variant(fw_tuner_t *tuner, const fw_task_t *t,
                               const void *const *kernels, fw_tune_state_t *state) {
  *state = FW_TUNE_NONE;
  if (!fw_tuner_has_candidates(tuner, t->executable)) return -1;
  int64_t pick = fw_tuner_pick(tuner, t->executable, fw_task_bytes(t), state);
  if (pick >= 0 && kernels[pick]) return pick;
  *state = FW_TUNE_NONE;
  return -1;
}

int fw_engine_launch_init(fw_device_launch_t *launch, const fw_task_t *t, void *const *data,
                          fw_device_binding_t *stack) {
  memset(launch, 0, sizeof(*launch));
  fw_device_binding_t *bindings = t->num_bindings <= FW_ENGINE_STACK_BINDINGS
                                      ? stack
                                      : calloc(t->num_bindings, sizeof(*bindings));
  if (!bindings) return 0;
  for (size_t i = 0; i < t->num_bindings; ++i) {
    uint32_t a = t->binding_access[i];
    bindings[i].data = data[a];
    bindings[i].rank = t->accesses[a].buffer->type.rank;
    bindings[i].dims = t->accesses[a].buffer->type.dims;
  }
  launch->num_bindings = t->num_bindings;
  launch->bindings = bindings;
  for (int k = 0; k < 3; ++k) launch->workgroup_count[k] = 1;
  return 1;
}

void fw_engine_launch_fini(fw_device_launch_t *launch, const fw_device_binding_t *stack) {
  if (launch->bindings != stack) free((void *)launch->bindings);
  launch->bindings = NULL;
}

int fw_engine_has_checks(const fw_task_t *t) {
  return t->module && t->module->md.executables[t->executable].num_checks > 0;
}

fw_status_t fw_engine_check_failed(const fw_task_t *t, uint32_t word) {
  const fw_md_executable_t *e = &t->module->md.executables[t->executable];
  if (word > e->num_checks)
    return fw_status_make(FW_STATUS_DATA_LOSS,
                          "task @%s: its kernel left %u in its error word, but its executable "
                          "'%s' lists %u checks",
                          t->name, word, e->name, e->num_checks);
  /* Check k of n leaves n + 1 - k: the first that failed has the largest. */
  return fw_status_make(FW_STATUS_FAILED_PRECONDITION, "task @%s: check failed: %s", t->name,
                        t->module->md.checks[e->first_check + e->num_checks - word]);
}

/* How a kernel that divides its work, long enough by the device model for a division to
 * pay, runs this time: whole (0) or divided (1), as its module's measurements have it for
 * its size class (division.h; the task notes a run whose time counts, recorded after
 * it), and divided waking the sleeping workers (2) when that is one of the trials;
 * divided (1) where nothing is measured (autotuning off, one CPU worker, or the kernel
 * has candidates of its own). */
static int division_now(fw_task_t *t) {
  t->division_run = 0;
  if (!t->module) return 1;
  int timed, trial;
  int way =
      fw_division_pick(&t->module->division, t->executable, fw_task_bytes(t), &timed, &trial);
  if (way < 0) return 1;
  if (timed) t->division_run = 1 + way;
  return way == FW_DIVISION_WHOLE ? 0 : trial ? 2 : 1;
}

/* Runs a kernel task on CPU worker `w`; `*workgroups` gets how many workgroups its code
 * divides it into: one per CPU worker for a kernel that divides its work (even when no
 * slot was free to offer them this time), 1 for one that runs whole. */
static fw_status_t run_kernel(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t,
                              void *const *data, uint32_t *workgroups) {
  fw_device_binding_t stack[FW_ENGINE_STACK_BINDINGS];
  fw_device_launch_t launch;
  if (!fw_engine_launch_init(&launch, t, data, stack))
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  /* Candidates of one kernel: the CPU's tuner says which one this run takes. */
  fw_module_t *m = t->module;
  fw_tune_state_t state;
  int64_t pick =
      m ? fw_engine_pick_variant(&m->tuner, t, (const void *const *)m->cpu_kernels, &state)
        : -1;
  if (pick >= 0) {
    t->cpu_variant = (uint32_t)pick;
    t->cpu_kernel = m->cpu_kernels[pick];
    t->cpu_split = m->md.variants[pick].workgroup_size[0] == 0;
    t->tune_state = (int)state;
  }
  launch.kernel.cpu = t->cpu_kernel;
  uint32_t error = 0; /* its kernel's failed check, if any (written atomically) */
  if (fw_engine_has_checks(t)) launch.error = &error;
  fw_device_t *device = t->runtime->cpu_device;
  double expected = t->cpu_split ? fw_scheduler_model_seconds(s, t, w) : 0;
  int divide = expected >= FW_SPLIT_MIN_SECONDS ? division_now(t) : 0;
  fw_status_t status =
      divide ? launch_split(s, w, t, &launch, divide == 2 || expected >= FW_SPLIT_WAKE_SECONDS)
             : device->vtable->launch(device, NULL, &launch);
  *workgroups = t->cpu_split ? s->num_cpu_workers : 1;
  fw_engine_launch_fini(&launch, stack);
  /* Every workgroup has ended (launch_split waits for its helpers). */
  if (status == FW_OK && error) status = fw_engine_check_failed(t, error);
  return status;
}

/* Runs a C task's body, or with `stream` its GPU implementation `gpu_fn`: given the
 * addresses of the task's accesses (data[i]: access i, merged), it gets those of its
 * description's (a contribution to a reduction: its accumulator). */
static fw_status_t run_body(fw_task_t *t, void *const *data, fw_task_gpu_fn_t gpu_fn,
                            void *stream, int *returned_error) {
  void *stack[16];
  void **user = (void **)data;
  size_t num = t->num_accesses;
  if (t->binding_access) {
    num = t->num_bindings;
    user = num <= 16 ? stack : calloc(num, sizeof(void *));
    if (!user)
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "task @%s: out of memory", t->name);
    for (size_t i = 0; i < num; ++i) {
      uint32_t a = t->binding_access[i];
      user[i] = a & FW_BINDING_REDUCE ? t->reduces[a & ~FW_BINDING_REDUCE].data : data[a];
    }
  }
  /* The body may submit tasks (the graph grows while it runs) but not wait for them, and
   * may fail its task (fw_task_fail). */
  fw_status_t status = FW_OK;
  tls_body = t;
  tls_fail = FW_OK;
  if (gpu_fn) status = gpu_fn(t->user_data, user, num, stream);
  else t->fn(t->user_data, user, num);
  if (returned_error) *returned_error = status != FW_OK;
  tls_body = NULL;
  if (tls_fail) {
    if (status) fw_status_free(tls_fail); /* what a GPU implementation returned stands */
    else status = fw_status_annotate(tls_fail, "task @%s", t->name);
    tls_fail = FW_OK;
  }
  if (user != data && user != stack) free(user);
  return status;
}

static fw_status_t run_fn(fw_task_t *t, void *const *data) {
  return run_body(t, data, NULL, NULL, NULL);
}

fw_status_t fw_engine_run_gpu_fn(fw_task_t *t, fw_task_gpu_fn_t fn, void *const *data,
                                 void *stream, int *returned_error) {
  return run_body(t, data, fn, stream, returned_error);
}

void fw_engine_record_run(fw_runtime_t *rt, fw_worker_t *w, fw_task_t *t, fw_status_t status,
                          const fw_run_record_t *r) {
  int cpu = w->kind == FW_TARGET_KIND_CPU;
  t->start_ns = r->start; /* counted by fw_scheduler_complete */
  t->end_ns = r->end;
  double seconds = (double)(r->end - r->start) * 1e-9;
  /* The trace shows what the runtime expected of the run before it counted. */
  double expected = rt->trace.enabled ? fw_scheduler_estimate(&rt->sched, t, w) : 0;
  if (status == FW_OK) {
    uint64_t bytes = fw_task_bytes(t);
    if (r->profiled) {
      const fw_md_variant_t *variant = NULL;
      if (t->module) variant = &t->module->md.variants[cpu ? t->cpu_variant : t->gpu_variant];
      fw_profile_record(&rt->profile, t->name,
                        variant ? t->module->md.targets[variant->target].arch : "",
                        variant ? variant->config : "",
                        (cpu ? t->tune_state : t->gpu_tune_state) == FW_TUNE_CHOSEN, w->kind,
                        r->workgroups, bytes, seconds, r->device_seconds, r->before, r->after,
                        r->moved);
    }
    fw_history_record(&rt->history, t->name, w->kind, bytes, seconds,
                      fw_scheduler_model_seconds(&rt->sched, t, w));
    if (cpu && t->tune_state == FW_TUNE_TRIAL)
      fw_tuner_record(&t->module->tuner, t->executable, bytes, t->cpu_variant, seconds);
    if (cpu && t->division_run)
      fw_division_record(&t->module->division, t->executable, bytes,
                         (fw_division_way_t)(t->division_run - 1), seconds);
    /* GPU candidates compare on the kernel's own time when events measured it. */
    if (!cpu && t->gpu_tune_state == FW_TUNE_TRIAL)
      fw_tuner_record(&t->module->gpu_tuners[w->device_index], t->executable, bytes,
                      t->gpu_variant, r->device_seconds > 0 ? r->device_seconds : seconds);
  }
  if (rt->trace.enabled) {
    if (r->stall_ns)
      fw_trace_add(&rt->trace, w->index, "wait for inputs", r->t0, r->t0 + r->stall_ns, 0);
    fw_trace_add_run(&rt->trace, w->index, t->name, fw_trace_task_id(t->seq), r->start, r->end,
                     expected, tls_helping);
  }
}

/* Runs `t` on CPU worker `w`, completes it and returns the worker's next task, if one is
 * ready. */
static fw_task_t *run_task(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t) {
  fw_runtime_t *rt = s->runtime;
  fw_status_t status = FW_OK;
  if (!t->cancelled) {
    void *stack[16];
    /* Its accesses' addresses, then those of its extra buffers (redux.c). */
    size_t taken = (size_t)t->num_accesses + t->num_reduces + t->num_extra;
    void **data = taken <= 16 ? stack : calloc(taken, sizeof(void *));
    if (t->num_reduces && data) status = fw_redux_prepare_accumulators(t, w);
    if (!data) {
      status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "task @%s: out of memory", t->name);
    } else if (status == FW_OK) {
      fw_run_record_t r;
      r.t0 = fw_now_ns();
      r.profiled = rt->profile.enabled;
      if (r.profiled) memset(r.moved, 0, sizeof(r.moved));
      status = fw_memory_acquire(&rt->memory, t, w->memory_node, data, &r.stall_ns,
                                 r.profiled ? r.moved : NULL);
      fw_memory_window_moved(&rt->memory);
      if (status == FW_OK) {
        if (r.profiled) {
          fw_profile_open_counters(&rt->profile, &w->counters);
          fw_profile_read(&rt->profile, &w->counters, r.before);
        }
        /* Inputs taken on the fast path (nothing to wait for or move) took nanoseconds:
         * the clock read before them stands for the start (small tasks pay for clock
         * reads). */
        int fast = !r.profiled && r.stall_ns == 0 &&
                   (t->num_accesses + t->num_extra == 0 || t->fast_memory);
        r.start = fast ? r.t0 : fw_now_ns();
        r.device_seconds = -1;
        r.workgroups = 0;
        if (t->num_reduces) status = fw_redux_take_accumulators(t, w, data);
        if (status == FW_OK)
          status = t->fn ? run_fn(t, data) : run_kernel(s, w, t, data, &r.workgroups);
        r.end = fw_now_ns();
        if (r.profiled) fw_profile_read(&rt->profile, &w->counters, r.after);
        fw_memory_release(&rt->memory, t, w->memory_node);
        fw_engine_record_run(rt, w, t, status, &r);
      }
    }
    if (data != stack) free(data);
  }
  return fw_scheduler_complete_and_next(s, t, w, status);
}

/* Runs `t` and the tasks that follow it on `w` (completing one pops the next). */
static void run_tasks(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t) {
  if (w->kind != FW_TARGET_KIND_CPU) {
    fw_gpu_worker_run(s, w, t);
    return;
  }
  while (t) t = run_task(s, w, t);
}

/* Not for a worker's thread or a task body (which never wait for tasks of their own
 * runtime anyway), nor while profiling (a worker's counters count its own thread). */
int fw_engine_may_help(const fw_scheduler_t *s) {
  const fw_runtime_t *rt = s->runtime;
  return s->engine_running && rt->caller_runs && !rt->profile.enabled && tls_owner != rt &&
         !tls_body;
}

uint64_t fw_engine_help(fw_scheduler_t *s, int (*ready)(void *), void *arg) {
  fw_runtime_t *rt = s->runtime;
  /* Two loads without the lock first: a waiter polls this while workers compute. */
  if (atomic_load_explicit(&s->num_lendable, memory_order_relaxed) == 0 ||
      atomic_load_explicit(&s->num_ready, memory_order_relaxed) == 0 || !fw_engine_may_help(s))
    return 0;
  fw_sched_lock(s);
  fw_task_t *t = NULL;
  fw_worker_t *w = fw_scheduler_lend(s, &t);
  fw_sched_unlock(s);
  if (!w) return 0;
  /* As the worker's own thread: a last reference to the runtime dropped here hands the
   * teardown to a thread of its own (which waits for the worker given back below). */
  fw_runtime_t *owner = tls_owner;
  tls_owner = rt;
  tls_helping = 1;
  uint64_t ran = 0;
  while (t) {
    t = run_task(s, w, t);
    ++ran;
    if (t && ready(arg)) break; /* done waiting: the worker's thread runs the rest */
  }
  tls_helping = 0;
  tls_owner = owner;
  fw_scheduler_give_back(s, w, t, ran);
  return ran;
}

static void *worker_main(void *arg) {
  fw_worker_t *w = arg;
  fw_scheduler_t *s = w->sched;
  tls_owner = s->runtime;
  fw_sched_lock(s);
  for (;;) {
    fw_task_t *t = fw_scheduler_pop_locked(s, w);
    if (t) {
      fw_sched_unlock(s);
      run_tasks(s, w, t);
      fw_sched_lock(s);
      continue;
    }
    if (s->shutdown) break;
    /* Poll the mailbox without the lock for a while, then sleep until a push wakes us.
     * The lock is taken again only when work was announced to this worker: idle workers
     * never hammer it while tasks meant for others are queued. */
    unsigned seen_mail = atomic_load_explicit(&w->mail, memory_order_relaxed);
    fw_sched_unlock(s);
    /* For the runtime's spin time (FW_DEFAULT_SPIN_US), helping divided kernels meanwhile. */
    uint64_t spin_ns = s->runtime->spin_ns;
    uint64_t until = fw_now_ns() + spin_ns;
    for (unsigned polls = 0;
         spin_ns && atomic_load_explicit(&w->mail, memory_order_acquire) == seen_mail;
         ++polls) {
      if (help_split(s, w)) {
        until = fw_now_ns() + spin_ns;
        continue;
      }
      if (!fw_poll_again(polls, until)) break;
    }
    fw_sched_lock(s);
    t = fw_scheduler_pop_locked(s, w);
    if (t) {
      fw_sched_unlock(s);
      run_tasks(s, w, t);
      fw_sched_lock(s);
      continue;
    }
    if (s->shutdown) break;
    fw_scheduler_sleep(s, w);
  }
  fw_sched_unlock(s);
  return NULL;
}

fw_status_t fw_engine_start(fw_scheduler_t *s) {
  for (size_t k = 0; k < s->num_workers; ++k) {
    if (pthread_create(&s->workers[k].thread, NULL, worker_main, &s->workers[k]) != 0) {
      s->num_workers = k; /* join the ones that started */
      fw_engine_stop(s);
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                            "cannot start CPU worker thread %zu", k);
    }
  }
  s->engine_running = 1;
  return FW_OK;
}

void fw_engine_stop(fw_scheduler_t *s) {
  fw_sched_lock(s);
  s->shutdown = 1;
  /* Told, so that one polling for work looks at once (not after its spin time). */
  for (size_t k = 0; k < s->num_workers; ++k) fw_scheduler_notify(s, &s->workers[k]);
  fw_sched_unlock(s);
  for (size_t k = 0; k < s->num_workers; ++k) pthread_join(s->workers[k].thread, NULL);
  s->engine_running = 0;
}
