// fw-run: .npy files (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
#include "npy.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fstream>

#include "files.h"

namespace fwrun {
namespace {

struct Dtype {
  const char *descr;
  fw_element_type_t type;
};
const Dtype kDtypes[] = {
    {"f4", FW_ELEMENT_TYPE_F32}, {"f2", FW_ELEMENT_TYPE_F16}, {"f8", FW_ELEMENT_TYPE_F64},
    {"b1", FW_ELEMENT_TYPE_I1},  {"i1", FW_ELEMENT_TYPE_I8},  {"i2", FW_ELEMENT_TYPE_I16},
    {"i4", FW_ELEMENT_TYPE_I32}, {"i8", FW_ELEMENT_TYPE_I64},
};

// Finds the value text after 'key': in a Python dict literal.
bool findKey(const std::string &h, const char *key, size_t *out_pos) {
  for (const char *q : {"'", "\""}) {
    std::string k = std::string(q) + key + q;
    size_t p = h.find(k);
    if (p == std::string::npos) continue;
    p += k.size();
    while (p < h.size() && std::isspace((unsigned char)h[p])) ++p;
    if (p >= h.size() || h[p] != ':') return false;
    ++p;
    while (p < h.size() && std::isspace((unsigned char)h[p])) ++p;
    *out_pos = p;
    return true;
  }
  return false;
}

}  // namespace

std::string parseNpy(const std::string &b, HostTensor *out) {
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0)
    return "not a .npy file (bad magic)";
  uint8_t major = uint8_t(b[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = uint8_t(b[8]) | (size_t(uint8_t(b[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return "truncated .npy header";
    header_len = uint8_t(b[8]) | (size_t(uint8_t(b[9])) << 8) |
                 (size_t(uint8_t(b[10])) << 16) | (size_t(uint8_t(b[11])) << 24);
    header_start = 12;
  } else {
    return "unsupported .npy version " + std::to_string(major) + "." +
           std::to_string(uint8_t(b[7]));
  }
  if (header_len > b.size() - header_start) return "truncated .npy header";
  std::string h = b.substr(header_start, header_len);
  size_t p;
  // descr
  if (!findKey(h, "descr", &p) || p >= h.size() || (h[p] != '\'' && h[p] != '"'))
    return ".npy header has no 'descr' string (structured dtypes are not supported)";
  size_t close = h.find(h[p], p + 1);
  if (close == std::string::npos) return "malformed .npy header";
  std::string descr = h.substr(p + 1, close - p - 1);
  if (descr.empty()) return "malformed .npy dtype";
  char order = descr[0];
  std::string code = (order == '<' || order == '>' || order == '|' || order == '=')
                         ? descr.substr(1)
                         : descr;
  if (code.find('O') != std::string::npos) return "object arrays (dtype '" + descr + "') are not supported";
  fw_element_type_t type = fw_element_type_t(0);
  for (const Dtype &d : kDtypes)
    if (code == d.descr) type = d.type;
  if (!type) return "unsupported .npy dtype '" + descr + "' (supported: f4 f2 f8 b1 i1 i2 i4 i8)";
  if (order == '>' && fw_element_type_size(type) > 1)
    return "big-endian .npy data (dtype '" + descr + "') is not supported";
  // fortran_order
  if (!findKey(h, "fortran_order", &p)) return ".npy header has no 'fortran_order'";
  bool fortran = h.compare(p, 4, "True") == 0;
  if (!fortran && h.compare(p, 5, "False") != 0)
    return "malformed 'fortran_order' in .npy header";
  // shape
  if (!findKey(h, "shape", &p) || p >= h.size() || h[p] != '(')
    return ".npy header has no 'shape' tuple";
  size_t end = h.find(')', p);
  if (end == std::string::npos) return "malformed 'shape' in .npy header";
  std::vector<int64_t> dims;
  std::string item;
  std::string tuple = h.substr(p + 1, end - p - 1) + ",";
  for (char c : tuple) {
    if (c == ',') {
      size_t a = item.find_first_not_of(" \t"), z = item.find_last_not_of(" \t");
      std::string t = a == std::string::npos ? "" : item.substr(a, z - a + 1);
      if (!t.empty() && t.back() == 'L') t.pop_back();
      item.clear();
      if (t.empty()) continue;
      char *e = nullptr;
      errno = 0;
      long long d = std::strtoll(t.c_str(), &e, 10);
      if (*e || d < 0 || errno == ERANGE) return "malformed 'shape' in .npy header";
      dims.push_back(d);
    } else {
      item += c;
    }
  }
  if (dims.size() > FW_MAX_RANK) return ".npy array rank " + std::to_string(dims.size()) + " exceeds 8";
  size_t esize = fw_element_type_size(type), count = 0;
  if (!elementCount(dims, esize, &count)) return ".npy array is too large";
  size_t data_start = header_start + header_len;
  if (b.size() - data_start < count * esize)
    return "truncated .npy data: expected " + std::to_string(count * esize) + " bytes, got " +
           std::to_string(b.size() - data_start);
  if (b.size() - data_start > count * esize)
    return ".npy file has " + std::to_string(b.size() - data_start - count * esize) +
           " unexpected trailing bytes";
  out->type = type;
  out->dims = dims;
  out->data.assign(b.begin() + long(data_start), b.end());
  if (fortran && dims.size() > 1) {
    // Column-major data (numpy writes it for transposed views): reorder to
    // the row-major layout the runtime uses.
    std::vector<uint8_t> rowMajor(out->data.size());
    std::vector<int64_t> index(dims.size(), 0);
    for (size_t i = 0; i < count; ++i) {
      size_t offset = 0, stride = 1;
      for (size_t d = 0; d < dims.size(); ++d) {
        offset += size_t(index[d]) * stride;
        stride *= size_t(dims[d]);
      }
      std::memcpy(&rowMajor[i * esize], &out->data[offset * esize], esize);
      for (size_t d = dims.size(); d-- > 0;) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
    out->data.swap(rowMajor);
  }
  if (type == FW_ELEMENT_TYPE_I1)
    for (uint8_t &v : out->data) v = v ? 1 : 0;
  return "";
}

std::string readNpy(const std::string &path, HostTensor *out) {
  std::string text, why;
  switch (readRegularFile(path, &text, &why)) {
  case ReadResult::kRead: break;
  case ReadResult::kMissing: return path + ": cannot open: " + std::strerror(ENOENT);
  case ReadResult::kFailed: return path + ": " + why;
  }
  std::string err = parseNpy(text, out);
  return err.empty() ? err : path + ": " + err;
}

std::string encodeNpy(const HostTensor &t, std::string *out) {
  const char *descr = nullptr;
  switch (t.type) {
  case FW_ELEMENT_TYPE_F32: descr = "<f4"; break;
  case FW_ELEMENT_TYPE_F16: descr = "<f2"; break;
  case FW_ELEMENT_TYPE_F64: descr = "<f8"; break;
  case FW_ELEMENT_TYPE_I1: descr = "|b1"; break;
  case FW_ELEMENT_TYPE_I8: descr = "|i1"; break;
  case FW_ELEMENT_TYPE_I16: descr = "<i2"; break;
  case FW_ELEMENT_TYPE_I32: descr = "<i4"; break;
  case FW_ELEMENT_TYPE_I64: descr = "<i8"; break;
  default:
    return std::string("element type ") + fw_element_type_name(t.type) +
           " cannot be written to .npy";
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.dims.size(); ++i)
    shape += std::to_string(t.dims[i]) + (t.dims.size() == 1 ? "," : i + 1 < t.dims.size() ? ", " : "");
  shape += ")";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                     shape + ", }";
  size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  bool v2 = padded - prefix > 65535;
  if (v2) {
    prefix = 12;
    total = prefix + dict.size() + 1;
    padded = (total + 63) / 64 * 64;
  }
  dict.append(padded - total, ' ');
  dict += '\n';
  out->assign("\x93NUMPY", 6);
  out->push_back(char(v2 ? 2 : 1));
  out->push_back(0);
  size_t hl = dict.size();
  out->push_back(char(hl & 0xFF));
  out->push_back(char((hl >> 8) & 0xFF));
  if (v2) {
    out->push_back(char((hl >> 16) & 0xFF));
    out->push_back(char((hl >> 24) & 0xFF));
  }
  *out += dict;
  out->append(reinterpret_cast<const char *>(t.data.data()), t.data.size());
  return "";
}

std::string writeNpy(const std::string &path, const HostTensor &t) {
  std::string bytes;
  std::string err = encodeNpy(t, &bytes);
  if (!err.empty()) return path + ": " + err;
  std::ofstream out(path, std::ios::binary);
  if (!out) return path + ": cannot open for writing: " + std::strerror(errno);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out) return path + ": write failed";
  return "";
}

}  // namespace fwrun
