/* fw-task-gpu-check: C tasks with a CUDA implementation on the GPU, through the public API
 * alone. Rounds of a task that only the GPU can run (cuda_fn: cuMemsetD8Async of its
 * buffer to the round's number, on the stream the runtime gives it) followed by a task
 * only the CPU can run (fn: checks every byte), so that each round moves the buffer from
 * the GPU back to host memory; then tasks with both implementations, placed by the
 * scheduler; then reductions (FW_ACCESS_REDUCE, a maximum) with a contribution only the
 * GPU can run (its accumulator in the GPU's memory, set by the memset, brought back) and
 * two the CPU can; then sums, whose GPU accumulator the runtime sets to zero on the GPU
 * (the GPU's contribution adds nothing to it). Checks the values, and that the GPU and
 * the CPU each ran what they alone could. Prints "skipped: ..." and exits 0 where there is
 * no CUDA device. For scripts/gpu-check.sh on the GPU node; ctest runs it against the
 * stand-in driver. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fw/runtime.h"

#define BYTES (1u << 20)
#define ROUNDS 64

typedef int (*memset_d8_async_fn)(unsigned long long dst, unsigned char value, size_t n,
                                  void *stream);
static memset_d8_async_fn g_memset;

typedef struct {
  unsigned char value;
  atomic_int *failures;
} round_t;

static fw_status_t fill_on_gpu(void *user, void *const *data, size_t num, void *stream) {
  const round_t *r = user;
  if (num != 1 || !stream) {
    atomic_fetch_add(r->failures, 1);
    return FW_OK;
  }
  int error = g_memset((unsigned long long)(uintptr_t)data[0], r->value, BYTES, stream);
  if (error == 0) return FW_OK;
  char message[64];
  snprintf(message, sizeof(message), "cuMemsetD8Async failed: CUDA error %d", error);
  return fw_status_create(FW_STATUS_INTERNAL, message);
}

static void fill_on_cpu(void *user, void *const *data, size_t num) {
  const round_t *r = user;
  if (num == 1) memset(data[0], r->value, BYTES);
  else atomic_fetch_add(r->failures, 1);
}

static void check_on_cpu(void *user, void *const *data, size_t num) {
  const round_t *r = user;
  const unsigned char *p = num == 1 ? data[0] : NULL;
  for (size_t i = 0; p && i < BYTES; ++i)
    if (p[i] != r->value) {
      atomic_fetch_add(r->failures, 1);
      return;
    }
}

static int fail(const char *what, fw_status_t s) {
  printf("FAIL %s: %s\n", what, fw_status_message(s));
  fw_status_free(s);
  return 1;
}

static fw_status_t submit(fw_runtime_t *rt, const char *name, fw_buffer_t *b, fw_access_t mode,
                          fw_task_fn_t fn, fw_task_gpu_fn_t cuda_fn, round_t *r) {
  fw_task_access_t access = {b, mode};
  fw_task_desc_t d;
  memset(&d, 0, sizeof(d));
  d.name = name;
  d.fn = fn;
  d.cuda_fn = cuda_fn;
  d.user_data = r;
  d.accesses = &access;
  d.num_accesses = 1;
  d.bytes = BYTES;
  return fw_task_submit(rt, &d, NULL);
}

/* ROUNDS rounds of a fill (on the GPU, and with `fill_cpu` on the CPU too) and a check on
 * the CPU, of values first + 1, first + 2, ... (kept in rounds[first ...]). How many tasks
 * the GPU and the CPU ran meanwhile go to *gpu_ran and *cpu_ran. */
static fw_status_t run_rounds(fw_runtime_t *rt, fw_buffer_t *b, round_t *rounds, int first,
                              fw_task_fn_t fill_cpu, atomic_int *failures, uint64_t *gpu_ran,
                              uint64_t *cpu_ran) {
  fw_runtime_stats_t before, after;
  fw_status_t s = fw_runtime_get_stats(rt, &before);
  for (int i = first; !s && i < first + ROUNDS; ++i) {
    rounds[i].value = (unsigned char)(i + 1);
    rounds[i].failures = failures;
    s = submit(rt, fill_cpu ? "fill" : "fill-gpu", b, FW_ACCESS_WRITE, fill_cpu, fill_on_gpu,
               &rounds[i]);
    if (!s) s = submit(rt, "check", b, FW_ACCESS_READ, check_on_cpu, NULL, &rounds[i]);
  }
  if (!s) s = fw_runtime_wait_all(rt);
  if (!s) s = fw_runtime_get_stats(rt, &after);
  if (s) return s;
  *gpu_ran = after.devices[1].tasks - before.devices[1].tasks;
  *cpu_ran = after.devices[0].tasks - before.devices[0].tasks;
  return FW_OK;
}

/* acc = max(acc, value), byte by byte (a contribution to a maximum of i8). */
static void max_on_cpu(void *user, void *const *data, size_t num) {
  const round_t *r = user;
  signed char *p = num == 1 ? data[0] : NULL;
  if (!p) atomic_fetch_add(r->failures, 1);
  for (size_t i = 0; p && i < BYTES; ++i)
    if (p[i] < (signed char)r->value) p[i] = (signed char)r->value;
}

/* ROUNDS groups of contributions to a maximum in `m`, each after a reset to 0: one only
 * the GPU can run (its accumulator there, set to the round's value, the largest), two only
 * the CPU can (one and two less), and a check on the CPU that the buffer holds the GPU's
 * value. How many contributions the GPU ran goes to *gpu_ran. */
static fw_status_t run_reductions(fw_runtime_t *rt, fw_buffer_t *m, atomic_int *failures,
                                  uint64_t *gpu_ran) {
  static round_t zero, parts[ROUNDS][3];
  zero.failures = failures;
  fw_runtime_stats_t before, after;
  fw_status_t s = fw_runtime_get_stats(rt, &before);
  for (int i = 0; !s && i < ROUNDS; ++i) {
    for (int k = 0; k < 3; ++k) {
      parts[i][k].value = (unsigned char)(20 + i - k);
      parts[i][k].failures = failures;
    }
    s = submit(rt, "reset", m, FW_ACCESS_WRITE, fill_on_cpu, NULL, &zero);
    if (!s) s = submit(rt, "part-gpu", m, FW_ACCESS_REDUCE, NULL, fill_on_gpu, &parts[i][0]);
    for (int k = 1; !s && k < 3; ++k)
      s = submit(rt, "part-cpu", m, FW_ACCESS_REDUCE, max_on_cpu, NULL, &parts[i][k]);
    if (!s) s = submit(rt, "check", m, FW_ACCESS_READ, check_on_cpu, NULL, &parts[i][0]);
  }
  if (!s) s = fw_runtime_wait_all(rt);
  if (!s) s = fw_runtime_get_stats(rt, &after);
  if (s) return s;
  *gpu_ran = after.devices[1].tasks - before.devices[1].tasks;
  return FW_OK;
}

/* acc += value, byte by byte (a contribution to a sum of i8). */
static void add_on_cpu(void *user, void *const *data, size_t num) {
  const round_t *r = user;
  signed char *p = num == 1 ? data[0] : NULL;
  if (!p) atomic_fetch_add(r->failures, 1);
  for (size_t i = 0; p && i < BYTES; ++i) p[i] = (signed char)(p[i] + r->value);
}

/* A contribution on the GPU that adds nothing: its accumulator comes home as it was set. */
static fw_status_t nothing_on_gpu(void *user, void *const *data, size_t num, void *stream) {
  const round_t *r = user;
  (void)data;
  if (num != 1 || !stream) atomic_fetch_add(r->failures, 1);
  return FW_OK;
}

/* ROUNDS groups of contributions to a sum in `m` (built in: the GPU's accumulator is set
 * to zero in its own memory, which the rounds of maxima before left other values in),
 * each after a reset to 0: one only the GPU can run, adding nothing, and two only the CPU
 * can (1 and 2), and a check on the CPU that the buffer holds 3. How many contributions
 * the GPU ran goes to *gpu_ran. */
static fw_status_t run_sums(fw_runtime_t *rt, fw_buffer_t *m, atomic_int *failures,
                            uint64_t *gpu_ran) {
  static round_t zero, three, parts[3];
  zero.failures = three.failures = failures;
  three.value = 3;
  for (int k = 0; k < 3; ++k) {
    parts[k].value = (unsigned char)k;
    parts[k].failures = failures;
  }
  fw_runtime_stats_t before, after;
  fw_status_t s = fw_runtime_get_stats(rt, &before);
  for (int i = 0; !s && i < ROUNDS; ++i) {
    s = submit(rt, "reset", m, FW_ACCESS_WRITE, fill_on_cpu, NULL, &zero);
    if (!s) s = submit(rt, "part-gpu", m, FW_ACCESS_REDUCE, NULL, nothing_on_gpu, &parts[0]);
    for (int k = 1; !s && k < 3; ++k)
      s = submit(rt, "part-cpu", m, FW_ACCESS_REDUCE, add_on_cpu, NULL, &parts[k]);
    if (!s) s = submit(rt, "check", m, FW_ACCESS_READ, check_on_cpu, NULL, &three);
  }
  if (!s) s = fw_runtime_wait_all(rt);
  if (!s) s = fw_runtime_get_stats(rt, &after);
  if (s) return s;
  *gpu_ran = after.devices[1].tasks - before.devices[1].tasks;
  return FW_OK;
}

/* Runs `run` on a new buffer of BYTES reduced by `op`, and prints what it saw: 1 when a
 * value was wrong or the GPU did not run each round's contribution; `*error` when the
 * runtime failed (printed). */
static int check_reductions(fw_runtime_t *rt, const char *what, fw_reduction_op_t op,
                            fw_status_t (*run)(fw_runtime_t *, fw_buffer_t *, atomic_int *,
                                               uint64_t *),
                            atomic_int *failures, int *error) {
  int64_t dims[1] = {BYTES};
  fw_buffer_t *m = NULL;
  uint64_t gpu_ran = 0;
  fw_status_t s = fw_buffer_create(rt, FW_ELEMENT_TYPE_I8, 1, dims, NULL, 0, &m);
  if (!s) s = fw_buffer_set_reduction_op(m, op);
  if (!s) s = run(rt, m, failures, &gpu_ran);
  fw_buffer_release(m);
  if (s) {
    *error = fail(what, s);
    return 1;
  }
  printf("%s: %d, GPU ran %llu contributions, failures %d\n", what, ROUNDS,
         (unsigned long long)gpu_ran, atomic_load(failures));
  return atomic_load(failures) != 0 || gpu_ran != ROUNDS;
}

int main(void) {
  fw_runtime_options_t o;
  memset(&o, 0, sizeof(o));
  o.devices = "cpu,cuda";
  o.num_workers = 2;
  fw_runtime_t *rt = NULL;
  fw_status_t s = fw_runtime_create(&o, &rt);
  if (s) return fail("runtime", s);
  fw_runtime_stats_t st;
  s = fw_runtime_get_stats(rt, &st);
  if (s) return fail("stats", s);
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (st.num_devices < 2 || !cuda) {
    printf("skipped: no CUDA device in service\n");
    fw_runtime_destroy(rt);
    return 0;
  }
  g_memset = (memset_d8_async_fn)dlsym(cuda, "cuMemsetD8Async");
  if (!g_memset) {
    printf("FAIL the driver has no cuMemsetD8Async\n");
    return 1;
  }
  printf("device: %s\n", st.devices[1].name);
  int64_t dims[1] = {BYTES};
  fw_buffer_t *b = NULL;
  s = fw_buffer_create(rt, FW_ELEMENT_TYPE_I8, 1, dims, NULL, 0, &b);
  if (s) return fail("buffer", s);
  atomic_int failures = 0;
  round_t rounds[ROUNDS * 2];
  uint64_t gpu_ran = 0, cpu_ran = 0;
  s = run_rounds(rt, b, rounds, 0, NULL, &failures, &gpu_ran, &cpu_ran);
  if (s) return fail("GPU-only rounds", s);
  printf("GPU-only rounds: %d, GPU ran %llu, CPU ran %llu, failures %d\n", ROUNDS,
         (unsigned long long)gpu_ran, (unsigned long long)cpu_ran, atomic_load(&failures));
  int bad = atomic_load(&failures) != 0 || gpu_ran != ROUNDS || cpu_ran != ROUNDS;
  /* Both implementations: wherever the scheduler puts each fill, the check sees it. */
  s = run_rounds(rt, b, rounds, ROUNDS, fill_on_cpu, &failures, &gpu_ran, &cpu_ran);
  if (s) return fail("rounds with both implementations", s);
  printf("rounds with both: %d, GPU ran %llu, CPU ran %llu, failures %d\n", ROUNDS,
         (unsigned long long)gpu_ran, (unsigned long long)cpu_ran, atomic_load(&failures));
  bad |= atomic_load(&failures) != 0;
  int error = 0;
  bad |= check_reductions(rt, "reductions", FW_REDUCTION_MAX, run_reductions, &failures, &error);
  if (!error) bad |= check_reductions(rt, "sums", FW_REDUCTION_SUM, run_sums, &failures, &error);
  if (error) return 1;
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
  printf(bad ? "FAIL C tasks on the GPU\n" : "ok\n");
  return bad;
}
