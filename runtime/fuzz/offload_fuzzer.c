/* Fuzzes the reader of LLVM OffloadBinary device images (the entries of a fat binary's
 * .llvm.offloading section) and of the architecture names they carry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A copy of exactly `size` bytes: a read past the end is caught. */
  uint8_t *blob = malloc(size ? size : 1);
  if (!blob) return 0;
  if (size) memcpy(blob, data, size);
  fw_offload_image_t image;
  fw_status_t status = fw_offload_parse(blob, size, &image);
  if (status == FW_OK) {
    if (image.data < blob || image.size > size || (size_t)(image.data - blob) > size - image.size) {
      fprintf(stderr, "fw_offload_parse accepted an image outside its blob\n");
      abort();
    }
    if (image.arch) (void)fw_cuda_arch_number(image.arch);
    if (image.triple) (void)strlen(image.triple);
  }
  fw_status_free(status);
  free(blob);
  return 0;
}
