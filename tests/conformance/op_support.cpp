#include "op_support.hpp"

namespace conformance {

std::vector<double> rounded32(const std::vector<double>& v) {
  std::vector<double> r;
  for (double x : v) r.push_back(static_cast<float>(x));
  return r;
}

std::vector<double> rounded16(const std::vector<double>& v) {
  std::vector<double> r;
  for (double x : v) r.push_back(aclFloat16ToFloat(aclFloatToFloat16(static_cast<float>(x))));
  return r;
}

std::vector<double> HostTensor::values() const {
  const size_t n = static_cast<size_t>(count(dims));
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case ACL_FLOAT: {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        v[i] = f;
        break;
      }
      case ACL_FLOAT16: {
        aclFloat16 h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        v[i] = aclFloat16ToFloat(h);
        break;
      }
      case ACL_INT64: {
        int64_t x;
        std::memcpy(&x, bytes.data() + 8 * i, 8);
        v[i] = static_cast<double>(x);
        break;
      }
      case ACL_INT32: {
        int32_t x;
        std::memcpy(&x, bytes.data() + 4 * i, 4);
        v[i] = x;
        break;
      }
      case ACL_DOUBLE:
        std::memcpy(&v[i], bytes.data() + 8 * i, 8);
        break;
      case ACL_UINT8:
      case ACL_BOOL:
        v[i] = bytes[i];
        break;
      case ACL_INT8:
        v[i] = static_cast<int8_t>(bytes[i]);
        break;
      default:
        ADD_FAILURE() << "values(): dtype " << dtype << " not handled by the test helper";
    }
  }
  return v;
}

template <class T>
static HostTensor make(aclDataType dt, const Dims& dims, const std::vector<T>& v) {
  HostTensor t{dt, dims, std::vector<uint8_t>(v.size() * sizeof(T))};
  EXPECT_EQ(static_cast<int64_t>(v.size()), count(dims)) << "test data does not fill the shape";
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

HostTensor f32(const Dims& dims, const std::vector<double>& v) {
  return make(ACL_FLOAT, dims, std::vector<float>(v.begin(), v.end()));
}
HostTensor f16(const Dims& dims, const std::vector<double>& v) {
  std::vector<aclFloat16> h;
  for (double x : v) h.push_back(aclFloatToFloat16(static_cast<float>(x)));
  return make(ACL_FLOAT16, dims, h);
}
HostTensor i64(const Dims& dims, const std::vector<int64_t>& v) {
  return make(ACL_INT64, dims, v);
}
HostTensor i32(const Dims& dims, const std::vector<int64_t>& v) {
  return make(ACL_INT32, dims, std::vector<int32_t>(v.begin(), v.end()));
}
HostTensor omitted() {
  return HostTensor{ACL_DT_UNDEFINED, {}, {}};
}
HostTensor like(aclDataType dtype, const Dims& dims) {
  return HostTensor{dtype, dims, {}};
}

std::vector<double> randoms(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

aclError OpTest::run(const std::string& op, const std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs,
                     const aclopAttr* attr) {
  std::vector<aclTensorDesc*> inDesc, outDesc;
  std::vector<aclDataBuffer*> inBuf, outBuf;
  std::vector<void*> mem;
  auto describe = [&](const HostTensor& t, bool upload, std::vector<aclTensorDesc*>& descs,
                      std::vector<aclDataBuffer*>& bufs) {
    if (t.dtype == ACL_DT_UNDEFINED) {
      descs.push_back(aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, nullptr, ACL_FORMAT_UNDEFINED));
      bufs.push_back(aclCreateDataBuffer(nullptr, 0));
      return;
    }
    descs.push_back(aclCreateTensorDesc(t.dtype, static_cast<int>(t.dims.size()), t.dims.data(), ACL_FORMAT_ND));
    const size_t bytes = aclGetTensorDescSize(descs.back());
    void* dev = nullptr;
    EXPECT_EQ(ACL_SUCCESS, aclrtMalloc(&dev, bytes == 0 ? 1 : bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    mem.push_back(dev);
    if (upload && bytes > 0) {
      EXPECT_EQ(bytes, t.bytes.size());
      EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(dev, bytes, t.bytes.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    }
    bufs.push_back(aclCreateDataBuffer(dev, bytes));
  };
  for (const HostTensor& t : inputs) describe(t, true, inDesc, inBuf);
  for (const HostTensor& t : outputs) describe(t, false, outDesc, outBuf);
  aclError rc = aclopExecuteV2(op.c_str(), static_cast<int>(inDesc.size()), inDesc.data(), inBuf.data(),
                               static_cast<int>(outDesc.size()), outDesc.data(), outBuf.data(),
                               const_cast<aclopAttr*>(attr), nullptr);
  if (rc == ACL_SUCCESS) rc = aclrtSynchronizeStream(nullptr);
  if (rc == ACL_SUCCESS) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const size_t bytes = aclGetDataBufferSizeV2(outBuf[i]);
      outputs[i].bytes.resize(bytes);
      if (bytes > 0) {
        EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(outputs[i].bytes.data(), bytes, aclGetDataBufferAddr(outBuf[i]), bytes,
                                           ACL_MEMCPY_DEVICE_TO_HOST));
      }
    }
  }
  for (aclTensorDesc* d : inDesc) aclDestroyTensorDesc(d);
  for (aclTensorDesc* d : outDesc) aclDestroyTensorDesc(d);
  for (aclDataBuffer* b : inBuf) EXPECT_EQ(ACL_SUCCESS, aclDestroyDataBuffer(b));
  for (aclDataBuffer* b : outBuf) EXPECT_EQ(ACL_SUCCESS, aclDestroyDataBuffer(b));
  for (void* p : mem) EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
  return rc;
}

std::vector<double> OpTest::runOk(const std::string& op, const std::vector<HostTensor>& inputs, const HostTensor& out,
                                  const aclopAttr* attr) {
  std::vector<HostTensor> outs{out};
  const aclError rc = run(op, inputs, outs, attr);
  EXPECT_EQ(ACL_SUCCESS, rc) << op << ": " << (aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
  if (rc != ACL_SUCCESS) return {};
  return outs[0].values();
}

::testing::AssertionResult near(const std::vector<double>& got, const std::vector<double>& ref, double atol,
                                double rtol) {
  if (got.size() != ref.size()) {
    return ::testing::AssertionFailure() << "got " << got.size() << " elements, expected " << ref.size();
  }
  int misses = 0;
  auto fail = ::testing::AssertionFailure();
  for (size_t i = 0; i < got.size(); ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(ref[i]);
    if (!both_nan && got[i] != ref[i] && !(std::fabs(got[i] - ref[i]) <= atol + rtol * std::fabs(ref[i]))) {
      if (misses < 5) fail << "[" << i << "] got " << got[i] << " expected " << ref[i] << "; ";
      ++misses;
    }
  }
  if (misses == 0) return ::testing::AssertionSuccess();
  return fail << misses << " of " << got.size() << " elements outside atol " << atol << " + rtol " << rtol;
}

}  // namespace conformance
