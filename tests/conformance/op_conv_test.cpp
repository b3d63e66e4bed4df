// Conv and ConvTranspose against float64 references computed here by direct loops: 1-D, 2-D and
// 3-D, every attribute (group / depthwise, dilations, strides, pads, auto_pad, output_padding,
// output_shape), float32 and float16, and every error rule.
#include <algorithm>
#include <chrono>
#include <functional>

#include "op_window.hpp"

namespace conformance {
namespace {

// Direct convolution in float64: x [N, C, in..], w [M, C/group, k..], optional bias.
std::vector<double> convRef(const Spec& s, const std::vector<double>& x, const std::vector<double>& w,
                            const std::vector<double>* bias, int64_t m, Geo* geoOut) {
  Geo g = s.geo();
  *geoOut = g;
  const int64_t n = s.x[0], c = s.x[1], cg = c / s.group, mg = m / s.group;
  std::vector<double> y(static_cast<size_t>(n * m * g.out()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t om = 0; om < m; ++om)
      for (int64_t oz = 0; oz < g.d[0].out; ++oz)
        for (int64_t oy = 0; oy < g.d[1].out; ++oy)
          for (int64_t ox = 0; ox < g.d[2].out; ++ox) {
            double acc = bias ? (*bias)[om] : 0.0;
            const int64_t grp = om / mg;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t kz = 0; kz < g.d[0].k; ++kz)
                for (int64_t ky = 0; ky < g.d[1].k; ++ky)
                  for (int64_t kx = 0; kx < g.d[2].k; ++kx) {
                    const int64_t iz = oz * g.d[0].stride - g.d[0].pad_b + kz * g.d[0].dil;
                    const int64_t iy = oy * g.d[1].stride - g.d[1].pad_b + ky * g.d[1].dil;
                    const int64_t ix = ox * g.d[2].stride - g.d[2].pad_b + kx * g.d[2].dil;
                    if (iz < 0 || iz >= g.d[0].in || iy < 0 || iy >= g.d[1].in || ix < 0 || ix >= g.d[2].in) continue;
                    const int64_t xi =
                        ((b * c + grp * cg + ci) * g.d[0].in + iz) * g.d[1].in * g.d[2].in + iy * g.d[2].in + ix;
                    const int64_t wi = ((om * cg + ci) * g.d[0].k + kz) * g.d[1].k * g.d[2].k + ky * g.d[2].k + kx;
                    acc += x[xi] * w[wi];
                  }
            y[(((b * m + om) * g.d[0].out + oz) * g.d[1].out + oy) * g.d[2].out + ox] = acc;
          }
  return y;
}

class ConvOpTest : public OpTest {
 protected:
  // Runs Conv for `s` with M output channels in float32 and float16 against the reference.
  void conv(const Spec& s, int64_t m, bool withBias = true, uint32_t seed = 7) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      Dims wd{m, s.x[1] / s.group};
      wd.insert(wd.end(), s.k.begin(), s.k.end());
      const HostTensor x = make(dt, s.x, randoms(count(s.x), seed));
      const HostTensor w = make(dt, wd, randoms(count(wd), seed + 1));
      const HostTensor b = make(dt, {m}, randoms(m, seed + 2));
      const std::vector<double> bv = b.values();
      Geo g;
      const std::vector<double> ref = convRef(s, x.values(), w.values(), withBias ? &bv : nullptr, m, &g);
      Attr a;
      s.apply(a);
      std::vector<HostTensor> in{x, w};
      if (withBias) in.push_back(b);
      const std::vector<double> got = runOk("Conv", in, like(dt, g.outDims(s.x[0], m)), a);
      const double tol = dt == ACL_FLOAT ? 1e-4 : 4e-3;
      EXPECT_TRUE(near(got, ref, tol, tol))
          << "Conv x " << testing::PrintToString(s.x) << " k " << testing::PrintToString(s.k) << " group " << s.group
          << " auto_pad '" << s.autoPad << "' dtype " << dt;
    }
  }
  aclError convCode(const std::vector<HostTensor>& in, const Dims& out, const Attr& a, aclDataType dt = ACL_FLOAT) {
    std::vector<HostTensor> outs{like(dt, out)};
    return run("Conv", in, outs, a);
  }
};

TEST_P(ConvOpTest, Conv1dMatchesReference) {
  conv({{2, 3, 11}, {3}}, 4);
  conv({{1, 4, 17}, {5}, {2}, {2}, {1, 3}}, 6, false);        // stride, dilation, asymmetric pads
  conv({{2, 6, 9}, {3}, {1}, {}, {1, 1}, {}, {}, "", 3}, 6);  // groups
  conv({{1, 5, 8}, {2}, {3}, {}, {0, 2}, {}, {}, "", 5}, 5);  // depthwise
}

TEST_P(ConvOpTest, Conv2dMatchesReference) {
  conv({{2, 3, 9, 8}, {3, 3}, {}, {}, {1, 1, 1, 1}}, 5);
  conv({{1, 4, 12, 10}, {3, 2}, {2, 1}, {2, 3}, {2, 0, 1, 3}}, 4, false);
  conv({{2, 8, 7, 7}, {3, 3}, {1, 2}, {}, {1, 1, 1, 1}, {}, {}, "", 4}, 8);        // groups
  conv({{1, 6, 10, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {}, {}, "", 6}, 12);  // depthwise, multiplier 2
  // Depthwise, multiplier 1 (the direct kernel): stride 1 and 2, dilation, asymmetric pads, 1-wide rows.
  conv({{2, 6, 11, 10}, {3, 3}, {}, {}, {1, 1, 1, 1}, {}, {}, "", 6}, 6);
  conv({{1, 5, 9, 12}, {3, 5}, {2, 2}, {2, 1}, {0, 3, 2, 1}, {}, {}, "", 5}, 5, false);
  conv({{1, 3, 7, 1}, {3, 1}, {1, 1}, {}, {1, 0, 1, 0}, {}, {}, "", 3}, 3);
  conv({{1, 4, 13, 14}, {3, 3}, {3, 3}, {}, {1, 1, 1, 1}, {}, {}, "", 4}, 4);           // stride 3
  conv({{1, 2, 12, 17}, {3, 5}, {2, 2}, {2, 3}, {3, 0, 2, 4}, {}, {}, "", 2}, 2, false);  // wide pads, dilated
  conv({{1, 2, 1, 6}, {1, 3}, {10, 2}, {}, {5, 1, 0, 1}, {}, {}, "", 2}, 2);  // every tap of a row in the padding
  conv({{2, 16, 6, 6}, {1, 1}}, 8);                           // the direct 1x1 path
  conv({{1, 64, 20, 20}, {3, 3}, {}, {}, {1, 1, 1, 1}}, 32);  // big enough to tile over blocks
  // oneDNN's blocked layouts (>= 14x14 outputs, >= 16 channels out, kernel > 1x1), tiled over
  // blocks in 16-channel chunks whose last one (8 channels) stays on NCHW; dilated, two images.
  conv({{1, 3, 30, 29}, {5, 5}, {2, 2}, {}, {2, 1, 0, 3}}, 40);
  conv({{2, 16, 16, 16}, {3, 3}, {}, {2, 2}, {2, 2, 2, 2}}, 24, false);
}

TEST_P(ConvOpTest, Conv3dMatchesReference) {
  conv({{1, 2, 5, 6, 4}, {3, 3, 2}}, 3);
  conv({{2, 4, 6, 5, 7}, {2, 3, 3}, {2, 1, 2}, {1, 2, 1}, {1, 0, 1, 0, 2, 1}, {}, {}, "", 2}, 4, false);
  conv({{1, 3, 4, 4, 4}, {1, 1, 1}}, 2);
  conv({{1, 4, 5, 5, 5}, {3, 3, 3}, {}, {}, {1, 1, 1, 1, 1, 1}, {}, {}, "", 4}, 4);  // depthwise
}

TEST_P(ConvOpTest, ConvAutoPadModes) {
  for (const char* mode : {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}) {
    SCOPED_TRACE(mode);
    // Odd total padding (even kernel, stride 2 on an odd input) tells UPPER from LOWER.
    conv({{1, 2, 9}, {4}, {2}, {}, {}, {}, {}, mode}, 3);
    conv({{1, 2, 9, 8}, {4, 3}, {2, 3}, {1, 2}, {}, {}, {}, mode}, 3);
    conv({{1, 2, 5, 7, 6}, {2, 3, 4}, {2, 2, 1}, {}, {}, {}, {}, mode, 2}, 4);
  }
}

TEST_P(ConvOpTest, ConvErrors) {
  const HostTensor x = f32({1, 4, 6, 6}, randoms(144, 1));
  const HostTensor w = f32({2, 4, 3, 3}, randoms(72, 2));
  const Dims out{1, 2, 4, 4};
  Attr none;
  EXPECT_EQ(ACL_SUCCESS, convCode({x, w}, out, none));
  // dtypes: int32 has no kernel; X and W must agree.
  EXPECT_EQ(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
            convCode({i32({1, 4, 6, 6}, std::vector<int64_t>(144, 1)), i32({2, 4, 3, 3}, std::vector<int64_t>(72, 1))},
                     out, none, ACL_INT32));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, convCode({x, f16({2, 4, 3, 3}, randoms(72, 2))}, out, none));
  // ranks: X and W alike, 3 to 5.
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, convCode({x, f32({2, 4, 3}, randoms(24, 2))}, out, none));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH,
            convCode({f32({1, 4}, randoms(4, 1)), f32({2, 4}, randoms(8, 1))}, {1, 2}, none));
  // group must divide C and M, and W must have C/group channels.
  {
    Attr a;
    a.i("group", 3);
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, convCode({x, w}, out, a));
    Attr z;
    z.i("group", 0);
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, convCode({x, w}, out, z));
    Attr g2;
    g2.i("group", 2);
    EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, convCode({x, w}, out, g2));  // W has 4 channels, needs 2
  }
  // attribute lengths and values.
  for (auto [name, v] : std::vector<std::pair<const char*, std::vector<int64_t>>>{{"strides", {1}},
                                                                                  {"strides", {1, 0}},
                                                                                  {"dilations", {1, 1, 1}},
                                                                                  {"dilations", {0, 1}},
                                                                                  {"pads", {1, 1}},
                                                                                  {"pads", {0, 0, 0, -1}},
                                                                                  {"kernel_shape", {3, 2}},
                                                                                  {"kernel_shape", {3}}}) {
    Attr a;
    a.l(name, v);
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, convCode({x, w}, out, a)) << name << " " << testing::PrintToString(v);
  }
  {
    Attr a;
    a.s("auto_pad", "SAME");
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, convCode({x, w}, out, a));
    Attr u;
    u.i("ceil_mode", 1);  // not a Conv attribute
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, convCode({x, w}, out, u));
  }
  // B must be [M]; the window must fit the padded input; the output description must match.
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, convCode({x, w, f32({3}, {1, 2, 3})}, out, none));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, convCode({f32({1, 4, 2, 2}, randoms(16, 1)), w}, {1, 2, 0, 0}, none));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, convCode({x, w}, {1, 2, 4, 5}, none));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, convCode({x, w}, out, none, ACL_FLOAT16));
}

// ---- ConvTranspose ----

// Scatter form in float64 (independent of the library's gather): x [N, C, in..], w [C, M/group, k..].
std::vector<double> convTransposeRef(const Geo& g, int64_t n, int64_t c, int64_t m, int64_t group,
                                     const std::vector<double>& x, const std::vector<double>& w,
                                     const std::vector<double>* bias) {
  const int64_t cg = c / group, mg = m / group;
  std::vector<double> y(static_cast<size_t>(n * m * g.out()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t om = 0; om < m; ++om)
      for (int64_t o = 0; o < g.out(); ++o) y[(b * m + om) * g.out() + o] = bias ? (*bias)[om] : 0.0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t iz = 0; iz < g.d[0].in; ++iz)
        for (int64_t iy = 0; iy < g.d[1].in; ++iy)
          for (int64_t ix = 0; ix < g.d[2].in; ++ix) {
            const double xv = x[(((b * c + ic) * g.d[0].in + iz) * g.d[1].in + iy) * g.d[2].in + ix];
            const int64_t grp = ic / cg;
            for (int64_t mm = 0; mm < mg; ++mm)
              for (int64_t kz = 0; kz < g.d[0].k; ++kz)
                for (int64_t ky = 0; ky < g.d[1].k; ++ky)
                  for (int64_t kx = 0; kx < g.d[2].k; ++kx) {
                    const int64_t oz = iz * g.d[0].stride - g.d[0].pad_b + kz * g.d[0].dil;
                    const int64_t oy = iy * g.d[1].stride - g.d[1].pad_b + ky * g.d[1].dil;
                    const int64_t ox = ix * g.d[2].stride - g.d[2].pad_b + kx * g.d[2].dil;
                    if (oz < 0 || oz >= g.d[0].out || oy < 0 || oy >= g.d[1].out || ox < 0 || ox >= g.d[2].out)
                      continue;
                    const double wv = w[(((ic * mg + mm) * g.d[0].k + kz) * g.d[1].k + ky) * g.d[2].k + kx];
                    y[(((b * m + grp * mg + mm) * g.d[0].out + oz) * g.d[1].out + oy) * g.d[2].out + ox] += xv * wv;
                  }
          }
  return y;
}

// ONNX's ConvTranspose geometry, from the operator's documentation.
Geo transposeGeo(const Spec& s) {
  Geo g;
  g.rank = static_cast<int>(s.x.size()) - 2;
  for (int i = 0; i < g.rank; ++i) {
    Dim1& d = g.at(i);
    d.in = s.x[2 + i];
    d.k = s.k[i];
    d.stride = s.strides.empty() ? 1 : s.strides[i];
    d.dil = s.dilations.empty() ? 1 : s.dilations[i];
    const int64_t op = s.outPad.empty() ? 0 : s.outPad[i];
    const int64_t full = d.stride * (d.in - 1) + op + (d.k - 1) * d.dil + 1;
    int64_t want = -1;
    if (!s.outShape.empty())
      want = s.outShape[s.outShape.size() - g.rank + i];
    else if (s.autoPad == "SAME_UPPER" || s.autoPad == "SAME_LOWER")
      want = d.in * d.stride;
    if (want > full) {
      // Beyond the taps: extra positions at the end (ONNX's test_convtranspose_output_shape).
      d.pad_e = full - want;
    } else if (want >= 0) {
      const int64_t total = full - want;
      d.pad_b = s.autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      d.pad_e = total - d.pad_b;
    } else if (s.autoPad != "VALID" && !s.pads.empty()) {
      d.pad_b = s.pads[i];
      d.pad_e = s.pads[i + g.rank];
    }
    d.out = full - d.pad_b - d.pad_e;
  }
  return g;
}

class ConvTransposeOpTest : public OpTest {
 protected:
  void check(const Spec& s, int64_t mPerGroup, bool withBias = true, uint32_t seed = 11) {
    const int64_t c = s.x[1], m = mPerGroup * s.group;
    Dims wd{c, mPerGroup};
    wd.insert(wd.end(), s.k.begin(), s.k.end());
    Geo g = transposeGeo(s);
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      const HostTensor x = make(dt, s.x, randoms(count(s.x), seed));
      const HostTensor w = make(dt, wd, randoms(count(wd), seed + 1));
      const HostTensor b = make(dt, {m}, randoms(m, seed + 2));
      const std::vector<double> bv = b.values();
      const std::vector<double> ref =
          convTransposeRef(g, s.x[0], c, m, s.group, x.values(), w.values(), withBias ? &bv : nullptr);
      Attr a;
      s.apply(a);
      std::vector<HostTensor> in{x, w};
      if (withBias) in.push_back(b);
      const std::vector<double> got = runOk("ConvTranspose", in, like(dt, g.outDims(s.x[0], m)), a);
      const double tol = dt == ACL_FLOAT ? 1e-4 : 4e-3;
      EXPECT_TRUE(near(got, ref, tol, tol))
          << "ConvTranspose x " << testing::PrintToString(s.x) << " auto_pad '" << s.autoPad << "' dtype " << dt;
    }
  }
  aclError code(const std::vector<HostTensor>& in, const Dims& out, const Attr& a) {
    std::vector<HostTensor> outs{like(ACL_FLOAT, out)};
    return run("ConvTranspose", in, outs, a);
  }
};

TEST_P(ConvTransposeOpTest, MatchesReferenceInEveryRank) {
  check({{2, 3, 7}, {3}}, 2);
  check({{1, 4, 6}, {4}, {3}, {2}, {1, 2}, {1}, {}, "", 2}, 3, false);
  check({{2, 3, 5, 4}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}, {1, 1}}, 2);
  check({{1, 4, 4, 5}, {2, 3}, {2, 1}, {1, 2}, {0, 1, 1, 0}, {1, 0}, {}, "", 2}, 2);
  check({{1, 6, 4, 4}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}, {}, {}, "", 6}, 1);  // depthwise
  check({{1, 2, 3, 4, 3}, {2, 3, 2}, {2, 1, 2}, {1, 1, 2}, {0, 1, 0, 1, 0, 1}, {1, 0, 1}}, 2);
}

TEST_P(ConvTransposeOpTest, OutputShapeAndAutoPad) {
  for (const char* mode : {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}) {
    SCOPED_TRACE(mode);
    check({{1, 2, 5}, {4}, {2}, {}, {}, {}, {}, mode}, 2);
    check({{1, 2, 4, 5}, {3, 4}, {2, 3}, {}, {}, {}, {}, mode}, 2);
  }
  // output_shape: spatial only, or the whole shape; odd totals split as ONNX says.
  check({{1, 2, 5}, {3}, {2}, {}, {}, {}, {10}}, 2);
  check({{1, 2, 4, 4}, {3, 3}, {2, 2}, {}, {}, {}, {1, 2, 8, 9}, "SAME_UPPER"}, 2);
  check({{1, 2, 3, 3, 3}, {2, 2, 2}, {2, 2, 2}, {}, {}, {1, 0, 0}, {6, 5, 6}}, 1);
  // Larger than the taps reach (ONNX's test_convtranspose_output_shape): bias-only positions at the end.
  check({{1, 1, 3, 3}, {3, 3}, {3, 2}, {}, {}, {}, {10, 8}}, 2);
  check({{1, 2, 4}, {1}, {2}, {}, {}, {}, {}, "SAME_UPPER"}, 2);  // k 1: in * stride > what the taps reach
}

TEST_P(ConvTransposeOpTest, Errors) {
  const HostTensor x = f32({1, 4, 3, 3}, randoms(36, 1));
  const HostTensor w = f32({4, 2, 3, 3}, randoms(72, 2));
  const Dims out{1, 2, 5, 5};
  Attr none;
  EXPECT_EQ(ACL_SUCCESS, code({x, w}, out, none));
  EXPECT_EQ(ACL_ERROR_OP_OUTPUT_NOT_MATCH, code({x, w}, {1, 2, 5, 6}, none));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, code({x, f32({3, 2, 3, 3}, randoms(54, 2))}, out, none));
  EXPECT_EQ(ACL_ERROR_OP_INPUT_NOT_MATCH, code({x, w, f32({3}, {1, 2, 3})}, out, none));
  Attr g;
  g.i("group", 3);
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code({x, w}, out, g));
  for (auto [name, v] : std::vector<std::pair<const char*, std::vector<int64_t>>>{{"output_padding", {1}},
                                                                                  {"output_padding", {-1, 0}},
                                                                                  {"strides", {2}},
                                                                                  {"pads", {1, 1, 1}},
                                                                                  {"dilations", {0, 1}},
                                                                                  {"output_shape", {5}},
                                                                                  {"output_shape", {-1, 5}},
                                                                                  {"kernel_shape", {2, 2}}}) {
    Attr a;
    a.l(name, v);
    EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code({x, w}, out, a)) << name << " " << testing::PrintToString(v);
  }
  Attr ap;
  ap.s("auto_pad", "FULL");
  EXPECT_EQ(ACL_ERROR_OP_ATTR_NOT_MATCH, code({x, w}, out, ap));
  std::vector<HostTensor> o16{like(ACL_INT32, out)};
  EXPECT_EQ(
      ACL_ERROR_UNSUPPORTED_DATA_TYPE,
      run("ConvTranspose",
          {i32({1, 4, 3, 3}, std::vector<int64_t>(36, 1)), i32({4, 2, 3, 3}, std::vector<int64_t>(72, 1))}, o16, none));
}

// Not a check: times ResNet-style convolutions (3x3 64->64 and 1x1 256->64 at 56x56, float32)
// on device buffers made once, aclopExecuteV2 + synchronize only, the best of 3 runs of 10 calls,
// so the sgemm path can be compared across changes. Run with --gtest_also_run_disabled_tests.
TEST_P(ConvOpTest, DISABLED_Timing) {
  struct Case {
    const char* name;
    Dims x, w;
    std::vector<int64_t> pads;
  };
  const Case cases[] = {{"3x3 64->64 56x56", {1, 64, 56, 56}, {64, 64, 3, 3}, {1, 1, 1, 1}},
                        {"1x1 256->64 56x56", {1, 256, 56, 56}, {64, 256, 1, 1}, {0, 0, 0, 0}}};
  for (const Case& c : cases) {
    const Dims yd{1, 64, 56, 56};
    const Dims* dims[] = {&c.x, &c.w, &yd};
    aclTensorDesc* desc[3];
    aclDataBuffer* buf[3];
    void* mem[3];
    for (int i = 0; i < 3; ++i) {
      desc[i] = aclCreateTensorDesc(ACL_FLOAT, 4, dims[i]->data(), ACL_FORMAT_NCHW);
      const size_t bytes = aclGetTensorDescSize(desc[i]);
      ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&mem[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      if (i < 2) {
        const HostTensor h = f32(*dims[i], randoms(count(*dims[i]), i + 1));
        ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(mem[i], bytes, h.bytes.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
      }
      buf[i] = aclCreateDataBuffer(mem[i], bytes);
    }
    Attr a;
    a.l("pads", c.pads);
    double best = 1e30;
    for (int round = 0; round < 4; ++round) {  // round 0 warms up
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 10; ++i) {
        ASSERT_EQ(ACL_SUCCESS, aclopExecuteV2("Conv", 2, desc, buf, 1, desc + 2, buf + 2, a.get(), nullptr));
      }
      ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(nullptr));
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 10;
      if (round > 0) best = std::min(best, ms);
    }
    std::printf("[timing] Conv %s: %.3f ms per call\n", c.name, best);
    for (int i = 0; i < 3; ++i) {
      aclDestroyTensorDesc(desc[i]);
      EXPECT_EQ(ACL_SUCCESS, aclDestroyDataBuffer(buf[i]));
      EXPECT_EQ(ACL_SUCCESS, aclrtFree(mem[i]));
    }
  }
}

ARUN_CONFORMANCE_INSTANTIATE(ConvOpTest);
ARUN_CONFORMANCE_INSTANTIATE(ConvTransposeOpTest);

}  // namespace
}  // namespace conformance
