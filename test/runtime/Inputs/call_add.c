/* Loads a fat binary and calls @add(4xf32, 4xf32) -> 4xf32 through the public
 * runtime API. Linked without exporting the runtime's symbols to dlopen'ed
 * objects: the module must reach the runtime through its function table. */
#include <stdio.h>

#include "fw/runtime.h"

static int report(fw_status_t status) {
  fprintf(stderr, "error: %s\n", fw_status_message(status));
  fw_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  fw_runtime_t *rt = NULL;
  fw_module_t *module = NULL;
  fw_buffer_t *args[2] = {NULL, NULL}, *result = NULL;
  size_t function = 0;
  const float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  const int64_t dims[1] = {4};
  fw_status_t s = fw_runtime_create(NULL, &rt);
  if (!s) s = fw_module_load_file(rt, argv[1], &module);
  if (!s) s = fw_module_lookup_function(module, "add", &function);
  if (!s) s = fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, a, sizeof(a), &args[0]);
  if (!s) s = fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, b, sizeof(b), &args[1]);
  if (!s) s = fw_module_call(module, function, args, 2, &result, 1);
  int rc = 0;
  if (s) {
    rc = report(s);
  } else {
    const float *r = fw_buffer_data(result);
    printf("%g %g %g %g\n", r[0], r[1], r[2], r[3]);
  }
  fw_buffer_release(result);
  fw_buffer_release(args[0]);
  fw_buffer_release(args[1]);
  fw_module_release(module);
  fw_runtime_destroy(rt);
  return rc;
}
