/* The bounds of a simulation (sim_bound.h). */
#include "sim_bound.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_device(const fw_sim_device_t *a, const fw_sim_device_t *b) {
  if (a->kind != b->kind || a->gflops != b->gflops || a->memory_gbps != b->memory_gbps ||
      a->task_overhead_us != b->task_overhead_us || a->history_speed != b->history_speed ||
      a->num_kernel_speeds != b->num_kernel_speeds)
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

double fw_sim_bound_from_host_seconds(const fw_sim_bound_t *b, size_t c, uint64_t bytes) {
  return bytes ? hop_seconds(b, c, bytes) : 0;
}

double fw_sim_bound_arrival(const fw_sim_bound_t *b, const double *finish_on, size_t to,
                            uint64_t bytes) {
  double arrive = INFINITY;
  for (size_t from = 0; from < b->num_classes; ++from) {
    double at = finish_on[from] + fw_sim_bound_move_seconds(b, from, to, bytes);
    if (at < arrive) arrive = at;
  }
  return arrive;
}

void fw_sim_bound_fini(fw_sim_bound_t *b) {
  free(b->times);
  free(b->heads);
  free(b->counted);
  free(b->first_edge);
  free(b->edges);
  free(b->id_task);
}

static int grow(void **array, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 1;
  size_t n = *cap ? *cap : 256;
  while (n < need) n *= 2;
  void *grown = realloc(*array, n * elem);
  if (!grown) return 0;
  *array = grown;
  *cap = n;
  return 1;
}

uint64_t fw_sim_bound_new_id(fw_sim_bound_t *b) {
  size_t cap = (size_t)b->cap_ids;
  if (!grow((void **)&b->id_task, &cap, (size_t)b->num_ids + 1, sizeof(size_t))) {
    b->dag_lost = 1;
    return 0;
  }
  b->cap_ids = cap;
  b->id_task[b->num_ids] = SIZE_MAX;
  return ++b->num_ids;
}

void fw_sim_bound_add(fw_sim_bound_t *b, uint64_t id, const double *times,
                      const double *heads, int counted) {
  size_t n = b->num_tasks, k = b->num_classes, cap = b->capacity;
  if (n == cap) {
    size_t want = cap ? cap * 2 : 256;
    double *t = realloc(b->times, want * k * sizeof(double));
    if (t) b->times = t;
    double *h = t ? realloc(b->heads, want * k * sizeof(double)) : NULL;
    if (h) b->heads = h;
    unsigned char *c = h ? realloc(b->counted, want) : NULL;
    if (c) b->counted = c;
    size_t *e = c ? realloc(b->first_edge, want * sizeof(size_t)) : NULL;
    if (e) b->first_edge = e;
    if (!e) { /* the task counts nothing: the bounds stay valid, looser */
      b->dag_lost = 1;
      return;
    }
    b->capacity = want;
  }
  memcpy(b->times + n * k, times, k * sizeof(double));
  memcpy(b->heads + n * k, heads, k * sizeof(double));
  b->counted[n] = counted != 0;
  b->first_edge[n] = b->num_edges;
  if (id == 0 || id > b->num_ids) b->dag_lost = 1;
  else b->id_task[id - 1] = n;
  ++b->num_tasks;
}

void fw_sim_bound_add_edge(fw_sim_bound_t *b, uint64_t to, uint64_t bytes) {
  if (b->dag_lost || b->num_tasks == 0) return;
  if (to == 0 || !grow((void **)&b->edges, &b->cap_edges, b->num_edges + 1, sizeof(*b->edges))) {
    b->dag_lost = 1;
    return;
  }
  b->edges[b->num_edges++] = (struct fw_sim_edge_t){to, bytes};
}

typedef struct {
  double a, b; /* work on class 0 and class 1, both positive and finite */
} pair_t;

/* -1, 0, 1 as p's ratio a/b is below, equal to or above r's (cross-multiplied). */
static int compare_ratio(const pair_t *p, const pair_t *r) {
  double l = p->a * r->b, m = r->a * p->b;
  return (l > m) - (l < m);
}

/* The exact optimum of the fractional assignment of `n` tasks between two classes of `wa`
 * and `wb` workers, `fa` and `fb` of work already bound to each: the tasks most
 * favourable to class 0 (a/b ascending) go there until the loads balance, and the task
 * at the balance point splits. Found by selection (expected linear time), not sorting:
 * the window bound evaluates it many times. Reorders `p`. Each load is a sum of what is
 * on that class, never a total minus what left it: a class whose times are far larger
 * than the other's (a GPU with a second of overhead beside picosecond CPU tasks) would
 * otherwise leave rounding noise above the whole answer. */
static double balance(pair_t *p, size_t n, double fa, double fb, double wa, double wb) {
  size_t lo = 0, hi = n; /* [0, lo) moved to class 0, [hi, n) stay on 1 (in fb), [lo, hi) open */
  while (lo < hi) {
    pair_t pivot = p[lo + (hi - lo) / 2];
    /* Three ways: [lo, lt) below the pivot's ratio, [lt, gt) equal, [gt, hi) above. */
    size_t lt = lo, i = lo, gt = hi;
    double la = 0, ea = 0, eb = 0, gb = 0;
    while (i < gt) {
      int c = compare_ratio(&p[i], &pivot);
      if (c < 0) {
        la += p[i].a;
        pair_t x = p[lt];
        p[lt++] = p[i];
        p[i++] = x;
      } else if (c > 0) {
        gb += p[i].b;
        pair_t x = p[--gt];
        p[gt] = p[i];
        p[i] = x;
      } else {
        ea += p[i].a;
        eb += p[i].b;
        ++i;
      }
    }
    if ((fa + la) / wa >= (fb + eb + gb) / wb) { /* balanced within the lower part, or before */
      fb += eb + gb;
      hi = lt;
      continue;
    }
    fa += la;
    double stay = fb + gb; /* class 1 if the equal part moves: [gt, hi) is still open */
    if ((fa + ea) / wa >= stay / wb) { /* within the equal part: it splits as one task */
      /* The share f that moves and the share g = 1 - f that stays, each solved for
       * directly: one computed from the other cancels when it is within rounding of 1. */
      double den = wb * ea + wa * eb;
      double f = (wa * (stay + eb) - wb * fa) / den, g = (wb * (fa + ea) - wa * stay) / den;
      f = f < 0 ? 0 : f > 1 ? 1 : f;
      g = g < 0 ? 0 : g > 1 ? 1 : g;
      return fmax((fa + f * ea) / wa, (stay + g * eb) / wb);
    }
    fa += ea;
    lo = gt;
  }
  return fmax(fa / wa, fb / wb);
}

double fw_sim_bound_area_of(const fw_sim_bound_t *b, const double *times, size_t n,
                            void *scratch) {
  size_t k = b->num_classes;
  if (n == 0 || k == 0) return 0;
  if (k == 2) {
    pair_t *p = scratch;
    size_t m = 0;
    double fa = 0, fb = 0;
    for (size_t i = 0; i < n; ++i) {
      double a = times[2 * i], bb = times[2 * i + 1];
      if (a <= 0 || bb <= 0) continue; /* free on one class */
      if (isinf(a) && isinf(bb)) continue; /* runs nowhere: counts nothing */
      if (isinf(bb)) fa += a;
      else if (isinf(a)) fb += bb;
      else p[m++] = (pair_t){a, bb};
    }
    return balance(p, m, fa, fb, b->workers[0], b->workers[1]);
  }
  double work = 0, workers = 0;
  for (size_t c = 0; c < k; ++c) workers += b->workers[c];
  for (size_t i = 0; i < n; ++i) {
    double best = INFINITY;
    for (size_t c = 0; c < k; ++c)
      if (times[i * k + c] < best) best = times[i * k + c];
    if (isfinite(best)) work += best;
  }
  return work / (k == 1 ? b->workers[0] : workers);
}

double fw_sim_bound_area(const fw_sim_bound_t *b) {
  size_t n = b->num_tasks, k = b->num_classes;
  if (n == 0 || k == 0) return 0;
  double *times = malloc(n * k * sizeof(double));
  pair_t *scratch = k == 2 ? malloc(n * sizeof(pair_t)) : NULL;
  if (!times || (k == 2 && !scratch)) {
    free(times);
    free(scratch);
    return 0; /* still a (useless) lower bound */
  }
  /* The failed tasks count nothing. */
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < k; ++c)
      times[i * k + c] = b->counted[i] ? b->times[i * k + c] : 0;
  double area = fw_sim_bound_area_of(b, times, n, scratch);
  free(times);
  free(scratch);
  return area;
}
