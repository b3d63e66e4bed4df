// Relu, Gelu, GeluV2, Silu, Sigmoid, Tanh, Softmax, LogSoftmax (aclnn-api.md 5.12-5.17) against
// float64 references, with float16/bf16, non-contiguous views, in-place variants and the errors.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tanh.h"

namespace aclnn_test {
namespace {

class AclnnActivation : public AclnnTest {};

using P1 = aclnnStatus (*)(const aclTensor*, aclTensor*, uint64_t*, aclOpExecutor**);
using P2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

double gelu_tanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

void check_unary(const char* what, const DevTensor& in, const DevTensor& out, const std::function<double(double)>& f) {
  const auto x = in.read_view();
  std::vector<double> want;
  for (double v : x) want.push_back(as_dtype(f(v), out.dtype));
  // Half types: the kernel computes in float and rounds once; allow one more rounding step.
  expect_close(out.read_view(), want, out.dtype, what);
}

aclnnStatus relu_p1(const aclTensor* s, aclTensor* o, uint64_t* w, aclOpExecutor** e) {
  return aclnnReluGetWorkspaceSize(s, o, w, e);
}
aclnnStatus relu_p2(void* w, uint64_t n, aclOpExecutor* e, aclrtStream s) {
  return aclnnRelu(w, n, e, s);
}

TEST_F(AclnnActivation, UnaryAgainstReference) {
  struct Case {
    const char* name;
    P1 p1;
    P2 p2;
    std::function<double(double)> f;
  };
  const std::vector<Case> cases = {
      {"Relu", relu_p1, relu_p2, [](double x) { return x < 0 ? 0 : x; }},
      {"Gelu", aclnnGeluGetWorkspaceSize, aclnnGelu, gelu_tanh},
      {"Silu", aclnnSiluGetWorkspaceSize, aclnnSilu, [](double x) { return x * sigmoid(x); }},
      {"Sigmoid", aclnnSigmoidGetWorkspaceSize, aclnnSigmoid, sigmoid},
      {"Tanh", aclnnTanhGetWorkspaceSize, aclnnTanh, [](double x) { return std::tanh(x); }},
  };
  for (const Case& c : cases) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (bool transposed : {false, true}) {
        DevTensor in, out;
        const Dims dims{7, 300};
        if (transposed) {
          make_transposed(in, dt, dims);
        } else {
          make(in, dt, dims);
        }
        make(out, dt, dims);
        uint64_t ws;
        aclOpExecutor* ex;
        ASSERT_EQ(c.p1(in.t, out.t, &ws, &ex), 0) << c.name << " " << aclGetRecentErrMsg();
        EXPECT_EQ(ws > 0, transposed || dt == ACL_BF16 || std::string(c.name) == "Silu") << c.name;
        run(c.p2, ws, ex, stream_);
        check_unary(c.name, in, out, c.f);
      }
    }
  }
}

TEST_F(AclnnActivation, GeluV2ReluIntegersAndTanhOfIntegers) {
  for (int64_t approx : {0, 1}) {
    DevTensor in, out;
    make(in, ACL_FLOAT, {1000});
    make(out, ACL_FLOAT, {1000});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnGeluV2GetWorkspaceSize(in.t, approx, out.t, &ws, &ex), 0);
    run(aclnnGeluV2, ws, ex, stream_);
    check_unary(
        "GeluV2", in, out, approx == 1 ? std::function<double(double)>(gelu_tanh) : [](double x) {
          return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
        });
    EXPECT_EQ(aclnnGeluV2GetWorkspaceSize(in.t, 2, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  }
  for (aclDataType dt : {ACL_INT8, ACL_INT32, ACL_INT64}) {
    DevTensor in, out;
    make(in, dt, {5, 6});
    make(out, dt, {5, 6});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnReluGetWorkspaceSize(in.t, out.t, &ws, &ex), 0);
    run(aclnnRelu, ws, ex, stream_);
    check_unary("int Relu", in, out, [](double x) { return x < 0 ? 0 : x; });
    ASSERT_EQ(aclnnInplaceReluGetWorkspaceSize(in.t, &ws, &ex), 0);
    run(aclnnInplaceRelu, ws, ex, stream_);
    EXPECT_EQ(in.read_view(), out.read_view());
  }
  DevTensor in, out;
  make(in, ACL_INT32, {9});
  make(out, ACL_FLOAT16, {9});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnTanhGetWorkspaceSize(in.t, out.t, &ws, &ex), 0);
  run(aclnnTanh, ws, ex, stream_);
  check_unary("Tanh int32 -> f16", in, out, [](double x) { return std::tanh(x); });
}

TEST_F(AclnnActivation, InplaceVariants) {
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    DevTensor x;
    make_view(x, dt, {4, 50}, {100, 2}, 1, 400);  // a strided view
    auto before = x.read_storage();
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnInplaceSigmoidGetWorkspaceSize(x.t, &ws, &ex), 0);
    run(aclnnInplaceSigmoid, ws, ex, stream_);
    ASSERT_EQ(aclnnInplaceTanhGetWorkspaceSize(x.t, &ws, &ex), 0);
    run(aclnnInplaceTanh, ws, ex, stream_);
    ASSERT_EQ(aclnnInplaceReluGetWorkspaceSize(x.t, &ws, &ex), 0);
    run(aclnnInplaceRelu, ws, ex, stream_);
    const auto after = x.read_storage();
    std::vector<bool> in_view(400, false);
    for (int64_t i = 0; i < 200; ++i) in_view[static_cast<size_t>(x.storage_index(i))] = true;
    for (size_t i = 0; i < 400; ++i) {
      if (!in_view[i]) {
        EXPECT_EQ(after[i], before[i]);
        continue;
      }
      const double want = std::max(0.0, std::tanh(sigmoid(before[i])));
      EXPECT_NEAR(after[i], want, dt == ACL_BF16 ? 2e-2 : 1e-6) << i;
    }
  }
}

TEST_F(AclnnActivation, SoftmaxAndLogSoftmax) {
  for (bool log : {false, true}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      for (int64_t dim : {0, 1, -1}) {
        DevTensor in, out;
        const Dims dims{3, 17, 5};
        make_transposed(in, dt, dims);
        make(out, dt, dims);
        uint64_t ws;
        aclOpExecutor* ex;
        auto p1 = log ? aclnnLogSoftmaxGetWorkspaceSize : aclnnSoftmaxGetWorkspaceSize;
        ASSERT_EQ(p1(in.t, dim, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
        run(log ? aclnnLogSoftmax : aclnnSoftmax, ws, ex, stream_);
        const auto x = in.read_view();
        const int64_t ax = dim < 0 ? dim + 3 : dim;
        const Dims st = contiguous_strides(dims);
        std::vector<double> want(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          const int64_t pos = (static_cast<int64_t>(i) / st[ax]) % dims[ax];
          const int64_t base = static_cast<int64_t>(i) - pos * st[ax];
          double mx = -1e300, sum = 0;
          for (int64_t j = 0; j < dims[ax]; ++j) mx = std::max(mx, x[base + j * st[ax]]);
          for (int64_t j = 0; j < dims[ax]; ++j) sum += std::exp(x[base + j * st[ax]] - mx);
          want[i] = as_dtype(log ? x[i] - mx - std::log(sum) : std::exp(x[i] - mx) / sum, dt);
        }
        expect_close(out.read_view(), want, dt, log ? "LogSoftmax" : "Softmax");
      }
      DevTensor in, out;
      make(in, dt, {4});
      make(out, dt, {4});
      uint64_t ws;
      aclOpExecutor* ex;
      EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(in.t, 1, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
      EXPECT_EQ(aclnnLogSoftmaxGetWorkspaceSize(in.t, -2, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    }
  }
  // 0-d: softmax 1, log-softmax 0.
  DevTensor in, out;
  make(in, ACL_FLOAT, {});
  make(out, ACL_FLOAT, {});
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnSoftmaxGetWorkspaceSize(in.t, 0, out.t, &ws, &ex), 0);
  run(aclnnSoftmax, ws, ex, stream_);
  EXPECT_EQ(out.read_view()[0], 1.0);
  ASSERT_EQ(aclnnLogSoftmaxGetWorkspaceSize(in.t, -1, out.t, &ws, &ex), 0);
  run(aclnnLogSoftmax, ws, ex, stream_);
  EXPECT_EQ(out.read_view()[0], 0.0);
}

TEST_F(AclnnActivation, ArgumentErrors) {
  DevTensor f, h, i32, other_shape, b;
  make(f, ACL_FLOAT, {2, 3});
  make(h, ACL_FLOAT16, {2, 3});
  make(i32, ACL_INT32, {2, 3});
  make(other_shape, ACL_FLOAT, {3, 2});
  make(b, ACL_BOOL, {2, 3});
  uint64_t ws;
  aclOpExecutor* ex;
  for (P1 p1 : {P1(relu_p1), P1(aclnnGeluGetWorkspaceSize), P1(aclnnSiluGetWorkspaceSize),
                P1(aclnnSigmoidGetWorkspaceSize), P1(aclnnTanhGetWorkspaceSize)}) {
    EXPECT_EQ(p1(nullptr, f.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(p1(f.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(p1(f.t, f.t, nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(p1(f.t, f.t, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(p1(f.t, other_shape.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // shape mismatch
    EXPECT_EQ(p1(b.t, b.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);            // dtype unsupported
  }
  // Dtype mismatches where the output must equal the input's dtype.
  EXPECT_EQ(aclnnReluGetWorkspaceSize(f.t, h.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnGeluGetWorkspaceSize(f.t, h.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnSiluGetWorkspaceSize(h.t, f.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnTanhGetWorkspaceSize(f.t, i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplaceReluGetWorkspaceSize(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceSigmoidGetWorkspaceSize(i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplaceTanhGetWorkspaceSize(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnGeluV2GetWorkspaceSize(nullptr, 0, f.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(nullptr, 0, f.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(f.t, 0, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnLogSoftmaxGetWorkspaceSize(i32.t, 0, i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnSoftmaxGetWorkspaceSize(f.t, 0, other_shape.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(AclnnActivation, AbsNegExpLogSqrt) {
  struct Case {
    const char* name;
    P1 p1;
    P2 p2;
    std::function<double(double)> f;
    aclDataType in, out;
  };
  const std::vector<Case> cases = {
      {"Abs f32", aclnnAbsGetWorkspaceSize, aclnnAbs, [](double x) { return std::fabs(x); }, ACL_FLOAT, ACL_FLOAT},
      {"Abs bf16", aclnnAbsGetWorkspaceSize, aclnnAbs, [](double x) { return std::fabs(x); }, ACL_BF16, ACL_BF16},
      {"Abs i32", aclnnAbsGetWorkspaceSize, aclnnAbs, [](double x) { return std::fabs(x); }, ACL_INT32, ACL_INT32},
      {"Abs f64", aclnnAbsGetWorkspaceSize, aclnnAbs, [](double x) { return std::fabs(x); }, ACL_DOUBLE, ACL_DOUBLE},
      {"Neg f16", aclnnNegGetWorkspaceSize, aclnnNeg, [](double x) { return -x; }, ACL_FLOAT16, ACL_FLOAT16},
      {"Neg i64 -> f32", aclnnNegGetWorkspaceSize, aclnnNeg, [](double x) { return -x; }, ACL_INT64, ACL_FLOAT},
      {"Exp f32", aclnnExpGetWorkspaceSize, aclnnExp, [](double x) { return std::exp(x); }, ACL_FLOAT, ACL_FLOAT},
      {"Exp i64 -> f16", aclnnExpGetWorkspaceSize, aclnnExp, [](double x) { return std::exp(x); }, ACL_INT64,
       ACL_FLOAT16},
      {"Log bf16", aclnnLogGetWorkspaceSize, aclnnLog, [](double x) { return std::log(x); }, ACL_BF16, ACL_BF16},
      {"Log i32 -> f32", aclnnLogGetWorkspaceSize, aclnnLog, [](double x) { return std::log(x); }, ACL_INT32,
       ACL_FLOAT},
      {"Sqrt f32", aclnnSqrtGetWorkspaceSize, aclnnSqrt, [](double x) { return std::sqrt(x); }, ACL_FLOAT, ACL_FLOAT},
      {"Sqrt u8 -> f32", aclnnSqrtGetWorkspaceSize, aclnnSqrt, [](double x) { return std::sqrt(x); }, ACL_UINT8,
       ACL_FLOAT},
  };
  for (const Case& c : cases) {
    DevTensor in, out;
    make_transposed(in, c.in, {9, 13});
    make(out, c.out, {9, 13});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(c.p1(in.t, out.t, &ws, &ex), 0) << c.name << " " << aclGetRecentErrMsg();
    run(c.p2, ws, ex, stream_);
    check_unary(c.name, in, out, c.f);
  }
  // In-place forms on a strided view; int8 negation wraps.
  DevTensor x;
  make_view(x, ACL_FLOAT, {4, 5}, {10, 2}, 0, 40);
  const auto before = x.read_view();
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplaceExpGetWorkspaceSize(x.t, &ws, &ex), 0);
  run(aclnnInplaceExp, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceLogGetWorkspaceSize(x.t, &ws, &ex), 0);
  run(aclnnInplaceLog, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceNegGetWorkspaceSize(x.t, &ws, &ex), 0);
  run(aclnnInplaceNeg, ws, ex, stream_);
  auto after = x.read_view();
  for (size_t i = 0; i < 20; ++i) EXPECT_NEAR(after[i], -before[i], 1e-5);
  DevTensor q;
  make(q, ACL_FLOAT, {6}, {0, 1, 4, 9, 2.25, 100});
  ASSERT_EQ(aclnnInplaceSqrtGetWorkspaceSize(q.t, &ws, &ex), 0);
  run(aclnnInplaceSqrt, ws, ex, stream_);
  EXPECT_EQ(q.read_view(), (std::vector<double>{0, 1, 2, 3, 1.5, 10}));
  ASSERT_EQ(aclnnInplaceRsqrtGetWorkspaceSize(q.t, &ws, &ex), 0);
  run(aclnnInplaceRsqrt, ws, ex, stream_);
  const auto rq = q.read_view();
  EXPECT_TRUE(std::isinf(rq[0]));
  EXPECT_FLOAT_EQ(rq[2], static_cast<float>(1 / std::sqrt(2.0)));  // q is {0, 1, 2, 3, 1.5, 10} now
  EXPECT_FLOAT_EQ(rq[5], static_cast<float>(1 / std::sqrt(10.0)));
  DevTensor i8;
  make(i8, ACL_INT8, {3}, {-128, 5, -7});
  ASSERT_EQ(aclnnInplaceNegGetWorkspaceSize(i8.t, &ws, &ex), 0);
  run(aclnnInplaceNeg, ws, ex, stream_);
  EXPECT_EQ(i8.read_view(), (std::vector<double>{-128, -5, 7}));
  // Errors.
  DevTensor f, b, i32;
  make(f, ACL_FLOAT, {2, 2});
  make(b, ACL_BOOL, {2, 2});
  make(i32, ACL_INT32, {2, 2});
  EXPECT_EQ(aclnnAbsGetWorkspaceSize(nullptr, f.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAbsGetWorkspaceSize(f.t, i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // dtype differs
  EXPECT_EQ(aclnnNegGetWorkspaceSize(b.t, b.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);    // bool unsupported
  EXPECT_EQ(aclnnExpGetWorkspaceSize(f.t, i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);  // integer out
  EXPECT_EQ(aclnnInplaceExpGetWorkspaceSize(i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnLogGetWorkspaceSize(f.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSqrtGetWorkspaceSize(f.t, f.t, nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceSqrtGetWorkspaceSize(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRsqrtGetWorkspaceSize(nullptr, f.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRsqrtGetWorkspaceSize(f.t, i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplaceRsqrtGetWorkspaceSize(i32.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
}  // namespace aclnn_test
