/* fwb-seal IN OUT: writes OUT = IN followed by the 32-byte .fwb trailer
 * (docs/fat-binary.md: "FWBTRAIL", version 1, payload_size, FNV-1a 64 checksum). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fwb-seal IN.so OUT.fwb\n");
    return 1;
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in) {
    fprintf(stderr, "fwb-seal: error: cannot open %s\n", argv[1]);
    return 1;
  }
  size_t cap = 1 << 16, size = 0;
  uint8_t *data = malloc(cap);
  for (;;) {
    if (!data) {
      fprintf(stderr, "fwb-seal: error: out of memory\n");
      return 1;
    }
    size_t n = fread(data + size, 1, cap - size, in);
    size += n;
    if (n == 0) break;
    if (size == cap) data = realloc(data, cap *= 2);
  }
  fclose(in);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  uint8_t trailer[32] = {0};
  memcpy(trailer, "FWBTRAIL", 8);
  trailer[8] = 1; /* version, u32 LE */
  put64(trailer + 16, size);
  put64(trailer + 24, h);
  FILE *out = fopen(argv[2], "wb");
  if (!out || fwrite(data, 1, size, out) != size || fwrite(trailer, 1, 32, out) != 32 ||
      fclose(out) != 0) {
    fprintf(stderr, "fwb-seal: error: cannot write %s\n", argv[2]);
    return 1;
  }
  free(data);
  return 0;
}
