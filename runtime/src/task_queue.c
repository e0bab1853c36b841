/* The ready-task containers of the scheduling policies: a priority heap and a deque. */
#include "task_queue.h"

#include <stdlib.h>

#include "scheduler.h"

static fw_task_heap_entry_t entry_of(const fw_task_t *t) {
  fw_task_heap_entry_t e = {t->priority, t->plan_worker != NULL, t->plan_start, t->rank, t->seq,
                            (fw_task_t *)t};
  return e;
}

/* Higher priority first; then tasks a heft plan placed, in the order it starts them; then
 * higher upward rank; then submission order. */
static int entry_before(const fw_task_heap_entry_t *a, const fw_task_heap_entry_t *b) {
  if (a->priority != b->priority) return a->priority > b->priority;
  if (a->planned != b->planned) return a->planned;
  if (a->planned && a->plan_start != b->plan_start) return a->plan_start < b->plan_start;
  if (a->rank != b->rank) return a->rank > b->rank;
  return a->seq < b->seq;
}

int fw_task_before(const fw_task_t *a, const fw_task_t *b) {
  fw_task_heap_entry_t ea = entry_of(a), eb = entry_of(b);
  return entry_before(&ea, &eb);
}

static void sift_up(fw_task_heap_t *h, size_t i) {
  fw_task_heap_entry_t e = h->items[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!entry_before(&e, &h->items[parent])) break;
    h->items[i] = h->items[parent];
    i = parent;
  }
  h->items[i] = e;
}

static void sift_down(fw_task_heap_t *h, size_t i) {
  fw_task_heap_entry_t e = h->items[i];
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= h->heap_size) break;
    if (child + 1 < h->heap_size && entry_before(&h->items[child + 1], &h->items[child]))
      ++child;
    if (!entry_before(&h->items[child], &e)) break;
    h->items[i] = h->items[child];
    i = child;
  }
  h->items[i] = e;
}

/* Entry k of the run (0: its front). */
static fw_task_heap_entry_t *run_entry(const fw_task_heap_t *h, size_t k) {
  return &h->run[(h->run_head + k) & (h->run_capacity - 1)];
}

static int run_append(fw_task_heap_t *h, const fw_task_heap_entry_t *e) {
  if (h->run_size == h->run_capacity) {
    size_t cap = h->run_capacity ? h->run_capacity * 2 : 64;
    fw_task_heap_entry_t *grown = malloc(cap * sizeof(*grown));
    if (!grown) return 0;
    for (size_t k = 0; k < h->run_size; ++k) grown[k] = *run_entry(h, k);
    free(h->run);
    h->run = grown;
    h->run_head = 0;
    h->run_capacity = cap;
  }
  *run_entry(h, h->run_size++) = *e;
  ++h->size;
  return 1;
}

static int heap_insert(fw_task_heap_t *h, const fw_task_heap_entry_t *e) {
  if (h->heap_size == h->capacity) {
    size_t cap = h->capacity ? h->capacity * 2 : 64;
    fw_task_heap_entry_t *grown = realloc(h->items, cap * sizeof(*grown));
    if (!grown) return 0;
    h->items = grown;
    h->capacity = cap;
  }
  h->items[h->heap_size++] = *e;
  ++h->size;
  sift_up(h, h->heap_size - 1);
  return 1;
}

int fw_task_heap_push(fw_task_heap_t *h, fw_task_t *task) {
  fw_task_heap_entry_t e = entry_of(task);
  if (h->run_size == 0 || entry_before(run_entry(h, h->run_size - 1), &e))
    return run_append(h, &e);
  return heap_insert(h, &e);
}

/* Removes entry i (fw_task_heap_at's numbering). */
static fw_task_t *remove_at(fw_task_heap_t *h, size_t i) {
  --h->size;
  if (i < h->heap_size) {
    fw_task_t *t = h->items[i].task;
    h->items[i] = h->items[--h->heap_size];
    if (i < h->heap_size) {
      sift_down(h, i);
      sift_up(h, i);
    }
    return t;
  }
  size_t k = i - h->heap_size;
  fw_task_t *t = run_entry(h, k)->task;
  if (k == 0) {
    h->run_head = (h->run_head + 1) & (h->run_capacity - 1);
  } else {
    for (; k + 1 < h->run_size; ++k) *run_entry(h, k) = *run_entry(h, k + 1);
  }
  if (--h->run_size == 0) h->run_head = 0;
  return t;
}

/* The entry that pops first (fw_task_heap_at's numbering); the heap is not empty. */
static size_t first_index(const fw_task_heap_t *h) {
  if (h->run_size == 0) return 0;
  if (h->heap_size == 0 || entry_before(run_entry(h, 0), &h->items[0])) return h->heap_size;
  return 0;
}

static const fw_task_heap_entry_t *entry_at(const fw_task_heap_t *h, size_t i) {
  return i < h->heap_size ? &h->items[i] : run_entry(h, i - h->heap_size);
}

fw_task_t *fw_task_heap_pop(fw_task_heap_t *h) {
  return h->size ? remove_at(h, first_index(h)) : NULL;
}

fw_task_t *fw_task_heap_pop_if(fw_task_heap_t *h, int (*accept)(const void *, const fw_task_t *),
                               const void *ctx) {
  if (h->size == 0) return NULL;
  /* The first entry is almost always acceptable; otherwise the best acceptable entry is
   * found by a scan (heterogeneous machines have few device kinds, so this stays short). */
  size_t first = first_index(h);
  if (accept(ctx, entry_at(h, first)->task)) return remove_at(h, first);
  size_t best = h->size;
  for (size_t i = 0; i < h->size; ++i) {
    if (i == first || !accept(ctx, fw_task_heap_at(h, i))) continue;
    if (best == h->size || entry_before(entry_at(h, i), entry_at(h, best))) best = i;
  }
  return best < h->size ? remove_at(h, best) : NULL;
}

void fw_task_heap_free(fw_task_heap_t *h) {
  free(h->items);
  free(h->run);
  h->items = h->run = NULL;
  h->size = h->heap_size = h->capacity = 0;
  h->run_head = h->run_size = h->run_capacity = 0;
}

int fw_task_deque_push_back(fw_task_deque_t *d, fw_task_t *task) {
  if (d->size == d->capacity) {
    size_t cap = d->capacity ? d->capacity * 2 : 64;
    fw_task_t **items = malloc(cap * sizeof(*items));
    if (!items) return 0;
    for (size_t i = 0; i < d->size; ++i) items[i] = d->items[(d->head + i) % d->capacity];
    free(d->items);
    d->items = items;
    d->head = 0;
    d->capacity = cap;
  }
  d->items[(d->head + d->size++) % d->capacity] = task;
  return 1;
}

fw_task_t *fw_task_deque_pop_back(fw_task_deque_t *d) {
  if (!d->size) return NULL;
  return d->items[(d->head + --d->size) % d->capacity];
}

fw_task_t *fw_task_deque_pop_front(fw_task_deque_t *d) {
  if (!d->size) return NULL;
  fw_task_t *t = d->items[d->head];
  d->head = (d->head + 1) % d->capacity;
  --d->size;
  return t;
}

fw_task_t *fw_task_deque_front(const fw_task_deque_t *d) {
  return d->size ? d->items[d->head] : NULL;
}

void fw_task_deque_free(fw_task_deque_t *d) {
  free(d->items);
  d->items = NULL;
  d->head = d->size = d->capacity = 0;
}
