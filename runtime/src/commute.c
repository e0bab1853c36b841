/* Commutative updates (FW_ACCESS_READ_WRITE_COMMUTE, docs/task-graph.md): the groups of
 * them in the task graph (each with a join, a task without a body that every update of
 * the group precedes and the accesses after the group follow), and the buffers a ready
 * update holds while the other updates of its group wait. Everything here runs with
 * sched.lock held. */
#include <stdlib.h>

#include "runtime_internal.h"
#include "scheduler.h"

/* Opens a group of commutative updates of `b` for its first update `first` (lock held):
 * its join, a task without a body that each update of the group precedes and that the
 * accesses after the group follow (one edge each, however large the group). It counts
 * in the first update's group of tasks, which a wait for them then waits for. NULL when
 * out of memory. */
static fw_task_t *open_group(fw_scheduler_t *s, fw_buffer_t *b, const fw_task_t *first) {
  fw_task_t *join = fw_scheduler_graph_task(s, "commute-join", b, first);
  if (!join) return NULL;
  join->join = 1;
  b->commute_join = join;
  ++b->commute_group;
  if (s->simulated) fw_simulator_group_opened(join, b);
  return join;
}

/* The first other access after a group: the accesses after it follow its join, and the
 * readers before it (which every update of the group follows) are done with. */
void fw_commute_close_group(fw_buffer_t *b) {
  b->first_reader = b->end_readers;
  b->num_readers = 0;
  b->last_writer = b->commute_join;
  b->commute_join = NULL;
}

/* Notes task seq `seq` among the updates of `join`'s group, for the trace's edges (only
 * while tracing). */
static void note_member(fw_task_t *join, uint64_t seq) {
  if (join->num_members == join->cap_members) {
    size_t cap = join->cap_members ? join->cap_members * 2 : 8;
    uint64_t *grown = realloc(join->members, cap * sizeof(*grown));
    if (!grown) return; /* a trace without some edges */
    join->members = grown;
    join->cap_members = cap;
  }
  join->members[join->num_members++] = seq;
}

/* A commutative update of `b` (access i of `t`): after what came before the group, which
 * stays on the buffer for the group's later updates, and before the group's join. */
void fw_commute_join_group(fw_scheduler_t *s, fw_task_t *t, size_t i) {
  fw_buffer_t *b = t->accesses[i].buffer;
  fw_task_t *join = b->commute_join ? b->commute_join : open_group(s, b, t);
  if (b->last_writer) fw_task_depend(b->last_writer, t);
  fw_task_depend_on_readers(b, t);
  t->accesses[i].commute_group = b->commute_group;
  if (join && fw_task_add_successor(t, join)) {
    if (s->runtime->trace.enabled) note_member(join, t->seq);
    return;
  }
  fw_task_cancel_for_memory(t); /* the group would not wait for it */
  if (join && join->pending == 0)
    fw_scheduler_make_ready(s, join, NULL); /* a group of none: it ends */
}

/* The next buffer of `t`'s commutative accesses to take: the first created (serial)
 * that it does not hold yet, NULL when it holds them all (an order that does not change
 * from run to run, so neither do simulations). A task takes its buffers in that order,
 * one at a time, keeping those it has while it waits for the next: every task waits only
 * for a buffer above all those it holds, so no two wait for each other (no deadlock), and
 * the updates that come after it to a buffer it has taken wait for it (it is not passed
 * over while updates of one buffer keep another of its busy). */
static fw_buffer_t *next_to_take(const fw_task_t *t) {
  fw_buffer_t *next = NULL;
  for (size_t i = 0; i < t->num_accesses; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    if (t->accesses[i].commute && b->commute_holder != t && (!next || b->serial < next->serial))
      next = b;
  }
  return next;
}

/* Cancels commutative update `t` when an update of one of its groups failed (lock
 * held): it would update garbage. */
int fw_commute_cancel_after_failure(fw_task_t *t) {
  for (size_t i = 0; i < t->num_accesses; ++i) {
    const fw_task_access_internal_t *a = &t->accesses[i];
    const fw_buffer_t *b = a->buffer;
    if (a->commute && b->group_failure && b->failed_group == a->commute_group) {
      fw_task_cancel_with(t, b->group_failure);
      return 1;
    }
  }
  return 0;
}

/* Whether ready task `t` may run now: it takes the buffers of its commutative updates in
 * order (next_to_take), or waits in the queue of the next one, which another task holds,
 * keeping those it took (lock held). An update of a group one of whose updates failed
 * fails with that error: it would update garbage (what it took goes when it completes).
 * Either way it leaves its heft plan, which ran the group's updates side by side: held
 * to it, an update would hold its buffer while it waited for its planned worker (the
 * others waiting behind it, other workers idle), and a worker that holds its queue back
 * for its planned next task could wait for one after a parked update, itself waiting for
 * an update queued behind that worker's next task: placed as they come, they run where
 * they start first. */
int fw_commute_take_buffers(fw_task_t *t) {
  if (t->plan_worker) {
    fw_scheduler_unplan(t);
    t->plan_worker = NULL;
  }
  if (t->holds_buffers || t->cancelled || fw_commute_cancel_after_failure(t)) return 1;
  for (fw_buffer_t *b; (b = next_to_take(t));) {
    if (b->commute_holder) {
      t->next_parked = NULL;
      if (b->parked_tail) b->parked_tail->next_parked = t;
      else b->parked_head = t;
      b->parked_tail = t;
      return 0;
    }
    b->commute_holder = t;
  }
  t->holds_buffers = 1;
  return 1;
}

/* Completing task `t` lets the buffers it took go (all of them, or those it took before
 * it was cancelled): each goes to the first task waiting for it, which keeps it (and may
 * wait for its next). */
void fw_commute_let_buffers_go(fw_scheduler_t *s, fw_task_t *t, fw_worker_t *w) {
  if (!t->num_commute) return;
  t->holds_buffers = 0;
  for (size_t i = 0; i < t->num_accesses; ++i)
    if (t->accesses[i].commute && t->accesses[i].buffer->commute_holder == t)
      t->accesses[i].buffer->commute_holder = NULL;
  for (size_t i = 0; i < t->num_accesses; ++i) {
    fw_buffer_t *b = t->accesses[i].buffer;
    while (t->accesses[i].commute && b->parked_head && !b->commute_holder) {
      fw_task_t *next = b->parked_head;
      b->parked_head = next->next_parked;
      if (!b->parked_head) b->parked_tail = NULL;
      next->next_parked = NULL;
      fw_scheduler_make_ready(s, next, w);
    }
  }
}

/* A failed commutative update: the updates of its group yet to start fail too. */
void fw_commute_note_failure(fw_buffer_t *b, uint64_t group, fw_status_t status) {
  if (b->failed_group == group && b->group_failure) return;
  fw_status_free(b->group_failure);
  b->failed_group = group;
  b->group_failure = fw_status_create(fw_status_code(status), fw_status_message(status));
}

void fw_task_visit_successors(const fw_task_t *t, void (*visit)(void *ctx, fw_task_t *succ),
                              void *ctx) {
  for (size_t k = 0; k < t->num_successors; ++k) {
    fw_task_t *succ = t->successors[k];
    if (!succ->join) {
      visit(ctx, succ);
      /* A reduction task is not submitted: the ranks of a released batch do not see
       * it, so what follows it follows its contributions too (plans, which take it into
       * the batch, plan_redux.c, get an edge more). */
      if (!succ->reduction) continue;
    }
    for (size_t j = 0; j < succ->num_successors; ++j) visit(ctx, succ->successors[j]);
  }
}
