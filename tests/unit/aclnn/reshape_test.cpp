// Permute, ReduceSum, Mean, MeanV2 (aclnn-api.md 5.28, 5.31, 5.32) against float64 references.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_reduce_sum.h"

namespace aclnn_test {
namespace {

class AclnnReshape : public AclnnTest {};

TEST_F(AclnnReshape, PermuteViewsAndErrors) {
  for (aclDataType dt : {ACL_FLOAT, ACL_INT64, ACL_BF16}) {
    DevTensor in, out;
    make_transposed(in, dt, {3, 4, 5});  // a non-contiguous input
    make(out, dt, {5, 3, 4});
    const int64_t p[] = {2, -3, 1};
    aclIntArray* dims = aclCreateIntArray(p, 3);
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnPermuteGetWorkspaceSize(in.t, dims, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(ws, 0u);
    run(aclnnPermute, ws, ex, stream_);
    const auto x = in.read_view(), o = out.read_view();
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t k = 0; k < 5; ++k)
          EXPECT_EQ(o[static_cast<size_t>(k * 12 + i * 4 + j)], x[static_cast<size_t>(i * 20 + j * 5 + k)]);
    // Errors: NULL, repeated axis, out of range, wrong length, wrong out shape, dtype mismatch.
    const int64_t rep[] = {0, 0, 1}, far[] = {0, 1, 3}, two[] = {0, 1};
    aclIntArray* a_rep = aclCreateIntArray(rep, 3);
    aclIntArray* a_far = aclCreateIntArray(far, 3);
    aclIntArray* a_two = aclCreateIntArray(two, 2);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(nullptr, dims, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(in.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(in.t, dims, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(in.t, a_rep, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(in.t, a_far, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(in.t, a_two, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnPermuteGetWorkspaceSize(in.t, dims, in.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    aclDestroyIntArray(dims);
    aclDestroyIntArray(a_rep);
    aclDestroyIntArray(a_far);
    aclDestroyIntArray(a_two);
  }
}

// Sum (or mean) of x[3, 4, 5] over `axes`, keepdims off.
std::vector<double> reduce_ref(const std::vector<double>& x, std::vector<bool> red, bool mean) {
  const Dims d{3, 4, 5};
  Dims outd;
  for (int k = 0; k < 3; ++k)
    if (!red[k]) outd.push_back(d[k]);
  std::vector<double> r(static_cast<size_t>(numel(outd)), 0.0);
  int64_t cnt = 1;
  for (int k = 0; k < 3; ++k)
    if (red[k]) cnt *= d[k];
  for (int64_t i = 0; i < 60; ++i) {
    const int64_t idx[3] = {i / 20, (i / 5) % 4, i % 5};
    int64_t o = 0;
    for (int k = 0; k < 3; ++k)
      if (!red[k]) o = o * d[k] + idx[k];
    r[static_cast<size_t>(o)] += x[static_cast<size_t>(i)];
  }
  if (mean)
    for (double& v : r) v /= static_cast<double>(cnt);
  return r;
}

TEST_F(AclnnReshape, ReduceSumAndMean) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<bool>>> cases = {
      {{1}, {false, true, false}}, {{0, -1}, {true, false, true}}, {{}, {true, true, true}}};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const auto& [axes, red] : cases) {
      for (bool mean : {false, true}) {
        DevTensor in, out;
        make_transposed(in, dt, {3, 4, 5});
        Dims od;
        const Dims d{3, 4, 5};
        for (int k = 0; k < 3; ++k)
          if (!red[k]) od.push_back(d[k]);
        make(out, dt, od);
        aclIntArray* dims = aclCreateIntArray(axes.data(), axes.size());
        uint64_t ws;
        aclOpExecutor* ex;
        auto p1 = mean ? aclnnMeanGetWorkspaceSize : aclnnReduceSumGetWorkspaceSize;
        ASSERT_EQ(p1(in.t, dims, false, dt, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
        run(mean ? aclnnMean : aclnnReduceSum, ws, ex, stream_);
        auto want = reduce_ref(in.read_view(), red, mean);
        for (double& w : want) w = as_dtype(w, dt);
        // Sums of up to 60 terms: compare against the magnitude of the terms, not the result.
        const auto got = out.read_view();
        for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 60 * 4 * tolerance(dt)) << i;
        aclDestroyIntArray(dims);
      }
    }
  }
  // keepDims, an int32 input summed in float, MeanV2 with noop, empty reductions.
  DevTensor in, out, kept;
  make(in, ACL_INT32, {3, 4, 5});
  make(kept, ACL_FLOAT, {3, 1, 5});
  const int64_t one[] = {1};
  aclIntArray* d1 = aclCreateIntArray(one, 1);
  aclIntArray* none = aclCreateIntArray(nullptr, 0);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnReduceSumGetWorkspaceSize(in.t, d1, true, ACL_FLOAT, kept.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnReduceSum, ws, ex, stream_);
  EXPECT_EQ(kept.read_view(), reduce_ref(in.read_view(), {false, true, false}, false));
  DevTensor f, copy;
  make(f, ACL_FLOAT, {2, 3});
  make(copy, ACL_FLOAT, {2, 3});
  ASSERT_EQ(aclnnMeanV2GetWorkspaceSize(f.t, none, false, true, copy.t, &ws, &ex), 0);
  run(aclnnMeanV2, ws, ex, stream_);
  EXPECT_EQ(copy.read_view(), f.read_view());
  DevTensor empty, s0, m0;
  make(empty, ACL_FLOAT, {0, 3});
  make(s0, ACL_FLOAT, {3});
  make(m0, ACL_FLOAT, {3});
  const int64_t zero[] = {0};
  aclIntArray* d0 = aclCreateIntArray(zero, 1);
  ASSERT_EQ(aclnnReduceSumGetWorkspaceSize(empty.t, d0, false, ACL_FLOAT, s0.t, &ws, &ex), 0);
  run(aclnnReduceSum, ws, ex, stream_);
  EXPECT_EQ(s0.read_view(), std::vector<double>(3, 0.0));
  ASSERT_EQ(aclnnMeanGetWorkspaceSize(empty.t, d0, false, ACL_FLOAT, m0.t, &ws, &ex), 0);
  run(aclnnMean, ws, ex, stream_);
  for (double v : m0.read_view()) EXPECT_TRUE(std::isnan(v));
  // Errors.
  const int64_t bad[] = {3}, dup[] = {1, -2};
  aclIntArray* a_bad = aclCreateIntArray(bad, 1);
  aclIntArray* a_dup = aclCreateIntArray(dup, 2);
  EXPECT_EQ(aclnnReduceSumGetWorkspaceSize(nullptr, d1, true, ACL_FLOAT, kept.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnReduceSumGetWorkspaceSize(in.t, nullptr, true, ACL_FLOAT, kept.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMeanGetWorkspaceSize(in.t, d1, true, ACL_FLOAT, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnReduceSumGetWorkspaceSize(in.t, a_bad, true, ACL_FLOAT, kept.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnReduceSumGetWorkspaceSize(in.t, a_dup, true, ACL_FLOAT, kept.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnReduceSumGetWorkspaceSize(in.t, d1, false, ACL_FLOAT, kept.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnReduceSumGetWorkspaceSize(in.t, d1, true, ACL_FLOAT16, kept.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnMeanGetWorkspaceSize(in.t, d1, true, ACL_INT32, kept.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  for (aclIntArray* a : {d1, none, d0, a_bad, a_dup}) aclDestroyIntArray(a);
}

}  // namespace
}  // namespace aclnn_test
