/* The public task API: fw_task_submit, fw_task_run, fw_task_fail, fw_task_is_done,
 * fw_task_wait, fw_runtime_wait_all, fw_runtime_in_task_body. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime_internal.h"
#include "status_internal.h"

/* fw_task_submit; `for_caller`: the calling thread waits for the task right after
 * (fw_task_run), so it is held and then released as a call's tasks are, to be run on the
 * calling thread rather than on a worker woken for it. The reference is always returned. */
static fw_status_t submit_task(fw_runtime_t *runtime, const fw_task_desc_t *desc, int for_caller,
                               fw_task_t **out_task) {
  *out_task = NULL;
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!desc) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "desc is NULL");
  const char *name = desc->name && *desc->name ? desc->name : "task";
  int any_fn = desc->fn || desc->cuda_fn || desc->hip_fn;
  if (!any_fn && !runtime->options.simulate)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "task '%s' has no function (fn, cuda_fn or hip_fn)", name);
  if (!(desc->flops >= 0) || !(desc->bytes >= 0) || !isfinite(desc->flops) ||
      !isfinite(desc->bytes) || desc->flops > 1e30 || desc->bytes > 1e30)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "task '%s': flops and bytes must be finite, non-negative and at most "
                          "1e30",
                          name);
  if (desc->num_after > 0 && !desc->after)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "task '%s': after is NULL", name);
  for (size_t i = 0; i < desc->num_after; ++i) {
    if (!desc->after[i])
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "task '%s': after[%zu] is NULL", name,
                            i);
    if (desc->after[i]->runtime != runtime)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "task '%s': after[%zu] (task '%s') belongs to another runtime", name,
                            i, desc->after[i]->name);
  }
  fw_task_t *task = NULL;
  fw_status_t status = fw_task_create(runtime, name, desc->accesses, desc->num_accesses, &task);
  if (status != FW_OK) return status;
  if (desc->num_after > 0) {
    /* References until it completes: the caller may release its handles at once, and
     * the edges are made when the task is inserted, maybe later (staged submission). */
    task->after = desc->num_after <= SIZE_MAX / sizeof(*task->after)
                      ? malloc(desc->num_after * sizeof(*task->after))
                      : NULL;
    if (!task->after) {
      fw_task_release(task);
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
    for (size_t i = 0; i < desc->num_after; ++i) {
      fw_task_retain(desc->after[i]);
      task->after[task->num_after++] = desc->after[i];
    }
  }
  if (task->num_accesses < desc->num_accesses) {
    /* Accesses to the same buffer were merged, or are contributions (whose map is in the
     * task's allocation): the body still gets data[i] for access i. */
    if (!task->binding_access)
      task->binding_access = calloc(desc->num_accesses, sizeof(*task->binding_access));
    if (!task->binding_access) {
      fw_task_release(task);
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
    for (size_t i = 0; i < desc->num_accesses; ++i) {
      uint32_t k = 0;
      if (desc->accesses[i].access == FW_ACCESS_REDUCE) {
        while (task->reduces[k].buffer != desc->accesses[i].buffer) ++k;
        task->binding_access[i] = FW_BINDING_REDUCE | k;
        continue;
      }
      while (task->accesses[k].buffer != desc->accesses[i].buffer) ++k;
      task->binding_access[i] = k;
    }
    task->num_bindings = desc->num_accesses;
  }
  task->fn = desc->fn;
  task->cuda_fn = desc->cuda_fn;
  task->hip_fn = desc->hip_fn;
  task->user_data = desc->user_data;
  task->priority = desc->priority;
  task->flops = desc->flops;
  task->bytes = desc->bytes;
  uint32_t kinds = (desc->fn ? 1u << FW_TARGET_KIND_CPU : 0) |
                   (desc->cuda_fn ? 1u << FW_TARGET_KIND_CUDA : 0) |
                   (desc->hip_fn ? 1u << FW_TARGET_KIND_HIP : 0);
  if (runtime->options.simulate) {
    /* Simulated devices of the kinds it has implementations for, and of every kind when
     * it has none (a task described by its costs alone). */
    task->kind_mask = kinds ? kinds
                            : (1u << FW_TARGET_KIND_CPU) | (1u << FW_TARGET_KIND_CUDA) |
                                  (1u << FW_TARGET_KIND_HIP);
  } else {
    /* Every GPU of a kind it has an implementation for runs it. */
    task->kind_mask = kinds;
    for (uint32_t d = 1; d < runtime->num_devices; ++d)
      if ((kinds >> runtime->devices[d]->vtable->target_kind) & 1u) task->gpu_mask |= 1u << d;
    task->prefer_mask = runtime->prefer_kinds & kinds;
  }
  for (size_t i = 0; i < task->num_accesses; ++i)
    fw_memory_unmap(&runtime->memory, task->accesses[i].buffer);
  for (uint32_t r = 0; r < task->num_reduces; ++r)
    fw_memory_unmap(&runtime->memory, task->reduces[r].buffer);
  /* A simulation holds its tasks until it runs, so that upward ranks are computed over
   * everything submitted (nothing would have run before in virtual time anyway). */
  int simulated = runtime->options.simulate != NULL;
  if (simulated && !fw_simulator_hold(&runtime->sched, task)) {
    fw_task_release(task);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  /* Submitted: from here on the task owns user_data. */
  task->release_user_data = desc->release_user_data;
  task->on_done = desc->on_done;
  int held_for_caller = for_caller && !simulated;
  fw_scheduler_submit(&runtime->sched, task, &runtime->sched.api_group,
                      simulated || held_for_caller);
  if (held_for_caller) fw_scheduler_release_held(&runtime->sched, &task, 1, 1);
  *out_task = task;
  return FW_OK;
}

/* Flow control (FW_MAX_SUBMITTED_TASKS): past the maximum, the submitting thread waits
 * until the tasks in flight are down to the minimum. Never on one of the runtime's own
 * threads (a worker, or a thread running tasks in a worker's place: in a task body, or
 * in a release_user_data run as a task completes), whose worker the tasks may need, nor
 * in a simulation, whose tasks run only when it is waited for. */
static void throttle(fw_runtime_t *rt) {
  fw_scheduler_t *s = &rt->sched;
  if (!rt->submit_max || rt->options.simulate ||
      atomic_load_explicit(&s->outstanding, memory_order_relaxed) <= rt->submit_max ||
      fw_runtime_is_own_thread(rt) || fw_engine_in_on_done(rt))
    return;
  uint64_t start = fw_now_ns();
  fw_scheduler_wait_below(s, rt->submit_resume);
  uint64_t waited = fw_now_ns() - start;
  fw_sched_lock(s);
  ++s->submit_waits;
  s->submit_wait_ns += waited;
  fw_sched_unlock(s);
}

fw_status_t fw_task_submit(fw_runtime_t *runtime, const fw_task_desc_t *desc,
                           fw_task_t **out_task) {
  fw_task_t *task = NULL;
  fw_status_t status = submit_task(runtime, desc, 0, &task);
  if (out_task) *out_task = task;
  else fw_task_release(task);
  if (status == FW_OK) throttle(runtime);
  return status;
}

fw_status_t fw_task_run(fw_runtime_t *runtime, const fw_task_desc_t *desc) {
  /* Refused before anything is submitted: from a body the wait could never end. */
  fw_status_t status = runtime ? fw_engine_check_wait(runtime, "fw_task_run") : FW_OK;
  fw_task_t *task = NULL;
  if (status == FW_OK) status = submit_task(runtime, desc, 1, &task);
  if (status != FW_OK) {
    /* Not submitted: user_data is still the caller's, and fw_task_run takes it over. */
    if (desc && desc->release_user_data) desc->release_user_data(desc->user_data);
    return status;
  }
  status = fw_task_wait(task);
  fw_task_release(task);
  return status;
}

int fw_runtime_in_task_body(const fw_runtime_t *runtime) {
  return runtime && fw_engine_in_body(runtime);
}

fw_status_t fw_task_fail(fw_status_t status) { return fw_engine_fail_body(status); }

int fw_task_is_done(const fw_task_t *task) {
  if (!task) return 1;
  return atomic_load_explicit(&((fw_task_t *)task)->done, memory_order_acquire);
}

fw_status_t fw_task_wait(fw_task_t *task) {
  if (!task) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "task is NULL");
  fw_status_t refused = fw_engine_check_wait(task->runtime, "fw_task_wait");
  if (refused != FW_OK) return refused;
  fw_scheduler_t *s = &task->runtime->sched;
  fw_scheduler_wait_task(s, task);
  fw_sched_lock(s);
  fw_status_t status = task->status == FW_OK
                           ? FW_OK
                           : fw_status_create(fw_status_code(task->status),
                                              fw_status_message(task->status));
  fw_sched_unlock(s);
  return status;
}

fw_status_t fw_runtime_wait_all(fw_runtime_t *runtime) {
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  fw_status_t refused = fw_engine_check_wait(runtime, "fw_runtime_wait_all");
  if (refused != FW_OK) return refused;
  fw_scheduler_t *s = &runtime->sched;
  fw_scheduler_wait_group(s, NULL);
  fw_sched_lock(s);
  fw_status_t status = s->api_group.status;
  s->api_group.status = FW_OK;
  fw_sched_unlock(s);
  return status;
}
