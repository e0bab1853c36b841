/* Fuzzes the `.fw.meta` table's parser (docs/fat-binary.md) on its own, without the ELF
 * around it: every table it accepts must keep its promises (check_module.h). */
#include <stdint.h>

#include "check_module.h"
#include "metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fw_metadata_t md;
  fw_status_t status = fw_metadata_parse(data, size, FW_HOST_ABI_VERSION, &md);
  if (status == FW_OK) {
    fw_fuzz_check_module(&md, NULL, 0);
    fw_metadata_free(&md);
  }
  fw_status_free(status);
  return 0;
}
