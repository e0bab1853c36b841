/* The `.fwb` container: reading the file, the trailer and ELF section lookup. All offsets
 * are bounds- and overflow-checked against the payload before they are dereferenced. */
#define _GNU_SOURCE
#include "fwb_reader.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "status_internal.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

uint64_t fw_fnv1a64(const void *data, size_t size) {
  const uint8_t *p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

#define FWB_ERR(...) fw_status_make(FW_STATUS_DATA_LOSS, __VA_ARGS__)

/* True when [offset, offset + size) lies inside [0, limit). */
static int in_bounds(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

typedef struct {
  uint32_t name, type;
  uint64_t offset, size;
} section_t;

static section_t read_section(const uint8_t *payload, uint64_t shoff, uint64_t index) {
  const uint8_t *s = payload + shoff + index * 64;
  section_t out;
  out.name = rd32(s + 0);
  out.type = rd32(s + 4);
  out.offset = rd64(s + 24);
  out.size = rd64(s + 32);
  return out;
}

fw_status_t fw_fwb_parse(const void *data, size_t size, fw_fwb_view_t *out_view) {
  if (!out_view) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "out_view is NULL");
  memset(out_view, 0, sizeof(*out_view));
  fw_fwb_view_t view;
  memset(&view, 0, sizeof(view));
  if (!data && size) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "data is NULL");
  const uint8_t *b = data;

  /* 1. Trailer. */
  if (size < FW_FWB_TRAILER_SIZE + 64)
    return FWB_ERR("not a .fwb file: %zu bytes is too small (need at least %u)", size,
                   FW_FWB_TRAILER_SIZE + 64);
  const uint8_t *t = b + size - FW_FWB_TRAILER_SIZE;
  if (memcmp(t, "FWBTRAIL", 8) != 0)
    return FWB_ERR("not a .fwb file: trailer magic \"FWBTRAIL\" not found (truncated or "
                   "not a fat binary)");
  uint32_t version = rd32(t + 8);
  if (version == FW_FWB_VERSION && rd32(t + 12) != 0)
    return FWB_ERR("bad .fwb trailer: reserved field is %u, expected 0", rd32(t + 12));
  if (version != FW_FWB_VERSION)
    return fw_status_make(FW_STATUS_UNSUPPORTED,
                          "unsupported .fwb trailer version %u (this runtime reads %u)",
                          version, FW_FWB_VERSION);
  uint64_t payload_size = rd64(t + 16);
  if (payload_size != size - FW_FWB_TRAILER_SIZE)
    return FWB_ERR("corrupt .fwb: trailer payload_size %llu does not match the file "
                   "(%zu bytes of payload)",
                   (unsigned long long)payload_size, size - FW_FWB_TRAILER_SIZE);
  uint64_t checksum = rd64(t + 24);
  uint64_t actual = fw_fnv1a64(b, (size_t)payload_size);
  if (checksum != actual)
    return FWB_ERR("corrupt .fwb: checksum mismatch (trailer %016llx, payload %016llx)",
                   (unsigned long long)checksum, (unsigned long long)actual);

  /* 2. ELF header. */
  const uint8_t *e = b;
  if (memcmp(e, ELFMAG, SELFMAG) != 0) return FWB_ERR("bad .fwb payload: not an ELF file");
  if (e[EI_CLASS] != ELFCLASS64) return FWB_ERR("bad .fwb payload: ELF is not ELFCLASS64");
  if (e[EI_DATA] != ELFDATA2LSB) return FWB_ERR("bad .fwb payload: ELF is not little-endian");
  if (e[EI_VERSION] != EV_CURRENT) return FWB_ERR("bad .fwb payload: ELF version is not current");
  if (rd16(e + 16) != ET_DYN) return FWB_ERR("bad .fwb payload: ELF is not a shared object (ET_DYN)");
  if (rd16(e + 18) != EM_X86_64) return FWB_ERR("bad .fwb payload: ELF machine is not x86-64");
  if (rd32(e + 20) != EV_CURRENT) return FWB_ERR("bad .fwb payload: ELF e_version is not current");
  uint64_t shoff = rd64(e + 40);
  uint16_t shentsize = rd16(e + 58);
  uint64_t shnum = rd16(e + 60);
  uint32_t shstrndx = rd16(e + 62);
  if (shentsize != 64)
    return FWB_ERR("bad .fwb payload: ELF e_shentsize is %u (expected 64)", shentsize);
  if (shoff == 0) return FWB_ERR("bad .fwb payload: ELF has no section header table");
  if (!in_bounds(shoff, 64, payload_size))
    return FWB_ERR("bad .fwb payload: ELF section header table lies outside the payload");
  if (shnum == 0 || shstrndx == SHN_XINDEX) { /* extended numbering: values in section 0 */
    section_t s0 = read_section(b, shoff, 0);
    const uint8_t *raw0 = b + shoff;
    if (shnum == 0) shnum = s0.size;
    if (shstrndx == SHN_XINDEX) shstrndx = rd32(raw0 + 40);
  }
  if (shnum > payload_size / 64 || !in_bounds(shoff, shnum * 64, payload_size))
    return FWB_ERR("bad .fwb payload: ELF section header table (%llu entries) lies outside "
                   "the payload",
                   (unsigned long long)shnum);
  if (shstrndx == SHN_UNDEF || shstrndx >= shnum)
    return FWB_ERR("bad .fwb payload: ELF e_shstrndx %u is out of range", shstrndx);
  section_t strtab = read_section(b, shoff, shstrndx);
  if (strtab.type != SHT_STRTAB || !in_bounds(strtab.offset, strtab.size, payload_size) ||
      strtab.size == 0)
    return FWB_ERR("bad .fwb payload: ELF section-name string table is invalid or lies "
                   "outside the payload");
  const char *names = (const char *)b + strtab.offset;

  /* 3. Sections. */
  int found_meta = 0, found_offload = 0;
  for (uint64_t i = 0; i < shnum; ++i) {
    section_t s = read_section(b, shoff, i);
    if (s.name >= strtab.size || memchr(names + s.name, 0, strtab.size - s.name) == NULL)
      return FWB_ERR("bad .fwb payload: name of ELF section %llu lies outside the "
                     "section-name string table",
                     (unsigned long long)i);
    const char *name = names + s.name;
    int is_meta = strcmp(name, ".fw.meta") == 0;
    int is_offload = strcmp(name, ".llvm.offloading") == 0;
    if (!is_meta && !is_offload) continue;
    if (is_meta && found_meta) return FWB_ERR("bad .fwb payload: more than one .fw.meta section");
    if (is_offload && found_offload)
      return FWB_ERR("bad .fwb payload: more than one .llvm.offloading section");
    if (s.type == SHT_NOBITS || !in_bounds(s.offset, s.size, payload_size))
      return FWB_ERR("bad .fwb payload: section %s lies outside the payload", name);
    if (is_meta) {
      if (s.type != SHT_PROGBITS)
        return FWB_ERR("bad .fwb payload: section .fw.meta is not SHT_PROGBITS");
      found_meta = 1;
      view.meta = b + s.offset;
      view.meta_size = (size_t)s.size;
    } else {
      found_offload = 1;
      view.offload = b + s.offset;
      view.offload_size = (size_t)s.size;
    }
  }
  if (!found_meta) return FWB_ERR("bad .fwb payload: no .fw.meta section");
  view.payload = b;
  view.payload_size = (size_t)payload_size;
  *out_view = view;
  return FW_OK;
}

fw_status_t fw_read_file(const char *path, uint8_t **out_data, size_t *out_size) {
  *out_data = NULL;
  *out_size = 0;
  /* Non-blocking: opening a FIFO without a writer would wait forever (it is refused
   * below; a regular file ignores the flag). */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fw_status_make(FW_STATUS_IO, "cannot open: %s", strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return fw_status_make(FW_STATUS_IO, "cannot stat: %s", strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return fw_status_make(FW_STATUS_IO, "not a regular file");
  }
  if ((uint64_t)st.st_size > SIZE_MAX / 2) {
    close(fd);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "file is too large");
  }
  size_t size = (size_t)st.st_size;
  uint8_t *data = malloc(size ? size : 1);
  if (!data) {
    close(fd);
    return fw_status_make(FW_STATUS_RESOURCE_EXHAUSTED, "out of memory reading %zu bytes", size);
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      free(data);
      close(fd);
      return fw_status_make(FW_STATUS_IO, "read failed: %s", strerror(e));
    }
    if (n == 0) break; /* shrank while reading: validate what we have */
    done += (size_t)n;
  }
  close(fd);
  *out_data = data;
  *out_size = done;
  return FW_OK;
}
