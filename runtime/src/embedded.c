/* The registry of embedded modules: objects compiled by fwc and linked into the program
 * register their .fwb bytes from a static constructor, before main and before any runtime
 * exists, so the registry is process-global (the runtime's only global state). A mutex
 * guards it; records are linked through their `next` field in registration order. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"
#include "status_internal.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static fw_embedded_module_t *g_head; /* guarded by g_lock */

void fw_embedded_module_register(fw_embedded_module_t *module) {
  if (!module) return;
  pthread_mutex_lock(&g_lock);
  fw_embedded_module_t **link = &g_head;
  while (*link && *link != module) link = &(*link)->next;
  if (!*link) {
    module->next = NULL;
    *link = module;
  }
  pthread_mutex_unlock(&g_lock);
}

void fw_embedded_module_unregister(fw_embedded_module_t *module) {
  if (!module) return;
  pthread_mutex_lock(&g_lock);
  for (fw_embedded_module_t **link = &g_head; *link; link = &(*link)->next) {
    if (*link != module) continue;
    *link = module->next;
    module->next = NULL;
    break;
  }
  pthread_mutex_unlock(&g_lock);
}

size_t fw_embedded_module_count(void) {
  size_t count = 0;
  pthread_mutex_lock(&g_lock);
  for (const fw_embedded_module_t *m = g_head; m; m = m->next) ++count;
  pthread_mutex_unlock(&g_lock);
  return count;
}

const char *fw_embedded_module_name(size_t index) {
  const char *name = NULL;
  pthread_mutex_lock(&g_lock);
  const fw_embedded_module_t *m = g_head;
  for (size_t i = 0; m && i < index; ++i) m = m->next;
  if (m) name = m->name ? m->name : "";
  pthread_mutex_unlock(&g_lock);
  return name;
}

/* "a, b, c" (or "none") into a new string; NULL when out of memory. Holds g_lock. */
static char *registered_names_locked(void) {
  size_t length = 1;
  for (const fw_embedded_module_t *m = g_head; m; m = m->next)
    length += strlen(m->name ? m->name : "") + 2;
  char *names = malloc(length + 4);
  if (!names) return NULL;
  names[0] = '\0';
  if (!g_head) return strcpy(names, "none");
  char *p = names;
  for (const fw_embedded_module_t *m = g_head; m; m = m->next)
    p += sprintf(p, "%s%s", p == names ? "" : ", ", m->name ? m->name : "");
  return names;
}

fw_status_t fw_module_load_embedded(fw_runtime_t *runtime, const char *name,
                                    fw_module_t **out_module) {
  if (!out_module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_module is NULL");
  *out_module = NULL;
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!name) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "name is NULL");

  /* Copy the record under the lock; its bytes stay valid while it is registered. */
  fw_embedded_module_t found;
  int have = 0;
  char *names = NULL;
  pthread_mutex_lock(&g_lock);
  for (const fw_embedded_module_t *m = g_head; m && !have; m = m->next) {
    if (m->name && strcmp(m->name, name) == 0) {
      found = *m;
      have = 1;
    }
  }
  if (!have) names = registered_names_locked();
  pthread_mutex_unlock(&g_lock);

  if (!have) {
    fw_status_t status = fw_status_make(FW_STATUS_NOT_FOUND,
                                        "no embedded module named \"%s\" (registered: %s)",
                                        name, names ? names : "?");
    free(names);
    return status;
  }
  return fw_module_load_embedded_record(runtime, &found, out_module);
}

fw_status_t fw_module_load_embedded_record(fw_runtime_t *runtime,
                                           const fw_embedded_module_t *record,
                                           fw_module_t **out_module) {
  if (!out_module) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_module is NULL");
  *out_module = NULL;
  if (!runtime) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "runtime is NULL");
  if (!record) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "record is NULL");
  const char *name = record->name ? record->name : "(unnamed)";
  if (record->abi_version == 0 || record->abi_version > FW_EMBEDDED_ABI_VERSION)
    return fw_status_make(FW_STATUS_UNSUPPORTED,
                          "embedded module \"%s\" was built for embedding ABI version %u; "
                          "this runtime supports version %u",
                          name, record->abi_version, FW_EMBEDDED_ABI_VERSION);
  fw_status_t status = fw_module_load_memory(runtime, record->data, record->size, out_module);
  return fw_status_annotate(status, "embedded module \"%s\"", name);
}
