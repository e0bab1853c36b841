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
  fw_buffer_t *const *args;
  size_t num_args;
  fw_buffer_t **results; /* one reference each, set by fw_rt_set_result */
  size_t num_results;
  fw_buffer_t **allocs; /* the code's references; NULL once released */
  size_t num_allocs, cap_allocs;
  fw_status_t status; /* sticky: the first error */
};

/* The token of a completed dispatch (version 1 runs dispatches synchronously). */
static const int kCompletedToken = 0;
#define FW_COMPLETED_TOKEN ((void *)(uintptr_t)&kCompletedToken)

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
 * buffer allocated through it and not yet released); records an error otherwise. */
static fw_buffer_t *inv_lookup(fw_invocation_t *inv, void *handle, const char *what) {
  if (handle) {
    for (size_t i = 0; i < inv->num_args; ++i)
      if ((void *)inv->args[i] == handle) return inv->args[i];
    for (size_t i = 0; i < inv->num_allocs; ++i)
      if (inv->allocs[i] && (void *)inv->allocs[i] == handle) return inv->allocs[i];
  }
  inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "%s: invalid buffer handle %p", what, handle);
  return NULL;
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

void *fw_rt_dispatch(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                     void *const *buffers) {
  if (!inv || inv->status) return NULL;
  const fw_metadata_t *md = &inv->module->md;
  if (executable < 0 || (uint64_t)executable >= md->num_executables) {
    inv_fail(inv, FW_STATUS_OUT_OF_RANGE,
             "fw_rt_dispatch: executable index %lld is out of range (%zu executables)",
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
  fw_device_binding_t *bindings = calloc(e->num_bindings ? e->num_bindings : 1, sizeof(*bindings));
  if (!bindings) {
    inv_fail(inv, FW_STATUS_RESOURCE_EXHAUSTED, "dispatch of @%s: out of memory", e->name);
    return NULL;
  }
  for (uint32_t i = 0; i < e->num_bindings; ++i) {
    char what[128];
    snprintf(what, sizeof(what), "dispatch of @%s: buffer %u", e->name, i);
    fw_buffer_t *b = inv_lookup(inv, buffers[i], what);
    if (!b) {
      free(bindings);
      return NULL;
    }
    const fw_tensor_type_t *expected = &md->bindings[e->first_binding + i].type;
    if (!fw_type_matches(expected, &b->type)) {
      char want[256], got[256];
      fw_type_string(expected, want, sizeof(want));
      fw_type_string(&b->type, got, sizeof(got));
      inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "%s: expected %s, got %s", what, want, got);
      free(bindings);
      return NULL;
    }
    const fw_binding_info_t *binding = &md->bindings[e->first_binding + i];
    if (binding->access != FW_ACCESS_READ) {
      for (size_t a = 0; a < inv->num_args; ++a) {
        if (inv->args[a] != b) continue;
        inv_fail(inv, FW_STATUS_INVALID_ARGUMENT,
                 "%s: the executable writes argument %zu of the call, which is read-only", what,
                 a);
        free(bindings);
        return NULL;
      }
    }
    bindings[i].data = b->data;
    bindings[i].rank = b->type.rank;
    bindings[i].dims = b->type.dims;
  }
  /* Pick a variant for an available device (version 1: the first CPU variant). */
  fw_device_t *device = inv->module->runtime->cpu_device;
  const fw_md_variant_t *variant = NULL;
  fw_cpu_kernel_fn_t kernel = NULL;
  for (uint32_t v = 0; v < e->num_variants; ++v) {
    size_t index = (size_t)e->first_variant + v;
    if (md->variants[index].kind == FW_VARIANT_KIND_CPU_SYMBOL &&
        inv->module->cpu_kernels[index]) {
      variant = &md->variants[index];
      kernel = inv->module->cpu_kernels[index];
      break;
    }
  }
  if (!variant) {
    inv_fail(inv, FW_STATUS_UNSUPPORTED,
             "dispatch of @%s: no variant for an available device (have: %s)", e->name,
             device->vtable->name);
    free(bindings);
    return NULL;
  }
  fw_device_launch_t launch;
  memset(&launch, 0, sizeof(launch));
  launch.kernel.cpu = kernel;
  launch.num_bindings = e->num_bindings;
  launch.bindings = bindings;
  for (int k = 0; k < 3; ++k) {
    launch.workgroup_count[k] = 1;
    launch.workgroup_size[k] = variant->workgroup_size[k];
  }
  fw_status_t status = device->vtable->launch(device, &launch);
  free(bindings);
  if (status != FW_OK) {
    inv_set_status(inv, fw_status_annotate(status, "dispatch of @%s", e->name));
    return NULL;
  }
  return FW_COMPLETED_TOKEN;
}

void fw_rt_prefetch(fw_invocation_t *inv, void *buffer, int32_t tier) {
  if (!inv || inv->status) return;
  if (tier < 0 || tier > 2) {
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_prefetch: unknown tier %d", (int)tier);
    return;
  }
  /* Version 1 has a single memory node (host memory): nothing to move. */
  (void)inv_lookup(inv, buffer, "fw_rt_prefetch");
}

void fw_rt_wait(fw_invocation_t *inv, void *token) {
  if (!inv || inv->status) return;
  if (token != FW_COMPLETED_TOKEN)
    inv_fail(inv, FW_STATUS_INVALID_ARGUMENT, "fw_rt_wait: invalid token %p", token);
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

void fw_host_abi_fill_table(void **table) {
  /* Casts between function and object pointers are fine on every platform fw runs on. */
  void *functions[FW_HOST_ABI_TABLE_SIZE] = {
      (void *)fw_rt_arg,      (void *)fw_rt_buffer_dim, (void *)fw_rt_buffer_alloc,
      (void *)fw_rt_buffer_release, (void *)fw_rt_dispatch, (void *)fw_rt_prefetch,
      (void *)fw_rt_wait,     (void *)fw_rt_set_result, (void *)fw_rt_assert,
  };
  memcpy(table, functions, sizeof(functions));
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

fw_status_t fw_module_call(fw_module_t *module, size_t function_index,
                           fw_buffer_t *const *args, size_t num_args,
                           fw_buffer_t **out_results, size_t num_results) {
  if (out_results)
    for (size_t i = 0; i < num_results; ++i) out_results[i] = NULL;
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
  if (num_results != f->num_results)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "@%s returns %u results, got room for %zu",
                          f->name, f->num_results, num_results);
  if (num_results > 0 && !out_results)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_results is NULL");
  for (size_t i = 0; i < num_args; ++i) {
    fw_status_t status = check_value("argument", i, f->name, &md->values[f->first_arg + i], args[i]);
    if (status != FW_OK) return status;
  }

  fw_invocation_t inv;
  memset(&inv, 0, sizeof(inv));
  inv.module = module;
  inv.function = f;
  inv.args = args;
  inv.num_args = num_args;
  inv.num_results = num_results;
  inv.results = calloc(num_results ? num_results : 1, sizeof(*inv.results));
  if (!inv.results) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");

  fw_module_retain(module);
  module->entries[function_index](&inv);

  for (size_t i = 0; inv.status == FW_OK && i < num_results; ++i) {
    if (!inv.results[i]) {
      inv_fail(&inv, FW_STATUS_INTERNAL, "result %zu was not set", i);
      break;
    }
    inv.status = check_value("result", i, f->name, &md->values[f->first_result + i],
                             inv.results[i]);
  }
  for (size_t i = 0; i < inv.num_allocs; ++i) fw_buffer_release(inv.allocs[i]);
  free(inv.allocs);
  if (inv.status == FW_OK) {
    for (size_t i = 0; i < num_results; ++i) out_results[i] = inv.results[i];
  } else {
    for (size_t i = 0; i < num_results; ++i) fw_buffer_release(inv.results[i]);
  }
  free(inv.results);
  fw_module_release(module);
  return inv.status;
}
