/* The storage tier's files (storage.h). */
#define _GNU_SOURCE
#include "storage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "status_internal.h"

#define PATH_CAP 4200

static fw_status_t check_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "storage directory '%s': %s", dir,
                          strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                          "storage directory '%s' is not a directory", dir);
  char probe[4096];
  snprintf(probe, sizeof(probe), "%s/.fw-probe-XXXXXX", dir);
  int fd = mkstemp(probe);
  if (fd < 0)
    return fw_status_make(FW_STATUS_IO,
                          "storage directory '%s' is not writable (creating a file there: %s)",
                          dir, strerror(errno));
  close(fd);
  unlink(probe);
  return FW_OK;
}

static int system_open(const char *path, int flags, unsigned mode) {
  return open(path, flags, (mode_t)mode);
}

static long system_pread(int fd, void *p, size_t len, int64_t offset) {
  return pread(fd, p, len, (off_t)offset);
}

static long system_pwrite(int fd, const void *p, size_t len, int64_t offset) {
  return pwrite(fd, p, len, (off_t)offset);
}

fw_status_t fw_storage_init(fw_storage_t *s, const char *dir, int buffered) {
  memset(s, 0, sizeof(*s));
  s->sys_open = system_open;
  s->sys_pread = system_pread;
  s->sys_pwrite = system_pwrite;
  atomic_init(&s->direct, !buffered);
  atomic_init(&s->direct_bytes, 0);
  if (!dir) return FW_OK;
  fw_status_t status = check_dir(dir);
  if (status != FW_OK) return status;
  s->dir = strdup(dir);
  return s->dir ? FW_OK : fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}

fw_status_t fw_storage_ensure_dir(fw_storage_t *s) {
  if (s->dir) return FW_OK;
  const char *tmp = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof(path), "%s/fw-storage-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(path))
    return fw_status_make(FW_STATUS_IO,
                          "cannot create the storage tier's directory '%s': %s", path,
                          strerror(errno));
  s->dir = strdup(path);
  if (!s->dir) {
    rmdir(path);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  s->dir_created = 1;
  return FW_OK;
}

static void file_path(const fw_storage_t *s, uint64_t id, char *out, size_t cap) {
  snprintf(out, cap, "%s/fw-%ld-%llu.buf", s->dir, (long)getpid(), (unsigned long long)id);
}

/* Whether a transfer of `size` bytes at `p` may use direct I/O. */
static int want_direct(fw_storage_t *s, const void *p, size_t size) {
  return size >= FW_STORAGE_DIRECT_MIN &&
         ((uintptr_t)p & (FW_STORAGE_DIRECT_ALIGN - 1)) == 0 &&
         atomic_load_explicit(&s->direct, memory_order_relaxed);
}

/* Moves `len` bytes between `p` and the file at `offset`, retrying short transfers and
 * interruptions. Returns the bytes moved (fewer than `len` only for a read that reached
 * the end of the file), or -1 with errno set. */
static ssize_t transfer(const fw_storage_t *s, int fd, int writing, char *p, size_t len,
                        off_t offset) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = writing ? s->sys_pwrite(fd, p + done, len - done, offset + (off_t)done)
                        : s->sys_pread(fd, p + done, len - done, offset + (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) {
      if (writing) {
        errno = ENOSPC;
        return -1;
      }
      break;
    }
    done += (size_t)n;
  }
  return (ssize_t)done;
}

/* The last partial block of a direct transfer, through an aligned block of its own
 * (zero-padded on the way out; the file is cut back to `size` afterwards). */
static ssize_t transfer_tail(const fw_storage_t *s, int fd, int writing, char *p,
                             size_t size) {
  size_t prefix = size & ~(size_t)(FW_STORAGE_DIRECT_ALIGN - 1), tail = size - prefix;
  if (tail == 0) return 0;
  _Alignas(FW_STORAGE_DIRECT_ALIGN) char block[FW_STORAGE_DIRECT_ALIGN];
  ssize_t n;
  if (writing) {
    memcpy(block, p + prefix, tail);
    memset(block + tail, 0, FW_STORAGE_DIRECT_ALIGN - tail);
    n = transfer(s, fd, 1, block, FW_STORAGE_DIRECT_ALIGN, (off_t)prefix);
    if (n >= 0 && ftruncate(fd, (off_t)size) != 0) n = -1;
    else if (n >= 0) n = (ssize_t)tail;
  } else {
    n = transfer(s, fd, 0, block, FW_STORAGE_DIRECT_ALIGN, (off_t)prefix);
    if (n > (ssize_t)tail) n = (ssize_t)tail;
    if (n > 0) memcpy(p + prefix, block, (size_t)n);
  }
  return n;
}

/* The whole transfer of `size` bytes: direct (aligned prefix, then the tail) or buffered.
 * Returns the bytes moved or -1 with errno set. */
static ssize_t transfer_file(const fw_storage_t *s, int fd, int writing, int direct, char *p,
                             size_t size) {
  if (!direct) return transfer(s, fd, writing, p, size, 0);
  size_t prefix = size & ~(size_t)(FW_STORAGE_DIRECT_ALIGN - 1);
  ssize_t n = transfer(s, fd, writing, p, prefix, 0);
  if (n < 0 || (size_t)n < prefix) return n;
  ssize_t t = transfer_tail(s, fd, writing, p, size);
  return t < 0 ? -1 : n + t;
}

/* Direct I/O was refused (the file system, or an alignment it needs beyond ours): off
 * for the rest of the runtime's life. */
static int refused(fw_storage_t *s, int direct) {
  if (!direct || errno != EINVAL) return 0;
  atomic_store_explicit(&s->direct, 0, memory_order_relaxed);
  return 1;
}

/* Opens `path`, with O_DIRECT when `*direct`; when the file system refuses that, without
 * (and `*direct` is cleared). */
static int open_file(fw_storage_t *s, const char *path, int flags, int *direct) {
  int fd = s->sys_open(path, flags | (*direct ? O_DIRECT : 0), 0600);
  if (fd < 0 && refused(s, *direct)) {
    *direct = 0;
    fd = s->sys_open(path, flags, 0600);
  }
  return fd;
}

/* How moving a file's bytes ended. */
typedef enum { FILE_MOVED, FILE_NOT_OPENED, FILE_SHORT, FILE_FAILED } file_result_t;

/* Opens `path` and moves `size` bytes between it and `p`, directly when `*direct`. When
 * the file system refuses direct I/O, at open or at the first transfer, it goes off for
 * the runtime and the transfer is redone through the page cache (`*direct` cleared).
 * FILE_NOT_OPENED and FILE_FAILED leave the error in `*err`; FILE_SHORT (reads) the file's
 * size in `*file_size`. */
static file_result_t move_file(fw_storage_t *s, const char *path, int writing, char *p,
                               size_t size, int *direct, int *err, long long *file_size) {
  int flags = writing ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC;
  for (;;) {
    int fd = open_file(s, path, flags, direct);
    if (fd < 0) {
      *err = errno;
      return FILE_NOT_OPENED;
    }
    struct stat st;
    if (!writing && fstat(fd, &st) == 0 && (uint64_t)st.st_size < size) {
      close(fd);
      *file_size = (long long)st.st_size;
      return FILE_SHORT;
    }
    ssize_t n = transfer_file(s, fd, writing, *direct, p, size);
    *err = errno;
    close(fd);
    if (n < 0 && (errno = *err, refused(s, *direct))) {
      *direct = 0;
      continue;
    }
    if (n < 0) return FILE_FAILED;
    if ((size_t)n < size) { /* shrunk since the fstat */
      *file_size = (long long)n;
      return FILE_SHORT;
    }
    if (*direct) atomic_fetch_add_explicit(&s->direct_bytes, size, memory_order_relaxed);
    return FILE_MOVED;
  }
}

fw_status_t fw_storage_write(fw_storage_t *s, uint64_t id, const void *src, size_t size,
                             int *used_direct) {
  char path[PATH_CAP];
  file_path(s, id, path, sizeof(path));
  int direct = want_direct(s, src, size), err = 0;
  long long file_size = 0;
  file_result_t r = move_file(s, path, 1, (char *)src, size, &direct, &err, &file_size);
  if (used_direct) *used_direct = r == FILE_MOVED && direct;
  if (r == FILE_NOT_OPENED)
    return fw_status_make(FW_STATUS_IO, "cannot write to the storage tier ('%s'): %s", path,
                          strerror(err));
  if (r != FILE_MOVED) {
    unlink(path);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED,
                          "writing %zu bytes to the storage tier ('%s') failed: %s", size, path,
                          strerror(err));
  }
  return FW_OK;
}

fw_status_t fw_storage_read(fw_storage_t *s, uint64_t id, void *dst, size_t size,
                            int *used_direct) {
  char path[PATH_CAP];
  file_path(s, id, path, sizeof(path));
  int direct = want_direct(s, dst, size), err = 0;
  long long file_size = 0;
  file_result_t r = move_file(s, path, 0, dst, size, &direct, &err, &file_size);
  if (used_direct) *used_direct = r == FILE_MOVED && direct;
  switch (r) {
    case FILE_MOVED: return FW_OK;
    case FILE_NOT_OPENED:
      return fw_status_make(FW_STATUS_DATA_LOSS, "the storage tier lost '%s': %s", path,
                            strerror(err));
    case FILE_SHORT:
      return fw_status_make(FW_STATUS_DATA_LOSS,
                            "reading '%s' from the storage tier: file is truncated (%lld of "
                            "%zu bytes)",
                            path, file_size, size);
    case FILE_FAILED: break;
  }
  return fw_status_make(FW_STATUS_DATA_LOSS, "reading '%s' from the storage tier: %s", path,
                        strerror(err));
}

void fw_storage_remove(fw_storage_t *s, uint64_t id) {
  if (!s->dir) return;
  char path[PATH_CAP];
  file_path(s, id, path, sizeof(path));
  unlink(path);
}

void fw_storage_fini(fw_storage_t *s) {
  if (s->dir && s->dir_created) rmdir(s->dir);
  free(s->dir);
  s->dir = NULL;
}
