// Add/Sub/Mul/Div/DivMod and their scalar and in-place variants against float64 references:
// random shapes and dtypes, broadcasting, non-contiguous views, in-place aliasing, and every
// argument error of aclnn-api.md 5.1-5.4.
#include "aclnn_support.hpp"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"

namespace aclnn_test {
namespace {

class AclnnArith : public AclnnTest {};

using BinFn = std::function<double(double, double)>;

// out = f(self, other) with broadcasting; the reference rounds to the output dtype.
void check_binary(const char* what, const DevTensor& self, const DevTensor& other, const DevTensor& out,
                  const BinFn& f) {
  const auto a = self.read_view(), b = other.read_view(), o = out.read_view();
  std::vector<double> want(o.size());
  for (size_t i = 0; i < o.size(); ++i) {
    want[i] = as_dtype(f(a[bcast_index(self.view, out.view, i)], b[bcast_index(other.view, out.view, i)]), out.dtype);
  }
  expect_close(o, want, out.dtype, what);
}

TEST_F(AclnnArith, AddSubMulDivRandomShapesDtypesBroadcast) {
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{3, 4}, {3, 4}}, {{2, 3, 5}, {5}}, {{2, 1, 7}, {3, 1}}, {{6}, {}}, {{33, 1, 130}, {1, 17, 130}}};
  struct Op {
    const char* name;
    aclnnStatus (*p1)(const aclTensor*, const aclTensor*, aclTensor*, uint64_t*, aclOpExecutor**);
    aclnnStatus (*p2)(void*, uint64_t, aclOpExecutor*, aclrtStream);
    BinFn f;
  };
  const std::vector<Op> ops = {
      {"Mul", aclnnMulGetWorkspaceSize, aclnnMul, [](double x, double y) { return x * y; }},
      {"Div", aclnnDivGetWorkspaceSize, aclnnDiv, [](double x, double y) { return x / y; }},
  };
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const auto& [ds, dother] : shapes) {
      Dims dout;
      for (size_t k = 0; k < std::max(ds.size(), dother.size()); ++k) {
        const size_t r = std::max(ds.size(), dother.size()) - 1 - k;
        const int64_t a = k < ds.size() ? ds[ds.size() - 1 - k] : 1,
                      b = k < dother.size() ? dother[dother.size() - 1 - k] : 1;
        dout.insert(dout.begin(), std::max(a, b));
        (void)r;
      }
      for (float alpha_v : {1.0f, -1.5f}) {
        for (bool sub : {false, true}) {
          DevTensor s, o, out;
          make(s, dt, ds);
          make(o, dt, dother);
          make(out, dt, dout);
          aclScalar* alpha = aclCreateScalar(&alpha_v, ACL_FLOAT);
          uint64_t ws = 0;
          aclOpExecutor* ex = nullptr;
          auto p1 = sub ? aclnnSubGetWorkspaceSize : aclnnAddGetWorkspaceSize;
          ASSERT_EQ(p1(s.t, o.t, alpha, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
          run(sub ? aclnnSub : aclnnAdd, ws, ex, stream_);
          const double av = alpha_v;
          check_binary(sub ? "Sub" : "Add", s, o, out,
                       [&](double x, double y) { return sub ? x - av * y : x + av * y; });
          aclDestroyScalar(alpha);
        }
      }
      for (const Op& op : ops) {
        DevTensor s, o, out;
        make(s, dt, ds);
        make(o, dt, dother);
        make(out, dt, dout);
        uint64_t ws = 0;
        aclOpExecutor* ex = nullptr;
        ASSERT_EQ(op.p1(s.t, o.t, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
        run(op.p2, ws, ex, stream_);
        check_binary(op.name, s, o, out, op.f);
      }
    }
  }
}

TEST_F(AclnnArith, PromotionAndIntegers) {
  // f16 + f32 -> f32; int32 + int8 -> int32; bool * bool -> bool (AND); int8 wraps; int / int in float.
  {
    DevTensor a, b, out;
    make(a, ACL_FLOAT16, {5, 3});
    make(b, ACL_FLOAT, {3});
    make(out, ACL_FLOAT, {5, 3});
    float one = 1;
    aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, alpha, out.t, &ws, &ex), 0);
    run(aclnnAdd, ws, ex, stream_);
    check_binary("f16+f32", a, b, out, [](double x, double y) { return static_cast<float>(x + y); });
    aclDestroyScalar(alpha);
  }
  {
    DevTensor a, b, out;
    make(a, ACL_INT32, {4, 4});
    make(b, ACL_INT8, {4, 4});
    make(out, ACL_INT32, {4, 4});
    int32_t three = 3;
    aclScalar* alpha = aclCreateScalar(&three, ACL_INT32);
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnSubGetWorkspaceSize(a.t, b.t, alpha, out.t, &ws, &ex), 0);
    run(aclnnSub, ws, ex, stream_);
    check_binary("i32-3*i8", a, b, out, [](double x, double y) { return x - 3 * y; });
    aclDestroyScalar(alpha);
  }
  {
    DevTensor a, b, out;
    make(a, ACL_BOOL, {16});
    make(b, ACL_BOOL, {16});
    make(out, ACL_BOOL, {16});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnMulGetWorkspaceSize(a.t, b.t, out.t, &ws, &ex), 0);
    run(aclnnMul, ws, ex, stream_);
    check_binary("bool*bool", a, b, out, [](double x, double y) { return (x != 0 && y != 0) ? 1.0 : 0.0; });
  }
  {
    DevTensor a, b, out;
    make(a, ACL_INT8, {4}, {100, -100, 7, 1});
    make(b, ACL_INT8, {4}, {100, -100, 8, 1});
    make(out, ACL_INT8, {4});
    int32_t one = 1;
    aclScalar* alpha = aclCreateScalar(&one, ACL_INT32);
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, alpha, out.t, &ws, &ex), 0);
    run(aclnnAdd, ws, ex, stream_);
    EXPECT_EQ(out.read_view(), (std::vector<double>{-56, 56, 15, 2}));  // two's complement wrap
    aclDestroyScalar(alpha);
  }
  {
    DevTensor a, b, out;
    make(a, ACL_INT32, {4}, {7, -7, 1, 5});
    make(b, ACL_INT32, {4}, {2, 2, 3, 0});
    make(out, ACL_FLOAT, {4});
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(aclnnDivGetWorkspaceSize(a.t, b.t, out.t, &ws, &ex), 0);
    run(aclnnDiv, ws, ex, stream_);
    const auto o = out.read_view();
    EXPECT_EQ(o[0], 3.5);
    EXPECT_EQ(o[1], -3.5);
    EXPECT_FLOAT_EQ(o[2], 1.0f / 3);
    EXPECT_TRUE(std::isinf(o[3]));
  }
}

TEST_F(AclnnArith, DivModModes) {
  for (aclDataType dt : {ACL_FLOAT, ACL_INT32}) {
    for (int mode : {0, 1, 2}) {
      DevTensor a, b, out;
      make(a, dt, {6}, {7, -7, 7, -7, 9, 1});
      make(b, dt, {6}, {2, 2, -2, -2, 3, dt == ACL_INT32 ? 0.0 : 4.0});
      make(out, dt == ACL_INT32 && mode == 0 ? ACL_FLOAT : dt, {6});
      uint64_t ws;
      aclOpExecutor* ex;
      ASSERT_EQ(aclnnDivModGetWorkspaceSize(a.t, b.t, mode, out.t, &ws, &ex), 0) << aclGetRecentErrMsg();
      run(aclnnDivMod, ws, ex, stream_);
      const auto o = out.read_view();
      const std::vector<double> x{7, -7, 7, -7, 9, 1};
      for (size_t i = 0; i < 5; ++i) {
        const double y = std::vector<double>{2, 2, -2, -2, 3}[i];
        double q = x[i] / y;
        if (mode == 1) q = std::trunc(q);
        if (mode == 2) q = std::floor(q);
        EXPECT_FLOAT_EQ(o[i], static_cast<float>(q)) << "dtype " << dt << " mode " << mode << " i " << i;
      }
      if (dt == ACL_INT32 && mode != 0) {
        EXPECT_EQ(o[5], 0) << "integer division by zero gives 0 (spec 5.4, ours)";
      }
    }
  }
  DevTensor a, out;
  make(a, ACL_FLOAT, {3});
  make(out, ACL_FLOAT, {3});
  uint64_t ws;
  aclOpExecutor* ex;
  EXPECT_EQ(aclnnDivModGetWorkspaceSize(a.t, a.t, 3, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnDivModGetWorkspaceSize(a.t, a.t, -1, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  // In-place floor division by a scalar.
  float two = 2;
  aclScalar* s = aclCreateScalar(&two, ACL_FLOAT);
  const auto before = a.read_view();
  ASSERT_EQ(aclnnInplaceDivModsGetWorkspaceSize(a.t, s, 2, &ws, &ex), 0);
  run(aclnnInplaceDivMods, ws, ex, stream_);
  const auto after = a.read_view();
  for (size_t i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(after[i], std::floor(static_cast<float>(before[i] / 2)));
  aclDestroyScalar(s);
}

TEST_F(AclnnArith, ScalarVariants) {
  DevTensor a, out;
  make(a, ACL_FLOAT, {7, 9});
  make(out, ACL_FLOAT, {7, 9});
  float o = 1.25f, al = -2.0f;
  aclScalar* other = aclCreateScalar(&o, ACL_FLOAT);
  aclScalar* alpha = aclCreateScalar(&al, ACL_FLOAT);
  const auto x = a.read_view();
  struct Case {
    const char* name;
    std::function<aclnnStatus(uint64_t*, aclOpExecutor**)> p1;
    aclnnStatus (*p2)(void*, uint64_t, aclOpExecutor*, aclrtStream);
    std::function<double(double)> f;
  };
  const std::vector<Case> cases = {
      {"Adds",
       [&](uint64_t* w, aclOpExecutor** e) { return aclnnAddsGetWorkspaceSize(a.t, other, alpha, out.t, w, e); },
       aclnnAdds, [](double v) { return v + -2.0 * 1.25; }},
      {"Subs",
       [&](uint64_t* w, aclOpExecutor** e) { return aclnnSubsGetWorkspaceSize(a.t, other, alpha, out.t, w, e); },
       aclnnSubs, [](double v) { return v - -2.0 * 1.25; }},
      {"Muls", [&](uint64_t* w, aclOpExecutor** e) { return aclnnMulsGetWorkspaceSize(a.t, other, out.t, w, e); },
       aclnnMuls, [](double v) { return v * 1.25; }},
      {"Divs", [&](uint64_t* w, aclOpExecutor** e) { return aclnnDivsGetWorkspaceSize(a.t, other, out.t, w, e); },
       aclnnDivs, [](double v) { return v / 1.25; }},
  };
  for (const Case& c : cases) {
    uint64_t ws;
    aclOpExecutor* ex;
    ASSERT_EQ(c.p1(&ws, &ex), 0) << c.name << aclGetRecentErrMsg();
    run(c.p2, ws, ex, stream_);
    std::vector<double> want;
    for (double v : x) want.push_back(static_cast<float>(c.f(v)));
    expect_close(out.read_view(), want, ACL_FLOAT, c.name);
  }
  // In-place scalar variants on a strided (sliced) view: only the view's elements change.
  DevTensor v;
  make_view(v, ACL_FLOAT, {3, 4}, {8, 2}, 1, 24);
  const auto storage = v.read_storage();
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnInplaceMulsGetWorkspaceSize(v.t, other, &ws, &ex), 0);
  run(aclnnInplaceMuls, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceAddsGetWorkspaceSize(v.t, other, alpha, &ws, &ex), 0);
  run(aclnnInplaceAdds, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceSubsGetWorkspaceSize(v.t, other, alpha, &ws, &ex), 0);
  run(aclnnInplaceSubs, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceDivsGetWorkspaceSize(v.t, other, &ws, &ex), 0);
  run(aclnnInplaceDivs, ws, ex, stream_);
  const auto after = v.read_storage();
  std::vector<bool> in_view(24, false);
  for (int64_t i = 0; i < 12; ++i) in_view[static_cast<size_t>(v.storage_index(i))] = true;
  for (size_t i = 0; i < 24; ++i) {
    if (in_view[i]) {
      float r = static_cast<float>(storage[i] * 1.25f);
      r = static_cast<float>(r + -2.0 * 1.25);
      r = static_cast<float>(r - -2.0 * 1.25);
      r = static_cast<float>(r / 1.25);
      EXPECT_NEAR(after[i], r, 1e-5) << i;
    } else {
      EXPECT_EQ(after[i], storage[i]) << "element " << i << " outside the view changed";
    }
  }
  aclDestroyScalar(other);
  aclDestroyScalar(alpha);
}

TEST_F(AclnnArith, NonContiguousViewsAndInplaceAliasing) {
  // Transposed self, sliced (strided) other, strided output.
  DevTensor s, o, out;
  make_transposed(s, ACL_FLOAT, {6, 10});
  make_view(o, ACL_FLOAT, {6, 10}, {20, 2}, 3, 6 * 20 + 3);
  make_view(out, ACL_FLOAT, {6, 10}, {1, 6}, 0, 60);  // column-major output
  float one = 1;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(s.t, o.t, alpha, out.t, &ws, &ex), 0);
  run(aclnnAdd, ws, ex, stream_);
  check_binary("strided Add", s, o, out, [](double x, double y) { return x + y; });

  // InplaceAdd(x, x): the same view, no staging needed.
  DevTensor x;
  make(x, ACL_FLOAT, {5, 5});
  auto before = x.read_view();
  ASSERT_EQ(aclnnInplaceAddGetWorkspaceSize(x.t, x.t, alpha, &ws, &ex), 0);
  EXPECT_EQ(ws, 0u);
  run(aclnnInplaceAdd, ws, ex, stream_);
  auto after = x.read_view();
  for (size_t i = 0; i < 25; ++i) EXPECT_FLOAT_EQ(after[i], static_cast<float>(2 * before[i]));

  // InplaceMul(x, x^T): `other` overlaps selfRef in another order; read before written.
  aclTensor* xt = nullptr;
  const Dims dims{5, 5}, tstrides{1, 5};
  xt = aclCreateTensor(dims.data(), 2, ACL_FLOAT, tstrides.data(), 0, ACL_FORMAT_ND, dims.data(), 2, x.dev);
  before = x.read_view();
  ASSERT_EQ(aclnnInplaceMulGetWorkspaceSize(x.t, xt, &ws, &ex), 0);
  EXPECT_GT(ws, 0u) << "an overlapping input is staged through the workspace";
  run(aclnnInplaceMul, ws, ex, stream_);
  after = x.read_view();
  for (size_t i = 0; i < 5; ++i)
    for (size_t j = 0; j < 5; ++j)
      EXPECT_FLOAT_EQ(after[i * 5 + j], static_cast<float>(before[i * 5 + j] * before[j * 5 + i]));
  // InplaceSub / InplaceDiv with a broadcast other.
  DevTensor row;
  make(row, ACL_FLOAT, {5}, {1, 2, 4, 8, 16});
  before = x.read_view();
  ASSERT_EQ(aclnnInplaceSubGetWorkspaceSize(x.t, row.t, alpha, &ws, &ex), 0);
  run(aclnnInplaceSub, ws, ex, stream_);
  ASSERT_EQ(aclnnInplaceDivGetWorkspaceSize(x.t, row.t, &ws, &ex), 0);
  run(aclnnInplaceDiv, ws, ex, stream_);
  after = x.read_view();
  for (size_t i = 0; i < 25; ++i) {
    const double r = std::ldexp(1.0, static_cast<int>(i % 5));
    EXPECT_FLOAT_EQ(after[i], static_cast<float>(static_cast<float>(before[i] - r) / r));
  }
  aclDestroyTensor(xt);
  aclDestroyScalar(alpha);
}

TEST_F(AclnnArith, EmptyTensors) {
  DevTensor a, b, out;
  make(a, ACL_FLOAT, {0, 3});
  make(b, ACL_FLOAT, {3});
  make(out, ACL_FLOAT, {0, 3});
  uint64_t ws = 1;
  aclOpExecutor* ex;
  ASSERT_EQ(aclnnMulGetWorkspaceSize(a.t, b.t, out.t, &ws, &ex), 0);
  EXPECT_EQ(ws, 0u);
  run(aclnnMul, ws, ex, stream_);
}

TEST_F(AclnnArith, ArgumentErrors) {
  DevTensor a, b, out, wrong, i32, boolean, u32;
  make(a, ACL_FLOAT, {2, 3});
  make(b, ACL_FLOAT, {2, 3});
  make(out, ACL_FLOAT, {2, 3});
  make(wrong, ACL_FLOAT, {3, 2});
  make(i32, ACL_INT32, {2, 3});
  make(boolean, ACL_BOOL, {2, 3});
  make(u32, ACL_UINT32, {2, 3});
  float one = 1, half = 0.5f;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  aclScalar* falpha = aclCreateScalar(&half, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor* ex;
  // NULL pointers, each in turn.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(nullptr, b.t, alpha, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.t, nullptr, alpha, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, alpha, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, alpha, out.t, nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, alpha, out.t, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnAddsGetWorkspaceSize(a.t, nullptr, alpha, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceAddGetWorkspaceSize(nullptr, b.t, alpha, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceAddGetWorkspaceSize(a.t, nullptr, alpha, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceAddsGetWorkspaceSize(a.t, nullptr, alpha, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnSubGetWorkspaceSize(a.t, b.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceSubGetWorkspaceSize(a.t, nullptr, alpha, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(a.t, b.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnMulsGetWorkspaceSize(nullptr, alpha, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceMulGetWorkspaceSize(a.t, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnDivGetWorkspaceSize(a.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnDivsGetWorkspaceSize(a.t, nullptr, out.t, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnInplaceDivModGetWorkspaceSize(nullptr, b.t, 1, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("selfRef is NULL"), std::string::npos);
  // Dtype not supported.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(u32.t, b.t, alpha, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("uint32"), std::string::npos);
  // Result not castable to out: float -> bool.
  EXPECT_EQ(aclnnMulGetWorkspaceSize(a.t, b.t, boolean.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnInplaceMulGetWorkspaceSize(boolean.t, a.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  // Float alpha with bool inputs.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(boolean.t, boolean.t, falpha, boolean.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  // Shapes: out not the broadcast shape; not broadcastable; in-place broadcast shape != selfRef.
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a.t, b.t, alpha, wrong.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(a.t, wrong.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("broadcast"), std::string::npos);
  DevTensor small, big;
  make(small, ACL_FLOAT, {3});
  make(big, ACL_FLOAT, {4, 3});
  EXPECT_EQ(aclnnInplaceAddGetWorkspaceSize(small.t, big.t, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnMulsGetWorkspaceSize(small.t, alpha, big.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  // Rank > 8.
  const Dims nine(9, 1);
  aclTensor* r9 = aclCreateTensor(nine.data(), 9, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nine.data(), 9, a.dev);
  EXPECT_EQ(aclnnAddGetWorkspaceSize(r9, r9, alpha, r9, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(r9);
  // Negative dims / strides.
  const Dims neg{-1}, negs{-1}, two{2};
  aclTensor* tn = aclCreateTensor(neg.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, neg.data(), 1, a.dev);
  aclTensor* ts = aclCreateTensor(two.data(), 1, ACL_FLOAT, negs.data(), 1, ACL_FORMAT_ND, two.data(), 1, a.dev);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(tn, tn, tn, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(ts, ts, ts, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclDestroyTensor(tn);
  aclDestroyTensor(ts);
  // A destroyed tensor.
  aclTensor* dead = aclCreateTensor(two.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, two.data(), 1, a.dev);
  aclDestroyTensor(dead);
  EXPECT_EQ(aclnnMulGetWorkspaceSize(dead, b.t, out.t, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  aclDestroyScalar(alpha);
  aclDestroyScalar(falpha);
}

}  // namespace
}  // namespace aclnn_test
