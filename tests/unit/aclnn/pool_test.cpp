// MaxPool, MaxPool2dWithIndices/WithMask and AvgPool2d (aclnn-api.md 5.21-5.22) against a float64
// reference pool: 3-D and 4-D selfs, strides, padding, ceil mode, dilation, count_include_pad,
// divisorOverride, INT32/INT64 indices, a non-contiguous self, and the argument errors.
#include <limits>

#include "aclnn_support.hpp"
#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"

namespace aclnn_test {
namespace {

class AclnnPool : public AclnnTest {};

struct Geo {
  int64_t k[2], s[2], pb[2], pe[2], d[2];
  bool ceil;
};

int64_t out_dim(int64_t in, const Geo& g, int i) {
  const int64_t span = g.d[i] * (g.k[i] - 1) + 1, room = in + g.pb[i] + g.pe[i] - span;
  int64_t o = (g.ceil ? (room + g.s[i] - 1) / g.s[i] : room / g.s[i]) + 1;
  if (g.ceil && (o - 1) * g.s[i] >= in + g.pb[i]) --o;
  return o;
}

// Reference over planes of h x w: max (value, per-plane index) or average.
void ref_pool(const std::vector<double>& x, int64_t planes, int64_t h, int64_t w, const Geo& g, bool max,
              bool include_pad, int64_t divisor, std::vector<double>* y, std::vector<double>* idx) {
  const int64_t oh = out_dim(h, g, 0), ow = out_dim(w, g, 1);
  y->assign(static_cast<size_t>(planes * oh * ow), 0);
  idx->assign(y->size(), 0);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t at = -1, valid = 0, covered = 0;
        for (int64_t ky = 0; ky < g.k[0]; ++ky)
          for (int64_t kx = 0; kx < g.k[1]; ++kx) {
            const int64_t iy = oy * g.s[0] - g.pb[0] + ky * g.d[0], ix = ox * g.s[1] - g.pb[1] + kx * g.d[1];
            if (iy < h + g.pe[0] && ix < w + g.pe[1]) ++covered;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            const double v = x[static_cast<size_t>((p * h + iy) * w + ix)];
            if (at < 0 || v > best) {
              best = v;
              at = iy * w + ix;
            }
            sum += v;
            ++valid;
          }
        const size_t o = static_cast<size_t>((p * oh + oy) * ow + ox);
        (*y)[o] = max ? best : sum / static_cast<double>(divisor != 0 ? divisor : include_pad ? covered : valid);
        (*idx)[o] = static_cast<double>(at);
      }
}

TEST_F(AclnnPool, MaxPool2dWithIndicesAndMask) {
  const std::vector<Geo> geos = {{{2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, false},
                                 {{3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 1}, true},
                                 {{3, 2}, {1, 2}, {1, 0}, {1, 0}, {2, 1}, false},
                                 {{2, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true}};
  int round = 0;
  for (const Geo& g : geos) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      const bool three_d = round % 2 == 1;
      const aclDataType it = round % 3 == 0 ? ACL_INT32 : ACL_INT64;
      ++round;
      const Dims xd = three_d ? Dims{3, 7, 9} : Dims{2, 3, 7, 9};
      DevTensor x, y, idx;
      make_transposed(x, dt, xd);  // non-contiguous: H and W swapped in storage
      Dims od = xd;
      od[od.size() - 2] = out_dim(7, g, 0);
      od[od.size() - 1] = out_dim(9, g, 1);
      make(y, dt, od);
      make(idx, it, od);
      aclIntArray *k = arr({g.k[0], g.k[1]}), *s = arr({g.s[0], g.s[1]}), *p = arr({g.pb[0], g.pb[1]}),
                  *d = arr({g.d[0], g.d[1]});
      uint64_t ws;
      aclOpExecutor* ex;
      const bool mask = round % 2 == 0;
      auto p1 = mask ? aclnnMaxPool2dWithMaskGetWorkspaceSize : aclnnMaxPool2dWithIndicesGetWorkspaceSize;
      ASSERT_EQ(p1(x.t, k, s, p, d, g.ceil, y.t, idx.t, &ws, &ex), 0) << aclGetRecentErrMsg();
      run(mask ? aclnnMaxPool2dWithMask : aclnnMaxPool2dWithIndices, ws, ex, stream_);
      std::vector<double> want, want_idx;
      ref_pool(x.read_view(), numel(xd) / 63, 7, 9, g, true, false, 0, &want, &want_idx);
      EXPECT_EQ(y.read_view(), want);
      EXPECT_EQ(idx.read_view(), want_idx);
      for (aclIntArray* a : {k, s, p, d}) aclDestroyIntArray(a);
    }
  }
}

TEST_F(AclnnPool, MaxPoolOnnxStyle) {
  // 4-value pads {top, left, bottom, right}, empty strides (1), ceil mode; a 3-D self.
  for (const Dims& xd : {Dims{2, 3, 6, 5}, Dims{4, 6, 5}}) {
    const Geo g{{3, 2}, {1, 1}, {1, 0}, {2, 1}, {1, 1}, true};
    DevTensor x, y;
    make(x, ACL_FLOAT, xd);
    Dims od = xd;
    od[od.size() - 2] = out_dim(6, g, 0);
    od[od.size() - 1] = out_dim(5, g, 1);
    make(y, ACL_FLOAT, od);
    aclIntArray *k = arr({3, 2}), *s = arr({}), *p = arr({1, 0, 2, 1}), *d = arr({1, 1});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 0, p, d, 1, y.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnMaxPool, ws, ex, stream_);
    std::vector<double> want, idx;
    ref_pool(x.read_view(), numel(xd) / 30, 6, 5, g, true, false, 0, &want, &idx);
    EXPECT_EQ(y.read_view(), want);
    for (aclIntArray* a : {k, s, p, d}) aclDestroyIntArray(a);
  }
}

TEST_F(AclnnPool, AvgPool2dModes) {
  struct Case {
    Geo g;
    bool include_pad;
    int64_t divisor;
  };
  const std::vector<Case> cases = {{{{2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, false}, true, 0},
                                   {{{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true}, true, 0},
                                   {{{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true}, false, 0},
                                   {{{3, 2}, {1, 2}, {1, 1}, {1, 1}, {1, 1}, false}, false, 5}};
  int round = 0;
  for (const Case& c : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      const Dims xd = round++ % 2 == 0 ? Dims{2, 3, 7, 8} : Dims{3, 7, 8};
      DevTensor x, y;
      make(x, dt, xd);
      Dims od = xd;
      od[od.size() - 2] = out_dim(7, c.g, 0);
      od[od.size() - 1] = out_dim(8, c.g, 1);
      make(y, dt, od);
      aclIntArray *k = arr({c.g.k[0], c.g.k[1]}), *s = arr({c.g.s[0], c.g.s[1]}), *p = arr({c.g.pb[0], c.g.pb[1]});
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, p, c.g.ceil, c.include_pad, c.divisor, 0, y.t, &ws, &ex), 0)
          << aclGetRecentErrMsg();
      run(aclnnAvgPool2d, ws, ex, stream_);
      std::vector<double> want, idx;
      ref_pool(x.read_view(), numel(xd) / 56, 7, 8, c.g, false, c.include_pad, c.divisor, &want, &idx);
      for (double& v : want) v = as_dtype(v, dt);
      expect_close(y.read_view(), want, dt == ACL_FLOAT ? ACL_FLOAT16 : dt, "AvgPool2d");
      for (aclIntArray* a : {k, s, p}) aclDestroyIntArray(a);
    }
  }
}

TEST_F(AclnnPool, Errors) {
  DevTensor x, y, y_bad, idx, idx_f, x2, i32;
  make(x, ACL_FLOAT, {1, 2, 6, 6});
  make(y, ACL_FLOAT, {1, 2, 3, 3});
  make(y_bad, ACL_FLOAT, {1, 2, 4, 4});
  make(idx, ACL_INT64, {1, 2, 3, 3});
  make(idx_f, ACL_FLOAT, {1, 2, 3, 3});
  make(x2, ACL_FLOAT, {6, 6});
  make(i32, ACL_INT32, {1, 2, 6, 6});
  aclIntArray *k = arr({2, 2}), *s = arr({2, 2}), *p0 = arr({0}), *d = arr({1}), *big_pad = arr({2}), *none = arr({}),
              *k3 = arr({2, 2, 2}), *d2 = arr({2, 2}), *p4 = arr({0, 0, 0, 0}), *bad_p = arr({2, 0, 1, 0});
  uint64_t ws;
  aclOpExecutor* ex;
  // WithIndices.
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(nullptr, k, s, p0, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, nullptr, s, p0, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, k, s, p0, d, false, y.t, nullptr, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMaxPool2dWithMaskGetWorkspaceSize(x.t, k, s, p0, d, false, nullptr, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, k, s, big_pad, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // padding > k/2
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, k3, s, p0, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // kernel length
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, none, s, p0, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // empty kernel
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, k, s, p0, d, false, y_bad.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // out shape
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, k, s, p0, d, false, y.t, idx_f.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // indices dtype
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x2.t, k, s, p0, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // rank 2
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(i32.t, k, s, p0, d, false, y.t, idx.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // dtype
  // MaxPool (ONNX style).
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(nullptr, k, s, 0, p4, d, 0, y.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 0, p4, d, 0, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 1, p4, d, 0, y.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // autoPad
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 0, p4, d2, 0, y.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dil.
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 0, bad_p, d, 0, y.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 0, k3, d, 0, y.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // 3 pads
  EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(x.t, k, s, 0, p4, d, 0, y_bad.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  // AvgPool2d.
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(nullptr, k, s, p0, false, true, 0, 0, y.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, nullptr, p0, false, true, 0, 0, y.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, nullptr, false, true, 0, 0, y.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, p0, false, true, 0, 0, nullptr, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, p0, false, true, 0, 3, y.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // cubeMathType 3
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, big_pad, false, true, 0, 0, y.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, none, false, true, 0, 0, y.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // empty paddings
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, p0, false, true, -1, 0, y.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(x.t, k, s, p0, false, true, 0, 0, y_bad.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  DevTensor e, eo;
  make(e, ACL_FLOAT, {0, 2, 6, 6});
  make(eo, ACL_FLOAT, {0, 2, 3, 3});
  EXPECT_EQ(aclnnAvgPool2dGetWorkspaceSize(e.t, k, s, p0, false, true, 0, 0, eo.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // empty self
  for (aclIntArray* a : {k, s, p0, d, big_pad, none, k3, d2, p4, bad_p}) aclDestroyIntArray(a);
}

}  // namespace
}  // namespace aclnn_test
