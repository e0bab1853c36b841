/* Whether a CPU kernel that divides its work runs whole or divided (division.h). */
#include "division.h"

#include <stdlib.h>
#include <string.h>

#include "history.h"

int fw_division_init(fw_division_t *d, size_t num_executables, const uint8_t *measured,
                     int enabled) {
  memset(d, 0, sizeof(*d));
  size_t n = num_executables ? num_executables : 1;
  d->measured = calloc(n, 1);
  d->slots = calloc(n, sizeof(*d->slots));
  d->num_slots = calloc(n, sizeof(size_t));
  d->cap_slots = calloc(n, sizeof(size_t));
  if (!d->measured || !d->slots || !d->num_slots || !d->cap_slots) {
    free(d->measured);
    free(d->slots);
    free(d->num_slots);
    free(d->cap_slots);
    memset(d, 0, sizeof(*d));
    return 0;
  }
  if (enabled) memcpy(d->measured, measured, num_executables);
  d->num_executables = num_executables;
  pthread_mutex_init(&d->lock, NULL);
  d->ready = 1;
  return 1;
}

void fw_division_fini(fw_division_t *d) {
  if (!d->ready) return;
  for (size_t e = 0; e < d->num_executables; ++e) free(d->slots[e]);
  free(d->slots);
  free(d->num_slots);
  free(d->cap_slots);
  free(d->measured);
  pthread_mutex_destroy(&d->lock);
  memset(d, 0, sizeof(*d));
}

/* The slot of a size class of a measured executable (created on first use; NULL when out
 * of memory, or for an executable not measured). Lock held. */
static fw_division_slot_t *find_slot(fw_division_t *d, uint32_t executable, uint64_t bytes) {
  if (!d->ready || executable >= d->num_executables || !d->measured[executable]) return NULL;
  uint32_t size_class = fw_history_size_class(bytes);
  fw_division_slot_t *slots = d->slots[executable];
  size_t n = d->num_slots[executable];
  for (size_t i = 0; i < n; ++i)
    if (slots[i].size_class == size_class) return &slots[i];
  if (n == d->cap_slots[executable]) {
    size_t cap = n ? n * 2 : 4;
    fw_division_slot_t *grown = realloc(slots, cap * sizeof(*grown));
    if (!grown) return NULL;
    d->slots[executable] = slots = grown;
    d->cap_slots[executable] = cap;
  }
  fw_division_slot_t *slot = &slots[d->num_slots[executable]++];
  memset(slot, 0, sizeof(*slot));
  slot->size_class = size_class;
  slot->chosen = -1;
  return slot;
}

/* The way whose fastest counted run since the last choice was fastest (dividing only when
 * it is faster); a way without one (its trials' times not back yet) keeps the figure the
 * last choice compared. A new round of runs starts. */
static int32_t faster_way(fw_division_slot_t *slot) {
  for (int way = 0; way < 2; ++way) {
    if (slot->round_timed[way]) slot->compared[way] = slot->round_best[way];
    slot->round_timed[way] = 0;
  }
  return slot->compared[FW_DIVISION_DIVIDED] < slot->compared[FW_DIVISION_WHOLE]
             ? FW_DIVISION_DIVIDED
             : FW_DIVISION_WHOLE;
}

/* A block of trials ended: the choice is made, kept (the next try of the other way comes
 * twice as late) or changed. Until both ways have their trials counted (runs still under
 * way, or failed: another block follows) nothing is chosen. */
static void close_block(fw_division_slot_t *slot) {
  if (slot->timed[FW_DIVISION_WHOLE] < FW_DIVISION_TRIALS ||
      slot->timed[FW_DIVISION_DIVIDED] < FW_DIVISION_TRIALS)
    return;
  int32_t way = faster_way(slot);
  if (slot->chosen == way) {
    slot->recheck = slot->recheck * 2 < FW_DIVISION_RECHECK_MAX ? slot->recheck * 2
                                                                : FW_DIVISION_RECHECK_MAX;
  } else {
    slot->chosen = way;
    slot->recheck = FW_DIVISION_RECHECK;
  }
  slot->since = 0;
}

static void start_block(fw_division_slot_t *slot, uint32_t way, uint32_t trials) {
  slot->block_way = way;
  slot->block_left = trials + 1; /* and a warm-up */
  slot->block_warm = 1;
  slot->block_open = 1;
}

int fw_division_pick(fw_division_t *d, uint32_t executable, uint64_t bytes, int *timed,
                     int *trial) {
  *timed = *trial = 0;
  if (!d->ready || executable >= d->num_executables || !d->measured[executable]) return -1;
  pthread_mutex_lock(&d->lock);
  fw_division_slot_t *slot = find_slot(d, executable, bytes);
  int way = -1;
  if (slot) {
    if (slot->block_left == 0 && slot->block_open) {
      /* Every run of the block was handed out: choose from those counted so far. */
      slot->block_open = 0;
      close_block(slot);
    }
    if (slot->block_left == 0) {
      if (slot->chosen < 0)
        start_block(slot,
                    slot->timed[FW_DIVISION_WHOLE] < FW_DIVISION_TRIALS ? FW_DIVISION_WHOLE
                                                                        : FW_DIVISION_DIVIDED,
                    FW_DIVISION_TRIALS);
      else if (++slot->since > slot->recheck)
        start_block(slot, 1u - (uint32_t)slot->chosen, FW_DIVISION_RECHECK_TRIALS);
    }
    if (slot->block_left) {
      way = (int)slot->block_way;
      *timed = !slot->block_warm;
      *trial = 1;
      slot->block_warm = 0;
      --slot->block_left;
    } else {
      way = slot->chosen;
      *timed = 1;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return way;
}

void fw_division_record(fw_division_t *d, uint32_t executable, uint64_t bytes,
                        fw_division_way_t way, double seconds) {
  if (!d->ready) return;
  pthread_mutex_lock(&d->lock);
  fw_division_slot_t *slot = find_slot(d, executable, bytes);
  if (slot) {
    if (slot->round_timed[way] == 0 || seconds < slot->round_best[way])
      slot->round_best[way] = seconds;
    ++slot->round_timed[way];
    ++slot->timed[way];
  }
  pthread_mutex_unlock(&d->lock);
}

void fw_division_visit(fw_division_t *d, fw_division_visit_fn_t visit, void *user_data) {
  if (!d->ready) return;
  pthread_mutex_lock(&d->lock);
  for (size_t e = 0; e < d->num_executables; ++e) {
    for (size_t i = 0; i < d->num_slots[e]; ++i) {
      const fw_division_slot_t *slot = &d->slots[e][i];
      fw_division_info_t info;
      memset(&info, 0, sizeof(info));
      info.executable = e;
      info.size_class = slot->size_class;
      info.decided = slot->chosen >= 0;
      info.divided = slot->chosen == FW_DIVISION_DIVIDED;
      /* Decided: what the choice compared; else the trials counted so far. */
      for (int way = 0; way < 2; ++way) {
        double seconds = info.decided            ? slot->compared[way]
                         : slot->round_timed[way] ? slot->round_best[way]
                                                  : 0;
        if (way == FW_DIVISION_WHOLE) info.whole_seconds = seconds;
        else info.divided_seconds = seconds;
      }
      visit(user_data, &info);
    }
  }
  pthread_mutex_unlock(&d->lock);
}
