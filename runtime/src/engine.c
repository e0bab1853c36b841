/* The threaded engine: one thread per CPU worker. A worker pops a task from the policy,
 * makes its buffers valid on its memory node, runs it, and completes it. */
#define _GNU_SOURCE
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

static fw_status_t run_kernel(fw_task_t *t, void *const *data) {
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
  launch.kernel.cpu = t->cpu_kernel;
  launch.num_bindings = t->num_bindings;
  launch.bindings = bindings;
  for (int k = 0; k < 3; ++k) launch.workgroup_count[k] = 1;
  fw_device_t *device = t->runtime->cpu_device;
  fw_status_t status = device->vtable->launch(device, NULL, &launch);
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
      status = fw_memory_acquire(&rt->memory, t, w->memory_node, data, &stall);
      fw_memory_window_moved(&rt->memory);
      if (status == FW_OK) {
        uint64_t start = fw_now_ns();
        if (t->fn) status = run_fn(t, data);
        else status = run_kernel(t, data);
        uint64_t end = fw_now_ns();
        fw_memory_release(&rt->memory, t, w->memory_node);
        t->start_ns = start; /* counted by fw_scheduler_complete */
        t->end_ns = end;
        if (status == FW_OK) {
          uint64_t bytes = 0;
          for (size_t i = 0; i < t->num_accesses; ++i)
            bytes += t->accesses[i].buffer->byte_size;
          fw_history_record(&rt->history, t->name, w->kind, bytes, (double)(end - start) * 1e-9);
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
  pthread_mutex_lock(&s->lock);
  for (;;) {
    fw_task_t *t = fw_scheduler_pop_locked(s, w);
    if (t) {
      pthread_mutex_unlock(&s->lock);
      while (t) t = run_task(s, w, t); /* completing one pops the next */
      pthread_mutex_lock(&s->lock);
      continue;
    }
    if (s->shutdown) break;
    /* Poll the mailbox without the lock for a while, then sleep until a push wakes us.
     * The lock is taken again only when work was announced to this worker: idle workers
     * never hammer it while tasks meant for others are queued. */
    unsigned seen_mail = atomic_load_explicit(&w->mail, memory_order_relaxed);
    pthread_mutex_unlock(&s->lock);
    uint64_t until = fw_now_ns() + FW_SPIN_NS;
    while (atomic_load_explicit(&w->mail, memory_order_acquire) == seen_mail &&
           fw_now_ns() < until) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&s->lock);
    t = fw_scheduler_pop_locked(s, w);
    if (t) {
      pthread_mutex_unlock(&s->lock);
      while (t) t = run_task(s, w, t);
      pthread_mutex_lock(&s->lock);
      continue;
    }
    if (s->shutdown) break;
    w->sleeping = 1;
    pthread_cond_wait(&w->cv, &s->lock);
    w->sleeping = 0;
  }
  pthread_mutex_unlock(&s->lock);
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
  pthread_mutex_lock(&s->lock);
  s->shutdown = 1;
  for (size_t k = 0; k < s->num_workers; ++k) pthread_cond_signal(&s->workers[k].cv);
  pthread_mutex_unlock(&s->lock);
  for (size_t k = 0; k < s->num_workers; ++k) pthread_join(s->workers[k].thread, NULL);
  s->engine_running = 0;
}
