// fw-run: host-side tensors, element conversion, parsing and printing.
#ifndef FW_TOOLS_FW_RUN_HOST_TENSOR_H_
#define FW_TOOLS_FW_RUN_HOST_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fw/runtime.h"

namespace fwrun {

// A dense row-major tensor in host memory.
struct HostTensor {
  fw_element_type_t type = FW_ELEMENT_TYPE_F32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

// "4x10xf32" (or "f32" for rank 0).
std::string formatType(fw_element_type_t type, const std::vector<int64_t> &dims);

// Number of elements; false when the product overflows or a dim is negative.
bool elementCount(const std::vector<int64_t> &dims, size_t element_size, size_t *out_count);

// Parses "DIMSxTYPE=v1,v2,..." (values separated by commas and/or spaces; one value is
// splatted; "f32=3.5" is rank 0). Returns an error message, empty on success. With
// `expected` (the argument's type; a dynamic dim takes any size), a type it does not
// match is refused before its values are read or its memory allocated.
std::string parseInlineTensor(const std::string &text, HostTensor *out,
                              const fw_tensor_type_t *expected = nullptr);

// Fills a tensor of the given type with deterministic values drawn from `state`: floats
// uniform in [-1, 1), integers in [-4, 4], i1 alternating 0, 1.
std::string generateTensor(fw_element_type_t type, const std::vector<int64_t> &dims,
                           uint64_t *state, HostTensor *out);

// "4x10xf32=[a b c][d e f]" iree style, at most `max_elements` values then "...".
std::string formatTensor(const HostTensor &tensor, size_t max_elements);

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t h);
uint16_t floatToBf16(float f);

}  // namespace fwrun

#endif
