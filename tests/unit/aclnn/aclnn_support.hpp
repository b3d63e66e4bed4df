// Test support for the aclnn tests: a runtime with one device and stream, device tensors made from
// host data (any view: strides, offset, storage size), dtype conversions and float64 references.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

namespace aclnn_test {

using Dims = std::vector<int64_t>;

inline int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}
inline Dims contiguous_strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

inline float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

// Host bytes <-> doubles for one dtype.
inline double load(const unsigned char* p, aclDataType d) {
  switch (d) {
    case ACL_FLOAT: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ACL_DOUBLE: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case ACL_FLOAT16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return aclFloat16ToFloat(v);
    }
    case ACL_BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return bf16_to_float(v);
    }
    // Integers through int64, then modulo: a double outside the target type's range may not be
    // converted to it directly.
    case ACL_INT8:
      return static_cast<int8_t>(*p);
    case ACL_UINT8:
      return *p;
    case ACL_BOOL:
      return *p != 0;
    case ACL_INT16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ACL_INT32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ACL_INT64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case ACL_UINT16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ACL_UINT32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default:
      ADD_FAILURE() << "dtype " << d;
      return 0;
  }
}
inline void store(unsigned char* p, aclDataType d, double x) {
  switch (d) {
    case ACL_FLOAT: {
      float v = static_cast<float>(x);
      std::memcpy(p, &v, 4);
      break;
    }
    case ACL_DOUBLE:
      std::memcpy(p, &x, 8);
      break;
    case ACL_FLOAT16: {
      uint16_t v = aclFloatToFloat16(static_cast<float>(x));
      std::memcpy(p, &v, 2);
      break;
    }
    case ACL_BF16: {
      uint16_t v = float_to_bf16(static_cast<float>(x));
      std::memcpy(p, &v, 2);
      break;
    }
    // Integers through int64, then modulo: a double outside the target type's range may not be
    // converted to it directly.
    case ACL_INT8:
      *p = static_cast<unsigned char>(static_cast<int64_t>(x));
      break;
    case ACL_UINT8:
      *p = static_cast<unsigned char>(static_cast<int64_t>(x));
      break;
    case ACL_BOOL:
      *p = x != 0;
      break;
    case ACL_INT16: {
      int16_t v = static_cast<int16_t>(static_cast<int64_t>(x));
      std::memcpy(p, &v, 2);
      break;
    }
    case ACL_INT32: {
      int32_t v = static_cast<int32_t>(static_cast<int64_t>(x));
      std::memcpy(p, &v, 4);
      break;
    }
    case ACL_INT64: {
      int64_t v = static_cast<int64_t>(x);
      std::memcpy(p, &v, 8);
      break;
    }
    case ACL_UINT16: {
      uint16_t v = static_cast<uint16_t>(static_cast<int64_t>(x));
      std::memcpy(p, &v, 2);
      break;
    }
    case ACL_UINT32: {
      uint32_t v = static_cast<uint32_t>(static_cast<int64_t>(x));
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      ADD_FAILURE() << "dtype " << d;
  }
}
// The value as the dtype holds it (what the device sees after the host wrote `x`).
inline double as_dtype(double x, aclDataType d) {
  unsigned char b[8];
  store(b, d, x);
  return load(b, d);
}

// A device tensor: storage of `storage_elems` elements (filled from `values` in storage order) and
// an aclTensor view over it.
struct DevTensor {
  aclDataType dtype = ACL_FLOAT;
  Dims view, strides;
  int64_t offset = 0;
  int64_t storage_elems = 0;
  void* dev = nullptr;
  aclTensor* t = nullptr;

  DevTensor() = default;
  DevTensor(const DevTensor&) = delete;
  DevTensor& operator=(const DevTensor&) = delete;
  ~DevTensor() {
    if (t != nullptr) aclDestroyTensor(t);
    if (dev != nullptr) aclrtFree(dev);
  }
  size_t es() const { return aclDataTypeSize(dtype); }

  // Storage offset of view element `i` (row-major index over the view).
  int64_t storage_index(int64_t i) const {
    int64_t off = offset;
    for (size_t k = view.size(); k-- > 0;) {
      off += (i % view[k]) * strides[k];
      i /= view[k];
    }
    return off;
  }
  void write_storage(const std::vector<double>& storage) {
    std::vector<unsigned char> host(storage.size() * es());
    for (size_t i = 0; i < storage.size(); ++i) store(&host[i * es()], dtype, storage[i]);
    ASSERT_EQ(aclrtMemcpy(dev, host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  std::vector<double> read_storage() const {
    std::vector<unsigned char> host(static_cast<size_t>(storage_elems) * es());
    EXPECT_EQ(aclrtMemcpy(host.data(), host.size(), dev, host.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    std::vector<double> r(static_cast<size_t>(storage_elems));
    for (size_t i = 0; i < r.size(); ++i) r[i] = load(&host[i * es()], dtype);
    return r;
  }
  // The view's elements in row-major order.
  std::vector<double> read_view() const {
    const auto s = read_storage();
    std::vector<double> r(static_cast<size_t>(numel(view)));
    for (size_t i = 0; i < r.size(); ++i) r[i] = s[static_cast<size_t>(storage_index(static_cast<int64_t>(i)))];
    return r;
  }
};

// A new aclIntArray holding `v` (the caller destroys it).
inline aclIntArray* arr(std::vector<int64_t> v) {
  return aclCreateIntArray(v.data(), v.size());
}

inline std::mt19937& rng() {
  static std::mt19937 g(12345);
  return g;
}
inline std::vector<double> random_values(int64_t n, aclDataType d, double lo = -4, double hi = 4) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    x = u(rng());
    if (d != ACL_FLOAT && d != ACL_DOUBLE && d != ACL_FLOAT16 && d != ACL_BF16) x = std::round(x);
    if (d == ACL_BOOL) x = x > 0;
    x = as_dtype(x, d);
  }
  return v;
}

// A contiguous tensor of `dims` with random (or given) values.
inline void make(DevTensor& t, aclDataType dtype, const Dims& dims, std::vector<double> values = {}) {
  t.dtype = dtype;
  t.view = dims;
  t.strides = contiguous_strides(dims);
  t.storage_elems = std::max<int64_t>(numel(dims), 1);
  ASSERT_EQ(aclrtMalloc(&t.dev, static_cast<size_t>(t.storage_elems) * t.es(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  if (values.empty()) values = random_values(t.storage_elems, dtype);
  values.resize(static_cast<size_t>(t.storage_elems));
  t.write_storage(values);
  t.t = aclCreateTensor(dims.data(), dims.size(), dtype, t.strides.data(), 0, ACL_FORMAT_ND, dims.data(), dims.size(),
                        t.dev);
  ASSERT_NE(t.t, nullptr);
}

// A strided view (strides, offset) over `storage_elems` random elements.
inline void make_view(DevTensor& t, aclDataType dtype, const Dims& view, const Dims& strides, int64_t offset,
                      int64_t storage_elems) {
  t.dtype = dtype;
  t.view = view;
  t.strides = strides;
  t.offset = offset;
  t.storage_elems = storage_elems;
  ASSERT_EQ(aclrtMalloc(&t.dev, static_cast<size_t>(storage_elems) * t.es(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  t.write_storage(random_values(storage_elems, dtype));
  const Dims storage{storage_elems};
  t.t =
      aclCreateTensor(view.data(), view.size(), dtype, strides.data(), offset, ACL_FORMAT_ND, storage.data(), 1, t.dev);
  ASSERT_NE(t.t, nullptr);
}

// A transposed view (last two dims swapped) of a contiguous [.., n, m] storage: view [.., m, n].
inline void make_transposed(DevTensor& t, aclDataType dtype, const Dims& view) {
  Dims base = view;
  std::swap(base[base.size() - 1], base[base.size() - 2]);
  Dims s = contiguous_strides(base);
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  make_view(t, dtype, view, s, 0, numel(view));
}

// NumPy broadcasting: the element of `in` (shape `d`) that output element i of `out` reads.
inline size_t bcast_index(const Dims& d, const Dims& out, size_t i) {
  size_t idx = 0, mul = 1;
  for (size_t k = out.size(); k-- > 0;) {
    const size_t o = i % static_cast<size_t>(out[k]);
    i /= static_cast<size_t>(out[k]);
    if (k + d.size() >= out.size()) {
      const size_t dim = static_cast<size_t>(d[k + d.size() - out.size()]);
      idx += (dim == 1 ? 0 : o) * mul;
      mul *= dim;
    }
  }
  return idx;
}

// Tolerance per output dtype (relative, with an absolute floor).
inline double tolerance(aclDataType d) {
  switch (d) {
    case ACL_FLOAT16:
      return 2e-3;
    case ACL_BF16:
      return 1.6e-2;
    case ACL_FLOAT:
      return 2e-6;
    case ACL_DOUBLE:
      return 1e-6;  // computed in float32 (DEVELOPERS.md)
    default:
      return 0;
  }
}
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, aclDataType d,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const double tol = tolerance(d);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    const double err = std::fabs(got[i] - want[i]);
    if (err > tol * std::max(1.0, std::fabs(want[i])) && bad++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
    }
  }
}

// Runs phase 2 with a workspace of the size phase 1 asked for, then synchronizes.
inline void run(aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream), uint64_t ws, aclOpExecutor* ex,
                aclrtStream stream) {
  void* w = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(phase2(w, ws, ex, stream), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  if (w != nullptr) aclrtFree(w);
}

class AclnnTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(aclnnInit(nullptr), 0);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  static void TearDownTestSuite() {
    aclrtDestroyStream(stream_);
    aclrtResetDevice(0);
    aclnnFinalize();
    aclFinalize();
  }
  static inline aclrtStream stream_ = nullptr;
};

}  // namespace aclnn_test
