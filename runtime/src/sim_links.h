/* Internal: the links of a simulated machine. Each device's link to host memory carries
 * one copy at a time in each direction; copies asked for while it is busy wait on it and
 * leave in order of need (when their reader is planned to start), as the runtime's copy
 * queue serves them (memory.c), not in the order they were asked for. */
#ifndef FW_RUNTIME_SRC_SIM_LINKS_H_
#define FW_RUNTIME_SRC_SIM_LINKS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fw_buffer_t;

/* A hop waiting for its link: the buffer, from where it is (or is on its way to) to the
 * link's other end. */
typedef struct fw_sim_move_t {
  struct fw_buffer_t *buffer;
  uint32_t source, target;
  double need; /* when its reader needs it: the smaller, the sooner it leaves */
  uint64_t seq; /* among equal needs, the first asked for */
  /* When its data is at the source; NAN: when the source's replica lands (it is pinned
   * meanwhile). A write-back carries data whose replica was already dropped. */
  double ready;
} fw_sim_move_t;

/* One direction of a link. */
typedef struct fw_sim_link_t {
  double free_at; /* when the hop on it lands */
  fw_sim_move_t *pending;
  size_t num_pending, cap_pending;
} fw_sim_link_t;

/* A device node's link: [0] host -> device, [1] device -> host. */
typedef struct fw_sim_links_t {
  fw_sim_link_t dir[2];
} fw_sim_links_t;

#ifdef __cplusplus
}
#endif

#endif
