#include "npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// NumPy itself refuses headers over 10 000 bytes unless told otherwise; a little room beyond that.
constexpr size_t kMaxHeaderLen = 1 << 16;

// The type strings this module reads and writes, exactly as NumPy spells them (byte order first).
struct Type {
  const char* text;
  size_t size;
};
constexpr Type kTypes[] = {{"|b1", 1}, {"|i1", 1}, {"|u1", 1}, {"<i2", 2}, {"<i4", 4}, {"<i8", 8},
                           {"<u2", 2}, {"<u4", 4}, {"<u8", 8}, {"<f2", 2}, {"<f4", 4}, {"<f8", 8}};

const Type* find_type(const std::string& descr) {
  for (const Type& t : kTypes)
    if (descr == t.text) return &t;
  return nullptr;
}

// The header dictionary, parsed as the Python literal it is: {'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), } with exactly these three keys, in any order, each once.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  bool parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape, std::string* error) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip();
    if (!eat('{')) return fail("the header is not a dictionary ('{' expected)", error);
    skip();
    while (!peek('}')) {
      std::string key;
      if (!string_literal(&key)) return fail("a quoted key expected in the header dictionary", error);
      skip();
      if (!eat(':')) return fail("':' expected after the key '" + key + "'", error);
      skip();
      if (key == "descr") {
        if (have_descr) return fail("the key 'descr' appears twice", error);
        if (!string_literal(descr)) return fail("'descr' is not a quoted type string", error);
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) return fail("the key 'fortran_order' appears twice", error);
        if (word("True")) {
          *fortran = true;
        } else if (word("False")) {
          *fortran = false;
        } else {
          return fail("'fortran_order' is neither True nor False", error);
        }
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) return fail("the key 'shape' appears twice", error);
        if (!tuple(shape, error)) return false;
        have_shape = true;
      } else {
        return fail("unexpected key '" + key + "' in the header (only 'descr', 'fortran_order', 'shape')", error);
      }
      skip();
      if (eat(',')) {
        skip();
        continue;
      }
      if (!peek('}')) return fail("',' or '}' expected after the value of '" + key + "'", error);
    }
    ++at_;
    // NumPy pads the header with spaces and ends it with a newline; nothing else may follow.
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n')) ++at_;
    if (at_ != s_.size()) return fail("text after the header dictionary", error);
    if (!have_descr || !have_fortran || !have_shape) {
      return fail(std::string("the header lacks the key '") +
                      (!have_descr     ? "descr"
                       : !have_fortran ? "fortran_order"
                                       : "shape") +
                      "'",
                  error);
    }
    return true;
  }

 private:
  bool fail(const std::string& why, std::string* error) {
    *error = why + " (at byte " + std::to_string(at_) + " of the header)";
    return false;
  }
  void skip() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n')) ++at_;
  }
  bool peek(char c) const { return at_ < s_.size() && s_[at_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++at_;
    return true;
  }
  bool word(const char* w) {
    const size_t n = std::strlen(w);
    if (s_.compare(at_, n, w) != 0) return false;
    const size_t next = at_ + n;
    if (next < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[next])) || s_[next] == '_')) return false;
    at_ = next;
    return true;
  }
  // A Python string in single or double quotes, without escapes (no type string or key needs one).
  bool string_literal(std::string* out) {
    if (!peek('\'') && !peek('"')) return false;
    const char quote = s_[at_++];
    const size_t end = s_.find(quote, at_);
    if (end == std::string::npos) return false;
    const std::string text = s_.substr(at_, end - at_);
    if (text.find('\\') != std::string::npos || text.find('\n') != std::string::npos) return false;
    *out = text;
    at_ = end + 1;
    return true;
  }
  // A tuple of non-negative decimal integers: (), (3,), (2, 3) or (2, 3,).
  bool tuple(std::vector<int64_t>* out, std::string* error) {
    out->clear();
    if (!eat('(')) return fail("'shape' is not a tuple", error);
    skip();
    bool comma_after_last = false;
    while (!peek(')')) {
      if (at_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[at_]))) {
        return fail("'shape' holds something other than a non-negative integer", error);
      }
      int64_t v = 0;
      while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[at_] - '0', &v)) {
          return fail("a dimension in 'shape' is too large", error);
        }
        ++at_;
      }
      out->push_back(v);
      skip();
      comma_after_last = eat(',');
      skip();
      if (!comma_after_last && !peek(')')) return fail("',' or ')' expected in 'shape'", error);
    }
    ++at_;
    // (3) is the number 3 in Python, not a tuple: a single dimension needs its comma.
    if (out->size() == 1 && !comma_after_last) return fail("'shape' (N) is not a tuple; write (N,)", error);
    return true;
  }

  const std::string& s_;
  size_t at_ = 0;
};

bool read_exact(int fd, unsigned char* to, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::read(fd, to + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

size_t Array::item_size() const {
  for (const Type& t : kTypes)
    if (descr == t.text + 1) return t.size;
  return 0;
}

size_t Array::elements() const {
  size_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<size_t>(d), &n)) return SIZE_MAX;
  }
  return n;
}

bool checked_bytes(const std::vector<int64_t>& shape, size_t item_size, size_t* bytes) {
  size_t n = item_size;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<size_t>(d), &n)) return false;
  }
  *bytes = n;
  return true;
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

bool parse_header(const std::string& header, Array* out, std::string* error) {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!HeaderParser(header).parse(&descr, &fortran, &shape, error)) return false;
  const Type* type = find_type(descr);
  if (type == nullptr) {
    *error = "element type '" + descr +
             "' is not supported (little-endian numbers and bools only: '<f4', '<i8', '|u1', '|b1' ...)";
    return false;
  }
  size_t bytes = 0;
  if (!checked_bytes(shape, type->size, &bytes)) {
    *error = "shape " + shape_text(shape) + " of '" + descr + "' holds more bytes than memory can address";
    return false;
  }
  out->descr = descr.substr(1);
  out->shape = std::move(shape);
  out->data.clear();
  out->fortran_order = fortran;
  return true;
}

namespace {

// Column-major (Fortran order: the first index varies fastest, as np.save writes a transposed
// array) to row-major, element by element.
std::vector<unsigned char> to_c_order(const Array& a) {
  const size_t item = a.item_size(), n = a.elements(), rank = a.shape.size();
  std::vector<unsigned char> out(a.data.size());
  std::vector<size_t> idx(rank, 0);  // the C-order multi-index of element c
  for (size_t c = 0; c < n; ++c) {
    size_t f = 0;
    for (size_t d = rank; d-- > 0;) f = f * static_cast<size_t>(a.shape[d]) + idx[d];
    std::memcpy(out.data() + c * item, a.data.data() + f * item, item);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < static_cast<size_t>(a.shape[d])) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

bool read(const std::string& path, Array* out, std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = path + ": " + why;
    return false;
  };
  // O_NONBLOCK: a FIFO must not block the open; only a regular file is read at all.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return fail(std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::string("cannot examine: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail("is a directory, not a .npy file");
  if (!S_ISREG(st.st_mode)) return fail("is not a regular file (a device, FIFO or socket is not read)");
  const auto file_size = static_cast<uint64_t>(st.st_size);

  unsigned char prefix[12];
  if (file_size < kMagicLen + 4 || !read_exact(fd, prefix, kMagicLen + 4) ||
      std::memcmp(prefix, kMagic, kMagicLen) != 0) {
    return fail("not a .npy file (no \\x93NUMPY magic)");
  }
  const unsigned major = prefix[6];
  const unsigned minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0) {
    return fail("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                " (1.0, 2.0 and 3.0 are read)");
  }
  size_t header_len = prefix[8] | size_t(prefix[9]) << 8;
  size_t header_at = 10;
  if (major >= 2) {
    if (file_size < 12 || !read_exact(fd, prefix + 10, 2)) return fail("truncated header");
    header_len |= size_t(prefix[10]) << 16 | size_t(prefix[11]) << 24;
    header_at = 12;
  }
  if (header_len > kMaxHeaderLen) {
    return fail("the header declares " + std::to_string(header_len) + " bytes, more than the " +
                std::to_string(kMaxHeaderLen) + " accepted");
  }
  if (file_size - header_at < header_len) return fail("truncated header");
  std::string header(header_len, '\0');
  if (!read_exact(fd, reinterpret_cast<unsigned char*>(header.data()), header_len)) return fail("truncated header");
  if (major < 3) {
    for (char c : header) {
      if (static_cast<unsigned char>(c) >= 0x80) return fail("the header of a version 1.0/2.0 file is not ASCII");
    }
  }
  Array a;
  std::string why;
  if (!parse_header(header, &a, &why)) return fail(why);
  const size_t want = a.elements() * a.item_size();  // parse_header has checked it does not overflow
  const uint64_t have = file_size - header_at - header_len;
  if (have < want) {
    return fail("truncated data: " + std::to_string(have) + " bytes, the header says " + std::to_string(want));
  }
  if (have > want) {
    return fail("trailing data: " + std::to_string(have) + " bytes after the header, the header says " +
                std::to_string(want));
  }
  a.data.resize(want);
  if (!read_exact(fd, a.data.data(), want)) return fail("the data could not be read (did the file change?)");
  if (a.fortran_order && a.shape.size() > 1) a.data = to_c_order(a);
  a.fortran_order = false;
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

std::string output_file_name(const std::string& tensor_name, size_t index, std::set<std::string>* used) {
  // Only letters, digits, '-', '_' and '.' (not first: no "..", no hidden file), at most 200 bytes.
  std::string s;
  for (char c : tensor_name.substr(0, 200)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || (c == '.' && !s.empty());
    s += plain ? c : '_';
  }
  if (s.empty()) s = "output";
  // A name that had to change carries its output's index, so that "a/b" and "a_b" stay apart; a
  // clash that remains (two outputs of the same name, or "a/b" next to "a_b-0") adds it again.
  if (s != tensor_name) s += "-" + std::to_string(index);
  while (!used->insert(s).second) s += "-" + std::to_string(index);
  return s + ".npy";
}

}  // namespace npy
