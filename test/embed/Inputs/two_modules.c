/* Two compiled modules linked into one C program, used through their
 * generated headers. */
#include <stdio.h>

#include "adder.h"
#include "check_status.h"
#include "scaler.h"

int main(void) {
  fw_runtime_t *rt = NULL;
  fw_module_t *adder = NULL, *scaler = NULL;
  fw_buffer_t *a = NULL, *b = NULL, *sum = NULL, *twice = NULL, *thrice = NULL;
  const float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40};
  const int64_t dims[1] = {4};
  if (check(fw_runtime_create(NULL, &rt)) || check(adder_load(rt, &adder)) ||
      check(scaler_load(rt, &scaler)) ||
      check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, av, sizeof(av), &a)) ||
      check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, bv, sizeof(bv), &b)) ||
      check(adder_add(adder, a, b, &sum)) || check(scaler_scale(scaler, sum, &twice, &thrice)))
    return 1;
  const float *s = fw_buffer_data(sum), *t = fw_buffer_data(twice), *u = fw_buffer_data(thrice);
  printf("sum %g %g %g %g\n", s[0], s[1], s[2], s[3]);
  printf("twice %g %g %g %g\n", t[0], t[1], t[2], t[3]);
  printf("thrice %g %g %g %g\n", u[0], u[1], u[2], u[3]);
  /* Wrong shapes through the typed entry point give a status, not a crash. */
  fw_buffer_t *bad = NULL;
  if (check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, av, sizeof(av), &bad))) return 1;
  fw_buffer_t *unused = NULL;
  const int64_t five[1] = {5};
  fw_buffer_t *wrong = NULL;
  if (check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, five, NULL, 0, &wrong))) return 1;
  fw_status_t status = adder_add(adder, wrong, b, &unused);
  printf("wrong shape: %s\n", fw_status_message(status));
  fw_status_free(status);
  status = adder_add(NULL, a, b, &unused);
  printf("null module: %s\n", fw_status_message(status));
  fw_status_free(status);
  fw_buffer_release(wrong);
  fw_buffer_release(bad);
  fw_buffer_release(thrice);
  fw_buffer_release(twice);
  fw_buffer_release(sum);
  fw_buffer_release(b);
  fw_buffer_release(a);
  fw_module_release(scaler);
  fw_module_release(adder);
  fw_runtime_destroy(rt);
  return 0;
}
