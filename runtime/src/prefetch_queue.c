/* The prefetch threads' queue (prefetch_queue.h). */
#include "prefetch_queue.h"

#include <stdlib.h>

#include "runtime_internal.h"

static int before(const fw_prefetch_request_t *a, const fw_prefetch_request_t *b) {
  return a->need < b->need || (a->need == b->need && a->seq < b->seq);
}

static void put(fw_prefetch_queue_t *q, size_t i, fw_prefetch_request_t r) {
  q->items[i] = r;
  r.buffer->mem.prefetch_slot = i + 1;
}

static void sift_up(fw_prefetch_queue_t *q, size_t i) {
  fw_prefetch_request_t r = q->items[i];
  while (i > 0 && before(&r, &q->items[(i - 1) / 2])) {
    put(q, i, q->items[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  put(q, i, r);
}

static void sift_down(fw_prefetch_queue_t *q, size_t i) {
  fw_prefetch_request_t r = q->items[i];
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= q->size) break;
    if (child + 1 < q->size && before(&q->items[child + 1], &q->items[child])) ++child;
    if (!before(&q->items[child], &r)) break;
    put(q, i, q->items[child]);
    i = child;
  }
  put(q, i, r);
}

int fw_prefetch_queue_push(fw_prefetch_queue_t *q, fw_buffer_t *buffer, uint32_t node,
                           int64_t protect, double need) {
  size_t slot = buffer->mem.prefetch_slot;
  if (slot) {
    fw_prefetch_request_t *r = &q->items[slot - 1];
    if (need < r->need) {
      r->need = need;
      sift_up(q, slot - 1);
    }
    return 0;
  }
  if (q->size == q->capacity) {
    size_t cap = q->capacity ? q->capacity * 2 : 64;
    fw_prefetch_request_t *grown = realloc(q->items, cap * sizeof(*grown));
    if (!grown) return 0;
    q->items = grown;
    q->capacity = cap;
  }
  q->items[q->size] = (fw_prefetch_request_t){buffer, node, protect, need, ++q->seq};
  sift_up(q, q->size++);
  return 1;
}

int fw_prefetch_queue_pop(fw_prefetch_queue_t *q, fw_prefetch_request_t *out) {
  if (q->size == 0) return 0;
  *out = q->items[0];
  out->buffer->mem.prefetch_slot = 0;
  if (--q->size > 0) {
    q->items[0] = q->items[q->size];
    sift_down(q, 0);
  }
  return 1;
}

void fw_prefetch_queue_fini(fw_prefetch_queue_t *q) {
  free(q->items);
  q->items = NULL;
  q->size = q->capacity = 0;
}
