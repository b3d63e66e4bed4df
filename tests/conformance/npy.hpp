// A minimal .npy reader for the test models' inputs and references: format versions 1-3,
// little-endian float32 ('<f4') or float64 ('<f8'), C order. Values come back as doubles.
#ifndef ARUN_TESTS_CONFORMANCE_NPY_HPP_
#define ARUN_TESTS_CONFORMANCE_NPY_HPP_

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace conformance {

struct NpyArray {
  std::string descr;           // '<f4' or '<f8'
  std::vector<int64_t> shape;  // () for a scalar
  std::vector<double> values;

  // The values as float32 bytes (what a float model input holds).
  std::vector<uint8_t> f32Bytes() const {
    std::vector<uint8_t> out(values.size() * sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = static_cast<float>(values[i]);
      std::memcpy(out.data() + i * sizeof f, &f, sizeof f);
    }
    return out;
  }
};

// Throws std::runtime_error naming the file and the problem.
inline NpyArray readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &why) { return std::runtime_error(path + ": " + why); };
  if (file.size() < 10 || file.compare(0, 6, "\x93NUMPY") != 0) throw fail("not a .npy file");
  const unsigned major = static_cast<unsigned char>(file[6]);
  size_t header_len = 0, data_at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(file[8]) | static_cast<unsigned char>(file[9]) << 8;
    data_at = 10 + header_len;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) throw fail("truncated header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(file[8 + i])) << (8 * i);
    data_at = 12 + header_len;
  } else {
    throw fail("unsupported .npy version " + std::to_string(major));
  }
  if (data_at > file.size()) throw fail("truncated header");
  const std::string header = file.substr(data_at - header_len, header_len);
  auto value_of = [&](const std::string &key) {
    const size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw fail("header has no '" + key + "'");
    size_t v = header.find(':', k) + 1;
    while (v < header.size() && header[v] == ' ') ++v;
    return v;
  };
  NpyArray a;
  size_t d = value_of("descr");
  const size_t d_end = header.find('\'', d + 1);
  a.descr = header.substr(d + 1, d_end - d - 1);
  if (header.compare(value_of("fortran_order"), 5, "False") != 0) throw fail("Fortran order is not supported");
  size_t s = value_of("shape");
  const size_t s_end = header.find(')', s);
  std::string dims = header.substr(s + 1, s_end - s - 1);
  for (size_t i = 0; i < dims.size();) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i >= dims.size()) break;
    size_t used = 0;
    a.shape.push_back(std::stoll(dims.substr(i), &used));
    i += used;
  }
  size_t count = 1;
  for (int64_t x : a.shape) count *= static_cast<size_t>(x);
  const size_t elem = a.descr == "<f4" ? 4 : a.descr == "<f8" ? 8 : 0;
  if (elem == 0) throw fail("unsupported dtype '" + a.descr + "' (only <f4 and <f8)");
  if (file.size() - data_at != count * elem) {
    throw fail("holds " + std::to_string(file.size() - data_at) + " data bytes, the shape needs " +
               std::to_string(count * elem));
  }
  a.values.resize(count);
  const char *p = file.data() + data_at;
  for (size_t i = 0; i < count; ++i) {
    if (elem == 4) {
      float f;
      std::memcpy(&f, p + i * 4, 4);
      a.values[i] = f;
    } else {
      std::memcpy(&a.values[i], p + i * 8, 8);
    }
  }
  return a;
}

}  // namespace conformance

#endif  // ARUN_TESTS_CONFORMANCE_NPY_HPP_
