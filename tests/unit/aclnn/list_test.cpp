// Cat and Sum (aclnn-api.md 5.27, 5.31), the tensor-list operators: random shapes and dtypes against
// host references, promotion, non-contiguous inputs, legacy 1-D empty tensors, broadcasting into
// Sum's output, an input aliasing the output, and the argument errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_sum.h"

namespace aclnn_test {
namespace {

class AclnnList : public AclnnTest {};

// A second handle on t's view: a list owns (and destroys) the tensors it holds.
aclTensor* alias(const DevTensor& t) {
  const Dims storage{t.storage_elems};
  return aclCreateTensor(t.view.data(), t.view.size(), t.dtype, t.strides.data(), t.offset, ACL_FORMAT_ND,
                         storage.data(), 1, t.dev);
}
aclTensorList* list_of(const std::vector<const DevTensor*>& ts) {
  std::vector<const aclTensor*> v;
  for (const DevTensor* t : ts) v.push_back(alias(*t));
  return aclCreateTensorList(v.data(), v.size());
}

// Host concatenation of the views along `axis`.
std::vector<double> cat_ref(const std::vector<const DevTensor*>& ts, size_t axis, const Dims& out, aclDataType od) {
  std::vector<double> r(static_cast<size_t>(numel(out)));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= out[d];
  for (size_t d = axis + 1; d < out.size(); ++d) inner *= out[d];
  int64_t base = 0;
  for (const DevTensor* t : ts) {
    if (t->view.size() == 1 && t->view[0] == 0) continue;
    const auto v = t->read_view();
    const int64_t len = t->view[axis];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < len; ++k)
        for (int64_t i = 0; i < inner; ++i)
          r[static_cast<size_t>((o * out[axis] + base + k) * inner + i)] =
              as_dtype(v[static_cast<size_t>((o * len + k) * inner + i)], od);
    base += len;
  }
  return r;
}

TEST_F(AclnnList, CatRandomShapesDtypesAndViews) {
  std::uniform_int_distribution<int64_t> dist(1, 5);
  const std::vector<std::tuple<aclDataType, aclDataType, aclDataType>> types = {
      {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT}, {ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT}, {ACL_INT32, ACL_INT8, ACL_INT32},
      {ACL_BF16, ACL_BF16, ACL_BF16},    {ACL_INT64, ACL_BOOL, ACL_DOUBLE},   {ACL_UINT8, ACL_UINT8, ACL_UINT8}};
  for (auto [t0, t1, od] : types) {
    for (int64_t dim : {0, 1, -1}) {
      Dims d{dist(rng()), dist(rng()), dist(rng())};
      const size_t axis = static_cast<size_t>(dim < 0 ? dim + 3 : dim);
      DevTensor a, b, c, empty, out;
      make(a, t0, d);
      Dims db = d;
      db[axis] = dist(rng());
      // b is a transposed (non-contiguous) view.
      Dims bt = db;
      std::swap(bt[1], bt[2]);
      Dims st = contiguous_strides(bt);
      std::swap(st[1], st[2]);
      make_view(b, t1, db, st, 0, numel(db));
      Dims dc = d;
      dc[axis] = 0;  // an empty tensor that takes part (its other dims match)
      make(c, t0, dc);
      make(empty, t1, {0});  // the legacy 1-D [0], ignored
      Dims od_shape = d;
      od_shape[axis] += db[axis];
      make(out, od, od_shape);
      aclTensorList* l = list_of({&a, &empty, &b, &c});
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnCatGetWorkspaceSize(l, dim, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
      ASSERT_EQ(aclDestroyTensorList(l), 0);  // the executor keeps what it needs
      run(aclnnCat, ws, ex, stream_);
      expect_close(out.read_view(), cat_ref({&a, &empty, &b, &c}, axis, od_shape, od), od, "Cat");
    }
  }
}

TEST_F(AclnnList, CatErrors) {
  DevTensor a, b, c, out, bad_out, cplx, s0;
  make(a, ACL_FLOAT, {2, 3});
  make(b, ACL_FLOAT, {2, 4});
  make(c, ACL_UINT16, {2, 3});
  make(out, ACL_FLOAT, {2, 7});
  make(bad_out, ACL_FLOAT, {2, 8});
  make(s0, ACL_FLOAT, {});
  uint64_t ws;
  aclOpExecutor* ex;
  aclTensorList* ok = list_of({&a, &b});
  EXPECT_EQ(aclnnCatGetWorkspaceSize(nullptr, 1, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, 1, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  const aclTensor* with_null[] = {alias(a), nullptr};
  aclTensorList* nl = aclCreateTensorList(with_null, 2);
  EXPECT_EQ(aclnnCatGetWorkspaceSize(nl, 1, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, 0, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dims differ
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, 2, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dim out of range
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, -3, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, 1, bad_out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // out shape
  aclTensorList* u16 = list_of({&a, &c});
  EXPECT_EQ(aclnnCatGetWorkspaceSize(u16, 1, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dtype unsupported
  DevTensor fout, iout;
  make(iout, ACL_INT32, {2, 7});
  DevTensor bo;
  make(bo, ACL_BOOL, {2, 7});
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, 1, bo.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // float -> bool not castable
  EXPECT_EQ(aclnnCatGetWorkspaceSize(ok, 1, iout.t, &ws, &ex), 0);                      // float -> int32 is
  aclDestroyAclOpExecutor(ex);
  aclTensorList* scalar = list_of({&s0});
  EXPECT_EQ(aclnnCatGetWorkspaceSize(scalar, 0, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // rank 0
  aclTensorList* none = aclCreateTensorList(nullptr, 0);
  EXPECT_EQ(aclnnCatGetWorkspaceSize(none, 0, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  for (aclTensorList* l : {ok, nl, u16, scalar, none}) aclDestroyTensorList(l);
}

TEST_F(AclnnList, SumBroadcastDtypesAndAliasing) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT8, ACL_UINT8}) {
    DevTensor a, b, c, out;
    make(a, dt, {3, 1, 5});
    make_transposed(b, dt, {4, 5});
    make(c, dt, {5});
    make(out, dt, {3, 4, 5});
    aclTensorList* l = list_of({&a, &b, &c});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnSumGetWorkspaceSize(l, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    aclDestroyTensorList(l);
    run(aclnnSum, ws, ex, stream_);
    const auto va = a.read_view(), vb = b.read_view(), vc = c.read_view(), o = out.read_view();
    std::vector<double> want(o.size());
    for (size_t i = 0; i < o.size(); ++i) {
      want[i] = as_dtype(va[bcast_index(a.view, out.view, i)] + vb[bcast_index(b.view, out.view, i)] +
                             vc[bcast_index(c.view, out.view, i)],
                         dt);
    }
    expect_close(o, want, dt, "Sum");
  }
  // The output is also an input (the list's second tensor): inputs are read before it is written.
  DevTensor x, y;
  make(x, ACL_FLOAT, {6});
  make(y, ACL_FLOAT, {6});
  const auto vx = x.read_view(), vy = y.read_view();
  aclTensorList* l = list_of({&x, &y, &y});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnSumGetWorkspaceSize(l, y.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  aclDestroyTensorList(l);
  run(aclnnSum, ws, ex, stream_);
  const auto got = y.read_view();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], vx[i] + 2 * vy[i]);
}

TEST_F(AclnnList, RepeatableWithDynamicAddresses) {
  // A repeatable Sum, then the list's second tensor moved to other memory with
  // aclSetDynamicInputTensorAddr: the second run reads the new data.
  DevTensor a, b, b2, out;
  make(a, ACL_FLOAT, {5});
  make(b, ACL_FLOAT, {5});
  make(b2, ACL_FLOAT, {5});
  make(out, ACL_FLOAT, {5});
  aclTensorList* l = list_of({&a, &b});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnSumGetWorkspaceSize(l, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  ASSERT_EQ(aclnnSum(nullptr, ws, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  const auto va = a.read_view(), vb = b.read_view(), vb2 = b2.read_view();
  auto got = out.read_view();
  for (size_t i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(got[i], va[i] + vb[i]);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(ex, 0, 1, l, b2.dev), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclSetDynamicInputTensorAddr(ex, 0, 2, l, b2.dev), ACLNN_ERR_PARAM_INVALID);  // past the list
  EXPECT_EQ(aclSetDynamicInputTensorAddr(ex, 1, 0, l, a.dev), ACLNN_ERR_PARAM_INVALID);   // no irIndex 1
  EXPECT_EQ(aclSetDynamicOutputTensorAddr(ex, 0, 0, l, a.dev), ACLNN_ERR_PARAM_INVALID);  // no list output
  ASSERT_EQ(aclnnSum(nullptr, ws, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  got = out.read_view();
  for (size_t i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(got[i], va[i] + vb2[i]);
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), 0);
  // Cat: a skipped legacy [0] tensor still has its list position.
  DevTensor e, c, out2;
  make(e, ACL_FLOAT, {0});
  make(c, ACL_FLOAT, {3});
  make(out2, ACL_FLOAT, {8});
  aclTensorList* l2 = list_of({&e, &a, &c});
  ASSERT_EQ(aclnnCatGetWorkspaceSize(l2, 0, out2.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(ex, 0, 1, l2, b2.dev), 0);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(ex, 0, 0, l2, nullptr), 0);  // the skipped one: nothing to refresh
  ASSERT_EQ(aclnnCat(nullptr, ws, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  got = out2.read_view();
  const auto vc = c.read_view();
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(got[i], vb2[i]);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(got[5 + i], vc[i]);
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyTensorList(l);
  aclDestroyTensorList(l2);
}

TEST_F(AclnnList, SumErrors) {
  DevTensor a, b, i32, d64, out, small;
  make(a, ACL_FLOAT, {2, 3});
  make(b, ACL_FLOAT, {4});
  make(i32, ACL_INT32, {2, 3});
  make(d64, ACL_DOUBLE, {2, 3});
  make(out, ACL_FLOAT, {2, 3});
  make(small, ACL_FLOAT, {3});
  uint64_t ws;
  aclOpExecutor* ex;
  aclTensorList* ok = list_of({&a});
  EXPECT_EQ(aclnnSumGetWorkspaceSize(nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSumGetWorkspaceSize(ok, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  aclTensorList* mixed = list_of({&a, &i32});
  EXPECT_EQ(aclnnSumGetWorkspaceSize(mixed, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dtype mismatch
  aclTensorList* nb = list_of({&a, &b});
  EXPECT_EQ(aclnnSumGetWorkspaceSize(nb, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // not broadcastable
  aclTensorList* big = list_of({&a});
  EXPECT_EQ(aclnnSumGetWorkspaceSize(big, small.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // does not fit out
  aclTensorList* dbl = list_of({&d64});
  EXPECT_EQ(aclnnSumGetWorkspaceSize(dbl, d64.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dtype unsupported
  for (aclTensorList* l : {ok, mixed, nb, big, dbl}) aclDestroyTensorList(l);
}

}  // namespace
}  // namespace aclnn_test
