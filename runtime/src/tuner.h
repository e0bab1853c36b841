/* Internal: online autotuning. An executable marked for it (`fwc --autotune=N`) has its
 * CPU variants as candidates: the same kernel with different register tiles, cache
 * blocking or division among workgroups, or for a higher ISA level (only those this
 * processor runs are loaded); and per GPU the variants for the target that GPU runs
 * (block sizes, GEMM tiles). A module has one tuner for the CPU and one per GPU, each
 * measuring the runs made there. Per size class of its calls,
 * the first runs try the candidates in turn, one warm-up run (not counted: first
 * touches of its code and buffers) and FW_TUNE_TRIALS timed runs each; from then on every
 * run takes the one whose fastest timed run was fastest (interference only adds time,
 * so the minimum is what it disturbs least). */
#ifndef FW_RUNTIME_SRC_TUNER_H_
#define FW_RUNTIME_SRC_TUNER_H_

#include <pthread.h>
#include <stdint.h>

#include "metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_TUNE_TRIALS 5
#define FW_TUNE_MAX_CANDIDATES 8

typedef struct fw_tune_slot_t { /* one size class of one executable */
  uint32_t size_class;
  int32_t chosen;   /* index into the candidates; -1 while measuring */
  uint32_t next;    /* the candidate the next trial dispatch gets */
  uint32_t dispatched[FW_TUNE_MAX_CANDIDATES]; /* trial runs handed out */
  uint32_t warmed[FW_TUNE_MAX_CANDIDATES];     /* its warm-up run finished */
  uint32_t measured[FW_TUNE_MAX_CANDIDATES];   /* trial runs timed */
  double seconds[FW_TUNE_MAX_CANDIDATES][FW_TUNE_TRIALS];
} fw_tune_slot_t;

typedef struct fw_tune_executable_t {
  uint32_t num_candidates; /* 0 or >= 2 */
  uint32_t candidates[FW_TUNE_MAX_CANDIDATES]; /* variant indices */
  fw_tune_slot_t *slots;
  size_t num_slots, cap_slots;
} fw_tune_executable_t;

typedef struct fw_tuner_t {
  int ready; /* initialized */
  pthread_mutex_t lock;
  fw_tune_executable_t *executables; /* per executable */
  size_t num_executables;
} fw_tuner_t;

/* What a dispatch runs: the variant, and whether it is a trial or the chosen one. */
typedef enum fw_tune_state_t {
  FW_TUNE_NONE = 0,   /* no candidates: the executable's only CPU variant */
  FW_TUNE_TRIAL = 1,  /* measuring */
  FW_TUNE_CHOSEN = 2, /* the fastest candidate */
} fw_tune_state_t;

/* Finds the candidates of every executable marked FW_MD_EXECUTABLE_AUTOTUNE: its variants
 * that loaded where this tuner measures (`loaded[v]` non-NULL: the CPU kernels, or the
 * kernels loaded on one GPU), when there are several. Other executables, and all with
 * `enabled` 0, have none: every dispatch runs the first variant that loaded there. */
int fw_tuner_init(fw_tuner_t *tuner, const fw_metadata_t *md, const void *const *loaded,
                  int enabled);
void fw_tuner_fini(fw_tuner_t *tuner);
/* Whether dispatches of `executable` choose among candidates (no lock: fixed at init). */
static inline int fw_tuner_has_candidates(const fw_tuner_t *tuner, uint32_t executable) {
  return executable < tuner->num_executables && tuner->executables[executable].num_candidates;
}
/* The variant a dispatch of `executable` touching `bytes` runs, or -1 when it has no
 * candidates; `state` says which kind of run it is. */
int64_t fw_tuner_pick(fw_tuner_t *tuner, uint32_t executable, uint64_t bytes,
                      fw_tune_state_t *state);
/* Calls `visit` per (executable, size class) seen so far (lock held); `device` names where
 * the tuner measures ("cpu", "cuda:0"). */
void fw_tuner_visit(fw_tuner_t *tuner, const fw_metadata_t *md, const char *device,
                    fw_tuning_visit_fn_t visit, void *user_data);
/* Records the time of a trial run of `variant`. */
void fw_tuner_record(fw_tuner_t *tuner, uint32_t executable, uint64_t bytes, uint32_t variant,
                     double seconds);

#ifdef __cplusplus
}
#endif

#endif
