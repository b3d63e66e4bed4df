// The movement family (ops/src/movement.cpp): Squeeze, Unsqueeze, Expand, Tile, Slice, Split, Pad,
// DepthToSpace, SpaceToDepth. References are computed here from ONNX's definitions by index
// arithmetic (exact: data movement copies values), on random data, over element sizes 1, 2, 4
// and 8; opset variants via the `opset` attribute; every error rule, including geometry inputs
// read by the kernel that disagree with the output description (the synchronize fails).
#include <functional>
#include <limits>

#include "op_support.hpp"

namespace conformance {
namespace {

class MovementOpTest : public OpTest {};

HostTensor u8(const Dims& dims, const std::vector<double>& v) {
  HostTensor t{ACL_UINT8, dims, {}};
  for (double x : v) t.bytes.push_back(static_cast<uint8_t>(x));
  return t;
}

std::vector<int64_t> ints(const std::vector<double>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// The same values in several element sizes: float32 (4), float16 (2), int64 (8), uint8 (1).
// Values are small integers so every dtype holds them exactly.
std::vector<HostTensor> allSizes(const Dims& d, const std::vector<double>& v) {
  return {f32(d, v), f16(d, v), i64(d, ints(v)), u8(d, v)};
}

std::vector<double> smallInts(size_t n, uint32_t seed) {
  std::vector<double> v = randoms(n, seed, 0, 100);
  for (double& x : v) x = std::floor(x);
  return v;
}

// Multi-index <-> linear offset, row-major.
std::vector<int64_t> unravel(int64_t lin, const Dims& d) {
  std::vector<int64_t> idx(d.size());
  for (size_t k = d.size(); k-- > 0;) {
    idx[k] = lin % d[k];
    lin /= d[k];
  }
  return idx;
}
int64_t ravel(const std::vector<int64_t>& idx, const Dims& d) {
  int64_t off = 0;
  for (size_t k = 0; k < d.size(); ++k) off = off * d[k] + idx[k];
  return off;
}

// out[i] = in[f(index of i)] for every output element.
template <class F>
std::vector<double> gatherRef(const std::vector<double>& in, const Dims& in_dims, const Dims& out_dims, F f) {
  std::vector<double> r(count(out_dims));
  for (int64_t i = 0; i < count(out_dims); ++i) r[i] = in[ravel(f(unravel(i, out_dims)), in_dims)];
  return r;
}

TEST_P(MovementOpTest, SqueezeAndUnsqueezeByOpset) {
  const Dims d{3, 1, 4, 1};
  auto x = smallInts(count(d), 1);
  for (const HostTensor& t : allSizes(d, x)) {
    // Opset 13+: axes as an input (negative too); default opset is 17.
    EXPECT_TRUE(near(runOk("Squeeze", {t, i64({1}, {-1})}, like(t.dtype, {3, 1, 4})), x, 0, 0));
    EXPECT_TRUE(near(runOk("Squeeze", {t}, like(t.dtype, {3, 4})), x, 0, 0));
    EXPECT_TRUE(near(runOk("Unsqueeze", {t, i64({2}, {0, -1})}, like(t.dtype, {1, 3, 1, 4, 1, 1})), x, 0, 0));
  }
  // Opset 11: axes as an attribute.
  Attr a11;
  a11.i("opset", 11).l("axes", {1, 3});
  EXPECT_TRUE(near(runOk("Squeeze", {f32(d, x)}, like(ACL_FLOAT, {3, 4}), a11), x, 0, 0));
  Attr u11;
  u11.i("opset", 11).l("axes", {-5, 2});
  EXPECT_TRUE(near(runOk("Unsqueeze", {f32(d, x)}, like(ACL_FLOAT, {3, 1, 1, 1, 4, 1}), u11), x, 0, 0));
  Attr all11;
  all11.i("opset", 11);
  EXPECT_TRUE(near(runOk("Squeeze", {f32(d, x)}, like(ACL_FLOAT, {3, 4}), all11), x, 0, 0));

  // Errors: a squeezed axis of size > 1, axes out of range, repeated; the wrong form for the opset;
  // an output description that disagrees; the axes input read by the kernel disagreeing.
  Attr bad;
  bad.i("opset", 11).l("axes", {0});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Squeeze", {f32(d, x)}, like(ACL_FLOAT, {1, 4, 1}), bad));
  Attr range;
  range.i("opset", 11).l("axes", {4});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Squeeze", {f32(d, x)}, like(ACL_FLOAT, {3, 4, 1}), range));
  Attr twice;
  twice.i("opset", 11).l("axes", {1, 1});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Unsqueeze", {f32(d, x)}, like(ACL_FLOAT, {3, 1, 1, 4, 1, 1}), twice));
  Attr attr13;
  attr13.i("opset", 13).l("axes", {1});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Squeeze", {f32(d, x)}, like(ACL_FLOAT, {3, 4, 1}), attr13));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Squeeze", {f32(d, x), i64({1}, {1})}, like(ACL_FLOAT, {3, 4, 1}), all11));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Unsqueeze", {f32(d, x)}, like(ACL_FLOAT, {1, 3, 1, 4, 1}), all11));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Unsqueeze", {f32(d, x)}, like(ACL_FLOAT, {1, 3, 1, 4, 1})));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Squeeze", {f32(d, x)}, like(ACL_FLOAT, {12})));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             rc("Squeeze", {f32(d, x), i64({1}, {1})}, like(ACL_FLOAT, {3, 4})));  // rank 3 expected
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Squeeze", {f32(d, x), f32({1}, {1})}, like(ACL_FLOAT, {3, 4, 1})));
  // Kernel-read: axis 3 gives [3,1,4], the description says [3,4,1]; axis 0 has size 3; axis 9.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Squeeze", {f32(d, x), i64({1}, {3})}, like(ACL_FLOAT, {3, 4, 1})));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Squeeze", {f32(d, x), i64({1}, {0})}, like(ACL_FLOAT, {3, 4, 1})));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Unsqueeze", {f32(d, x), i64({1}, {9})}, like(ACL_FLOAT, {3, 1, 4, 1, 1})));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             rc("Unsqueeze", {f32(d, x), i64({1}, {0})}, like(ACL_FLOAT, {3, 1, 4, 1, 1})));
}

TEST_P(MovementOpTest, ExpandBroadcastsBothWays) {
  struct Case {
    Dims in, shape, out;
  };
  for (const Case& c : std::vector<Case>{{{3, 1}, {2, 1, 4}, {2, 3, 4}},
                                         {{1, 5}, {4, 1}, {4, 5}},
                                         {{2, 3}, {3}, {2, 3}},
                                         {{1}, {2, 3, 5}, {2, 3, 5}},
                                         {{}, {3}, {3}}}) {
    auto x = smallInts(count(c.in), 2);
    const auto ref = gatherRef(x, c.in, c.out, [&](std::vector<int64_t> idx) {
      std::vector<int64_t> src(c.in.size());
      for (size_t k = 0; k < c.in.size(); ++k) src[k] = c.in[k] == 1 ? 0 : idx[idx.size() - c.in.size() + k];
      return src;
    });
    for (const HostTensor& t : allSizes(c.in, x)) {
      EXPECT_TRUE(near(runOk("Expand", {t, i64({(int64_t)c.shape.size()}, c.shape)}, like(t.dtype, c.out)), ref, 0, 0));
    }
  }
  const Dims d{3, 1};
  auto x = smallInts(3, 3);
  // Host: not a broadcast of the input; wrong rank for the shape's length; shape not int64.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Expand", {f32(d, x), i64({2}, {2, 4})}, like(ACL_FLOAT, {2, 4})));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Expand", {f32(d, x), i64({2}, {3, 4})}, like(ACL_FLOAT, {1, 3, 4})));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Expand", {f32(d, x), f32({2}, {3, 4})}, like(ACL_FLOAT, {3, 4})));
  // Kernel: the shape says [3,5] but the description [3,4]; a negative dim; not broadcastable.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Expand", {f32(d, x), i64({2}, {3, 5})}, like(ACL_FLOAT, {3, 4})));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Expand", {f32(d, x), i64({2}, {-1, 4})}, like(ACL_FLOAT, {3, 4})));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Expand", {f32(d, x), i64({2}, {2, 4})}, like(ACL_FLOAT, {3, 4})));
}

TEST_P(MovementOpTest, TileRepeatsEveryAxis) {
  const Dims d{2, 3, 2};
  auto x = smallInts(count(d), 4);
  const Dims reps{3, 1, 2}, out{6, 3, 4};
  const auto ref = gatherRef(x, d, out, [&](std::vector<int64_t> idx) {
    for (size_t k = 0; k < idx.size(); ++k) idx[k] %= d[k];
    return idx;
  });
  for (const HostTensor& t : allSizes(d, x))
    EXPECT_TRUE(near(runOk("Tile", {t, i64({3}, reps)}, like(t.dtype, out)), ref, 0, 0));
  EXPECT_TRUE(near(runOk("Tile", {f32(d, x), i64({3}, {1, 0, 1})}, like(ACL_FLOAT, {2, 0, 2})), {}, 0, 0));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Tile", {f32(d, x), i64({2}, {1, 1})}, like(ACL_FLOAT, d)));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Tile", {f32(d, x), i64({3}, reps)}, like(ACL_FLOAT, {6, 3, 5})));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Tile", {f32(d, x), i64({3}, reps)}, like(ACL_FLOAT16, out)));
  // Kernel: repeats [3,1,1] against a description of [6,3,4]; a negative repeat.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Tile", {f32(d, x), i64({3}, {3, 1, 1})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Tile", {f32(d, x), i64({3}, {-3, 1, 2})}, like(ACL_FLOAT, out)));
}

// ONNX Slice per axis, by walking the indices (independent of the kernel's closed form).
std::vector<int64_t> sliceIndices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  std::vector<int64_t> r;
  if (step > 0) {
    start = std::max<int64_t>(0, std::min(start, dim));
    end = std::max<int64_t>(0, std::min(end, dim));
    for (int64_t i = start; i < end; i += step) r.push_back(i);
  } else {
    start = std::max<int64_t>(0, std::min(start, dim - 1));
    end = std::max<int64_t>(-1, std::min(end, dim - 1));
    for (int64_t i = start; i > end; i += step) r.push_back(i);
  }
  return r;
}

TEST_P(MovementOpTest, SliceStartsEndsAxesSteps) {
  const Dims d{5, 6, 4};
  auto x = smallInts(count(d), 5);
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  for (const Case& c : std::vector<Case>{{{1, 0}, {4, kMax}, {0, 2}, {}},
                                         {{-1}, {kMin}, {1}, {-1}},
                                         {{10, -100}, {-10, 100}, {-1, 0}, {-1, 2}},
                                         {{0, 5, 1}, {5, 0, 3}, {0, 1, 2}, {3, -2, 1}},
                                         {{2}, {2}, {1}, {}},
                                         {{-2}, {-1}, {-3}, {}}}) {
    std::vector<std::vector<int64_t>> sel(3);
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t i = 0; i < d[k]; ++i) sel[k].push_back(i);
    for (size_t i = 0; i < c.starts.size(); ++i) {
      const int64_t ax = c.axes.empty() ? i : (c.axes[i] + 3) % 3;
      sel[ax] = sliceIndices(d[ax], c.starts[i], c.ends[i], c.steps.empty() ? 1 : c.steps[i]);
    }
    const Dims out{(int64_t)sel[0].size(), (int64_t)sel[1].size(), (int64_t)sel[2].size()};
    const auto ref = gatherRef(x, d, out, [&](std::vector<int64_t> idx) {
      for (size_t k = 0; k < 3; ++k) idx[k] = sel[k][idx[k]];
      return idx;
    });
    const int64_t n = c.starts.size();
    for (const HostTensor& t : allSizes(d, x)) {
      std::vector<HostTensor> in{t, i64({n}, c.starts), i64({n}, c.ends), i64({n}, c.axes)};
      if (!c.steps.empty()) in.push_back(i64({n}, c.steps));
      EXPECT_TRUE(near(runOk("Slice", in, like(t.dtype, out)), ref, 0, 0)) << "case starts " << c.starts[0];
    }
    if (c.steps.empty()) {  // opset 9: attributes; int32 inputs too
      Attr a;
      a.i("opset", 9).l("starts", c.starts).l("ends", c.ends).l("axes", c.axes);
      EXPECT_TRUE(near(runOk("Slice", {f32(d, x)}, like(ACL_FLOAT, out), a), ref, 0, 0));
      bool fits32 = true;
      for (const auto* v : {&c.starts, &c.ends})
        for (int64_t e : *v) fits32 = fits32 && e == static_cast<int32_t>(e);
      if (fits32) {
        EXPECT_TRUE(near(
            runOk("Slice", {f32(d, x), i32({n}, c.starts), i32({n}, c.ends), i32({n}, c.axes)}, like(ACL_FLOAT, out)),
            ref, 0, 0));
      }
    }
  }
  // No axes input: the leading axes.
  const auto ref01 = gatherRef(x, d, {2, 6, 4}, [&](std::vector<int64_t> idx) {
    idx[0] += 1;
    return idx;
  });
  EXPECT_TRUE(near(runOk("Slice", {f32(d, x), i64({1}, {1}), i64({1}, {3})}, like(ACL_FLOAT, {2, 6, 4})), ref01, 0, 0));

  const Dims o{3, 6, 4};
  const auto s = i64({1}, {1}), e = i64({1}, {4}), ax = i64({1}, {0});
  // Host errors: attributes at opset 10+, inputs before; lengths; dtypes; output rank/dtype.
  Attr attr13;
  attr13.l("starts", {1});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Slice", {f32(d, x), s, e, ax}, like(ACL_FLOAT, o), attr13));
  Attr op9;
  op9.i("opset", 9);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Slice", {f32(d, x)}, like(ACL_FLOAT, o), op9));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, e, ax}, like(ACL_FLOAT, o), op9));
  Attr op9bad;
  op9bad.i("opset", 9).l("starts", {1}).l("ends", {4}).l("axes", {3});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Slice", {f32(d, x)}, like(ACL_FLOAT, o), op9bad));
  Attr op9out;
  op9out.i("opset", 9).l("starts", {1}).l("ends", {4}).l("axes", {0});
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Slice", {f32(d, x)}, like(ACL_FLOAT, {2, 6, 4}), op9out));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, i64({2}, {4, 4}), ax}, like(ACL_FLOAT, o)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Slice", {f32(d, x), f32({1}, {1}), e, ax}, like(ACL_FLOAT, o)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, i32({1}, {4}), ax}, like(ACL_FLOAT, o)));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, e, ax}, like(ACL_FLOAT, {3, 6})));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, e, ax}, like(ACL_FLOAT, {3, 7, 4})));
  // Kernel errors: values that give another shape, a zero step, a repeated or out-of-range axis.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, i64({1}, {5}), ax}, like(ACL_FLOAT, o)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, e, ax, i64({1}, {0})}, like(ACL_FLOAT, o)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Slice", {f32(d, x), i64({2}, {1, 1}), i64({2}, {4, 4}), i64({2}, {0, -3})}, like(ACL_FLOAT, o)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Slice", {f32(d, x), s, e, i64({1}, {3})}, like(ACL_FLOAT, o)));
}

TEST_P(MovementOpTest, SplitByAttributeInputAndEqualParts) {
  const Dims d{4, 6};
  auto x = smallInts(count(d), 6);
  auto part = [&](int64_t from, int64_t len) {
    return gatherRef(x, d, {4, len}, [&](std::vector<int64_t> idx) {
      idx[1] += from;
      return idx;
    });
  };
  Attr a;
  a.i("axis", -1);
  for (const HostTensor& t : allSizes(d, x)) {
    std::vector<HostTensor> outs{like(t.dtype, {4, 1}), like(t.dtype, {4, 5})};
    ASSERT_ACL_OK(run("Split", {t, i64({2}, {1, 5})}, outs, a));
    EXPECT_TRUE(near(outs[0].values(), part(0, 1), 0, 0));
    EXPECT_TRUE(near(outs[1].values(), part(1, 5), 0, 0));
  }
  std::vector<HostTensor> three{like(ACL_FLOAT, {4, 2}), like(ACL_FLOAT, {4, 2}), like(ACL_FLOAT, {4, 2})};
  ASSERT_ACL_OK(run("Split", {f32(d, x)}, three, a));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(near(three[i].values(), part(2 * i, 2), 0, 0));
  Attr a11;
  a11.i("opset", 11).i("axis", 1).l("split", {4, 2});
  std::vector<HostTensor> two{like(ACL_FLOAT, {4, 4}), like(ACL_FLOAT, {4, 2})};
  ASSERT_ACL_OK(run("Split", {f32(d, x)}, two, a11));
  EXPECT_TRUE(near(two[0].values(), part(0, 4), 0, 0));
  EXPECT_TRUE(near(two[1].values(), part(4, 2), 0, 0));
  // axis 0 (default), equal parts.
  std::vector<HostTensor> rows{like(ACL_FLOAT, {2, 6}), like(ACL_FLOAT, {2, 6})};
  ASSERT_ACL_OK(run("Split", {f32(d, x)}, rows));
  EXPECT_TRUE(near(rows[1].values(), std::vector<double>(x.begin() + 12, x.end()), 0, 0));

  // Errors: the split attribute at opset 13 / input at 11; attribute vs descriptions; unequal
  // parts; an axis out of range; sizes that do not add up; the kernel-read split disagreeing.
  Attr bad13;
  bad13.l("split", {4, 2}).i("axis", 1);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Split", {f32(d, x)}, two, bad13));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Split", {f32(d, x), i64({2}, {4, 2})}, two, a11));
  Attr mism;
  mism.i("opset", 11).i("axis", 1).l("split", {3, 3});
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Split", {f32(d, x)}, two, mism));
  Attr ax1;
  ax1.i("axis", 1);
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Split", {f32(d, x)}, two, ax1));
  std::vector<HostTensor> four{like(ACL_FLOAT, {4, 1}), like(ACL_FLOAT, {4, 1}), like(ACL_FLOAT, {4, 1}),
                               like(ACL_FLOAT, {4, 1})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Split", {f32(d, x)}, four, ax1));
  Attr ax2;
  ax2.i("axis", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Split", {f32(d, x)}, two, ax2));
  std::vector<HostTensor> short_{like(ACL_FLOAT, {4, 4}), like(ACL_FLOAT, {4, 1})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Split", {f32(d, x), i64({2}, {4, 1})}, short_, ax1));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Split", {f32(d, x), i64({3}, {4, 1, 1})}, two, ax1));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Split", {f32(d, x), i64({2}, {3, 3})}, two, ax1));
}

// numpy.pad's modes, by repeated reflection (independent of the kernel's periodic form).
int64_t padIndex(int64_t j, int64_t n, const std::string& mode) {
  if (mode == "edge") return std::max<int64_t>(0, std::min(j, n - 1));
  if (n == 1) return 0;
  while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
  return j;
}

TEST_P(MovementOpTest, PadModesAndOpsets) {
  const Dims d{3, 4};
  auto x = smallInts(count(d), 7);
  const std::vector<int64_t> pads{1, -1, 2, 6};  // begin h, begin w, end h, end w (crop 1 column)
  const Dims out{6, 9};
  for (const std::string mode : {"constant", "reflect", "edge"}) {
    std::vector<double> ref(count(out));
    for (int64_t i = 0; i < count(out); ++i) {
      auto idx = unravel(i, out);
      int64_t h = idx[0] - pads[0], w = idx[1] - pads[1];
      if (mode == "constant") {
        ref[i] = h < 0 || h >= 3 || w < 0 || w >= 4 ? 7 : x[h * 4 + w];
      } else {
        ref[i] = x[padIndex(h, 3, mode) * 4 + padIndex(w, 4, mode)];
      }
    }
    Attr a;
    a.s("mode", mode.c_str());
    for (const HostTensor& t : allSizes(d, x)) {
      std::vector<HostTensor> in{t, i64({4}, pads)};
      HostTensor value = t.dtype == ACL_FLOAT     ? f32({}, {7})
                         : t.dtype == ACL_FLOAT16 ? f16({}, {7})
                         : t.dtype == ACL_INT64   ? i64({}, {7})
                                                  : u8({}, {7});
      in.push_back(value);
      EXPECT_TRUE(near(runOk("Pad", in, like(t.dtype, out), a), ref, 0, 0)) << mode << " dtype " << t.dtype;
    }
    Attr a2;
    a2.s("mode", mode.c_str()).i("opset", 2).l("pads", pads).f("value", 7.0f);
    EXPECT_TRUE(near(runOk("Pad", {f32(d, x)}, like(ACL_FLOAT, out), a2), ref, 0, 0)) << mode;
  }
  // Default constant 0, no constant_value input.
  auto zero = runOk("Pad", {f32(d, x), i64({4}, {0, 0, 1, 0})}, like(ACL_FLOAT, {4, 4}));
  std::vector<double> zref = x;
  zref.insert(zref.end(), 4, 0.0);
  EXPECT_TRUE(near(zero, zref, 0, 0));

  Attr wrap;
  wrap.s("mode", "wrap");
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Pad", {f32(d, x), i64({4}, pads)}, like(ACL_FLOAT, out), wrap));
  Attr attr11;
  attr11.l("pads", pads);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Pad", {f32(d, x), i64({4}, pads)}, like(ACL_FLOAT, out), attr11));
  Attr op2;
  op2.i("opset", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Pad", {f32(d, x)}, like(ACL_FLOAT, out), op2));
  Attr op2bad;
  op2bad.i("opset", 2).l("pads", {1, 1});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Pad", {f32(d, x)}, like(ACL_FLOAT, out), op2bad));
  Attr op2crop;
  op2crop.i("opset", 2).l("pads", {-4, 0, 0, 0});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Pad", {f32(d, x)}, like(ACL_FLOAT, {0, 4}), op2crop));
  Attr op2out;
  op2out.i("opset", 2).l("pads", pads);
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Pad", {f32(d, x)}, like(ACL_FLOAT, {6, 8}), op2out));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Pad", {f32(d, x), i64({3}, {0, 0, 0})}, like(ACL_FLOAT, d)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Pad", {f32(d, x), i32({4}, pads)}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Pad", {f32(d, x), i64({4}, pads), f16({}, {7})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Pad", {f32(d, x), i64({4}, pads)}, like(ACL_FLOAT, {6, 9, 1})));
  // Kernel: pads that give another shape; a crop beyond the input.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Pad", {f32(d, x), i64({4}, {1, 1, 2, 6})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Pad", {f32(d, x), i64({4}, {-5, 0, 8, 0})}, like(ACL_FLOAT, {6, 4})));
}

TEST_P(MovementOpTest, DepthToSpaceAndSpaceToDepth) {
  const int64_t b = 2;
  const Dims d{2, 8, 3, 2};
  auto x = smallInts(count(d), 8);
  const Dims out{2, 2, 6, 4};
  const auto dcr = gatherRef(x, d, out, [&](std::vector<int64_t> i) {
    return std::vector<int64_t>{i[0], ((i[2] % b) * b + i[3] % b) * 2 + i[1], i[2] / b, i[3] / b};
  });
  const auto crd = gatherRef(x, d, out, [&](std::vector<int64_t> i) {
    return std::vector<int64_t>{i[0], i[1] * b * b + (i[2] % b) * b + i[3] % b, i[2] / b, i[3] / b};
  });
  Attr a;
  a.i("blocksize", b);
  Attr c;
  c.i("blocksize", b).s("mode", "CRD");
  for (const HostTensor& t : allSizes(d, x)) {
    EXPECT_TRUE(near(runOk("DepthToSpace", {t}, like(t.dtype, out), a), dcr, 0, 0));
    EXPECT_TRUE(near(runOk("DepthToSpace", {t}, like(t.dtype, out), c), crd, 0, 0));
  }
  // SpaceToDepth inverts DCR.
  const Dims sd{2, 3, 4, 6};
  auto y = smallInts(count(sd), 9);
  const Dims so{2, 12, 2, 3};
  const auto s2d = gatherRef(y, sd, so, [&](std::vector<int64_t> i) {
    const int64_t blk = i[1] / 3, ch = i[1] % 3;
    return std::vector<int64_t>{i[0], ch, i[2] * b + blk / b, i[3] * b + blk % b};
  });
  for (const HostTensor& t : allSizes(sd, y))
    EXPECT_TRUE(near(runOk("SpaceToDepth", {t}, like(t.dtype, so), a), s2d, 0, 0));
  std::vector<HostTensor> back{like(ACL_FLOAT, sd)};
  ASSERT_ACL_OK(run("DepthToSpace", {f32(so, s2d)}, back, a));
  EXPECT_TRUE(near(back[0].values(), y, 0, 0));

  Attr none, zero, crdbad, big;
  zero.i("blocksize", 0);
  crdbad.i("blocksize", 2).s("mode", "XYZ");
  big.i("blocksize", 3);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("DepthToSpace", {f32(d, x)}, like(ACL_FLOAT, out), none));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("DepthToSpace", {f32(d, x)}, like(ACL_FLOAT, out), zero));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("DepthToSpace", {f32(d, x)}, like(ACL_FLOAT, out), crdbad));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("DepthToSpace", {f32(d, x)}, like(ACL_FLOAT, out), big));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("SpaceToDepth", {f32(sd, y)}, like(ACL_FLOAT, so), big));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("SpaceToDepth", {f32({4, 6}, std::vector<double>(24, 1.0))}, like(ACL_FLOAT, so), a));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("DepthToSpace", {f32(d, x)}, like(ACL_FLOAT, {2, 2, 4, 6}), a));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("SpaceToDepth", {f32(sd, y)}, like(ACL_FLOAT16, so), a));
}

// ---- Resize / Upsample ----

// ONNX's coordinate transforms and rounding, written from the operator's text.
double resizeSource(const std::string& coord, int64_t x, double scale, int64_t lin, int64_t lout) {
  if (coord == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (coord == "pytorch_half_pixel") return lout > 1 ? (x + 0.5) / scale - 0.5 : 0;
  if (coord == "align_corners") return lout == 1 ? 0 : x * double(lin - 1) / double(lout - 1);
  if (coord == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  return x / scale;  // asymmetric
}

int64_t roundNearest(const std::string& mode, double v, double scale) {
  const double f = std::floor(v);
  if (mode == "round_prefer_floor") return v - f == 0.5 ? f : std::round(v);
  if (mode == "round_prefer_ceil") return v - f == 0.5 ? f + 1 : std::round(v);
  if (mode == "floor") return f;
  if (mode == "ceil") return std::ceil(v);
  return scale < 1 ? std::ceil(v) : std::trunc(v);  // "simple" (Resize-10, Upsample)
}

// Per axis: for each output index, the (source, weight) pairs.
using Taps = std::vector<std::vector<std::pair<int64_t, double>>>;

std::vector<double> resizeRef(const std::vector<double>& x, const Dims& in, const Dims& out,
                              const std::vector<double>& scales, bool linear, const std::string& coord,
                              const std::string& nearest) {
  std::vector<Taps> axes(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    for (int64_t o = 0; o < out[d]; ++o) {
      const double v = resizeSource(coord, o, scales[d], in[d], out[d]);
      if (linear) {
        const double c = std::max(0.0, std::min(v, double(in[d] - 1)));
        const int64_t lo = static_cast<int64_t>(c), hi = std::min<int64_t>(lo + 1, in[d] - 1);
        axes[d].push_back({{lo, 1 - (c - lo)}, {hi, c - lo}});
      } else {
        const int64_t i = std::max<int64_t>(0, std::min<int64_t>(roundNearest(nearest, v, scales[d]), in[d] - 1));
        axes[d].push_back({{i, 1.0}});
      }
    }
  }
  std::vector<double> r(count(out));
  for (int64_t i = 0; i < count(out); ++i) {
    const auto idx = unravel(i, out);
    // Sum over every combination of the axes' taps.
    std::function<void(size_t, std::vector<int64_t>&, double)> walk = [&](size_t d, std::vector<int64_t>& src,
                                                                          double w) {
      if (d == in.size()) {
        r[i] += w * x[ravel(src, in)];
        return;
      }
      for (const auto& [s, tw] : axes[d][idx[d]]) {
        src[d] = s;
        walk(d + 1, src, w * tw);
      }
    };
    std::vector<int64_t> src(in.size());
    walk(0, src, 1.0);
  }
  return r;
}

TEST_P(MovementOpTest, ResizeModesAndCoordinates) {
  const Dims d{1, 2, 4, 5};
  auto x = rounded32(randoms(count(d), 10, -2, 2));
  for (const auto& sc : std::vector<std::vector<double>>{{1, 1, 2, 1.5}, {1, 1, 0.5, 0.6}, {1, 1, 1.75, 0.8}}) {
    Dims out;
    for (size_t k = 0; k < 4; ++k) out.push_back(static_cast<int64_t>(std::floor(float(d[k]) * float(sc[k]))));
    std::vector<double> sf(sc.begin(), sc.end());
    for (double& v : sf) v = static_cast<float>(v);
    const HostTensor scales = f32({4}, sc);
    for (const std::string coord :
         {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"}) {
      for (const std::string nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
        Attr a;
        a.s("coordinate_transformation_mode", coord.c_str()).s("nearest_mode", nm.c_str());
        EXPECT_TRUE(near(runOk("Resize", {f32(d, x), omitted(), scales}, like(ACL_FLOAT, out), a),
                         resizeRef(x, d, out, sf, false, coord, nm), 0, 0))
            << coord << " " << nm << " scale " << sc[2];
      }
      Attr lin;
      lin.s("mode", "linear").s("coordinate_transformation_mode", coord.c_str());
      const auto ref = resizeRef(x, d, out, sf, true, coord, "");
      EXPECT_TRUE(near(runOk("Resize", {f32(d, x), omitted(), scales}, like(ACL_FLOAT, out), lin), ref, 1e-6, 1e-6))
          << coord << " scale " << sc[2];
      // Opset 11: roi and scales required (empty scales), sizes give the scale out/in.
      Attr lin11;
      lin11.s("mode", "linear").s("coordinate_transformation_mode", coord.c_str()).i("opset", 11);
      std::vector<double> ratio(4);
      for (size_t k = 0; k < 4; ++k) ratio[k] = static_cast<float>(float(out[k]) / float(d[k]));
      EXPECT_TRUE(
          near(runOk("Resize", {f32(d, x), omitted(), f32({0}, {}), i64({4}, out)}, like(ACL_FLOAT, out), lin11),
               resizeRef(x, d, out, ratio, true, coord, ""), 1e-6, 1e-6))
          << coord << " sizes";
    }
    // float16, linear half_pixel.
    Attr lin;
    lin.s("mode", "linear");
    const auto xh = rounded16(x);
    EXPECT_TRUE(near(runOk("Resize", {f16(d, xh), omitted(), scales}, like(ACL_FLOAT16, out), lin),
                     resizeRef(xh, d, out, sf, true, "half_pixel", ""), 2e-3, 2e-3));
    // Resize-10 and Upsample-9: asymmetric, "simple" nearest rounding.
    Attr r10, r10l;
    r10.i("opset", 10);
    r10l.i("opset", 10).s("mode", "linear");
    EXPECT_TRUE(near(runOk("Resize", {f32(d, x), scales}, like(ACL_FLOAT, out), r10),
                     resizeRef(x, d, out, sf, false, "asymmetric", "simple"), 0, 0));
    EXPECT_TRUE(near(runOk("Resize", {f32(d, x), scales}, like(ACL_FLOAT, out), r10l),
                     resizeRef(x, d, out, sf, true, "asymmetric", ""), 1e-6, 1e-6));
    if (sc[2] >= 1 && sc[3] >= 1) {
      EXPECT_TRUE(near(runOk("Upsample", {f32(d, x), scales}, like(ACL_FLOAT, out)),
                       resizeRef(x, d, out, sf, false, "asymmetric", "simple"), 0, 0));
      EXPECT_TRUE(near(runOk("Upsample", {f32(d, x), scales}, like(ACL_FLOAT, out), lin),
                       resizeRef(x, d, out, sf, true, "asymmetric", ""), 1e-6, 1e-6));
    }
  }
  const Dims out{1, 2, 8, 7};
  const HostTensor scales = f32({4}, {1, 1, 2, 1.5});
  Attr cubic, crop, badnm, legacy, up7;
  cubic.s("mode", "cubic");
  crop.s("coordinate_transformation_mode", "tf_crop_and_resize");
  badnm.s("nearest_mode", "nearest");
  legacy.i("opset", 10).s("coordinate_transformation_mode", "half_pixel");
  up7.i("opset", 7);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Resize", {f32(d, x), omitted(), scales}, like(ACL_FLOAT, out), cubic));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Resize", {f32(d, x), omitted(), scales}, like(ACL_FLOAT, out), crop));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Resize", {f32(d, x), omitted(), scales}, like(ACL_FLOAT, out), badnm));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Resize", {f32(d, x), scales}, like(ACL_FLOAT, out), legacy));
  // Upsample 7/8: scales is a float-list attribute (only models carry one; tested in
  // tests/unit/model/import_opset_test.cpp): a scales input or no attribute is refused.
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Upsample", {f32(d, x), scales}, like(ACL_FLOAT, out), up7));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Upsample", {f32(d, x)}, like(ACL_FLOAT, out), up7));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Resize", {f32(d, x), omitted(), scales, i64({4}, out)}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Resize", {f32(d, x)}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Resize", {f32(d, x), omitted(), f32({2}, {2, 1.5})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Resize", {f32(d, x), omitted(), omitted(), i32({4}, out)}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("Resize", {i64(d, std::vector<int64_t>(count(d), 1)), omitted(), scales}, like(ACL_INT64, out)));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Resize", {f32(d, x), omitted(), scales}, like(ACL_FLOAT, {2, 8, 7})));
  // Kernel-read: scales / sizes that give another shape; a negative scale; Upsample below 1.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             rc("Resize", {f32(d, x), omitted(), f32({4}, {1, 1, 2, 2})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             rc("Resize", {f32(d, x), omitted(), omitted(), i64({4}, {1, 2, 8, 8})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Resize", {f32(d, x), omitted(), f32({4}, {1, 1, -2, 1.5})}, like(ACL_FLOAT, out)));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Upsample", {f32(d, x), f32({4}, {1, 1, 0.5, 1})}, like(ACL_FLOAT, {1, 2, 2, 5})));
}

// Shapes large enough for several blocks, whose shares start mid-row (the kernels walk rows).
TEST_P(MovementOpTest, LargeShapesSplitAcrossBlocks) {
  const Dims d{1, 151, 37};
  auto x = smallInts(count(d), 11);
  const Dims tiled{1, 151, 111};
  EXPECT_TRUE(near(runOk("Tile", {f32(d, x), i64({3}, {1, 1, 3})}, like(ACL_FLOAT, tiled)),
                   gatherRef(x, d, tiled,
                             [&](std::vector<int64_t> idx) {
                               idx[2] %= 37;
                               return idx;
                             }),
                   0, 0));
  const Dims pd{3, 128, 59}, po{3, 131, 64};
  auto y = smallInts(count(pd), 12);
  Attr reflect;
  reflect.s("mode", "reflect");
  EXPECT_TRUE(near(runOk("Pad", {f32(pd, y), i64({6}, {0, 1, 2, 0, 2, 3})}, like(ACL_FLOAT, po), reflect),
                   gatherRef(y, pd, po,
                             [&](std::vector<int64_t> idx) {
                               idx[1] = padIndex(idx[1] - 1, 128, "reflect");
                               idx[2] = padIndex(idx[2] - 2, 59, "reflect");
                               return idx;
                             }),
                   0, 0));
  const Dims rd{1, 3, 40, 30}, ro{1, 3, 97, 51};
  auto z = rounded32(randoms(count(rd), 13));
  std::vector<double> ratio{1, 1, float(97) / 40.0f, float(51) / 30.0f};
  for (const char* mode : {"nearest", "linear"}) {
    Attr a;
    a.s("mode", mode);
    EXPECT_TRUE(near(runOk("Resize", {f32(rd, z), omitted(), omitted(), i64({4}, ro)}, like(ACL_FLOAT, ro), a),
                     resizeRef(z, rd, ro, ratio, std::string(mode) == "linear", "half_pixel", "round_prefer_floor"),
                     1e-6, 1e-6))
        << mode;
  }
}

// Elements of 16 bytes (complex128) have no kernel: 100026 from every op of the family.
TEST_P(MovementOpTest, SixteenByteElementsAreRefused) {
  auto c128 = [](const Dims& d) { return HostTensor{ACL_COMPLEX128, d, std::vector<uint8_t>(16 * count(d), 0)}; };
  Attr sq;
  sq.i("opset", 11).l("axes", {0});
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, rc("Squeeze", {c128({1, 4})}, like(ACL_COMPLEX128, {4}), sq));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("Expand", {c128({1, 4}), i64({2}, {2, 4})}, like(ACL_COMPLEX128, {2, 4})));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("Tile", {c128({1, 4}), i64({2}, {2, 1})}, like(ACL_COMPLEX128, {2, 4})));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("Slice", {c128({1, 4}), i64({1}, {1}), i64({1}, {3}), i64({1}, {1})}, like(ACL_COMPLEX128, {1, 2})));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("Pad", {c128({1, 4}), i64({4}, {0, 1, 0, 1})}, like(ACL_COMPLEX128, {1, 6})));
  Attr b;
  b.i("blocksize", 2);
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("SpaceToDepth", {c128({1, 1, 2, 2})}, like(ACL_COMPLEX128, {1, 4, 1, 1}), b));
  std::vector<HostTensor> two{like(ACL_COMPLEX128, {1, 2}), like(ACL_COMPLEX128, {1, 2})};
  Attr ax;
  ax.i("axis", 1);
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Split", {c128({1, 4})}, two, ax));
}

ARUN_CONFORMANCE_INSTANTIATE(MovementOpTest);

}  // namespace
}  // namespace conformance
