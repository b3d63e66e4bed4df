// Issue 18, item 4: the operator library's elementwise kernels as a kernel binary
// (arun_op_kernels.so, ops/kernels). Each kernel, loaded by name and launched with packed
// arguments, gives the same bytes as the operator through aclopExecuteV2, in float32 and float16;
// entries, parameter layouts and an odd element count (blocks with uneven shares) are checked too.
#include <cstring>
#include <string>
#include <vector>

#include "op_support.hpp"

namespace conformance {
namespace {

class OpKernelBinaryTest : public OpTest {
 protected:
  void SetUp() override {
    OpTest::SetUp();
    ASSERT_ACL_OK(aclrtBinaryLoadFromFile(ARUN_OP_KERNELS_PATH, nullptr, &bin_));
  }
  void TearDown() override {
    for (void* p : buffers_) EXPECT_ACL_OK(aclrtFree(p));
    if (bin_ != nullptr) {
      EXPECT_ACL_OK(aclrtBinaryUnLoad(bin_));
    }
    OpTest::TearDown();
  }

  void* upload(const HostTensor& t) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, t.bytes.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ACL_OK(aclrtMemcpy(p, t.bytes.size(), t.bytes.data(), t.bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE));
    buffers_.push_back(p);
    return p;
  }
  void* alloc(size_t bytes) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    buffers_.push_back(p);
    return p;
  }
  std::vector<uint8_t> download(const void* p, size_t bytes) {
    std::vector<uint8_t> v(bytes);
    EXPECT_ACL_OK(aclrtMemcpy(v.data(), bytes, p, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }

  // Launches kernel `name` with its parameters packed one by one through an argument handle.
  void launch(const std::string& name, const std::vector<std::pair<const void*, size_t>>& params) {
    aclrtFuncHandle f = nullptr;
    ASSERT_ACL_OK(aclrtBinaryGetFunction(bin_, name.c_str(), &f)) << name;
    aclrtArgsHandle args = nullptr;
    ASSERT_ACL_OK(aclrtKernelArgsInit(f, &args));
    for (const auto& [value, size] : params) {
      aclrtParamHandle h = nullptr;
      ASSERT_ACL_OK(aclrtKernelArgsAppend(args, const_cast<void*>(value), size, &h)) << name;
    }
    ASSERT_ACL_OK(aclrtKernelArgsFinalize(args));
    ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(f, 5, nullptr, nullptr, args, nullptr)) << name;
    ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr)) << name;
  }

  aclrtBinHandle bin_ = nullptr;
  std::vector<void*> buffers_;
};

HostTensor typed(aclDataType dt, const Dims& d, const std::vector<double>& v) {
  return dt == ACL_FLOAT ? f32(d, v) : f16(d, v);
}
const char* suffix(aclDataType dt) {
  return dt == ACL_FLOAT ? "_float32" : "_float16";
}

TEST_P(OpKernelBinaryTest, UnaryKernelsGiveTheOperatorsBytes) {
  const Dims d{1001};  // odd: five blocks get uneven shares
  struct Case {
    const char* kernel;
    const char* op;
    float alpha;
    const char* approximate;
  };
  const Case cases[] = {{"Relu", "Relu", 0, nullptr},       {"LeakyRelu", "LeakyRelu", 0.2f, nullptr},
                        {"Gelu", "Gelu", 0, nullptr},       {"GeluTanh", "Gelu", 0, "tanh"},
                        {"Sigmoid", "Sigmoid", 0, nullptr}, {"Tanh", "Tanh", 0, nullptr},
                        {"Erf", "Erf", 0, nullptr},         {"Sqrt", "Sqrt", 0, nullptr},
                        {"Exp", "Exp", 0, nullptr},         {"Log", "Log", 0, nullptr}};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.kernel) + suffix(dt));
      const bool positive = std::strcmp(c.op, "Sqrt") == 0 || std::strcmp(c.op, "Log") == 0;
      const HostTensor x = typed(dt, d, randoms(count(d), 77, positive ? 0.01 : -4.0, 4.0));
      Attr attr;
      if (std::strcmp(c.op, "LeakyRelu") == 0) attr.f("alpha", c.alpha);
      if (c.approximate != nullptr) attr.s("approximate", c.approximate);
      std::vector<HostTensor> want{like(dt, d)};
      ASSERT_ACL_OK(run(c.op, {x}, want, attr));

      void* in = upload(x);
      void* out = alloc(x.bytes.size());
      const uint64_t n = static_cast<uint64_t>(count(d));
      launch(std::string(c.kernel) + suffix(dt), {{&in, sizeof in}, {&out, sizeof out}, {&n, sizeof n}, {&c.alpha, 4}});
      EXPECT_EQ(want[0].bytes, download(out, x.bytes.size()));
    }
  }
}

TEST_P(OpKernelBinaryTest, BinaryKernelsGiveTheOperatorsBytes) {
  const Dims d{4, 251};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) {
      SCOPED_TRACE(std::string(op) + suffix(dt));
      const bool pow = std::strcmp(op, "Pow") == 0;
      const HostTensor a = typed(dt, d, randoms(count(d), 5, pow ? 0.1 : -3.0, 3.0));
      const HostTensor b = typed(dt, d, randoms(count(d), 6, pow ? -2.0 : 0.5, 3.0));
      std::vector<HostTensor> want{like(dt, d)};
      ASSERT_ACL_OK(run(op, {a, b}, want));

      void* da = upload(a);
      void* db = upload(b);
      void* out = alloc(a.bytes.size());
      const uint64_t n = static_cast<uint64_t>(count(d));
      launch(std::string(op) + suffix(dt), {{&da, sizeof da}, {&db, sizeof db}, {&out, sizeof out}, {&n, sizeof n}});
      EXPECT_EQ(want[0].bytes, download(out, a.bytes.size()));
    }
  }
}

TEST_P(OpKernelBinaryTest, EntriesAndLayoutsAreTheDocumentedOnes) {
  // Gelu_float32 is entry 1020, Pow_float16 2041; unary kernels take (x, y, n, alpha), binary ones
  // (a, b, y, n), each in an 8-byte slot.
  aclrtFuncHandle byName = nullptr, byEntry = nullptr;
  ASSERT_ACL_OK(aclrtBinaryGetFunction(bin_, "Gelu_float32", &byName));
  ASSERT_ACL_OK(aclrtBinaryGetFunctionByEntry(bin_, 1020, &byEntry));
  EXPECT_EQ(byName, byEntry);
  ASSERT_ACL_OK(aclrtBinaryGetFunction(bin_, "Pow_float16", &byName));
  ASSERT_ACL_OK(aclrtBinaryGetFunctionByEntry(bin_, 2041, &byEntry));
  EXPECT_EQ(byName, byEntry);
  size_t params = 0;
  ASSERT_ACL_OK(aclrtFunctionGetParamCount(byEntry, &params));
  EXPECT_EQ(4u, params);
  aclrtFuncHandle missing = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunction(bin_, "Softmax_float32", &missing));
}

ARUN_CONFORMANCE_INSTANTIATE(OpKernelBinaryTest);

}  // namespace
}  // namespace conformance
