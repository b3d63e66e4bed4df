// SWhere and the Clamp family (aclnn-api.md 5.34-5.35) against host references: three-way
// broadcasting, promotion, non-contiguous views, NaN propagation, min > max, in-place forms, errors.
#include <limits>

#include "aclnn_support.hpp"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_s_where.h"

namespace aclnn_test {
namespace {

class AclnnSelect : public AclnnTest {};

TEST_F(AclnnSelect, SWhereBroadcastPromoteAndViews) {
  struct Case {
    aclDataType c, x, y, o;
    Dims dc, dx, dy, dout;
  };
  const std::vector<Case> cases = {
      {ACL_BOOL, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, {3, 4}, {3, 4}, {3, 4}, {3, 4}},
      {ACL_UINT8, ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT, {2, 1, 5}, {4, 1}, {5}, {2, 4, 5}},
      {ACL_BOOL, ACL_INT32, ACL_INT8, ACL_INT64, {7}, {1}, {3, 7}, {3, 7}},
      {ACL_BOOL, ACL_BF16, ACL_BF16, ACL_BF16, {}, {2, 3}, {}, {2, 3}},
      {ACL_BOOL, ACL_UINT16, ACL_UINT16, ACL_UINT16, {4}, {4}, {2, 4}, {2, 4}},
      {ACL_BOOL, ACL_DOUBLE, ACL_BOOL, ACL_DOUBLE, {5, 1}, {1, 6}, {5, 6}, {5, 6}},
  };
  for (const Case& k : cases) {
    DevTensor c, x, y, out;
    make(c, k.c, k.dc, random_values(std::max<int64_t>(numel(k.dc), 1), ACL_BOOL));
    if (k.dx.size() == 2) {
      make_transposed(x, k.x, k.dx);  // a non-contiguous self
    } else {
      make(x, k.x, k.dx);
    }
    make(y, k.y, k.dy);
    make(out, k.o, k.dout);
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, y.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnSWhere, ws, ex, stream_);
    const auto vc = c.read_view(), vx = x.read_view(), vy = y.read_view(), o = out.read_view();
    std::vector<double> want(o.size());
    for (size_t i = 0; i < o.size(); ++i) {
      want[i] = as_dtype(vc[bcast_index(c.view, out.view, i)] != 0 ? vx[bcast_index(x.view, out.view, i)]
                                                                   : vy[bcast_index(y.view, out.view, i)],
                         k.o);
    }
    expect_close(o, want, k.o, "SWhere");
  }
}

TEST_F(AclnnSelect, SWhereErrors) {
  DevTensor c, fc, x, y, out, bad, u32, i16o;
  make(c, ACL_BOOL, {2, 3});
  make(fc, ACL_FLOAT, {2, 3});
  make(x, ACL_FLOAT, {2, 3});
  make(y, ACL_FLOAT, {3});
  make(out, ACL_FLOAT, {2, 3});
  make(bad, ACL_FLOAT, {2, 4});
  make(u32, ACL_UINT32, {2, 3});
  make(i16o, ACL_BOOL, {2, 3});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(nullptr, x.t, y.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, nullptr, y.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, y.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(fc.t, x.t, y.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // condition
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, u32.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // no promotion
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, y.t, bad.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);    // out shape
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, bad.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // broadcast
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, x.t, y.t, i16o.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // not castable
  // A complex descriptor (phase 1 never reads the memory).
  const Dims cd{2, 3}, cs{3, 1};
  aclTensor* cplx = aclCreateTensor(cd.data(), 2, ACL_COMPLEX64, cs.data(), 0, ACL_FORMAT_ND, cd.data(), 2, x.dev);
  EXPECT_EQ(aclnnSWhereGetWorkspaceSize(c.t, cplx, y.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dtype
  aclDestroyTensor(cplx);
}

double clamp_ref(double x, const double* lo, const double* hi) {
  if (std::isnan(x)) return x;
  if (hi != nullptr) x = std::isnan(*hi) ? *hi : std::min(x, *hi);
  if (lo != nullptr) x = std::isnan(*lo) ? *lo : std::max(x, *lo);
  return x;
}

struct ScalarHolder {
  aclScalar* s = nullptr;
  ScalarHolder(double v, aclDataType d) {
    unsigned char b[8] = {};
    store(b, d, v);
    s = aclCreateScalar(b, d);
  }
  ~ScalarHolder() { aclDestroyScalar(s); }
};

TEST_F(AclnnSelect, ClampScalarBounds) {
  struct Case {
    aclDataType self, out;
    double lo, hi;
    aclDataType bound;
  };
  const std::vector<Case> cases = {
      {ACL_FLOAT, ACL_FLOAT, -1.5, 2.25, ACL_FLOAT}, {ACL_FLOAT16, ACL_FLOAT, -1, 1, ACL_INT32},
      {ACL_INT32, ACL_INT32, -2, 3, ACL_INT64},      {ACL_INT8, ACL_INT8, -2.7, 3.9, ACL_FLOAT},   // truncated to -2, 3
      {ACL_BF16, ACL_BF16, 0, 1, ACL_BOOL},          {ACL_DOUBLE, ACL_DOUBLE, 2, -1, ACL_DOUBLE},  // min > max: all min
      {ACL_UINT8, ACL_INT16, 1, 3, ACL_UINT8}};
  for (const Case& k : cases) {
    for (int which = 0; which < 3; ++which) {  // Clamp, ClampMin, ClampMax
      DevTensor self, out;
      make_transposed(self, k.self, {5, 4});
      make(out, k.out, {5, 4});
      const bool integral = k.self != ACL_FLOAT && k.self != ACL_FLOAT16 && k.self != ACL_BF16 && k.self != ACL_DOUBLE;
      const double lo = integral ? std::trunc(as_dtype(k.lo, k.bound)) : as_dtype(k.lo, k.bound);
      const double hi = integral ? std::trunc(as_dtype(k.hi, k.bound)) : as_dtype(k.hi, k.bound);
      ScalarHolder smin(k.lo, k.bound), smax(k.hi, k.bound);
      uint64_t ws;
      aclOpExecutor* ex;
      aclnnStatus st;
      if (which == 0) {
        st = aclnnClampGetWorkspaceSize(self.t, smin.s, smax.s, out.t, &ws, &ex);
      } else if (which == 1) {
        st = aclnnClampMinGetWorkspaceSize(self.t, smin.s, out.t, &ws, &ex);
      } else {
        st = aclnnClampMaxGetWorkspaceSize(self.t, smax.s, out.t, &ws, &ex);
      }
      ASSERT_EQ(st, 0) << aclGetRecentErrMsg();
      run(which == 0 ? aclnnClamp : which == 1 ? aclnnClampMin : aclnnClampMax, ws, ex, stream_);
      const auto x = self.read_view(), o = out.read_view();
      std::vector<double> want(o.size());
      for (size_t i = 0; i < o.size(); ++i) {
        const double sx = x[i];
        want[i] =
            as_dtype(as_dtype(clamp_ref(sx, which == 2 ? nullptr : &lo, which == 1 ? nullptr : &hi), k.self), k.out);
      }
      expect_close(o, want, k.out, "Clamp " + std::to_string(which));
    }
  }
  // NaN in self propagates; in place with a scalar upper bound.
  DevTensor v;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  make(v, ACL_FLOAT, {4}, {nan, 5, -5, 1});
  ScalarHolder m(2, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplaceClampMaxGetWorkspaceSize(v.t, m.s, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnInplaceClampMax, ws, ex, stream_);
  const auto got = v.read_view();
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[1], 2);
  EXPECT_EQ(got[2], -5);
  EXPECT_EQ(got[3], 1);
}

TEST_F(AclnnSelect, ClampTensorBoundsBroadcastAndInplace) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_INT16}) {
    for (int which = 0; which < 5; ++which) {  // ClampTensor (both / min only / max only), MinTensor, MaxTensor
      DevTensor self, lo, hi, out;
      make(self, dt, {3, 1, 6});
      make(lo, dt, {4, 1}, random_values(4, dt, -4, 0));
      make_transposed(hi, ACL_INT32, {4, 6});
      make(out, dt, {3, 4, 6});
      const bool use_lo = which != 2 && which != 4, use_hi = which != 1 && which != 3;
      uint64_t ws;
      aclOpExecutor* ex;
      aclnnStatus st;
      aclnnStatus (*p2)(void*, uint64_t, aclOpExecutor*, aclrtStream) = aclnnClampTensor;
      if (which <= 2) {
        st =
            aclnnClampTensorGetWorkspaceSize(self.t, use_lo ? lo.t : nullptr, use_hi ? hi.t : nullptr, out.t, &ws, &ex);
      } else if (which == 3) {
        st = aclnnClampMinTensorGetWorkspaceSize(self.t, lo.t, out.t, &ws, &ex);
        p2 = aclnnClampMinTensor;
      } else {
        st = aclnnClampMaxTensorGetWorkspaceSize(self.t, hi.t, out.t, &ws, &ex);
        p2 = aclnnClampMaxTensor;
      }
      ASSERT_EQ(st, 0) << aclGetRecentErrMsg();
      run(p2, ws, ex, stream_);
      const auto x = self.read_view(), l = lo.read_view(), h = hi.read_view(), o = out.read_view();
      std::vector<double> want(o.size());
      for (size_t i = 0; i < o.size(); ++i) {
        const double lv = l[bcast_index(lo.view, out.view, i)], hv = h[bcast_index(hi.view, out.view, i)];
        want[i] = as_dtype(
            clamp_ref(x[bcast_index(self.view, out.view, i)], use_lo ? &lv : nullptr, use_hi ? &hv : nullptr), dt);
      }
      expect_close(o, want, dt, "ClampTensor " + std::to_string(which));
    }
  }
  {
    // The upper bound alone does not reach the output's shape: Min goes through a scratch buffer.
    DevTensor self, lo, hi, out;
    make(self, ACL_FLOAT, {3, 1, 6});
    make(lo, ACL_FLOAT, {4, 1}, {-3, -2, -1, 0});
    make(hi, ACL_FLOAT, {6}, {0, 1, 2, 3, -5, 4});
    make(out, ACL_FLOAT, {3, 4, 6});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnClampTensorGetWorkspaceSize(self.t, lo.t, hi.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    EXPECT_GT(ws, 0u);
    run(aclnnClampTensor, ws, ex, stream_);
    const auto x = self.read_view(), l = lo.read_view(), h = hi.read_view(), o = out.read_view();
    for (size_t i = 0; i < o.size(); ++i) {
      const double lv = l[bcast_index(lo.view, out.view, i)], hv = h[bcast_index(hi.view, out.view, i)];
      EXPECT_FLOAT_EQ(o[i], clamp_ref(x[bcast_index(self.view, out.view, i)], &lv, &hv));
    }
  }
  // In place: the bound broadcasts to selfRef's shape.
  DevTensor self, lo, hi;
  make(self, ACL_FLOAT, {4, 5});
  make(lo, ACL_FLOAT, {5}, {0, -1, -2, -3, 10});
  make(hi, ACL_FLOAT, {4, 1}, {0, 1, 2, 3});
  const auto x = self.read_view();
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplaceClampMinTensorGetWorkspaceSize(self.t, lo.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnInplaceClampMinTensor, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceClampMaxTensorGetWorkspaceSize(self.t, hi.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnInplaceClampMaxTensor, ws, ex, stream_);
  const auto got = self.read_view();
  const double lv[] = {0, -1, -2, -3, 10};
  for (size_t i = 0; i < got.size(); ++i) {
    const double hv = static_cast<double>(i / 5);
    EXPECT_FLOAT_EQ(got[i], std::min(std::max(x[i], lv[i % 5]), hv));
  }
  // In place with a bound that would grow selfRef: 161002.
  DevTensor big;
  make(big, ACL_FLOAT, {2, 4, 5});
  EXPECT_EQ(aclnnInplaceClampMinTensorGetWorkspaceSize(self.t, big.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(AclnnSelect, ClampErrors) {
  DevTensor self, out, bad, b8, tb;
  make(self, ACL_FLOAT, {2, 3});
  make(out, ACL_FLOAT, {2, 3});
  make(bad, ACL_FLOAT, {3, 3});
  make(b8, ACL_BOOL, {2, 3});
  make(tb, ACL_FLOAT, {4});
  ScalarHolder s1(1, ACL_FLOAT);
  unsigned char zero[16] = {};
  aclScalar* cs = aclCreateScalar(zero, ACL_COMPLEX64);
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnClampGetWorkspaceSize(nullptr, s1.s, s1.s, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampGetWorkspaceSize(self.t, nullptr, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampGetWorkspaceSize(self.t, s1.s, nullptr, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampMinGetWorkspaceSize(self.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampMaxGetWorkspaceSize(self.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceClampMaxGetWorkspaceSize(nullptr, s1.s, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampTensorGetWorkspaceSize(self.t, nullptr, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampMinTensorGetWorkspaceSize(self.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampMaxTensorGetWorkspaceSize(self.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceClampMinTensorGetWorkspaceSize(nullptr, self.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceClampMaxTensorGetWorkspaceSize(self.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnClampGetWorkspaceSize(b8.t, s1.s, s1.s, b8.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);     // BOOL self
  EXPECT_EQ(aclnnClampGetWorkspaceSize(self.t, cs, s1.s, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);    // complex bound
  EXPECT_EQ(aclnnClampGetWorkspaceSize(self.t, s1.s, s1.s, bad.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // out shape
  EXPECT_EQ(aclnnClampTensorGetWorkspaceSize(self.t, tb.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnClampMaxTensorGetWorkspaceSize(self.t, self.t, bad.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnClampMinGetWorkspaceSize(self.t, s1.s, b8.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // out dtype
  aclDestroyScalar(cs);
}

}  // namespace
}  // namespace aclnn_test
