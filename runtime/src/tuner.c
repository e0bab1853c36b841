/* Online autotuning among the candidate variants of an executable (tuner.h). */
#include "tuner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

int fw_tuner_init(fw_tuner_t *tuner, const fw_metadata_t *md, const void *const *loaded,
                  int enabled) {
  memset(tuner, 0, sizeof(*tuner));
  tuner->executables = calloc(md->num_executables ? md->num_executables : 1,
                              sizeof(*tuner->executables));
  if (!tuner->executables) return 0; /* not ready: fw_tuner_fini leaves it alone */
  pthread_mutex_init(&tuner->lock, NULL);
  tuner->ready = 1;
  tuner->num_executables = md->num_executables;
  for (size_t e = 0; enabled && e < md->num_executables; ++e) {
    const fw_md_executable_t *exe = &md->executables[e];
    fw_tune_executable_t *t = &tuner->executables[e];
    if (!(exe->flags & FW_MD_EXECUTABLE_AUTOTUNE)) continue;
    for (uint32_t v = 0; v < exe->num_variants; ++v) {
      uint32_t index = exe->first_variant + v;
      if (!loaded[index]) continue;
      if (t->num_candidates < FW_TUNE_MAX_CANDIDATES) t->candidates[t->num_candidates++] = index;
    }
    if (t->num_candidates < 2) t->num_candidates = 0;
  }
  return 1;
}

void fw_tuner_fini(fw_tuner_t *tuner) {
  if (!tuner->ready) return;
  for (size_t e = 0; e < tuner->num_executables; ++e) free(tuner->executables[e].slots);
  free(tuner->executables);
  pthread_mutex_destroy(&tuner->lock);
  memset(tuner, 0, sizeof(*tuner));
}

/* The slot of a size class (created on first use; NULL when out of memory). */
static fw_tune_slot_t *find_slot(fw_tune_executable_t *t, uint32_t size_class) {
  for (size_t i = 0; i < t->num_slots; ++i)
    if (t->slots[i].size_class == size_class) return &t->slots[i];
  if (t->num_slots == t->cap_slots) {
    size_t cap = t->cap_slots ? t->cap_slots * 2 : 4;
    fw_tune_slot_t *grown = realloc(t->slots, cap * sizeof(*grown));
    if (!grown) return NULL;
    t->slots = grown;
    t->cap_slots = cap;
  }
  fw_tune_slot_t *slot = &t->slots[t->num_slots++];
  memset(slot, 0, sizeof(*slot));
  slot->size_class = size_class;
  slot->chosen = -1;
  return slot;
}

/* The fastest of a candidate's timed runs: interference (other threads, other processes,
 * page faults) only ever adds time, so the minimum is the estimate least disturbed by it. */
static double fastest(const double *s, uint32_t n) {
  double m = s[0];
  for (uint32_t i = 1; i < n; ++i)
    if (s[i] < m) m = s[i];
  return m;
}

/* Once every candidate has its trials timed, the one with the fastest run wins. */
static void maybe_choose(fw_tune_executable_t *t, fw_tune_slot_t *slot) {
  int32_t best = -1;
  double best_seconds = 0;
  for (uint32_t c = 0; c < t->num_candidates; ++c) {
    if (slot->measured[c] < FW_TUNE_TRIALS) return;
    double m = fastest(slot->seconds[c], FW_TUNE_TRIALS);
    if (best < 0 || m < best_seconds) {
      best = (int32_t)c;
      best_seconds = m;
    }
  }
  slot->chosen = best;
}

int64_t fw_tuner_pick(fw_tuner_t *tuner, uint32_t executable, uint64_t bytes,
                      fw_tune_state_t *state) {
  *state = FW_TUNE_NONE;
  if (executable >= tuner->num_executables) return -1;
  fw_tune_executable_t *t = &tuner->executables[executable];
  if (!t->num_candidates) return -1;
  pthread_mutex_lock(&tuner->lock);
  fw_tune_slot_t *slot = find_slot(t, fw_history_size_class(bytes));
  int64_t variant = t->candidates[0];
  if (slot && slot->chosen >= 0) {
    variant = t->candidates[slot->chosen];
    *state = FW_TUNE_CHOSEN;
  } else if (slot) {
    /* The next candidate still short of trials (a trial whose run failed or is still
     * running is handed out again after the others). */
    uint32_t c = slot->next, tries = 0;
    while (slot->dispatched[c] >= FW_TUNE_TRIALS + 1 && tries++ < t->num_candidates)
      c = (c + 1) % t->num_candidates;
    if (slot->dispatched[c] >= FW_TUNE_TRIALS + 1) {
      for (c = 0; c < t->num_candidates && slot->measured[c] >= FW_TUNE_TRIALS; ++c) {}
      if (c == t->num_candidates) c = 0;
    }
    ++slot->dispatched[c];
    slot->next = (c + 1) % t->num_candidates;
    variant = t->candidates[c];
    *state = FW_TUNE_TRIAL;
  }
  pthread_mutex_unlock(&tuner->lock);
  return variant;
}

void fw_tuner_record(fw_tuner_t *tuner, uint32_t executable, uint64_t bytes, uint32_t variant,
                     double seconds) {
  if (executable >= tuner->num_executables) return;
  fw_tune_executable_t *t = &tuner->executables[executable];
  pthread_mutex_lock(&tuner->lock);
  fw_tune_slot_t *slot = find_slot(t, fw_history_size_class(bytes));
  for (uint32_t c = 0; slot && slot->chosen < 0 && c < t->num_candidates; ++c) {
    if (t->candidates[c] != variant) continue;
    if (!slot->warmed[c]) slot->warmed[c] = 1;
    else if (slot->measured[c] < FW_TUNE_TRIALS) slot->seconds[c][slot->measured[c]++] = seconds;
    maybe_choose(t, slot);
    break;
  }
  pthread_mutex_unlock(&tuner->lock);
}

void fw_tuner_visit(fw_tuner_t *tuner, const fw_metadata_t *md, const char *device,
                    fw_tuning_visit_fn_t visit, void *user_data) {
  if (!tuner->ready) return;
  pthread_mutex_lock(&tuner->lock);
  for (size_t e = 0; e < tuner->num_executables; ++e) {
    const fw_tune_executable_t *t = &tuner->executables[e];
    for (size_t i = 0; i < t->num_slots; ++i) {
      const fw_tune_slot_t *slot = &t->slots[i];
      fw_tuning_info_t info;
      memset(&info, 0, sizeof(info));
      info.executable = e;
      info.size_class = slot->size_class;
      info.num_candidates = t->num_candidates;
      info.decided = slot->chosen >= 0;
      snprintf(info.device, sizeof(info.device), "%s", device);
      if (info.decided) {
        info.variant = t->candidates[slot->chosen] - md->executables[e].first_variant;
        info.seconds = fastest(slot->seconds[slot->chosen], FW_TUNE_TRIALS);
      }
      visit(user_data, &info);
    }
  }
  pthread_mutex_unlock(&tuner->lock);
}
