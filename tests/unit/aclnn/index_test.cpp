// IndexSelect and Embedding (aclnn-api.md 5.29-5.30): selection against a host reference, int32 and
// int64 indices, a non-contiguous self, an out-of-range index failing the stream, and the errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_index_select.h"

namespace aclnn_test {
namespace {

class AclnnIndex : public AclnnTest {};

TEST_F(AclnnIndex, IndexSelectAlongEachDim) {
  for (aclDataType it : {ACL_INT32, ACL_INT64}) {
    for (int64_t dim : {0, 1, -1}) {
      DevTensor self, index, out;
      make_transposed(self, ACL_BF16, {4, 6});
      const int64_t n = dim == 0 ? 4 : 6;
      make(index, it, {5}, {static_cast<double>(n - 1), 0, 2, 2, 1});
      Dims od{4, 6};
      od[dim == 0 ? 0 : 1] = 5;
      make(out, ACL_BF16, od);
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnIndexSelectGetWorkspaceSize(self.t, dim, index.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
      run(aclnnIndexSelect, ws, ex, stream_);
      const auto x = self.read_view(), o = out.read_view(), idx = index.read_view();
      for (int64_t i = 0; i < od[0]; ++i)
        for (int64_t j = 0; j < od[1]; ++j) {
          const int64_t si = dim == 0 ? static_cast<int64_t>(idx[i]) : i;
          const int64_t sj = dim == 0 ? j : static_cast<int64_t>(idx[j]);
          EXPECT_EQ(o[i * od[1] + j], x[si * 6 + sj]);
        }
    }
  }
}

TEST_F(AclnnIndex, EmbeddingAndFaults) {
  DevTensor weight, ids, out;
  make(weight, ACL_FLOAT, {10, 3});
  make(ids, ACL_INT64, {2, 2}, {9, 0, 4, 4});
  make(out, ACL_FLOAT, {2, 2, 3});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnEmbeddingGetWorkspaceSize(weight.t, ids.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  run(aclnnEmbedding, ws, ex, stream_);
  const auto w = weight.read_view(), o = out.read_view();
  const int64_t rows[] = {9, 0, 4, 4};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(o[k * 3 + c], w[rows[k] * 3 + c]);
  // An index past the table fails the stream at its next synchronize (a device fault, not phase 2).
  DevTensor bad;
  make(bad, ACL_INT32, {2, 2}, {1, 10, 0, 0});
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclnnEmbeddingGetWorkspaceSize(weight.t, bad.t, out.t, &ws, &ex), 0);
  EXPECT_EQ(aclnnEmbedding(nullptr, ws, ex, s), 0);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
  aclrtDestroyStream(s);
  // Errors.
  DevTensor fidx, wrong, w3;
  make(fidx, ACL_FLOAT, {2, 2});
  make(wrong, ACL_FLOAT, {2, 3});
  make(w3, ACL_FLOAT, {2, 5, 3});
  EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(nullptr, ids.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(weight.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(weight.t, ids.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(weight.t, fidx.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(weight.t, ids.t, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(w3.t, ids.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DevTensor idx1;
  make(idx1, ACL_INT64, {3});
  EXPECT_EQ(aclnnIndexSelectGetWorkspaceSize(nullptr, 0, idx1.t, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnIndexSelectGetWorkspaceSize(weight.t, 0, nullptr, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnIndexSelectGetWorkspaceSize(weight.t, 2, idx1.t, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnIndexSelectGetWorkspaceSize(weight.t, 0, ids.t, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnIndexSelectGetWorkspaceSize(weight.t, 0, fidx.t, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnIndexSelectGetWorkspaceSize(weight.t, 0, idx1.t, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
}  // namespace aclnn_test
