// Fuzzes fw-run's .npy reader (the files --input=@FILE.npy names): any bytes give a tensor
// or an error, a tensor never needs more memory than the file holds, and what it reads
// writes back to a .npy file that reads back the same.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  fwrun::HostTensor tensor;
  if (!fwrun::parseNpy(bytes, &tensor).empty()) return 0;
  if (tensor.data.size() > size) {
    std::fprintf(stderr, "parseNpy made %zu bytes of a %zu-byte file\n", tensor.data.size(),
                 size);
    std::abort();
  }
  std::string encoded;
  std::string error = fwrun::encodeNpy(tensor, &encoded);
  if (!error.empty()) {
    std::fprintf(stderr, "encodeNpy refused what parseNpy read: %s\n", error.c_str());
    std::abort();
  }
  fwrun::HostTensor again;
  error = fwrun::parseNpy(encoded, &again);
  if (!error.empty() || again.type != tensor.type || again.dims != tensor.dims ||
      again.data != tensor.data) {
    std::fprintf(stderr, "a .npy file written from what was read reads back differently: %s\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
