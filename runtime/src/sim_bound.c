/* The bounds of a simulation (sim_bound.h). */
#include "sim_bound.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_device(const fw_sim_device_t *a, const fw_sim_device_t *b) {
  if (a->kind != b->kind || a->gflops != b->gflops || a->memory_gbps != b->memory_gbps ||
      a->task_overhead_us != b->task_overhead_us || a->num_kernel_speeds != b->num_kernel_speeds)
    return 0;
  for (size_t k = 0; k < a->num_kernel_speeds; ++k)
    if (strcmp(a->kernel_names[k], b->kernel_names[k]) != 0 ||
        a->kernel_speeds[k] != b->kernel_speeds[k])
      return 0;
  return 1;
}

void fw_sim_bound_init(fw_sim_bound_t *b, const fw_sim_machine_t *machine) {
  memset(b, 0, sizeof(*b));
  size_t max_devices = sizeof(b->device_class) / sizeof(b->device_class[0]);
  for (size_t d = 0; d < machine->num_devices && d < max_devices; ++d) {
    size_t c = 0;
    while (c < b->num_classes) {
      size_t first = 0;
      while (b->device_class[first] != c) ++first;
      if (same_device(&machine->devices[first], &machine->devices[d])) break;
      ++c;
    }
    if (c == b->num_classes) {
      if (b->num_classes == FW_SIM_MAX_CLASSES) c = FW_SIM_MAX_CLASSES - 1; /* merge the rest */
      else ++b->num_classes;
    }
    const fw_sim_device_t *dev = &machine->devices[d];
    double latency = dev->link_latency_us * 1e-6;
    double gbps = dev->link_gbps > 0 ? dev->link_gbps : FW_SIM_DEFAULT_LINK_GBPS;
    if (b->workers[c] == 0 || latency < b->link_latency_seconds[c])
      b->link_latency_seconds[c] = latency;
    if (gbps > b->link_gbps[c]) b->link_gbps[c] = gbps;
    if (dev->kind == FW_TARGET_KIND_CPU) b->in_host_memory[c] = 1;
    b->device_class[d] = c;
    b->workers[c] += dev->workers;
  }
}

static double hop_seconds(const fw_sim_bound_t *b, size_t c, uint64_t bytes) {
  if (b->in_host_memory[c]) return 0;
  return b->link_latency_seconds[c] + (double)bytes / (b->link_gbps[c] * 1e9);
}

double fw_sim_bound_move_seconds(const fw_sim_bound_t *b, size_t from, size_t to,
                                 uint64_t bytes) {
  if (from == to || bytes == 0) return 0;
  return hop_seconds(b, from, bytes) + hop_seconds(b, to, bytes);
}

void fw_sim_bound_fini(fw_sim_bound_t *b) { free(b->times); }

int fw_sim_bound_add(fw_sim_bound_t *b, const double *times) {
  if (b->num_tasks == b->capacity) {
    size_t cap = b->capacity ? b->capacity * 2 : 256;
    double *grown = realloc(b->times, cap * b->num_classes * sizeof(double));
    if (!grown) return 0;
    b->times = grown;
    b->capacity = cap;
  }
  memcpy(b->times + b->num_tasks * b->num_classes, times, b->num_classes * sizeof(double));
  ++b->num_tasks;
  return 1;
}

typedef struct {
  double a, b; /* run time on class 0 and class 1 */
} pair_t;

/* Tasks most favourable to class 0 first (a/b ascending, by cross-multiplication so that
 * infinities order correctly). */
static int compare_pairs(const void *x, const void *y) {
  const pair_t *p = x, *q = y;
  int pa = isinf(p->a), qa = isinf(q->a), pb = isinf(p->b), qb = isinf(q->b);
  if (pa != qa) return pa - qa;      /* class-1-only tasks last */
  if (pb != qb) return qb - pb;      /* class-0-only tasks first */
  double l = p->a * q->b, r = q->a * p->b;
  return (l > r) - (l < r);
}

static double two_classes(const fw_sim_bound_t *b) {
  size_t n = b->num_tasks;
  pair_t *p = malloc((n ? n : 1) * sizeof(*p));
  double *suffix = malloc((n + 1) * sizeof(double));
  if (!p || !suffix) {
    free(p);
    free(suffix);
    return 0; /* still a (useless) lower bound */
  }
  for (size_t i = 0; i < n; ++i) p[i] = (pair_t){b->times[2 * i], b->times[2 * i + 1]};
  qsort(p, n, sizeof(*p), compare_pairs);
  suffix[n] = 0;
  for (size_t i = n; i-- > 0;) suffix[i] = suffix[i + 1] + p[i].b;
  double wa = b->workers[0], wb = b->workers[1], best = INFINITY, prefix = 0;
  /* Tasks [0, k) on class 0, task k split by f, the rest on class 1. */
  for (size_t k = 0; k <= n; ++k) {
    if (k == n) {
      double t = fmax(prefix / wa, 0);
      if (t < best) best = t;
      break;
    }
    double a = p[k].a, bb = p[k].b, rest = suffix[k + 1];
    double f;
    if (isinf(a)) f = 0;
    else if (isinf(bb)) f = 1;
    else {
      f = (wa * (rest + bb) - wb * prefix) / (wb * a + wa * bb);
      f = f < 0 ? 0 : f > 1 ? 1 : f;
    }
    double la = prefix + (f > 0 ? f * a : 0), lb = rest + (f < 1 ? (1 - f) * bb : 0);
    double t = fmax(la / wa, lb / wb);
    if (t < best) best = t;
    if (isinf(a)) break; /* nothing further can run on class 0 */
    prefix += a;
  }
  free(p);
  free(suffix);
  return isfinite(best) ? best : 0;
}

double fw_sim_bound_area(const fw_sim_bound_t *b) {
  if (b->num_tasks == 0 || b->num_classes == 0) return 0;
  if (b->num_classes == 2) return two_classes(b);
  double work = 0, workers = 0;
  for (size_t c = 0; c < b->num_classes; ++c) workers += b->workers[c];
  for (size_t i = 0; i < b->num_tasks; ++i) {
    double best = INFINITY;
    for (size_t c = 0; c < b->num_classes; ++c)
      if (b->times[i * b->num_classes + c] < best) best = b->times[i * b->num_classes + c];
    if (isfinite(best)) work += best;
  }
  if (b->num_classes == 1) return work / b->workers[0];
  return work / workers;
}
