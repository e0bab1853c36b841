/* Internal: the storage tier's files, one per buffer, in a directory.
 *
 * Large transfers use direct I/O (O_DIRECT) where the file system allows it: the data
 * moves between the buffer's memory and the disk by DMA, without a second copy in the
 * page cache. So a capped host tier really bounds the memory the data takes, and a read
 * from storage is a wait, not CPU work: copy threads that prefetch from storage leave the
 * cores to the workers. Small transfers, memory not aligned for direct I/O, and file
 * systems that refuse it (the first refusal turns it off for the runtime) go through the
 * page cache; FW_STORAGE_IO=buffered (or FW_RUNTIME_BUFFERED_STORAGE) asks for that
 * always. The two kinds of I/O may meet on one file: the kernel keeps them coherent. */
#ifndef FW_RUNTIME_SRC_STORAGE_H_
#define FW_RUNTIME_SRC_STORAGE_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Direct I/O alignment of memory, file offsets and lengths: the logical block size of
 * every common disk (512 B or 4 KiB). */
#define FW_STORAGE_DIRECT_ALIGN 4096u
/* Transfers of fewer bytes go through the page cache: a direct request costs the disk's
 * latency (0.15-0.2 ms on a virtual disk), which halves the rate of 256 KiB transfers. */
#define FW_STORAGE_DIRECT_MIN (1u << 20)

typedef struct fw_storage_t {
  char *dir;
  int dir_created;            /* made by us: removed by fw_storage_fini */
  atomic_int direct;          /* direct I/O for large aligned transfers */
  atomic_ullong direct_bytes; /* bytes moved with direct I/O (statistics, tests) */
  /* open(2), pread(2) and pwrite(2); tests put in their place a file system that refuses
   * O_DIRECT, at open or at the first transfer. */
  int (*sys_open)(const char *path, int flags, unsigned mode);
  long (*sys_pread)(int fd, void *p, size_t len, int64_t offset);
  long (*sys_pwrite)(int fd, const void *p, size_t len, int64_t offset);
} fw_storage_t;

/* Sets up the storage tier in `dir`, which must be a writable directory; NULL: a new
 * directory under $TMPDIR (or /tmp), made by fw_storage_ensure_dir on first use.
 * `buffered`: never use direct I/O. */
fw_status_t fw_storage_init(fw_storage_t *s, const char *dir, int buffered);
/* Makes the directory if fw_storage_init was given none (idempotent). */
fw_status_t fw_storage_ensure_dir(fw_storage_t *s);
/* Writes the `size` bytes at `src` as buffer `id`'s file (replacing it). On failure the
 * file is removed. `*direct` (when not NULL) tells whether the data moved with direct
 * I/O. */
fw_status_t fw_storage_write(fw_storage_t *s, uint64_t id, const void *src, size_t size,
                             int *direct);
/* Reads buffer `id`'s file, which must hold `size` bytes, into `dst`: a missing or short
 * file is FW_STATUS_DATA_LOSS. `*direct` as for fw_storage_write. */
fw_status_t fw_storage_read(fw_storage_t *s, uint64_t id, void *dst, size_t size,
                            int *direct);
/* Removes buffer `id`'s file, if any. */
void fw_storage_remove(fw_storage_t *s, uint64_t id);
/* Removes the directory if fw_storage_ensure_dir made it, and frees the state. */
void fw_storage_fini(fw_storage_t *s);

#ifdef __cplusplus
}
#endif

#endif /* FW_RUNTIME_SRC_STORAGE_H_ */
