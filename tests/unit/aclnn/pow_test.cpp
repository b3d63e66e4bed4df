// Pow (aclnn-api.md 5.11): the scalar and tensor forms against std::pow / exact integer powers,
// promotion, broadcasting, non-contiguous views, in-place forms, and the argument errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"

namespace aclnn_test {
namespace {

class AclnnPow : public AclnnTest {};

aclScalar* scalar(double v, aclDataType d) {
  unsigned char b[8] = {};
  store(b, d, v);
  return aclCreateScalar(b, d);
}

// Integer power with wrap-around in 64 bits (the device's int arithmetic), then as `d` holds it.
double ipow(double x, double e, aclDataType d) {
  uint64_t r = 1, b = static_cast<uint64_t>(static_cast<int64_t>(x));
  for (int64_t k = static_cast<int64_t>(e); k > 0; k >>= 1) {
    if (k & 1) r *= b;
    b *= b;
  }
  return as_dtype(static_cast<double>(static_cast<int64_t>(r)), d);
}

bool integral(aclDataType d) {
  return d != ACL_FLOAT && d != ACL_FLOAT16 && d != ACL_BF16 && d != ACL_DOUBLE;
}

TEST_F(AclnnPow, TensorScalarDtypes) {
  struct Case {
    aclDataType self, exp, out;
    double e;
  };
  const std::vector<Case> cases = {{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, 2.5},     {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, 2},
                                   {ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, 3}, {ACL_BF16, ACL_INT32, ACL_BF16, 2},
                                   {ACL_DOUBLE, ACL_DOUBLE, ACL_DOUBLE, -1.5}, {ACL_INT32, ACL_INT64, ACL_INT64, 5},
                                   {ACL_INT8, ACL_INT8, ACL_INT8, 3},          {ACL_INT32, ACL_FLOAT, ACL_FLOAT, 0.5},
                                   {ACL_UINT8, ACL_UINT8, ACL_INT32, 2}};
  for (const Case& k : cases) {
    DevTensor self, out;
    make_transposed(self, k.self, {3, 5});
    if (!integral(k.self)) self.write_storage(random_values(15, k.self, 0.1, 3));  // real results for x^0.5
    make(out, k.out, {3, 5});
    aclScalar* e = scalar(k.e, k.exp);
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnPowTensorScalarGetWorkspaceSize(self.t, e, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnPowTensorScalar, ws, ex, stream_);
    const auto x = self.read_view(), o = out.read_view();
    std::vector<double> want(o.size());
    const bool int_compute = integral(k.self) && integral(k.exp);
    for (size_t i = 0; i < o.size(); ++i) {
      want[i] =
          as_dtype(int_compute ? ipow(x[i], k.e, k.self == ACL_UINT8 ? ACL_UINT8 : k.out) : std::pow(x[i], k.e), k.out);
    }
    expect_close(o, want, k.out, "PowTensorScalar");
    aclDestroyScalar(e);
  }
  // In place, float16.
  DevTensor v;
  make(v, ACL_FLOAT16, {7}, {1, 2, 3, 0.5, -2, 0, 4});
  aclScalar* two = scalar(2, ACL_INT64);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplacePowTensorScalarGetWorkspaceSize(v.t, two, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnInplacePowTensorScalar, ws, ex, stream_);
  const std::vector<double> want = {1, 4, 9, 0.25, 4, 0, 16};
  EXPECT_EQ(v.read_view(), want);
  aclDestroyScalar(two);
}

TEST_F(AclnnPow, ScalarTensorAndTensorTensor) {
  // PowScalarTensor: 2^exponent.
  DevTensor e, out;
  make(e, ACL_FLOAT, {4, 3});
  make(out, ACL_FLOAT, {4, 3});
  aclScalar* base = scalar(2, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnPowScalarTensorGetWorkspaceSize(base, e.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnPowScalarTensor, ws, ex, stream_);
  {
    const auto x = e.read_view(), o = out.read_view();
    std::vector<double> want(o.size());
    for (size_t i = 0; i < o.size(); ++i) want[i] = std::pow(2.0, x[i]);
    expect_close(o, want, ACL_FLOAT, "PowScalarTensor");
  }
  aclDestroyScalar(base);
  // PowTensorTensor with broadcasting and mixed dtypes.
  struct Case {
    aclDataType a, b, o;
  };
  for (const Case& k : std::vector<Case>{{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
                                         {ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT},
                                         {ACL_INT64, ACL_INT32, ACL_INT64},
                                         {ACL_INT16, ACL_BOOL, ACL_INT16},
                                         {ACL_DOUBLE, ACL_INT8, ACL_DOUBLE}}) {
    DevTensor a, b, o;
    make(a, k.a, {2, 1, 4});
    make_transposed(b, k.b, {3, 4});
    if (integral(k.b)) b.write_storage(random_values(12, k.b, 0, 4));
    if (!integral(k.a)) a.write_storage(random_values(8, k.a, 0.2, 3));
    make(o, k.o, {2, 3, 4});
    ASSERT_EQ(aclnnPowTensorTensorGetWorkspaceSize(a.t, b.t, o.t, &ws, &ex), 0) << aclGetRecentErrMsg();
    run(aclnnPowTensorTensor, ws, ex, stream_);
    const auto va = a.read_view(), vb = b.read_view(), vo = o.read_view();
    const bool int_compute = integral(k.a) && integral(k.b);
    std::vector<double> want(vo.size());
    for (size_t i = 0; i < vo.size(); ++i) {
      const double x = va[bcast_index(a.view, o.view, i)], y = vb[bcast_index(b.view, o.view, i)];
      want[i] = as_dtype(int_compute ? ipow(x, y, k.o) : std::pow(x, y), k.o);
    }
    expect_close(vo, want, k.o, "PowTensorTensor");
  }
  // In place: self ^= exponent (broadcast to self's shape).
  DevTensor s, x;
  make(s, ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6});
  make(x, ACL_FLOAT, {3}, {0, 1, 2});
  ASSERT_EQ(aclnnInplacePowTensorTensorGetWorkspaceSize(s.t, x.t, &ws, &ex), 0) << aclGetRecentErrMsg();
  run(aclnnInplacePowTensorTensor, ws, ex, stream_);
  const std::vector<double> want = {1, 2, 9, 1, 5, 36};
  EXPECT_EQ(s.read_view(), want);
}

TEST_F(AclnnPow, Errors) {
  DevTensor f, i32, b, out, big, cplx, u16;
  make(f, ACL_FLOAT, {2, 3});
  make(i32, ACL_INT32, {2, 3});
  make(b, ACL_BOOL, {2, 3});
  make(out, ACL_FLOAT, {2, 3});
  make(big, ACL_FLOAT, {4, 2, 3});
  make(u16, ACL_UINT16, {2, 3});
  aclScalar* two = scalar(2, ACL_FLOAT);
  aclScalar* neg = scalar(-1, ACL_INT32);
  aclScalar* huge = scalar(1000, ACL_INT32);
  aclScalar* bt = scalar(1, ACL_BOOL);
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(nullptr, two, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(f.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(f.t, two, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplacePowTensorScalarGetWorkspaceSize(nullptr, two, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnPowScalarTensorGetWorkspaceSize(nullptr, f.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnPowScalarTensorGetWorkspaceSize(two, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnPowTensorTensorGetWorkspaceSize(f.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnPowTensorTensorGetWorkspaceSize(f.t, f.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplacePowTensorTensorGetWorkspaceSize(f.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  // Integer compute type: negative or unrepresentable exponent.
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(i32.t, neg, i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DevTensor i8;
  make(i8, ACL_INT8, {2, 3});
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(i8.t, huge, i8.t, &ws, &ex), 0);  // int8 ^ int32 computes in int32
  aclDestroyAclOpExecutor(ex);
  // Both BOOL; dtype unsupported; no promotion; not castable; shapes.
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(b.t, bt, b.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnPowTensorTensorGetWorkspaceSize(b.t, b.t, b.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnPowTensorTensorGetWorkspaceSize(u16.t, u16.t, u16.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(f.t, two, b.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // f32 -> bool
  EXPECT_EQ(aclnnPowTensorScalarGetWorkspaceSize(f.t, two, big.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnPowTensorTensorGetWorkspaceSize(f.t, big.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplacePowTensorTensorGetWorkspaceSize(f.t, big.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnPowScalarTensorGetWorkspaceSize(two, f.t, big.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  for (aclScalar* s : {two, neg, huge, bt}) aclDestroyScalar(s);
}

}  // namespace
}  // namespace aclnn_test
