/* The prefetch threads (memory.h): copies queued for the nodes where tasks will run, the
 * lookahead window's passes, and the copies' start and stop. */
#define _GNU_SOURCE
#include "memory.h"
#include "memory_internal.h"

#include <stdlib.h>

#include "runtime_internal.h"
#include "scheduler.h"
#include "status_internal.h"

/* Brings the buffer to `node` without displacing anything a task in the lookahead window
 * needs; gives up when there is no such room. */
static void prefetch_one(fw_memory_t *m, fw_buffer_t *b, uint32_t node, int64_t protect) {
  pthread_mutex_lock(&m->lock);
  fw_replica_t *r = &b->mem.replicas[node];
  /* Marked before looking for writers: see count_fast_writers. A running task that writes
   * it would make the copy stale before it lands (the task it is for reads what that one
   * writes, or runs before it and is not waiting for this copy), and so would the caller
   * writing through a view of it (fw_buffer_data: a request queued for a task that ran
   * before the view). */
  atomic_fetch_add(&b->mem.copying, 1);
  if (r->valid || fw_memory_any_busy(m, b) || fw_memory_host_wrapped(b, node) ||
      !fw_memory_valid_elsewhere(m, b, node) || atomic_load(&b->mem.writers) > 0 ||
      atomic_load_explicit(&b->mem.mapped, memory_order_relaxed)) {
    atomic_fetch_sub(&b->mem.copying, 1);
    pthread_mutex_unlock(&m->lock);
    return;
  }
  int made = 1;
  fw_status_t status = FW_OK;
  if (!r->allocated)
    status = fw_memory_make_room(m, node, b->byte_size, protect, NULL, &made, NULL);
  fw_memory_node_t *n = &m->nodes[node];
  if (status == FW_OK && made && !r->allocated && !r->valid &&
      !(n->capacity && n->used + b->byte_size > n->capacity))
    status = fw_memory_allocate_replica(m, b, node);
  /* Making room let the lock go: a task may have started to write the buffer meanwhile
   * (the copy would read it while it changes), or a copy of it may be in flight. So all
   * is looked at again, and the copy starts before the lock is let go again (copy_in does
   * not wait when nothing is busy). */
  if (status == FW_OK && made && r->allocated && !r->valid && !fw_memory_any_busy(m, b) &&
      fw_memory_valid_elsewhere(m, b, node) && atomic_load(&b->mem.writers) == 0 &&
      !atomic_load_explicit(&b->mem.mapped, memory_order_relaxed)) {
    ++r->pins; /* not evicted before the copy lands */
    ++m->prefetch_requests;
    status = fw_memory_copy_in(m, b, node, NULL);
    --r->pins;
    if (status == FW_OK) r->prefetched = 1;
    r->last_use = ++m->tick;
    fw_memory_changed(m);
  }
  /* A failed prefetch is harmless: the task fetches on demand and reports the error. */
  fw_status_free(status);
  atomic_fetch_sub(&b->mem.copying, 1);
  pthread_mutex_unlock(&m->lock);
}

#define FW_LOOKAHEAD_MAX 512

/* The prefetch thread released `count` buffer references (after the release, so that
 * the memory of a buffer it freed is back when waiters look again). */
static void prefetch_refs_dropped(fw_memory_t *m, size_t count) {
  pthread_mutex_lock(&m->lock);
  atomic_fetch_sub_explicit(&m->prefetch_refs, (unsigned)count, memory_order_relaxed);
  fw_memory_changed(m);
  pthread_mutex_unlock(&m->lock);
}

/* One lookahead pass: marks what the window reads (and where first), then queues the
 * copies of what is not in place yet, in window order. */
static void lookahead_pass(fw_memory_t *m, fw_buffer_t **buffers, uint32_t *nodes,
                           uint32_t *positions) {
  size_t count = fw_scheduler_lookahead(&m->runtime->sched, m->prefetch_window, buffers, nodes,
                                        positions, FW_LOOKAHEAD_MAX);
  pthread_mutex_lock(&m->lock);
  ++m->window_epoch;
  for (size_t i = 0; i < count; ++i)
    if (buffers[i]->mem.window_mark != m->window_epoch) { /* first use: smallest place */
      buffers[i]->mem.window_mark = m->window_epoch;
      buffers[i]->mem.window_pos = positions[i];
    }
  pthread_mutex_unlock(&m->lock);
  size_t dropped = 0;
  double now = fw_scheduler_now(&m->runtime->sched); /* needed now, in window order */
  pthread_mutex_lock(&m->prefetch_lock);
  for (size_t i = 0; i < count; ++i) {
    /* Each may displace only what is needed later than itself. */
    if (!fw_memory_is_valid_on(buffers[i], nodes[i]) &&
        fw_prefetch_queue_push(&m->queue, buffers[i], nodes[i],
                               (int64_t)buffers[i]->mem.window_pos, now))
      buffers[i] = NULL;
    else
      ++dropped;
  }
  pthread_cond_broadcast(&m->prefetch_cv); /* every copy thread takes a share */
  pthread_mutex_unlock(&m->prefetch_lock);
  for (size_t i = 0; i < count; ++i)
    if (buffers[i]) fw_buffer_release(buffers[i]);
  if (dropped) prefetch_refs_dropped(m, dropped);
}

static void *prefetch_main(void *arg) {
  fw_memory_t *m = arg;
  fw_runtime_mark_own_thread(m->runtime);
  fw_buffer_t *buffers[FW_LOOKAHEAD_MAX];
  uint32_t nodes[FW_LOOKAHEAD_MAX], positions[FW_LOOKAHEAD_MAX];
  pthread_mutex_lock(&m->prefetch_lock);
  for (;;) {
    while (!m->prefetch_stop && m->queue.size == 0 && !(m->prefetch_kick && !m->lookahead_busy))
      pthread_cond_wait(&m->prefetch_cv, &m->prefetch_lock);
    if (m->prefetch_stop) break;
    fw_prefetch_request_t req;
    if (fw_prefetch_queue_pop(&m->queue, &req)) {
      pthread_mutex_unlock(&m->prefetch_lock);
      prefetch_one(m, req.buffer, req.node, req.protect);
      fw_buffer_release(req.buffer);
      prefetch_refs_dropped(m, 1);
      pthread_mutex_lock(&m->prefetch_lock);
      continue;
    }
    m->prefetch_kick = 0;
    if (!atomic_load_explicit(&m->spilled, memory_order_relaxed) || m->prefetch_window == 0)
      continue;
    m->lookahead_busy = 1;
    pthread_mutex_unlock(&m->prefetch_lock);
    lookahead_pass(m, buffers, nodes, positions);
    pthread_mutex_lock(&m->prefetch_lock);
    m->lookahead_busy = 0;
  }
  pthread_mutex_unlock(&m->prefetch_lock);
  return NULL;
}

fw_status_t fw_memory_start_prefetch(fw_memory_t *m, fw_runtime_t *rt, uint32_t threads) {
  m->runtime = rt;
  if (!m->prefetch_enabled) return FW_OK;
  if (threads > FW_MAX_PREFETCH_THREADS) threads = FW_MAX_PREFETCH_THREADS;
  for (uint32_t i = 0; i < threads; ++i) {
    if (pthread_create(&m->prefetch_threads[i], NULL, prefetch_main, m) != 0) {
      m->num_prefetch_threads = i;
      m->prefetch_started = i > 0;
      fw_memory_stop_prefetch(m);
      return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "cannot start prefetch thread %u", i);
    }
    m->num_prefetch_threads = i + 1;
    m->prefetch_started = 1;
  }
  return FW_OK;
}

void fw_memory_prefetch(fw_memory_t *m, fw_buffer_t *buffer, uint32_t node, double need) {
  if (!m->prefetch_started || fw_memory_is_valid_on(buffer, node)) return;
  fw_buffer_retain(buffer);
  atomic_fetch_add_explicit(&m->prefetch_refs, 1, memory_order_relaxed);
  pthread_mutex_lock(&m->prefetch_lock);
  /* A placement request: it keeps everything the window needs. */
  int queued = fw_prefetch_queue_push(&m->queue, buffer, node, INT64_MAX, need);
  if (queued) pthread_cond_signal(&m->prefetch_cv);
  pthread_mutex_unlock(&m->prefetch_lock);
  if (!queued) {
    fw_buffer_release(buffer);
    prefetch_refs_dropped(m, 1);
  }
}

void fw_memory_window_moved(fw_memory_t *m) {
  if (!m->prefetch_started || !atomic_load_explicit(&m->spilled, memory_order_relaxed)) return;
  pthread_mutex_lock(&m->prefetch_lock);
  m->prefetch_kick = 1;
  pthread_cond_signal(&m->prefetch_cv);
  pthread_mutex_unlock(&m->prefetch_lock);
}

void fw_memory_drop_prefetches(fw_memory_t *m, int wait) {
  if (!m->prefetch_started) return;
  pthread_mutex_lock(&m->prefetch_lock);
  fw_prefetch_request_t req;
  while (fw_prefetch_queue_pop(&m->queue, &req)) {
    pthread_mutex_unlock(&m->prefetch_lock);
    fw_buffer_release(req.buffer);
    prefetch_refs_dropped(m, 1);
    pthread_mutex_lock(&m->prefetch_lock);
  }
  pthread_mutex_unlock(&m->prefetch_lock);
  if (!wait) return;
  pthread_mutex_lock(&m->lock);
  while (atomic_load_explicit(&m->prefetch_refs, memory_order_relaxed) > 0)
    pthread_cond_wait(&m->cv, &m->lock);
  pthread_mutex_unlock(&m->lock);
}

void fw_memory_stop_prefetch(fw_memory_t *m) {
  if (!m->prefetch_started) return;
  pthread_mutex_lock(&m->prefetch_lock);
  m->prefetch_stop = 1;
  pthread_cond_broadcast(&m->prefetch_cv);
  pthread_mutex_unlock(&m->prefetch_lock);
  for (uint32_t i = 0; i < m->num_prefetch_threads; ++i)
    pthread_join(m->prefetch_threads[i], NULL);
  m->num_prefetch_threads = 0;
  m->prefetch_started = 0;
  fw_prefetch_request_t req;
  while (fw_prefetch_queue_pop(&m->queue, &req)) fw_buffer_release(req.buffer);
  atomic_store_explicit(&m->prefetch_refs, 0, memory_order_relaxed);
}
