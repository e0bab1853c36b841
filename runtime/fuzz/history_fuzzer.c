/* Fuzzes the execution-time history file (FW_HISTORY; fw_history_load): any file is merged
 * or refused with an error, never crashes, and what was merged saves and loads back to the
 * same file: saving, loading that into an empty history and saving again writes the same
 * entries and links (lines compared as sets: the table's order may differ). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"

static char g_dir[4096], g_input[4200], g_first[4200], g_second[4200];

static void remove_files(void) {
  remove(g_input);
  remove(g_first);
  remove(g_second);
  rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof(g_dir), "%s/fw-history-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    perror("history_fuzzer: cannot create a directory for its files");
    abort();
  }
  snprintf(g_input, sizeof(g_input), "%s/input", g_dir);
  snprintf(g_first, sizeof(g_first), "%s/first", g_dir);
  snprintf(g_second, sizeof(g_second), "%s/second", g_dir);
  atexit(remove_files);
  return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
}

static int compare_lines(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file's lines but its comments, sorted, joined by newlines (malloc'ed). */
static char *sorted_lines(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) abort();
  char **lines = NULL;
  size_t n = 0, total = 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) >= 0) {
    if (line[0] == '#') continue;
    lines = realloc(lines, (n + 1) * sizeof(*lines));
    if (!lines || !(lines[n] = strdup(line))) abort();
    total += (size_t)len;
    ++n;
  }
  free(line);
  fclose(f);
  qsort(lines, n, sizeof(*lines), compare_lines);
  char *joined = calloc(1, total);
  if (!joined) abort();
  for (size_t i = 0; i < n; ++i) {
    strcat(joined, lines[i]);
    free(lines[i]);
  }
  free(lines);
  return joined;
}

static void save(fw_history_t *h, const char *path) {
  fw_status_t status = fw_history_save(h, path);
  if (status != FW_OK) {
    fprintf(stderr, "history_fuzzer: %s\n", fw_status_message(status));
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  write_file(g_input, data, size);
  fw_history_t h;
  fw_history_init(&h);
  fw_status_t status = fw_history_load(&h, g_input);
  if (status != FW_OK) {
    fw_status_free(status);
    fw_history_fini(&h);
    return 0;
  }
  /* The estimates the scheduler asks for, of every entry loaded. */
  for (size_t i = 0; i < h.capacity; ++i) {
    const fw_history_entry_t *e = &h.entries[i];
    if (!e->name || e->size_class == FW_HISTORY_SUMMARY) continue;
    uint64_t bytes = e->size_class < 64 ? (uint64_t)1 << e->size_class : UINT64_MAX;
    double seconds = 0, ratio = 0;
    if (fw_history_estimate(&h, e->name, e->kind, bytes, &seconds) &&
        !(seconds >= 0 && seconds <= FW_HISTORY_MAX_SECONDS)) {
      fprintf(stderr, "history_fuzzer: estimate %g s out of range\n", seconds);
      abort();
    }
    (void)fw_history_model_ratio(&h, e->name, e->kind, bytes * 3, &ratio);
  }
  save(&h, g_first);
  fw_history_fini(&h);

  fw_history_init(&h);
  status = fw_history_load(&h, g_first);
  if (status != FW_OK) {
    fprintf(stderr, "history_fuzzer: its own file does not load back: %s\n",
            fw_status_message(status));
    abort();
  }
  save(&h, g_second);
  fw_history_fini(&h);
  char *first = sorted_lines(g_first), *second = sorted_lines(g_second);
  if (strcmp(first, second) != 0) {
    fprintf(stderr, "history_fuzzer: saved, loaded and saved again, it differs:\n%s---\n%s",
            first, second);
    abort();
  }
  free(first);
  free(second);
  return 0;
}
