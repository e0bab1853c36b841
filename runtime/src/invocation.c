/* Calling module functions: fw_module_call and the host-call ABI (fw_rt_*) that compiled
 * host code calls back into. They live in one translation unit so that linking the static
 * library for fw_module_call always brings in every fw_rt_* symbol. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"
#include "status_internal.h"

struct fw_invocation_t {
  fw_module_t *module;
  const fw_md_function_t *function;
  fw_call_t *call;
  fw_buffer_t *const *args;
  size_t num_args;
  fw_buffer_t **results; /* one reference each, set by fw_rt_set_result */
  size_t num_results;
  fw_buffer_t **allocs; /* the code's references; NULL once released */
  size_t num_allocs, cap_allocs;
  /* The dispatched tasks (their tokens), one reference each; those from `first_held` on
   * have not been released to the scheduler yet. */
  fw_task_t **tasks;
  size_t num_tasks, cap_tasks, first_held;
  fw_status_t status; /* sticky: the first error */
};

/* Records the first error of the invocation; later errors are dropped. */
static void inv_fail(fw_invocation_t *inv, fw_status_code_t code, const char *format, ...)
    FW_PRINTF(3, 4);
static void inv_fail(fw_invocation_t *inv, fw_status_code_t code, const char *format, ...) {
  if (inv->status != FW_OK) return;
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  inv->status = fw_status_make(code, "in @%s: %s", inv->function->name, message);
}

static void inv_set_status(fw_invocation_t *inv, fw_status_t status) {
  if (status == FW_OK) return;
  if (inv->status != FW_OK) {
    fw_status_free(status);
    return;
  }
  inv->status = fw_status_annotate(status, "in @%s", inv->function->name);
}

/* Maps a handle from compiled code to a live buffer of this invocation (an argument or a
 * buffer allocated through it and not yet released); NULL otherwise. */
static fw_buffer_t *inv_find(const fw_invocation_t *inv, void *handle) {
  if (handle) {
    for (size_t i = 0; i < inv->num_args; ++i)
      if ((void *)inv->args[i] == handle) return inv->args[i];
    for (size_t i = 0; i < inv->num_allocs; ++i)
      if (inv->allocs[i] && (void *)inv->allocs[i] == handle) return inv->allocs[i];
  }
  return NULL;
}

/* inv_find, recording an error named `what` when the handle is not one. */
static fw_buffer_t *inv_lookup(fw_invocation_t *inv, void *handle, const char *what) {
  fw_buffer_t *b = inv_find(inv, handle);
  if (!b) inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "%s: invalid buffer handle %p", what, handle);
  return b;
}

/* ---- Host call ABI ---------------------------------------------------------- */

void *fw_rt_arg(fw_invocation_t *inv, int64_t index) {
  if (!inv || inv->status) return NULL;
  if (index < 0 || (uint64_t)index >= inv->num_args) {
    inv_fail(inv, FW_STATUS_OUT_OF_RANGE, "fw_rt_arg: argument index %lld is out of range (%zu arguments)",
             (long long)index, inv->num_args);
    return NULL;
  }
  return inv->args[index];
}

int64_t fw_rt_buffer_dim(fw_invocation_t *inv, void *buffer, int64_t dim) {
  if (!inv || inv->status) return 0;
  fw_buffer_t *b = inv_lookup(inv, buffer, "fw_rt_buffer_dim");
  if (!b) return 0;
  if (dim < 0 || (uint64_t)dim >= b->type.rank) {
    inv_fail(inv, FW_STATUS_OUT_OF_RANGE,
             "fw_rt_buffer_dim: dimension %lld is out of range for a rank-%u buffer",
             (long long)dim, b->type.rank);
    return 0;
  }
  return b->type.dims[dim];
}

void *fw_rt_buffer_alloc(fw_invocation_t *inv, int32_t tier, int32_t element_type,
                         int64_t rank, const int64_t *dims) {
  if (!inv || inv->status) return NULL;
  if (tier < 0 || tier > 2) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_buffer_alloc: unknown memory tier %d",
             (int)tier);
    return NULL;
  }
  if (rank < 0 || rank > FW_MAX_RANK) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_buffer_alloc: rank %lld is out of range",
             (long long)rank);
    return NULL;
  }
  if (inv->num_allocs == inv->cap_allocs) {
    size_t cap = inv->cap_allocs ? inv->cap_allocs * 2 : 16;
    fw_buffer_t **grown = realloc(inv->allocs, cap * sizeof(*grown));
    if (!grown) {
      inv_fail(inv, FW_STATUS_RESOURCE_EXHAUSTED, "fw_rt_buffer_alloc: out of memory");
      return NULL;
    }
    inv->allocs = grown;
    inv->cap_allocs = cap;
  }
  fw_buffer_t *b = NULL;
  fw_status_t status = fw_buffer_allocate(inv->module->runtime,
                                          (fw_element_type_t)element_type, (size_t)rank,
                                          dims, &b);
  if (status != FW_OK) {
    inv_set_status(inv, fw_status_annotate(status, "fw_rt_buffer_alloc"));
    return NULL;
  }
  inv->allocs[inv->num_allocs++] = b;
  return b;
}

void fw_rt_buffer_release(fw_invocation_t *inv, void *buffer) {
  if (!inv || inv->status) return;
  for (size_t i = 0; buffer && i < inv->num_allocs; ++i) {
    if ((void *)inv->allocs[i] == buffer) {
      fw_buffer_release(inv->allocs[i]);
      inv->allocs[i] = NULL;
      return;
    }
  }
  inv_fail(inv, FW_STATUS_INVALID_ARGUMENT,
           "fw_rt_buffer_release: %p is not a live buffer allocated by this invocation", buffer);
}

/* The executable's operation count on this dispatch's buffers: the compiler's static
 * estimate plus its terms in the bindings' dims (a dynamic shape's count). */
static double dispatch_flops(const fw_metadata_t *md, const fw_md_executable_t *e,
                             const fw_task_t *task) {
  double flops = (double)e->cost_flops;
  for (uint32_t i = 0; i < e->num_cost_terms; ++i) {
    const fw_md_cost_term_t *t = &md->cost_terms[e->first_cost_term + i];
    double term = (double)t->coefficient;
    for (uint32_t k = 0; k < t->num_factors; ++k) {
      const fw_buffer_t *b = task->accesses[task->binding_access[t->binding[k]]].buffer;
      term *= (double)b->type.dims[t->dim[k]];
    }
    flops += term;
  }
  return flops;
}

/* The dispatched task whose token `token` is, or NULL. */
static fw_task_t *inv_task(const fw_invocation_t *inv, const void *token) {
  for (size_t i = 0; token && i < inv->num_tasks; ++i)
    if ((const void *)inv->tasks[i] == token) return inv->tasks[i];
  return NULL;
}

/* The tasks of the tokens `after` names, one reference each in a new array (the task's
 * `after`); NULL, with the invocation's error recorded, when one is not a token of this
 * invocation or memory runs out. */
static fw_task_t **dispatch_after(fw_invocation_t *inv, const fw_md_executable_t *e,
                                  int64_t num_after, void *const *after) {
  if (num_after < 0 || (num_after > 0 && !after) ||
      (uint64_t)num_after > SIZE_MAX / sizeof(fw_task_t *)) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "dispatch of @%s: invalid token list (%lld tokens)",
             e->name, (long long)num_after);
    return NULL;
  }
  fw_task_t **tasks = malloc((size_t)num_after * sizeof(*tasks));
  if (!tasks) {
    inv_fail(inv, FW_STATUS_RESOURCE_EXHAUSTED, "dispatch of @%s: out of memory", e->name);
    return NULL;
  }
  for (int64_t i = 0; i < num_after; ++i) {
    if ((tasks[i] = inv_task(inv, after[i]))) continue;
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "dispatch of @%s: after %lld: invalid token %p",
             e->name, (long long)i, after[i]);
    free(tasks);
    return NULL;
  }
  for (int64_t i = 0; i < num_after; ++i) fw_task_retain(tasks[i]);
  return tasks;
}

/* fw_rt_dispatch, after the tasks of `num_after` tokens too; `fn` names the entry point
 * in errors. */
static fw_task_t *dispatch(fw_invocation_t *inv, const char *fn, int64_t executable,
                           int64_t num_buffers, void *const *buffers, int64_t num_after,
                           void *const *after) {
  if (!inv || inv->status) return NULL;
  const fw_metadata_t *md = &inv->module->md;
  if (executable < 0 || (uint64_t)executable >= md->num_executables) {
    inv_fail(inv, FW_STATUS_OUT_OF_RANGE,
             "%s: executable index %lld is out of range (%zu executables)", fn,
             (long long)executable, md->num_executables);
    return NULL;
  }
  const fw_md_executable_t *e = &md->executables[executable];
  if (num_buffers != (int64_t)e->num_bindings || (num_buffers > 0 && !buffers)) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT,
             "dispatch of @%s: expected %u buffers, got %lld", e->name, e->num_bindings,
             (long long)num_buffers);
    return NULL;
  }
  fw_task_access_t *accesses = calloc(e->num_bindings ? e->num_bindings : 1, sizeof(*accesses));
  if (!accesses) {
    inv_fail(inv, FW_STATUS_RESOURCE_EXHAUSTED, "dispatch of @%s: out of memory", e->name);
    return NULL;
  }
  for (uint32_t i = 0; i < e->num_bindings; ++i) {
    /* The errors name the dispatch and the buffer ("dispatch of @%s: buffer %u"), formatted
     * when they happen: dispatches run on every call. */
    fw_buffer_t *b = inv_find(inv, buffers[i]);
    if (!b) {
      inv_fail(inv, FW_STATUS_INVALID_ARGUMENT,
               "dispatch of @%s: buffer %u: invalid buffer handle %p", e->name, i, buffers[i]);
      free(accesses);
      return NULL;
    }
    const fw_tensor_type_t *expected = &md->bindings[e->first_binding + i].type;
    if (!fw_type_matches(expected, &b->type)) {
      char want[256], got[256];
      fw_type_string(expected, want, sizeof(want));
      fw_type_string(&b->type, got, sizeof(got));
      inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "dispatch of @%s: buffer %u: expected %s, got %s",
               e->name, i, want, got);
      free(accesses);
      return NULL;
    }
    const fw_binding_info_t *binding = &md->bindings[e->first_binding + i];
    if (binding->access != FW_ACCESS_READ) {
      for (size_t a = 0; a < inv->num_args; ++a) {
        if (inv->args[a] != b) continue;
        inv_fail(inv, FW_STATUS_INVALID_ARGUMENT,
                 "dispatch of @%s: buffer %u: the executable writes argument %zu of the call, "
                 "which is read-only",
                 e->name, i, a);
        free(accesses);
        return NULL;
      }
    }
    accesses[i].buffer = b;
    accesses[i].access = binding->access;
  }
  /* The CPU variant for this machine (chosen at load time); GPU variants join when their
   * devices exist. */
  fw_cpu_kernel_fn_t kernel = NULL;
  int split = 0;
  uint32_t cpu_variant = 0;
  uint32_t kind_mask = 0; /* the device kinds the executable has variants for */
  for (uint32_t v = 0; v < e->num_variants; ++v) {
    size_t index = (size_t)e->first_variant + v;
    const fw_md_variant_t *variant = &md->variants[index];
    uint32_t kind = md->targets[variant->target].kind;
    if (kind < 32) kind_mask |= 1u << kind;
    if (!kernel && variant->kind == FW_VARIANT_KIND_CPU_SYMBOL) {
      kernel = inv->module->cpu_kernels[index];
      /* Workgroup shape 0,0,0: the kernel divides its work among workgroups. */
      split = kernel && variant->workgroup_size[0] == 0;
      cpu_variant = (uint32_t)index;
    }
  }
  /* Simulated devices run whatever kind the module has variants for; real ones need code
   * loaded for them: the CPU variant chosen at load time, the GPU kernels found then. */
  fw_runtime_t *runtime = inv->module->runtime;
  int simulated = runtime->options.simulate != NULL;
  uint32_t real_mask = kernel ? 1u << FW_TARGET_KIND_CPU : 0, gpu_mask = 0;
  for (uint32_t d = 1; d < runtime->num_devices; ++d) {
    const fw_module_gpu_kernel_t *k = inv->module->gpu_kernels[d];
    if (!k || !k[executable].kernel) continue;
    gpu_mask |= 1u << d;
    real_mask |= 1u << runtime->devices[d]->vtable->target_kind;
  }
  if (!(simulated ? kind_mask : real_mask)) {
    char have[64] = "cpu";
    for (uint32_t d = 1; d < runtime->num_devices; ++d)
      if (!strstr(have, runtime->devices[d]->vtable->name))
        snprintf(have + strlen(have), sizeof(have) - strlen(have), ", %s",
                 runtime->devices[d]->vtable->name);
    inv_fail(inv, FW_STATUS_UNSUPPORTED,
             "dispatch of @%s: no variant for an available device (have: %s)", e->name, have);
    free(accesses);
    return NULL;
  }
  if (inv->num_tasks == inv->cap_tasks) {
    size_t cap = inv->cap_tasks ? inv->cap_tasks * 2 : 16;
    fw_task_t **grown = realloc(inv->tasks, cap * sizeof(*grown));
    if (!grown) {
      inv_fail(inv, FW_STATUS_RESOURCE_EXHAUSTED, "dispatch of @%s: out of memory", e->name);
      free(accesses);
      return NULL;
    }
    inv->tasks = grown;
    inv->cap_tasks = cap;
  }
  fw_task_t **after_tasks = NULL;
  if (num_after != 0 && !(after_tasks = dispatch_after(inv, e, num_after, after))) {
    free(accesses);
    return NULL;
  }
  fw_runtime_t *rt = inv->module->runtime;
  fw_task_t *task = NULL;
  fw_status_t status = fw_task_create(rt, inv->module->task_names[executable], accesses,
                                      e->num_bindings, &task);
  if (status == FW_OK && after_tasks) {
    /* Edges made when it is inserted; the references go when it completes. */
    task->after = after_tasks;
    task->num_after = (size_t)num_after;
    after_tasks = NULL;
  }
  if (status == FW_OK) {
    task->binding_access = calloc(e->num_bindings ? e->num_bindings : 1, sizeof(uint32_t));
    if (!task->binding_access) {
      fw_task_release(task);
      task = NULL;
      status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
  }
  if (status != FW_OK) {
    for (int64_t i = 0; after_tasks && i < num_after; ++i) fw_task_release(after_tasks[i]);
    free(after_tasks);
    inv_set_status(inv, fw_status_annotate(status, "dispatch of @%s", e->name));
    free(accesses);
    return NULL;
  }
  for (uint32_t i = 0; i < e->num_bindings; ++i) {
    uint32_t k = 0;
    while (task->accesses[k].buffer != accesses[i].buffer) ++k;
    task->binding_access[i] = k;
  }
  free(accesses);
  task->num_bindings = e->num_bindings;
  /* Kernels with candidates: the worker that runs the task asks its device's tuner. */
  task->cpu_kernel = kernel;
  task->cpu_split = split;
  task->cpu_variant = cpu_variant;
  task->tune_state = FW_TUNE_NONE;
  task->kind_mask = simulated ? kind_mask : real_mask;
  task->gpu_mask = gpu_mask;
  task->prefer_mask = simulated ? 0 : rt->prefer_kinds & real_mask;
  task->module = inv->module;
  fw_module_retain(inv->module);
  task->executable = (uint32_t)executable;
  task->priority = (int32_t)e->priority;
  task->flops = dispatch_flops(md, e, task);
  task->bytes = (double)e->cost_bytes;
  for (size_t i = 0; i < task->num_accesses; ++i) fw_memory_unmap(&rt->memory, task->accesses[i].buffer);
  fw_scheduler_submit(&rt->sched, task, &inv->call->group, 1);
  inv->tasks[inv->num_tasks++] = task;
  return task;
}

void *fw_rt_dispatch(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                     void *const *buffers) {
  return dispatch(inv, "fw_rt_dispatch", executable, num_buffers, buffers, 0, NULL);
}

void *fw_rt_dispatch_after(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                           void *const *buffers, int64_t num_after, void *const *after) {
  return dispatch(inv, "fw_rt_dispatch_after", executable, num_buffers, buffers, num_after,
                  after);
}

/* Lets the held tasks go, with upward ranks computed over them. `caller_waits`: the
 * calling thread waits for all of them right after (fw_module_call), so it may take a
 * sleeping worker's place at once. */
static void inv_release_held(fw_invocation_t *inv, int caller_waits) {
  if (inv->first_held == inv->num_tasks) return;
  fw_scheduler_release_held(&inv->module->runtime->sched, inv->tasks + inv->first_held,
                            inv->num_tasks - inv->first_held, caller_waits);
  inv->first_held = inv->num_tasks;
}

void fw_rt_prefetch(fw_invocation_t *inv, void *buffer, int32_t tier) {
  if (!inv || inv->status) return;
  if (tier < 0 || tier > 2) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_prefetch: unknown tier %d", (int)tier);
    return;
  }
  fw_buffer_t *b = inv_lookup(inv, buffer, "fw_rt_prefetch");
  /* The CPU computes in host memory, so device and host both mean the host node; moving
   * data down to storage is left to eviction. */
  if (b && tier != FW_TIER_STORAGE)
    fw_memory_prefetch(&inv->module->runtime->memory, b, FW_NODE_HOST,
                       fw_scheduler_now(&inv->module->runtime->sched));
}

void fw_rt_wait(fw_invocation_t *inv, void *token) {
  if (!inv || inv->status) return;
  fw_task_t *task = inv_task(inv, token);
  if (!task) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_wait: invalid token %p", token);
    return;
  }
  /* Host code never runs in a task body (fw_module_call_async refuses there); if it did,
   * its wait would be refused too. */
  fw_status_t refused = fw_engine_check_wait(inv->module->runtime, "fw_rt_wait");
  if (refused != FW_OK) {
    inv_set_status(inv, refused);
    return;
  }
  /* The token's task is waited for at once, but the call's other tasks only by a caller
   * that waits for the whole call (fw_module_call). */
  inv_release_held(inv, inv->call->caller_waits);
  fw_scheduler_wait_task(&inv->module->runtime->sched, task);
}

void fw_rt_set_result(fw_invocation_t *inv, int64_t index, void *buffer) {
  if (!inv || inv->status) return;
  if (index < 0 || (uint64_t)index >= inv->num_results) {
    inv_fail(inv, FW_STATUS_OUT_OF_RANGE,
             "fw_rt_set_result: result index %lld is out of range (%zu results)",
             (long long)index, inv->num_results);
    return;
  }
  fw_buffer_t *b = inv_lookup(inv, buffer, "fw_rt_set_result");
  if (!b) return;
  if (inv->results[index]) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_set_result: result %lld is set twice",
             (long long)index);
    return;
  }
  fw_buffer_retain(b);
  inv->results[index] = b;
}

void fw_rt_assert(fw_invocation_t *inv, int32_t condition, const char *message) {
  if (!inv || inv->status || condition) return;
  inv_fail(inv, FW_STATUS_FAILED_PRECONDITION, "assertion failed: %.900s",
           message ? message : "(no message)");
}

void fw_host_abi_fill_table(void **table, uint32_t abi_version) {
  /* Casts between function and object pointers are fine on every platform fw runs on. */
  void *functions[FW_HOST_ABI_TABLE_SIZE] = {
      (void *)fw_rt_arg,      (void *)fw_rt_buffer_dim, (void *)fw_rt_buffer_alloc,
      (void *)fw_rt_buffer_release, (void *)fw_rt_dispatch, (void *)fw_rt_prefetch,
      (void *)fw_rt_wait,     (void *)fw_rt_set_result, (void *)fw_rt_assert,
      (void *)fw_rt_dispatch_after, (void *)fw_rt_kernel_alloc, (void *)fw_rt_kernel_free,
  };
  /* A module built for an older version has room for its functions only. */
  memcpy(table, functions, fw_host_abi_table_size(abi_version) * sizeof(void *));
}

/* ---- fw_module_call --------------------------------------------------------- */

static fw_status_t check_value(const char *what, size_t index, const char *function,
                               const fw_tensor_type_t *expected, const fw_buffer_t *buffer) {
  if (!buffer)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "%s %zu of @%s is NULL", what, index,
                          function);
  if (fw_type_matches(expected, &buffer->type)) return FW_OK;
  char want[256], got[256];
  fw_type_string(expected, want, sizeof(want));
  fw_type_string(&buffer->type, got, sizeof(got));
  return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "%s %zu of @%s: expected %s, got %s", what,
                        index, function, want, got);
}

static fw_status_t check_call(fw_module_t *module, size_t function_index,
                              fw_buffer_t *const *args, size_t num_args) {
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  const fw_metadata_t *md = &module->md;
  if (function_index >= md->num_functions)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE,
                          "function index %zu is out of range (%zu functions)", function_index,
                          md->num_functions);
  const fw_md_function_t *f = &md->functions[function_index];
  if (num_args != f->num_args)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "@%s expects %u arguments, got %zu",
                          f->name, f->num_args, num_args);
  if (num_args > 0 && !args)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "args is NULL");
  for (size_t i = 0; i < num_args; ++i) {
    fw_status_t status = check_value("argument", i, f->name, &md->values[f->first_arg + i], args[i]);
    if (status != FW_OK) return status;
    if (args[i]->runtime != module->runtime)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "argument %zu of @%s belongs to another runtime", i, f->name);
  }
  return FW_OK;
}

static void call_free(fw_call_t *call) {
  for (size_t i = 0; i < call->num_args; ++i) fw_buffer_release(call->args[i]);
  for (size_t i = 0; call->results && i < call->num_results; ++i)
    fw_buffer_release(call->results[i]);
  free(call->args);
  free(call->results);
  fw_status_free(call->status);
  fw_status_free(call->group.status);
  fw_module_release(call->module);
  free(call);
}

/* One of the call's owners lets go (runtime_internal.h); the last frees the call. A
 * detached call's error, which nobody waits for, goes to the runtime's next
 * fw_runtime_wait_all. */
static void call_let_go(fw_call_t *call) {
  if (atomic_fetch_sub(&call->owners, 1) != 1) return;
  if (atomic_load(&call->detached)) {
    fw_status_t error = call->status != FW_OK ? call->status : call->group.status;
    if (error != FW_OK) {
      fw_scheduler_t *s = &call->module->runtime->sched;
      const fw_md_function_t *f = &call->module->md.functions[call->function_index];
      fw_sched_lock(s);
      if (s->api_group.status == FW_OK)
        s->api_group.status = fw_status_make(fw_status_code(error), "in @%s (detached): %s",
                                             f->name, fw_status_message(error));
      fw_sched_unlock(s);
    }
  }
  call_free(call);
}

static void call_tasks_done(void *call) { call_let_go(call); }

void fw_call_run_host(fw_call_t *call) {
  fw_module_t *module = call->module;
  const fw_md_function_t *f = &module->md.functions[call->function_index];
  fw_invocation_t inv;
  memset(&inv, 0, sizeof(inv));
  inv.module = module;
  inv.function = f;
  inv.call = call;
  inv.args = call->args;
  inv.num_args = call->num_args;
  inv.num_results = call->num_results;
  inv.results = call->results;
  module->entries[call->function_index](&inv);
  if (inv.status != FW_OK) {
    /* Tasks already dispatched still run (or are cancelled) before the call completes;
     * the held ones are cancelled. */
    fw_scheduler_t *s = &module->runtime->sched;
    fw_sched_lock(s);
    for (size_t i = inv.first_held; i < inv.num_tasks; ++i) inv.tasks[i]->cancelled = 1;
    fw_sched_unlock(s);
  }
  inv_release_held(&inv, call->caller_waits);
  for (size_t i = 0; inv.status == FW_OK && i < call->num_results; ++i) {
    if (!inv.results[i]) {
      inv_fail(&inv, FW_STATUS_INTERNAL, "result %zu was not set", i);
      break;
    }
    inv.status = check_value("result", i, f->name, &module->md.values[f->first_result + i],
                             inv.results[i]);
  }
  for (size_t i = 0; i < inv.num_allocs; ++i) fw_buffer_release(inv.allocs[i]);
  free(inv.allocs);
  for (size_t i = 0; i < inv.num_tasks; ++i) fw_task_release(inv.tasks[i]);
  free(inv.tasks);
  call->status = inv.status;
}

/* fw_module_call_async; `caller_waits`: for fw_module_call, which waits at once. */
static fw_status_t call_async(fw_module_t *module, size_t function_index,
                              fw_buffer_t *const *args, size_t num_args, int caller_waits,
                              fw_call_t **out_call) {
  if (!out_call) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_call is NULL");
  *out_call = NULL;
  fw_status_t status = check_call(module, function_index, args, num_args);
  if (status != FW_OK) return status;
  /* A compiled function's host code may wait for its tasks (fw.wait), which a task body
   * cannot: refused before anything is submitted. */
  status = fw_engine_check_wait(module->runtime, "fw_module_call_async");
  if (status != FW_OK) return status;
  const fw_md_function_t *f = &module->md.functions[function_index];
  fw_call_t *call = calloc(1, sizeof(*call));
  if (call) {
    call->args = calloc(num_args ? num_args : 1, sizeof(*call->args));
    call->results = calloc(f->num_results ? f->num_results : 1, sizeof(*call->results));
  }
  if (!call || !call->args || !call->results) {
    if (call) free(call->args), free(call->results);
    free(call);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  call->module = module;
  fw_module_retain(module);
  call->function_index = function_index;
  call->num_args = num_args;
  call->num_results = f->num_results;
  for (size_t i = 0; i < num_args; ++i) {
    call->args[i] = args[i];
    fw_buffer_retain(args[i]);
  }
  atomic_init(&call->owners, 2);
  atomic_init(&call->detached, 0);
  call->caller_waits = caller_waits;
  call->group.on_done = call_tasks_done;
  call->group.done_arg = call;
  /* The group is not done while the host code submits (its tasks may finish meanwhile). */
  fw_scheduler_group_hold(&call->group);
  fw_call_run_host(call);
  *out_call = call;
  fw_scheduler_group_release(&module->runtime->sched, &call->group);
  return FW_OK;
}

fw_status_t fw_module_call_async(fw_module_t *module, size_t function_index,
                                 fw_buffer_t *const *args, size_t num_args,
                                 fw_call_t **out_call) {
  return call_async(module, function_index, args, num_args, 0, out_call);
}

void fw_call_detach(fw_call_t *call) {
  if (!call) return;
  atomic_store(&call->detached, 1);
  call_let_go(call);
}

int fw_call_is_done(const fw_call_t *call) {
  if (!call) return 1;
  return atomic_load(&((fw_call_t *)call)->group.outstanding) == 0;
}

fw_status_t fw_call_wait(fw_call_t *call, fw_buffer_t **out_results, size_t num_results) {
  if (out_results)
    for (size_t i = 0; i < num_results; ++i) out_results[i] = NULL;
  if (!call) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "call is NULL");
  fw_status_t refused = fw_engine_check_wait(call->module->runtime, "fw_call_wait");
  if (refused != FW_OK) return refused;
  fw_scheduler_wait_group(&call->module->runtime->sched, &call->group);
  const fw_md_function_t *f = &call->module->md.functions[call->function_index];
  fw_status_t status = FW_OK;
  if (call->status != FW_OK) {
    status = call->status;
    call->status = FW_OK;
  } else if (call->group.status != FW_OK) {
    status = fw_status_annotate(call->group.status, "in @%s", f->name);
    call->group.status = FW_OK;
  } else if (num_results != call->num_results) {
    status = fw_status_make(FW_STATUS_INVALID_ARGUMENT, "@%s returns %zu results, got room for %zu",
                            f->name, call->num_results, num_results);
  } else if (num_results > 0 && !out_results) {
    status = fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_results is NULL");
  } else {
    for (size_t i = 0; i < num_results; ++i) {
      out_results[i] = call->results[i];
      call->results[i] = NULL;
    }
  }
  call_let_go(call);
  return status;
}

fw_status_t fw_module_call(fw_module_t *module, size_t function_index,
                           fw_buffer_t *const *args, size_t num_args,
                           fw_buffer_t **out_results, size_t num_results) {
  if (out_results)
    for (size_t i = 0; i < num_results; ++i) out_results[i] = NULL;
  fw_status_t status = check_call(module, function_index, args, num_args);
  if (status != FW_OK) return status;
  /* Refused before anything is submitted. */
  status = fw_engine_check_wait(module->runtime, "fw_module_call");
  if (status != FW_OK) return status;
  const fw_md_function_t *f = &module->md.functions[function_index];
  if (num_results != f->num_results)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "@%s returns %u results, got room for %zu",
                          f->name, f->num_results, num_results);
  if (num_results > 0 && !out_results)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_results is NULL");
  fw_call_t *call = NULL;
  status = call_async(module, function_index, args, num_args, 1, &call);
  if (status != FW_OK) return status;
  return fw_call_wait(call, out_results, num_results);
}
