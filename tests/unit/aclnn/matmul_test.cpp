// Mm, Matmul, BatchMatMul, Addmm, InplaceAddmm (aclnn-api.md 5.18-5.19) against float64 references:
// transposed views used in place, half types, batch broadcasting, torch.matmul's 1-D rules, errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"

namespace aclnn_test {
namespace {

class AclnnMatmul : public AclnnTest {};

// Batched reference of a[..., m, k] @ b[..., k, n] with broadcast batch dims (both given 3-D).
std::vector<double> bmm_ref(const std::vector<double>& a, const Dims& da, const std::vector<double>& b,
                            const Dims& db) {
  const int64_t B = std::max(da[0], db[0]), M = da[1], K = da[2], N = db[2];
  std::vector<double> r(static_cast<size_t>(B * M * N));
  for (int64_t t = 0; t < B; ++t)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += a[static_cast<size_t>((da[0] == 1 ? 0 : t) * M * K + i * K + k)] *
               b[static_cast<size_t>((db[0] == 1 ? 0 : t) * K * N + k * N + j)];
        r[static_cast<size_t>(t * M * N + i * N + j)] = s;
      }
  return r;
}

void expect_mat(const DevTensor& out, std::vector<double> want, const char* what, double tol) {
  const auto got = out.read_view();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << " element " << i;
  }
}

TEST_F(AclnnMatmul, MmTransposedViewsAndHalfTypes) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        const int64_t M = 37, K = 70, N = 23;
        DevTensor a, b, out;
        if (ta)
          make_transposed(a, dt, {M, K});
        else
          make(a, dt, {M, K});
        if (tb)
          make_transposed(b, dt, {K, N});
        else
          make(b, dt, {K, N});
        make(out, dt, {M, N});
        uint64_t ws;
        aclOpExecutor* ex;
        ASSERT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 1, &ws, &ex), 0) << aclGetRecentErrMsg();
        if (dt == ACL_FLOAT) {
          EXPECT_EQ(ws, 0u) << "float32 transposed views go to Gemm in place";
        }
        run(aclnnMm, ws, ex, stream_);
        auto want = bmm_ref(a.read_view(), {1, M, K}, b.read_view(), {1, K, N});
        for (double& w : want) w = as_dtype(w, dt);
        // Sums of 70 products of magnitude <= 16: absolute error grows with K, not with the result.
        expect_mat(out, want, "Mm", dt == ACL_FLOAT ? 1e-4 : dt == ACL_FLOAT16 ? 3e-3 : 2e-2);
      }
    }
  }
}

TEST_F(AclnnMatmul, BatchMatMulAndMatmulShapes) {
  {
    DevTensor a, b, out;
    make(a, ACL_FLOAT, {1, 5, 8});
    make(b, ACL_FLOAT, {3, 8, 4});
    make(out, ACL_FLOAT, {3, 5, 4});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnBatchMatMulGetWorkspaceSize(a.t, b.t, out.t, 0, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnBatchMatMul, ws, ex, stream_);
    expect_mat(out, bmm_ref(a.read_view(), {1, 5, 8}, b.read_view(), {3, 8, 4}), "BatchMatMul", 1e-5);
  }
  {
    // 1-D @ 3-D: (K) as (1, K), the added dim dropped: out [B, N].
    DevTensor a, b, out;
    make(a, ACL_FLOAT16, {8});
    make(b, ACL_FLOAT16, {2, 8, 3});
    make(out, ACL_FLOAT, {2, 3});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(a.t, b.t, out.t, 1, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnMatmul, ws, ex, stream_);
    expect_mat(out, bmm_ref(a.read_view(), {1, 1, 8}, b.read_view(), {2, 8, 3}), "Matmul 1-D x 3-D", 1e-5);
  }
  {
    DevTensor a, b, out;
    make(a, ACL_FLOAT, {6, 9});
    make(b, ACL_FLOAT, {9});
    make(out, ACL_FLOAT, {6});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(a.t, b.t, out.t, 1, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnMatmul, ws, ex, stream_);
    expect_mat(out, bmm_ref(a.read_view(), {1, 6, 9}, b.read_view(), {1, 9, 1}), "Matmul 2-D x 1-D", 1e-5);
  }
}

TEST_F(AclnnMatmul, AddmmAndInplace) {
  const int64_t M = 12, K = 20, N = 7;
  DevTensor bias, m1, m2, out;
  make(bias, ACL_FLOAT, {N});
  make(m1, ACL_FLOAT, {M, K});
  make_transposed(m2, ACL_FLOAT, {K, N});  // x @ W^T with W [N, K], as Linear
  make(out, ACL_FLOAT, {M, N});
  float bv = 0.5f, av = 2.0f;
  aclScalar* beta = aclCreateScalar(&bv, ACL_FLOAT);
  aclScalar* alpha = aclCreateScalar(&av, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnAddmmGetWorkspaceSize(bias.t, m1.t, m2.t, beta, alpha, out.t, 1, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnAddmm, ws, ex, stream_);
  auto prod = bmm_ref(m1.read_view(), {1, M, K}, m2.read_view(), {1, K, N});
  const auto bvals = bias.read_view();
  std::vector<double> want(prod.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = 0.5 * bvals[i % N] + 2.0 * prod[i];
  expect_mat(out, want, "Addmm", 1e-5);
  // In place: selfRef = 0.5 * selfRef + 2 * m1 @ m2.
  const auto before = out.read_view();
  ASSERT_EQ(aclnnInplaceAddmmGetWorkspaceSize(out.t, m1.t, m2.t, beta, alpha, 1, &ws, &ex), 0);
  run(aclnnInplaceAddmm, ws, ex, stream_);
  for (size_t i = 0; i < want.size(); ++i) want[i] = 0.5 * before[i] + 2.0 * prod[i];
  expect_mat(out, want, "InplaceAddmm", 1e-5);
  // beta == 0: NaN in self does not propagate.
  DevTensor nan_bias;
  make(nan_bias, ACL_FLOAT, {N}, std::vector<double>(N, NAN));
  float zero = 0;
  aclScalar* beta0 = aclCreateScalar(&zero, ACL_FLOAT);
  ASSERT_EQ(aclnnAddmmGetWorkspaceSize(nan_bias.t, m1.t, m2.t, beta0, alpha, out.t, 1, &ws, &ex), 0);
  run(aclnnAddmm, ws, ex, stream_);
  for (size_t i = 0; i < want.size(); ++i) want[i] = 2.0 * prod[i];
  expect_mat(out, want, "Addmm beta 0", 1e-5);
  // Errors.
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(nullptr, m1.t, m2.t, beta, alpha, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(bias.t, nullptr, m2.t, beta, alpha, out.t, 1, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(bias.t, m1.t, m2.t, nullptr, alpha, out.t, 1, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(bias.t, m1.t, m2.t, beta, alpha, nullptr, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(bias.t, m2.t, m1.t, beta, alpha, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DevTensor bad_bias;
  make(bad_bias, ACL_FLOAT, {M + 1, N});
  EXPECT_EQ(aclnnAddmmGetWorkspaceSize(bad_bias.t, m1.t, m2.t, beta, alpha, out.t, 1, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplaceAddmmGetWorkspaceSize(bias.t, m1.t, m2.t, beta, alpha, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclDestroyScalar(beta);
  aclDestroyScalar(beta0);
  aclDestroyScalar(alpha);
}

TEST_F(AclnnMatmul, ArgumentErrors) {
  DevTensor a, b, out, wrong, i32, bf, v3;
  make(a, ACL_FLOAT, {4, 5});
  make(b, ACL_FLOAT, {5, 6});
  make(out, ACL_FLOAT, {4, 6});
  make(wrong, ACL_FLOAT, {4, 7});
  make(i32, ACL_INT32, {5, 6});
  make(bf, ACL_BF16, {5, 6});
  make(v3, ACL_FLOAT, {2, 4, 5});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnMmGetWorkspaceSize(nullptr, b.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, nullptr, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, nullptr, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMatmulGetWorkspaceSize(nullptr, b.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnBatchMatMulGetWorkspaceSize(a.t, b.t, nullptr, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, wrong.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // out shape
  EXPECT_EQ(aclnnMmGetWorkspaceSize(b.t, a.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);    // K differs
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, i32.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dtype
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, bf.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // bf16 x f32
  EXPECT_EQ(aclnnMmGetWorkspaceSize(a.t, b.t, out.t, 5, &ws, &ex), ACLNN_ERR_PARAM_INVALID);    // cubeMathType
  EXPECT_EQ(aclnnMmGetWorkspaceSize(v3.t, b.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // rank
  EXPECT_EQ(aclnnBatchMatMulGetWorkspaceSize(a.t, b.t, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  // A FRACTAL_NZ weight is not implemented: refused, not misread.
  const Dims d{5, 6};
  aclTensor* nz = aclCreateTensor(d.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_FRACTAL_NZ, d.data(), 2, b.dev);
  EXPECT_EQ(aclnnMatmulWeightNzGetWorkspaceSize(a.t, nz, out.t, 1, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(nz);
  // The ND form of a WeightNz function computes as the plain one.
  ASSERT_EQ(aclnnMatmulWeightNzGetWorkspaceSize(a.t, b.t, out.t, 1, &ws, &ex), 0);
  run(aclnnMatmulWeightNz, ws, ex, stream_);
  expect_mat(out, bmm_ref(a.read_view(), {1, 4, 5}, b.read_view(), {1, 5, 6}), "MatmulWeightNz (ND)", 1e-5);
}

}  // namespace
}  // namespace aclnn_test
