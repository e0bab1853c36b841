/* The window bound of a simulation (sim_bound.h): the work that must fall within a
 * time window.
 *
 * Every task v that runs on class c starts no earlier than head_c(v), the earliest its
 * inputs could be there (the critical path's), and ends no later than C - tail_c(v),
 * where C is the makespan and tail_c(v) the least time from v's end on c to the end of
 * the DAG (its successors' run times and the moves to them, the same way). So in the
 * window [t1, C - t2], v runs at least
 *
 *   r_c(v) = max(0, p_c(v) - max(0, t1 - head_c(v)) - max(0, t2 - tail_c(v)))
 *
 * and the window must hold that much work: C - t1 - t2 >= area(r), the area bound
 * (the fractional split between the classes, exact for two) over the residual work. For
 * t1 + t2 no more than a known lower bound the window exists in every schedule, so
 * t1 + t2 + area(r) is a lower bound too; the bound at t1 = t2 = 0 is the area bound.
 * It is what the critical path and the area bound miss when the DAG's start or end is
 * narrow (Cholesky's last steps are a chain, its first a panel): the work cannot all be
 * spread over the whole makespan.
 *
 * Which t1 and t2 give the most is not known in advance. The candidates are the
 * distinct heads (for t1) and tails (for t2) up to the known bound, with 0: a grid of
 * K x K of them first, then coordinate ascent from the grid's best over up to M of each;
 * repeated while the bound rises, since a higher bound admits wider windows. K and M
 * shrink for large DAGs, so that the search costs about kEvaluationBudget task visits
 * (each evaluation is linear in the tasks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_bound.h"

enum { kMaxGrid = 16, kMaxAscent = 256, kRounds = 4 };
static const double kEvaluationBudget = 4e7;

typedef struct {
  const fw_sim_bound_t *b;
  double *tails;    /* per task and class, like b->times */
  double *residual; /* per task and class */
  void *scratch;    /* for fw_sim_bound_area_of */
  double *cand[2];  /* distinct heads, distinct tails, ascending, 0 first */
  size_t num_cand[2];
} window_t;

/* tail_c(v): over v's successors w (those that finished), the least move from c to a
 * class c' plus w's run time and tail there. Tasks finished in an order of the DAG, so
 * backwards every successor is done before its predecessors. A task that failed passes
 * readiness on: it takes no time anywhere. */
static void compute_tails(const fw_sim_bound_t *b, double *tails) {
  size_t k = b->num_classes;
  for (size_t i = b->num_tasks; i-- > 0;) {
    double *tail = tails + i * k;
    for (size_t c = 0; c < k; ++c) tail[c] = 0;
    size_t end = i + 1 < b->num_tasks ? b->first_edge[i + 1] : b->num_edges;
    for (size_t e = b->first_edge[i]; e < end; ++e) {
      size_t w = b->id_task[b->edges[e].to - 1];
      if (w == SIZE_MAX || w <= i) continue; /* never finished (or not after it) */
      const double *wt = b->times + w * k, *wtail = tails + w * k;
      for (size_t c = 0; c < k; ++c) {
        double least = INFINITY;
        for (size_t d = 0; d < k; ++d) {
          double run = b->counted[w] ? wt[d] : 0;
          double x = fw_sim_bound_move_seconds(b, c, d, b->edges[e].bytes) + run + wtail[d];
          if (x < least) least = x;
        }
        if (isfinite(least) && least > tail[c]) tail[c] = least;
      }
    }
  }
}

/* The bound of the window [t1, C - t2]: t1 + t2 + area(residual work). */
static double evaluate(window_t *w, double t1, double t2) {
  const fw_sim_bound_t *b = w->b;
  size_t k = b->num_classes, n = b->num_tasks;
  for (size_t i = 0; i < n * k; ++i) {
    double p = b->counted[i / k] ? b->times[i] : 0;
    if (p <= 0 || isinf(p)) {
      w->residual[i] = p > 0 ? p : 0;
      continue;
    }
    double before = t1 - b->heads[i], after = t2 - w->tails[i];
    double r = p - (before > 0 ? before : 0) - (after > 0 ? after : 0);
    w->residual[i] = r > 0 ? r : 0;
  }
  return t1 + t2 + fw_sim_bound_area_of(b, w->residual, n, w->scratch);
}

static int compare_doubles(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The distinct finite values of `values` (n of them) and 0, ascending, into `out`
 * (room for n + 1). */
static size_t distinct(const double *values, size_t n, double *out) {
  size_t m = 0;
  out[m++] = 0;
  for (size_t i = 0; i < n; ++i)
    if (isfinite(values[i]) && values[i] > 0) out[m++] = values[i];
  qsort(out, m, sizeof(double), compare_doubles);
  size_t u = 1;
  for (size_t i = 1; i < m; ++i)
    if (out[i] != out[u - 1]) out[u++] = out[i];
  return u;
}

/* The i-th of `count` values spread evenly over the first `usable` candidates of side `s`
 * (those up to the bound: the candidates ascend). */
static double pick(const window_t *w, int s, size_t usable, size_t i, size_t count) {
  if (count >= usable) return w->cand[s][i];
  return w->cand[s][count > 1 ? i * (usable - 1) / (count - 1) : 0];
}

/* How many candidates of side `s` are no more than `limit`. */
static size_t usable(const window_t *w, int s, double limit) {
  size_t lo = 0, hi = w->num_cand[s];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->cand[s][mid] <= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* One pass of coordinate ascent: `t[side]` over `count` of its candidates (`usable` of
 * them up to `limit`), the other end of the window fixed; keeps the best in `t`. */
static void ascend(window_t *w, int side, size_t usable, size_t count, double limit,
                   double t[2], double *best) {
  for (size_t i = 0; i < count; ++i) {
    double x[2] = {t[0], t[1]};
    x[side] = pick(w, side, usable, i, count);
    if (x[0] + x[1] > limit) break;
    double v = evaluate(w, x[0], x[1]);
    if (v > *best) {
      *best = v;
      t[side] = x[side];
    }
  }
}

static double search(window_t *w, double known) {
  size_t n = w->b->num_tasks;
  double per_round = kEvaluationBudget / kRounds / (double)(n * w->b->num_classes + 1);
  size_t grid = (size_t)sqrt(per_round / 2);
  grid = grid < 2 ? 2 : grid > kMaxGrid ? kMaxGrid : grid;
  double rest = (per_round - (double)(grid * grid)) / 4;
  size_t ascent = rest < 2 ? 2 : rest > kMaxAscent ? kMaxAscent : (size_t)rest;
  double bound = known;
  for (int round = 0; round < kRounds; ++round) {
    double limit = bound;
    size_t u[2] = {usable(w, 0, limit), usable(w, 1, limit)};
    size_t g[2] = {grid < u[0] ? grid : u[0], grid < u[1] ? grid : u[1]};
    double best = bound, t[2] = {0, 0};
    for (size_t i = 0; i < g[0]; ++i)
      for (size_t j = 0; j < g[1]; ++j) {
        double a = pick(w, 0, u[0], i, g[0]), c = pick(w, 1, u[1], j, g[1]);
        if (a + c > limit) continue;
        double x = evaluate(w, a, c);
        if (x > best) {
          best = x;
          t[0] = a;
          t[1] = c;
        }
      }
    size_t m[2] = {ascent < u[0] ? ascent : u[0], ascent < u[1] ? ascent : u[1]};
    for (int pass = 0; pass < 2; ++pass)
      for (int side = 0; side < 2; ++side) ascend(w, side, u[side], m[side], limit, t, &best);
    if (!(best > bound * (1 + 1e-9))) break;
    bound = best;
  }
  return bound;
}

double fw_sim_bound_windows(const fw_sim_bound_t *b, double known) {
  size_t n = b->num_tasks, k = b->num_classes;
  if (b->dag_lost || n == 0 || k == 0 || !(known > 0)) return known;
  window_t w = {.b = b};
  w.tails = malloc(n * k * sizeof(double));
  w.residual = malloc(n * k * sizeof(double));
  w.scratch = malloc(n * 2 * sizeof(double));
  w.cand[0] = malloc((n * k + 1) * sizeof(double));
  w.cand[1] = malloc((n * k + 1) * sizeof(double));
  double bound = known;
  if (w.tails && w.residual && w.scratch && w.cand[0] && w.cand[1]) {
    compute_tails(b, w.tails);
    w.num_cand[0] = distinct(b->heads, n * k, w.cand[0]);
    w.num_cand[1] = distinct(w.tails, n * k, w.cand[1]);
    bound = search(&w, known);
  }
  free(w.tails);
  free(w.residual);
  free(w.scratch);
  free(w.cand[0]);
  free(w.cand[1]);
  return bound;
}
