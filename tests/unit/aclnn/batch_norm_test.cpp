// BatchNorm (aclnn-api.md 5.25) against a float64 reference: training (batch statistics, saveMean,
// saveInvstd = 1/sqrt(var + eps), running statistics updated in place with PyTorch's momentum and
// unbiased variance) and inference, float32/float16/bf16, optional parameters omitted, a
// non-contiguous input, and the argument errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_batch_norm.h"

namespace aclnn_test {
namespace {

class AclnnBatchNorm : public AclnnTest {};

TEST_F(AclnnBatchNorm, TrainingAndInference) {
  const double momentum = 0.1, eps = 1e-5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (bool training : {true, false}) {
      for (bool with_params : {true, false}) {
        const Dims d{4, 3, 2, 5};
        DevTensor x, w, bias, rm, rv, y, sm, si;
        // A non-contiguous input: the last two dims transposed.
        make_transposed(x, dt, d);
        make(w, ACL_FLOAT, {3});
        make(bias, dt, {3});
        make(rm, ACL_FLOAT, {3});
        make(rv, ACL_FLOAT, {3}, random_values(3, ACL_FLOAT, 0.5, 2));
        make(y, dt, d);
        make(sm, ACL_FLOAT, {3}, {7, 7, 7});
        make(si, ACL_FLOAT, {3}, {7, 7, 7});
        const auto old_m = rm.read_view(), old_v = rv.read_view();
        uint64_t ws;
        aclOpExecutor* ex;
        ASSERT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, with_params ? w.t : nullptr, with_params ? bias.t : nullptr, rm.t,
                                                 rv.t, training, momentum, eps, y.t, sm.t, si.t, &ws, &ex),
                  0)
            << aclGetRecentErrMsg();
        run(aclnnBatchNorm, ws, ex, stream_);
        const auto vx = x.read_view(), vw = w.read_view(), vb = bias.read_view(), vy = y.read_view();
        const auto nm = rm.read_view(), nv = rv.read_view(), vsm = sm.read_view(), vsi = si.read_view();
        const int64_t inner = 10, count = 40;
        std::vector<double> want(vy.size());
        for (int64_t c = 0; c < 3; ++c) {
          double sum = 0, sq = 0;
          for (int64_t n = 0; n < 4; ++n)
            for (int64_t i = 0; i < inner; ++i) sum += vx[static_cast<size_t>((n * 3 + c) * inner + i)];
          const double mean_b = sum / count;
          for (int64_t n = 0; n < 4; ++n)
            for (int64_t i = 0; i < inner; ++i) {
              const double e = vx[static_cast<size_t>((n * 3 + c) * inner + i)] - mean_b;
              sq += e * e;
            }
          const double var_b = sq / count;
          const size_t cc = static_cast<size_t>(c);
          const double mean = training ? mean_b : old_m[cc], var = training ? var_b : old_v[cc];
          const double inv = 1 / std::sqrt(var + eps);
          const double gw = with_params ? vw[cc] : 1, gb = with_params ? vb[cc] : 0;
          for (int64_t n = 0; n < 4; ++n)
            for (int64_t i = 0; i < inner; ++i) {
              const size_t k = static_cast<size_t>((n * 3 + c) * inner + i);
              want[k] = as_dtype((vx[k] - mean) * inv * gw + gb, dt);
            }
          if (training) {
            EXPECT_NEAR(vsm[cc], mean_b, 1e-5);
            EXPECT_NEAR(vsi[cc], inv, 1e-4 * inv);
            EXPECT_NEAR(nm[cc], (1 - momentum) * old_m[cc] + momentum * mean_b, 1e-5);
            EXPECT_NEAR(nv[cc], (1 - momentum) * old_v[cc] + momentum * sq / (count - 1), 1e-5);
          } else {
            EXPECT_EQ(vsm[cc], 7);  // not written in inference
            EXPECT_EQ(vsi[cc], 7);
            EXPECT_EQ(nm[cc], old_m[cc]);
            EXPECT_EQ(nv[cc], old_v[cc]);
          }
        }
        expect_close(vy, want, dt == ACL_FLOAT ? ACL_FLOAT16 : dt, "BatchNorm");  // float32 math
      }
    }
  }
}

TEST_F(AclnnBatchNorm, Errors) {
  DevTensor x, w, w_bad, rm, rv, y, y_bad, sm, si, i32, x1;
  make(x, ACL_FLOAT, {2, 3, 4});
  make(w, ACL_FLOAT, {3});
  make(w_bad, ACL_FLOAT, {4});
  make(rm, ACL_FLOAT, {3});
  make(rv, ACL_FLOAT, {3});
  make(y, ACL_FLOAT, {2, 3, 4});
  make(y_bad, ACL_FLOAT16, {2, 3, 4});
  make(sm, ACL_FLOAT, {3});
  make(si, ACL_FLOAT, {3});
  make(i32, ACL_INT32, {2, 3, 4});
  make(x1, ACL_FLOAT, {3});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(nullptr, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, y.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, nullptr, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, w.t, w.t, nullptr, rv.t, false, 0.1, 1e-5, y.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);  // inference needs the running statistics
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, w.t, w.t, rm.t, nullptr, false, 0.1, 1e-5, y.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, y.t, nullptr, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, w_bad.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, y.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // length != C
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x.t, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, y_bad.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // output dtype
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(i32.t, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, i32.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // dtype
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(x1.t, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, x1.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);  // rank < 2
  // NHWC (950 only) is not supported here.
  const Dims d{2, 3, 4}, st{12, 4, 1};
  aclTensor* nhwc = aclCreateTensor(d.data(), 3, ACL_FLOAT, st.data(), 0, ACL_FORMAT_NHWC, d.data(), 3, x.dev);
  EXPECT_EQ(aclnnBatchNormGetWorkspaceSize(nhwc, w.t, w.t, rm.t, rv.t, true, 0.1, 1e-5, y.t, sm.t, si.t, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(nhwc);
}

}  // namespace
}  // namespace aclnn_test
