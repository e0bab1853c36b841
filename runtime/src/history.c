/* Execution-time history (history.h). Estimates are the median of the last 32 samples,
 * so a few outliers (a page fault storm, a preempted worker) do not move them; the
 * median absolute deviation is kept as the spread. Each sample also keeps its ratio to
 * the device model's estimate, whose median calibrates the model for the size classes
 * that have no samples yet. */
#define _GNU_SOURCE
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "status_internal.h"

#define FW_HISTORY_MAGIC "fw-history 3"
#define FW_HISTORY_MAGIC_V2 "fw-history 2" /* no links; still read */
#define FW_HISTORY_MAGIC_V1 "fw-history 1" /* no ratios either; still read */

void fw_history_init(fw_history_t *h) {
  memset(h, 0, sizeof(*h));
  pthread_mutex_init(&h->lock, NULL);
}

void fw_history_fini(fw_history_t *h) {
  for (size_t i = 0; i < h->capacity; ++i) free(h->entries[i].name);
  free(h->entries);
  for (size_t i = 0; i < h->num_links; ++i) free(h->links[i].device);
  free(h->links);
  pthread_mutex_destroy(&h->lock);
}

uint32_t fw_history_size_class(uint64_t bytes) {
  uint32_t c = 0;
  while (bytes > 1) bytes >>= 1, ++c;
  return c;
}

uint64_t fw_history_name_hash(const char *name) { /* FNV-1a */
  uint64_t h = 1469598103934665603ull;
  for (const char *p = name; *p; ++p) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

static uint64_t hash_key(const char *name, uint32_t kind, uint32_t size_class) {
  uint64_t h = (fw_history_name_hash(name) ^ kind) * 1099511628211ull;
  return (h ^ size_class) * 1099511628211ull;
}

static fw_history_entry_t *find(fw_history_t *h, const char *name, uint32_t kind,
                                uint32_t size_class, int create) {
  if (create && (h->size + 1) * 4 > h->capacity * 3) {
    size_t cap = h->capacity ? h->capacity * 2 : 64;
    fw_history_entry_t *grown = calloc(cap, sizeof(*grown));
    if (!grown) return NULL;
    for (size_t i = 0; i < h->capacity; ++i) {
      fw_history_entry_t *e = &h->entries[i];
      if (!e->name) continue;
      size_t j = hash_key(e->name, e->kind, e->size_class) & (cap - 1);
      while (grown[j].name) j = (j + 1) & (cap - 1);
      grown[j] = *e;
    }
    free(h->entries);
    h->entries = grown;
    h->capacity = cap;
  }
  if (!h->capacity) return NULL;
  size_t j = hash_key(name, kind, size_class) & (h->capacity - 1);
  for (;; j = (j + 1) & (h->capacity - 1)) {
    fw_history_entry_t *e = &h->entries[j];
    if (!e->name) break;
    if (e->kind == kind && e->size_class == size_class && strcmp(e->name, name) == 0) return e;
  }
  if (!create) return NULL;
  fw_history_entry_t *e = &h->entries[j];
  e->name = strdup(name);
  if (!e->name) return NULL;
  e->kind = kind;
  e->size_class = size_class;
  ++h->size;
  return e;
}

/* Puts the k-th smallest of v[0, n) at v[k], smaller ones before it and larger ones
 * after (Hoare's selection, in place): linear time, no calls, for the 32 samples of an
 * entry. */
static void select_kth(double *v, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = v[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) {
        double t = v[i];
        v[i] = v[j];
        v[j] = t;
        ++i;
        if (j == 0) break;
        --j;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

static double median_of(double *v, size_t n) {
  if (n == 0) return 0; /* an entry loaded without samples ("... 0 0 name") */
  select_kth(v, n, n / 2);
  double upper = v[n / 2];
  if (n % 2) return upper;
  double lower = v[0]; /* the largest of the lower half */
  for (size_t i = 1; i < n / 2; ++i)
    if (v[i] > lower) lower = v[i];
  return 0.5 * (lower + upper);
}

/* Marks, in the (name, kind)'s summary entry, whether `e`'s size class has a ratio. */
static void note_ratio(fw_history_t *h, fw_history_entry_t *e) {
  int has = e->ratio > 0;
  uint64_t bit = 1ull << e->size_class;
  fw_history_entry_t *summary = find(h, e->name, e->kind, FW_HISTORY_SUMMARY, has);
  if (!summary) return; /* nothing to clear, or out of memory: no ratio to offer */
  summary->ratio_classes = has ? summary->ratio_classes | bit : summary->ratio_classes & ~bit;
}

static void update_statistics(fw_history_t *h, fw_history_entry_t *e) {
  size_t n = e->count < FW_HISTORY_SAMPLES ? (size_t)e->count : FW_HISTORY_SAMPLES;
  double v[FW_HISTORY_SAMPLES];
  memcpy(v, e->samples, n * sizeof(double));
  e->median = median_of(v, n);
  for (size_t i = 0; i < n; ++i) v[i] = fabs(e->samples[i] - e->median);
  e->mad = median_of(v, n);
  size_t m = 0;
  for (size_t i = 0; i < n; ++i)
    if (e->ratios[i] > 0) v[m++] = e->ratios[i];
  double ratio = m >= FW_HISTORY_MIN_SAMPLES ? median_of(v, m) : 0;
  int changed = (ratio > 0) != (e->ratio > 0);
  e->ratio = ratio;
  if (changed) note_ratio(h, e); /* may move the table: `e` is not used after this */
  atomic_fetch_add_explicit(&h->generation, 1, memory_order_release);
}

static void push_sample(fw_history_entry_t *e, double seconds, double ratio) {
  e->samples[e->count % FW_HISTORY_SAMPLES] = seconds;
  e->ratios[e->count % FW_HISTORY_SAMPLES] = ratio;
  ++e->count;
}

/* May move the table (a new summary entry): `e` is not valid after it. */
static void add_sample(fw_history_t *h, fw_history_entry_t *e, double seconds, double ratio) {
  push_sample(e, seconds, ratio);
  /* Two selections over 32 samples cost more than a small task, under the history's one
   * lock: refresh the statistics while the ring fills, then every 8th sample, and every
   * 32nd once an entry has a thousand (each refresh still sees the 32 latest). */
  uint64_t every = e->count < 1024 ? 8 : FW_HISTORY_SAMPLES;
  if (e->count <= FW_HISTORY_SAMPLES || e->count % every == 0) update_statistics(h, e);
}

void fw_history_record(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                       double seconds, double model_seconds) {
  if (!(seconds >= 0) || !isfinite(seconds)) return;
  double ratio = model_seconds > 0 && isfinite(model_seconds) ? seconds / model_seconds : 0;
  if (!(ratio > 0) || !isfinite(ratio)) ratio = 0; /* a run of 0 s says nothing of it */
  pthread_mutex_lock(&h->lock);
  fw_history_entry_t *e = find(h, name, kind, fw_history_size_class(bytes), 1);
  if (e) add_sample(h, e, seconds, ratio);
  pthread_mutex_unlock(&h->lock);
}

/* The ratio of size class `c` of (name, kind) (its entry has one: the summary says so). */
static double ratio_of(fw_history_t *h, const char *name, uint32_t kind, uint32_t c) {
  const fw_history_entry_t *e = find(h, name, kind, c, 0);
  return e ? e->ratio : 0;
}

int fw_history_model_ratio(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                           double *out_ratio) {
  uint32_t c = fw_history_size_class(bytes);
  pthread_mutex_lock(&h->lock);
  const fw_history_entry_t *summary = find(h, name, kind, FW_HISTORY_SUMMARY, 0);
  uint64_t classes = summary ? summary->ratio_classes : 0;
  double ratio = 0;
  if (classes) {
    /* The nearest class at or below c, and the nearest above. */
    uint64_t below = classes & (c >= 63 ? ~0ull : (2ull << c) - 1);
    uint64_t above = c >= 63 ? 0 : classes & ~((2ull << c) - 1);
    int lo = below ? 63 - __builtin_clzll(below) : -1;
    int hi = above ? __builtin_ctzll(above) : -1;
    double rlo = lo >= 0 ? ratio_of(h, name, kind, (uint32_t)lo) : 0;
    double rhi = hi >= 0 ? ratio_of(h, name, kind, (uint32_t)hi) : 0;
    if (rlo > 0 && rhi > 0) { /* geometric: linear in the logarithms */
      double f = (double)((int)c - lo) / (double)(hi - lo);
      ratio = exp((1 - f) * log(rlo) + f * log(rhi));
    } else {
      ratio = rlo > 0 ? rlo : rhi;
    }
  }
  pthread_mutex_unlock(&h->lock);
  if (!(ratio > 0) || !isfinite(ratio)) return 0;
  *out_ratio = ratio;
  return 1;
}

int fw_history_estimate(fw_history_t *h, const char *name, uint32_t kind, uint64_t bytes,
                        double *out_seconds) {
  pthread_mutex_lock(&h->lock);
  fw_history_entry_t *e = find(h, name, kind, fw_history_size_class(bytes), 0);
  int ok = e && e->count >= FW_HISTORY_MIN_SAMPLES;
  if (ok) *out_seconds = e->median;
  pthread_mutex_unlock(&h->lock);
  return ok;
}

static fw_history_link_t *find_link(fw_history_t *h, const char *device) {
  for (size_t i = 0; i < h->num_links; ++i)
    if (strcmp(h->links[i].device, device) == 0) return &h->links[i];
  return NULL;
}

int fw_history_link(fw_history_t *h, const char *device, uint64_t *bytes, uint64_t *ns) {
  pthread_mutex_lock(&h->lock);
  const fw_history_link_t *l = find_link(h, device);
  if (l) *bytes = l->bytes, *ns = l->ns;
  pthread_mutex_unlock(&h->lock);
  return l != NULL;
}

/* Under the lock. */
static void set_link(fw_history_t *h, const char *device, uint64_t bytes, uint64_t ns) {
  fw_history_link_t *l = find_link(h, device);
  if (!l) {
    char *copy = strdup(device);
    fw_history_link_t *grown = copy ? realloc(h->links, (h->num_links + 1) * sizeof(*grown)) : NULL;
    if (!grown) {
      free(copy);
      return;
    }
    h->links = grown;
    l = &h->links[h->num_links++];
    l->device = copy;
  }
  l->bytes = bytes;
  l->ns = ns;
}

void fw_history_set_link(fw_history_t *h, const char *device, uint64_t bytes, uint64_t ns) {
  pthread_mutex_lock(&h->lock);
  set_link(h, device, bytes, ns);
  pthread_mutex_unlock(&h->lock);
}

/* Reads `n` numbers from `*p` on, each from 0 to `max`, and moves `*p` past them. */
static fw_status_t read_values(char **p, double *out, unsigned n, double max, const char *path,
                               unsigned lineno, const char *what) {
  for (unsigned i = 0; i < n; ++i) {
    int used = 0;
    if (sscanf(*p, " %lf%n", &out[i], &used) != 1 || !(out[i] >= 0) || !(out[i] <= max))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "history file '%s', line %u: malformed %s %u (expected a number "
                            "from 0 to %g)",
                            path, lineno, what, i + 1, max);
    *p += used;
  }
  return FW_OK;
}

/* Reads a space and an unsigned decimal integer no larger than `max` (digits only: scanf's
 * %u takes "-1" and wraps it) from `*p` on, and moves `*p` past them. */
static int read_count(char **p, int leading_space, uint64_t max, uint64_t *out) {
  char *c = *p;
  if (leading_space && *c++ != ' ') return 0;
  if (*c < '0' || *c > '9') return 0;
  uint64_t value = 0;
  for (; *c >= '0' && *c <= '9'; ++c) {
    uint64_t digit = (uint64_t)(*c - '0');
    if (digit > max || value > (max - digit) / 10) return 0;
    value = value * 10 + digit;
  }
  *out = value;
  *p = c;
  return 1;
}

/* Whether `name` fits on one line that the loader's 4096-byte buffer reads back. */
#define FW_HISTORY_MAX_NAME 1024
static int printable(const char *name) {
  if (strlen(name) > FW_HISTORY_MAX_NAME) return 0;
  for (const char *c = name; *c; ++c)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) return 0;
  return 1;
}

typedef enum { LINE_OK, LINE_END, LINE_LONG, LINE_NUL } line_t;

/* Reads one line of `f` without its newline into `buf` (NUL-terminated, `*len` bytes):
 * LINE_END at the end of the file, LINE_LONG when it does not fit, LINE_NUL when it holds
 * a NUL byte (which would cut a name short). */
static line_t read_line(FILE *f, char *buf, size_t size, size_t *len) {
  size_t n = 0;
  int c;
  while ((c = getc_unlocked(f)) != EOF && c != '\n') { /* f is this thread's alone */
    if (n + 1 >= size) return LINE_LONG;
    if (c == 0) return LINE_NUL;
    buf[n++] = (char)c;
  }
  buf[n] = 0;
  *len = n;
  return c == EOF && n == 0 ? LINE_END : LINE_OK;
}

fw_status_t fw_history_load(fw_history_t *h, const char *path) {
  /* Non-blocking: opening a FIFO without a writer would wait forever. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return FW_OK; /* the first run creates it */
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "cannot read the history file '%s': %s",
                          path, strerror(errno));
  }
  struct stat st = {0}; /* zeroed: a failed fstat reads as "not a regular file" */
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "the history file '%s' is %s", path,
                          S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "cannot read the history file '%s': %s",
                          path, strerror(errno));
  }
  char line[4096];
  unsigned lineno = 0;
  int version = 0;
  fw_status_t status = FW_OK;
  pthread_mutex_lock(&h->lock);
  size_t len;
  line_t got;
  while (status == FW_OK && (got = read_line(f, line, sizeof(line), &len)) != LINE_END) {
    ++lineno;
    if (got != LINE_OK) {
      status = got == LINE_LONG
                   ? fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                    "history file '%s', line %u: longer than %zu bytes", path,
                                    lineno, sizeof(line) - 1)
                   : fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                    "history file '%s', line %u: holds a NUL byte", path, lineno);
      break;
    }
    if (len && line[len - 1] == '\r') line[--len] = 0; /* written on Windows */
    if (lineno == 1) {
      version = strcmp(line, FW_HISTORY_MAGIC) == 0      ? 3
                : strcmp(line, FW_HISTORY_MAGIC_V2) == 0 ? 2
                : strcmp(line, FW_HISTORY_MAGIC_V1) == 0 ? 1
                                                         : 0;
      if (!version)
        status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                "'%s' is not an fw history file (expected the first line "
                                "'%s', '%s' or '%s')",
                                path, FW_HISTORY_MAGIC, FW_HISTORY_MAGIC_V2,
                                FW_HISTORY_MAGIC_V1);
      continue;
    }
    if (len == 0 || line[0] == '#') continue;
    if (version >= 3 && strncmp(line, "link ", 5) == 0) {
      uint64_t bytes = 0, ns = 0;
      char *p = line + 4;
      if (!read_count(&p, 1, UINT64_MAX / 4, &bytes) || !read_count(&p, 1, UINT64_MAX / 4, &ns) ||
          !bytes || !ns || *p != ' ' || !p[1]) {
        status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                "history file '%s', line %u: malformed link (expected 'link "
                                "BYTES NANOSECONDS DEVICE')",
                                path, lineno);
        break;
      }
      if (!printable(p + 1)) {
        status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                                "history file '%s', line %u: the device name is longer than %d "
                                "bytes or holds control characters",
                                path, lineno, FW_HISTORY_MAX_NAME);
        break;
      }
      set_link(h, p + 1, bytes, ns);
      continue;
    }
    uint64_t kind = 0, size_class = 0, count = 0, n = 0;
    char *p = line;
    if (!read_count(&p, 0, FW_TARGET_KIND_HIP, &kind) || kind < FW_TARGET_KIND_CPU ||
        !read_count(&p, 1, 63, &size_class) || !read_count(&p, 1, UINT64_MAX / 2, &count) ||
        !read_count(&p, 1, FW_HISTORY_SAMPLES, &n) || n > count) {
      status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                              "history file '%s', line %u: malformed entry (expected 'KIND "
                              "SIZE_CLASS COUNT N' with KIND 1 to 3, SIZE_CLASS 0 to 63 and N "
                              "at most %d and at most COUNT)",
                              path, lineno, FW_HISTORY_SAMPLES);
      break;
    }
    double samples[FW_HISTORY_SAMPLES], ratios[FW_HISTORY_SAMPLES] = {0};
    status = read_values(&p, samples, (unsigned)n, FW_HISTORY_MAX_SECONDS, path, lineno,
                         "sample");
    if (status == FW_OK && version >= 2)
      status = read_values(&p, ratios, (unsigned)n, FW_HISTORY_MAX_RATIO, path, lineno,
                           "model ratio");
    if (status != FW_OK) break;
    if (*p != ' ' || !p[1]) {
      status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                              "history file '%s', line %u: missing task name", path, lineno);
      break;
    }
    if (!printable(p + 1)) { /* the save would drop it: refused rather than half used */
      status = fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                              "history file '%s', line %u: the task name is longer than %d "
                              "bytes or holds control characters",
                              path, lineno, FW_HISTORY_MAX_NAME);
      break;
    }
    fw_history_entry_t *e = find(h, p + 1, (uint32_t)kind, (uint32_t)size_class, 1);
    if (!e) {
      status = fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      break;
    }
    uint64_t before = e->count;
    for (uint64_t i = 0; i < n; ++i) push_sample(e, samples[i], ratios[i]);
    /* Samples ever recorded, not only the ones kept (when the ring was full). */
    if (n == FW_HISTORY_SAMPLES)
      e->count = count > UINT64_MAX - before ? UINT64_MAX : before + count; /* saturates */
    update_statistics(h, e);
  }
  pthread_mutex_unlock(&h->lock);
  fclose(f);
  return status;
}

fw_status_t fw_history_check_writable(const char *path) {
  /* The save writes a temporary file beside it and renames it over it. */
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, sizeof(dir), ".");
  else if (slash == path) snprintf(dir, sizeof(dir), "/");
  else snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  if (access(dir, W_OK | X_OK) != 0)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "the history file '%s' cannot be written (its directory '%s': %s)",
                          path, dir, strerror(errno));
  return FW_OK;
}

/* A new file beside `path`, named for this process and call: two runs saving the same
 * history never write into one file, and a file of that name left by a run that died
 * (or anything else there) is not opened (O_EXCL). */
static FILE *create_beside(const char *path, char *tmp, size_t size) {
  static atomic_uint calls;
  for (int attempt = 0; attempt < 100; ++attempt) {
    int n = snprintf(tmp, size, "%s.%ld.%u.tmp", path, (long)getpid(),
                     atomic_fetch_add(&calls, 1));
    if (n < 0 || (size_t)n >= size) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      FILE *f = fdopen(fd, "w");
      if (!f) {
        close(fd);
        remove(tmp);
      }
      return f;
    }
    if (errno != EEXIST) return NULL;
  }
  return NULL;
}

fw_status_t fw_history_save(fw_history_t *h, const char *path) {
  char tmp[4200];
  FILE *f = create_beside(path, tmp, sizeof(tmp));
  if (!f)
    return fw_status_make(FW_STATUS_IO, "cannot write the history file '%s': %s", path,
                          strerror(errno));
  fprintf(f,
          "%s\n# kind size_class count n samples... model_ratios... name\n"
          "# link bytes nanoseconds device\n",
          FW_HISTORY_MAGIC);
  pthread_mutex_lock(&h->lock);
  for (size_t i = 0; i < h->capacity; ++i) {
    const fw_history_entry_t *e = &h->entries[i];
    if (!e->name || e->size_class == FW_HISTORY_SUMMARY) continue;
    /* One line per entry: names with control characters or too long are not kept. */
    if (!printable(e->name)) continue;
    size_t n = e->count < FW_HISTORY_SAMPLES ? (size_t)e->count : FW_HISTORY_SAMPLES;
    fprintf(f, "%u %u %llu %zu", e->kind, e->size_class, (unsigned long long)e->count, n);
    for (size_t k = 0; k < n; ++k) fprintf(f, " %.9g", e->samples[k]);
    for (size_t k = 0; k < n; ++k) fprintf(f, " %.6g", e->ratios[k]);
    fprintf(f, " %s\n", e->name);
  }
  for (size_t i = 0; i < h->num_links; ++i)
    if (printable(h->links[i].device))
      fprintf(f, "link %llu %llu %s\n", (unsigned long long)h->links[i].bytes,
              (unsigned long long)h->links[i].ns, h->links[i].device);
  pthread_mutex_unlock(&h->lock);
  /* On disk before the rename: a crash never leaves an empty file in place of the old. */
  int failed = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
  int why = failed ? errno : 0;
  if (fclose(f) != 0 && !failed) failed = 1, why = errno;
  if (!failed && rename(tmp, path) != 0) failed = 1, why = errno;
  if (failed) {
    remove(tmp);
    return fw_status_make(FW_STATUS_IO, "cannot write the history file '%s': %s", path,
                          why ? strerror(why) : "write failed");
  }
  return FW_OK;
}
