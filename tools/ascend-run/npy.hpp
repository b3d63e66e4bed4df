// NumPy's .npy files (format versions 1.0-3.0, C order, little-endian): the exchange format of
// `ascend-run run` for model inputs, outputs and references.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace npy {

struct Array {
  std::string descr;                // NumPy's type string without the byte order: "f4", "i8", "b1", ...
  std::vector<int64_t> shape;       // empty for a scalar
  std::vector<unsigned char> data;  // row-major (C order) after read()
  bool fortran_order = false;       // what the header said (read() has reordered the data)

  // Bytes per element, from descr (0 for a type string this module does not know).
  size_t item_size() const;
  // The element count; SIZE_MAX when the shape's product overflows or a dimension is negative.
  size_t elements() const;
};

// Reads PATH into *out, following the format's grammar: the magic, version 1.0, 2.0 or 3.0, the
// header length, the header as a Python dict literal with exactly the keys 'descr', 'fortran_order'
// and 'shape' (a type string from the fixed list: '<f4', '|b1', ...; a tuple of non-negative
// integers whose byte count does not overflow), then exactly the bytes the header promises.
// Only a regular file is read (never a directory, device or FIFO), and nothing is allocated
// before the data's size has been compared with the file's. False, with *error naming PATH and
// the rule broken, for anything else: a bad header, big-endian data, an unknown
// type, short data or trailing data.
bool read(const std::string& path, Array* out, std::string* error);

// The header dictionary alone (the text after the length field): fills descr and shape of *out.
bool parse_header(const std::string& header, Array* out, std::string* error);

// shape's element count times item_size into *bytes; false if a dimension is negative or it overflows.
bool checked_bytes(const std::vector<int64_t>& shape, size_t item_size, size_t* bytes);

// Writes A as a version 1.0 file (version 2.0 when the header needs it).
bool write(const std::string& path, const Array& a, std::string* error);

// "(1, 10)" style text of a shape, as NumPy prints it.
std::string shape_text(const std::vector<int64_t>& shape);

// The file name (in the output folder) of output INDEX named TENSOR_NAME: only [A-Za-z0-9._-], no
// leading '.', at most 200 bytes of the name, and distinct from every name in *used, which it joins.
// A name that had to change gets "-INDEX" appended, so "a/b" and "a_b" never share a file.
std::string output_file_name(const std::string& tensor_name, size_t index, std::set<std::string>* used);

}  // namespace npy
