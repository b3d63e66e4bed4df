// oneDNN's convolution behind Conv (ops/src/onednn_conv.hpp) on both of its paths, NCHW and the
// blocked layouts with their reorders, against a float64 direct convolution: padding (asymmetric),
// strides, dilations, bias or none, channel counts that do not fill a 16-channel block, 1-D rows.
// Run twice: as configured, and with ARUN_CONV_LAYOUT=plain (every shape on NCHW).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "onednn_conv.hpp"

namespace {

using arun::ops::OneDnnConv2d;

OneDnnConv2d make(int64_t c, int64_t h, int64_t w, int64_t m, int64_t kh, int64_t kw, int64_t stride, int64_t dil,
                  int64_t pt, int64_t pl, int64_t pb, int64_t pr, bool bias) {
  OneDnnConv2d s;
  s.c = c, s.h = h, s.w = w, s.m = m, s.kh = kh, s.kw = kw;
  s.stride_h = s.stride_w = stride;
  s.dil_h = s.dil_w = dil;
  s.pad_t = pt, s.pad_l = pl, s.pad_b = pb, s.pad_r = pr;
  s.oh = (h + pt + pb - (kh - 1) * dil - 1) / stride + 1;
  s.ow = (w + pl + pr - (kw - 1) * dil - 1) / stride + 1;
  s.bias = bias;
  return s;
}

// y[m, oh, ow] in double, with each output's sum of |terms| for the tolerance.
void reference(const OneDnnConv2d& s, const std::vector<float>& x, const std::vector<float>& w,
               const std::vector<float>& b, std::vector<double>* y, std::vector<double>* mag) {
  y->assign(static_cast<size_t>(s.m * s.oh * s.ow), 0.0);
  mag->assign(y->size(), 0.0);
  for (int64_t o = 0; o < s.m; ++o)
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        double acc = s.bias ? b[o] : 0.0, abs = s.bias ? std::fabs(b[o]) : 0.0;
        for (int64_t ci = 0; ci < s.c; ++ci)
          for (int64_t ky = 0; ky < s.kh; ++ky)
            for (int64_t kx = 0; kx < s.kw; ++kx) {
              const int64_t iy = oy * s.stride_h - s.pad_t + ky * s.dil_h;
              const int64_t ix = ox * s.stride_w - s.pad_l + kx * s.dil_w;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              const double t = double(x[(ci * s.h + iy) * s.w + ix]) * w[((o * s.c + ci) * s.kh + ky) * s.kw + kx];
              acc += t;
              abs += std::fabs(t);
            }
        (*y)[(o * s.oh + oy) * s.ow + ox] = acc;
        (*mag)[(o * s.oh + oy) * s.ow + ox] = abs;
      }
}

bool plain_only() {
  const char* v = std::getenv("ARUN_CONV_LAYOUT");
  return v != nullptr && std::strcmp(v, "plain") == 0;
}

struct Case {
  OneDnnConv2d s;
  bool blocked;  // the path expected unless ARUN_CONV_LAYOUT=plain
};

TEST(OneDnnConv, BothLayoutsMatchADirectConvolution) {
  const Case cases[] = {
      {make(64, 20, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, true), true},
      {make(3, 40, 37, 20, 5, 5, 2, 1, 2, 1, 0, 3, true), true},    // 20 channels: a block and a part
      {make(16, 33, 30, 16, 3, 3, 1, 2, 2, 2, 2, 2, false), true},  // dilated, no bias
      {make(24, 1, 300, 16, 1, 5, 1, 1, 0, 2, 0, 2, true), true},   // a 1-D row
      {make(7, 30, 30, 48, 7, 7, 2, 1, 3, 3, 3, 3, true), true},    // the first layer's kind
      {make(64, 20, 20, 32, 1, 1, 1, 1, 0, 0, 0, 0, true), false},  // 1x1: one sgemm on NCHW
      {make(64, 10, 10, 32, 3, 3, 1, 1, 1, 1, 1, 1, true), false},  // under 14x14 outputs
      {make(1, 28, 28, 8, 3, 3, 1, 1, 1, 1, 1, 1, true), false},    // under 16 output channels
  };
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const Case& k : cases) {
    const OneDnnConv2d& s = k.s;
    SCOPED_TRACE(testing::Message() << "c " << s.c << " " << s.h << "x" << s.w << " -> m " << s.m << " k " << s.kh
                                    << "x" << s.kw << " stride " << s.stride_h << " dil " << s.dil_h);
    ASSERT_TRUE(arun::ops::onednn_conv2d_supported(s));
    EXPECT_EQ(k.blocked && !plain_only(), arun::ops::onednn_conv2d_blocked(s));
    std::vector<float> x(size_t(s.c * s.h * s.w)), w(size_t(s.m * s.c * s.kh * s.kw)), b(size_t(s.m));
    for (float& v : x) v = u(rng);
    for (float& v : w) v = u(rng);
    for (float& v : b) v = u(rng);
    // Guard elements on both sides of the output: nothing may be written outside it.
    const size_t out = size_t(s.m * s.oh * s.ow);
    std::vector<float> y(out + 32, 12345.0f);
    ASSERT_TRUE(arun::ops::onednn_conv2d(s, x.data(), w.data(), s.bias ? b.data() : nullptr, y.data() + 16));
    std::vector<double> ref, mag;
    reference(s, x, w, b, &ref, &mag);
    size_t bad = 0;
    for (size_t i = 0; i < out; ++i) {
      if (std::fabs(y[16 + i] - ref[i]) > 1e-5 * mag[i] + 1e-6 && bad++ < 5) {
        ADD_FAILURE() << "output " << i << ": " << y[16 + i] << " against " << ref[i];
      }
    }
    EXPECT_EQ(0u, bad);
    for (size_t i = 0; i < 16; ++i) {
      EXPECT_EQ(12345.0f, y[i]);
      EXPECT_EQ(12345.0f, y[16 + out + i]);
    }
  }
}

}  // namespace
