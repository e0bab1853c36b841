/* Loading `.fwb` modules: read, validate (trailer, ELF, metadata, ISA levels), copy the
 * validated payload into an anonymous in-memory file and dlopen it, resolve symbols. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_features.h"
#include "fwb_reader.h"
#include "offload.h"
#include "runtime_internal.h"
#include "status_internal.h"

/* ---- Files ---------------------------------------------------------------- */

static fw_status_t write_all(int fd, const uint8_t *data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fw_status_make(FW_STATUS_IO, "write failed: %s", strerror(errno));
    done += (size_t)n;
  }
  return FW_OK;
}

/* ---- dlopen ----------------------------------------------------------------- */

/* Opens the shared object at `path`, making sure no already-loaded object has the same
 * name (glibc returns an existing object whose name matches, which would happen when a
 * file descriptor number or a temporary name is reused). */
static fw_status_t dlopen_fresh(const char *path, void **out_handle) {
  void *stale = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (stale) {
    dlclose(stale);
    return fw_status_make(FW_STATUS_INTERNAL, "an object named %s is already loaded", path);
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *err = dlerror();
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "dlopen failed: %s",
                          err ? err : "unknown error");
  }
  *out_handle = h;
  return FW_OK;
}

/* memfd_create + dlopen("/proc/self/fd/N"); retries with a dup'd descriptor when the
 * name is taken by a stale object. */
static fw_status_t open_via_memfd(const uint8_t *payload, size_t size, void **out_handle,
                                  int *out_fd) {
  int fd = memfd_create("fw-module", MFD_CLOEXEC);
  if (fd < 0) return fw_status_make(FW_STATUS_UNSUPPORTED, "memfd_create failed: %s", strerror(errno));
  fw_status_t status = write_all(fd, payload, size);
  if (status != FW_OK) {
    close(fd);
    return status;
  }
  int spare[8];
  int num_spare = 0;
  for (;;) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    void *probe = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (probe && num_spare < 8) {
      dlclose(probe);
      int next = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
      if (next < 0) break;
      spare[num_spare++] = fd;
      fd = next;
      continue;
    }
    if (probe) dlclose(probe);
    status = dlopen_fresh(path, out_handle);
    break;
  }
  for (int i = 0; i < num_spare; ++i) close(spare[i]);
  if (status != FW_OK || !*out_handle) {
    close(fd);
    return status ? status : fw_status_make(FW_STATUS_INTERNAL, "cannot open the module");
  }
  *out_fd = fd;
  return FW_OK;
}

/* Fallback: a temporary file in $TMPDIR (or /tmp), unlinked after dlopen. */
static fw_status_t open_via_tmpfile(const uint8_t *payload, size_t size, void **out_handle) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  for (int attempt = 0; attempt < 8; ++attempt) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/fw-module-XXXXXX", dir) >= (int)sizeof(path))
      return fw_status_make(FW_STATUS_IO, "TMPDIR path is too long");
    int fd = mkstemp(path);
    if (fd < 0)
      return fw_status_make(FW_STATUS_IO, "cannot create a temporary file in %s: %s", dir,
                            strerror(errno));
    fw_status_t status = write_all(fd, payload, size);
    close(fd);
    if (status != FW_OK) {
      unlink(path);
      return status;
    }
    void *probe = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (probe) {
      dlclose(probe);
      unlink(path);
      continue;
    }
    status = dlopen_fresh(path, out_handle);
    unlink(path);
    return status;
  }
  return fw_status_make(FW_STATUS_INTERNAL, "cannot find a fresh temporary file name");
}

/* Resolves `name` in the module and checks that the definition lies in the module itself
 * (not in a library it depends on). */
static fw_status_t resolve_symbol(void *handle, struct link_map *module_map, const char *name,
                                  void **out_address) {
  *out_address = NULL;
  dlerror();
  void *sym = dlsym(handle, name);
  if (!sym) {
    const char *err = dlerror();
    return fw_status_make(FW_STATUS_NOT_FOUND, "symbol %s not found in the module: %s", name,
                          err ? err : "undefined");
  }
  Dl_info info;
  struct link_map *owner = NULL;
  if (module_map && dladdr1(sym, &info, (void **)&owner, RTLD_DL_LINKMAP) && owner &&
      owner != module_map)
    return fw_status_make(FW_STATUS_NOT_FOUND,
                          "symbol %s is not defined by the module (it resolves to %s)", name,
                          info.dli_fname ? info.dli_fname : "another object");
  *out_address = sym;
  return FW_OK;
}

/* Whether the module's function table has room for the functions of its host-call ABI
 * version (the symbol's size, where the dynamic symbol table says it). */
static fw_status_t check_table_size(void *table, uint32_t abi_version) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  size_t needed = fw_host_abi_table_size(abi_version);
  if (!dladdr1(table, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || sym->st_size == 0)
    return FW_OK;
  if (sym->st_size >= needed * sizeof(void *)) return FW_OK;
  return fw_status_make(FW_STATUS_DATA_LOSS,
                        "__fw_rt_table has %zu entries, host-call ABI version %u has %zu",
                        (size_t)(sym->st_size / sizeof(void *)), abi_version, needed);
}

/* ---- Modules ---------------------------------------------------------------- */

/* ---- GPU code -------------------------------------------------------------- */

/* Loads image `index` of the module on GPU `d` once; NULL (and the first such error kept
 * in gpu_load_error) when it cannot be read or the driver refuses it. */
static fw_device_module_t *gpu_image(fw_module_t *m, const fw_fwb_view_t *view, uint32_t d,
                                     uint32_t index, uint8_t *failed) {
  if (m->gpu_images[d][index] || failed[index]) return m->gpu_images[d][index];
  fw_device_t *device = m->runtime->devices[d];
  const fw_md_image_t *im = &m->md.images[index];
  fw_offload_image_t image;
  fw_status_t s = fw_offload_parse(view->offload + im->offset, im->size, &image);
  if (s == FW_OK)
    s = device->vtable->module_load(device, image.data, (size_t)image.size,
                                    &m->gpu_images[d][index]);
  if (s != FW_OK) {
    failed[index] = 1;
    if (!m->gpu_load_error[d][0])
      snprintf(m->gpu_load_error[d], sizeof(m->gpu_load_error[d]), "image %u: %s", index,
               fw_status_message(s));
    fw_status_free(s);
    return NULL;
  }
  return m->gpu_images[d][index];
}

/* The kernel of `variant` on GPU `d` from its image `index`, else (NVIDIA) from the PTX of
 * the same variant when that cubin does not load; NULL when neither does. */
static const void *gpu_kernel(fw_module_t *m, const fw_fwb_view_t *view, uint32_t d,
                              uint32_t variant, uint32_t index, uint8_t *failed) {
  const fw_metadata_t *md = &m->md;
  fw_device_module_t *image = gpu_image(m, view, d, index, failed);
  uint32_t ptx = index + 1;
  if (!image && md->images[index].format == FW_IMAGE_FORMAT_CUBIN && ptx < md->num_images &&
      md->images[ptx].format == FW_IMAGE_FORMAT_PTX &&
      md->images[ptx].target == md->images[index].target)
    image = gpu_image(m, view, d, ptx, failed);
  if (!image) return NULL;
  const void *kernel = NULL;
  fw_device_t *device = m->runtime->devices[d];
  fw_status_t s = device->vtable->module_get_kernel(device, image, md->variants[variant].kernel,
                                                    &kernel);
  if (s != FW_OK) {
    if (!m->gpu_load_error[d][0])
      snprintf(m->gpu_load_error[d], sizeof(m->gpu_load_error[d]), "%s", fw_status_message(s));
    fw_status_free(s);
    return NULL;
  }
  return kernel;
}

/* Loads, for an executable with candidates, the other variants for the target of the one
 * GPU `d` runs (`variant`, from image `index`: its cubin, or its PTX), each from the
 * image of the same format. */
static void load_gpu_candidates(fw_module_t *m, const fw_fwb_view_t *view, uint32_t d,
                                uint32_t executable, uint32_t variant, uint32_t index,
                                uint8_t *failed) {
  const fw_metadata_t *md = &m->md;
  const fw_md_executable_t *e = &md->executables[executable];
  if (!(e->flags & FW_MD_EXECUTABLE_AUTOTUNE) || !m->runtime->autotune) return;
  uint32_t offset = index - md->variants[variant].image; /* 0: cubin or HSACO; 1: PTX */
  for (uint32_t v = e->first_variant; v < e->first_variant + e->num_variants; ++v) {
    const fw_md_variant_t *var = &md->variants[v];
    if (v == variant || var->target != md->variants[variant].target ||
        var->kind != FW_VARIANT_KIND_DEVICE_IMAGE || var->image == FW_MD_NO_IMAGE ||
        var->image + offset >= md->num_images ||
        md->images[var->image + offset].format != md->images[index].format)
      continue;
    m->gpu_variant_kernels[d][v] = gpu_kernel(m, view, d, v, var->image + offset, failed);
  }
}

/* Finds, per executable, the kernel each GPU of the runtime runs: the image
 * fw_select_cuda_image or fw_select_hip_image picks for its architecture, else (NVIDIA)
 * the PTX of the same variant when that cubin does not load. An executable without one
 * runs elsewhere. Executables with candidates get them loaded too, and a tuner per GPU
 * measures them. */
static fw_status_t load_gpu_code(fw_module_t *m, const fw_fwb_view_t *view) {
  fw_runtime_t *rt = m->runtime;
  const fw_metadata_t *md = &m->md;
  if (!rt || md->num_images == 0) return FW_OK;
  uint8_t *failed = calloc(md->num_images, 1);
  if (!failed) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (uint32_t d = 1; d < rt->num_devices; ++d) {
    fw_target_kind_t kind = rt->devices[d]->vtable->target_kind;
    memset(failed, 0, md->num_images);
    m->gpu_images[d] = calloc(md->num_images, sizeof(*m->gpu_images[d]));
    m->gpu_kernels[d] = calloc(md->num_executables ? md->num_executables : 1,
                               sizeof(*m->gpu_kernels[d]));
    m->gpu_variant_kernels[d] = calloc(md->num_variants ? md->num_variants : 1,
                                       sizeof(*m->gpu_variant_kernels[d]));
    if (!m->gpu_images[d] || !m->gpu_kernels[d] || !m->gpu_variant_kernels[d]) {
      free(failed);
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
    for (uint32_t e = 0; e < md->num_executables; ++e) {
      int64_t variant = -1, index = -1;
      if (kind == FW_TARGET_KIND_CUDA)
        fw_select_cuda_image(md, e, rt->device_info[d].arch, &variant, &index);
      else
        fw_select_hip_image(md, e, rt->device_info[d].arch, &variant, &index);
      if (variant < 0) continue;
      const void *kernel = gpu_kernel(m, view, d, (uint32_t)variant, (uint32_t)index, failed);
      if (!kernel) continue;
      m->gpu_kernels[d][e].kernel = kernel;
      m->gpu_kernels[d][e].variant = (uint32_t)variant;
      m->gpu_variant_kernels[d][variant] = kernel;
      load_gpu_candidates(m, view, d, e, (uint32_t)variant, (uint32_t)index, failed);
    }
    if (!fw_tuner_init(&m->gpu_tuners[d], md, m->gpu_variant_kernels[d], rt->autotune)) {
      free(failed);
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
  }
  free(failed);
  return FW_OK;
}

static void module_free(fw_module_t *m) {
  if (!m) return;
  for (uint32_t d = 1; d < FW_MAX_DEVICES; ++d) {
    for (size_t i = 0; m->gpu_images[d] && i < m->md.num_images; ++i)
      if (m->gpu_images[d][i])
        m->runtime->devices[d]->vtable->module_unload(m->runtime->devices[d], m->gpu_images[d][i]);
    free(m->gpu_images[d]);
    free(m->gpu_kernels[d]);
    free(m->gpu_variant_kernels[d]);
    fw_tuner_fini(&m->gpu_tuners[d]);
  }
  if (m->dl_handle) dlclose(m->dl_handle);
  if (m->fd >= 0) close(m->fd);
  free(m->entries);
  free(m->cpu_kernels);
  for (size_t i = 0; m->task_names && i < m->md.num_executables; ++i) free(m->task_names[i]);
  free(m->task_names);
  fw_tuner_fini(&m->tuner);
  fw_division_fini(&m->division);
  fw_metadata_free(&m->md);
  if (m->runtime) fw_runtime_release_internal(m->runtime);
  free(m);
}

/* Measures whether each executable's CPU kernel runs faster whole or divided
 * (division.h) where that is a question: it divides its work (workgroup shape 0), its
 * executable has no candidates of its own (`tuner` measures those, which may differ in
 * how they divide), and there are CPU workers to divide it among. The kernel is the
 * first CPU variant that loaded, as tasks take it (invocation.c). Returns 0 when out of
 * memory. */
static int init_division(fw_module_t *m) {
  const fw_metadata_t *md = &m->md;
  uint8_t *divides = calloc(md->num_executables ? md->num_executables : 1, 1);
  if (!divides) return 0;
  for (size_t e = 0; m->runtime->sched.num_cpu_workers > 1 && e < md->num_executables; ++e) {
    const fw_md_executable_t *exe = &md->executables[e];
    if (fw_tuner_has_candidates(&m->tuner, (uint32_t)e)) continue;
    for (uint32_t v = 0; v < exe->num_variants; ++v) {
      size_t index = (size_t)exe->first_variant + v;
      if (md->variants[index].kind != FW_VARIANT_KIND_CPU_SYMBOL || !m->cpu_kernels[index])
        continue;
      divides[e] = md->variants[index].workgroup_size[0] == 0;
      break;
    }
  }
  int ok = fw_division_init(&m->division, md->num_executables, divides, m->runtime->autotune);
  free(divides);
  return ok;
}

/* Validates `data` (owned by the caller) and loads it. */
static fw_status_t module_load(fw_runtime_t *runtime, const uint8_t *data, size_t size,
                               fw_module_t **out_module) {
  fw_fwb_view_t view;
  fw_status_t status = fw_fwb_parse(data, size, &view);
  if (status != FW_OK) return status;

  fw_module_t *m = calloc(1, sizeof(*m));
  if (!m) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  atomic_init(&m->refcount, 1);
  m->build_id = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) m->build_id = (m->build_id ^ data[i]) * 1099511628211ull;
  m->runtime = runtime;
  if (runtime) fw_runtime_retain_internal(runtime);
  m->fd = -1;
  status = fw_metadata_parse(view.meta, view.meta_size, FW_HOST_ABI_VERSION, &m->md);
  if (status != FW_OK) goto fail;
  const fw_metadata_t *md = &m->md;

  status = fw_metadata_check_images(md, view.offload, view.offload_size);
  if (status != FW_OK) goto fail;
  /* A CPU variant is usable when this processor supports its ISA level. Every
   * executable needs at least one variant that can run here: a CPU variant
   * this processor supports, or a device variant (placed at dispatch). */
  for (size_t e = 0; e < md->num_executables; ++e) {
    const fw_md_executable_t *exe = &md->executables[e];
    fw_status_t first_error = FW_OK;
    int runnable = 0;
    for (uint32_t v = 0; v < exe->num_variants; ++v) {
      const fw_md_variant_t *variant = &md->variants[exe->first_variant + v];
      if (variant->kind != FW_VARIANT_KIND_CPU_SYMBOL) {
        runnable = 1;
        continue;
      }
      fw_status_t isa = fw_cpu_check_isa_level(md->targets[variant->target].arch);
      if (isa == FW_OK) {
        runnable = 1;
      } else if (first_error == FW_OK) {
        first_error = isa;
      } else {
        fw_status_free(isa);
      }
    }
    if (!runnable && first_error != FW_OK) {
      status = fw_status_annotate(first_error, "executable @%s has no variant this machine can run",
                                  exe->name);
      goto fail;
    }
    fw_status_free(first_error);
  }

  m->entries = calloc(md->num_functions ? md->num_functions : 1, sizeof(*m->entries));
  m->cpu_kernels = calloc(md->num_variants ? md->num_variants : 1, sizeof(*m->cpu_kernels));
  m->task_names = calloc(md->num_executables ? md->num_executables : 1, sizeof(*m->task_names));
  if (!m->entries || !m->cpu_kernels || !m->task_names) {
    status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    goto fail;
  }
  for (size_t i = 0; i < md->num_executables; ++i) {
    size_t size = strlen(md->module_name) + strlen(md->executables[i].name) + 2;
    m->task_names[i] = malloc(size);
    if (!m->task_names[i]) {
      status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      goto fail;
    }
    snprintf(m->task_names[i], size, "%s.%s", md->module_name, md->executables[i].name);
  }

  status = open_via_memfd(view.payload, view.payload_size, &m->dl_handle, &m->fd);
  if (status != FW_OK && fw_status_code(status) == FW_STATUS_UNSUPPORTED) {
    fw_status_free(status);
    status = open_via_tmpfile(view.payload, view.payload_size, &m->dl_handle);
  }
  if (status != FW_OK) goto fail;

  struct link_map *map = NULL;
  if (dlinfo(m->dl_handle, RTLD_DI_LINKMAP, &map) != 0) map = NULL;
  for (size_t i = 0; i < md->num_functions; ++i) {
    void *sym = NULL;
    status = resolve_symbol(m->dl_handle, map, md->functions[i].symbol, &sym);
    if (status != FW_OK) {
      status = fw_status_annotate(status, "function @%s", md->functions[i].name);
      goto fail;
    }
    memcpy(&m->entries[i], &sym, sizeof(sym));
  }
  /* Compiled host code calls the runtime through a table the module defines. */
  void *table = NULL;
  fw_status_t no_table = resolve_symbol(m->dl_handle, map, "__fw_rt_table", &table);
  if (no_table == FW_OK) {
    status = check_table_size(table, md->abi_version);
    if (status != FW_OK) goto fail;
    fw_host_abi_fill_table((void **)table, md->abi_version);
  } else {
    fw_status_free(no_table); /* a module linked against the fw_rt_* symbols directly */
  }

  for (size_t i = 0; i < md->num_variants; ++i) {
    if (md->variants[i].kind != FW_VARIANT_KIND_CPU_SYMBOL) continue;
    /* Variants for an ISA level this processor lacks are never called. */
    fw_status_t isa = fw_cpu_check_isa_level(md->targets[md->variants[i].target].arch);
    if (isa != FW_OK) {
      fw_status_free(isa);
      continue;
    }
    void *sym = NULL;
    status = resolve_symbol(m->dl_handle, map, md->variants[i].kernel, &sym);
    if (status != FW_OK) {
      status = fw_status_annotate(status, "CPU variant %zu", i);
      goto fail;
    }
    memcpy(&m->cpu_kernels[i], &sym, sizeof(sym));
  }
  if (!fw_tuner_init(&m->tuner, md, (const void *const *)m->cpu_kernels, runtime->autotune) ||
      !init_division(m)) {
    status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    goto fail;
  }
  status = load_gpu_code(m, &view);
  if (status != FW_OK) goto fail;
  *out_module = m;
  return FW_OK;

fail:
  module_free(m);
  return status;
}

fw_status_t fw_module_load_file(fw_runtime_t *runtime, const char *path,
                                fw_module_t **out_module) {
  if (!out_module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_module is NULL");
  *out_module = NULL;
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!path) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "path is NULL");
  uint8_t *data = NULL;
  size_t size = 0;
  fw_status_t status = fw_read_file(path, &data, &size);
  if (status == FW_OK) status = module_load(runtime, data, size, out_module);
  free(data);
  return fw_status_annotate(status, "%s", path);
}

fw_status_t fw_module_load_memory(fw_runtime_t *runtime, const void *data, size_t size,
                                  fw_module_t **out_module) {
  if (!out_module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_module is NULL");
  *out_module = NULL;
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!data && size) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "data is NULL");
  /* Validate a private copy, so the validated bytes are the loaded bytes. */
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (size) memcpy(copy, data, size);
  fw_status_t status = module_load(runtime, copy, size, out_module);
  free(copy);
  return status;
}

void fw_module_retain(fw_module_t *module) {
  if (module) atomic_fetch_add_explicit(&module->refcount, 1, memory_order_relaxed);
}

void fw_module_release(fw_module_t *module) {
  if (!module) return;
  if (atomic_fetch_sub_explicit(&module->refcount, 1, memory_order_acq_rel) != 1) return;
  module_free(module);
}

/* ---- Reflection ------------------------------------------------------------- */

uint64_t fw_module_build_id(const fw_module_t *module) { return module ? module->build_id : 0; }

uint64_t fw_module_source_id(const fw_module_t *module) {
  return module ? module->md.source_id : 0;
}

const char *fw_module_name(const fw_module_t *module) {
  return module && module->md.module_name ? module->md.module_name : "";
}

size_t fw_module_function_count(const fw_module_t *module) {
  return module ? module->md.num_functions : 0;
}

fw_status_t fw_module_function_info(const fw_module_t *module, size_t index,
                                    fw_function_info_t *out_info) {
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  memset(out_info, 0, sizeof(*out_info));
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (index >= module->md.num_functions)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE, "function index %zu is out of range (%zu functions)",
                          index, module->md.num_functions);
  const fw_md_function_t *f = &module->md.functions[index];
  out_info->name = f->name;
  out_info->symbol = f->symbol;
  out_info->num_args = f->num_args;
  out_info->arg_types = module->md.values + f->first_arg;
  out_info->num_results = f->num_results;
  out_info->result_types = module->md.values + f->first_result;
  return FW_OK;
}

fw_status_t fw_module_lookup_function(const fw_module_t *module, const char *name,
                                      size_t *out_index) {
  if (!out_index) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_index is NULL");
  *out_index = 0;
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (!name) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "name is NULL");
  if (name[0] == '@') ++name;
  for (size_t i = 0; i < module->md.num_functions; ++i) {
    if (strcmp(module->md.functions[i].name, name) == 0) {
      *out_index = i;
      return FW_OK;
    }
  }
  return fw_status_make(FW_STATUS_NOT_FOUND, "module %s has no function @%s",
                        fw_module_name(module), name);
}

size_t fw_module_target_count(const fw_module_t *module) {
  return module ? module->md.num_targets : 0;
}

fw_status_t fw_module_target_info(const fw_module_t *module, size_t index,
                                  fw_target_info_t *out_info) {
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  memset(out_info, 0, sizeof(*out_info));
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (index >= module->md.num_targets)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE, "target index %zu is out of range (%zu targets)",
                          index, module->md.num_targets);
  const fw_md_target_t *t = &module->md.targets[index];
  out_info->kind = (fw_target_kind_t)t->kind;
  out_info->arch = t->arch;
  out_info->triple = t->triple;
  out_info->features = t->features;
  return FW_OK;
}

size_t fw_module_executable_count(const fw_module_t *module) {
  return module ? module->md.num_executables : 0;
}

/* Executable `index` of `module`, or the error naming what is wrong. */
static fw_status_t executable_at(const fw_module_t *module, size_t index,
                                 const fw_md_executable_t **out) {
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (index >= module->md.num_executables)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE,
                          "executable index %zu is out of range (%zu executables)", index,
                          module->md.num_executables);
  *out = &module->md.executables[index];
  return FW_OK;
}

fw_status_t fw_module_executable_info(const fw_module_t *module, size_t index,
                                      fw_executable_info_t *out_info) {
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  memset(out_info, 0, sizeof(*out_info));
  const fw_md_executable_t *e = NULL;
  fw_status_t status = executable_at(module, index, &e);
  if (status != FW_OK) return status;
  out_info->name = e->name;
  out_info->num_bindings = e->num_bindings;
  out_info->bindings = module->md.bindings + e->first_binding;
  out_info->num_variants = e->num_variants;
  out_info->cost_flops = e->cost_flops;
  out_info->cost_bytes = e->cost_bytes;
  out_info->priority = e->priority;
  out_info->num_checks = e->num_checks;
  out_info->checks = e->num_checks ? module->md.checks + e->first_check : NULL;
  return FW_OK;
}

size_t fw_module_cost_term_count(const fw_module_t *module, size_t executable) {
  if (!module || executable >= module->md.num_executables) return 0;
  return module->md.executables[executable].num_cost_terms;
}

fw_status_t fw_module_cost_term_info(const fw_module_t *module, size_t executable,
                                     size_t term, fw_cost_term_info_t *out_info) {
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  memset(out_info, 0, sizeof(*out_info));
  const fw_md_executable_t *e = NULL;
  fw_status_t status = executable_at(module, executable, &e);
  if (status != FW_OK) return status;
  if (term >= e->num_cost_terms)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE,
                          "cost term %zu of @%s is out of range (%u terms)", term, e->name,
                          e->num_cost_terms);
  const fw_md_cost_term_t *t = &module->md.cost_terms[e->first_cost_term + term];
  _Static_assert(FW_MAX_COST_FACTORS == FW_MD_MAX_COST_FACTORS, "one factor limit");
  out_info->coefficient = t->coefficient;
  out_info->num_factors = t->num_factors;
  for (uint32_t k = 0; k < t->num_factors; ++k) {
    out_info->binding[k] = t->binding[k];
    out_info->dim[k] = t->dim[k];
  }
  return FW_OK;
}

size_t fw_module_image_count(const fw_module_t *module) {
  return module ? module->md.num_images : 0;
}

fw_status_t fw_module_image_info(const fw_module_t *module, size_t index,
                                 fw_image_info_t *out_info) {
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  memset(out_info, 0, sizeof(*out_info));
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (index >= module->md.num_images)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE, "image index %zu is out of range (%zu images)",
                          index, module->md.num_images);
  const fw_md_image_t *im = &module->md.images[index];
  out_info->target = im->target;
  out_info->format = (fw_image_format_t)im->format;
  out_info->size = im->size;
  return FW_OK;
}

fw_status_t fw_module_variant_info(const fw_module_t *module, size_t executable, size_t variant,
                                   fw_variant_info_t *out_info) {
  if (!out_info) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_info is NULL");
  memset(out_info, 0, sizeof(*out_info));
  const fw_md_executable_t *e = NULL;
  fw_status_t status = executable_at(module, executable, &e);
  if (status != FW_OK) return status;
  if (variant >= e->num_variants)
    return fw_status_make(FW_STATUS_OUT_OF_RANGE,
                          "variant index %zu of executable @%s is out of range (%u variants)",
                          variant, e->name, e->num_variants);
  const fw_md_variant_t *v = &module->md.variants[e->first_variant + variant];
  out_info->target = v->target;
  out_info->kind = (fw_variant_kind_t)v->kind;
  out_info->kernel = v->kernel;
  memcpy(out_info->workgroup_size, v->workgroup_size, sizeof(out_info->workgroup_size));
  out_info->config = v->config;
  return FW_OK;
}

fw_status_t fw_module_division(fw_module_t *module, fw_division_visit_fn_t visit,
                               void *user_data) {
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (!visit) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "visit is NULL");
  fw_division_visit(&module->division, visit, user_data);
  return FW_OK;
}

fw_status_t fw_module_tuning(fw_module_t *module, fw_tuning_visit_fn_t visit, void *user_data) {
  if (!module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "module is NULL");
  if (!visit) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "visit is NULL");
  fw_tuner_visit(&module->tuner, &module->md, "cpu", visit, user_data);
  fw_runtime_t *rt = module->runtime;
  for (uint32_t d = 1; rt && d < rt->num_devices; ++d)
    fw_tuner_visit(&module->gpu_tuners[d], &module->md,
                   rt->memory.nodes[rt->device_node[d]].name, visit, user_data);
  return FW_OK;
}
