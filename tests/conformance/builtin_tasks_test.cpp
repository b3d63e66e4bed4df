// Spec part 2, 4.9: built-in device tasks — aclrtReduceAsync against a host reference (integers
// exactly, floats within rounding), aclrtRandomNumAsync (Philox4x32-10: known-answer values,
// reproducible for a seed and counter, the counter advanced, distribution moments within bounds) and
// aclrtTaskUpdateAsync (no captured task exists: the codes CANN gives a non-captured target). Each
// error rule of the three entries has a check.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "conformance.hpp"

namespace conformance {
namespace {

// Layouts are ABI (spec part 2, section 2: sizes on LP64).
static_assert(sizeof(aclrtRandomParaInfo) == 16);
static_assert(sizeof(aclrtRandomNumFuncParaInfo) == 36);
static_assert(sizeof(aclrtRandomNumTaskInfo) == 104);
static_assert(sizeof(aclrtTaskUpdateInfo) == 48);
static_assert(offsetof(aclrtRandomNumTaskInfo, randomParaAddr) == 40);
static_assert(offsetof(aclrtRandomNumTaskInfo, rsv) == 96);
static_assert(ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL == 13 && ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS == 3 &&
              ACL_RT_UPDATE_AIC_AIV_TASK == 2);

class BuiltinTasksTest : public AclDeviceTest {
 protected:
  void TearDown() override {
    if (initialized()) {
      for (void* p : owned_) EXPECT_ACL_OK(aclrtFree(p));
    }
    owned_.clear();
    AclDeviceTest::TearDown();
  }
  void* deviceAlloc(size_t bytes) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    if (p != nullptr) owned_.push_back(p);
    return p;
  }
  template <class T>
  void* upload(const std::vector<T>& v) {
    void* p = deviceAlloc(v.size() * sizeof(T));
    EXPECT_ACL_OK(aclrtMemcpy(p, v.size() * sizeof(T), v.data(), v.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE));
    return p;
  }
  template <class T>
  std::vector<T> download(const void* p, size_t n) {
    std::vector<T> v(n);
    EXPECT_ACL_OK(aclrtMemcpy(v.data(), n * sizeof(T), p, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }
  // Reduces host vectors on the device (a new stream) and returns dst.
  template <class T>
  std::vector<T> reduce(const std::vector<T>& dst, const std::vector<T>& src, aclrtReduceKind kind, aclDataType type) {
    void* d = upload(dst);
    void* s = upload(src);
    aclrtStream stream = nullptr;
    EXPECT_ACL_OK(aclrtCreateStream(&stream));
    EXPECT_ACL_OK(aclrtReduceAsync(d, s, dst.size() * sizeof(T), kind, type, stream, nullptr));
    EXPECT_ACL_OK(aclrtSynchronizeStream(stream));
    EXPECT_ACL_OK(aclrtDestroyStream(stream));
    return download<T>(d, dst.size());
  }

 private:
  std::vector<void*> owned_;
};

// ------------------------------------------------------------------ aclrtReduceAsync

TEST_P(BuiltinTasksTest, ReduceErrors) {
  void* d = deviceAlloc(64);
  void* s = deviceAlloc(64);
  const auto sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;
  int reserve = 0;
  int host[16] = {};
  // ACL layer: NULLs, reserve, data types outside its list.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(nullptr, s, 64, sum, ACL_INT32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, nullptr, 64, sum, ACL_INT32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, s, 64, sum, ACL_INT32, nullptr, &reserve));
  for (aclDataType t : {ACL_INT64, ACL_DOUBLE, ACL_UINT64, ACL_BOOL, ACL_STRING, ACL_DT_UNDEFINED}) {
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, s, 64, sum, t, nullptr, nullptr)) << t;
  }
  // Runtime: count, kind, size limit, chip support, element size, memory, stream.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 0, sum, ACL_INT32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtReduceAsync(d, s, 64, static_cast<aclrtReduceKind>(9), ACL_INT32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtReduceAsync(d, s, 64, static_cast<aclrtReduceKind>(14), ACL_INT32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtReduceAsync(d, s, (uint64_t{4} << 30) + 4, sum, ACL_INT32, nullptr, nullptr))
      << "SUM over more than 4 GiB";
  for (aclDataType t : {ACL_INT4, ACL_UINT8, ACL_UINT16, ACL_UINT32}) {
    EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReduceAsync(d, s, 64, sum, t, nullptr, nullptr))
        << "an A2-class part does not reduce type " << t;
  }
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 6, sum, ACL_INT32, nullptr, nullptr))
      << "not a multiple of the element size";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(host, s, 64, sum, ACL_INT32, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, host, 64, sum, ACL_INT32, nullptr, nullptr));
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtReduceAsync(d, s, 64, sum, ACL_INT32, dead, nullptr));
  // A stream of another context.
  aclrtContext original = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&original));
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
  aclrtStream foreign = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&foreign));
  ASSERT_ACL_OK(aclrtSetCurrentContext(original));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtReduceAsync(d, s, 64, sum, ACL_INT32, foreign, nullptr));
  ASSERT_ACL_OK(aclrtDestroyContext(other));
  inNewThread(
      [&] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtReduceAsync(d, s, 64, sum, ACL_INT32, nullptr, nullptr)); });
  // A range past the allocation faults the task (the device checks every access).
  aclrtStream st = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&st));
  ASSERT_ACL_OK(aclrtReduceAsync(d, s, 1 << 20, sum, ACL_INT32, st, nullptr));
  EXPECT_NE(ACL_SUCCESS, aclrtSynchronizeStream(st));
  EXPECT_ACL_OK(aclrtDestroyStream(st));
}

TEST_P(BuiltinTasksTest, ReduceIntegersExactly) {
  // The spec's example.
  EXPECT_EQ((std::vector<int32_t>{2, 4, 6, 8}),
            reduce<int32_t>({1, 2, 3, 4}, {1, 2, 3, 4}, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32));
  // Many blocks' worth, every kind, against the host.
  const size_t n = 300000;
  std::mt19937 gen(7);
  std::uniform_int_distribution<int32_t> dist(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  std::vector<int32_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen);
  std::vector<int32_t> sum(n), mx(n), mn(n);
  for (size_t i = 0; i < n; ++i) {
    sum[i] = static_cast<int32_t>(static_cast<uint32_t>(a[i]) + static_cast<uint32_t>(b[i]));  // wraps
    mx[i] = std::max(a[i], b[i]);
    mn[i] = std::min(a[i], b[i]);
  }
  EXPECT_EQ(sum, reduce(a, b, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32));
  EXPECT_EQ(mx, reduce(a, b, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT32));
  EXPECT_EQ(mn, reduce(a, b, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT32));
  EXPECT_EQ(b, reduce(a, b, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_INT32)) << "EQUAL copies src (our choice)";
  // Narrow types, signed compare and wrap-around.
  EXPECT_EQ((std::vector<int8_t>{-128, 127, -3, 100}),
            reduce<int8_t>({127, 127, -1, 50}, {1, 0, -2, 50}, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT8));
  EXPECT_EQ((std::vector<int8_t>{1, 127, -1, 50}),
            reduce<int8_t>({-127, 127, -1, 50}, {1, 0, -2, 50}, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT8));
  EXPECT_EQ((std::vector<int16_t>{-32768, -5, 7}),
            reduce<int16_t>({-32768, 10, 7}, {32767, -5, 9}, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT16));
}

uint16_t toHalf(float f) {  // exact for the small integers and halves used below
  if (f == 0) return 0;
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exp << 10) | ((x >> 13) & 0x3ff));
}
float fromHalf(uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const float mant = static_cast<float>(h & 0x3ff);
  float v = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(mant + 1024, exp - 25);
  return (h & 0x8000) ? -v : v;
}
uint16_t toBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return static_cast<uint16_t>(x >> 16);  // exact for the values used below
}
float fromBf16(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

TEST_P(BuiltinTasksTest, ReduceFloatsWithinRounding) {
  const size_t n = 100000;
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-1000, 1000);
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen);
  const auto got = reduce(a, b, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT);
  for (size_t i = 0; i < n; ++i) {
    const double ref = static_cast<double>(a[i]) + b[i];
    ASSERT_NEAR(ref, got[i], 1e-6 * std::fabs(ref) + 1e-4) << i;
  }
  const auto mx = reduce(a, b, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(std::max(a[i], b[i]), mx[i]) << i;

  // float16 and bfloat16: computed in float, rounded to nearest.
  std::vector<uint16_t> ha, hb, ba, bb;
  const std::vector<float> xs = {1.5f, -2.0f, 1024.0f, 0.25f, 3.0f}, ys = {2.25f, 0.5f, 1.0f, -8.0f, 3.0f};
  for (size_t i = 0; i < xs.size(); ++i) {
    ha.push_back(toHalf(xs[i])), hb.push_back(toHalf(ys[i]));
    ba.push_back(toBf16(xs[i])), bb.push_back(toBf16(ys[i]));
  }
  const auto hs = reduce(ha, hb, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16);
  const auto bs = reduce(ba, bb, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_BF16);
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_FLOAT_EQ(xs[i] + ys[i], fromHalf(hs[i])) << i;  // all exactly representable
    EXPECT_FLOAT_EQ(std::min(xs[i], ys[i]), fromBf16(bs[i])) << i;
  }
}

TEST_P(BuiltinTasksTest, ReduceIsStreamOrdered) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  const std::vector<int32_t> ones(1024, 1), base(1024, 5);
  void* d = upload(base);
  void* src = deviceAlloc(4096);
  void* onesDev = upload(ones);
  ASSERT_ACL_OK(aclrtMemset(src, 4096, 0, 4096));  // a reduce before the copy would add 0
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtMemcpyAsync(src, 4096, onesDev, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtReduceAsync(d, src, 4096, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s, nullptr));
  ASSERT_ACL_OK(aclrtReduceAsync(d, src, 4096, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s, nullptr));
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status) << "the reduces wait behind the gate";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(std::vector<int32_t>(1024, 7), download<int32_t>(d, 1024)) << "copy, then two reduces, in order";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ------------------------------------------------------------------ aclrtRandomNumAsync

aclrtRandomParaInfo imm(uint64_t value, uint8_t size) {
  aclrtRandomParaInfo p{};
  p.isAddr = 0;
  p.size = size;
  for (int i = 0; i < 8; ++i) p.valueOrAddr[i] = static_cast<uint8_t>(value >> (8 * i));
  return p;
}
aclrtRandomParaInfo immF(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return imm(bits, 4);
}
aclrtRandomParaInfo at(const void* devAddr, uint8_t size) {
  aclrtRandomParaInfo p = imm(reinterpret_cast<uintptr_t>(devAddr), size);
  p.isAddr = 1;
  return p;
}

class RandomTest : public BuiltinTasksTest {
 protected:
  void SetUp() override {
    BuiltinTasksTest::SetUp();
    counter_ = deviceAlloc(16);
    resetCounter();
  }
  void resetCounter(uint64_t lo = 0, uint64_t hi = 0) {
    const uint64_t c[2] = {lo, hi};
    ASSERT_ACL_OK(aclrtMemcpy(counter_, 16, c, 16, ACL_MEMCPY_HOST_TO_DEVICE));
  }
  std::vector<uint64_t> counter() { return download<uint64_t>(counter_, 2); }
  aclrtRandomNumTaskInfo task(aclDataType type, aclrtRandomNumFuncType func, uint64_t seed, uint64_t n, void* out) {
    aclrtRandomNumTaskInfo t{};
    t.dataType = type;
    t.randomNumFuncParaInfo.funcType = func;
    t.randomResultAddr = out;
    t.randomCounterAddr = counter_;
    t.randomSeed = imm(seed, 8);
    t.randomNum = imm(n, 8);
    return t;
  }
  aclrtRandomNumTaskInfo uniformF(uint64_t seed, uint64_t n, void* out, float lo, float hi) {
    auto t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, seed, n, out);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = immF(lo);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = immF(hi);
    return t;
  }
  // Runs one task on the default stream and returns its result bytes.
  std::vector<uint8_t> run(const aclrtRandomNumTaskInfo& t, size_t bytes) {
    EXPECT_ACL_OK(aclrtRandomNumAsync(&t, nullptr, nullptr));
    EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
    return readDevice(t.randomResultAddr, bytes);
  }
  template <class T>
  std::vector<T> as(const std::vector<uint8_t>& bytes) {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }

  void* counter_ = nullptr;
};

TEST_P(RandomTest, Errors) {
  void* out = deviceAlloc(1024);
  int reserve = 0;
  const auto good = uniformF(1, 16, out, 0, 1);
  EXPECT_ACL_OK(aclrtRandomNumAsync(&good, nullptr, nullptr));
  // Done before the task below uses the same buffers on another stream.
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(nullptr, nullptr, nullptr));
  for (aclDataType t : {ACL_INT8, ACL_DOUBLE, ACL_INT16, ACL_UINT8, ACL_BOOL}) {
    auto bad = good;
    bad.dataType = t;
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << t;
  }
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&good, nullptr, &reserve)) << "reserve: 107000";
  auto bad = good;
  bad.randomNumFuncParaInfo.funcType = static_cast<aclrtRandomNumFuncType>(4);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "funcType > 3";
  for (auto f : {ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
                 ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS}) {
    auto t = task(ACL_INT32, f, 1, 16, out);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = imm(0, 4);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = imm(1, 4);
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, nullptr, nullptr)) << "integer output for " << f;
  }
  bad = good;
  bad.randomResultAddr = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr));
  bad = good;
  bad.randomCounterAddr = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr));
  bad = good;
  bad.randomSeed.isAddr = 2;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "isAddr 2";
  bad = good;
  bad.randomNum.size = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "size 0";
  bad = good;
  bad.randomSeed.size = 9;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "seed size 9";
  bad = good;
  bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 5;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "wider than a float";
  bad = good;
  bad.randomSeed.rsv[3] = 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "parameter rsv";
  bad = good;
  bad.rsv[0] = 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "task rsv";
  bad = good;
  bad.randomSeed = at(nullptr, 8);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr)) << "isAddr 1 with NULL";
  // Unusable distribution values.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&(bad = uniformF(1, 16, out, 2, 2)), nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&(bad = uniformF(1, 16, out, 3, 2)), nullptr, nullptr));
  auto drop = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, 1, 16, out);
  drop.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = immF(1.5f);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&drop, nullptr, nullptr)) << "ratio outside [0, 1]";
  auto normal = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, 1, 16, out);
  normal.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = immF(0);
  normal.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = immF(-1);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&normal, nullptr, nullptr)) << "negative stddev";
  // Memory that is not the device's.
  int host[4] = {};
  bad = good;
  bad.randomResultAddr = host;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr));
  bad = good;
  bad.randomCounterAddr = host;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr));
  bad = good;
  bad.randomParaAddr = host;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, nullptr, nullptr));
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRandomNumAsync(&good, dead, nullptr));
  // More values than the result buffer holds: the task faults instead of writing past it.
  aclrtStream st = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&st));
  bad = uniformF(1, 100000, out, 0, 1);
  ASSERT_ACL_OK(aclrtRandomNumAsync(&bad, st, nullptr));
  EXPECT_NE(ACL_SUCCESS, aclrtSynchronizeStream(st));
  EXPECT_ACL_OK(aclrtDestroyStream(st));
}

// Philox4x32-10 known answers (Random123's kat_vectors): counter 0, key 0 ->
// 6627e8d5 e169c58d bc57ac4c 9b00dbd8. UINT64 uniform over [0, 2^64 - 1) maps a 64-bit word w (low
// word first) to floor(w * (2^64 - 1) / 2^64) = w - 1.
TEST_P(RandomTest, PhiloxKnownAnswer) {
  void* out = deviceAlloc(16);
  auto t = task(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 2, out);
  t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = imm(0, 8);
  t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = imm(UINT64_MAX, 8);
  const auto v = as<uint64_t>(run(t, 16));
  EXPECT_EQ(0xe169c58d6627e8d5ull - 1, v[0]);
  EXPECT_EQ(0x9b00dbd8bc57ac4cull - 1, v[1]);
  EXPECT_EQ((std::vector<uint64_t>{1, 0}), counter()) << "one 128-bit block consumed";
}

TEST_P(RandomTest, SameSeedAndCounterGiveTheSameBytes) {
  const size_t n = 4096;
  void* out = deviceAlloc(n * 4);
  const auto a = run(uniformF(42, n, out, 0, 1), n * 4);
  EXPECT_EQ((std::vector<uint64_t>{n / 4, 0}), counter()) << "one word per float, four per block";
  const auto next = run(uniformF(42, n, out, 0, 1), n * 4);
  EXPECT_NE(a, next) << "the advanced counter gives new numbers";
  resetCounter();
  EXPECT_EQ(a, run(uniformF(42, n, out, 0, 1), n * 4)) << "same seed, same counter";
  resetCounter();
  EXPECT_NE(a, run(uniformF(43, n, out, 0, 1), n * 4)) << "another seed";
  // The seed and the count read from device memory (isAddr 1) give the same.
  resetCounter();
  const uint64_t seed = 42, count = n;
  void* seedDev = upload(std::vector<uint64_t>{seed});
  void* countDev = upload(std::vector<uint64_t>{count});
  auto t = uniformF(0, 0, out, 0, 1);
  t.randomSeed = at(seedDev, 8);
  t.randomNum = at(countDev, 8);
  EXPECT_EQ(a, run(t, n * 4));
  // A counter near 2^64 carries into the high word.
  resetCounter(UINT64_MAX, 0);
  (void)run(uniformF(1, 8, out, 0, 1), 32);
  EXPECT_EQ((std::vector<uint64_t>{1, 1}), counter());
}

struct Moments {
  double mean = 0, var = 0, lo = 0, hi = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  m.lo = *std::min_element(v.begin(), v.end());
  m.hi = *std::max_element(v.begin(), v.end());
  for (double x : v) m.mean += x;
  m.mean /= v.size();
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= v.size();
  return m;
}

TEST_P(RandomTest, UniformMoments) {
  const size_t n = 100000;
  void* out = deviceAlloc(n * 8);
  auto f = as<float>(run(uniformF(7, n, out, 2, 5), n * 4));
  auto m = moments(std::vector<double>(f.begin(), f.end()));
  EXPECT_GE(m.lo, 2.0);
  EXPECT_LT(m.hi, 5.0);
  EXPECT_NEAR(3.5, m.mean, 0.02);
  EXPECT_NEAR(0.75, m.var, 0.02);  // (5 - 2)^2 / 12

  auto ti = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 7, n, out);
  ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = imm(static_cast<uint32_t>(-10), 4);
  ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = imm(10, 4);
  auto iv = as<int32_t>(run(ti, n * 4));
  m = moments(std::vector<double>(iv.begin(), iv.end()));
  EXPECT_EQ(-10, m.lo);
  EXPECT_EQ(9, m.hi) << "max is exclusive";
  EXPECT_NEAR(-0.5, m.mean, 0.1);

  auto tu = task(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 7, n, out);
  tu.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = imm(1000, 2);  // narrower than the element: zero-extended
  tu.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = imm(2000, 8);
  auto uv = as<uint64_t>(run(tu, n * 8));
  EXPECT_EQ(1000u, *std::min_element(uv.begin(), uv.end()));
  EXPECT_EQ(1999u, *std::max_element(uv.begin(), uv.end()));
}

TEST_P(RandomTest, NormalAndTruncatedNormalMoments) {
  const size_t n = 100000;
  void* out = deviceAlloc(n * 4);
  auto t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, 3, n, out);
  t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = immF(1.5f);
  t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = immF(2.0f);
  auto f = as<float>(run(t, n * 4));
  auto m = moments(std::vector<double>(f.begin(), f.end()));
  EXPECT_NEAR(1.5, m.mean, 0.03);
  EXPECT_NEAR(4.0, m.var, 0.1);
  EXPECT_LT(m.lo, 1.5 - 2 * 2.0) << "an untruncated normal goes past 2 sigma";

  t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
  f = as<float>(run(t, n * 4));
  m = moments(std::vector<double>(f.begin(), f.end()));
  EXPECT_GE(m.lo, 1.5 - 4.0 - 1e-5);
  EXPECT_LE(m.hi, 1.5 + 4.0 + 1e-5);
  EXPECT_NEAR(1.5, m.mean, 0.03);
  EXPECT_NEAR(4.0 * 0.7737, m.var, 0.1);  // variance of a normal truncated at +-2 sigma

  // float16 output: mean 0, stddev 1, parameters as float16 values.
  auto h = task(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, 3, n, out);
  h.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = imm(toHalf(0.0f), 2);
  h.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = imm(toHalf(1.0f), 2);
  const auto hv = as<uint16_t>(run(h, n * 2));
  std::vector<double> hd;
  for (uint16_t x : hv) hd.push_back(fromHalf(x));
  m = moments(hd);
  EXPECT_NEAR(0.0, m.mean, 0.02);
  EXPECT_NEAR(1.0, m.var, 0.03);
}

TEST_P(RandomTest, DropoutBitmaskKeepsOneMinusRatio) {
  const size_t n = 80000;  // bits
  void* out = deviceAlloc(n / 8 + 8);
  ASSERT_ACL_OK(aclrtMemset(out, n / 8 + 8, 0xFF, n / 8 + 8));
  auto t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, 5, n + 3, out);
  t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = immF(0.25f);
  const auto bytes = run(t, n / 8 + 8);
  size_t ones = 0;
  for (size_t i = 0; i < n / 8; ++i) ones += __builtin_popcount(bytes[i]);
  EXPECT_NEAR(0.75, static_cast<double>(ones) / n, 0.01);
  EXPECT_EQ(0, bytes[n / 8] & ~0x07) << "bits past randomNum are zero";
  EXPECT_EQ(0xFF, bytes[n / 8 + 1]) << "bytes past the mask are untouched";
  // Ratio 0 keeps everything, ratio 1 drops everything.
  t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = immF(0.0f);
  t.randomNum = imm(64, 8);
  EXPECT_EQ(std::vector<uint8_t>(8, 0xFF), run(t, 8));
  t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = immF(1.0f);
  EXPECT_EQ(std::vector<uint8_t>(8, 0), run(t, 8));
}

// ------------------------------------------------------------------ aclrtTaskUpdateAsync

TEST_P(BuiltinTasksTest, TaskUpdateChecksItsArguments) {
  aclrtStream s = nullptr, e = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&e));
  void* src = deviceAlloc(sizeof(aclrtRandomNumTaskInfo));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtTaskUpdateAsync(s, 0, nullptr, e));
  aclrtTaskUpdateInfo info{};
  info.id = static_cast<aclrtUpdateTaskAttrId>(3);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, e)) << "id not 1 or 2";
  info.id = static_cast<aclrtUpdateTaskAttrId>(0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, e));

  info.id = ACL_RT_UPDATE_RANDOM_TASK;
  info.val.randomTaskAttr.srcAddr = src;
  info.val.randomTaskAttr.size = sizeof(aclrtRandomNumTaskInfo);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(nullptr, 0, &info, e)) << "taskStream NULL";
  info.val.randomTaskAttr.srcAddr = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, e)) << "srcAddr NULL";
  info.val.randomTaskAttr.srcAddr = src;
  info.val.randomTaskAttr.size = sizeof(aclrtRandomNumTaskInfo) - 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, e)) << "size";
  info.val.randomTaskAttr.size = sizeof(aclrtRandomNumTaskInfo);
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(dead, 0, &info, e));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(s, 0, &info, dead));
  uint32_t taskId = 0;
  ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&taskId));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(s, taskId, &info, e))
      << "an ordinary stream holds no updatable task (task_update_test.cpp updates model tasks)";

  info = aclrtTaskUpdateInfo{};
  info.id = ACL_RT_UPDATE_AIC_AIV_TASK;
  int bin = 0;
  info.val.aicAivTaskAttr.binHandle = &bin;
  info.val.aicAivTaskAttr.funcEntryAddr = src;
  info.val.aicAivTaskAttr.blockDimAddr = src;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(nullptr, 0, &info, e)) << "taskStream NULL";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, nullptr)) << "execStream NULL";
  for (void** field : {&info.val.aicAivTaskAttr.binHandle, &info.val.aicAivTaskAttr.funcEntryAddr,
                       &info.val.aicAivTaskAttr.blockDimAddr}) {
    void* keep = *field;
    *field = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, e));
    *field = keep;
  }
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(dead, 0, &info, e));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(s, 0, &info, e)) << "taskStream is not model-bound";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(e));
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(BuiltinTasksTest);
ARUN_CONFORMANCE_INSTANTIATE(RandomTest);

}  // namespace conformance
