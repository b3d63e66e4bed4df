// RmsNorm (aclnn-api.md 5.24) against a float64 reference: every dtype combination of the table,
// gamma over one or more trailing dims, a non-contiguous x, and the generated operator's errors
// (161001 NULL, 161002 dtypes, 561002 shapes).
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_rms_norm.h"

namespace aclnn_test {
namespace {

class AclnnRmsNorm : public AclnnTest {};

TEST_F(AclnnRmsNorm, DtypeTableAndShapes) {
  const std::vector<std::pair<aclDataType, aclDataType>> types = {{ACL_FLOAT, ACL_FLOAT},
                                                                  {ACL_FLOAT16, ACL_FLOAT},
                                                                  {ACL_FLOAT16, ACL_FLOAT16},
                                                                  {ACL_BF16, ACL_FLOAT},
                                                                  {ACL_BF16, ACL_BF16}};
  const double eps = 1e-6;
  for (auto [xt, gt] : types) {
    for (size_t ng : {1, 2}) {
      DevTensor x, gamma, y, rstd;
      const Dims xd{3, 5, 8};
      make_transposed(x, xt, xd);  // x is a non-contiguous [3, 5, 8] view
      const Dims gd(xd.end() - static_cast<long>(ng), xd.end());
      make(gamma, gt, gd);
      make(y, xt, xd);
      Dims sd(xd.begin(), xd.end() - static_cast<long>(ng));
      sd.resize(3, 1);
      make(rstd, ACL_FLOAT, sd);
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, gamma.t, eps, y.t, rstd.t, &ws, &ex), 0) << aclGetRecentErrMsg();
      run(aclnnRmsNorm, ws, ex, stream_);
      const auto vx = x.read_view(), vg = gamma.read_view(), vy = y.read_view(), vr = rstd.read_view();
      const size_t len = static_cast<size_t>(numel(gd)), lines = vx.size() / len;
      std::vector<double> want_y(vx.size()), want_r(lines);
      for (size_t l = 0; l < lines; ++l) {
        double ss = 0;
        for (size_t j = 0; j < len; ++j) ss += vx[l * len + j] * vx[l * len + j];
        const double r = 1.0 / std::sqrt(ss / static_cast<double>(len) + eps);
        want_r[l] = r;
        for (size_t j = 0; j < len; ++j) want_y[l * len + j] = as_dtype(vx[l * len + j] * r * vg[j], xt);
      }
      expect_close(vy, want_y, xt == ACL_FLOAT ? ACL_FLOAT16 : xt, "RmsNorm y");  // float32 math: f16-level slack
      for (size_t l = 0; l < lines; ++l) EXPECT_NEAR(vr[l], want_r[l], 1e-4 * want_r[l]);
    }
  }
}

TEST_F(AclnnRmsNorm, Errors) {
  DevTensor x, g, y, r, g_bad, y_bad, r_bad, r16, g_empty, x16;
  make(x, ACL_FLOAT, {2, 4});
  make(g, ACL_FLOAT, {4});
  make(y, ACL_FLOAT, {2, 4});
  make(r, ACL_FLOAT, {2, 1});
  make(g_bad, ACL_FLOAT, {3});
  make(y_bad, ACL_FLOAT, {4, 2});
  make(r_bad, ACL_FLOAT, {2});
  make(r16, ACL_FLOAT16, {2, 1});
  make(x16, ACL_FLOAT16, {2, 4});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(nullptr, g.t, 1e-6, y.t, r.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, nullptr, 1e-6, y.t, r.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, g.t, 1e-6, nullptr, r.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, g.t, 1e-6, y.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, g.t, 1e-6, y.t, r16.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, x16.t, 1e-6, y.t, r.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // f32, f16
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x16.t, g.t, 1e-6, y.t, r.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // y dtype
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, g_bad.t, 1e-6, y.t, r.t, &ws, &ex), ACLNN_ERR_INNER_TILING_ERROR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, g.t, 1e-6, y_bad.t, r.t, &ws, &ex), ACLNN_ERR_INNER_TILING_ERROR);
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x.t, g.t, 1e-6, y.t, r_bad.t, &ws, &ex), ACLNN_ERR_INNER_TILING_ERROR);
  // Empty x is fine (nothing to do); empty gamma is not.
  DevTensor xe, ye, re, ge;
  make(xe, ACL_FLOAT, {0, 4});
  make(ye, ACL_FLOAT, {0, 4});
  make(re, ACL_FLOAT, {0, 1});
  ASSERT_EQ(aclnnRmsNormGetWorkspaceSize(xe.t, g.t, 1e-6, ye.t, re.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnRmsNorm, ws, ex, stream_);
  make(ge, ACL_FLOAT, {0});
  DevTensor x0, y0, r0;
  make(x0, ACL_FLOAT, {2, 0});
  make(y0, ACL_FLOAT, {2, 0});
  make(r0, ACL_FLOAT, {2, 1});
  EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x0.t, ge.t, 1e-6, y0.t, r0.t, &ws, &ex), ACLNN_ERR_INNER_TILING_ERROR);
}

}  // namespace
}  // namespace aclnn_test
