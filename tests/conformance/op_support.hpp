// Helpers of the operator tests: host tensors, a fixture that runs one op through aclopExecuteV2
// (upload, describe, execute, synchronize, download, release), and float64 references.
#ifndef ARUN_TESTS_CONFORMANCE_OP_SUPPORT_HPP_
#define ARUN_TESTS_CONFORMANCE_OP_SUPPORT_HPP_

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"

namespace conformance {

using Dims = std::vector<int64_t>;

inline int64_t count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// A tensor on the host: dtype, shape and raw bytes.
struct HostTensor {
  aclDataType dtype = ACL_FLOAT;
  Dims dims;
  std::vector<uint8_t> bytes;

  std::vector<double> values() const;  // every element as double
};

HostTensor f32(const Dims& dims, const std::vector<double>& v);
HostTensor f16(const Dims& dims, const std::vector<double>& v);
HostTensor i64(const Dims& dims, const std::vector<int64_t>& v);
HostTensor i32(const Dims& dims, const std::vector<int64_t>& v);
// An omitted optional input.
HostTensor omitted();
// What an output should be: dtype and shape (its bytes are filled by the run).
HostTensor like(aclDataType dtype, const Dims& dims);

// `v` rounded to float32 / to float16: what a kernel computing in float64 would store.
std::vector<double> rounded32(const std::vector<double>& v);
std::vector<double> rounded16(const std::vector<double>& v);

// Uniform values in [lo, hi), from a fixed seed.
std::vector<double> randoms(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0);

// Fixture: runs ops on device 0's default stream.
class OpTest : public AclDeviceTest {
 protected:
  // Runs `op`; returns the code of aclopExecuteV2 or, if that succeeded, of the stream synchronize.
  // On success `outputs` hold the results.
  aclError run(const std::string& op, const std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs,
               const aclopAttr* attr = nullptr);
  // run() with one output; the code of the execute or of the synchronize.
  aclError rc(const std::string& op, const std::vector<HostTensor>& inputs, const HostTensor& out,
              const aclopAttr* attr = nullptr) {
    std::vector<HostTensor> outs{out};
    return run(op, inputs, outs, attr);
  }
  // run() that must succeed; returns output 0 as doubles.
  std::vector<double> runOk(const std::string& op, const std::vector<HostTensor>& inputs, const HostTensor& out,
                            const aclopAttr* attr = nullptr);
};

// Every element within atol + rtol * |ref|; reports the first few misses.
::testing::AssertionResult near(const std::vector<double>& got, const std::vector<double>& ref, double atol,
                                double rtol);

// Attribute builder owning an aclopAttr.
class Attr {
 public:
  Attr() : a_(aclopCreateAttr()) {}
  ~Attr() { aclopDestroyAttr(a_); }
  Attr(const Attr&) = delete;
  Attr& operator=(const Attr&) = delete;
  Attr& i(const char* n, int64_t v) {
    EXPECT_EQ(ACL_SUCCESS, aclopSetAttrInt(a_, n, v));
    return *this;
  }
  Attr& f(const char* n, float v) {
    EXPECT_EQ(ACL_SUCCESS, aclopSetAttrFloat(a_, n, v));
    return *this;
  }
  Attr& s(const char* n, const char* v) {
    EXPECT_EQ(ACL_SUCCESS, aclopSetAttrString(a_, n, v));
    return *this;
  }
  Attr& l(const char* n, const std::vector<int64_t>& v) {
    EXPECT_EQ(ACL_SUCCESS, aclopSetAttrListInt(a_, n, static_cast<int>(v.size()), v.data()));
    return *this;
  }
  operator const aclopAttr*() const { return a_; }
  aclopAttr* get() const { return a_; }

 private:
  aclopAttr* a_;
};

}  // namespace conformance

#endif  // ARUN_TESTS_CONFORMANCE_OP_SUPPORT_HPP_
