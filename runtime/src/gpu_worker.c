/* GPU workers: one thread per GPU launches its tasks' kernels on a queue of its own and
 * keeps up to FW_GPU_PIPELINE of them launched at a time, as StarPU's CUDA workers do:
 * while the GPU runs one kernel the next waits on the queue, so the GPU does not idle
 * while its worker completes a task, takes the next one's buffers and launches it.
 *
 * A task stays pinned where it runs (fw_memory_acquire) from before its launch until its
 * kernel is seen complete, when its outputs become valid there (fw_memory_release) and
 * its successors ready; tasks complete in the order they were launched. Every task in
 * flight was ready when it was taken, so none depends on another in flight. The next task
 * is launched early only when its buffers can be taken without waiting: one whose inputs
 * must still move has them start moving on the prefetch threads while the kernels in
 * flight keep the GPU busy, completes those seen to end meanwhile, and launches behind
 * the others once its inputs are there. One that needs room the tasks in flight hold (or
 * whose inputs cannot start moving: prefetch off, memory contended) waits for those tasks
 * to complete and is then taken like any task. A kernel that fails, at launch or when it
 * is seen complete, gives its task back to the scheduler for another device. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "memory.h"
#include "redux.h"
#include "status_internal.h"
#include "trace.h"

typedef struct fw_gpu_slot_t {
  fw_task_t *task;
  fw_run_record_t run; /* start: its launch, until it is seen complete */
  /* Events on the worker's queue: around the kernel when it is timed (a profile, an
   * autotuning trial), and after it in any case; made on first use, kept for the next. */
  fw_device_event_t *begin, *end;
  int timed, end_recorded;
} fw_gpu_slot_t;

typedef struct fw_gpu_worker_t {
  fw_device_t *device;
  fw_device_queue_t *queue; /* NULL: the device's default queue, where each launch waits */
  uint32_t depth;
  fw_gpu_slot_t slots[FW_MAX_GPU_PIPELINE]; /* in flight: [head, head + count), a ring */
  uint32_t head, count;
  uint64_t last_end; /* when the last task seen complete was */
  /* The error words of kernels that check what they compute, one per slot: pinned host
   * memory (alloc_host), which the GPU writes through the same address (unified
   * addressing); made for the first such task. */
  uint32_t *errors;
} fw_gpu_worker_t;

/* The worker's state, made on its first task (on its own thread, where the device's
 * context is current); NULL when out of memory. */
static fw_gpu_worker_t *state(fw_scheduler_t *s, fw_worker_t *w) {
  if (w->gpu) return w->gpu;
  fw_runtime_t *rt = s->runtime;
  fw_gpu_worker_t *g = calloc(1, sizeof(*g));
  if (!g) return NULL;
  g->device = rt->devices[w->device_index];
  /* A profile reads the thread's counters around each run: one run at a time. */
  g->depth = rt->profile.enabled ? 1 : rt->gpu_pipeline; /* 1..FW_MAX_GPU_PIPELINE */
  fw_status_t status = g->device->vtable->queue_create(g->device, &g->queue);
  if (status != FW_OK) { /* the default queue, one launch at a time */
    fw_status_free(status);
    g->queue = NULL;
    g->depth = 1;
  }
  w->gpu = g;
  return g;
}

void fw_gpu_worker_fini(fw_worker_t *w) {
  fw_gpu_worker_t *g = w->gpu;
  if (!g) return;
  const fw_device_vtable_t *vt = g->device->vtable;
  for (uint32_t i = 0; i < FW_MAX_GPU_PIPELINE; ++i) {
    if (g->slots[i].begin) vt->event_destroy(g->device, g->slots[i].begin);
    if (g->slots[i].end) vt->event_destroy(g->device, g->slots[i].end);
  }
  if (g->queue) vt->queue_destroy(g->device, g->queue);
  if (g->errors) vt->free_host(g->device, g->errors);
  free(g);
  w->gpu = NULL;
}

/* Records `*event` (made first when missing) on the worker's queue; 0 when it cannot. */
static int record(fw_gpu_worker_t *g, fw_device_event_t **event) {
  const fw_device_vtable_t *vt = g->device->vtable;
  fw_status_t status = FW_OK;
  if (!*event) status = vt->event_create(g->device, event);
  if (status == FW_OK) status = vt->event_record(g->device, *event, g->queue);
  if (status == FW_OK) return 1;
  fw_status_free(status);
  return 0;
}

/* Enqueues C task `t`'s GPU implementation: it gets the worker's stream and enqueues its
 * work there, and the event after that work is the task's end as after a kernel. An
 * error it returns is a failed launch. */
static fw_status_t launch_fn(fw_runtime_t *rt, fw_worker_t *w, fw_gpu_worker_t *g,
                             fw_task_t *t, void *const *data, fw_gpu_slot_t *slot) {
  fw_task_gpu_fn_t fn = w->kind == FW_TARGET_KIND_CUDA ? t->cuda_fn : t->hip_fn;
  if (!fn) /* kind_mask keeps such tasks off this worker */
    return fw_status_make(FW_STATUS_INTERNAL, "task @%s has no implementation for %s",
                          t->name, rt->device_info[w->device_index].name);
  void *stream = NULL;
  fw_status_t status = g->device->vtable->queue_native(g->device, g->queue, &stream);
  slot->timed = status == FW_OK && rt->profile.enabled && record(g, &slot->begin);
  int refused = 1;
  if (status == FW_OK) status = fw_engine_run_gpu_fn(t, fn, data, stream, &refused);
  /* A contribution's GPU accumulator is untouched when its launch was refused (the
   * implementation returned an error, having enqueued nothing: the task may run again
   * elsewhere); else what it enqueued may add into it (fw_task_fail after enqueueing
   * too: the task fails rather than count its part twice). */
  if (t->num_reduces) {
    if (status != FW_OK && refused) fw_redux_launch_refused(t);
    else fw_redux_launched(t);
  }
  slot->end_recorded = status == FW_OK && record(g, &slot->end);
  /* fw_task_fail after enqueueing: that work may still run on the buffers (and a
   * contribution's accumulator) that failing the task lets go; it ends first. */
  if (status != FW_OK && !refused)
    fw_status_free(g->device->vtable->queue_synchronize(g->device, g->queue));
  if (status != FW_OK)
    status = fw_status_annotate(status, "task @%s on %s", t->name,
                                rt->device_info[w->device_index].name);
  return status;
}

/* Launches `t` (access i at data[i]) on the worker's queue: the GPU's own kernel for the
 * executable, or the candidate its tuner picks, with its variant's block shape (the
 * device sizes the grid: the kernels walk their work with a grid-stride loop). */
static fw_status_t launch(fw_runtime_t *rt, fw_worker_t *w, fw_gpu_worker_t *g, fw_task_t *t,
                          void *const *data, fw_gpu_slot_t *slot) {
  if (!t->module) return launch_fn(rt, w, g, t, data, slot);
  fw_device_binding_t stack[FW_ENGINE_STACK_BINDINGS];
  fw_device_launch_t launch;
  if (!fw_engine_launch_init(&launch, t, data, stack))
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  fw_module_t *m = t->module;
  const fw_module_gpu_kernel_t *k = &m->gpu_kernels[w->device_index][t->executable];
  fw_tune_state_t state;
  int64_t pick = fw_engine_pick_variant(&m->gpu_tuners[w->device_index], t,
                                        m->gpu_variant_kernels[w->device_index], &state);
  t->gpu_variant = pick >= 0 ? (uint32_t)pick : k->variant;
  t->gpu_tune_state = (int)state;
  launch.kernel.image = pick >= 0 ? m->gpu_variant_kernels[w->device_index][pick] : k->kernel;
  const fw_md_variant_t *variant = &m->md.variants[t->gpu_variant];
  for (int d = 0; d < 3; ++d) launch.workgroup_size[d] = variant->workgroup_size[d];
  if (fw_engine_has_checks(t)) {
    fw_status_t status = FW_OK;
    if (!g->errors)
      status = g->device->vtable->alloc_host(g->device, FW_MAX_GPU_PIPELINE * sizeof(uint32_t),
                                             (void **)&g->errors);
    if (status != FW_OK) {
      g->errors = NULL;
      fw_engine_launch_fini(&launch, stack);
      return fw_status_annotate(status, "task @%s on %s: no error word for its kernel",
                                t->name, rt->device_info[w->device_index].name);
    }
    launch.error = &g->errors[slot - g->slots];
    *(volatile uint32_t *)launch.error = 0;
  }
  /* A profile wants the kernel's own time, and candidates compare on it: events around
   * the kernel (without the launch and the wait around it). */
  slot->timed = (rt->profile.enabled || state == FW_TUNE_TRIAL) && record(g, &slot->begin);
  fw_status_t status = g->device->vtable->launch(g->device, g->queue, &launch);
  slot->end_recorded = status == FW_OK && record(g, &slot->end);
  fw_engine_launch_fini(&launch, stack);
  if (status != FW_OK)
    status = fw_status_annotate(status, "task @%s on %s", t->name,
                                rt->device_info[w->device_index].name);
  return status;
}

/* `t` failed on `w` (its buffers released): another device runs it if one can, else it
 * completes with the error; the trace shows the attempt with the reason either way.
 * With `pop`, returns the worker's next task (else NULL: the worker has kernels in flight
 * to complete first, and would drop a task taken now). */
static fw_task_t *failed(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t, fw_status_t status,
                         uint64_t since, int pop) {
  int rerun = fw_scheduler_trace_failure(s, t, w, status, since, fw_now_ns());
  if (pop)
    return rerun ? fw_scheduler_rerun_and_next(s, t, w, status)
                 : fw_scheduler_complete_and_next(s, t, w, status);
  if (rerun) fw_scheduler_rerun(s, t, w, status);
  else fw_scheduler_complete(s, t, w, status);
  return NULL;
}

typedef enum { LAUNCHED, DONE, REFUSED } begin_result_t;

/* Takes `t`'s buffers and launches it. With `nowait` (kernels in flight), only when its
 * buffers can be taken at once (REFUSED, nothing done, when not). DONE: it completed or
 * went elsewhere without a launch here, and `*next` is the worker's next task. */
static begin_result_t begin(fw_scheduler_t *s, fw_worker_t *w, fw_gpu_worker_t *g,
                            fw_task_t *t, int nowait, fw_task_t **next) {
  fw_runtime_t *rt = s->runtime;
  *next = NULL;
  if (t->cancelled) {
    *next = fw_scheduler_complete_and_next(s, t, w, FW_OK);
    return DONE;
  }
  void *stack[16];
  /* Its accesses' addresses, then those of its accumulators (redux.c). */
  size_t taken = (size_t)t->num_accesses + t->num_reduces;
  void **data = taken <= 16 ? stack : calloc(taken, sizeof(void *));
  if (!data) {
    *next = fw_scheduler_complete_and_next(
        s, t, w, fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "task @%s: out of memory", t->name));
    return DONE;
  }
  fw_gpu_slot_t *slot = &g->slots[(g->head + g->count) % FW_MAX_GPU_PIPELINE];
  fw_run_record_t *r = &slot->run;
  r->t0 = fw_now_ns();
  r->stall_ns = 0;
  r->device_seconds = -1;
  r->workgroups = 0;
  r->profiled = rt->profile.enabled;
  if (r->profiled) memset(r->moved, 0, sizeof(r->moved));
  fw_status_t status = t->num_reduces ? fw_redux_prepare_accumulators(t, w) : FW_OK;
  if (status == FW_OK && nowait) {
    int taken = 0;
    status = fw_memory_try_acquire(&rt->memory, t, w->memory_node, data, &taken);
    if (status == FW_OK && !taken) {
      if (data != stack) free(data);
      return REFUSED;
    }
  } else if (status == FW_OK) {
    status = fw_memory_acquire(&rt->memory, t, w->memory_node, data, &r->stall_ns,
                               r->profiled ? r->moved : NULL);
  }
  fw_memory_window_moved(&rt->memory);
  if (status == FW_OK) {
    if (r->profiled) {
      fw_profile_open_counters(&rt->profile, &w->counters);
      fw_profile_read(&rt->profile, &w->counters, r->before);
    }
    r->start = fw_now_ns();
    if (t->num_reduces) status = fw_redux_take_accumulators(t, w, data);
    if (status == FW_OK) status = launch(rt, w, g, t, data, slot);
    else fw_redux_launch_refused(t); /* no accumulator for it: nothing launched */
    if (status != FW_OK) fw_memory_release_failed(&rt->memory, t, w->memory_node);
  }
  if (data != stack) free(data);
  if (status != FW_OK) {
    *next = failed(s, w, t, status, r->t0, 1);
    return DONE;
  }
  slot->task = t;
  ++g->count;
  ++w->in_flight;
  return LAUNCHED;
}

/* Waits for the oldest task in flight and completes it (or gives it to another device when
 * its kernel failed); with `pop`, returns the worker's next task. */
static fw_task_t *finish_oldest(fw_scheduler_t *s, fw_worker_t *w, fw_gpu_worker_t *g,
                                int pop) {
  fw_runtime_t *rt = s->runtime;
  const fw_device_vtable_t *vt = g->device->vtable;
  fw_gpu_slot_t *slot = &g->slots[g->head];
  fw_task_t *t = slot->task;
  fw_run_record_t *r = &slot->run;
  fw_status_t status = slot->end_recorded ? vt->event_synchronize(g->device, slot->end)
                                          : vt->queue_synchronize(g->device, g->queue);
  /* It ran from its launch, or from when the kernel before it was seen to end. */
  r->end = fw_now_ns();
  if (r->start < g->last_end) r->start = g->last_end;
  g->last_end = r->end;
  slot->task = NULL;
  g->head = (g->head + 1) % FW_MAX_GPU_PIPELINE;
  --g->count;
  --w->in_flight;
  if (status == FW_OK && slot->timed) {
    double seconds = 0;
    fw_status_t timing = vt->event_elapsed(g->device, slot->begin, slot->end, &seconds);
    if (timing == FW_OK) r->device_seconds = seconds;
    fw_status_free(timing);
  }
  if (r->profiled) fw_profile_read(&rt->profile, &w->counters, r->after);
  if (status != FW_OK) {
    status = fw_status_annotate(status, "task @%s on %s", t->name,
                                rt->device_info[w->device_index].name);
    fw_memory_release_failed(&rt->memory, t, w->memory_node);
    return failed(s, w, t, status, r->start, pop);
  }
  fw_scheduler_launch_succeeded(w);
  /* A failed check of its kernel fails the task wherever it runs: no other device. */
  uint32_t word = fw_engine_has_checks(t) ? g->errors[slot - g->slots] : 0;
  if (word) {
    status = fw_engine_check_failed(t, word);
    fw_memory_release_failed(&rt->memory, t, w->memory_node);
    if (pop) return fw_scheduler_complete_and_next(s, t, w, status);
    fw_scheduler_complete(s, t, w, status);
    return NULL;
  }
  fw_memory_release(&rt->memory, t, w->memory_node);
  fw_engine_record_run(rt, w, t, FW_OK, r);
  if (pop) return fw_scheduler_complete_and_next(s, t, w, FW_OK);
  fw_scheduler_complete(s, t, w, FW_OK);
  return NULL;
}

/* Whether the oldest kernel in flight is seen to have ended, without waiting: 1 or 0, and
 * -1 when the worker cannot tell (no event after it: finish_oldest waits for its queue). */
static int oldest_ended(fw_gpu_worker_t *g) {
  fw_gpu_slot_t *slot = &g->slots[g->head];
  if (!slot->end_recorded) return -1;
  return g->device->vtable->event_is_complete(g->device, slot->end);
}

/* How long a worker waiting for inputs lets the kernels in flight be before it looks at
 * them again: until the oldest is expected to end, within [20 us, 1 ms]. */
static uint64_t look_again_ns(const fw_gpu_worker_t *g) {
  const fw_gpu_slot_t *slot = &g->slots[g->head];
  double end = (double)slot->run.start + slot->task->expected_seconds * 1e9;
  double left = end - (double)fw_now_ns();
  return left < 20e3 ? 20000u : left > 1e6 ? 1000000u : (uint64_t)left;
}

/* `t`'s inputs are on their way (prefetch threads): while kernels are in flight, it is
 * launched behind them as soon as its buffers can be taken, and those seen to end
 * meanwhile complete. REFUSED when the kernels in flight all completed first (or the
 * worker cannot tell when they end): it is then taken like any task. */
static begin_result_t begin_when_inputs_land(fw_scheduler_t *s, fw_worker_t *w,
                                             fw_gpu_worker_t *g, fw_task_t *t,
                                             fw_task_t **next) {
  fw_memory_t *m = &s->runtime->memory;
  while (g->count) {
    int ended = oldest_ended(g);
    if (ended < 0) break;
    if (ended) {
      finish_oldest(s, w, g, 0);
      continue;
    }
    uint64_t seen = fw_memory_changes(m);
    begin_result_t result = begin(s, w, g, t, 1, next);
    if (result != REFUSED) return result;
    fw_memory_wait_change(m, seen, look_again_ns(g));
  }
  return REFUSED;
}

void fw_gpu_worker_run(fw_scheduler_t *s, fw_worker_t *w, fw_task_t *t) {
  fw_gpu_worker_t *g = state(s, w);
  if (!g) {
    while (t)
      t = failed(s, w, t,
                 fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "task @%s: out of memory for "
                                "the GPU worker", t->name),
                 fw_now_ns(), 1);
    return;
  }
  for (;;) {
    while (t) {
      fw_task_t *next = NULL;
      begin_result_t result = begin(s, w, g, t, g->count > 0, &next);
      if (result == REFUSED && fw_scheduler_prefetch_inputs(s, t, w->memory_node))
        result = begin_when_inputs_land(s, w, g, t, &next);
      if (result == REFUSED) {
        /* It needs room the tasks in flight may hold, or its inputs could not start
         * moving: those complete first, then it takes its buffers like any task. */
        while (g->count) finish_oldest(s, w, g, 0);
        continue;
      }
      t = next;
      if (!t && result == LAUNCHED && g->count < g->depth) t = fw_scheduler_pop(s, w);
    }
    if (!g->count) return;
    t = finish_oldest(s, w, g, 1);
  }
}
