/* The threaded engine: one thread per CPU worker and one per GPU. A worker pops a task
 * from the policy, makes its buffers valid on its memory node, runs it, and completes it;
 * a task that fails on a GPU goes back to the policy for another device. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "memory.h"
#include "runtime_internal.h"
#include "scheduler.h"
#include "status_internal.h"
#include "trace.h"

/* How long an idle worker polls for new work before it sleeps: short enough not to burn
 * a core, long enough that a stream of small tasks never pays for a wake-up. */
#define FW_SPIN_NS 50000ull

static _Thread_local fw_runtime_t *tls_owner;

int fw_runtime_is_own_thread(const fw_runtime_t *rt) { return tls_owner == rt; }
void fw_runtime_mark_own_thread(fw_runtime_t *rt) { tls_owner = rt; }

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
 * offered to idle workers; the owner claims workgroups too, so the launch completes even
 * when nobody helps. */
static fw_status_t launch_split(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t,
                                fw_device_launch_t *launch) {
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

/* Launches on GPU worker `w`; when profiling or `measure` (a trial of autotuning), between
 * two events on the kernel queue, whose elapsed time (the kernel on the device, without the
 * launch and synchronization around it) goes into `*device_seconds`. */
static fw_status_t launch_timed(fw_worker_t *w, fw_device_t *device,
                                const fw_device_launch_t *launch, int measure,
                                double *device_seconds) {
  const fw_device_vtable_t *vt = device->vtable;
  int timed = w->sched->runtime->profile.enabled || measure;
  for (int e = 0; timed && e < 2; ++e)
    if (!w->timing[e] && vt->event_create(device, &w->timing[e]) != FW_OK) {
      w->timing[e] = NULL; /* no timing, the launch still runs */
      timed = 0;
    }
  if (timed && vt->event_record(device, w->timing[0], NULL) != FW_OK) timed = 0;
  fw_status_t status = vt->launch(device, NULL, launch);
  if (status != FW_OK || !timed) return status;
  double seconds = 0;
  if (vt->event_record(device, w->timing[1], NULL) == FW_OK &&
      vt->event_synchronize(device, w->timing[1]) == FW_OK &&
      vt->event_elapsed(device, w->timing[0], w->timing[1], &seconds) == FW_OK)
    *device_seconds = seconds;
  return FW_OK;
}

/* The candidate `tuner` has a run of `t` take among the variants loaded where it runs
 * (`kernels`, per variant), and whether that run is a trial; -1 (and FW_TUNE_NONE) when the
 * executable has no candidates there. */
static int64_t pick_variant(fw_tuner_t *tuner, const fw_task_t *t, const void *const *kernels,
                            fw_tune_state_t *state) {
  *state = FW_TUNE_NONE;
  if (!fw_tuner_has_candidates(tuner, t->executable)) return -1;
  int64_t pick = fw_tuner_pick(tuner, t->executable, fw_task_bytes(t), state);
  if (pick >= 0 && kernels[pick]) return pick;
  *state = FW_TUNE_NONE;
  return -1;
}

/* Runs a kernel task on worker `w`; `*workgroups` gets how many workgroups a CPU run's
 * code divides it into: one per CPU worker for a kernel that divides its work (even when
 * no slot was free to offer them this time), 1 for one that runs whole. GPU runs leave it
 * alone. */
static fw_status_t run_kernel(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t,
                              void *const *data, double *device_seconds,
                              uint32_t *workgroups) {
  fw_device_binding_t stack[16];
  fw_device_binding_t *bindings = t->num_bindings <= 16 ? stack
                                  : calloc(t->num_bindings, sizeof(*bindings));
  if (!bindings) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < t->num_bindings; ++i) {
    uint32_t a = t->binding_access[i];
    bindings[i].data = data[a];
    bindings[i].rank = t->accesses[a].buffer->type.rank;
    bindings[i].dims = t->accesses[a].buffer->type.dims;
  }
  fw_device_launch_t launch;
  memset(&launch, 0, sizeof(launch));
  launch.num_bindings = t->num_bindings;
  launch.bindings = bindings;
  for (int k = 0; k < 3; ++k) launch.workgroup_count[k] = 1;
  fw_status_t status;
  if (w->kind == FW_TARGET_KIND_CPU) {
    /* Candidates of one kernel: the CPU's tuner says which one this run takes. */
    fw_module_t *m = t->module;
    fw_tune_state_t state;
    int64_t pick =
        m ? pick_variant(&m->tuner, t, (const void *const *)m->cpu_kernels, &state) : -1;
    if (pick >= 0) {
      t->cpu_variant = (uint32_t)pick;
      t->cpu_kernel = m->cpu_kernels[pick];
      t->cpu_split = m->md.variants[pick].workgroup_size[0] == 0;
      t->tune_state = (int)state;
    }
    launch.kernel.cpu = t->cpu_kernel;
    fw_device_t *device = t->runtime->cpu_device;
    status = t->cpu_split ? launch_split(s, w, t, &launch)
                          : device->vtable->launch(device, NULL, &launch);
    *workgroups = t->cpu_split ? s->num_cpu_workers : 1;
  } else {
    /* The GPU's own kernel for the executable (or the candidate its tuner picks), with
     * its variant's block shape; the device sizes the grid (the kernels walk their work
     * with a grid-stride loop). */
    fw_module_t *m = t->module;
    const fw_module_gpu_kernel_t *k = &m->gpu_kernels[w->device_index][t->executable];
    fw_tune_state_t state;
    int64_t pick = pick_variant(&m->gpu_tuners[w->device_index], t,
                                m->gpu_variant_kernels[w->device_index], &state);
    t->gpu_variant = pick >= 0 ? (uint32_t)pick : k->variant;
    t->gpu_tune_state = (int)state;
    const void *kernel = pick >= 0 ? m->gpu_variant_kernels[w->device_index][pick] : k->kernel;
    const fw_md_variant_t *variant = &m->md.variants[t->gpu_variant];
    launch.kernel.image = kernel;
    for (int d = 0; d < 3; ++d) launch.workgroup_size[d] = variant->workgroup_size[d];
    fw_device_t *device = t->runtime->devices[w->device_index];
    status = launch_timed(w, device, &launch, t->gpu_tune_state == FW_TUNE_TRIAL,
                          device_seconds);
    if (status != FW_OK)
      status = fw_status_annotate(status, "task @%s on %s", t->name,
                                  t->runtime->device_info[w->device_index].name);
  }
  if (bindings != stack) free(bindings);
  return status;
}

/* Runs a C task's body: data[i] is the address of access i of its description. */
static fw_status_t run_fn(fw_task_t *t, void *const *data) {
  if (!t->binding_access) {
    t->fn(t->user_data, data, t->num_accesses);
    return FW_OK;
  }
  void *stack[16];
  void **user = t->num_bindings <= 16 ? stack : calloc(t->num_bindings, sizeof(void *));
  if (!user) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "task @%s: out of memory", t->name);
  for (size_t i = 0; i < t->num_bindings; ++i) user[i] = data[t->binding_access[i]];
  t->fn(t->user_data, user, t->num_bindings);
  if (user != stack) free(user);
  return FW_OK;
}

/* A task failed on GPU worker `w` (its memory released): it goes back to the scheduler
 * for another device, which the trace shows with the reason. */
static fw_task_t *rerun(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t, fw_status_t status,
                        uint64_t since) {
  fw_runtime_t *rt = s->runtime;
  if (rt->trace.enabled) {
    char what[400];
    snprintf(what, sizeof(what), "failed, runs elsewhere: %s", fw_status_message(status));
    fw_trace_add(&rt->trace, w->index, what, since, fw_now_ns(), 0);
  }
  return fw_scheduler_rerun_and_next(s, t, w, status);
}

/* Runs `t`, completes it and returns the worker's next task, if one is ready. */
static fw_task_t *run_task(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t) {
  fw_runtime_t *rt = s->runtime;
  fw_status_t status = FW_OK;
  if (!t->cancelled) {
    void *stack[16];
    void **data = t->num_accesses <= 16 ? stack : calloc(t->num_accesses, sizeof(void *));
    if (!data) {
      status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "task @%s: out of memory", t->name);
    } else {
      uint64_t t0 = fw_now_ns(), stall = 0;
      uint64_t moved[FW_NUM_TIERS][FW_NUM_TIERS]; /* profiling only */
      if (rt->profile.enabled) memset(moved, 0, sizeof(moved));
      status = fw_memory_acquire(&rt->memory, t, w->memory_node, data, &stall,
                                 rt->profile.enabled ? moved : NULL);
      fw_memory_window_moved(&rt->memory);
      if (status != FW_OK && w->kind != FW_TARGET_KIND_CPU && fw_scheduler_can_rerun(t, w)) {
        /* The GPU could not take its inputs (full, or a failed copy): elsewhere. */
        if (data != stack) free(data);
        return rerun(s, w, t, status, t0);
      }
      if (status == FW_OK) {
        uint64_t before[FW_PROFILE_MAX_COUNTERS], after[FW_PROFILE_MAX_COUNTERS];
        if (rt->profile.enabled) {
          fw_profile_open_counters(&rt->profile, &w->counters);
          fw_profile_read(&rt->profile, &w->counters, before);
        }
        /* Inputs taken on the fast path (nothing to wait for or move) took nanoseconds:
         * the clock read before them stands for the start (small tasks pay for clock
         * reads). */
        int fast = !rt->profile.enabled && stall == 0 && (t->num_accesses == 0 || t->fast_memory);
        uint64_t start = fast ? t0 : fw_now_ns();
        double device_seconds = -1; /* GPU kernels, when profiling */
        uint32_t workgroups = 0;     /* CPU kernels */
        if (t->fn) status = run_fn(t, data);
        else status = run_kernel(s, w, t, data, &device_seconds, &workgroups);
        uint64_t end = fw_now_ns();
        uint64_t bytes = status == FW_OK ? fw_task_bytes(t) : 0;
        if (rt->profile.enabled && status == FW_OK) {
          fw_profile_read(&rt->profile, &w->counters, after);
          const fw_md_variant_t *variant = NULL;
          int cpu = w->kind == FW_TARGET_KIND_CPU;
          if (t->module)
            variant = &t->module->md.variants[cpu ? t->cpu_variant : t->gpu_variant];
          fw_profile_record(&rt->profile, t->name,
                            variant ? t->module->md.targets[variant->target].arch : "",
                            variant ? variant->config : "",
                            (cpu ? t->tune_state : t->gpu_tune_state) == FW_TUNE_CHOSEN,
                            w->kind, workgroups, bytes, (double)(end - start) * 1e-9,
                            device_seconds,
                            before, after, moved);
        }
        if (status != FW_OK && w->kind != FW_TARGET_KIND_CPU && fw_scheduler_can_rerun(t, w)) {
          fw_memory_release_failed(&rt->memory, t, w->memory_node);
          if (data != stack) free(data);
          return rerun(s, w, t, status, start);
        }
        if (w->kind != FW_TARGET_KIND_CPU) fw_scheduler_launch_succeeded(w);
        fw_memory_release(&rt->memory, t, w->memory_node);
        t->start_ns = start; /* counted by fw_scheduler_complete */
        t->end_ns = end;
        if (status == FW_OK) {
          fw_history_record(&rt->history, t->name, w->kind, bytes, (double)(end - start) * 1e-9);
          if (t->tune_state == FW_TUNE_TRIAL && w->kind == FW_TARGET_KIND_CPU)
            fw_tuner_record(&t->module->tuner, t->executable, bytes, t->cpu_variant,
                            (double)(end - start) * 1e-9);
          /* GPU candidates compare on the kernel's own time when events measured it. */
          if (t->gpu_tune_state == FW_TUNE_TRIAL && w->kind != FW_TARGET_KIND_CPU)
            fw_tuner_record(&t->module->gpu_tuners[w->device_index], t->executable, bytes,
                            t->gpu_variant,
                            device_seconds > 0 ? device_seconds : (double)(end - start) * 1e-9);
        }
        if (rt->trace.enabled) {
          if (stall) fw_trace_add(&rt->trace, w->index, "wait for inputs", t0, t0 + stall, 0);
          fw_trace_add(&rt->trace, w->index, t->name, start, end, 0);
        }
      }
      if (data != stack) free(data);
    }
  }
  return fw_scheduler_complete_and_next(s, t, w, status);
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
      while (t) t = run_task(s, w, t); /* completing one pops the next */
      fw_sched_lock(s);
      continue;
    }
    if (s->shutdown) break;
    /* Poll the mailbox without the lock for a while, then sleep until a push wakes us.
     * The lock is taken again only when work was announced to this worker: idle workers
     * never hammer it while tasks meant for others are queued. */
    unsigned seen_mail = atomic_load_explicit(&w->mail, memory_order_relaxed);
    fw_sched_unlock(s);
    /* The clock is read every 32 polls, not on each. */
    uint64_t until = fw_now_ns() + FW_SPIN_NS;
    for (unsigned polls = 0; atomic_load_explicit(&w->mail, memory_order_acquire) == seen_mail;
         ++polls) {
      if (help_split(s, w)) {
        until = fw_now_ns() + FW_SPIN_NS;
        continue;
      }
      if (polls % 32 == 31 && fw_now_ns() >= until) break;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    fw_sched_lock(s);
    t = fw_scheduler_pop_locked(s, w);
    if (t) {
      fw_sched_unlock(s);
      while (t) t = run_task(s, w, t);
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
  for (size_t k = 0; k < s->num_workers; ++k) fw_scheduler_wake(s, &s->workers[k]);
  fw_sched_unlock(s);
  for (size_t k = 0; k < s->num_workers; ++k) pthread_join(s->workers[k].thread, NULL);
  s->engine_running = 0;
}
