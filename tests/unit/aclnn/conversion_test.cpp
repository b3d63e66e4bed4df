// Cast, InplaceFillScalar and InplaceCopy (aclnn-api.md 5.26, 5.36, 5.37): dtype conversions,
// strided views on both sides, broadcasting, overlapping copies and the errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"

namespace aclnn_test {
namespace {

class AclnnConversion : public AclnnTest {};

bool is_float_type(aclDataType d) {
  return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16 || d == ACL_DOUBLE;
}

TEST_F(AclnnConversion, CastBetweenDtypes) {
  const std::vector<aclDataType> types = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_INT8,
                                          ACL_UINT8, ACL_INT16,   ACL_INT32, ACL_INT64,  ACL_BOOL};
  for (aclDataType from : types) {
    for (aclDataType to : types) {
      DevTensor in, out;
      make_transposed(in, from, {3, 5});
      make(out, to, {3, 5});
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnCastGetWorkspaceSize(in.t, to, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
      run(aclnnCast, ws, ex, stream_);
      const auto x = in.read_view(), o = out.read_view();
      for (size_t i = 0; i < x.size(); ++i) {
        double want = x[i];
        if (to == ACL_BOOL) want = x[i] != 0;
        // Integer -> uint8 wraps; float -> uint8 saturates at 0 (spec 5.26, ours).
        else if (to == ACL_UINT8 && want < 0)
          want = is_float_type(from) ? 0 : want + 256;
        else if (to != ACL_FLOAT && to != ACL_DOUBLE && to != ACL_FLOAT16 && to != ACL_BF16)
          want = std::trunc(want);
        EXPECT_NEAR(o[i], as_dtype(want, to), std::fabs(want) * tolerance(to) + 1e-12)
            << from << " -> " << to << " element " << i << " from " << x[i];
      }
    }
  }
  // Float -> integer saturates; NaN -> 0.
  DevTensor in, out;
  make(in, ACL_FLOAT, {3}, {1e10, -1e10, NAN});
  make(out, ACL_INT32, {3});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnCastGetWorkspaceSize(in.t, ACL_INT32, out.t, &ws, &ex), 0);
  run(aclnnCast, ws, ex, stream_);
  EXPECT_EQ(out.read_view(), (std::vector<double>{2147483647.0, -2147483648.0, 0}));
  // Errors.
  EXPECT_EQ(aclnnCastGetWorkspaceSize(nullptr, ACL_INT32, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnCastGetWorkspaceSize(in.t, ACL_INT32, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnCastGetWorkspaceSize(in.t, ACL_FLOAT, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // out != dtype
  EXPECT_EQ(aclnnCastGetWorkspaceSize(in.t, ACL_STRING, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DevTensor wrong;
  make(wrong, ACL_INT32, {4});
  EXPECT_EQ(aclnnCastGetWorkspaceSize(in.t, ACL_INT32, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(AclnnConversion, FillScalarOnStridedView) {
  DevTensor x;
  make_view(x, ACL_FLOAT16, {4, 3}, {1, 8}, 2, 40);
  const auto before = x.read_storage();
  double v = -3.25;
  aclScalar* s = aclCreateScalar(&v, ACL_DOUBLE);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplaceFillScalarGetWorkspaceSize(x.t, s, &ws, &ex), 0);
  EXPECT_EQ(ws, 0u);
  run(aclnnInplaceFillScalar, ws, ex, stream_);
  const auto after = x.read_storage();
  std::vector<bool> in_view(40, false);
  for (int64_t i = 0; i < 12; ++i) in_view[static_cast<size_t>(x.storage_index(i))] = true;
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(after[i], in_view[i] ? -3.25 : before[i]) << i;
  // Bool fill; errors.
  DevTensor b;
  make(b, ACL_BOOL, {5});
  int32_t seven = 7;
  aclScalar* si = aclCreateScalar(&seven, ACL_INT32);
  ASSERT_EQ(aclnnInplaceFillScalarGetWorkspaceSize(b.t, si, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // int -> bool
  bool t = true;
  aclScalar* sb = aclCreateScalar(&t, ACL_BOOL);
  ASSERT_EQ(aclnnInplaceFillScalarGetWorkspaceSize(b.t, sb, &ws, &ex), 0);
  run(aclnnInplaceFillScalar, ws, ex, stream_);
  EXPECT_EQ(b.read_view(), std::vector<double>(5, 1.0));
  EXPECT_EQ(aclnnInplaceFillScalarGetWorkspaceSize(nullptr, s, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceFillScalarGetWorkspaceSize(x.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyScalar(s);
  aclDestroyScalar(si);
  aclDestroyScalar(sb);
}

TEST_F(AclnnConversion, InplaceCopyViewsBroadcastOverlap) {
  // Transposed f32 source into a contiguous bf16 destination (contiguous-ification with a cast).
  DevTensor src, dst;
  make_transposed(src, ACL_FLOAT, {6, 9});
  make(dst, ACL_BF16, {6, 9});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplaceCopyGetWorkspaceSize(dst.t, src.t, &ws, &ex), 0);
  run(aclnnInplaceCopy, ws, ex, stream_);
  auto s = src.read_view(), d = dst.read_view();
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(d[i], as_dtype(s[i], ACL_BF16));
  // Broadcast a row into every row.
  DevTensor row;
  make(row, ACL_FLOAT, {9});
  ASSERT_EQ(aclnnInplaceCopyGetWorkspaceSize(dst.t, row.t, &ws, &ex), 0);
  run(aclnnInplaceCopy, ws, ex, stream_);
  s = row.read_view();
  d = dst.read_view();
  for (size_t i = 0; i < d.size(); ++i) EXPECT_EQ(d[i], as_dtype(s[i % 9], ACL_BF16));
  // Overlap: x = x^T of the same storage; read completely before written.
  DevTensor x;
  make(x, ACL_INT32, {4, 4});
  const auto before = x.read_view();
  const Dims dims{4, 4}, tstrides{1, 4};
  aclTensor* xt = aclCreateTensor(dims.data(), 2, ACL_INT32, tstrides.data(), 0, ACL_FORMAT_ND, dims.data(), 2, x.dev);
  ASSERT_EQ(aclnnInplaceCopyGetWorkspaceSize(x.t, xt, &ws, &ex), 0);
  EXPECT_GT(ws, 0u);
  run(aclnnInplaceCopy, ws, ex, stream_);
  const auto after = x.read_view();
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j) EXPECT_EQ(after[i * 4 + j], before[j * 4 + i]);
  aclDestroyTensor(xt);
  // Errors: NULL, not broadcastable, not convertible.
  EXPECT_EQ(aclnnInplaceCopyGetWorkspaceSize(nullptr, src.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceCopyGetWorkspaceSize(dst.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  DevTensor bad, b;
  make(bad, ACL_FLOAT, {6, 8});
  make(b, ACL_BOOL, {6, 9});
  EXPECT_EQ(aclnnInplaceCopyGetWorkspaceSize(dst.t, bad.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplaceCopyGetWorkspaceSize(b.t, src.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
}  // namespace aclnn_test
