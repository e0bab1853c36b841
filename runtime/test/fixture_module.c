/* The test fixture module: host entries written against the host-call ABI and a CPU
 * kernel written against the CPU kernel ABI (docs/runtime.md), as fwc would emit them.
 * The fw_rt_* functions are resolved from the executable that loads the module. */
#include <stdint.h>
#include <string.h>

typedef struct fw_invocation_t fw_invocation_t;
extern void *fw_rt_arg(fw_invocation_t *inv, int64_t index);
extern int64_t fw_rt_buffer_dim(fw_invocation_t *inv, void *buffer, int64_t dim);
extern void *fw_rt_buffer_alloc(fw_invocation_t *inv, int32_t tier, int32_t element_type,
                                int64_t rank, const int64_t *dims);
extern void fw_rt_buffer_release(fw_invocation_t *inv, void *buffer);
extern void *fw_rt_dispatch(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                            void *const *buffers);
extern void *fw_rt_dispatch_after(fw_invocation_t *inv, int64_t executable, int64_t num_buffers,
                                  void *const *buffers, int64_t num_after, void *const *after);
extern void fw_rt_wait(fw_invocation_t *inv, void *token);
extern void fw_rt_set_result(fw_invocation_t *inv, int64_t index, void *buffer);
extern void fw_rt_assert(fw_invocation_t *inv, int32_t condition, const char *message);

#if defined(FW_FIXTURE_FLAVOUR_v1table) || defined(FW_FIXTURE_FLAVOUR_shorttable)
/* The function table of host-call ABI version 1 (9 entries), which the runtime fills at
 * load time, and right behind it a slot that must stay NULL: the runtime fills no more
 * than the module's version has. One block, so that the slot follows the table. (These
 * entries call the fw_rt_* symbols directly; @add only checks the table.) */
__asm__(".pushsection .data\n"
        ".balign 8\n"
        ".globl __fw_rt_table\n"
        ".type __fw_rt_table, @object\n"
        ".size __fw_rt_table, 72\n"
        "__fw_rt_table:\n"
        ".zero 72\n"
        ".hidden fixture_table_canary\n"
        ".globl fixture_table_canary\n"
        ".type fixture_table_canary, @object\n"
        ".size fixture_table_canary, 8\n"
        "fixture_table_canary:\n"
        ".zero 8\n"
        ".popsection\n");
extern void *__fw_rt_table[9];
extern void *fixture_table_canary;
#endif

typedef struct {
  uint32_t id[3];
  uint32_t count[3];
  uint32_t *error; /* ABI version 3 */
} fw_workgroup_t;

typedef struct {
  float *allocated, *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} memref_2d_f32_t;

/* c = a + b for ?x4xf32 operands. */
void fixture_add_kernel(void *const *descriptors, const fw_workgroup_t *workgroup) {
  const memref_2d_f32_t *a = descriptors[0], *b = descriptors[1], *c = descriptors[2];
  if (workgroup->count[0] != 1 || workgroup->id[0] != 0) return;
  for (int64_t i = 0; i < c->sizes[0]; ++i)
    for (int64_t j = 0; j < c->sizes[1]; ++j)
      c->aligned[c->offset + i * c->strides[0] + j * c->strides[1]] =
          a->aligned[a->offset + i * a->strides[0] + j * a->strides[1]] +
          b->aligned[b->offset + i * b->strides[0] + j * b->strides[1]];
}

/* c = a + b + 1000 * count for this workgroup's rows (the "split" flavour): each row is
 * written by exactly one of `count` workgroups. */
void fixture_split_add_kernel(void *const *descriptors, const fw_workgroup_t *workgroup) {
  const memref_2d_f32_t *a = descriptors[0], *b = descriptors[1], *c = descriptors[2];
  int64_t rows = c->sizes[0], count = workgroup->count[0], id = workgroup->id[0];
  for (int64_t i = rows * id / count; i < rows * (id + 1) / count; ++i)
    for (int64_t j = 0; j < c->sizes[1]; ++j)
      c->aligned[c->offset + i * c->strides[0] + j * c->strides[1]] =
          a->aligned[a->offset + i * a->strides[0] + j * a->strides[1]] +
          b->aligned[b->offset + i * b->strides[0] + j * b->strides[1]] + 1000.0f * count;
}

#if defined(FW_FIXTURE_FLAVOUR_checks)
/* c = a + b for this workgroup's rows (the "checks" flavour), checking each element of a
 * as an index would be: below 0 fails check 1 (leaves 2 in the error word: n + 1 - k of the
 * metadata's n = 2), from 10^6 on check 2 (leaves 1), from 2 * 10^6 leaves 7 (which no check
 * has). The largest value wins, as in fwc's kernels. */
void fixture_checked_add_kernel(void *const *descriptors, const fw_workgroup_t *workgroup) {
  const memref_2d_f32_t *a = descriptors[0], *b = descriptors[1], *c = descriptors[2];
  int64_t rows = c->sizes[0], count = workgroup->count[0], id = workgroup->id[0];
  for (int64_t i = rows * id / count; i < rows * (id + 1) / count; ++i)
    for (int64_t j = 0; j < c->sizes[1]; ++j) {
      float x = a->aligned[a->offset + i * a->strides[0] + j * a->strides[1]];
      uint32_t failed = x < 0 ? 2 : x >= 2e6f ? 7 : x >= 1e6f ? 1 : 0;
      uint32_t seen = __atomic_load_n(workgroup->error, __ATOMIC_RELAXED);
      while (failed > seen && !__atomic_compare_exchange_n(workgroup->error, &seen, failed, 1,
                                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
      c->aligned[c->offset + i * c->strides[0] + j * c->strides[1]] =
          x + b->aligned[b->offset + i * b->strides[0] + j * b->strides[1]];
    }
}
#endif

void __fw_entry_add(fw_invocation_t *inv) {
#if defined(FW_FIXTURE_FLAVOUR_v1table)
  fw_rt_assert(inv, __fw_rt_table[8] != NULL, "the runtime did not fill the table");
  fw_rt_assert(inv, fixture_table_canary == NULL, "the runtime wrote past the version-1 table");
#endif
  void *a = fw_rt_arg(inv, 0);
  void *b = fw_rt_arg(inv, 1);
  int64_t n = fw_rt_buffer_dim(inv, a, 0);
  fw_rt_assert(inv, n == fw_rt_buffer_dim(inv, b, 0), "dimension 0 of the operands differs");
  int64_t dims[2] = {n, 4};
  void *c = fw_rt_buffer_alloc(inv, 0, /*f32*/ 1, 2, dims);
  void *buffers[3] = {a, b, c};
  (void)fw_rt_dispatch(inv, 0, 3, buffers); /* not waited for: fw_call_wait does */
  fw_rt_set_result(inv, 0, c);
  fw_rt_buffer_release(inv, c);
}

/* Returns its first argument (a result that is an argument's buffer). */
void __fw_entry_identity(fw_invocation_t *inv) { fw_rt_set_result(inv, 0, fw_rt_arg(inv, 0)); }

/* Makes the module depend on libc, so that a kernel symbol named after a libc function
 * ("libcsym" flavour) resolves through the module's dependencies. */
void fixture_shift(char *p, unsigned long n) { memmove(p, p + 1, n); }

/* Error paths: each keeps going after the first error, as compiled code does. */
void __fw_entry_bad_dispatch(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  void *buffers[2] = {a, a};
  void *token = fw_rt_dispatch(inv, 0, 2, buffers);
  fw_rt_wait(inv, token);
  fw_rt_set_result(inv, 0, a);
}

void __fw_entry_no_result(fw_invocation_t *inv) { (void)fw_rt_arg(inv, 0); }

void __fw_entry_leak(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  int64_t dims[2] = {fw_rt_buffer_dim(inv, a, 0), 4};
  void *c = fw_rt_buffer_alloc(inv, 1, 1, 2, dims);
  (void)fw_rt_buffer_alloc(inv, 2, 1, 2, dims); /* never released */
  fw_rt_set_result(inv, 0, c);                  /* c never released either */
}

void __fw_entry_bad_arg(fw_invocation_t *inv) {
  void *x = fw_rt_arg(inv, 5);
  int64_t dims[2] = {1, 4};
  void *c = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  fw_rt_set_result(inv, 0, c ? c : x);
}

void __fw_entry_wrong_binding(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  int64_t dims[2] = {3, 5};
  void *c = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  void *buffers[3] = {a, a, c};
  fw_rt_wait(inv, fw_rt_dispatch(inv, 0, 3, buffers));
  fw_rt_set_result(inv, 0, a);
}

void __fw_entry_bad_handle(fw_invocation_t *inv) {
  int64_t d = fw_rt_buffer_dim(inv, (void *)(uintptr_t)0x1234, 0);
  int64_t dims[2] = {d, 4};
  fw_rt_set_result(inv, 0, fw_rt_buffer_alloc(inv, 0, 1, 2, dims));
}

void __fw_entry_early_stop(fw_invocation_t *inv) {
  int64_t dims[2] = {2, 4};
  void *c = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  fw_rt_assert(inv, 0, "early stop requested");
  fw_rt_set_result(inv, 0, c);
  fw_rt_buffer_release(inv, c);
}

void __fw_entry_wrong_result(fw_invocation_t *inv) {
  int64_t dims[2] = {2, 5};
  void *c = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  fw_rt_set_result(inv, 0, c);
  fw_rt_buffer_release(inv, c);
}

void __fw_entry_bad_token(fw_invocation_t *inv) {
  fw_rt_wait(inv, (void *)(uintptr_t)0x40);
  fw_rt_set_result(inv, 0, fw_rt_arg(inv, 0));
}

void __fw_entry_release_arg(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  fw_rt_buffer_release(inv, a);
  fw_rt_set_result(inv, 0, a);
}

void __fw_entry_double_result(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  fw_rt_set_result(inv, 0, a);
  fw_rt_set_result(inv, 0, a);
}

/* c = a + b, and then b + b into a buffer of its own, after the first dispatch although
 * no buffer orders them (an `after` token). The result is c. */
void __fw_entry_add_after(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  void *b = fw_rt_arg(inv, 1);
  int64_t dims[2] = {fw_rt_buffer_dim(inv, a, 0), 4};
  void *c = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  void *d = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  void *first[3] = {a, b, c};
  void *token = fw_rt_dispatch(inv, 0, 3, first);
  void *second[3] = {b, b, d};
  (void)fw_rt_dispatch_after(inv, 0, 3, second, 1, &token);
  fw_rt_buffer_release(inv, d);
  fw_rt_set_result(inv, 0, c);
  fw_rt_buffer_release(inv, c);
}

void __fw_entry_bad_after(fw_invocation_t *inv) {
  void *a = fw_rt_arg(inv, 0);
  int64_t dims[2] = {fw_rt_buffer_dim(inv, a, 0), 4};
  void *c = fw_rt_buffer_alloc(inv, 0, 1, 2, dims);
  void *buffers[3] = {a, a, c};
  void *tokens[2] = {fw_rt_dispatch(inv, 0, 3, buffers), (void *)(uintptr_t)0x40};
  (void)fw_rt_dispatch_after(inv, 0, 3, buffers, 2, tokens);
  fw_rt_set_result(inv, 0, c);
  fw_rt_buffer_release(inv, c);
}
