// NumPy's .npy files (format versions 1.0-3.0, C order, little-endian): the exchange format of
// `ascend-run run` for model inputs, outputs and references.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npy {

struct Array {
  std::string descr;           // NumPy's type string without the byte order: "f4", "i8", "b1", ...
  std::vector<int64_t> shape;  // empty for a scalar
  std::vector<unsigned char> data;

  // Bytes per element, from descr (0 for a type string this module does not know).
  size_t item_size() const;
  size_t elements() const;
};

// Reads PATH into *out. False, with a readable *error, for a missing file, a bad header, Fortran
// order, big-endian data, a type other than the fixed-size numbers and booleans, or short data.
bool read(const std::string& path, Array* out, std::string* error);

// Writes A as a version 1.0 file (version 2.0 when the header needs it).
bool write(const std::string& path, const Array& a, std::string* error);

// "(1, 10)" style text of a shape, as NumPy prints it.
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace npy
