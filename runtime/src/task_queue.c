/* The ready-task containers of the scheduling policies: a priority heap and a deque. */
#include "task_queue.h"

#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

_Static_assert(sizeof(fw_task_heap_entry_t) == 40,
               "a queue entry grew: pools of ready tasks grow with it");

static fw_task_heap_entry_t entry_of(const fw_task_t *t) {
  fw_task_heap_entry_t e = {t->priority,
                            0,
                            t->plan_start,
                            t->rank,
                            t->seq,
                            (t->kind_mask >> FW_TARGET_KIND_CPU) & 7u,
                            t->plan_worker != NULL,
                            0,
                            t->holds_buffers != 0,
                            (fw_task_t *)t};
  return e;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  return h * 0xbf58476d1ce4e5b9ull;
}

static uint64_t bits_of(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof(u));
  return u;
}

uint32_t fw_task_placement_key(const fw_task_t *t) {
  uint64_t h = mix(t->name_hash, t->data_bytes);
  h = mix(h, bits_of(t->flops));
  h = mix(h, bits_of(t->bytes));
  h = mix(h, (uint64_t)t->kind_mask << 32 | t->prefer_mask);
  h = mix(h, t->gpu_mask);
  return (uint32_t)(h ^ h >> 32);
}

/* The entry a push stores: the keys, and what placement passes read of the task. */
static fw_task_heap_entry_t pushed_entry(const fw_task_t *t) {
  fw_task_heap_entry_t e = entry_of(t);
  e.reads = t->reads_buffer != 0;
  e.placement_key = t->placement_key;
  return e;
}

/* Higher priority first; then tasks a heft plan placed, in the order it starts them; then
 * higher upward rank; then submission order. */
static int entry_before(const fw_task_heap_entry_t *a, const fw_task_heap_entry_t *b) {
  if (a->priority != b->priority) return a->priority > b->priority;
  /* A commutative update that holds its buffers first: the others of its group wait. */
  if (a->holds != b->holds) return a->holds;
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
  ++h->by_kinds[e->kinds];
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
  ++h->by_kinds[e->kinds];
  sift_up(h, h->heap_size - 1);
  return 1;
}

int fw_task_heap_push(fw_task_heap_t *h, fw_task_t *task) {
  fw_task_heap_entry_t e = pushed_entry(task);
  if (h->run_size == 0 || entry_before(run_entry(h, h->run_size - 1), &e))
    return run_append(h, &e);
  return heap_insert(h, &e);
}

static const fw_task_heap_entry_t *entry_at(const fw_task_heap_t *h, size_t i) {
  return i < h->heap_size ? &h->items[i] : run_entry(h, i - h->heap_size);
}

/* Removes entry i (fw_task_heap_at's numbering). */
static fw_task_t *remove_at(fw_task_heap_t *h, size_t i) {
  --h->by_kinds[entry_at(h, i)->kinds];
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
  /* The entries on the shorter side of it move up by one: those before it (then the run
   * starts one later) or those after it. */
  if (k < h->run_size / 2) {
    for (; k > 0; --k) *run_entry(h, k) = *run_entry(h, k - 1);
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

fw_task_t *fw_task_heap_pop(fw_task_heap_t *h) {
  return h->size ? remove_at(h, first_index(h)) : NULL;
}

/* The best acceptable entry by a scan of them all (fw_task_heap_at's numbering; h->size:
 * none). */
static size_t scan_for(const fw_task_heap_t *h, int (*accept)(const void *, const fw_task_t *),
                       const void *ctx) {
  size_t best = h->size;
  for (size_t i = 0; i < h->size; ++i) {
    if (!accept(ctx, fw_task_heap_at(h, i))) continue;
    if (best == h->size || entry_before(entry_at(h, i), entry_at(h, best))) best = i;
  }
  return best;
}

/* A few heap indices ordered by their entries (the next to look at first). */
typedef struct {
  const fw_task_heap_t *h;
  size_t n, at[FW_TASK_HEAP_WALK_MAX];
} frontier_t;

static int frontier_before(const frontier_t *f, size_t a, size_t b) {
  return entry_before(&f->h->items[f->at[a]], &f->h->items[f->at[b]]);
}

static void frontier_swap(frontier_t *f, size_t a, size_t b) {
  size_t x = f->at[a];
  f->at[a] = f->at[b];
  f->at[b] = x;
}

/* Adds heap index i (when below the heap's size); 0 when the frontier is full. */
static int frontier_push(frontier_t *f, size_t i) {
  if (i >= f->h->heap_size) return 1;
  if (f->n == FW_TASK_HEAP_WALK_MAX) return 0;
  size_t k = f->n++;
  f->at[k] = i;
  for (; k > 0 && frontier_before(f, k, (k - 1) / 2); k = (k - 1) / 2)
    frontier_swap(f, k, (k - 1) / 2);
  return 1;
}

static size_t frontier_pop(frontier_t *f) {
  size_t top = f->at[0];
  f->at[0] = f->at[--f->n];
  for (size_t k = 0;;) {
    size_t c = 2 * k + 1;
    if (c >= f->n) break;
    if (c + 1 < f->n && frontier_before(f, c + 1, c)) ++c;
    if (!frontier_before(f, c, k)) break;
    frontier_swap(f, c, k);
    k = c;
  }
  return top;
}

/* The entries are looked at in pop order: the run's where they lie, the heap's by a
 * search from its root that keeps the children of those looked at (each pops after its
 * parent) in a small frontier. The first acceptable is the best. Before, every entry was
 * looked at whenever the first was not acceptable: a worker of one kind of device, with
 * tasks only another kind runs ahead of its own, read the task of each of 10^5 entries
 * under the scheduler lock. */
fw_task_t *fw_task_heap_pop_if(fw_task_heap_t *h, int (*accept)(const void *, const fw_task_t *),
                               const void *ctx) {
  if (h->size == 0) return NULL;
  frontier_t f = {h, 0, {0}};
  (void)frontier_push(&f, 0);
  size_t k = 0; /* the next run entry */
  while (f.n || k < h->run_size) {
    if (f.n && (k == h->run_size || entry_before(&h->items[f.at[0]], run_entry(h, k)))) {
      size_t i = frontier_pop(&f);
      if (accept(ctx, h->items[i].task)) return remove_at(h, i);
      if (!frontier_push(&f, 2 * i + 1) || !frontier_push(&f, 2 * i + 2)) {
        size_t best = scan_for(h, accept, ctx); /* too many ahead of it */
        return best < h->size ? remove_at(h, best) : NULL;
      }
    } else {
      if (accept(ctx, run_entry(h, k)->task)) return remove_at(h, h->heap_size + k);
      ++k;
    }
  }
  return NULL;
}

int fw_task_heap_holds_kind(const fw_task_heap_t *h, unsigned kind) {
  if (kind < FW_TARGET_KIND_CPU || kind > FW_TARGET_KIND_HIP) return 0;
  for (unsigned kinds = 1; kinds < 8; ++kinds)
    if (((kinds >> (kind - FW_TARGET_KIND_CPU)) & 1u) && h->by_kinds[kinds]) return 1;
  return 0;
}

void fw_task_heap_walk(fw_task_heap_t *h, size_t limit, fw_task_heap_visit_t visit, void *ctx) {
  /* The heap's entries are in no order: the walk takes each out as it comes to it (its
   * root, the first of what is left) and puts back those left. The run's are in order:
   * the walk reads them where they are. */
  fw_task_heap_entry_t left[FW_TASK_HEAP_WALK_MAX];
  size_t num_left = 0, k = 0; /* k: the next run entry to visit */
  if (limit > FW_TASK_HEAP_WALK_MAX) limit = FW_TASK_HEAP_WALK_MAX;
  for (size_t n = 0; n < limit; ++n) {
    int from_heap = h->heap_size > 0 &&
                    (k == h->run_size || entry_before(&h->items[0], run_entry(h, k)));
    if (!from_heap && k == h->run_size) break;
    fw_task_heap_entry_t e = from_heap ? h->items[0] : *run_entry(h, k);
    int what = visit(ctx, e.task, &e);
    if (from_heap) {
      (void)remove_at(h, 0);
      if (!(what & FW_TASK_HEAP_TAKE)) left[num_left++] = e;
    } else if (what & FW_TASK_HEAP_TAKE) {
      (void)remove_at(h, h->heap_size + k);
    } else {
      ++k;
    }
    if (what & FW_TASK_HEAP_STOP) break;
  }
  /* Back where they were: the heap held them a moment ago, so it never needs to grow. */
  for (size_t i = 0; i < num_left; ++i) (void)heap_insert(h, &left[i]);
}

void fw_task_heap_free(fw_task_heap_t *h) {
  free(h->items);
  free(h->run);
  h->items = h->run = NULL;
  h->size = h->heap_size = h->capacity = 0;
  h->run_head = h->run_size = h->run_capacity = 0;
  memset(h->by_kinds, 0, sizeof(h->by_kinds));
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
