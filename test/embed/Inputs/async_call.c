/* fw_module_call_async on a compiled function returns once the function's tasks are
 * submitted, not once they ran: here they wait behind a C task that holds their input
 * until the program opens a gate, which it does only after the call returned. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "adder.h"
#include "check_status.h"

static atomic_int gate_open, gate_ran;

/* Holds its buffer until the gate opens (10 s at most), then adds 100 to its first
 * element: the call must read that. */
static void gate(void *user, void *const *data, size_t num) {
  (void)user;
  (void)num;
  const struct timespec ms = {0, 1000000};
  for (int i = 0; i < 10000 && !atomic_load(&gate_open); ++i) nanosleep(&ms, NULL);
  ((float *)data[0])[0] += 100;
  atomic_store(&gate_ran, 1);
}

int main(void) {
  fw_runtime_options_t options = {0};
  options.num_workers = 2;
  fw_runtime_t *rt = NULL;
  fw_module_t *adder = NULL;
  fw_buffer_t *args[2] = {NULL, NULL}, *sum = NULL;
  const float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40};
  const int64_t dims[1] = {4};
  if (check(fw_runtime_create(&options, &rt)) || check(adder_load(rt, &adder)) ||
      check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, av, sizeof(av), &args[0])) ||
      check(fw_buffer_create(rt, FW_ELEMENT_TYPE_F32, 1, dims, bv, sizeof(bv), &args[1])))
    return 1;
  fw_task_access_t access = {args[0], FW_ACCESS_READ_WRITE};
  fw_task_desc_t desc = {0};
  desc.name = "gate";
  desc.fn = gate;
  desc.accesses = &access;
  desc.num_accesses = 1;
  fw_call_t *call = NULL;
  if (check(fw_task_submit(rt, &desc, NULL)) ||
      check(fw_module_call_async(adder, 0, args, 2, &call)))
    return 1;
  printf("returned before its tasks ran: %s\n",
         !atomic_load(&gate_ran) && !fw_call_is_done(call) ? "yes" : "no");
  atomic_store(&gate_open, 1);
  if (check(fw_call_wait(call, &sum, 1))) return 1;
  const float *s = fw_buffer_data(sum);
  printf("sum %g %g %g %g\n", s[0], s[1], s[2], s[3]);
  fw_buffer_release(sum);
  fw_buffer_release(args[1]);
  fw_buffer_release(args[0]);
  fw_module_release(adder);
  fw_runtime_destroy(rt);
  return 0;
}
