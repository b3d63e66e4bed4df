// Host tensors of every real dtype and bool for the pointwise operator tests (op_activation_test,
// op_logic_test): build from doubles, read back as doubles (exact for the integers used here).
#ifndef ARUN_TESTS_CONFORMANCE_OP_TYPED_HPP_
#define ARUN_TESTS_CONFORMANCE_OP_TYPED_HPP_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "op_support.hpp"

namespace conformance::typed {

template <class T>
HostTensor make(aclDataType dt, const Dims& dims, const std::vector<double>& v) {
  HostTensor t{dt, dims, std::vector<uint8_t>(v.size() * sizeof(T))};
  EXPECT_EQ(static_cast<int64_t>(v.size()), count(dims)) << "test data does not fill the shape";
  for (size_t i = 0; i < v.size(); ++i) {
    const T x = static_cast<T>(v[i]);
    std::memcpy(t.bytes.data() + i * sizeof(T), &x, sizeof(T));
  }
  return t;
}

// Any dtype from doubles (float16 rounds; integers truncate; bool is v != 0).
inline HostTensor tensor(aclDataType dt, const Dims& dims, const std::vector<double>& v) {
  switch (dt) {
    case ACL_FLOAT:
      return f32(dims, v);
    case ACL_FLOAT16:
      return f16(dims, v);
    case ACL_DOUBLE:
      return make<double>(dt, dims, v);
    case ACL_INT8:
      return make<int8_t>(dt, dims, v);
    case ACL_UINT8:
      return make<uint8_t>(dt, dims, v);
    case ACL_INT16:
      return make<int16_t>(dt, dims, v);
    case ACL_UINT16:
      return make<uint16_t>(dt, dims, v);
    case ACL_INT32:
      return make<int32_t>(dt, dims, v);
    case ACL_UINT32:
      return make<uint32_t>(dt, dims, v);
    case ACL_INT64:
      return make<int64_t>(dt, dims, v);
    case ACL_UINT64:
      return make<uint64_t>(dt, dims, v);
    case ACL_BOOL: {
      std::vector<double> b;
      for (double x : v) b.push_back(x != 0 ? 1 : 0);
      return make<uint8_t>(dt, dims, b);
    }
    default:
      ADD_FAILURE() << "tensor(): dtype " << dt;
      return {};
  }
}

template <class T>
std::vector<double> read(const HostTensor& t) {
  std::vector<double> v(t.bytes.size() / sizeof(T));
  for (size_t i = 0; i < v.size(); ++i) {
    T x;
    std::memcpy(&x, t.bytes.data() + i * sizeof(T), sizeof(T));
    v[i] = static_cast<double>(x);
  }
  return v;
}

// Every element as double, for every dtype tensor() makes.
inline std::vector<double> values(const HostTensor& t) {
  switch (t.dtype) {
    case ACL_INT16:
      return read<int16_t>(t);
    case ACL_UINT16:
      return read<uint16_t>(t);
    case ACL_UINT32:
      return read<uint32_t>(t);
    case ACL_UINT64:
      return read<uint64_t>(t);
    default:
      return t.values();
  }
}

// The integer dtypes and their ranges, for loops over them.
struct IntType {
  aclDataType dt;
  double lo, hi;
  bool is_signed;
};
inline const std::vector<IntType>& int_types() {
  static const std::vector<IntType> v = {{ACL_INT8, -128, 127, true},
                                         {ACL_UINT8, 0, 255, false},
                                         {ACL_INT16, -32768, 32767, true},
                                         {ACL_UINT16, 0, 65535, false},
                                         {ACL_INT32, -2147483648.0, 2147483647.0, true},
                                         {ACL_UINT32, 0, 4294967295.0, false},
                                         {ACL_INT64, -9.2e18, 9.2e18, true},
                                         {ACL_UINT64, 0, 1.8e19, false}};
  return v;
}

// Random integers in [lo, hi].
inline std::vector<double> int_randoms(size_t n, uint32_t seed, int lo, int hi) {
  std::vector<double> v = randoms(n, seed, lo, hi + 1);
  for (double& x : v) x = std::floor(x);
  return v;
}

inline std::string recent_message() {
  const char* m = aclGetRecentErrMsg();
  return m == nullptr ? "" : m;
}

}  // namespace conformance::typed

// The thread's recent error message (read once: reading consumes it) contains `text`.
#define EXPECT_THAT_MESSAGE(text)                                                        \
  do {                                                                                   \
    const std::string msg_ = ::conformance::typed::recent_message();                     \
    EXPECT_NE(std::string::npos, msg_.find(text)) << "recent message: '" << msg_ << "'"; \
  } while (0)

#endif  // ARUN_TESTS_CONFORMANCE_OP_TYPED_HPP_
