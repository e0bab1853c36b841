/* Chrome trace-event JSON ("X" complete events, one thread per track, and flow events
 * "s"/"f" for the dependencies between tasks' runs), which Perfetto and chrome://tracing
 * load. */
#define _GNU_SOURCE
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "status_internal.h"

void fw_trace_init(fw_trace_t *t, int enabled, uint64_t origin_ns) {
  memset(t, 0, sizeof(*t));
  t->enabled = enabled;
  t->origin_ns = origin_ns;
  pthread_mutex_init(&t->lock, NULL);
}

void fw_trace_fini(fw_trace_t *t) {
  for (size_t i = 0; i < t->size; ++i) free(t->events[i].detail);
  free(t->events);
  free(t->edges);
  pthread_mutex_destroy(&t->lock);
}

static void add(fw_trace_t *t, uint32_t track, const char *name, uint64_t task,
                uint64_t start_ns, uint64_t end_ns, uint64_t bytes, double expected_seconds,
                const char *detail, int by_waiter) {
  if (!t->enabled) return;
  char *owned = detail ? strdup(detail) : NULL; /* NULL when out of memory: no reason */
  pthread_mutex_lock(&t->lock);
  if (t->size == t->capacity) {
    size_t cap = t->capacity ? t->capacity * 2 : 1024;
    fw_trace_event_t *grown = realloc(t->events, cap * sizeof(*grown));
    if (!grown) { /* a trace is best effort: drop the event */
      pthread_mutex_unlock(&t->lock);
      free(owned);
      return;
    }
    t->events = grown;
    t->capacity = cap;
  }
  fw_trace_event_t *e = &t->events[t->size++];
  snprintf(e->name, sizeof(e->name), "%s", name);
  /* Cut at a character boundary: drop a UTF-8 sequence the limit split. */
  size_t len = strlen(e->name);
  if (len == sizeof(e->name) - 1 && strlen(name) > len) {
    size_t start = len;
    while (start > 0 && ((unsigned char)e->name[start - 1] & 0xC0) == 0x80) --start;
    if (start > 0 && ((unsigned char)e->name[start - 1] & 0x80)) {
      unsigned char lead = (unsigned char)e->name[start - 1];
      size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
      if (len - (start - 1) < need) e->name[start - 1] = 0;
    }
  }
  e->track = track;
  e->start_ns = start_ns;
  e->end_ns = end_ns;
  e->bytes = bytes;
  e->expected_seconds = expected_seconds;
  e->detail = owned;
  e->task = task;
  e->by_waiter = by_waiter != 0;
  pthread_mutex_unlock(&t->lock);
}

void fw_trace_add(fw_trace_t *t, uint32_t track, const char *name, uint64_t start_ns,
                  uint64_t end_ns, uint64_t bytes) {
  add(t, track, name, 0, start_ns, end_ns, bytes, 0, NULL, 0);
}

void fw_trace_add_detail(fw_trace_t *t, uint32_t track, const char *name, const char *detail,
                         uint64_t start_ns, uint64_t end_ns) {
  add(t, track, name, 0, start_ns, end_ns, 0, 0, detail, 0);
}

void fw_trace_add_run(fw_trace_t *t, uint32_t track, const char *name, uint64_t task,
                      uint64_t start_ns, uint64_t end_ns, double expected_seconds,
                      int by_waiter) {
  add(t, track, name, task, start_ns, end_ns, 0, expected_seconds, NULL, by_waiter);
}

void fw_trace_add_edge(fw_trace_t *t, uint64_t from, uint64_t to) {
  if (!t->enabled) return;
  pthread_mutex_lock(&t->lock);
  if (t->num_edges == t->cap_edges) {
    size_t cap = t->cap_edges ? t->cap_edges * 2 : 1024;
    fw_trace_edge_t *grown = realloc(t->edges, cap * sizeof(*grown));
    if (!grown) { /* best effort, as events */
      pthread_mutex_unlock(&t->lock);
      return;
    }
    t->edges = grown;
    t->cap_edges = cap;
  }
  t->edges[t->num_edges++] = (fw_trace_edge_t){from, to};
  pthread_mutex_unlock(&t->lock);
}

/* A task's run events, by id: `first` starts first, `last` ends last (a task that ran
 * again after a failure has several). */
typedef struct {
  uint64_t task;
  size_t first, last;
} run_span_t;

static int by_task(const void *a, const void *b) {
  uint64_t x = ((const run_span_t *)a)->task, y = ((const run_span_t *)b)->task;
  return x < y ? -1 : x > y;
}

/* The runs of the trace's tasks, sorted by id, one entry per task (lock held); NULL when
 * there are none or no memory (no flows then). */
static run_span_t *run_spans(const fw_trace_t *t, size_t *out_count) {
  size_t n = 0;
  for (size_t i = 0; i < t->size; ++i) n += t->events[i].task != 0;
  *out_count = 0;
  run_span_t *spans = n ? malloc(n * sizeof(*spans)) : NULL;
  if (!spans) return NULL;
  n = 0;
  for (size_t i = 0; i < t->size; ++i)
    if (t->events[i].task) spans[n++] = (run_span_t){t->events[i].task, i, i};
  qsort(spans, n, sizeof(*spans), by_task);
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (k && spans[k - 1].task == spans[i].task) {
      run_span_t *s = &spans[k - 1];
      if (t->events[spans[i].first].start_ns < t->events[s->first].start_ns)
        s->first = spans[i].first;
      if (t->events[spans[i].last].end_ns > t->events[s->last].end_ns) s->last = spans[i].last;
    } else {
      spans[k++] = spans[i];
    }
  }
  *out_count = k;
  return spans;
}

static const run_span_t *find_run(const run_span_t *spans, size_t count, uint64_t task) {
  run_span_t key = {task, 0, 0};
  return count ? bsearch(&key, spans, count, sizeof(*spans), by_task) : NULL;
}

/* A flow event bound to the run of its task that encloses `ns` on that run's track. */
static void write_flow(FILE *f, const fw_trace_t *t, const char *phase, size_t id,
                       const fw_trace_event_t *run, uint64_t ns) {
  uint64_t at = ns > t->origin_ns ? ns - t->origin_ns : 0;
  fprintf(f,
          ",\n{\"ph\":\"%s\",%s\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"id\":%zu,"
          "\"cat\":\"dependency\",\"name\":\"dependency\"}",
          phase, phase[0] == 'f' ? "\"bp\":\"e\"," : "", run->track, (double)at / 1000.0, id);
}

/* Each edge between two tasks that both ran: from inside the end of the first's last run
 * to the start of the second's first (lock held). */
static void write_flows(FILE *f, const fw_trace_t *t) {
  size_t count = 0;
  run_span_t *spans = run_spans(t, &count);
  for (size_t i = 0; spans && i < t->num_edges; ++i) {
    const run_span_t *from = find_run(spans, count, t->edges[i].from);
    const run_span_t *to = find_run(spans, count, t->edges[i].to);
    if (!from || !to) continue; /* cancelled, or out of memory when it ran */
    const fw_trace_event_t *a = &t->events[from->last], *b = &t->events[to->first];
    uint64_t out = a->end_ns > a->start_ns ? a->end_ns - 1 : a->start_ns;
    write_flow(f, t, "s", i + 1, a, out);
    write_flow(f, t, "f", i + 1, b, b->start_ns);
  }
  free(spans);
}

static void write_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

fw_status_t fw_trace_write(fw_trace_t *t, const char *path, const char *const *worker_names,
                           size_t num_workers) {
  if (!t->enabled)
    return fw_status_make(FW_STATUS_FAILED_PRECONDITION,
                          "tracing is off (create the runtime with FW_RUNTIME_TRACE)");
  FILE *f = fopen(path, "w");
  if (!f)
    return fw_status_make(FW_STATUS_IO, "cannot write the trace '%s': %s", path,
                          strerror(errno));
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"fw runtime\"}}");
  for (size_t i = 0; i < num_workers; ++i) {
    fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%zu,\"name\":\"thread_name\",\"args\":{\"name\":", i);
    write_json_string(f, worker_names[i]);
    fprintf(f, "}}");
  }
  for (int a = 0; a < FW_NUM_TIERS; ++a)
    for (int b = 0; b < FW_NUM_TIERS; ++b)
      fprintf(f,
              ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":"
              "\"copy %s -> %s\"}}",
              FW_TRACE_COPY_TRACK(a, b), fw_tier_name(a), fw_tier_name(b));
  pthread_mutex_lock(&t->lock);
  for (size_t i = 0; i < t->size; ++i) {
    const fw_trace_event_t *e = &t->events[i];
    uint64_t start = e->start_ns > t->origin_ns ? e->start_ns - t->origin_ns : 0;
    uint64_t dur = e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0;
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"name\":",
            e->track, (double)start / 1000.0, (double)dur / 1000.0);
    write_json_string(f, e->name);
    if (e->detail) {
      fprintf(f, ",\"args\":{\"reason\":");
      write_json_string(f, e->detail);
      fprintf(f, "}");
    } else if (e->bytes) {
      fprintf(f, ",\"args\":{\"bytes\":%llu}", (unsigned long long)e->bytes);
    } else if ((e->expected_seconds > 0 && isfinite(e->expected_seconds)) || e->by_waiter) {
      const char *sep = "";
      fprintf(f, ",\"args\":{");
      if (e->expected_seconds > 0 && isfinite(e->expected_seconds)) {
        fprintf(f, "\"expected_us\":%.3f", e->expected_seconds * 1e6);
        sep = ",";
      }
      if (e->by_waiter) fprintf(f, "%s\"run_by\":\"waiting thread\"", sep);
      fprintf(f, "}");
    }
    fprintf(f, "}");
  }
  write_flows(f, t);
  pthread_mutex_unlock(&t->lock);
  fprintf(f, "\n]}\n");
  int failed = ferror(f);
  failed |= fclose(f);
  if (failed)
    return fw_status_make(FW_STATUS_IO, "writing the trace '%s' failed", path);
  return FW_OK;
}
