/* Host functions queued on a stand-in driver's stream (cuLaunchHostFunc in fake_cuda.c,
 * hipLaunchHostFunc in fake_hip.c): a function runs only when something waits for its
 * stream (a synchronization, an event recorded after it, work queued behind it, a free
 * that synchronizes the device), as a kernel's effects are seen only then on a GPU. A
 * test's GPU implementation queues its computation so, to behave as a kernel that runs
 * later. Each stand-in includes this once; its streams embed a fake_host_queue_t. */
#ifndef FW_RUNTIME_TEST_FAKE_HOST_FUNCS_H_
#define FW_RUNTIME_TEST_FAKE_HOST_FUNCS_H_

#include <pthread.h>
#include <string.h>

#define FAKE_HOST_FUNCS 64
typedef struct fake_host_queue {
  struct {
    void (*fn)(void *);
    void *arg;
  } pending[FAKE_HOST_FUNCS];
  unsigned num_pending;
  struct fake_host_queue *next; /* every queue registered (g_host_queues) */
} fake_host_queue_t;

/* g_host_queue_lock guards the queues and the list; g_host_run_lock is held while one
 * thread runs functions, so that they run in order and no queue goes meanwhile. */
static pthread_mutex_t g_host_queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_host_run_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_host_queue_t g_default_host_queue; /* the default stream's */
static fake_host_queue_t *g_host_queues;

/* Whether `q` is the default queue or a registered one (g_host_queue_lock held): an event
 * may outlive the stream it was recorded on. */
static int fake_host_queue_alive(const fake_host_queue_t *q) {
  if (q == &g_default_host_queue) return 1;
  for (const fake_host_queue_t *t = g_host_queues; t; t = t->next)
    if (t == q) return 1;
  return 0;
}

static void fake_host_run_locked(fake_host_queue_t *q) {
  for (;;) {
    pthread_mutex_lock(&g_host_queue_lock);
    if (!fake_host_queue_alive(q) || q->num_pending == 0) {
      pthread_mutex_unlock(&g_host_queue_lock);
      return;
    }
    void (*fn)(void *) = q->pending[0].fn;
    void *arg = q->pending[0].arg;
    memmove(q->pending, q->pending + 1, (q->num_pending - 1) * sizeof(q->pending[0]));
    --q->num_pending;
    pthread_mutex_unlock(&g_host_queue_lock);
    fn(arg);
  }
}

/* Runs what is queued on `q` (NULL: the default stream's), in order. */
static void fake_host_run(fake_host_queue_t *q) {
  pthread_mutex_lock(&g_host_run_lock);
  fake_host_run_locked(q ? q : &g_default_host_queue);
  pthread_mutex_unlock(&g_host_run_lock);
}

/* Runs what is queued on every stream: what a free that synchronizes the device waits for. */
static void fake_host_run_all(void) {
  pthread_mutex_lock(&g_host_run_lock);
  fake_host_run_locked(&g_default_host_queue);
  pthread_mutex_lock(&g_host_queue_lock);
  fake_host_queue_t *q = g_host_queues;
  pthread_mutex_unlock(&g_host_queue_lock);
  for (; q; q = q->next) fake_host_run_locked(q);
  pthread_mutex_unlock(&g_host_run_lock);
}

static int fake_host_pending(fake_host_queue_t *q) {
  pthread_mutex_lock(&g_host_queue_lock);
  int pending = fake_host_queue_alive(q) && q->num_pending > 0;
  pthread_mutex_unlock(&g_host_queue_lock);
  return pending;
}

/* Queues `fn(arg)` on `q` (NULL: the default stream's); a full queue runs first. */
static void fake_host_push(fake_host_queue_t *q, void (*fn)(void *), void *arg) {
  if (!q) q = &g_default_host_queue;
  for (;;) {
    pthread_mutex_lock(&g_host_queue_lock);
    if (q->num_pending < FAKE_HOST_FUNCS) {
      q->pending[q->num_pending].fn = fn;
      q->pending[q->num_pending].arg = arg;
      ++q->num_pending;
      pthread_mutex_unlock(&g_host_queue_lock);
      return;
    }
    pthread_mutex_unlock(&g_host_queue_lock);
    fake_host_run(q);
  }
}

static void fake_host_register(fake_host_queue_t *q) {
  pthread_mutex_lock(&g_host_queue_lock);
  q->next = g_host_queues;
  g_host_queues = q;
  pthread_mutex_unlock(&g_host_queue_lock);
}

/* A stream's queue goes with it: what it holds runs first, as a GPU finishes a destroyed
 * stream's work. */
static void fake_host_unregister(fake_host_queue_t *q) {
  fake_host_run(q);
  pthread_mutex_lock(&g_host_run_lock);
  pthread_mutex_lock(&g_host_queue_lock);
  for (fake_host_queue_t **p = &g_host_queues; *p; p = &(*p)->next)
    if (*p == q) {
      *p = q->next;
      break;
    }
  pthread_mutex_unlock(&g_host_queue_lock);
  pthread_mutex_unlock(&g_host_run_lock);
}

/* What an event query says of the work queued before it on `q`: still running at every
 * other query (`*queries` counts them), as a kernel may be; then done. 1: done. */
static int fake_host_query(fake_host_queue_t *q, unsigned *queries) {
  if (!q) q = &g_default_host_queue;
  if (fake_host_pending(q) && ++*queries % 2 == 1) return 0;
  fake_host_run(q);
  return 1;
}

#endif
