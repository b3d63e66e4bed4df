// Convolution, ConvTbc and ConvDepthwise2d (aclnn-api.md 5.20) against a float64 direct
// convolution: 1-D and 2-D, transposed, groups, strides, asymmetric padding, dilation, output
// padding, bias or none, float32/float16/bf16, a non-contiguous input, and the argument errors
// (561103 for the 3-D transposed form, which has no kernel here).
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_convolution.h"

namespace aclnn_test {
namespace {

class AclnnConv : public AclnnTest {};

struct Spec2d {
  int64_t s[2], pb[2], pe[2], d[2], groups;
};

// y[n, m, oy, ox] over x [N, C, H, W] (rows of one-element height for 1-D) and w [M, C/g, kH, kW].
std::vector<double> ref_conv(const std::vector<double>& x, const Dims& xd, const std::vector<double>& w, const Dims& wd,
                             const std::vector<double>* bias, const Spec2d& c, const Dims& yd) {
  const int64_t n = xd[0], ch = xd[1], h = xd[2], wi = xd[3], m = wd[0], cg = wd[1], kh = wd[2], kw = wd[3];
  const int64_t oh = yd[2], ow = yd[3], mg = m / c.groups;
  std::vector<double> y(static_cast<size_t>(n * m * oh * ow));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = bias != nullptr ? (*bias)[static_cast<size_t>(o)] : 0;
          const int64_t g = o / mg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = oy * c.s[0] - c.pb[0] + ky * c.d[0], ix = ox * c.s[1] - c.pb[1] + kx * c.d[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wi) continue;
                acc += x[static_cast<size_t>(((b * ch + g * cg + ci) * h + iy) * wi + ix)] *
                       w[static_cast<size_t>(((o * cg + ci) * kh + ky) * kw + kx)];
              }
          y[static_cast<size_t>(((b * m + o) * oh + oy) * ow + ox)] = acc;
        }
  return y;
}

int64_t osz(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d) {
  return (in + pb + pe - d * (k - 1) - 1) / s + 1;
}

TEST_F(AclnnConv, Convolution2dAnd1d) {
  struct Case {
    aclDataType dt;
    Dims xd, wd;
    Spec2d c;
    bool bias, four_pads;
  };
  const std::vector<Case> cases = {
      {ACL_FLOAT, {2, 4, 7, 6}, {6, 2, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 2}, true, false},
      {ACL_FLOAT, {1, 3, 9, 8}, {4, 3, 3, 2}, {{2, 3}, {1, 0}, {2, 1}, {2, 1}, 1}, false, true},
      {ACL_FLOAT16, {2, 3, 5, 5}, {3, 3, 1, 1}, {{1, 1}, {0, 0}, {0, 0}, {1, 1}, 1}, true, false},
      {ACL_BF16, {1, 4, 6, 6}, {4, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}, 4}, true, false},
      // 1-D: H = 1 in the reference.
      {ACL_FLOAT, {2, 3, 1, 11}, {5, 3, 1, 4}, {{1, 2}, {0, 2}, {0, 1}, {1, 2}, 1}, true, false},
  };
  for (const Case& k : cases) {
    const bool one_d = k.xd[2] == 1 && k.wd[2] == 1 && &k == &cases.back();
    const Dims yd{k.xd[0], k.wd[0], osz(k.xd[2], k.wd[2], k.c.s[0], k.c.pb[0], k.c.pe[0], k.c.d[0]),
                  osz(k.xd[3], k.wd[3], k.c.s[1], k.c.pb[1], k.c.pe[1], k.c.d[1])};
    const Dims xd = one_d ? Dims{k.xd[0], k.xd[1], k.xd[3]} : k.xd;
    const Dims wd = one_d ? Dims{k.wd[0], k.wd[1], k.wd[3]} : k.wd;
    const Dims yv = one_d ? Dims{yd[0], yd[1], yd[3]} : yd;
    DevTensor x, w, b, y;
    make_transposed(x, k.dt, xd);  // a non-contiguous input
    make(w, k.dt, wd);
    make(b, ACL_FLOAT, {k.wd[0]});
    make(y, k.dt, yv);
    aclIntArray *st = one_d ? arr({k.c.s[1]}) : arr({k.c.s[0], k.c.s[1]}),
                *dl = one_d ? arr({k.c.d[1]}) : arr({k.c.d[0], k.c.d[1]}),
                *pd = one_d         ? arr({k.c.pb[1], k.c.pe[1]})
                      : k.four_pads ? arr({k.c.pb[0], k.c.pe[0], k.c.pb[1], k.c.pe[1]})
                                    : arr({k.c.pb[0], k.c.pb[1]}),
                *op = one_d ? arr({0}) : arr({0, 0});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnConvolutionGetWorkspaceSize(x.t, w.t, k.bias ? b.t : nullptr, st, pd, dl, false, op, k.c.groups, y.t,
                                               0, &ws, &ex),
              0)
        << aclGetRecentErrMsg();
    run(aclnnConvolution, ws, ex, stream_);
    const auto vb = b.read_view();
    auto want = ref_conv(x.read_view(), k.xd, w.read_view(), k.wd, k.bias ? &vb : nullptr, k.c, yd);
    for (double& v : want) v = as_dtype(v, k.dt);
    expect_close(y.read_view(), want, k.dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_BF16, "Convolution");
    for (aclIntArray* a : {st, dl, pd, op}) aclDestroyIntArray(a);
  }
}

TEST_F(AclnnConv, TransposedConvolution) {
  struct Case {
    aclDataType dt;
    Dims xd, wd;  // x [N, Cin, H, W], w [Cin, Cout/g, kH, kW] (H = kH = 1 for 1-D)
    int64_t s[2], p[2], d[2], op[2], groups;
    bool bias;
  };
  const std::vector<Case> cases = {
      {ACL_FLOAT, {2, 4, 5, 4}, {4, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 0}, 2, true},
      {ACL_FLOAT16, {1, 2, 4, 4}, {2, 2, 2, 3}, {1, 2}, {0, 1}, {2, 1}, {0, 1}, 1, false},
      {ACL_FLOAT, {2, 3, 1, 6}, {3, 2, 1, 3}, {1, 3}, {0, 1}, {1, 2}, {0, 2}, 1, true},  // 1-D
  };
  for (const Case& k : cases) {
    const bool one_d = &k == &cases.back();
    const int64_t cout = k.wd[1] * k.groups;
    int64_t o[2];
    for (int d = 0; d < 2; ++d)
      o[d] = (k.xd[2 + d] - 1) * k.s[d] - 2 * k.p[d] + k.d[d] * (k.wd[2 + d] - 1) + k.op[d] + 1;
    const Dims yd{k.xd[0], cout, o[0], o[1]};
    DevTensor x, w, b, y;
    make(x, k.dt, one_d ? Dims{k.xd[0], k.xd[1], k.xd[3]} : k.xd);
    make(w, k.dt, one_d ? Dims{k.wd[0], k.wd[1], k.wd[3]} : k.wd);
    make(b, k.dt, {cout});
    make(y, k.dt, one_d ? Dims{yd[0], yd[1], yd[3]} : yd);
    aclIntArray *st = one_d ? arr({k.s[1]}) : arr({k.s[0], k.s[1]}),
                *pd = one_d ? arr({k.p[1]}) : arr({k.p[0], k.p[1]}),
                *dl = one_d ? arr({k.d[1]}) : arr({k.d[0], k.d[1]}),
                *op = one_d ? arr({k.op[1]}) : arr({k.op[0], k.op[1]});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnConvolutionGetWorkspaceSize(x.t, w.t, k.bias ? b.t : nullptr, st, pd, dl, true, op, k.groups, y.t, 0,
                                               &ws, &ex),
              0)
        << aclGetRecentErrMsg();
    run(aclnnConvolution, ws, ex, stream_);
    // Reference: scatter every input element through every tap.
    const auto vx = x.read_view(), vw = w.read_view(), vb = b.read_view();
    std::vector<double> want(static_cast<size_t>(numel(yd)));
    const int64_t cg = k.xd[1] / k.groups, mg = k.wd[1];
    for (int64_t n = 0; n < yd[0]; ++n)
      for (int64_t m = 0; m < cout; ++m)
        for (int64_t i = 0; i < o[0] * o[1]; ++i)
          want[static_cast<size_t>((n * cout + m) * o[0] * o[1] + i)] = k.bias ? vb[static_cast<size_t>(m)] : 0;
    for (int64_t n = 0; n < k.xd[0]; ++n)
      for (int64_t c = 0; c < k.xd[1]; ++c)
        for (int64_t iy = 0; iy < k.xd[2]; ++iy)
          for (int64_t ix = 0; ix < k.xd[3]; ++ix)
            for (int64_t mm = 0; mm < mg; ++mm)
              for (int64_t ky = 0; ky < k.wd[2]; ++ky)
                for (int64_t kx = 0; kx < k.wd[3]; ++kx) {
                  const int64_t oy = iy * k.s[0] - k.p[0] + ky * k.d[0], ox = ix * k.s[1] - k.p[1] + kx * k.d[1];
                  if (oy < 0 || oy >= o[0] || ox < 0 || ox >= o[1]) continue;
                  const int64_t m = (c / cg) * mg + mm;
                  want[static_cast<size_t>(((n * cout + m) * o[0] + oy) * o[1] + ox)] +=
                      vx[static_cast<size_t>(((n * k.xd[1] + c) * k.xd[2] + iy) * k.xd[3] + ix)] *
                      vw[static_cast<size_t>(((c * mg + mm) * k.wd[2] + ky) * k.wd[3] + kx)];
                }
    for (double& v : want) v = as_dtype(v, k.dt);
    expect_close(y.read_view(), want, ACL_BF16, "transposed Convolution");
    for (aclIntArray* a : {st, pd, dl, op}) aclDestroyIntArray(a);
  }
}

TEST_F(AclnnConv, Convolution3d) {
  // x [2, 4, 5, 4, 6], w [6, 2, 3, 2, 3], groups 2, strides (1, 2, 2), padding (1, 0, 1), dilation (1, 1, 2).
  const Dims xd{2, 4, 5, 4, 6}, wd{6, 2, 3, 2, 3};
  const int64_t s[3] = {1, 2, 2}, p[3] = {1, 0, 1}, dl[3] = {1, 1, 2}, g = 2;
  int64_t o[3];
  for (int d = 0; d < 3; ++d) o[d] = osz(xd[2 + d], wd[2 + d], s[d], p[d], p[d], dl[d]);
  const Dims yd{2, 6, o[0], o[1], o[2]};
  DevTensor x, w, b, y;
  make(x, ACL_BF16, xd);
  make(w, ACL_BF16, wd);
  make(b, ACL_BF16, {6});
  make(y, ACL_FLOAT, yd);
  aclIntArray *st = arr({1, 2, 2}), *pd = arr({1, 0, 1}), *di = arr({1, 1, 2}), *op = arr({0, 0, 0});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnConvolutionGetWorkspaceSize(x.t, w.t, b.t, st, pd, di, false, op, g, y.t, 0, &ws, &ex), 0)
      << aclGetRecentErrMsg();
  run(aclnnConvolution, ws, ex, stream_);
  const auto vx = x.read_view(), vw = w.read_view(), vb = b.read_view(), vy = y.read_view();
  std::vector<double> want(vy.size());
  const int64_t cg = 2, mg = 3;
  size_t at = 0;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t m = 0; m < 6; ++m)
      for (int64_t oz = 0; oz < o[0]; ++oz)
        for (int64_t oy = 0; oy < o[1]; ++oy)
          for (int64_t ox = 0; ox < o[2]; ++ox, ++at) {
            double acc = vb[static_cast<size_t>(m)];
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t kz = 0; kz < wd[2]; ++kz)
                for (int64_t ky = 0; ky < wd[3]; ++ky)
                  for (int64_t kx = 0; kx < wd[4]; ++kx) {
                    const int64_t iz = oz * s[0] - p[0] + kz * dl[0], iy = oy * s[1] - p[1] + ky * dl[1],
                                  ix = ox * s[2] - p[2] + kx * dl[2];
                    if (iz < 0 || iz >= xd[2] || iy < 0 || iy >= xd[3] || ix < 0 || ix >= xd[4]) continue;
                    const int64_t c = (m / mg) * cg + ci;
                    acc += vx[static_cast<size_t>((((n * 4 + c) * xd[2] + iz) * xd[3] + iy) * xd[4] + ix)] *
                           vw[static_cast<size_t>((((m * cg + ci) * wd[2] + kz) * wd[3] + ky) * wd[4] + kx)];
                  }
            want[at] = acc;
          }
  expect_close(vy, want, ACL_FLOAT16, "Convolution 3-D");
  for (aclIntArray* a : {st, pd, di, op}) aclDestroyIntArray(a);
}

TEST_F(AclnnConv, ConvTbcAndDepthwise) {
  // ConvTbc: self [T, B, Cin], weight [K, Cin, Cout], bias [Cout], symmetric pad.
  const int64_t t = 9, bsz = 2, cin = 3, kk = 3, cout = 4, pad = 1, tout = t + 2 * pad - kk + 1;
  DevTensor x, w, b, y;
  make(x, ACL_FLOAT, {t, bsz, cin});
  make(w, ACL_FLOAT, {kk, cin, cout});
  make(b, ACL_FLOAT, {cout});
  make(y, ACL_FLOAT, {tout, bsz, cout});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnConvTbcGetWorkspaceSize(x.t, w.t, b.t, pad, y.t, 0, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnConvTbc, ws, ex, stream_);
  {
    const auto vx = x.read_view(), vw = w.read_view(), vb = b.read_view(), vy = y.read_view();
    std::vector<double> want(vy.size());
    for (int64_t to = 0; to < tout; ++to)
      for (int64_t bb = 0; bb < bsz; ++bb)
        for (int64_t o = 0; o < cout; ++o) {
          double acc = vb[static_cast<size_t>(o)];
          for (int64_t k = 0; k < kk; ++k) {
            const int64_t ti = to - pad + k;
            if (ti < 0 || ti >= t) continue;
            for (int64_t c = 0; c < cin; ++c)
              acc += vx[static_cast<size_t>((ti * bsz + bb) * cin + c)] *
                     vw[static_cast<size_t>((k * cin + c) * cout + o)];
          }
          want[static_cast<size_t>((to * bsz + bb) * cout + o)] = acc;
        }
    expect_close(vy, want, ACL_FLOAT16, "ConvTbc");
  }
  // ConvDepthwise2d: weight [C x 2, 1, 3, 3], groups = C.
  DevTensor dx, dw, dy;
  make(dx, ACL_FLOAT16, {2, 3, 6, 5});
  make(dw, ACL_FLOAT16, {6, 1, 3, 3});
  make(dy, ACL_FLOAT16, {2, 6, 3, 3});
  aclIntArray *ks = arr({3, 3}), *st = arr({2}), *pd = arr({1, 1}), *dl = arr({1});
  ASSERT_EQ(aclnnConvDepthwise2dGetWorkspaceSize(dx.t, dw.t, ks, nullptr, st, pd, dl, dy.t, 0, &ws, &ex), 0)
      << aclGetRecentErrMsg();
  run(aclnnConvDepthwise2d, ws, ex, stream_);
  auto want =
      ref_conv(dx.read_view(), dx.view, dw.read_view(), dw.view, nullptr, {{2, 2}, {1, 1}, {1, 1}, {1, 1}, 3}, dy.view);
  for (double& v : want) v = as_dtype(v, ACL_FLOAT16);
  expect_close(dy.read_view(), want, ACL_FLOAT16, "ConvDepthwise2d");
  for (aclIntArray* a : {ks, st, pd, dl}) aclDestroyIntArray(a);
}

TEST_F(AclnnConv, Errors) {
  DevTensor x, w, b, y, y_bad, i32, w_bad, x3, w3, y3, yt;
  make(x, ACL_FLOAT, {1, 4, 6, 6});
  make(w, ACL_FLOAT, {2, 4, 3, 3});
  make(b, ACL_FLOAT, {3});
  make(y, ACL_FLOAT, {1, 2, 4, 4});
  make(y_bad, ACL_FLOAT, {1, 2, 5, 5});
  make(i32, ACL_INT32, {1, 4, 6, 6});
  make(w_bad, ACL_FLOAT, {2, 3, 3, 3});
  make(x3, ACL_FLOAT, {1, 2, 4, 4, 4});
  make(w3, ACL_FLOAT, {2, 2, 3, 3, 3});
  make(y3, ACL_FLOAT, {1, 2, 2, 2, 2});
  make(yt, ACL_FLOAT, {1, 3, 8, 8});
  aclIntArray *one = arr({1, 1}), *zero = arr({0, 0}), *three = arr({1, 1, 1}), *zero3 = arr({0, 0, 0}),
              *bad_pad = arr({0, 0, 0}), *neg = arr({0, -1}), *big_op = arr({1, 1});
  uint64_t ws;
  aclOpExecutor* ex;
  auto conv = [&](const aclTensor* in, const aclTensor* wt, const aclTensor* bias, const aclIntArray* s,
                  const aclIntArray* p, const aclIntArray* d, bool tr, const aclIntArray* op, int64_t g,
                  aclTensor* out) {
    return aclnnConvolutionGetWorkspaceSize(in, wt, bias, s, p, d, tr, op, g, out, 0, &ws, &ex);
  };
  EXPECT_EQ(conv(nullptr, w.t, nullptr, one, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(x.t, nullptr, nullptr, one, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(x.t, w.t, nullptr, nullptr, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, nullptr, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, zero, nullptr, false, zero, 1, y.t), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, zero, one, false, nullptr, 1, y.t), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, zero, one, false, zero, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(conv(i32.t, w.t, nullptr, one, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);  // dtype
  EXPECT_EQ(conv(x.t, w.t, nullptr, three, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);  // lengths
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, bad_pad, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, neg, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(conv(x.t, w.t, nullptr, zero, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);  // stride 0
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, zero, one, false, zero, 0, y.t), ACLNN_ERR_PARAM_INVALID);   // groups
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, zero, one, false, zero, 3, y.t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(conv(x.t, w_bad.t, nullptr, one, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(conv(x.t, w.t, b.t, one, zero, one, false, zero, 1, y.t), ACLNN_ERR_PARAM_INVALID);  // bias length
  EXPECT_EQ(conv(x.t, w.t, nullptr, one, zero, one, false, zero, 1, y_bad.t), ACLNN_ERR_PARAM_INVALID);
  DevTensor xs, ys;
  make(xs, ACL_FLOAT, {1, 4, 2, 2});
  make(ys, ACL_FLOAT, {1, 2, 1, 1});
  EXPECT_EQ(conv(xs.t, w.t, nullptr, one, zero, one, false, zero, 1, ys.t), ACLNN_ERR_PARAM_INVALID);  // too small
  // Transposed: outputPadding >= stride and dilation; then no kernel (561103).
  DevTensor wt;
  make(wt, ACL_FLOAT, {4, 3, 3, 3});
  EXPECT_EQ(conv(x.t, wt.t, nullptr, one, zero, one, true, big_op, 1, yt.t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(conv(x.t, wt.t, nullptr, one, zero, one, true, zero, 1, yt.t), 0);
  aclDestroyAclOpExecutor(ex);
  DevTensor wt16;
  make(wt16, ACL_FLOAT16, {4, 3, 3, 3});
  EXPECT_EQ(conv(x.t, wt16.t, nullptr, one, zero, one, true, zero, 1, yt.t), ACLNN_ERR_PARAM_INVALID);  // mixed
  EXPECT_EQ(conv(x3.t, w3.t, nullptr, three, zero3, three, false, zero3, 1, y3.t), 0);
  aclDestroyAclOpExecutor(ex);
  DevTensor yt3;
  make(yt3, ACL_FLOAT, {1, 2, 6, 6, 6});
  EXPECT_EQ(conv(x3.t, w3.t, nullptr, three, zero3, three, true, zero3, 1, yt3.t), ACLNN_ERR_INNER_NULLPTR);
  // ConvTbc / ConvDepthwise2d.
  DevTensor tx, tw, tb, ty;
  make(tx, ACL_FLOAT, {5, 2, 3});
  make(tw, ACL_FLOAT, {2, 3, 4});
  make(tb, ACL_FLOAT, {4});
  make(ty, ACL_FLOAT, {4, 2, 4});
  EXPECT_EQ(aclnnConvTbcGetWorkspaceSize(tx.t, tw.t, nullptr, 0, ty.t, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnConvTbcGetWorkspaceSize(tx.t, tw.t, tb.t, 1, ty.t, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnConvTbcGetWorkspaceSize(tx.t, tx.t, tb.t, 0, ty.t, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclIntArray* k3 = arr({3, 3});
  DevTensor dwt;
  make(dwt, ACL_FLOAT, {8, 1, 3, 3});
  DevTensor dyt;
  make(dyt, ACL_FLOAT, {1, 8, 4, 4});
  EXPECT_EQ(aclnnConvDepthwise2dGetWorkspaceSize(x.t, dwt.t, nullptr, nullptr, one, zero, one, dyt.t, 0, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnConvDepthwise2dGetWorkspaceSize(x.t, w.t, k3, nullptr, one, zero, one, dyt.t, 0, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // not [C x m, 1, kH, kW]
  EXPECT_EQ(aclnnConvDepthwise2dGetWorkspaceSize(x.t, dwt.t, one, nullptr, one, zero, one, dyt.t, 0, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // kernelSize differs
  EXPECT_EQ(aclnnConvDepthwise2dGetWorkspaceSize(x.t, dwt.t, k3, nullptr, one, zero, one, dyt.t, 0, &ws, &ex), 0);
  aclDestroyAclOpExecutor(ex);
  for (aclIntArray* a : {one, zero, three, zero3, bad_pad, neg, big_op, k3}) aclDestroyIntArray(a);
}

}  // namespace
}  // namespace aclnn_test
