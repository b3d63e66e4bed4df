// ArgMax (aclnn-api.md 5.33) and Gather (5.29, torch.gather) against host references: every dim,
// keepdim, INT32/INT64 outputs, ties and NaN, non-contiguous inputs, negative and out-of-range
// indices, and the argument errors.
#include <limits>

#include "aclnn_support.hpp"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_gather.h"

namespace aclnn_test {
namespace {

class AclnnArgGather : public AclnnTest {};

TEST_F(AclnnArgGather, ArgMaxEachDimDtypeKeepdim) {
  const Dims d{3, 4, 5};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT64, ACL_UINT8}) {
    for (int64_t dim : {0, 1, 2, -1}) {
      for (bool keep : {false, true}) {
        const aclDataType od = keep ? ACL_INT64 : ACL_INT32;
        DevTensor self, out;
        // A transposed view: [3, 4, 5] over a [3, 5, 4] storage.
        make_view(self, dt, d, {20, 1, 4}, 0, 60);
        const size_t axis = static_cast<size_t>(dim < 0 ? dim + 3 : dim);
        Dims od_shape;
        for (size_t k = 0; k < 3; ++k) {
          if (k != axis)
            od_shape.push_back(d[k]);
          else if (keep)
            od_shape.push_back(1);
        }
        make(out, od, od_shape);
        uint64_t ws;
        aclOpExecutor* ex;
        ASSERT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, dim, keep, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
        run(aclnnArgMax, ws, ex, stream_);
        const auto x = self.read_view(), o = out.read_view();
        // Reference: first maximum along `axis` (values have many ties: small integers).
        const Dims st = contiguous_strides(d);
        size_t oi = 0;
        for (int64_t i0 = 0; i0 < (axis == 0 ? 1 : d[0]); ++i0)
          for (int64_t i1 = 0; i1 < (axis == 1 ? 1 : d[1]); ++i1)
            for (int64_t i2 = 0; i2 < (axis == 2 ? 1 : d[2]); ++i2, ++oi) {
              int64_t best = 0;
              double bv = -1e300;
              for (int64_t k = 0; k < d[axis]; ++k) {
                int64_t idx[3] = {i0, i1, i2};
                idx[axis] = k;
                const double v = x[static_cast<size_t>(idx[0] * st[0] + idx[1] * st[1] + idx[2] * st[2])];
                if (v > bv) {
                  bv = v;
                  best = k;
                }
              }
              ASSERT_EQ(o[oi], best) << "dtype " << dt << " dim " << dim << " at " << oi;
            }
      }
    }
  }
  // NaN is the maximum; 0-d self gives 0.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  DevTensor v, vo, s0, s0o;
  make(v, ACL_FLOAT, {2, 4}, {1, nan, 3, nan, 5, 4, 5, 1});
  make(vo, ACL_INT64, {2});
  make(s0, ACL_FLOAT, {}, {7});
  make(s0o, ACL_INT32, {}, {9});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnArgMaxGetWorkspaceSize(v.t, 1, false, vo.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnArgMax, ws, ex, stream_);
  EXPECT_EQ(vo.read_view(), (std::vector<double>{1, 0}));
  ASSERT_EQ(aclnnArgMaxGetWorkspaceSize(s0.t, -1, false, s0o.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnArgMax, ws, ex, stream_);
  EXPECT_EQ(s0o.read_view(), (std::vector<double>{0}));
}

TEST_F(AclnnArgGather, ArgMaxErrors) {
  DevTensor self, out, f_out, bad, b, empty, eo;
  make(self, ACL_FLOAT, {3, 4});
  make(out, ACL_INT64, {3});
  make(f_out, ACL_FLOAT, {3});
  make(bad, ACL_INT64, {4});
  make(b, ACL_BOOL, {3, 4});
  make(empty, ACL_FLOAT, {3, 0});
  make(eo, ACL_INT64, {3});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(nullptr, 1, false, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, 1, false, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(b.t, 1, false, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, 1, false, f_out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, 2, false, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, -3, false, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, 1, false, bad.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(self.t, 1, true, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // keepdim shape
  EXPECT_EQ(aclnnArgMaxGetWorkspaceSize(empty.t, 1, false, eo.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(AclnnArgGather, GatherEachDimAndFaults) {
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16, ACL_INT64, ACL_UINT8, ACL_BOOL, ACL_UINT32}) {
    for (aclDataType it : {ACL_INT32, ACL_INT64}) {
      for (int64_t dim : {0, 1, -1}) {
        DevTensor self, index, out;
        make_transposed(self, dt, {4, 6});  // non-contiguous self
        const size_t axis = static_cast<size_t>(dim < 0 ? dim + 2 : dim);
        const Dims id{3, 5};  // smaller than self outside the axis
        const int64_t n = axis == 0 ? 4 : 6;
        make(index, it, id, random_values(15, ACL_INT64, -n + 0.5, n - 0.5));
        make(out, dt, id);
        uint64_t ws;
        aclOpExecutor* ex;
        ASSERT_EQ(aclnnGatherGetWorkspaceSize(self.t, dim, index.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
        run(aclnnGather, ws, ex, stream_);
        const auto x = self.read_view(), idx = index.read_view(), o = out.read_view();
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 5; ++j) {
            int64_t k = static_cast<int64_t>(idx[static_cast<size_t>(i * 5 + j)]);
            if (k < 0) k += n;
            const int64_t si = axis == 0 ? k : i, sj = axis == 0 ? j : k;
            EXPECT_EQ(o[static_cast<size_t>(i * 5 + j)], x[static_cast<size_t>(si * 6 + sj)]);
          }
      }
    }
  }
  // An index out of range fails the stream at its next synchronize.
  DevTensor self, bad, out;
  make(self, ACL_FLOAT, {2, 3});
  make(bad, ACL_INT64, {2, 3}, {0, 1, 2, 0, 3, 1});
  make(out, ACL_FLOAT, {2, 3});
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnGatherGetWorkspaceSize(self.t, 1, bad.t, out.t, &ws, &ex), 0);
  EXPECT_EQ(aclnnGather(nullptr, ws, ex, s), 0);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
  aclrtDestroyStream(s);
}

TEST_F(AclnnArgGather, GatherErrors) {
  DevTensor self, idx, out, fidx, idx3, big, wrong_out, i_out, e, eidx;
  make(self, ACL_FLOAT, {3, 4});
  make(idx, ACL_INT64, {2, 4}, {0, 1, 2, 0, 1, 1, 1, 1});
  make(out, ACL_FLOAT, {2, 4});
  make(fidx, ACL_FLOAT, {2, 4});
  make(idx3, ACL_INT64, {2, 4, 1});
  make(big, ACL_INT64, {2, 5});
  make(wrong_out, ACL_FLOAT, {2, 3});
  make(i_out, ACL_INT32, {2, 4});
  make(e, ACL_FLOAT, {0, 4});
  make(eidx, ACL_INT64, {1, 4});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(nullptr, 0, idx.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, idx.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, fidx.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, idx3.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // rank
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, big.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // larger
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 2, idx.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);   // dim
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, idx.t, wrong_out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(self.t, 0, idx.t, i_out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // out dtype
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(e.t, 0, eidx.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);      // empty dim
  // A complex descriptor (phase 1 never reads the memory).
  const Dims cd{3, 4}, cs{4, 1};
  aclTensor* c = aclCreateTensor(cd.data(), 2, ACL_COMPLEX64, cs.data(), 0, ACL_FORMAT_ND, cd.data(), 2, self.dev);
  EXPECT_EQ(aclnnGatherGetWorkspaceSize(c, 0, idx.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(c);
}

}  // namespace
}  // namespace aclnn_test

// Appendix B: the static-kernel reselection entry points (declared by CANN only internally).
extern "C" aclnnStatus aclnnReselectStaticKernel();
extern "C" aclnnStatus aclnnReselectStaticKernelWithPath(const char* staticKernelPath);

namespace aclnn_test {
namespace {

TEST(AclnnReselect, StaticKernelPaths) {
  EXPECT_EQ(aclnnReselectStaticKernel(), 0);
  EXPECT_EQ(aclnnReselectStaticKernelWithPath(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnReselectStaticKernelWithPath("/nonexistent/ascend-run/kernels"), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnReselectStaticKernelWithPath("/"), 0);
}

}  // namespace
}  // namespace aclnn_test
