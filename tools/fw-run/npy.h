// fw-run: reading and writing NumPy .npy files (versions 1.0 and 2.0, little-endian,
// C or Fortran order on input, C order on output; f32 f16 f64 i1('|b1') i8 i16 i32
// i64).
#ifndef FW_TOOLS_FW_RUN_NPY_H_
#define FW_TOOLS_FW_RUN_NPY_H_

#include <string>

#include "host_tensor.h"

namespace fwrun {

// Parses .npy bytes; returns an error message (empty on success).
std::string parseNpy(const std::string &bytes, HostTensor *out);
std::string readNpy(const std::string &path, HostTensor *out);
// Serialises to .npy (version 1.0, or 2.0 if the header needs it).
std::string encodeNpy(const HostTensor &tensor, std::string *out);
std::string writeNpy(const std::string &path, const HostTensor &tensor);

}  // namespace fwrun

#endif
