// Single operators through aclopExecuteV2: each kernel against a float64 reference on random inputs
// (tolerances stated per test), sizes that split across several blocks, and the error paths
// (unknown op, wrong dtype, shape mismatch, wrong output description, bad attributes, NULL args).
#include <functional>
#include <map>

#include <thread>

#include "acl/acl_op_compiler.h"
#include "op_support.hpp"

namespace conformance {
namespace {

// NumPy broadcasting of `a` against `out`: the index into `a` for output element i.
size_t bcastIndex(const Dims& a, const Dims& out, size_t i) {
  size_t idx = 0, mul = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const size_t o = i % out[d];
    i /= out[d];
    const size_t ad = d + a.size() - out.size();
    if (d + a.size() >= out.size()) {
      const size_t dim = a[ad];
      idx += (dim == 1 ? 0 : o) * mul;
      mul *= dim;
    }
  }
  return idx;
}

std::vector<double> binaryRef(const Dims& da, const std::vector<double>& a, const Dims& db,
                              const std::vector<double>& b, const Dims& out,
                              const std::function<double(double, double)>& f) {
  std::vector<double> r(count(out));
  for (size_t i = 0; i < r.size(); ++i) r[i] = f(a[bcastIndex(da, out, i)], b[bcastIndex(db, out, i)]);
  return r;
}

// Elementwise float32 results are within 2 ulp of the float64 result on float32-rounded inputs.
constexpr double kElemRtol = 2.5e-7;

TEST_P(OpTest, BinaryOpsBroadcastLikeNumPy) {
  const std::map<std::string, std::function<double(double, double)>> ops = {
      {"Add", [](double x, double y) { return x + y; }},
      {"Sub", [](double x, double y) { return x - y; }},
      {"Mul", [](double x, double y) { return x * y; }},
      {"Div", [](double x, double y) { return x / y; }},
  };
  // Shapes: equal, trailing broadcast, both sides broadcast, scalar, and one large enough for many blocks.
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{3, 4}, {3, 4}}, {{2, 3, 4}, {4}}, {{2, 1, 5}, {3, 1}}, {{7}, {}}, {{64, 1, 513}, {1, 130, 513}}};
  uint32_t seed = 1;
  for (const auto& [name, f] : ops) {
    for (const auto& [da, db] : cases) {
      Dims out;
      for (size_t r = std::max(da.size(), db.size()), d = 0; d < r; ++d) {
        const int64_t x = d + da.size() >= r ? da[d + da.size() - r] : 1;
        const int64_t y = d + db.size() >= r ? db[d + db.size() - r] : 1;
        out.push_back(std::max(x, y));
      }
      auto a = rounded32(randoms(count(da), seed++, -2, 2));
      auto b = rounded32(randoms(count(db), seed++, 0.5, 3));  // away from 0 for Div
      auto got = runOk(name, {f32(da, a), f32(db, b)}, like(ACL_FLOAT, out));
      EXPECT_TRUE(near(got, binaryRef(da, a, db, b, out, f), 1e-30, kElemRtol)) << name << " " << da.size();
    }
  }
}

TEST_P(OpTest, BinaryOpsInFloat16AndIntegers) {
  const Dims da{4, 33}, db{33};
  auto a = randoms(count(da), 11, -4, 4), b = randoms(count(db), 12, 0.5, 2);
  // float16 inputs are exact in float16; the result is rounded once to float16 (rel. error 2^-11).
  HostTensor ha = f16(da, a), hb = f16(db, b);
  auto got = runOk("Mul", {ha, hb}, like(ACL_FLOAT16, da));
  EXPECT_TRUE(near(got, binaryRef(da, ha.values(), db, hb.values(), da, std::multiplies<double>()), 1e-7, 4.9e-4));

  std::vector<int64_t> ia, ib;
  for (int i = 0; i < count(da); ++i) ia.push_back(i * 7919 - 50000);
  for (int i = 0; i < count(db); ++i) ib.push_back(i % 2 == 0 ? i + 1 : -(i + 1));
  auto sum = runOk("Add", {i64(da, ia), i64(db, ib)}, like(ACL_INT64, da));
  auto quo = runOk("Div", {i64(da, ia), i64(db, ib)}, like(ACL_INT64, da));
  auto q32 = runOk("Div", {i32(da, ia), i32(db, ib)}, like(ACL_INT32, da));
  for (size_t i = 0; i < ia.size(); ++i) {
    ASSERT_EQ(double(ia[i] + ib[i % 33]), sum[i]);
    ASSERT_EQ(double(ia[i] / ib[i % 33]), quo[i]) << "integer Div truncates toward zero";
    ASSERT_EQ(double(ia[i] / ib[i % 33]), q32[i]);
  }
}

TEST_P(OpTest, IntegerDivisionByZeroFaultsTheLaunch) {
  std::vector<HostTensor> outs{like(ACL_INT32, {3})};
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, run("Div", {i32({3}, {1, 2, 3}), i32({3}, {1, 0, 1})}, outs));
}

TEST_P(OpTest, PowBroadcasts) {
  const Dims da{5, 6}, db{6};
  auto a = rounded32(randoms(30, 21, 0.1, 3)), b = rounded32(randoms(6, 22, -2, 2));
  auto got = runOk("Pow", {f32(da, a), f32(db, b)}, like(ACL_FLOAT, da));
  EXPECT_TRUE(near(got, binaryRef(da, a, db, b, da, [](double x, double y) { return std::pow(x, y); }), 1e-30, 1e-6));
}

// Pow-12+: the exponent may have another type (T1). The result has the base's type: NumPy's power
// in double, cast back (an integer base truncates toward zero).
TEST_P(OpTest, PowTakesAnExponentOfAnotherType) {
  auto f = runOk("Pow", {f32({4}, {2, 2, -3, 0.5}), i64({4}, {3, -1, 2, 2})}, like(ACL_FLOAT, {4}));
  EXPECT_EQ(f, (std::vector<double>{8, 0.5, 9, 0.25}));
  auto i = runOk("Pow", {i32({3}, {2, 9, -8}), f32({3}, {0.5, 0.5, 1})}, like(ACL_INT32, {3}));
  EXPECT_EQ(i, (std::vector<double>{1, 3, -8})) << "2^0.5 = 1.41 truncates to 1";
  auto h = runOk("Pow", {f16({2, 2}, {1.5, 2, 3, 4}), f32({2}, {2, 0.5})}, like(ACL_FLOAT16, {2, 2}));
  EXPECT_EQ(h, (std::vector<double>{2.25, 1.4140625 /* sqrt(2) in float16 */, 9, 2}));
  std::vector<HostTensor> outs{like(ACL_FLOAT, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             run("Pow", {f32({2}, {1, 2}), HostTensor{ACL_INT8, {2}, {1, 2}}}, outs));  // no int8 exponent
}

TEST_P(OpTest, ActivationsMatchTheirDefinitions) {
  const double s2 = std::sqrt(2.0), c = std::sqrt(2.0 / M_PI);
  const std::map<std::string, std::function<double(double)>> ops = {
      {"Relu", [](double x) { return x > 0 ? x : 0; }},
      {"Gelu", [=](double x) { return 0.5 * x * (1 + std::erf(x / s2)); }},
      {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"Tanh", [](double x) { return std::tanh(x); }},
      {"Erf", [](double x) { return std::erf(x); }},
      {"Exp", [](double x) { return std::exp(x); }},
      {"Neg", [](double x) { return -x; }},
      {"Abs", [](double x) { return std::fabs(x); }},
  };
  const Dims d{3, 50001};  // several blocks
  auto x = rounded32(randoms(count(d), 31, -6, 6));
  for (const auto& [name, f] : ops) {
    std::vector<double> ref;
    for (double v : x) ref.push_back(f(v));
    // libm's float functions are within a few ulp; 1e-6 absolute covers the results near 0.
    EXPECT_TRUE(near(runOk(name, {f32(d, x)}, like(ACL_FLOAT, d)), ref, 1e-6, 2e-6)) << name;
  }
  auto pos = rounded32(randoms(1000, 32, 0.01, 100));
  std::vector<double> sq, lg;
  for (double v : pos) sq.push_back(std::sqrt(v)), lg.push_back(std::log(v));
  EXPECT_TRUE(near(runOk("Sqrt", {f32({1000}, pos)}, like(ACL_FLOAT, {1000})), sq, 0, 2e-7));
  EXPECT_TRUE(near(runOk("Log", {f32({1000}, pos)}, like(ACL_FLOAT, {1000})), lg, 1e-6, 2e-6));

  Attr tanh;
  tanh.s("approximate", "tanh");
  std::vector<double> gt;
  for (double v : x) gt.push_back(0.5 * v * (1 + std::tanh(c * (v + 0.044715 * v * v * v))));
  EXPECT_TRUE(near(runOk("Gelu", {f32(d, x)}, like(ACL_FLOAT, d), tanh), gt, 1e-6, 2e-6));
  Attr leaky;
  leaky.f("alpha", 0.2f);
  std::vector<double> lr;
  for (double v : x) lr.push_back(v >= 0 ? v : double(0.2f) * v);
  EXPECT_TRUE(near(runOk("LeakyRelu", {f32(d, x)}, like(ACL_FLOAT, d), leaky), lr, 1e-7, 1e-6));

  // float16: computed in float, rounded once to float16.
  HostTensor h = f16({257}, randoms(257, 33, -5, 5));
  std::vector<double> sig;
  for (double v : h.values()) sig.push_back(1 / (1 + std::exp(-v)));
  EXPECT_TRUE(near(runOk("Sigmoid", {h}, like(ACL_FLOAT16, {257})), sig, 1e-4, 4.9e-4));
}

// C = alpha * op(A) * op(B) + beta * C, in float64.
std::vector<double> gemmRef(const std::vector<double>& a, const std::vector<double>& b, int64_t m, int64_t n, int64_t k,
                            bool ta, bool tb) {
  std::vector<double> r(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      r[i * n + j] = s;
    }
  return r;
}

// float32 dot products of length K with inputs in [-1, 1]: error below K * 2^-24 * (sum |a||b|) <= 6e-8 K.
double matmulTol(int64_t k) {
  return 1e-7 * double(k);
}

TEST_P(OpTest, MatMulBatchedWithBroadcastBatches) {
  const int64_t m = 37, k = 53, n = 29;
  auto a = rounded32(randoms(2 * 1 * m * k, 41)), b = rounded32(randoms(3 * k * n, 42));
  auto got = runOk("MatMul", {f32({2, 1, m, k}, a), f32({3, k, n}, b)}, like(ACL_FLOAT, {2, 3, m, n}));
  ASSERT_EQ(size_t(2 * 3 * m * n), got.size());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      std::vector<double> as(a.begin() + i * m * k, a.begin() + (i + 1) * m * k);
      std::vector<double> bs(b.begin() + j * k * n, b.begin() + (j + 1) * k * n);
      std::vector<double> gs(got.begin() + (i * 3 + j) * m * n, got.begin() + (i * 3 + j + 1) * m * n);
      EXPECT_TRUE(near(gs, gemmRef(as, bs, m, n, k, false, false), matmulTol(k), 0)) << i << "," << j;
    }
}

TEST_P(OpTest, MatMulLargeSplitsAcrossBlocks) {
  const int64_t m = 300, k = 256, n = 200;
  auto a = rounded32(randoms(m * k, 43)), b = rounded32(randoms(k * n, 44));
  auto got = runOk("MatMul", {f32({m, k}, a), f32({k, n}, b)}, like(ACL_FLOAT, {m, n}));
  EXPECT_TRUE(near(got, gemmRef(a, b, m, n, k, false, false), matmulTol(k), 0));
  // A single row: the work splits over columns instead.
  auto row = rounded32(randoms(k, 45));
  auto wide = rounded32(randoms(k * 4096, 46));
  auto gr = runOk("MatMul", {f32({1, k}, row), f32({k, 4096}, wide)}, like(ACL_FLOAT, {1, 4096}));
  EXPECT_TRUE(near(gr, gemmRef(row, wide, 1, 4096, k, false, false), matmulTol(k), 0));
}

TEST_P(OpTest, MatMulPromotesOneDimensionalOperands) {
  auto v = rounded32(randoms(6, 47)), mtx = rounded32(randoms(6 * 4, 48));
  auto vm = runOk("MatMul", {f32({6}, v), f32({6, 4}, mtx)}, like(ACL_FLOAT, {4}));
  EXPECT_TRUE(near(vm, gemmRef(v, mtx, 1, 4, 6, false, false), matmulTol(6), 0));
  auto mt = rounded32(randoms(4 * 6, 49));
  auto mv = runOk("MatMul", {f32({4, 6}, mt), f32({6}, v)}, like(ACL_FLOAT, {4}));
  EXPECT_TRUE(near(mv, gemmRef(mt, v, 4, 1, 6, false, false), matmulTol(6), 0));
  auto dot = runOk("MatMul", {f32({6}, v), f32({6}, v)}, like(ACL_FLOAT, {}));
  EXPECT_TRUE(near(dot, gemmRef(v, v, 1, 1, 6, false, false), matmulTol(6), 0));
}

TEST_P(OpTest, GemmSingleRowUsesEveryTransposeCombination) {
  // M = 1 (batch-1 models) runs as a matrix-vector product: the same results for every layout.
  const int64_t m = 1, k = 300, n = 90;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      auto a = rounded32(randoms(m * k, 60 + ta)), b = rounded32(randoms(k * n, 62 + tb));
      auto c = rounded32(randoms(n, 64));
      Attr attr;
      attr.i("transA", ta).i("transB", tb).f("alpha", 0.5f).f("beta", 2.0f);
      Dims da = ta ? Dims{k, m} : Dims{m, k}, db = tb ? Dims{n, k} : Dims{k, n};
      auto got = runOk("Gemm", {f32(da, a), f32(db, b), f32({n}, c)}, like(ACL_FLOAT, {m, n}), attr);
      auto ref = gemmRef(a, b, m, n, k, ta, tb);
      for (int64_t i = 0; i < m * n; ++i) ref[i] = 0.5 * ref[i] + 2.0 * c[i % n];
      EXPECT_TRUE(near(got, ref, matmulTol(k), 0)) << "transA " << ta << " transB " << tb;
    }
}

TEST_P(OpTest, GemmTransposesScalesAndAddsBroadcastC) {
  const int64_t m = 70, k = 90, n = 130;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      auto a = rounded32(randoms(m * k, 50 + ta)), b = rounded32(randoms(k * n, 52 + tb));
      auto c = rounded32(randoms(n, 54));
      Attr attr;
      attr.i("transA", ta).i("transB", tb).f("alpha", 0.5f).f("beta", 2.0f);
      Dims da = ta ? Dims{k, m} : Dims{m, k}, db = tb ? Dims{n, k} : Dims{k, n};
      auto got = runOk("Gemm", {f32(da, a), f32(db, b), f32({n}, c)}, like(ACL_FLOAT, {m, n}), attr);
      auto ref = gemmRef(a, b, m, n, k, ta, tb);
      for (int64_t i = 0; i < m * n; ++i) ref[i] = 0.5 * ref[i] + 2.0 * c[i % n];
      EXPECT_TRUE(near(got, ref, matmulTol(k), 0)) << "transA " << ta << " transB " << tb;
    }
  // Without C, and C of shape [M, 1].
  auto a = rounded32(randoms(m * k, 56)), b = rounded32(randoms(k * n, 57)), c = rounded32(randoms(m, 58));
  EXPECT_TRUE(near(runOk("Gemm", {f32({m, k}, a), f32({k, n}, b)}, like(ACL_FLOAT, {m, n})),
                   gemmRef(a, b, m, n, k, false, false), matmulTol(k), 0));
  auto ref = gemmRef(a, b, m, n, k, false, false);
  for (int64_t i = 0; i < m * n; ++i) ref[i] += c[i / n];
  EXPECT_TRUE(near(runOk("Gemm", {f32({m, k}, a), f32({k, n}, b), f32({m, 1}, c)}, like(ACL_FLOAT, {m, n})), ref,
                   matmulTol(k), 0));
}

// ---- error paths ----

std::string recentMessage() {
  const char* m = aclGetRecentErrMsg();
  return m == nullptr ? "" : m;
}

TEST_P(OpTest, UnknownOpTypeIsOpNotFound) {
  std::vector<HostTensor> outs{like(ACL_FLOAT, {2})};
  EXPECT_ACL(ACL_ERROR_OP_NOT_FOUND, run("NoSuchOp", {f32({2}, {1, 2})}, outs));
  EXPECT_NE(std::string::npos, recentMessage().find("NoSuchOp")) << recentMessage();
}

TEST_P(OpTest, WrongDtypesAreRejected) {
  std::vector<HostTensor> outs{like(ACL_FLOAT16, {2})};
  // Mixed input dtypes: an input mismatch.
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Add", {f32({2}, {1, 2}), f16({2}, {1, 2})}, outs));
  EXPECT_NE(std::string::npos, recentMessage().find("float16")) << recentMessage();
  // A dtype the kernel lacks.
  std::vector<HostTensor> o16{like(ACL_FLOAT16, {2, 2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             run("MatMul", {f16({2, 2}, {1, 2, 3, 4}), f16({2, 2}, {1, 2, 3, 4})}, o16));
  std::vector<HostTensor> oi{like(ACL_INT64, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Relu", {i64({2}, {1, -1})}, oi));
  // The output description's dtype differs from what the op produces.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Relu", {f32({2}, {1, -1})}, outs));
}

TEST_P(OpTest, ShapeMismatchesAreRejected) {
  std::vector<HostTensor> outs{like(ACL_FLOAT, {2, 3})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Add", {f32({2, 3}, randoms(6, 1)), f32({4}, randoms(4, 2))}, outs));
  EXPECT_NE(std::string::npos, recentMessage().find("[2,3]")) << recentMessage();
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             run("MatMul", {f32({2, 3}, randoms(6, 1)), f32({2, 3}, randoms(6, 2))}, outs));
  // The output description has the wrong shape.
  std::vector<HostTensor> wrong{like(ACL_FLOAT, {3, 2})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Add", {f32({2, 3}, randoms(6, 1)), f32({3}, randoms(3, 2))}, wrong));
  // Input count.
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Add", {f32({2, 3}, randoms(6, 1))}, outs));
  std::vector<HostTensor> two{like(ACL_FLOAT, {2, 3}), like(ACL_FLOAT, {2, 3})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Relu", {f32({2, 3}, randoms(6, 1))}, two));
}

TEST_P(OpTest, BadAttributesAreRejected) {
  std::vector<HostTensor> outs{like(ACL_FLOAT, {2, 2})};
  const std::vector<HostTensor> in{f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {1, 2, 3, 4})};
  Attr badValue;
  badValue.i("transA", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Gemm", in, outs, badValue));
  Attr badType;
  badType.s("alpha", "one");
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Gemm", in, outs, badType));
  EXPECT_NE(std::string::npos, recentMessage().find("alpha")) << recentMessage();
  Attr unknown;
  unknown.i("transpose_a", 1);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Gemm", in, outs, unknown));
  EXPECT_NE(std::string::npos, recentMessage().find("transpose_a")) << recentMessage();
  Attr approx;
  approx.s("approximate", "fast");
  std::vector<HostTensor> o1{like(ACL_FLOAT, {2})};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Gelu", {f32({2}, {1, 2})}, o1, approx));
}

TEST_P(OpTest, NullArgumentsAndShortBuffersAreInvalid) {
  const int64_t dims[] = {4};
  aclTensorDesc* d = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 16, ACL_MEM_MALLOC_HUGE_FIRST));
  aclDataBuffer* b = aclCreateDataBuffer(dev, 16);
  aclDataBuffer* shortBuf = aclCreateDataBuffer(dev, 8);
  aclTensorDesc* descs[] = {d};
  aclDataBuffer* bufs[] = {b};
  aclTensorDesc* nullDesc[] = {nullptr};
  aclDataBuffer* nullBuf[] = {nullptr};
  aclDataBuffer* shortBufs[] = {shortBuf};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2(nullptr, 1, descs, bufs, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2("Relu", 1, nullptr, bufs, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2("Relu", 1, descs, nullptr, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2("Relu", 1, descs, bufs, 1, nullptr, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2("Relu", 1, nullDesc, bufs, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2("Relu", 1, descs, nullBuf, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopExecuteV2("Relu", -1, descs, bufs, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             aclopExecuteV2("Relu", 1, descs, shortBufs, 1, descs, bufs, nullptr, nullptr));
  EXPECT_NE(std::string::npos, recentMessage().find("8")) << recentMessage();
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             aclopExecuteV2("Relu", 1, descs, bufs, 1, descs, shortBufs, nullptr, nullptr));
  // The same buffer in and out: Relu runs in place.
  const float host[] = {-1, 2, -3, 4};
  ASSERT_ACL_OK(aclrtMemcpy(dev, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL_OK(aclopExecuteV2("Relu", 1, descs, bufs, 1, descs, bufs, nullptr, nullptr));
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
  float back[4];
  ASSERT_ACL_OK(aclrtMemcpy(back, 16, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(0.0f, back[0]);
  EXPECT_EQ(4.0f, back[3]);
  aclDestroyTensorDesc(d);
  EXPECT_ACL_OK(aclDestroyDataBuffer(b));
  EXPECT_ACL_OK(aclDestroyDataBuffer(shortBuf));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(OpTest, DynamicShapesAndForeignStreamsAreRefused) {
  const int64_t dyn[] = {-1};
  aclTensorDesc* d = aclCreateTensorDesc(ACL_FLOAT, 1, dyn, ACL_FORMAT_ND);
  aclDataBuffer* b = aclCreateDataBuffer(nullptr, 0);
  aclTensorDesc* descs[] = {d};
  aclDataBuffer* bufs[] = {b};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, aclopExecuteV2("Relu", 1, descs, bufs, 1, descs, bufs, nullptr, nullptr));
  // Element counts that overflow int64 are refused before any kernel sees them.
  const int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  aclTensorDesc* h = aclCreateTensorDesc(ACL_FLOAT, 2, huge, ACL_FORMAT_ND);
  aclTensorDesc* hd[] = {h};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, aclopExecuteV2("Relu", 1, hd, bufs, 1, hd, bufs, nullptr, nullptr));
  aclDestroyTensorDesc(h);
  int notAStream = 0;
  const int64_t one[] = {1};
  aclTensorDesc* s = aclCreateTensorDesc(ACL_FLOAT, 1, one, ACL_FORMAT_ND);
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 4, ACL_MEM_MALLOC_HUGE_FIRST));
  aclDataBuffer* sb = aclCreateDataBuffer(dev, 4);
  aclTensorDesc* sd[] = {s};
  aclDataBuffer* sbs[] = {sb};
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclopExecuteV2("Relu", 1, sd, sbs, 1, sd, sbs, nullptr, &notAStream));
  aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(s);
  EXPECT_ACL_OK(aclDestroyDataBuffer(b));
  EXPECT_ACL_OK(aclDestroyDataBuffer(sb));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(OpTest, CompileAndExecuteAndTheDeprecatedExecuteRunTheSameKernels) {
  const int64_t dims[] = {3};
  aclTensorDesc* d = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  void *x = nullptr, *y = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&x, 12, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&y, 12, ACL_MEM_MALLOC_HUGE_FIRST));
  const float host[] = {-1.5f, 0.0f, 2.5f};
  ASSERT_ACL_OK(aclrtMemcpy(x, 12, host, 12, ACL_MEMCPY_HOST_TO_DEVICE));
  aclDataBuffer *bx = aclCreateDataBuffer(x, 12), *by = aclCreateDataBuffer(y, 12);
  const aclTensorDesc* in[] = {d, d};
  const aclDataBuffer* inBuf[] = {bx, bx};
  const aclTensorDesc* out[] = {d};
  aclDataBuffer* outBuf[] = {by};
  EXPECT_ACL_OK(aclopCompileAndExecute("Add", 2, in, inBuf, 1, out, outBuf, nullptr, ACL_ENGINE_SYS, ACL_COMPILE_SYS,
                                       nullptr, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  float back[3];
  ASSERT_ACL_OK(aclrtMemcpy(back, 12, y, 12, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(-3.0f, back[0]);
  EXPECT_EQ(5.0f, back[2]);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclopCompileAndExecute("Add", 2, in, inBuf, 1, out, outBuf, nullptr,
                                                             ACL_ENGINE_SYS, ACL_COMPILE_SYS, "/tmp/ops", nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclopCompileAndExecute("Add", 2, in, inBuf, 1, out, outBuf, nullptr, static_cast<aclopEngineType>(7),
                                    ACL_COMPILE_SYS, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_OP_NOT_FOUND, aclopCompileAndExecute("Plus", 2, in, inBuf, 1, out, outBuf, nullptr,
                                                            ACL_ENGINE_AICORE, ACL_COMPILE_SYS, nullptr, nullptr));
  const aclTensorDesc* one[] = {d};
  const aclDataBuffer* oneBuf[] = {bx};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_ACL_OK(aclopExecute("Neg", 1, one, oneBuf, 1, out, outBuf, nullptr, nullptr));
#pragma GCC diagnostic pop
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtMemcpy(back, 12, y, 12, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(1.5f, back[0]);
  EXPECT_EQ(-2.5f, back[2]);
  aclDestroyTensorDesc(d);
  EXPECT_ACL_OK(aclDestroyDataBuffer(bx));
  EXPECT_ACL_OK(aclDestroyDataBuffer(by));
  EXPECT_ACL_OK(aclrtFree(x));
  EXPECT_ACL_OK(aclrtFree(y));
}

// Several threads, each with its own stream, run MatMuls at once: results stay per-thread correct
// (the kernels share nothing but OpenBLAS, which runs single-threaded inside each block).
TEST_P(OpTest, ConcurrentOpsOnSeparateStreams) {
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  const int64_t m = 64, k = 96, n = 80;
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) return;
      aclrtStream s = nullptr;
      if (aclrtCreateStream(&s) != ACL_SUCCESS) return;
      const int64_t da[] = {m, k}, db[] = {k, n}, dc[] = {m, n};
      std::vector<float> a(m * k), b(k * n), c(m * n);
      for (size_t i = 0; i < a.size(); ++i) a[i] = float((i * 7 + t) % 13) - 6;
      for (size_t i = 0; i < b.size(); ++i) b[i] = float((i * 5 + 3 * t) % 11) - 5;
      void *pa, *pb, *pc;
      aclrtMalloc(&pa, a.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtMalloc(&pb, b.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtMalloc(&pc, c.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtMemcpy(pa, a.size() * 4, a.data(), a.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
      aclrtMemcpy(pb, b.size() * 4, b.data(), b.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
      aclTensorDesc* in[] = {aclCreateTensorDesc(ACL_FLOAT, 2, da, ACL_FORMAT_ND),
                             aclCreateTensorDesc(ACL_FLOAT, 2, db, ACL_FORMAT_ND)};
      aclTensorDesc* out[] = {aclCreateTensorDesc(ACL_FLOAT, 2, dc, ACL_FORMAT_ND)};
      aclDataBuffer* ib[] = {aclCreateDataBuffer(pa, a.size() * 4), aclCreateDataBuffer(pb, b.size() * 4)};
      aclDataBuffer* ob[] = {aclCreateDataBuffer(pc, c.size() * 4)};
      bool good = true;
      for (int rep = 0; rep < 10 && good; ++rep) {
        good = aclopExecuteV2("MatMul", 2, in, ib, 1, out, ob, nullptr, s) == ACL_SUCCESS &&
               aclrtSynchronizeStream(s) == ACL_SUCCESS &&
               aclrtMemcpy(c.data(), c.size() * 4, pc, c.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS;
        // Small integers: the float32 products are exact.
        for (int64_t i = 0; good && i < m; ++i)
          for (int64_t j = 0; good && j < n; ++j) {
            float r = 0;
            for (int64_t p = 0; p < k; ++p) r += a[i * k + p] * b[p * n + j];
            good = r == c[i * n + j];
          }
      }
      ok[t] = good ? 1 : 0;
      for (auto* d : in) aclDestroyTensorDesc(d);
      aclDestroyTensorDesc(out[0]);
      for (auto* bf : ib) aclDestroyDataBuffer(bf);
      aclDestroyDataBuffer(ob[0]);
      aclrtFree(pa);
      aclrtFree(pb);
      aclrtFree(pc);
      aclrtDestroyStream(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(1, ok[t]) << "thread " << t;
}

ARUN_CONFORMANCE_INSTANTIATE(OpTest);

}  // namespace
}  // namespace conformance
