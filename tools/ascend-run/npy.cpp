#include "npy.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// The value text that follows 'key': in the header dictionary, or empty when the key is absent.
std::string dict_value(const std::string& header, const std::string& key) {
  const std::string quoted = "'" + key + "'";
  size_t at = header.find(quoted);
  if (at == std::string::npos) return {};
  at = header.find(':', at + quoted.size());
  if (at == std::string::npos) return {};
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at >= header.size()) return {};
  size_t end = at;
  if (header[at] == '\'') {
    end = header.find('\'', at + 1);
    return end == std::string::npos ? std::string{} : header.substr(at + 1, end - at - 1);
  }
  if (header[at] == '(') {
    end = header.find(')', at);
    return end == std::string::npos ? std::string{} : header.substr(at, end - at + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(at, end - at);
}

bool parse_shape(const std::string& text, std::vector<int64_t>* shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return false;
  shape->clear();
  const char* p = text.c_str() + 1;
  while (*p != ')') {
    while (*p == ' ' || *p == ',') ++p;
    if (*p == ')') break;
    char* end = nullptr;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p || v < 0) return false;
    shape->push_back(v);
    p = end;
  }
  return true;
}

}  // namespace

size_t Array::item_size() const {
  if (descr.size() < 2) return 0;
  const char kind = descr[0];
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') return 0;
  const int n = std::atoi(descr.c_str() + 1);
  if (kind == 'b') return n == 1 ? 1 : 0;
  if (kind == 'f') return (n == 2 || n == 4 || n == 8) ? size_t(n) : 0;
  return (n == 1 || n == 2 || n == 4 || n == 8) ? size_t(n) : 0;
}

size_t Array::elements() const {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += std::to_string(shape[i]);
    if (i + 1 < shape.size() || shape.size() == 1) s += ",";
    if (i + 1 < shape.size()) s += " ";
  }
  return s + ")";
}

bool read(const std::string& path, Array* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < kMagicLen + 4 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    *error = path + ": not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0;
  size_t header_at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | size_t(static_cast<unsigned char>(bytes[9])) << 8;
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      *error = path + ": truncated header";
      return false;
    }
    for (int i = 0; i < 4; ++i) header_len |= size_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    header_at = 12;
  } else {
    *error = path + ": unsupported .npy format version " + std::to_string(major);
    return false;
  }
  if (bytes.size() < header_at + header_len) {
    *error = path + ": truncated header";
    return false;
  }
  const std::string header = bytes.substr(header_at, header_len);
  std::string descr = dict_value(header, "descr");
  if (dict_value(header, "fortran_order") != "False") {
    *error = path + ": Fortran-ordered arrays are not supported (save with np.ascontiguousarray)";
    return false;
  }
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|')) {
    *error = path + ": element type '" + descr + "' is not supported (little-endian numbers and bools only)";
    return false;
  }
  Array a;
  a.descr = descr.substr(1);
  if (a.item_size() == 0) {
    *error = path + ": element type '" + descr + "' is not supported (little-endian numbers and bools only)";
    return false;
  }
  if (!parse_shape(dict_value(header, "shape"), &a.shape)) {
    *error = path + ": cannot read the shape in the header";
    return false;
  }
  const size_t want = a.elements() * a.item_size();
  const size_t data_at = header_at + header_len;
  if (bytes.size() - data_at < want) {
    *error = path + ": truncated data: " + std::to_string(bytes.size() - data_at) + " bytes, the header says " +
             std::to_string(want);
    return false;
  }
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_at),
                bytes.begin() + static_cast<std::ptrdiff_t>(data_at + want));
  *out = std::move(a);
  return true;
}

bool write(const std::string& path, const Array& a, std::string* error) {
  const char order = a.item_size() == 1 ? '|' : '<';
  std::string header = "{'descr': '";
  header += order;
  header += a.descr + "', 'fortran_order': False, 'shape': " + shape_text(a.shape) + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary, as NumPy does.
  size_t prefix = kMagicLen + 2 + 2;
  if (prefix + header.size() + 1 > 65535) prefix = kMagicLen + 2 + 4;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    *error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  out.write(kMagic, kMagicLen);
  const bool v2 = prefix == kMagicLen + 2 + 4;
  const char version[2] = {v2 ? char(2) : char(1), 0};
  out.write(version, 2);
  const size_t len = header.size();
  for (int i = 0; i < (v2 ? 4 : 2); ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
  out << header;
  out.write(reinterpret_cast<const char*>(a.data.data()), static_cast<std::streamsize>(a.data.size()));
  if (!out) {
    *error = path + ": write failed: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace npy
