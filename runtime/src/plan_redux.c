/* Reductions in the plans of a released batch (heft_plan.c, affinity_plan.c).
 *
 * A group's reduction task is made by the runtime, not submitted, so it is not among the
 * batch's tasks; without it a plan saw the contributions as tasks nothing waits for, the
 * readers of the sum as free to start at once, and nothing of the passes that combine
 * the accumulators. The plans take each reduction task that the batch's contributions
 * precede into the batch, after its last contribution there, and give it the run time of
 * the passes that the accumulators the plan makes take: one per worker planned to run a
 * contribution of the group (fw_redux_passes: a level each once pairs pay), with a GPU's
 * accumulator's trip to host memory. So the plans that end first are those whose
 * reductions do (docs/performance.md: weighing a new accumulator's passes in each
 * contribution's choice of worker as well made them worse). */
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "redux.h"
#include "runtime_internal.h"

int fw_plan_redux_extend(planner_t *p, uint64_t serial) {
  fw_task_t *const *batch = p->batch;
  size_t count = p->count, joins = 0;
  /* Each reduction task's plan_index: its last contributor in the batch, for now. */
  for (size_t i = 0; i < count; ++i)
    for (uint32_t r = 0; r < batch[i]->num_reduces; ++r) {
      fw_task_t *join = batch[i]->reduces[r].combine;
      if (!join) continue; /* cancelled for lack of memory */
      if (join->plan_batch != serial) {
        join->plan_batch = serial;
        ++joins;
      }
      join->plan_index = i;
    }
  if (!joins) return 1;
  fw_task_t **tasks = malloc((count + joins) * sizeof(*tasks));
  p->join_slot = malloc((count + joins) * sizeof(size_t));
  if (!tasks || !p->join_slot) {
    free(tasks);
    return 0;
  }
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    p->join_slot[n] = NONE;
    tasks[n++] = batch[i];
    for (uint32_t r = 0; r < batch[i]->num_reduces; ++r) {
      fw_task_t *join = batch[i]->reduces[r].combine;
      if (!join || join->plan_index != i) continue;
      join->plan_index = NONE; /* taken */
      p->join_slot[n] = p->num_joins++;
      tasks[n++] = join;
    }
  }
  for (size_t i = 0; i < n; ++i) tasks[i]->plan_index = i;
  p->own_batch = tasks;
  p->batch = tasks;
  p->count = n;
  return 1;
}

int fw_plan_redux_costs(planner_t *p) {
  if (!p->num_joins) return 1;
  size_t nc = p->num_classes, cells = p->num_joins * nc;
  p->join_base = malloc(cells * sizeof(double));
  p->join_pass = malloc(cells * sizeof(double));
  p->join_home = malloc(cells * sizeof(double));
  if (!p->join_base || !p->join_pass || !p->join_home) return 0;
  for (size_t i = 0; i < p->count; ++i) {
    size_t slot = p->join_slot[i];
    if (slot == NONE) continue;
    fw_task_t *join = p->batch[i];
    uint64_t size = join->accesses[0].buffer->byte_size;
    for (size_t c = 0; c < nc; ++c) {
      const fw_worker_t *rep = p->reps[c];
      size_t cell = slot * nc + c;
      p->join_home[cell] =
          rep->memory_node == FW_NODE_HOST ? 0 : fw_scheduler_hop_seconds(rep, size);
      if (p->run_on[i * nc + c] < 0) {
        p->join_base[cell] = p->join_pass[cell] = -1;
        continue;
      }
      p->join_base[cell] = fw_redux_join_seconds(p->s, join, rep, 1);
      /* (estimates from a noisy history may not grow with the passes) */
      double two = fw_redux_join_seconds(p->s, join, rep, 2);
      p->join_pass[cell] = two > p->join_base[cell] ? two - p->join_base[cell] : 0;
    }
  }
  return 1;
}

void fw_plan_redux_fini(planner_t *p) {
  free(p->join_home);
  free(p->join_pass);
  free(p->join_base);
  free(p->join_slot);
  free(p->own_batch);
}

int fw_plan_redux_scratch_alloc(planner_t *p) {
  p->join_run = NULL;
  p->stamp = NULL;
  p->stamp_now = 0;
  if (!p->num_joins) return 1;
  p->join_run = malloc(p->num_classes * sizeof(double));
  p->stamp = calloc(p->s->num_workers, sizeof(unsigned));
  return p->join_run && p->stamp;
}

void fw_plan_redux_scratch_free(planner_t *p) {
  free(p->stamp);
  free(p->join_run);
  p->stamp = NULL;
  p->join_run = NULL;
}

const double *fw_plan_runs(planner_t *p, const plan_t *plan, size_t i) {
  size_t nc = p->num_classes, slot = p->join_slot ? p->join_slot[i] : NONE;
  if (slot == NONE) return p->run_on + i * nc;
  /* The workers planned for its contributions (those placed: all of them, once it is
   * ready), and the longest trip of a GPU's accumulator to host memory. */
  if (++p->stamp_now == 0) {
    memset(p->stamp, 0, p->s->num_workers * sizeof(unsigned));
    p->stamp_now = 1;
  }
  size_t accumulators = 0;
  double home = 0;
  for (size_t q = p->pred_at[i]; q < p->pred_at[i + 1]; ++q) {
    size_t j = p->preds[q];
    const fw_worker_t *w = plan->worker[j];
    if (!w || p->stamp[w->index] == p->stamp_now ||
        !fw_redux_contributes_to(p->batch[j], p->batch[i]))
      continue;
    p->stamp[w->index] = p->stamp_now;
    ++accumulators;
    double trip = p->join_home[slot * nc + p->classes[w->index]];
    if (trip > home) home = trip;
  }
  size_t passes = fw_redux_passes(p->batch[i], accumulators ? accumulators : 1);
  for (size_t c = 0; c < nc; ++c) {
    double base = p->join_base[slot * nc + c];
    p->join_run[c] =
        base < 0 ? -1 : base + (double)(passes - 1) * p->join_pass[slot * nc + c] + home;
  }
  return p->join_run;
}
