// Operators beyond elementwise and MatMul: Softmax, LayerNormalization, reductions, data movement
// (Reshape with 0 / -1, Flatten, Transpose, Concat, Gather, Cast), Conv and the pools, each
// against a float64 reference (tolerances per test) plus their specific error paths.
#include <limits>

#include "op_support.hpp"

namespace conformance {
namespace {

using ShapeOpTest = OpTest;

// Splits `dims` at `axis` into outer x len x inner.
void split(const Dims &dims, int64_t axis, int64_t *outer, int64_t *len, int64_t *inner) {
  *outer = *inner = 1;
  for (int64_t d = 0; d < axis; ++d) *outer *= dims[d];
  *len = dims[axis];
  for (size_t d = axis + 1; d < dims.size(); ++d) *inner *= dims[d];
}

std::vector<double> softmaxRef(const std::vector<double> &x, const Dims &dims, int64_t axis, bool log) {
  int64_t outer, len, inner;
  split(dims, axis, &outer, &len, &inner);
  std::vector<double> r(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -INFINITY, s = 0;
      for (int64_t j = 0; j < len; ++j) mx = std::max(mx, x[(o * len + j) * inner + i]);
      for (int64_t j = 0; j < len; ++j) s += std::exp(x[(o * len + j) * inner + i] - mx);
      for (int64_t j = 0; j < len; ++j) {
        const double v = x[(o * len + j) * inner + i] - mx;
        r[(o * len + j) * inner + i] = log ? v - std::log(s) : std::exp(v) / s;
      }
    }
  return r;
}

TEST_P(ShapeOpTest, SoftmaxAlongAnyAxis) {
  const Dims d{3, 5, 7};
  auto x = rounded32(randoms(count(d), 61, -5, 5));
  for (int64_t axis : {0, 1, 2, -1}) {
    Attr a;
    a.i("axis", axis);
    const int64_t ax = axis < 0 ? axis + 3 : axis;
    // float32 exp/divide: a few ulp on values <= 1.
    EXPECT_TRUE(near(runOk("Softmax", {f32(d, x)}, like(ACL_FLOAT, d), a), softmaxRef(x, d, ax, false), 1e-7, 1e-6))
        << "axis " << axis;
    EXPECT_TRUE(near(runOk("LogSoftmax", {f32(d, x)}, like(ACL_FLOAT, d), a), softmaxRef(x, d, ax, true), 2e-6, 1e-6))
        << "axis " << axis;
  }
  // Long rows over many blocks, default axis (-1).
  const Dims big{64, 1000};
  auto xb = rounded32(randoms(count(big), 62, -10, 10));
  EXPECT_TRUE(near(runOk("Softmax", {f32(big, xb)}, like(ACL_FLOAT, big)), softmaxRef(xb, big, 1, false), 1e-8, 2e-6));
  Attr bad;
  bad.i("axis", 3);
  std::vector<HostTensor> outs{like(ACL_FLOAT, d)};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Softmax", {f32(d, x)}, outs, bad));
}

TEST_P(ShapeOpTest, LayerNormalizationWithScaleBiasAndStatistics) {
  const Dims d{4, 6, 96};
  auto x = rounded32(randoms(count(d), 63, -3, 3));
  for (int64_t axis : {-1, 1}) {
    const int64_t ax = axis < 0 ? 2 : axis;
    int64_t lines = 1, len = 1;
    for (int64_t i = 0; i < 3; ++i) (i < ax ? lines : len) *= d[i];
    Dims pd(d.begin() + ax, d.end());
    auto scale = rounded32(randoms(len, 64, 0.5, 1.5)), bias = rounded32(randoms(len, 65));
    std::vector<double> ref(x.size()), mean(lines), inv(lines);
    for (int64_t l = 0; l < lines; ++l) {
      double s = 0, v = 0;
      for (int64_t j = 0; j < len; ++j) s += x[l * len + j];
      mean[l] = s / len;
      for (int64_t j = 0; j < len; ++j) v += (x[l * len + j] - mean[l]) * (x[l * len + j] - mean[l]);
      inv[l] = 1 / std::sqrt(v / len + 1e-3);
      for (int64_t j = 0; j < len; ++j) ref[l * len + j] = (x[l * len + j] - mean[l]) * inv[l] * scale[j] + bias[j];
    }
    Attr a;
    a.i("axis", axis).f("epsilon", 1e-3f);
    Dims sd(d.begin(), d.begin() + ax);
    sd.resize(3, 1);
    std::vector<HostTensor> outs{like(ACL_FLOAT, d), like(ACL_FLOAT, sd), like(ACL_FLOAT, sd)};
    ASSERT_ACL_OK(run("LayerNormalization", {f32(d, x), f32(pd, scale), f32(pd, bias)}, outs, a));
    EXPECT_TRUE(near(outs[0].values(), ref, 1e-5, 1e-5)) << "axis " << axis;
    EXPECT_TRUE(near(outs[1].values(), mean, 1e-6, 1e-6));
    EXPECT_TRUE(near(outs[2].values(), inv, 1e-6, 1e-6));
  }
  // Scale of the wrong shape.
  std::vector<HostTensor> outs{like(ACL_FLOAT, d)};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("LayerNormalization", {f32(d, x), f32({95}, randoms(95, 1))}, outs));
}

TEST_P(ShapeOpTest, ReductionsOverAxes) {
  const Dims d{4, 5, 6};
  auto x = rounded32(randoms(count(d), 66, -2, 2));
  auto at = [&](int64_t i, int64_t j, int64_t k) { return x[(i * 5 + j) * 6 + k]; };
  // ReduceMean over axis 1, keepdims: [4, 1, 6].
  std::vector<double> m1;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 6; ++k) {
      double s = 0;
      for (int j = 0; j < 5; ++j) s += at(i, j, k);
      m1.push_back(s / 5);
    }
  Attr a1;
  a1.l("axes", {1});
  EXPECT_TRUE(near(runOk("ReduceMean", {f32(d, x)}, like(ACL_FLOAT, {4, 1, 6}), a1), m1, 1e-7, 1e-6));
  // ReduceSum / ReduceMax over axes {0, -1} without keepdims: [5].
  std::vector<double> s02(5, 0), mx(5, -INFINITY);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 6; ++k) s02[j] += at(i, j, k), mx[j] = std::max(mx[j], at(i, j, k));
  Attr a2;
  a2.l("axes", {0, -1}).i("keepdims", 0);
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x)}, like(ACL_FLOAT, {5}), a2), s02, 1e-6, 1e-6));
  EXPECT_TRUE(near(runOk("ReduceMax", {f32(d, x)}, like(ACL_FLOAT, {5}), a2), mx, 0, 0));
  // No axes: everything, keepdims -> [1, 1, 1].
  double all = 0;
  for (double v : x) all += v;
  EXPECT_TRUE(near(runOk("ReduceMean", {f32(d, x)}, like(ACL_FLOAT, {1, 1, 1})), {all / x.size()}, 1e-7, 1e-6));
  Attr dup;
  dup.l("axes", {1, -2});
  std::vector<HostTensor> outs{like(ACL_FLOAT, {4, 1, 6})};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("ReduceMean", {f32(d, x)}, outs, dup));
}

TEST_P(ShapeOpTest, ReshapeFollowsOnnxZeroAndMinusOne) {
  const Dims d{2, 3, 4};
  auto x = randoms(24, 67);
  // [0, -1]: keep dim 0, infer the rest.
  auto got = runOk("Reshape", {f32(d, x), i64({2}, {0, -1})}, like(ACL_FLOAT, {2, 12}));
  EXPECT_TRUE(near(got, rounded32(x), 0, 0));
  got = runOk("Reshape", {f32(d, x), i64({4}, {-1, 0, 2, 2})}, like(ACL_FLOAT, {2, 3, 2, 2}));
  EXPECT_TRUE(near(got, rounded32(x), 0, 0));
  // The shape tensor asks for something other than the output description: found on the device.
  std::vector<HostTensor> outs{like(ACL_FLOAT, {6, 4})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Reshape", {f32(d, x), i64({2}, {4, -1})}, outs));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Reshape", {f32(d, x), i64({2}, {-1, -1})}, outs));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             run("Reshape", {f32(d, x), i64({2}, {int64_t(1) << 40, int64_t(1) << 40})}, outs));  // overflows
  // Host-side checks: element count and the shape input's length.
  std::vector<HostTensor> wrong{like(ACL_FLOAT, {5, 5})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Reshape", {f32(d, x), i64({2}, {5, 5})}, wrong));
  std::vector<HostTensor> rank3{like(ACL_FLOAT, {2, 3, 4})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Reshape", {f32(d, x), i64({2}, {0, -1})}, rank3));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Reshape", {f32(d, x), i32({3}, {2, 3, 4})}, rank3));
}

TEST_P(ShapeOpTest, FlattenAndIdentityCopy) {
  const Dims d{2, 3, 4, 5};
  auto x = rounded32(randoms(120, 68));
  Attr a;
  a.i("axis", 2);
  EXPECT_TRUE(near(runOk("Flatten", {f32(d, x)}, like(ACL_FLOAT, {6, 20}), a), x, 0, 0));
  EXPECT_TRUE(near(runOk("Flatten", {f32(d, x)}, like(ACL_FLOAT, {2, 60})), x, 0, 0));
  Attr neg;
  neg.i("axis", -4);
  EXPECT_TRUE(near(runOk("Flatten", {f32(d, x)}, like(ACL_FLOAT, {1, 120}), neg), x, 0, 0));
  EXPECT_TRUE(near(runOk("Identity", {f32(d, x)}, like(ACL_FLOAT, d)), x, 0, 0));
  Attr bad;
  bad.i("axis", 5);
  std::vector<HostTensor> outs{like(ACL_FLOAT, {120, 1})};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Flatten", {f32(d, x)}, outs, bad));
}

TEST_P(ShapeOpTest, TransposeLargeSplitsRowsAcrossBlocks) {
  // Large enough for several blocks, whose shares start inside an output row.
  const Dims d{7, 37, 129};
  auto x = rounded32(randoms(count(d), 71));
  for (const std::vector<int64_t> &perm : {std::vector<int64_t>{0, 2, 1}, std::vector<int64_t>{1, 0, 2}}) {
    Dims od{d[perm[0]], d[perm[1]], d[perm[2]]};
    std::vector<double> ref(x.size());
    for (int64_t i = 0; i < od[0]; ++i)
      for (int64_t j = 0; j < od[1]; ++j)
        for (int64_t k = 0; k < od[2]; ++k) {
          int64_t src[3];
          src[perm[0]] = i;
          src[perm[1]] = j;
          src[perm[2]] = k;
          ref[(i * od[1] + j) * od[2] + k] = x[(src[0] * d[1] + src[1]) * d[2] + src[2]];
        }
    Attr a;
    a.l("perm", perm);
    EXPECT_TRUE(near(runOk("Transpose", {f32(d, x)}, like(ACL_FLOAT, od), a), ref, 0, 0)) << perm[0] << perm[1];
  }
}

TEST_P(ShapeOpTest, TransposePermutes) {
  const Dims d{3, 4, 50};
  auto x = rounded32(randoms(count(d), 69));
  Attr a;
  a.l("perm", {2, 0, 1});
  std::vector<double> ref;
  for (int k = 0; k < 50; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) ref.push_back(x[(i * 4 + j) * 50 + k]);
  EXPECT_TRUE(near(runOk("Transpose", {f32(d, x)}, like(ACL_FLOAT, {50, 3, 4}), a), ref, 0, 0));
  // Default perm reverses the dimensions; float16 moves 2-byte elements.
  HostTensor h = f16({3, 7}, randoms(21, 70));
  auto hv = h.values();
  std::vector<double> rt;
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 3; ++i) rt.push_back(hv[i * 7 + j]);
  EXPECT_TRUE(near(runOk("Transpose", {h}, like(ACL_FLOAT16, {7, 3})), rt, 0, 0));
  Attr bad;
  bad.l("perm", {0, 0, 1});
  std::vector<HostTensor> outs{like(ACL_FLOAT, d)};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Transpose", {f32(d, x)}, outs, bad));
}

TEST_P(ShapeOpTest, ConcatAlongAnAxis) {
  auto a = rounded32(randoms(24, 71)), b = rounded32(randoms(8, 72)), c = rounded32(randoms(40, 73));
  Attr ax;
  ax.i("axis", 1);
  auto got = runOk("Concat", {f32({2, 3, 4}, a), f32({2, 1, 4}, b), f32({2, 5, 4}, c)}, like(ACL_FLOAT, {2, 9, 4}), ax);
  std::vector<double> ref;
  for (int o = 0; o < 2; ++o) {
    ref.insert(ref.end(), a.begin() + o * 12, a.begin() + (o + 1) * 12);
    ref.insert(ref.end(), b.begin() + o * 4, b.begin() + (o + 1) * 4);
    ref.insert(ref.end(), c.begin() + o * 20, c.begin() + (o + 1) * 20);
  }
  EXPECT_TRUE(near(got, ref, 0, 0));
  std::vector<HostTensor> outs{like(ACL_FLOAT, {2, 4, 4})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Concat", {f32({2, 3, 4}, a), f32({1, 1, 8}, b)}, outs, ax));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Concat", {f32({2, 3, 4}, a), f32({2, 1, 4}, b)}, outs));  // no axis
}

TEST_P(ShapeOpTest, GatherWithNegativeAndOutOfRangeIndices) {
  const Dims d{3, 5, 2};
  auto x = rounded32(randoms(30, 74));
  Attr ax;
  ax.i("axis", 1);
  const std::vector<int64_t> idx{4, 0, -1, 2};
  std::vector<double> ref;
  for (int i = 0; i < 3; ++i)
    for (int64_t j : idx)
      for (int k = 0; k < 2; ++k) ref.push_back(x[(i * 5 + (j < 0 ? j + 5 : j)) * 2 + k]);
  EXPECT_TRUE(near(runOk("Gather", {f32(d, x), i64({2, 2}, idx)}, like(ACL_FLOAT, {3, 2, 2, 2}), ax), ref, 0, 0));
  EXPECT_TRUE(near(runOk("Gather", {f32(d, x), i32({2, 2}, idx)}, like(ACL_FLOAT, {3, 2, 2, 2}), ax), ref, 0, 0));
  // Rows of an embedding table (axis 0).
  std::vector<double> rows(x.begin() + 20, x.end());
  EXPECT_TRUE(near(runOk("Gather", {f32(d, x), i64({1}, {2})}, like(ACL_FLOAT, {1, 5, 2})), rows, 0, 0));
  std::vector<HostTensor> outs{like(ACL_FLOAT, {3, 1, 2})};
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, run("Gather", {f32(d, x), i64({1}, {5})}, outs, ax));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Gather", {f32(d, x), f32({1}, {1})}, outs, ax));
}

TEST_P(ShapeOpTest, CastConvertsBetweenTypes) {
  const std::vector<double> v{-2.75, -0.5, 0.0, 0.25, 1.5, 3e9, -3e9, 65519.0};
  Attr toI32, toF16, toBool, toF32;
  toI32.i("to", 6);
  toF16.i("to", 10);
  toBool.i("to", 9);
  toF32.i("to", 1);
  // float -> int32 truncates toward zero and saturates out of range.
  auto i = runOk("Cast", {f32({8}, v)}, like(ACL_INT32, {8}), toI32);
  EXPECT_TRUE(near(i, {-2, 0, 0, 0, 1, 2147483647.0, -2147483648.0, 65519}, 0, 0));
  auto h = runOk("Cast", {f32({8}, v)}, like(ACL_FLOAT16, {8}), toF16);
  EXPECT_TRUE(near(h, {-2.75, -0.5, 0, 0.25, 1.5, INFINITY, -INFINITY, 65504}, 0, 0));
  auto b = runOk("Cast", {f32({8}, v)}, like(ACL_BOOL, {8}), toBool);
  EXPECT_TRUE(near(b, {1, 1, 0, 1, 1, 1, 1, 1}, 0, 0));
  auto f = runOk("Cast", {i64({3}, {-7, 0, (int64_t(1) << 40) + 1})}, like(ACL_FLOAT, {3}), toF32);
  EXPECT_TRUE(near(f, {-7, 0, double(float((int64_t(1) << 40) + 1))}, 0, 0));
  std::vector<HostTensor> outs{like(ACL_FLOAT, {8})};
  Attr bad;
  bad.i("to", 8);  // STRING
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Cast", {f32({8}, v)}, outs, bad));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Cast", {f32({8}, v)}, outs, toI32));  // output is not int32
}

struct ConvCase {
  Dims x, w;
  int64_t group, stride, pad, dilation;
  const char *autoPad;
};

// Direct float64 convolution with symmetric `pad` (or SAME_UPPER when asked).
std::vector<double> convRef(const ConvCase &c, const std::vector<double> &x, const std::vector<double> &w,
                            const std::vector<double> &b, int64_t *oh, int64_t *ow) {
  const int64_t n = c.x[0], ch = c.x[1], h = c.x[2], wd = c.x[3], m = c.w[0], kh = c.w[2], kw = c.w[3];
  const int64_t cg = ch / c.group, mg = m / c.group;
  int64_t pt = c.pad, pl = c.pad, pb = c.pad, pr = c.pad;
  if (std::string(c.autoPad) == "SAME_UPPER") {
    *oh = (h + c.stride - 1) / c.stride;
    *ow = (wd + c.stride - 1) / c.stride;
    const int64_t th = std::max<int64_t>(0, (*oh - 1) * c.stride + c.dilation * (kh - 1) + 1 - h);
    const int64_t tw = std::max<int64_t>(0, (*ow - 1) * c.stride + c.dilation * (kw - 1) + 1 - wd);
    pt = th / 2, pb = th - pt, pl = tw / 2, pr = tw - pl;
  }
  *oh = (h + pt + pb - c.dilation * (kh - 1) - 1) / c.stride + 1;
  *ow = (wd + pl + pr - c.dilation * (kw - 1) - 1) / c.stride + 1;
  std::vector<double> y(n * m * *oh * *ow);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t oc = 0; oc < m; ++oc)
      for (int64_t oy = 0; oy < *oh; ++oy)
        for (int64_t ox = 0; ox < *ow; ++ox) {
          const int64_t g = oc / mg;
          double s = b.empty() ? 0 : b[oc];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = oy * c.stride - pt + ky * c.dilation, ix = ox * c.stride - pl + kx * c.dilation;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                s += x[((i * ch + g * cg + ci) * h + iy) * wd + ix] * w[((oc * cg + ci) * kh + ky) * kw + kx];
              }
          y[((i * m + oc) * *oh + oy) * *ow + ox] = s;
        }
  return y;
}

TEST_P(ShapeOpTest, ConvStridePadDilationGroup) {
  const std::vector<ConvCase> cases = {
      {{2, 4, 9, 11}, {6, 2, 3, 3}, 2, 2, 1, 1, "NOTSET"},   // groups, stride, padding
      {{1, 3, 12, 10}, {5, 3, 3, 2}, 1, 1, 2, 2, "NOTSET"},  // dilation, non-square kernel
      {{2, 8, 7, 7}, {16, 8, 1, 1}, 1, 1, 0, 1, "NOTSET"},   // 1x1: no im2col
      {{1, 2, 8, 9}, {4, 2, 3, 3}, 1, 2, 0, 1, "SAME_UPPER"},
      {{1, 8, 32, 32}, {16, 8, 3, 3}, 1, 1, 1, 1, "NOTSET"},  // big enough for many blocks
      {{1, 8, 6, 6}, {8, 1, 3, 3}, 8, 1, 1, 1, "NOTSET"},     // depthwise
  };
  uint32_t seed = 80;
  for (const ConvCase &c : cases) {
    auto x = rounded32(randoms(count(c.x), seed++)), w = rounded32(randoms(count(c.w), seed++));
    auto b = rounded32(randoms(c.w[0], seed++));
    int64_t oh, ow;
    auto ref = convRef(c, x, w, b, &oh, &ow);
    Attr a;
    a.i("group", c.group).l("strides", {c.stride, c.stride}).l("dilations", {c.dilation, c.dilation});
    if (std::string(c.autoPad) == "NOTSET") {
      a.l("pads", {c.pad, c.pad, c.pad, c.pad});
    } else {
      a.s("auto_pad", c.autoPad);
    }
    const int64_t k = c.w[1] * c.w[2] * c.w[3];
    auto got = runOk("Conv", {f32(c.x, x), f32(c.w, w), f32({c.w[0]}, b)}, like(ACL_FLOAT, {c.x[0], c.w[0], oh, ow}), a);
    EXPECT_TRUE(near(got, ref, 1e-7 * k + 1e-7, 0)) << "case x" << c.x[1] << " w" << c.w[0] << " g" << c.group;
  }
  // Bias is optional.
  ConvCase c{{1, 2, 5, 5}, {3, 2, 3, 3}, 1, 1, 0, 1, "NOTSET"};
  auto x = rounded32(randoms(50, 90)), w = rounded32(randoms(54, 91));
  int64_t oh, ow;
  auto ref = convRef(c, x, w, {}, &oh, &ow);
  EXPECT_TRUE(near(runOk("Conv", {f32(c.x, x), f32(c.w, w)}, like(ACL_FLOAT, {1, 3, 3, 3})), ref, 2e-6, 0));
  // Errors: channels per group, a group that does not divide, a negative pad.
  std::vector<HostTensor> outs{like(ACL_FLOAT, {1, 3, 3, 3})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Conv", {f32(c.x, x), f32({3, 1, 3, 3}, randoms(27, 1))}, outs));
  Attr g;
  g.i("group", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Conv", {f32(c.x, x), f32(c.w, w)}, outs, g));
  Attr p;
  p.l("pads", {0, -1, 0, 0});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Conv", {f32(c.x, x), f32(c.w, w)}, outs, p));
}

// Pools in float64; `avg` with or without padding counted.
std::vector<double> poolRef(const std::vector<double> &x, const Dims &d, int64_t k, int64_t s, int64_t pad,
                            bool ceil, bool avg, bool includePad, int64_t *oh, int64_t *ow) {
  auto outSize = [&](int64_t in) {
    const int64_t room = in + 2 * pad - k;
    int64_t o = (ceil ? (room + s - 1) / s : room / s) + 1;
    if (ceil && (o - 1) * s >= in + pad) --o;
    return o;
  };
  *oh = outSize(d[2]);
  *ow = outSize(d[3]);
  std::vector<double> y;
  for (int64_t p = 0; p < d[0] * d[1]; ++p)
    for (int64_t oy = 0; oy < *oh; ++oy)
      for (int64_t ox = 0; ox < *ow; ++ox) {
        double best = -INFINITY, sum = 0;
        int64_t valid = 0, covered = 0;
        for (int64_t ky = 0; ky < k; ++ky)
          for (int64_t kx = 0; kx < k; ++kx) {
            const int64_t iy = oy * s - pad + ky, ix = ox * s - pad + kx;
            if (iy < d[2] + pad && ix < d[3] + pad) ++covered;
            if (iy < 0 || iy >= d[2] || ix < 0 || ix >= d[3]) continue;
            const double v = x[(p * d[2] + iy) * d[3] + ix];
            best = std::max(best, v), sum += v, ++valid;
          }
        y.push_back(avg ? sum / double(includePad ? covered : valid) : best);
      }
  return y;
}

TEST_P(ShapeOpTest, MaxAndAveragePool) {
  const Dims d{2, 3, 10, 11};
  auto x = rounded32(randoms(count(d), 95, -3, 3));
  for (int ceil = 0; ceil < 2; ++ceil)
    for (int avg = 0; avg < 2; ++avg)
      for (int inc = 0; inc < (avg ? 2 : 1); ++inc) {
        int64_t oh, ow;
        auto ref = poolRef(x, d, 3, 2, 1, ceil, avg, inc, &oh, &ow);
        Attr a;
        a.l("kernel_shape", {3, 3}).l("strides", {2, 2}).l("pads", {1, 1, 1, 1}).i("ceil_mode", ceil);
        if (avg) a.i("count_include_pad", inc);
        auto got = runOk(avg ? "AveragePool" : "MaxPool", {f32(d, x)}, like(ACL_FLOAT, {2, 3, oh, ow}), a);
        EXPECT_TRUE(near(got, ref, 1e-6, 1e-6)) << "ceil " << ceil << " avg " << avg << " include_pad " << inc;
      }
  std::vector<double> gap;
  for (int64_t p = 0; p < 6; ++p) {
    double s = 0;
    for (int64_t i = 0; i < 110; ++i) s += x[p * 110 + i];
    gap.push_back(s / 110);
  }
  EXPECT_TRUE(near(runOk("GlobalAveragePool", {f32(d, x)}, like(ACL_FLOAT, {2, 3, 1, 1})), gap, 1e-6, 1e-6));
  std::vector<HostTensor> outs{like(ACL_FLOAT, {2, 3, 5, 5})};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("MaxPool", {f32(d, x)}, outs));  // kernel_shape is required
  Attr big;
  big.l("kernel_shape", {12, 12});
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("MaxPool", {f32(d, x)}, outs, big));
}

ARUN_CONFORMANCE_INSTANTIATE(ShapeOpTest);

}  // namespace
}  // namespace conformance
