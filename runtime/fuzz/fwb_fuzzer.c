/* Fuzzes the fat-binary reader (docs/fat-binary.md) with everything fw_module_load checks
 * before it maps code: the ELF section table, the metadata, the images' bounds, each
 * image's OffloadBinary header and the image each GPU picks. The input is the payload;
 * the harness seals it with a valid trailer (size and checksum), or the checksum would
 * stop nearly every mutation at the first check. The trailer's own checks have tests of
 * their own (fwb_reader_test, fw-run's corrupt-file tests). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_module.h"
#include "fwb_reader.h"
#include "metadata.h"

static void put_le(uint8_t *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = (uint8_t)(value >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *fwb = malloc(size + FW_FWB_TRAILER_SIZE);
  if (!fwb) return 0;
  if (size) memcpy(fwb, data, size);
  uint8_t *trailer = fwb + size;
  memcpy(trailer, "FWBTRAIL", 8);
  put_le(trailer + 8, FW_FWB_VERSION, 4);
  put_le(trailer + 12, 0, 4);
  put_le(trailer + 16, size, 8);
  put_le(trailer + 24, fw_fnv1a64(fwb, size), 8);

  fw_fwb_view_t view;
  fw_status_t status = fw_fwb_parse(fwb, size + FW_FWB_TRAILER_SIZE, &view);
  if (status == FW_OK) {
    fw_metadata_t md;
    status = fw_metadata_parse(view.meta, view.meta_size, FW_HOST_ABI_VERSION, &md);
    if (status == FW_OK) {
      fw_fuzz_check_module(&md, view.offload, view.offload_size);
      fw_metadata_free(&md);
    }
  }
  fw_status_free(status);
  free(fwb);
  return 0;
}
