/* What memory.c shares with the prefetch threads (prefetch.c): the replicas' state and
 * the copies and room they make, all under the memory's lock. Not part of memory.h's
 * interface. */
#ifndef FW_RUNTIME_MEMORY_INTERNAL_H
#define FW_RUNTIME_MEMORY_INTERNAL_H

#include "memory.h"

/* The host replica of a view of the caller's memory (fw_buffer_wrap): never allocated,
 * evicted or counted against the host tier. */
int fw_memory_host_wrapped(const fw_buffer_t *b, uint32_t node);

/* Whether a node other than `node` holds a valid replica of the buffer. */
int fw_memory_valid_elsewhere(const fw_memory_t *m, const fw_buffer_t *b, uint32_t node);

/* What waiters on the memory's state wait for happened. */
void fw_memory_changed(fw_memory_t *m);

/* Whether a copy into or out of any replica of the buffer is in flight. */
int fw_memory_any_busy(const fw_memory_t *m, const fw_buffer_t *b);

/* Allocates the buffer's replica on `node`, counted against the node's capacity. */
fw_status_t fw_memory_allocate_replica(fw_memory_t *m, fw_buffer_t *b, uint32_t node);

/* Copies the buffer into its allocated replica on `to` from a valid one (`*out_from`,
 * when given: the source node, UINT32_MAX when no copy was made); drops the lock during
 * the copy. */
fw_status_t fw_memory_copy_in(fw_memory_t *m, fw_buffer_t *b, uint32_t to,
                              uint32_t *out_from);

/* Frees room for `need` more bytes on `node` without evicting what `keep` accesses, nor
 * what the lookahead window needs up to `protect`; *made says whether there is room.
 * May drop the lock. */
fw_status_t fw_memory_make_room(fw_memory_t *m, uint32_t node, uint64_t need,
                                int64_t protect, const fw_task_t *keep, int *made,
                                unsigned *evictions);

#endif /* FW_RUNTIME_MEMORY_INTERNAL_H */
