// npy.cpp: round trips, the header forms NumPy writes, and every rejection path.
#include "npy.hpp"

#include <gtest/gtest.h>
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

TEST_F(NpyTest, RejectsWhatItCannotRepresent) {
  npy::Array a;
  std::string error;
  EXPECT_FALSE(npy::read(path("missing.npy"), &a, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;

  std::ofstream(path("text.npy")) << "hello, not numpy";
  EXPECT_FALSE(npy::read(path("text.npy"), &a, &error));
  EXPECT_NE(error.find("not a .npy file"), std::string::npos) << error;

  EXPECT_FALSE(npy::read(raw("f.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16), &a, &error));
  EXPECT_NE(error.find("Fortran"), std::string::npos) << error;

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

}  // namespace
