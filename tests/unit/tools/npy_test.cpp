// npy.cpp: round trips, the header forms NumPy writes, and every rejection path.
#include "npy.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

namespace {

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/npy_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // A file with a version-1.0 header holding DICT, then DATA_BYTES bytes of 0x11.
  std::string raw(const std::string& name, const std::string& dict, size_t data_bytes, char major = 1) {
    std::string header = dict;
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::ofstream out(path(name), std::ios::binary);
    out.write("\x93NUMPY", 6);
    out.put(major);
    out.put(0);
    out.put(static_cast<char>(header.size() & 0xff));
    out.put(static_cast<char>(header.size() >> 8));
    out << header << std::string(data_bytes, '\x11');
    return path(name);
  }

  std::string dir_;
};

TEST_F(NpyTest, RoundTripKeepsTypeShapeAndBytes) {
  npy::Array a;
  a.descr = "f4";
  a.shape = {2, 3};
  const float values[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e-7f, 42.0f};
  a.data.assign(reinterpret_cast<const unsigned char*>(values), reinterpret_cast<const unsigned char*>(values + 6));
  std::string error;
  ASSERT_TRUE(npy::write(path("a.npy"), a, &error)) << error;
  npy::Array b;
  ASSERT_TRUE(npy::read(path("a.npy"), &b, &error)) << error;
  EXPECT_EQ(b.descr, "f4");
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.data, a.data);
  EXPECT_EQ(b.item_size(), 4u);
  EXPECT_EQ(b.elements(), 6u);
  // NumPy's layout: the data starts on a 64-byte boundary after a newline-terminated header.
  std::ifstream in(path("a.npy"), std::ios::binary | std::ios::ate);
  EXPECT_EQ(static_cast<size_t>(in.tellg()) % 64, 24u);
}

TEST_F(NpyTest, ScalarsBooleansAndOneDimensionalShapes) {
  for (const auto& [descr, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"b1", {5}}, {"i8", {}}, {"u1", {1, 1, 1}}, {"f2", {0}}}) {
    npy::Array a;
    a.descr = descr;
    a.shape = shape;
    a.data.assign(a.elements() * a.item_size(), 7);
    std::string error;
    ASSERT_TRUE(npy::write(path("s.npy"), a, &error)) << error;
    npy::Array b;
    ASSERT_TRUE(npy::read(path("s.npy"), &b, &error)) << descr << ": " << error;
    EXPECT_EQ(b.descr, descr);
    EXPECT_EQ(b.shape, shape);
    EXPECT_EQ(b.data, a.data);
  }
  EXPECT_EQ(npy::shape_text({}), "()");
  EXPECT_EQ(npy::shape_text({5}), "(5,)");
  EXPECT_EQ(npy::shape_text({1, 28, 28}), "(1, 28, 28)");
}

TEST_F(NpyTest, ReadsHeadersAsNumpyWritesThem) {
  const std::string p = raw("n.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 2), }", 24);
  npy::Array a;
  std::string error;
  ASSERT_TRUE(npy::read(p, &a, &error)) << error;
  EXPECT_EQ(a.descr, "i4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(a.data.size(), 24u);
}

TEST_F(NpyTest, FortranOrderIsReadAsRowMajor) {
  // np.save(x.T) of x = [[0, 1, 2], [3, 4, 5]] writes a (3, 2) array in Fortran order: its bytes are
  // x's, row-major; row-major (3, 2) is [[0, 3], [1, 4], [2, 5]].
  const std::string header = "{'descr': '|u1', 'fortran_order': True, 'shape': (3, 2), }";
  const std::string file = raw("f.npy", header, 0);
  std::ofstream(file, std::ios::binary | std::ios::app).write("\x00\x01\x02\x03\x04\x05", 6);
  npy::Array a;
  std::string error;
  ASSERT_TRUE(npy::read(file, &a, &error)) << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(a.data, (std::vector<unsigned char>{0, 3, 1, 4, 2, 5}));
  EXPECT_FALSE(a.fortran_order);
}

TEST_F(NpyTest, RejectsWhatItCannotRepresent) {
  npy::Array a;
  std::string error;
  EXPECT_FALSE(npy::read(path("missing.npy"), &a, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;

  std::ofstream(path("text.npy")) << "hello, not numpy";
  EXPECT_FALSE(npy::read(path("text.npy"), &a, &error));
  EXPECT_NE(error.find("not a .npy file"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8), &a, &error));
  EXPECT_NE(error.find("'>f4' is not supported"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("o.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16), &a, &error));
  EXPECT_NE(error.find("is not supported"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("c.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16), &a, &error));
  EXPECT_NE(error.find("'<c8' is not supported"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("t.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", 31), &a, &error));
  EXPECT_NE(error.find("truncated data: 31 bytes, the header says 32"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("v.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", 32, 9), &a, &error));
  EXPECT_NE(error.find("format version 9"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("s.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4, -1), }", 32), &a, &error));
  EXPECT_NE(error.find("shape"), std::string::npos) << error;

  EXPECT_FALSE(npy::write(path("no/such/dir/x.npy"), npy::Array{"f4", {1}, {0, 0, 0, 0}}, &error));
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
}

// Issue 24 finding 7: the header is parsed as the dict it is, by the format's grammar.
TEST_F(NpyTest, TypeStringsMatchExactly) {
  npy::Array a;
  std::string error;
  // Once read as a bool array: a prefix match on the type string.
  EXPECT_FALSE(npy::read(raw("j.npy", "{'descr': '<f4junk', 'fortran_order': False, 'shape': (2,), }", 8), &a, &error));
  EXPECT_NE(error.find("'<f4junk' is not supported"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(raw("b.npy", "{'descr': '<b1x', 'fortran_order': False, 'shape': (2,), }", 2), &a, &error));
  EXPECT_NE(error.find("is not supported"), std::string::npos) << error;
  // Byte-order marks as NumPy writes them: '|' for one-byte types, '<' for the others.
  EXPECT_FALSE(npy::read(raw("u.npy", "{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }", 8), &a, &error));
  EXPECT_NE(error.find("'f4' is not supported"), std::string::npos) << error;
  ASSERT_TRUE(npy::read(raw("ok.npy", "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", 2), &a, &error))
      << error;
  EXPECT_EQ(a.descr, "b1");
  // Double quotes and keys in another order are the same dict.
  ASSERT_TRUE(
      npy::read(raw("dq.npy", "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<u2\"}", 4), &a, &error))
      << error;
  EXPECT_EQ(a.descr, "u2");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
}

TEST_F(NpyTest, HeaderFieldsAreKeysNotSubstrings) {
  npy::Array a;
  std::string error;
  // A string value that contains "'descr': '<f8'" changed the type when fields were found by substring.
  EXPECT_FALSE(npy::read(
      raw("s.npy", "{'note': \"'descr': '<f8'\", 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8), &a,
      &error));
  EXPECT_NE(error.find("unexpected key 'note'"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(raw("d.npy", "{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 8),
                         &a, &error));
  EXPECT_NE(error.find("'descr' appears twice"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(raw("m.npy", "{'descr': '<f4', 'shape': (2,), }", 8), &a, &error));
  EXPECT_NE(error.find("lacks the key 'fortran_order'"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(raw("x.npy", "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,), }", 8), &a, &error));
  EXPECT_NE(error.find("neither True nor False"), std::string::npos) << error;
  EXPECT_FALSE(
      npy::read(raw("g.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk", 8), &a, &error));
  EXPECT_NE(error.find("text after the header dictionary"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(raw("l.npy", "['descr', '<f4']", 8), &a, &error));
  EXPECT_NE(error.find("not a dictionary"), std::string::npos) << error;
}

TEST_F(NpyTest, ShapesAreTuplesWithCheckedCounts) {
  npy::Array a;
  std::string error;
  EXPECT_FALSE(npy::read(raw("n.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8), &a, &error));
  EXPECT_NE(error.find("write (N,)"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(raw("f.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), }", 8), &a, &error));
  EXPECT_NE(error.find("',' or ')' expected"), std::string::npos) << error;
  EXPECT_FALSE(npy::read(
      raw("b.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8), &a, &error));
  EXPECT_NE(error.find("too large"), std::string::npos) << error;
  // 2^32 x 2^32 elements wrapped to 0 bytes once: now the count is checked, not wrapped.
  EXPECT_FALSE(npy::read(
      raw("w.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0), &a, &error));
  EXPECT_NE(error.find("more bytes than memory can address"), std::string::npos) << error;
  // 2^40 elements: refused by the file's size before any allocation.
  EXPECT_FALSE(
      npy::read(raw("h.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", 8), &a, &error));
  EXPECT_NE(error.find("truncated data: 8 bytes, the header says 4398046511104"), std::string::npos) << error;
  ASSERT_TRUE(npy::read(raw("e.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4), &a, &error))
      << error;
  EXPECT_TRUE(a.shape.empty());
  ASSERT_TRUE(npy::read(raw("t.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3,), }", 24), &a, &error))
      << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  size_t bytes = 0;
  EXPECT_FALSE(npy::checked_bytes({INT64_MAX, 4}, 1, &bytes));
  EXPECT_EQ((npy::Array{"f4", {INT64_MAX, 4}, {}}).elements(), SIZE_MAX);
}

TEST_F(NpyTest, RejectsTrailingDataAndOtherVersions) {
  npy::Array a;
  std::string error;
  EXPECT_FALSE(npy::read(raw("t.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 9), &a, &error));
  EXPECT_NE(error.find("trailing data: 9 bytes after the header, the header says 8"), std::string::npos) << error;
  // Version 2.0: a four-byte header length.
  {
    std::string header = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }";
    header.append(63 - (12 + header.size()) % 64, ' ');
    header += '\n';
    std::ofstream out(path("v2.npy"), std::ios::binary);
    out.write("\x93NUMPY\x02\x00", 8);
    const uint32_t len = static_cast<uint32_t>(header.size());
    out.write(reinterpret_cast<const char*>(&len), 4);
    out << header << std::string(6, '\x01');
  }
  ASSERT_TRUE(npy::read(path("v2.npy"), &a, &error)) << error;
  EXPECT_EQ(a.descr, "i2");
  EXPECT_EQ(a.data.size(), 6u);
  // A version 2.0 header length of 4 GiB is refused from the length field.
  {
    std::ofstream out(path("big.npy"), std::ios::binary);
    out.write("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14);
  }
  EXPECT_FALSE(npy::read(path("big.npy"), &a, &error));
  EXPECT_NE(error.find("more than the"), std::string::npos) << error;
  // Version 1.1 does not exist.
  {
    std::ofstream out(path("v11.npy"), std::ios::binary);
    out.write("\x93NUMPY\x01\x01\x02\x00{}", 12);
  }
  EXPECT_FALSE(npy::read(path("v11.npy"), &a, &error));
  EXPECT_NE(error.find("format version 1.1"), std::string::npos) << error;
}

TEST_F(NpyTest, OnlyRegularFilesAreRead) {
  npy::Array a;
  std::string error;
  EXPECT_FALSE(npy::read(dir_, &a, &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  // /dev/zero would be read without end; a FIFO without a writer would block the open.
  EXPECT_FALSE(npy::read("/dev/zero", &a, &error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_FALSE(npy::read(path("fifo"), &a, &error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

}  // namespace

namespace {

// Issue 24 finding 7: outputs named "a/b" and "a_b" wrote the same file.
TEST(OutputFileName, SafeAndUnique) {
  std::set<std::string> used;
  const std::string slash = npy::output_file_name("a/b", 0, &used);
  const std::string underscore = npy::output_file_name("a_b", 1, &used);
  EXPECT_EQ(slash, "a_b-0.npy");
  EXPECT_EQ(underscore, "a_b.npy");
  // The reverse order, the same name twice, and a name that looks like a renamed one.
  std::set<std::string> again;
  EXPECT_EQ(npy::output_file_name("a_b", 0, &again), "a_b.npy");
  EXPECT_EQ(npy::output_file_name("a/b", 1, &again), "a_b-1.npy");
  EXPECT_EQ(npy::output_file_name("a_b-1", 2, &again), "a_b-1-2.npy");
  EXPECT_EQ(npy::output_file_name("a_b", 3, &again), "a_b-3.npy");
  // Nothing that leaves the folder or hides: no '/', no leading '.', no "..", bounded length.
  std::set<std::string> other;
  EXPECT_EQ(npy::output_file_name("..", 0, &other), "_.-0.npy");
  EXPECT_EQ(npy::output_file_name("../../etc/passwd", 1, &other), "_._.._etc_passwd-1.npy");
  EXPECT_EQ(npy::output_file_name("", 2, &other), "output-2.npy");
  EXPECT_EQ(npy::output_file_name("x:y\\z\n", 3, &other), "x_y_z_-3.npy");
  const std::string long_name = npy::output_file_name(std::string(5000, 'q'), 4, &other);
  EXPECT_LE(long_name.size(), 255u);
  EXPECT_EQ(long_name.find('/'), std::string::npos);
}

}  // namespace
