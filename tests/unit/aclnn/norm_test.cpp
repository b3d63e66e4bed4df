// LayerNorm and its variants (aclnn-api.md 5.23) against a float64 reference: optional weight,
// bias and statistics outputs, half types, a transposed input, and the argument errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_layer_norm.h"

namespace aclnn_test {
namespace {

class AclnnNorm : public AclnnTest {};

TEST_F(AclnnNorm, LayerNormAgainstReference) {
  const int64_t A = 6, R = 40;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (bool affine : {false, true}) {
      DevTensor x, w, bias, out, mean, rstd;
      make_transposed(x, dt, {A, R});
      make(w, dt, {R});
      make(bias, ACL_FLOAT == dt ? ACL_FLOAT : dt, {R});
      make(out, dt, {A, R});
      make(mean, ACL_FLOAT, {A, 1});
      make(rstd, dt, {A, 1});
      const int64_t ns[] = {R};
      aclIntArray* norm = aclCreateIntArray(ns, 1);
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(x.t, norm, affine ? w.t : nullptr, affine ? bias.t : nullptr, 1e-5,
                                               out.t, mean.t, rstd.t, &ws, &ex),
                0)
          << aclGetRecentErrMsg();
      run(aclnnLayerNorm, ws, ex, stream_);
      const auto xv = x.read_view(), wv = w.read_view(), bv = bias.read_view();
      const auto o = out.read_view(), m = mean.read_view(), rs = rstd.read_view();
      for (int64_t a = 0; a < A; ++a) {
        double mu = 0, var = 0;
        for (int64_t r = 0; r < R; ++r) mu += xv[a * R + r];
        mu /= R;
        for (int64_t r = 0; r < R; ++r) var += (xv[a * R + r] - mu) * (xv[a * R + r] - mu);
        var /= R;
        const double inv = 1 / std::sqrt(var + 1e-5);
        EXPECT_NEAR(m[a], mu, 1e-5);
        EXPECT_NEAR(rs[a], as_dtype(inv, dt), 4 * tolerance(dt) * inv);
        for (int64_t r = 0; r < R; ++r) {
          double want = (xv[a * R + r] - mu) * inv;
          if (affine) want = want * wv[r] + bv[r];
          EXPECT_NEAR(o[a * R + r], as_dtype(want, dt), 4 * tolerance(dt) * std::max(1.0, std::fabs(want)) + 1e-5);
        }
      }
      aclDestroyIntArray(norm);
    }
  }
}

TEST_F(AclnnNorm, VariantsAndErrors) {
  DevTensor x, out, w, bad, wrong_stat;
  make(x, ACL_FLOAT16, {4, 8});
  make(out, ACL_FLOAT16, {4, 8});
  make(w, ACL_FLOAT16, {8});
  make(bad, ACL_FLOAT16, {7});
  make(wrong_stat, ACL_FLOAT, {4});
  const int64_t ns[] = {8}, ns_bad[] = {4}, ns_long[] = {2, 4, 8};
  aclIntArray* norm = aclCreateIntArray(ns, 1);
  aclIntArray* norm_bad = aclCreateIntArray(ns_bad, 1);
  aclIntArray* norm_long = aclCreateIntArray(ns_long, 3);
  aclIntArray* norm_empty = aclCreateIntArray(nullptr, 0);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(
      aclnnLayerNormWithImplModeGetWorkspaceSize(x.t, norm, w.t, nullptr, 1e-5, out.t, nullptr, nullptr, 2, &ws, &ex),
      0);
  run(aclnnLayerNormWithImplMode, ws, ex, stream_);
  ASSERT_EQ(aclnnFastLayerNormGetWorkspaceSize(x.t, norm, nullptr, nullptr, 1e-5, out.t, nullptr, nullptr, &ws, &ex),
            0);
  run(aclnnFastLayerNorm, ws, ex, stream_);
  const auto o = out.read_view();
  for (int a = 0; a < 4; ++a) {
    double mu = 0, sq = 0;
    for (int r = 0; r < 8; ++r) mu += o[a * 8 + r] / 8;
    for (int r = 0; r < 8; ++r) sq += (o[a * 8 + r] - mu) * (o[a * 8 + r] - mu) / 8;
    EXPECT_NEAR(mu, 0, 2e-3);
    EXPECT_NEAR(sq, 1, 1e-2);
  }
  auto p1 = [&](const aclTensor* in, aclIntArray* n, const aclTensor* wt, aclTensor* ot, aclTensor* m) {
    return aclnnLayerNormGetWorkspaceSize(in, n, wt, nullptr, 1e-5, ot, m, nullptr, &ws, &ex);
  };
  EXPECT_EQ(p1(nullptr, norm, nullptr, out.t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(p1(x.t, nullptr, nullptr, out.t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(p1(x.t, norm, nullptr, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(p1(x.t, norm_bad, nullptr, out.t, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(p1(x.t, norm_long, nullptr, out.t, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(p1(x.t, norm_empty, nullptr, out.t, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(p1(x.t, norm, bad.t, out.t, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(p1(x.t, norm, nullptr, x.t == out.t ? nullptr : w.t, nullptr), ACLNN_ERR_PARAM_INVALID);  // out shape
  EXPECT_EQ(p1(x.t, norm, nullptr, out.t, wrong_stat.t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnLayerNormWithImplModeGetWorkspaceSize(x.t, norm, nullptr, nullptr, 1e-5, out.t, nullptr, nullptr, 3,
                                                       &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  DevTensor xf, of;
  make(xf, ACL_FLOAT, {4, 8});
  make(of, ACL_FLOAT, {4, 8});
  EXPECT_EQ(aclnnLayerNormWithImplModeGetWorkspaceSize(xf.t, norm, nullptr, nullptr, 1e-5, of.t, nullptr, nullptr, 2,
                                                       &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(p1(xf.t, norm, nullptr, out.t, nullptr), ACLNN_ERR_PARAM_INVALID);  // out dtype
  for (aclIntArray* a : {norm, norm_bad, norm_long, norm_empty}) aclDestroyIntArray(a);
}

}  // namespace
}  // namespace aclnn_test
