// Random task graphs over a few buffers, and the sequential replay they are checked
// against: each task reads what its read accesses hold, folds it into a checksum it keeps,
// and writes values derived from it, so that a task that ran out of order, or read a stale
// or torn copy, shows in its checksum or in a buffer's final contents. A commutative update
// (FW_ACCESS_READ_WRITE_COMMUTE) adds values derived from its other inputs to its buffer:
// its group's updates give the same contents in any order, but two at once, or one that
// read a stale copy, would lose an addition. A contribution to a reduction
// (FW_ACCESS_REDUCE, the buffer's reduction a sum) adds the same values to its
// accumulator, which the reduction adds to the buffer: the same contents again.
#ifndef FW_RUNTIME_TEST_RANDOM_GRAPH_H_
#define FW_RUNTIME_TEST_RANDOM_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fw/runtime.h"
#include "task_test_util.h"
#include "test_util.h"

namespace fwtest {

constexpr size_t kRandomElems = 64;  // uint64 values per buffer

struct RandomOp {
  uint64_t id;
  size_t num;
  size_t buffer[3];
  fw_access_t mode[3];
  uint64_t checksum;  // written by the task: what it read
};

// The operation of a task, on the host addresses of its accesses (shared by the task and
// the replay, so that both compute exactly the same thing).
inline void applyRandomOp(RandomOp *op, uint64_t *const *data) {
  uint64_t in[kRandomElems];
  for (size_t j = 0; j < kRandomElems; ++j) in[j] = mix(op->id * kRandomElems + j);
  for (size_t a = 0; a < op->num; ++a)
    if ((op->mode[a] & FW_ACCESS_READ) && !(op->mode[a] & FW_ACCESS_COMMUTE))
      for (size_t j = 0; j < kRandomElems; ++j) in[j] = mix(in[j] ^ data[a][j]);
  uint64_t sum = 0;
  for (size_t j = 0; j < kRandomElems; ++j) sum += in[j] * (j + 1);
  op->checksum = sum;
  for (size_t a = 0; a < op->num; ++a) {
    if (op->mode[a] & (FW_ACCESS_COMMUTE | FW_ACCESS_REDUCE))
      for (size_t j = 0; j < kRandomElems; ++j) data[a][j] += mix(in[j] + a);
    else if (op->mode[a] & FW_ACCESS_WRITE)
      for (size_t j = 0; j < kRandomElems; ++j) data[a][j] = mix(in[j] + a);
  }
}

// `count` operations on `buffers` buffers: one in 16 touches none, the others one to
// three distinct buffers, reads the most common access (as in real graphs); with
// `commute`, one access in three is a commutative update, which come in runs, or with
// `reduce` too, half of those a contribution to a sum (FW_REDUCTION_SUM).
inline std::vector<RandomOp> randomOps(uint64_t seed, size_t count, size_t buffers,
                                       bool commute = false, bool reduce = false) {
  Rng rng(seed);
  std::vector<RandomOp> ops(count);
  for (size_t i = 0; i < count; ++i) {
    RandomOp &op = ops[i];
    op.id = i;
    op.num = rng.below(16) == 0 ? 0 : 1 + rng.below(3);
    for (size_t a = 0; a < op.num; ++a) {
      size_t b;
      bool fresh;
      do {
        b = rng.below(buffers);
        fresh = true;
        for (size_t k = 0; k < a; ++k) fresh &= op.buffer[k] != b;
      } while (!fresh);
      op.buffer[a] = b;
      static const fw_access_t kModes[] = {FW_ACCESS_READ, FW_ACCESS_READ, FW_ACCESS_WRITE,
                                           FW_ACCESS_READ_WRITE};
      if (commute && rng.below(3) == 0)
        op.mode[a] = reduce && rng.below(2) ? FW_ACCESS_REDUCE : FW_ACCESS_READ_WRITE_COMMUTE;
      else
        op.mode[a] = kModes[rng.below(4)];
    }
    op.checksum = 0;
  }
  return ops;
}

inline std::vector<uint64_t> randomInitialContents(size_t b) {
  std::vector<uint64_t> v(kRandomElems);
  for (size_t j = 0; j < kRandomElems; ++j) v[j] = mix(1000003 * (b + 1) + j);
  return v;
}

// Runs `ops` one after another on fresh contents: each op's checksum, and the buffers'
// final contents.
inline std::vector<std::vector<uint64_t>> replayRandomOps(std::vector<RandomOp> &ops,
                                                          size_t buffers) {
  std::vector<std::vector<uint64_t>> state(buffers);
  for (size_t b = 0; b < buffers; ++b) state[b] = randomInitialContents(b);
  for (RandomOp &op : ops) {
    uint64_t *d[3] = {};
    for (size_t a = 0; a < op.num; ++a) d[a] = state[op.buffer[a]].data();
    applyRandomOp(&op, d);
  }
  return state;
}

}  // namespace fwtest

#endif
