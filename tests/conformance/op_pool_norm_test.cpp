// MaxPool / AveragePool (1-D to 3-D), the global pools, BatchNormalization (opsets 7 to 15),
// InstanceNormalization, LRN and LpNormalization against float64 references computed here by
// direct loops, float32 and float16, and every error rule.
#include "op_window.hpp"

namespace conformance {
namespace {

struct PoolRef {
  std::vector<double> y;
  std::vector<double> indices;  // ONNX's flat index (storage_order 0 or 1)
};

// Pools x [N, C, in..] over the window of `s` (the spec's geometry); `colMajor` = storage_order 1.
PoolRef poolRef(const Spec& s, const Geo& g, const std::vector<double>& x, bool max, bool includePad,
                bool colMajor = false) {
  const int64_t planes = s.x[0] * s.x[1];
  PoolRef r;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oz = 0; oz < g.d[0].out; ++oz)
      for (int64_t oy = 0; oy < g.d[1].out; ++oy)
        for (int64_t ox = 0; ox < g.d[2].out; ++ox) {
          double best = -INFINITY, sum = 0;
          int64_t at = -1, valid = 0, covered = 0;
          for (int64_t kz = 0; kz < g.d[0].k; ++kz)
            for (int64_t ky = 0; ky < g.d[1].k; ++ky)
              for (int64_t kx = 0; kx < g.d[2].k; ++kx) {
                const int64_t iz = oz * g.d[0].stride - g.d[0].pad_b + kz * g.d[0].dil;
                const int64_t iy = oy * g.d[1].stride - g.d[1].pad_b + ky * g.d[1].dil;
                const int64_t ix = ox * g.d[2].stride - g.d[2].pad_b + kx * g.d[2].dil;
                // count_include_pad counts the padding, not what ceil_mode reaches beyond it.
                if (iz < g.d[0].in + g.d[0].pad_e && iy < g.d[1].in + g.d[1].pad_e && ix < g.d[2].in + g.d[2].pad_e)
                  ++covered;
                if (iz < 0 || iz >= g.d[0].in || iy < 0 || iy >= g.d[1].in || ix < 0 || ix >= g.d[2].in) continue;
                const double v = x[p * g.in() + (iz * g.d[1].in + iy) * g.d[2].in + ix];
                if (at < 0 || v > best) {
                  best = v;
                  at = colMajor ? iz + g.d[0].in * (iy + g.d[1].in * ix) : (iz * g.d[1].in + iy) * g.d[2].in + ix;
                }
                sum += v;
                ++valid;
              }
          r.y.push_back(max ? best : sum / double(includePad ? covered : valid));
          r.indices.push_back(double(p * g.in() + at));
        }
  return r;
}

class PoolNormOpTest : public OpTest {
 protected:
  // Runs MaxPool (with Indices) or AveragePool for `s` in float32 and float16 against the reference.
  void pool(const Spec& s, bool max, bool includePad = false, uint32_t seed = 5) {
    const Geo g = s.geo();
    const Dims od = Geo(g).outDims(s.x[0], s.x[1]);
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const HostTensor x = make(dt, s.x, randoms(count(s.x), seed));
      const PoolRef ref = poolRef(s, g, x.values(), max, includePad);
      Attr a;
      s.apply(a);
      a.l("kernel_shape", s.k);
      if (s.ceil) a.i("ceil_mode", 1);
      if (!max && includePad) a.i("count_include_pad", 1);
      std::vector<HostTensor> outs{like(dt, od)};
      if (max) outs.push_back(like(ACL_INT64, od));
      ASSERT_EQ(ACL_SUCCESS, run(max ? "MaxPool" : "AveragePool", {x}, outs, a));
      const std::string what = std::string(max ? "MaxPool" : "AveragePool") + " x " + testing::PrintToString(s.x) +
                               " k " + testing::PrintToString(s.k) + " auto_pad '" + s.autoPad + "' dtype " +
                               std::to_string(dt);
      const double tol = dt == ACL_FLOAT ? 1e-6 : 1e-3;
      EXPECT_TRUE(near(outs[0].values(), ref.y, tol, tol)) << what;
      if (max) {
        EXPECT_EQ(ref.indices, outs[1].values()) << what;
      }
    }
  }
  aclError code(const std::string& op, const std::vector<HostTensor>& in, std::vector<HostTensor> outs,
                const aclopAttr* a) {
    return run(op, in, outs, a);
  }
};

TEST_P(PoolNormOpTest, MaxPoolEveryRankWithIndices) {
  pool({{2, 3, 13}, {3}, {2}}, true);
  pool({{1, 2, 12}, {3}, {2}, {2}, {1, 1}, {}, {}, "", 1, true}, true);  // dilation, pads, ceil_mode
  pool({{2, 3, 9, 8}, {3, 3}, {2, 2}}, true);
  pool({{1, 2, 9, 10}, {3, 2}, {2, 3}, {2, 1}, {1, 0, 1, 1}, {}, {}, "", 1, true}, true);
  pool({{1, 2, 5, 6, 7}, {2, 3, 2}, {2, 2, 1}}, true);
  pool({{1, 2, 6, 7, 5}, {3, 2, 2}, {2, 1, 2}, {1, 2, 1}, {1, 0, 1, 1, 1, 0}, {}, {}, "", 1, true}, true);
  pool({{1, 2, 3, 4, 4}, {2, 2, 2}, {1, 1, 1}}, true);
}

// Without Indices, MaxPool's inner columns take the kernel's run-at-a-time path (every tap inside
// along x); with Indices every output takes the per-output path. Both must give the same values,
// NaN included, for padded, dilated, strided and ceil_mode windows on rows wider than one run (64).
TEST_P(PoolNormOpTest, MaxPoolWithoutIndicesMatchesThePerOutputPath) {
  const Spec specs[] = {
      {{2, 3, 150}, {3}, {2}, {}, {1, 1}},
      {{1, 2, 9, 140}, {3, 3}, {1, 1}, {1, 2}, {1, 1, 1, 1}},
      {{1, 2, 11, 133}, {3, 2}, {2, 3}, {2, 1}, {1, 0, 1, 1}, {}, {}, "", 1, true},
      {{1, 2, 4, 5, 130}, {2, 2, 3}, {1, 2, 2}, {1, 1, 2}, {0, 1, 1, 1, 0, 2}},
  };
  for (const Spec& s : specs) {
    const Dims od = Geo(s.geo()).outDims(s.x[0], s.x[1]);
    std::vector<double> v = randoms(count(s.x), 11);
    for (size_t i = 0; i < v.size(); i += 37) v[i] = NAN;
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const HostTensor x = make(dt, s.x, v);
      Attr a;
      s.apply(a);
      a.l("kernel_shape", s.k);
      if (s.ceil) a.i("ceil_mode", 1);
      std::vector<HostTensor> with{like(dt, od), like(ACL_INT64, od)}, without{like(dt, od)};
      ASSERT_EQ(ACL_SUCCESS, run("MaxPool", {x}, with, a));
      ASSERT_EQ(ACL_SUCCESS, run("MaxPool", {x}, without, a));
      const std::vector<double> want = with[0].values(), got = without[0].values();
      ASSERT_EQ(want.size(), got.size());
      size_t nans = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        nans += std::isnan(want[i]) ? 1 : 0;
        ASSERT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i])
            << "x " << testing::PrintToString(s.x) << " dtype " << dt << " at " << i << ": " << got[i] << " vs "
            << want[i];
      }
      EXPECT_GT(nans, 0u);  // the NaN rule was exercised
    }
  }
}

// MaxPool-12 takes int8 / uint8; values are exact, and an all-padding window gives the lowest value.
TEST_P(PoolNormOpTest, MaxPoolInt8AndUint8) {
  const Spec s{{1, 2, 7, 6}, {3, 2}, {2, 2}, {}, {1, 0, 1, 1}, {}, {}, "", 1, true};
  const Geo g = s.geo();
  const Dims od = Geo(g).outDims(1, 2);
  for (aclDataType dt : {ACL_INT8, ACL_UINT8}) {
    HostTensor x{dt, s.x, std::vector<uint8_t>(static_cast<size_t>(count(s.x)))};
    std::mt19937 gen(3);
    for (uint8_t& b : x.bytes) b = static_cast<uint8_t>(gen());
    const PoolRef ref = poolRef(s, g, x.values(), true, false);
    Attr a;
    s.apply(a);
    a.l("kernel_shape", s.k).i("ceil_mode", 1);
    std::vector<HostTensor> outs{like(dt, od), like(ACL_INT64, od)};
    ASSERT_EQ(ACL_SUCCESS, run("MaxPool", {x}, outs, a));
    EXPECT_EQ(ref.y, outs[0].values()) << dt;
    EXPECT_EQ(ref.indices, outs[1].values()) << dt;
  }
  // A window wholly in the padding (pads >= kernel): no input element, the lowest value.
  const HostTensor one{ACL_UINT8, {1, 1, 1, 1}, {200}};
  Attr p;
  p.l("kernel_shape", {1, 1}).l("pads", {1, 0, 0, 0});
  std::vector<HostTensor> o{like(ACL_UINT8, {1, 1, 2, 1})};
  ASSERT_EQ(ACL_SUCCESS, run("MaxPool", {one}, o, p));
  EXPECT_EQ((std::vector<double>{0, 200}), o[0].values());
  std::vector<HostTensor> avg{like(ACL_UINT8, {1, 1, 1, 1})};
  Attr k1;
  k1.l("kernel_shape", {1, 1});
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("AveragePool", {one}, avg, k1));
}

TEST_P(PoolNormOpTest, AveragePoolEveryRankCountIncludePadAndCeilMode) {
  for (bool include : {false, true}) {
    SCOPED_TRACE(include ? "count_include_pad" : "exclude pad");
    pool({{2, 3, 11}, {3}, {2}, {}, {1, 1}}, false, include);
    pool({{1, 2, 10}, {4}, {3}, {}, {2, 1}, {}, {}, "", 1, true}, false, include);
    pool({{2, 2, 7, 8}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}}, false, include);
    pool({{1, 3, 9, 10}, {3, 4}, {2, 3}, {}, {1, 2, 0, 1}, {}, {}, "", 1, true}, false, include);
    pool({{1, 2, 5, 6, 7}, {3, 2, 3}, {2, 2, 2}, {}, {1, 0, 1, 1, 1, 1}, {}, {}, "", 1, true}, false, include);
    // Rows long enough for the separable pass over the inner columns: strided, dilated, 3-D.
    pool({{1, 2, 6, 150}, {3, 3}, {1, 2}, {1, 2}, {1, 1, 1, 1}}, false, include);
    pool({{1, 2, 3, 4, 131}, {2, 3, 5}, {1, 1, 3}, {1, 1, 1}, {1, 0, 1, 0, 2, 2}, {}, {}, "", 1, true}, false, include);
  }
}

TEST_P(PoolNormOpTest, PoolAutoPadModes) {
  for (const char* mode : {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}) {
    SCOPED_TRACE(mode);
    pool({{1, 2, 9}, {4}, {2}, {}, {}, {}, {}, mode}, true);
    pool({{1, 2, 9}, {4}, {2}, {}, {}, {}, {}, mode}, false);
    pool({{1, 2, 9, 8}, {4, 3}, {2, 3}, {}, {}, {}, {}, mode}, true);
    pool({{1, 2, 9, 8}, {4, 3}, {2, 3}, {}, {}, {}, {}, mode}, false, true);
    pool({{1, 1, 5, 7, 6}, {2, 3, 4}, {2, 2, 1}, {}, {}, {}, {}, mode}, false);
  }
}

TEST_P(PoolNormOpTest, MaxPoolStorageOrderAndExtensions) {
  // storage_order 1: column-major index within the plane.
  const Spec s{{2, 2, 6, 5}, {2, 3}, {2, 1}};
  const Geo g = s.geo();
  const HostTensor x = f32(s.x, randoms(count(s.x), 9));
  const PoolRef ref = poolRef(s, g, x.values(), true, false, true);
  Attr a;
  s.apply(a);
  a.l("kernel_shape", s.k).i("storage_order", 1);
  const Dims od = Geo(g).outDims(2, 2);
  std::vector<HostTensor> outs{like(ACL_FLOAT, od), like(ACL_INT64, od)};
  ASSERT_EQ(ACL_SUCCESS, run("MaxPool", {x}, outs, a));
  EXPECT_TRUE(near(outs[0].values(), ref.y, 0, 0));
  EXPECT_EQ(ref.indices, outs[1].values());
  // indices_per_plane (aclnn): the row-major index within the plane.
  const PoolRef rm = poolRef(s, g, x.values(), true, false);
  Attr pp;
  pp.l("kernel_shape", s.k).l("strides", s.strides).i("indices_per_plane", 1);
  ASSERT_EQ(ACL_SUCCESS, run("MaxPool", {x}, outs, pp));
  const std::vector<double> got = outs[1].values();
  const int64_t planeIn = 30, planeOut = g.out();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(rm.indices[i] - double(int64_t(i) / planeOut * planeIn), got[i]);
  // divisor_override (aclnn) replaces the divisor.
  Attr dv;
  dv.l("kernel_shape", s.k).l("strides", s.strides).i("divisor_override", 4);
  const PoolRef avg = poolRef(s, g, x.values(), false, false);
  std::vector<double> want;
  for (double v : avg.y) want.push_back(v * 6 / 4);
  EXPECT_TRUE(near(runOk("AveragePool", {x}, like(ACL_FLOAT, od), dv), want, 1e-6, 1e-6));
}

TEST_P(PoolNormOpTest, GlobalPoolsAnySpatialRank) {
  for (const Dims& d : {Dims{2, 3, 7}, Dims{2, 3, 4, 5}, Dims{1, 4, 3, 2, 5}, Dims{1, 2, 2, 3, 2, 2}}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const HostTensor x = make(dt, d, randoms(count(d), 3));
      const std::vector<double> v = x.values();
      const int64_t planes = d[0] * d[1], len = count(d) / planes;
      std::vector<double> mean, mx;
      for (int64_t p = 0; p < planes; ++p) {
        double s = 0, m = -INFINITY;
        for (int64_t i = 0; i < len; ++i) {
          s += v[p * len + i];
          m = std::max(m, v[p * len + i]);
        }
        mean.push_back(s / double(len));
        mx.push_back(m);
      }
      Dims od = d;
      std::fill(od.begin() + 2, od.end(), 1);
      const double tol = dt == ACL_FLOAT ? 1e-6 : 1e-3;
      EXPECT_TRUE(near(runOk("GlobalAveragePool", {x}, like(dt, od)), mean, tol, tol)) << testing::PrintToString(d);
      EXPECT_TRUE(near(runOk("GlobalMaxPool", {x}, like(dt, od)), mx, 0, 0)) << testing::PrintToString(d);
    }
  }
}

// A window of 2^30 over a 3x3 input with 2^29 of padding each side: only the 9 real taps are
// visited (no 2^60-step loop), every window covers the whole input.
TEST_P(PoolNormOpTest, HugeWindowsVisitOnlyTheInput) {
  const int64_t k = int64_t(1) << 30, pad = int64_t(1) << 29;
  const HostTensor x = f32({1, 1, 3, 3}, randoms(9, 2));
  const std::vector<double> v = x.values();
  const double mx = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double e : v) sum += e;
  Attr a;
  a.l("kernel_shape", {k, k}).l("pads", {pad, pad, pad, pad});
  EXPECT_TRUE(near(runOk("MaxPool", {x}, like(ACL_FLOAT, {1, 1, 4, 4}), a), std::vector<double>(16, mx), 0, 0));
  EXPECT_TRUE(
      near(runOk("AveragePool", {x}, like(ACL_FLOAT, {1, 1, 4, 4}), a), std::vector<double>(16, sum / 9), 1e-6, 1e-6));
  Attr inc;
  inc.l("kernel_shape", {k, k}).l("pads", {pad, pad, pad, pad}).i("count_include_pad", 1);
  // count_include_pad: the divisor counts the window positions up to the end of the end padding.
  std::vector<double> ref;
  for (int64_t oy = 0; oy < 4; ++oy)
    for (int64_t ox = 0; ox < 4; ++ox) {
      const double cy = double(std::min<int64_t>(k, 3 + pad - (oy - pad)));
      const double cx = double(std::min<int64_t>(k, 3 + pad - (ox - pad)));
      ref.push_back(sum / (cy * cx));
    }
  EXPECT_TRUE(near(runOk("AveragePool", {x}, like(ACL_FLOAT, {1, 1, 4, 4}), inc), ref, 0, 1e-6));
  // 3-D, count_include_pad: a divisor of 2^90 (no int64 overflow).
  const HostTensor x3 = f32({1, 1, 2, 2, 2}, randoms(8, 3));
  double sum3 = 0;
  for (double e : x3.values()) sum3 += e;
  Attr a3;
  a3.l("kernel_shape", {k, k, k}).l("pads", {pad, pad, pad, pad, pad, pad}).i("count_include_pad", 1);
  const std::vector<double> got3 = runOk("AveragePool", {x3}, like(ACL_FLOAT, {1, 1, 3, 3, 3}), a3);
  ASSERT_EQ(27u, got3.size());
  EXPECT_NEAR(sum3 / std::ldexp(1.0, 90), got3[0], 1e-6 * std::fabs(sum3) / std::ldexp(1.0, 90));
  Attr over;
  over.l("kernel_shape", {k + 1, 2});
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code("MaxPool", {x}, {like(ACL_FLOAT, {1, 1, 1, 2})}, over));
}

TEST_P(PoolNormOpTest, PoolErrors) {
  const HostTensor x = f32({1, 2, 6, 6}, randoms(72, 1));
  const Dims od{1, 2, 3, 3};
  auto maxpool = [&](const Attr& a, const Dims& out = {1, 2, 3, 3}) {
    return code("MaxPool", {x}, {like(ACL_FLOAT, out)}, a);
  };
  Attr ok;
  ok.l("kernel_shape", {2, 2}).l("strides", {2, 2});
  EXPECT_EQ(ACL_SUCCESS, maxpool(ok));
  Attr none;
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, maxpool(none));  // kernel_shape is required
  for (auto [name, v] : std::vector<std::pair<const char*, std::vector<int64_t>>>{{"kernel_shape", {2}},
                                                                                  {"kernel_shape", {0, 2}},
                                                                                  {"strides", {2}},
                                                                                  {"strides", {0, 2}},
                                                                                  {"pads", {0, 0}},
                                                                                  {"pads", {-1, 0, 0, 0}},
                                                                                  {"dilations", {1, 1, 1}}}) {
    Attr a;
    a.l("kernel_shape", {2, 2}).l("strides", {2, 2}).l(name, v);
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, maxpool(a)) << name << " " << testing::PrintToString(v);
  }
  for (auto [name, v] : std::vector<std::pair<const char*, int64_t>>{{"ceil_mode", 2}, {"storage_order", 2}}) {
    Attr a;
    a.l("kernel_shape", {2, 2}).l("strides", {2, 2}).i(name, v);
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, maxpool(a)) << name;
  }
  Attr ap;
  ap.l("kernel_shape", {2, 2}).s("auto_pad", "SAME");
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, maxpool(ap));
  Attr big;
  big.l("kernel_shape", {7, 7});
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, maxpool(big, {1, 2, 0, 0}));  // window larger than the input
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, maxpool(ok, {1, 2, 3, 4}));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, code("MaxPool", {x}, {like(ACL_FLOAT, od), like(ACL_INT32, od)}, ok));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
            code("MaxPool", {x}, {like(ACL_FLOAT, od), like(ACL_INT64, od), like(ACL_INT64, od)}, ok));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, code("AveragePool", {x}, {like(ACL_FLOAT, od), like(ACL_INT64, od)}, ok));
  Attr inc;
  inc.l("kernel_shape", {2, 2}).i("count_include_pad", 1);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, maxpool(inc));  // an AveragePool attribute
  Attr k2;
  k2.l("kernel_shape", {2, 2});
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH,
            code("MaxPool", {f32({2, 6}, randoms(12, 1))}, {like(ACL_FLOAT, {2, 3})}, k2));
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
            code("MaxPool", {i32({1, 2, 6, 6}, std::vector<int64_t>(72, 1))}, {like(ACL_INT32, od)}, ok));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, code("GlobalMaxPool", {x}, {like(ACL_FLOAT, {1, 2, 1})}, nullptr));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH,
            code("GlobalAveragePool", {f32({1, 2, 0, 3}, {})}, {like(ACL_FLOAT, {1, 2, 1, 1})}, nullptr));
}

// ---- BatchNormalization ----

struct BnCase {
  Dims x;
  aclDataType dt, sbType, mvType;
  int64_t opset;         // 0: not set
  int64_t spatial = -1;  // -1: not set
};

TEST_P(PoolNormOpTest, BatchNormInferenceAcrossOpsets) {
  const BnCase cases[] = {
      {{2, 3, 4, 5}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, 0},
      {{2, 3, 4, 5}, ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT, 15},
      {{2, 4, 6}, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, 15},
      {{1, 3, 2, 3, 4}, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT, 15},
      {{3, 5}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, 14},
      {{2, 3, 4, 4}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, 9},
      {{2, 3, 4, 4}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, 7, 1},
      {{2, 3, 4, 4}, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, 8},
      {{2, 3, 4, 2}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, 7, 0},  // per element
      {{2, 2, 5}, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, 8, 0},
  };
  for (const BnCase& c : cases) {
    const Dims stat = c.spatial == 0 ? Dims(c.x.begin() + 1, c.x.end()) : Dims{c.x[1]};
    const int64_t ns = count(stat), inner = count(c.x) / (c.x[0] * ns);
    const HostTensor x = make(c.dt, c.x, randoms(count(c.x), 1, -2, 2));
    const HostTensor scale = make(c.sbType, stat, randoms(ns, 2, 0.5, 1.5));
    const HostTensor bias = make(c.sbType, stat, randoms(ns, 3));
    const HostTensor mean = make(c.mvType, stat, randoms(ns, 4));
    const HostTensor var = make(c.mvType, stat, randoms(ns, 5, 0.2, 2));
    const float eps = 1e-3f;
    std::vector<double> ref;
    const std::vector<double> xv = x.values(), sv = scale.values(), bv = bias.values(), mv = mean.values(),
                              vv = var.values();
    for (size_t i = 0; i < xv.size(); ++i) {
      const int64_t ch = int64_t(i) / inner % ns;
      ref.push_back((xv[i] - mv[ch]) / std::sqrt(vv[ch] + double(eps)) * sv[ch] + bv[ch]);
    }
    Attr a;
    a.f("epsilon", eps);
    if (c.opset != 0) a.i("opset", c.opset);
    if (c.spatial >= 0) a.i("spatial", c.spatial);
    const double tol = c.dt == ACL_FLOAT ? 1e-5 : 4e-3;
    EXPECT_TRUE(near(runOk("BatchNormalization", {x, scale, bias, mean, var}, like(c.dt, c.x), a), ref, tol, tol))
        << "opset " << c.opset << " x " << testing::PrintToString(c.x) << " spatial " << c.spatial;
  }
}

TEST_P(PoolNormOpTest, BatchNormErrors) {
  const HostTensor x = f32({2, 3, 2, 2}, randoms(24, 1));
  const HostTensor p = f32({3}, {1, 1, 1});
  auto bn = [&](const Attr& a, std::vector<HostTensor> in = {}, std::vector<HostTensor> outs = {}) {
    if (in.empty()) in = {x, p, p, p, p};
    if (outs.empty()) outs = {like(ACL_FLOAT, {2, 3, 2, 2})};
    return code("BatchNormalization", in, outs, a);
  };
  Attr none;
  EXPECT_EQ(ACL_SUCCESS, bn(none));
  Attr sp9;
  sp9.i("opset", 9).i("spatial", 1);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, bn(sp9));  // spatial is opset 7-8 only
  Attr sp2;
  sp2.i("opset", 7).i("spatial", 2);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, bn(sp2));
  Attr tm;
  tm.i("opset", 12).i("training_mode", 0);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, bn(tm));  // training_mode is opset 14+
  Attr old;
  old.i("opset", 6);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, bn(old));
  Attr eps;
  eps.f("epsilon", -1.0f);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, bn(eps));
  // Before opset 14 the extra outputs are training outputs: refused.
  Attr o9;
  o9.i("opset", 9);
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, bn(o9, {}, {like(ACL_FLOAT, {2, 3, 2, 2}), like(ACL_FLOAT, {3})}));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, bn(none, {}, {like(ACL_FLOAT, {2, 3, 2, 2}), like(ACL_FLOAT, {3})}));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, bn(none, {}, {like(ACL_FLOAT16, {2, 3, 2, 2})}));
  // Statistics: [C] per channel, C x D.. per element (spatial 0); float only, scale/B and mean/var alike.
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, bn(none, {x, p, p, f32({4}, {1, 1, 1, 1}), p}));
  Attr s0;
  s0.i("opset", 7).i("spatial", 0);
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, bn(s0));
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE, bn(none, {x, p, p, i32({3}, {1, 1, 1}), p}));
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE, bn(none, {x, p, f16({3}, {1, 1, 1}), p, p}));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, bn(none, {x, p, p, p}));
}

// ---- InstanceNormalization, LRN, LpNormalization ----

TEST_P(PoolNormOpTest, InstanceNormalizationMatchesReference) {
  for (const Dims& d : {Dims{2, 3, 7}, Dims{1, 4, 3, 5}, Dims{2, 2, 2, 3, 4}}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const int64_t c = d[1], inner = count(d) / (d[0] * c);
      const HostTensor x = make(dt, d, randoms(count(d), 1, -2, 2));
      const HostTensor s = make(dt, {c}, randoms(c, 2));
      const HostTensor b = make(dt, {c}, randoms(c, 3));
      const std::vector<double> xv = x.values(), sv = s.values(), bv = b.values();
      std::vector<double> ref(xv.size());
      for (int64_t p = 0; p < d[0] * c; ++p) {
        double mean = 0, var = 0;
        for (int64_t i = 0; i < inner; ++i) mean += xv[p * inner + i] / double(inner);
        for (int64_t i = 0; i < inner; ++i)
          var += (xv[p * inner + i] - mean) * (xv[p * inner + i] - mean) / double(inner);
        for (int64_t i = 0; i < inner; ++i)
          ref[p * inner + i] = (xv[p * inner + i] - mean) / std::sqrt(var + 1e-2) * sv[p % c] + bv[p % c];
      }
      Attr a;
      a.f("epsilon", 1e-2f);
      const double tol = dt == ACL_FLOAT ? 1e-5 : 4e-3;
      EXPECT_TRUE(near(runOk("InstanceNormalization", {x, s, b}, like(dt, d), a), ref, tol, tol))
          << testing::PrintToString(d);
    }
  }
  const HostTensor x = f32({1, 2, 3}, randoms(6, 1));
  const HostTensor p = f32({2}, {1, 1});
  Attr none, eps;
  eps.f("epsilon", -1.0f);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code("InstanceNormalization", {x, p, p}, {like(ACL_FLOAT, {1, 2, 3})}, eps));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH,
            code("InstanceNormalization", {x, f32({3}, {1, 1, 1}), p}, {like(ACL_FLOAT, {1, 2, 3})}, none));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH,
            code("InstanceNormalization", {f32({2, 3}, randoms(6, 1)), p, p}, {like(ACL_FLOAT, {2, 3})}, none));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
            code("InstanceNormalization", {x, p, p}, {like(ACL_FLOAT, {1, 2, 2})}, none));
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
            code("InstanceNormalization", {i32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), i32({2}, {1, 1}), i32({2}, {1, 1})},
                 {like(ACL_INT32, {1, 2, 3})}, none));
}

TEST_P(PoolNormOpTest, LrnMatchesOnnxFormula) {
  const Dims d{2, 7, 3, 2};
  for (int64_t size : {1, 2, 3, 4, 5, 9}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const HostTensor x = make(dt, d, randoms(count(d), 1, -2, 2));
      const std::vector<double> xv = x.values();
      const double alpha = 0.02, beta = 0.6, bias = 1.5;
      const int64_t c = d[1], inner = 6;
      std::vector<double> ref(xv.size());
      for (int64_t n = 0; n < d[0]; ++n)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t i = 0; i < inner; ++i) {
            double sq = 0;
            // ONNX: floor((size-1)/2) channels before, ceil((size-1)/2) after.
            for (int64_t k = ch - (size - 1) / 2; k <= ch + size / 2; ++k) {
              if (k < 0 || k >= c) continue;
              sq += xv[(n * c + k) * inner + i] * xv[(n * c + k) * inner + i];
            }
            const int64_t at = (n * c + ch) * inner + i;
            ref[at] = xv[at] / std::pow(bias + alpha / double(size) * sq, beta);
          }
      Attr a;
      a.i("size", size).f("alpha", float(alpha)).f("beta", float(beta)).f("bias", float(bias));
      const double tol = dt == ACL_FLOAT ? 1e-6 : 2e-3;
      EXPECT_TRUE(near(runOk("LRN", {x}, like(dt, d), a), ref, tol, tol)) << "size " << size;
    }
  }
  const HostTensor x = f32({1, 3, 2}, randoms(6, 1));
  Attr none, zero;
  zero.i("size", 0);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code("LRN", {x}, {like(ACL_FLOAT, {1, 3, 2})}, none));  // size is required
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code("LRN", {x}, {like(ACL_FLOAT, {1, 3, 2})}, zero));
  Attr s3;
  s3.i("size", 3);
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, code("LRN", {x}, {like(ACL_FLOAT, {1, 3, 3})}, s3));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, code("LRN", {f32({3}, {1, 2, 3})}, {like(ACL_FLOAT, {3})}, s3));
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
            code("LRN", {i32({1, 3, 2}, {1, 2, 3, 4, 5, 6})}, {like(ACL_INT32, {1, 3, 2})}, s3));
}

TEST_P(PoolNormOpTest, LpNormalizationMatchesReference) {
  const Dims d{2, 3, 4};
  for (int64_t p : {1, 2}) {
    for (int64_t axis : {-1, 0, 1}) {
      for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
        std::vector<double> v = randoms(count(d), 4);
        v[0] = v[4] = v[8] = 0;  // a zero line along axis 1 (elements 0, 4, 8) with p = 2, axis 1
        const HostTensor x = make(dt, d, v);
        const std::vector<double> xv = x.values();
        const int64_t ax = axis < 0 ? axis + 3 : axis;
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < ax; ++i) outer *= d[i];
        for (int64_t i = ax + 1; i < 3; ++i) inner *= d[i];
        std::vector<double> ref(xv.size());
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            double norm = 0;
            for (int64_t j = 0; j < d[ax]; ++j) {
              const double e = xv[(o * d[ax] + j) * inner + i];
              norm += p == 1 ? std::fabs(e) : e * e;
            }
            if (p == 2) norm = std::sqrt(norm);
            for (int64_t j = 0; j < d[ax]; ++j) {
              const int64_t at = (o * d[ax] + j) * inner + i;
              ref[at] = norm == 0 ? 0 : xv[at] / norm;
            }
          }
        Attr a;
        a.i("p", p).i("axis", axis);
        const double tol = dt == ACL_FLOAT ? 1e-6 : 2e-3;
        EXPECT_TRUE(near(runOk("LpNormalization", {x}, like(dt, d), a), ref, tol, tol))
            << "p " << p << " axis " << axis;
      }
    }
  }
  const HostTensor x = f32({2, 3}, randoms(6, 1));
  Attr p3, ax;
  p3.i("p", 3);
  ax.i("axis", 2);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code("LpNormalization", {x}, {like(ACL_FLOAT, {2, 3})}, p3));
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code("LpNormalization", {x}, {like(ACL_FLOAT, {2, 3})}, ax));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, code("LpNormalization", {x}, {like(ACL_FLOAT16, {2, 3})}, nullptr));
}

ARUN_CONFORMANCE_INSTANTIATE(PoolNormOpTest);

}  // namespace
}  // namespace conformance
