// fw-run: host tensors, conversions, the inline input syntax and iree-style printing.
#include "host_tensor.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include <unistd.h>

namespace fwrun {

std::string formatType(fw_element_type_t type, const std::vector<int64_t> &dims) {
  std::string s;
  for (int64_t d : dims) s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + fw_element_type_name(type);
}

bool elementCount(const std::vector<int64_t> &dims, size_t element_size, size_t *out_count) {
  uint64_t count = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) return false;
    if (d == 0) {
      zero = true;
      continue;
    }
    if (count > uint64_t(INT64_MAX) / uint64_t(d)) return false;
    count *= uint64_t(d);
  }
  if (element_size && count > uint64_t(INT64_MAX) / element_size) return false;
  *out_count = zero ? 0 : size_t(count);
  return true;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return uint16_t(sign | 0x7C00 | (abs > 0x7F800000u ? 0x200 : 0));
  if (abs >= 0x477FF000u) return uint16_t(sign | 0x7C00);  // rounds to infinity
  if (abs < 0x38800000u) {                                 // subnormal or zero in half
    if (abs < 0x33000000u) return sign;
    uint32_t e = abs >> 23, mant = (abs & 0x7FFFFF) | 0x800000;
    uint32_t shift = 126 - e;  // 14..24
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  uint32_t rem = abs & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((x >> 16) | 0x40);  // quiet NaN
  x += 0x7FFF + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

namespace {

bool isFloat(fw_element_type_t t) {
  return t == FW_ELEMENT_TYPE_F32 || t == FW_ELEMENT_TYPE_F16 || t == FW_ELEMENT_TYPE_F64 ||
         t == FW_ELEMENT_TYPE_BF16;
}

void storeFloat(fw_element_type_t t, double v, uint8_t *p) {
  switch (t) {
  case FW_ELEMENT_TYPE_F32: {
    float f = float(v);
    std::memcpy(p, &f, 4);
    break;
  }
  case FW_ELEMENT_TYPE_F64:
    std::memcpy(p, &v, 8);
    break;
  case FW_ELEMENT_TYPE_F16: {
    uint16_t h = floatToHalf(float(v));
    std::memcpy(p, &h, 2);
    break;
  }
  case FW_ELEMENT_TYPE_BF16: {
    uint16_t h = floatToBf16(float(v));
    std::memcpy(p, &h, 2);
    break;
  }
  default:
    break;
  }
}

// Whether the float of type `t` at `p` is infinite.
bool isInfinite(fw_element_type_t t, const uint8_t *p) {
  uint16_t h = 0;
  switch (t) {
  case FW_ELEMENT_TYPE_F32: {
    float f;
    std::memcpy(&f, p, 4);
    return std::isinf(f);
  }
  case FW_ELEMENT_TYPE_F64: {
    double d;
    std::memcpy(&d, p, 8);
    return std::isinf(d);
  }
  case FW_ELEMENT_TYPE_F16:
    std::memcpy(&h, p, 2);
    return (h & 0x7fff) == 0x7c00;
  case FW_ELEMENT_TYPE_BF16:
    std::memcpy(&h, p, 2);
    return (h & 0x7fff) == 0x7f80;
  default:
    return false;
  }
}

void storeInt(fw_element_type_t t, int64_t v, uint8_t *p) {
  switch (t) {
  case FW_ELEMENT_TYPE_I1:
  case FW_ELEMENT_TYPE_I8: {
    int8_t x = int8_t(v);
    std::memcpy(p, &x, 1);
    break;
  }
  case FW_ELEMENT_TYPE_I16: {
    int16_t x = int16_t(v);
    std::memcpy(p, &x, 2);
    break;
  }
  case FW_ELEMENT_TYPE_I32: {
    int32_t x = int32_t(v);
    std::memcpy(p, &x, 4);
    break;
  }
  case FW_ELEMENT_TYPE_I64:
    std::memcpy(p, &v, 8);
    break;
  default:
    break;
  }
}

// Parses one value into `p`; returns an error message.
std::string parseValue(fw_element_type_t t, const std::string &s, uint8_t *p) {
  if (isFloat(t)) {
    errno = 0;
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end) return "invalid " + std::string(fw_element_type_name(t)) + " value '" + s + "'";
    storeFloat(t, v, p);
    // A finite value the type cannot hold would become infinite ("inf" says so itself).
    if ((errno == ERANGE && std::isinf(v)) || (std::isfinite(v) && isInfinite(t, p)))
      return "value '" + s + "' is out of range for " + fw_element_type_name(t);
    return "";
  }
  if (t == FW_ELEMENT_TYPE_I1) {
    if (s == "1" || s == "true") return storeInt(t, 1, p), "";
    if (s == "0" || s == "false") return storeInt(t, 0, p), "";
    return "invalid i1 value '" + s + "' (expected 0, 1, true or false)";
  }
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (end == s.c_str() || *end) return "invalid " + std::string(fw_element_type_name(t)) + " value '" + s + "'";
  size_t bits = fw_element_type_size(t) * 8;
  int64_t lo = bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
  int64_t hi = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
  if (errno == ERANGE || v < lo || v > hi)
    return "value '" + s + "' is out of range for " + fw_element_type_name(t);
  storeInt(t, v, p);
  return "";
}

}  // namespace

std::string parseInlineTensor(const std::string &text, HostTensor *out,
                              const fw_tensor_type_t *expected) {
  size_t eq = text.find('=');
  if (eq == std::string::npos)
    return "expected DIMSxTYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6) or @FILE.npy, got '" + text + "'";
  std::string type_text = text.substr(0, eq), values = text.substr(eq + 1);
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t x = type_text.find('x', start);
    if (x == std::string::npos) {
      parts.push_back(type_text.substr(start));
      break;
    }
    parts.push_back(type_text.substr(start, x - start));
    start = x + 1;
  }
  fw_element_type_t type = fw_element_type_parse(parts.back().c_str());
  if (!type) return "unknown element type '" + parts.back() + "' in '" + type_text + "'";
  parts.pop_back();
  if (parts.size() > FW_MAX_RANK)
    return "rank " + std::to_string(parts.size()) + " of '" + type_text + "' exceeds 8";
  std::vector<int64_t> dims;
  for (const std::string &p : parts) {
    char *end = nullptr;
    errno = 0;
    long long d = p.empty() ? -1 : std::strtoll(p.c_str(), &end, 10);
    if (p.empty() || *end || d < 0 || errno == ERANGE || !std::isdigit((unsigned char)p[0]))
      return "invalid dimension '" + p + "' in '" + type_text + "'";
    dims.push_back(d);
  }
  if (expected) {
    bool matches = expected->element_type == type && expected->rank == dims.size();
    for (size_t i = 0; matches && i < dims.size(); ++i)
      matches = expected->dims[i] < 0 || expected->dims[i] == dims[i];
    if (!matches) {
      char want[256];
      fw_tensor_type_format(expected, want, sizeof(want));
      return "expected " + std::string(want) + ", got " + formatType(type, dims);
    }
  }
  size_t esize = fw_element_type_size(type), count = 0;
  if (!elementCount(dims, esize, &count))
    return "tensor type '" + type_text + "' is too large";
  // A splat of a dynamic shape is not bounded by the argument's type: one larger than the
  // machine's memory is a mistake, refused before the memory is touched.
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && count * esize / uint64_t(page) > uint64_t(pages))
    return formatType(type, dims) + " needs " + std::to_string(count * esize) +
           " bytes, more than this machine's memory (" +
           std::to_string(uint64_t(pages) * uint64_t(page)) + " bytes)";
  // Values are separated by commas, spaces or both; a comma with no value before it (or
  // after the last) is a mistake, not a value.
  std::vector<std::string> tokens;
  std::string cur;
  bool blank = values.find_first_not_of(" \t\n\r\f\v") == std::string::npos;
  bool after_comma = false;
  for (size_t i = 0; i <= values.size() && !blank; ++i) {
    char c = i < values.size() ? values[i] : ',';
    if (c == ',' || std::isspace((unsigned char)c)) {
      if (!cur.empty()) {
        tokens.push_back(cur);
        after_comma = false;
      } else if (c == ',' && (after_comma || tokens.empty())) {
        return "empty value " +
               (tokens.empty() ? std::string("before the first comma")
                               : "after value " + std::to_string(tokens.size())) +
               " in '" + values + "'";
      }
      if (c == ',') after_comma = true;
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (tokens.size() != count && tokens.size() != 1)
    return std::to_string(tokens.size()) + " values given for " + formatType(type, dims) +
           " (" + std::to_string(count) + " elements)";
  out->type = type;
  out->dims = dims;
  out->data.assign(count * esize, 0);
  for (size_t i = 0; i < count; ++i) {
    if (i == 0 || tokens.size() != 1) {
      std::string err = parseValue(type, tokens[tokens.size() == 1 ? 0 : i], &out->data[i * esize]);
      if (!err.empty()) return err;
    } else {
      std::memcpy(&out->data[i * esize], &out->data[0], esize);
    }
  }
  return "";
}

std::string generateTensor(fw_element_type_t type, const std::vector<int64_t> &dims,
                           uint64_t *state, HostTensor *out) {
  size_t esize = fw_element_type_size(type), count = 0;
  if (!esize) return "unknown element type";
  if (!elementCount(dims, esize, &count) || count * esize > (size_t(1) << 34))
    return "generated tensor " + formatType(type, dims) + " is too large";
  out->type = type;
  out->dims = dims;
  out->data.assign(count * esize, 0);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *p = &out->data[i * esize];
    if (type == FW_ELEMENT_TYPE_I1) {
      storeInt(type, int64_t(i % 2), p);
      continue;
    }
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    if (isFloat(type)) {
      double u = double(*state >> 40) / double(1ull << 24);  // [0, 1)
      storeFloat(type, u * 2.0 - 1.0, p);
    } else {
      storeInt(type, int64_t((*state >> 33) % 9) - 4, p);
    }
  }
  return "";
}

namespace {

void appendValue(fw_element_type_t t, const uint8_t *p, std::string *out) {
  char buf[64];
  switch (t) {
  case FW_ELEMENT_TYPE_F32: {
    float f;
    std::memcpy(&f, p, 4);
    std::snprintf(buf, sizeof(buf), "%g", double(f));
    break;
  }
  case FW_ELEMENT_TYPE_F64: {
    double f;
    std::memcpy(&f, p, 8);
    std::snprintf(buf, sizeof(buf), "%g", f);
    break;
  }
  case FW_ELEMENT_TYPE_F16:
  case FW_ELEMENT_TYPE_BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    std::snprintf(buf, sizeof(buf), "%g",
                  double(t == FW_ELEMENT_TYPE_F16 ? halfToFloat(h) : bf16ToFloat(h)));
    break;
  }
  case FW_ELEMENT_TYPE_I1:
    std::snprintf(buf, sizeof(buf), "%d", p[0] ? 1 : 0);
    break;
  case FW_ELEMENT_TYPE_I8:
    std::snprintf(buf, sizeof(buf), "%d", int(int8_t(p[0])));
    break;
  case FW_ELEMENT_TYPE_I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    std::snprintf(buf, sizeof(buf), "%d", int(v));
    break;
  }
  case FW_ELEMENT_TYPE_I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    std::snprintf(buf, sizeof(buf), "%d", int(v));
    break;
  }
  case FW_ELEMENT_TYPE_I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    std::snprintf(buf, sizeof(buf), "%lld", (long long)v);
    break;
  }
  default:
    std::snprintf(buf, sizeof(buf), "?");
  }
  *out += buf;
}

struct Printer {
  const HostTensor &t;
  size_t esize, max_elements, printed = 0;
  bool truncated = false;
  std::string out;

  // Prints the sub-tensor at dimension `d` starting at element `offset`.
  void print(size_t d, size_t offset) {
    size_t rank = t.dims.size();
    size_t stride = 1;
    for (size_t k = d + 1; k < rank; ++k) stride *= size_t(t.dims[k]);
    for (int64_t i = 0; i < t.dims[d] && !truncated; ++i) {
      if (d + 1 == rank) {
        if (printed == max_elements) {
          out += i ? " ..." : "...";
          truncated = true;
          return;
        }
        if (i) out += ' ';
        appendValue(t.type, &t.data[(offset + size_t(i)) * esize], &out);
        ++printed;
      } else {
        out += '[';
        print(d + 1, offset + size_t(i) * stride);
        if (!truncated) out += ']';
      }
    }
  }
};

}  // namespace

std::string formatTensor(const HostTensor &tensor, size_t max_elements) {
  Printer p{tensor, fw_element_type_size(tensor.type), max_elements, 0, false, std::string()};
  p.out = formatType(tensor.type, tensor.dims) + "=";
  if (tensor.dims.empty()) {
    if (max_elements == 0)
      p.out += "...";
    else
      appendValue(tensor.type, tensor.data.data(), &p.out);
    return p.out;
  }
  p.print(0, 0);
  return p.out;
}

}  // namespace fwrun
