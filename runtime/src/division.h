/* Internal: whether a CPU kernel that divides its work among workgroups runs whole, on the
 * worker that took it, or divided among the CPU workers that are idle (engine.c), decided
 * per executable and size class of its calls by measuring both.
 *
 * The device model (nominal speeds, which real cores beat by 2-10x) says when a division
 * can pay at all (FW_SPLIT_MIN_SECONDS, engine.h); which way is faster it cannot say: a
 * 4-row projection divided by rows leaves each workgroup all of the weights to read, and
 * ran 10-20 % slower divided, while a 4-row GEMM divided by columns ran twice as fast.
 * So the first runs of such a kernel measure both ways, in blocks (every run of one way,
 * then the other's: taken in turn, each divided run found the other worker's share of
 * the data where the whole run before had left it, and a GEMM of 4x784 by 784x256
 * measured 60 us divided against 44 whole, where it runs in 25 divided); the first run of
 * a block warms the caches and is not counted. From then on every run takes the way
 * whose fastest run was fastest (interference only adds time, so the minimum is the
 * least disturbed figure), and every run of it counts too, towards the next choice: each
 * choice compares the runs of each way since the last one (the chosen way's, and the
 * other's trials), so a way that got slower for good (another process took a core the
 * divided runs counted on) does not win on a figure from before. A divided trial wakes the
 * workers that sleep (a kernel the model expects to take under FW_SPLIT_WAKE_SECONDS
 * wakes nobody otherwise): after a block of whole runs the other worker had gone to
 * sleep, every divided trial ran alone, and dividing, never measured with a helper, lost
 * for good (a call of the mlp example at 45 us instead of 30). Since a measurement made while
 * another process held the other core finds a division worthless, the other way is tried
 * again now and then, after FW_DIVISION_RECHECK runs, twice as many each time the choice
 * stands (up to FW_DIVISION_RECHECK_MAX), FW_DIVISION_RECHECK again when it changes. */
#ifndef FW_RUNTIME_SRC_DIVISION_H_
#define FW_RUNTIME_SRC_DIVISION_H_

#include <pthread.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FW_DIVISION_TRIALS 5u
#define FW_DIVISION_RECHECK 64u
#define FW_DIVISION_RECHECK_MAX 4096u
#define FW_DIVISION_RECHECK_TRIALS 2u

typedef enum {
  FW_DIVISION_WHOLE = 0,
  FW_DIVISION_DIVIDED = 1,
} fw_division_way_t;

typedef struct fw_division_slot_t { /* one size class of one executable */
  uint32_t size_class;
  uint32_t timed[2]; /* counted runs of each way */
  /* The fastest counted run of each way since the choice was last made (round_timed of
   * them), and the figures the last choice compared (reported). */
  double round_best[2];
  uint32_t round_timed[2];
  double compared[2];
  int32_t chosen;    /* the way runs take; -1 while both are first measured */
  /* The block of trials under way: block_left runs left to hand out of way block_way,
   * the next of them a warm-up while block_warm; open until the pick after its last. */
  uint32_t block_way, block_left, block_warm, block_open;
  /* The chosen way's runs since the other was last tried, and how many before the next
   * try. */
  uint32_t since, recheck;
} fw_division_slot_t;

typedef struct fw_division_t {
  int ready;           /* initialized */
  pthread_mutex_t lock;
  uint8_t *measured;   /* per executable: whether it is measured */
  size_t num_executables;
  /* Per executable, its size classes seen so far. */
  fw_division_slot_t **slots;
  size_t *num_slots, *cap_slots;
} fw_division_t;

/* Measures the executables with `measured[e]` set (copied); with `enabled` 0 (autotuning
 * off) none. Returns 0 when out of memory. */
int fw_division_init(fw_division_t *d, size_t num_executables, const uint8_t *measured,
                     int enabled);
void fw_division_fini(fw_division_t *d);
/* The way the next run of `executable` touching `bytes` takes, whether its time counts
 * (`*timed`) and whether it is one of a block of trials (`*trial`: divided, it wakes the
 * sleeping workers, as dividing is measured with helpers awake); -1 for an executable not
 * measured (the caller divides). */
int fw_division_pick(fw_division_t *d, uint32_t executable, uint64_t bytes, int *timed,
                     int *trial);
/* Records a counted run of `way` that took `seconds`. */
void fw_division_record(fw_division_t *d, uint32_t executable, uint64_t bytes,
                        fw_division_way_t way, double seconds);
/* Calls `visit` per (executable, size class) seen so far (lock held). */
void fw_division_visit(fw_division_t *d, fw_division_visit_fn_t visit, void *user_data);

#ifdef __cplusplus
}
#endif

#endif
