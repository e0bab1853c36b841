/* Fuzzes the parsers of FW_TIER_LIMITS ("host=64MiB,device=min") and of byte sizes
 * ("512MiB"): any text gives a value or an error, never a read outside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1); /* exactly the text: a read past its end is caught */
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  uint64_t limits[FW_NUM_TIERS], bytes;
  fw_status_free(fw_parse_tier_limits(text, limits));
  (void)fw_parse_byte_size(text, &bytes);
  free(text);
  return 0;
}
