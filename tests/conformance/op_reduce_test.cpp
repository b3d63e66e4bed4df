// The reductions and TopK (ops/src/reduce.cpp): every Reduce* against a float64 reference on
// random data (several axis sets, negative axes, keepdims, noop_with_empty_axes, float16 and the
// integer dtypes where they run), ReduceSum's axes attribute (opset < 13) and input (13+, read by
// the kernel), TopK by attribute (opset 9) and input (10+) with ties and NaN; every error rule.
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include "op_support.hpp"

namespace conformance {
namespace {

class ReduceOpTest : public OpTest {};

std::vector<int64_t> unravelDims(int64_t lin, const Dims& d) {
  std::vector<int64_t> idx(d.size());
  for (size_t k = d.size(); k-- > 0;) {
    idx[k] = lin % d[k];
    lin /= d[k];
  }
  return idx;
}
int64_t ravelDims(const std::vector<int64_t>& idx, const Dims& d) {
  int64_t off = 0;
  for (size_t k = 0; k < d.size(); ++k) off = off * d[k] + idx[k];
  return off;
}

// A float64 reduction of `x` over the axes flagged in `red`; returns the values and the shape.
std::vector<double> reduceRef(const std::string& op, const std::vector<double>& x, const Dims& d,
                              const std::vector<bool>& red, bool keepdims, Dims* out) {
  out->clear();
  Dims kept;
  for (size_t k = 0; k < d.size(); ++k) {
    if (!red[k]) kept.push_back(d[k]);
    if (!red[k] || keepdims) out->push_back(red[k] ? 1 : d[k]);
  }
  std::vector<std::vector<double>> groups(count(kept));
  for (int64_t i = 0; i < count(d); ++i) {
    int64_t lin = i, g = 0, mul = 1;
    for (size_t k = d.size(); k-- > 0;) {
      const int64_t c = lin % d[k];
      lin /= d[k];
      if (!red[k]) {
        g += c * mul;
        mul *= d[k];
      }
    }
    groups[g].push_back(x[i]);
  }
  std::vector<double> r;
  for (const auto& v : groups) {
    double a = 0;
    if (op == "ReduceSum") a = std::accumulate(v.begin(), v.end(), 0.0);
    if (op == "ReduceMean") a = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
    if (op == "ReduceMax") a = *std::max_element(v.begin(), v.end());
    if (op == "ReduceMin") a = *std::min_element(v.begin(), v.end());
    if (op == "ReduceProd") a = std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<double>());
    for (double e : v) {
      if (op == "ReduceL1") a += std::fabs(e);
      if (op == "ReduceL2" || op == "ReduceSumSquare") a += e * e;
      if (op == "ReduceLogSum") a += e;
      if (op == "ReduceLogSumExp") a += std::exp(e);
    }
    if (op == "ReduceL2") a = std::sqrt(a);
    if (op == "ReduceLogSum" || op == "ReduceLogSumExp") a = std::log(a);
    r.push_back(a);
  }
  return r;
}

const char* const kOps[] = {"ReduceSum", "ReduceMean", "ReduceMax",       "ReduceMin",    "ReduceProd",
                            "ReduceL1",  "ReduceL2",   "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"};

TEST_P(ReduceOpTest, EveryReductionAgainstFloat64) {
  const Dims d{3, 4, 5};
  // Positive values keep ReduceLogSum defined; ReduceProd stays near 1.
  auto x = rounded32(randoms(count(d), 21, 0.5, 1.5));
  auto xh = rounded16(x);
  struct Case {
    std::vector<int64_t> axes;
    bool keepdims;
  };
  for (const char* op : kOps) {
    for (const Case& c :
         std::vector<Case>{{{1}, true}, {{-1, 0}, false}, {{}, true}, {{0, 1, 2}, false}, {{-2}, false}}) {
      std::vector<bool> red(3, c.axes.empty());
      for (int64_t a : c.axes) red[(a + 3) % 3] = true;
      Dims out;
      const auto ref = reduceRef(op, x, d, red, c.keepdims, &out);
      Attr a;
      a.i("keepdims", c.keepdims);
      if (!c.axes.empty()) a.l("axes", c.axes);
      // ReduceSum is opset 13 by default here (no opset attribute: either form).
      EXPECT_TRUE(near(runOk(op, {f32(d, x)}, like(ACL_FLOAT, out), a), ref, 1e-6, 1e-6)) << op;
      const auto refh = reduceRef(op, xh, d, red, c.keepdims, &out);
      EXPECT_TRUE(near(runOk(op, {f16(d, xh)}, like(ACL_FLOAT16, out), a), refh, 1e-3, 1e-3)) << op << " float16";
    }
    // noop_with_empty_axes and no axes: the identity.
    Attr noop;
    noop.i("noop_with_empty_axes", 1);
    Dims same;
    const std::vector<double> ident = reduceRef(op, x, d, {false, false, false}, true, &same);
    EXPECT_TRUE(near(runOk(op, {f32(d, x)}, like(ACL_FLOAT, d), noop), ident, 1e-6, 1e-6)) << op;
  }
  // LogSumExp does not overflow on large inputs (the row maximum is taken out).
  Attr all;
  all.i("keepdims", 0);
  EXPECT_TRUE(near(runOk("ReduceLogSumExp", {f32({2}, {1000, 1000})}, like(ACL_FLOAT, {}), all), {1000 + std::log(2.0)},
                   1e-4, 0));
  // Empty reductions: sums 0, product 1, log-sum -inf.
  EXPECT_TRUE(
      near(runOk("ReduceProd", {f32({0, 2}, {})}, like(ACL_FLOAT, {1, 2}), Attr().l("axes", {0})), {1, 1}, 0, 0));
}

TEST_P(ReduceOpTest, IntegerReductions) {
  const Dims d{4, 6};
  std::vector<int64_t> v;
  for (double r : randoms(count(d), 22, -9, 9)) v.push_back(static_cast<int64_t>(std::floor(r)));
  std::vector<double> x(v.begin(), v.end());
  for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"}) {
    Dims out;
    const auto ref = reduceRef(op, x, d, {false, true}, false, &out);
    Attr a;
    a.l("axes", {-1}).i("keepdims", 0);
    EXPECT_TRUE(near(runOk(op, {i64(d, v)}, like(ACL_INT64, out), a), ref, 0, 0)) << op;
    EXPECT_TRUE(near(runOk(op, {i32(d, v)}, like(ACL_INT32, out), a), ref, 0, 0)) << op;
  }
  // int8 / uint8: ReduceMax and ReduceMin only.
  HostTensor s8{ACL_INT8, d, {}}, u8{ACL_UINT8, d, {}};
  std::vector<double> xu;
  for (int64_t e : v) {
    s8.bytes.push_back(static_cast<uint8_t>(static_cast<int8_t>(e)));
    u8.bytes.push_back(static_cast<uint8_t>(e + 9));
    xu.push_back(static_cast<double>(e + 9));
  }
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    Dims out;
    Attr a;
    a.l("axes", {0});
    EXPECT_TRUE(near(runOk(op, {s8}, like(ACL_INT8, {1, 6}), a), reduceRef(op, x, d, {true, false}, true, &out), 0, 0));
    EXPECT_TRUE(
        near(runOk(op, {u8}, like(ACL_UINT8, {1, 6}), a), reduceRef(op, xu, d, {true, false}, true, &out), 0, 0));
  }
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, rc("ReduceSum", {s8}, like(ACL_INT8, {1, 1})));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, rc("ReduceL2", {i32(d, v)}, like(ACL_INT32, {1, 1})));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, rc("ReduceMean", {i64(d, v)}, like(ACL_INT64, {1, 1})));
}

TEST_P(ReduceOpTest, ReduceSumAxesByOpset) {
  const Dims d{2, 3, 4};
  auto x = rounded32(randoms(count(d), 23));
  Dims out;
  const auto ref = reduceRef("ReduceSum", x, d, {true, false, true}, false, &out);
  Attr a13;
  a13.i("opset", 13).i("keepdims", 0);
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x), i64({2}, {0, -1})}, like(ACL_FLOAT, out), a13), ref, 1e-6, 1e-6));
  Attr a11;
  a11.i("opset", 11).i("keepdims", 0).l("axes", {0, 2});
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x)}, like(ACL_FLOAT, out), a11), ref, 1e-6, 1e-6));
  // Opset 13: empty axes (input omitted or empty) reduce everything, or nothing with noop.
  const double total = std::accumulate(x.begin(), x.end(), 0.0);
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x)}, like(ACL_FLOAT, {}), a13), {total}, 1e-5, 1e-6));
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x), i64({0}, {})}, like(ACL_FLOAT, {}), a13), {total}, 1e-5, 1e-6));
  Attr noop;
  noop.i("opset", 13).i("noop_with_empty_axes", 1);
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x), i64({0}, {})}, like(ACL_FLOAT, d), noop), x, 0, 0));
  // keepdims with the kernel-read axes; ReduceMean without an opset takes the input too.
  Attr keep;
  keep.i("opset", 13);
  Dims kout;
  const auto kref = reduceRef("ReduceSum", x, d, {false, true, false}, true, &kout);
  EXPECT_TRUE(near(runOk("ReduceSum", {f32(d, x), i64({1}, {1})}, like(ACL_FLOAT, kout), keep), kref, 1e-6, 1e-6));
  const auto mref = reduceRef("ReduceMean", x, d, {false, true, false}, true, &kout);
  EXPECT_TRUE(near(runOk("ReduceMean", {f32(d, x), i64({1}, {-2})}, like(ACL_FLOAT, kout)), mref, 1e-6, 1e-6));

  // Errors: the form that the opset does not have; both forms; axes dtype / shape; the output.
  Attr attr13;
  attr13.i("opset", 13).l("axes", {0});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("ReduceSum", {f32(d, x)}, like(ACL_FLOAT, {1, 3, 4}), attr13));
  Attr in11;
  in11.i("opset", 11);
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("ReduceSum", {f32(d, x), i64({1}, {0})}, like(ACL_FLOAT, {1, 3, 4}), in11));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("ReduceProd", {f32(d, x), i64({1}, {0})}, like(ACL_FLOAT, {1, 3, 4}), keep));
  Attr both;
  both.l("axes", {0});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH,
             rc("ReduceSum", {f32(d, x), i64({1}, {0})}, like(ACL_FLOAT, {1, 3, 4}), both));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("ReduceSum", {f32(d, x), i32({1}, {0})}, like(ACL_FLOAT, {1, 3, 4}), keep));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("ReduceSum", {f32(d, x), i64({1}, {0})}, like(ACL_FLOAT, {3, 4}), keep));
  Attr dup, range;
  dup.l("axes", {1, -2});
  range.l("axes", {3});
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("ReduceL1", {f32(d, x)}, like(ACL_FLOAT, {2, 1, 4}), dup));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("ReduceL1", {f32(d, x)}, like(ACL_FLOAT, {2, 3, 1}), range));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("ReduceL1", {f32(d, x)}, like(ACL_FLOAT16, {1, 1, 1})));
  // Kernel-read axes: another reduced axis than the description shows; out of range; repeated.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             rc("ReduceSum", {f32(d, x), i64({1}, {2})}, like(ACL_FLOAT, {2, 1, 4}), keep));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("ReduceSum", {f32(d, x), i64({1}, {5})}, like(ACL_FLOAT, {2, 1, 4}), keep));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("ReduceSum", {f32(d, x), i64({2}, {1, -2})}, like(ACL_FLOAT, {2, 1, 4}), keep));
}

// TopK reference: a stable order, NaN above every number.
void topkRef(const std::vector<double>& x, const Dims& d, int64_t axis, int64_t k, bool largest,
             std::vector<double>* vals, std::vector<double>* idx) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= d[i];
  for (size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  const int64_t n = d[axis];
  vals->assign(outer * k * inner, 0);
  idx->assign(outer * k * inner, 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        const double va = x[(o * n + a) * inner + in], vb = x[(o * n + b) * inner + in];
        const bool na = std::isnan(va), nb = std::isnan(vb);
        if (na != nb) return largest ? na : nb;
        if (na) return false;
        return largest ? va > vb : va < vb;
      });
      for (int64_t j = 0; j < k; ++j) {
        (*vals)[(o * k + j) * inner + in] = x[(o * n + order[j]) * inner + in];
        (*idx)[(o * k + j) * inner + in] = order[j];
      }
    }
}

TEST_P(ReduceOpTest, TopKLargestSmallestTiesAndNaN) {
  const Dims d{3, 7, 2};
  auto x = randoms(count(d), 24, -4, 4);
  for (double& v : x) v = std::floor(v);  // many ties
  x[5] = NAN;
  x[20] = NAN;
  x[21] = -INFINITY;
  for (int64_t axis : {1, -1, 0}) {
    const int64_t ax = (axis + 3) % 3;
    for (bool largest : {true, false}) {
      const int64_t k = std::min<int64_t>(3, d[ax]);
      Dims out = d;
      out[ax] = k;
      std::vector<double> vals, idx;
      topkRef(x, d, ax, k, largest, &vals, &idx);
      Attr a;
      a.i("axis", axis).i("largest", largest);
      for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
        std::vector<HostTensor> outs{like(dt, out), like(ACL_INT64, out)};
        ASSERT_ACL_OK(run("TopK", {dt == ACL_FLOAT ? f32(d, x) : f16(d, x), i64({1}, {k})}, outs, a));
        EXPECT_TRUE(near(outs[0].values(), vals, 0, 0)) << "axis " << axis << " largest " << largest;
        EXPECT_TRUE(near(outs[1].values(), idx, 0, 0)) << "axis " << axis << " largest " << largest;
      }
      // Opset 9: k as an attribute; int64 data (no NaN there).
      std::vector<double> xi = x;
      for (double& v : xi) v = std::isnan(v) ? 99 : std::isinf(v) ? -99 : v;
      topkRef(xi, d, ax, k, largest, &vals, &idx);
      Attr a9;
      a9.i("axis", axis).i("largest", largest).i("opset", 9).i("k", k);
      std::vector<HostTensor> outs{like(ACL_INT64, out), like(ACL_INT64, out)};
      ASSERT_ACL_OK(run("TopK", {i64(d, std::vector<int64_t>(xi.begin(), xi.end()))}, outs, a9));
      EXPECT_TRUE(near(outs[0].values(), vals, 0, 0));
      EXPECT_TRUE(near(outs[1].values(), idx, 0, 0));
    }
  }
  // Errors.
  const Dims out{3, 2, 2};
  auto outs = [&](aclDataType v = ACL_FLOAT, aclDataType i = ACL_INT64) {
    return std::vector<HostTensor>{like(v, out), like(i, out)};
  };
  Attr a;
  a.i("axis", 1);
  auto o = outs();
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("TopK", {f32(d, x), i32({1}, {2})}, o, a));
  o = outs(ACL_FLOAT, ACL_INT32);
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("TopK", {f32(d, x), i64({1}, {2})}, o, a));
  o = outs();
  Attr k10;
  k10.i("axis", 1).i("k", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("TopK", {f32(d, x), i64({1}, {2})}, o, k10));
  Attr no9, big9, ax9;
  no9.i("opset", 9).i("axis", 1);
  big9.i("opset", 9).i("axis", 1).i("k", 8);
  ax9.i("opset", 9).i("axis", 3).i("k", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("TopK", {f32(d, x)}, o, no9));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("TopK", {f32(d, x)}, o, big9));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("TopK", {f32(d, x)}, o, ax9));
  std::vector<HostTensor> bools{like(ACL_BOOL, out), like(ACL_INT64, out)};
  HostTensor b{ACL_BOOL, d, std::vector<uint8_t>(count(d), 1)};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("TopK", {b, i64({1}, {2})}, bools, a));
  // Kernel-read K: another k than the descriptions, and one beyond the axis.
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("TopK", {f32(d, x), i64({1}, {3})}, o, a));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("TopK", {f32(d, x), i64({1}, {8})}, o, a));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("TopK", {f32(d, x), i64({1}, {-1})}, o, a));
}

// ---- Einsum ----

// Brute force over every letter assignment (float64).
std::vector<double> einsumRef(const std::vector<std::string>& ops, const std::string& out,
                              const std::vector<const std::vector<double>*>& xs, const std::vector<Dims>& dims) {
  std::string letters;
  std::map<char, int64_t> size;
  for (size_t k = 0; k < ops.size(); ++k)
    for (size_t i = 0; i < ops[k].size(); ++i) {
      if (letters.find(ops[k][i]) == std::string::npos) letters += ops[k][i];
      if (size[ops[k][i]] <= 1) size[ops[k][i]] = dims[k][i];  // size-1 dims broadcast (ellipsis)
    }
  Dims out_dims, all_dims;
  for (char c : out) out_dims.push_back(size[c]);
  for (char c : letters) all_dims.push_back(size[c]);
  std::vector<double> r(count(out_dims), 0.0);
  for (int64_t i = 0; i < count(all_dims); ++i) {
    const auto idx = unravelDims(i, all_dims);
    auto pick = [&](const std::string& l, const Dims& d) {
      std::vector<int64_t> v;
      for (size_t j = 0; j < l.size(); ++j) v.push_back(d[j] == 1 ? 0 : idx[letters.find(l[j])]);
      return ravelDims(v, d);
    };
    double prod = 1.0;
    for (size_t k = 0; k < ops.size(); ++k) prod *= (*xs[k])[pick(ops[k], dims[k])];
    std::vector<int64_t> o;
    for (char c : out) o.push_back(idx[letters.find(c)]);
    r[ravelDims(o, out_dims)] += prod;
  }
  return r;
}

TEST_P(ReduceOpTest, EinsumContractionsTransposesAndSums) {
  struct Case {
    std::string eq;
    std::vector<std::string> ops;
    std::string out;
    std::vector<Dims> dims;
  };
  for (const Case& c :
       std::vector<Case>{{"ij,jk->ik", {"ij", "jk"}, "ik", {{3, 4}, {4, 5}}},
                         {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 3, 4}, {2, 4, 5}}},
                         {"bhid,bhjd->bhij", {"bhid", "bhjd"}, "bhij", {{2, 2, 3, 8}, {2, 2, 5, 8}}},
                         {"bhij,bhjd->bhid", {"bhij", "bhjd"}, "bhid", {{2, 2, 3, 5}, {2, 2, 5, 4}}},
                         {"ij,kj", {"ij", "kj"}, "ik", {{3, 6}, {4, 6}}},  // implicit: i, k
                         {"ba , ca -> cb", {"ba", "ca"}, "cb", {{3, 4}, {2, 4}}},
                         {"i,j->ij", {"i", "j"}, "ij", {{3}, {4}}},
                         {"ij,jk->k", {"ij", "jk"}, "k", {{3, 4}, {4, 5}}},  // i summed in one operand: the loop
                         {"bk,bk->b", {"bk", "bk"}, "b", {{3, 7}, {3, 7}}},  // batch + K only
                         {"ij->ji", {"ij"}, "ji", {{3, 5}}},
                         {"ij->i", {"ij"}, "i", {{3, 5}}},
                         {"ijk->", {"ijk"}, "", {{2, 3, 4}}},
                         {"ji", {"ji"}, "ij", {{3, 5}}},
                         // Ellipsis: x y are the ellipsis dims; B's broadcast (size 1 or absent).
                         {"...ij,...jk->...ik", {"xyij", "yjk"}, "xyik", {{2, 3, 4, 5}, {3, 5, 6}}},
                         {"...ij,...jk", {"xyij", "xyjk"}, "xyik", {{2, 3, 4, 5}, {1, 3, 5, 2}}},
                         {"...ij->...ji", {"xij"}, "xji", {{2, 3, 4}}},
                         {"b...d,b...d->b...", {"bxyd", "bxyd"}, "bxy", {{2, 1, 3, 4}, {2, 5, 3, 4}}},
                         {"...ij->j", {"xij"}, "j", {{2, 3, 4}}}}) {
    std::vector<std::vector<double>> xs;
    std::vector<const std::vector<double>*> ptrs;
    for (size_t k = 0; k < c.dims.size(); ++k) xs.push_back(rounded32(randoms(count(c.dims[k]), 30 + k)));
    for (const auto& x : xs) ptrs.push_back(&x);
    const auto ref = einsumRef(c.ops, c.out, ptrs, c.dims);
    Dims out;
    for (char l : c.out) {
      int64_t n = 1;
      for (size_t k = 0; k < c.ops.size(); ++k) {
        const size_t at = c.ops[k].find(l);
        if (at != std::string::npos && n <= 1) n = c.dims[k][at];
      }
      out.push_back(n);
    }
    Attr a;
    a.s("equation", c.eq.c_str());
    std::vector<HostTensor> in, inh;
    for (size_t k = 0; k < xs.size(); ++k) {
      in.push_back(f32(c.dims[k], xs[k]));
      inh.push_back(f16(c.dims[k], rounded16(xs[k])));
    }
    EXPECT_TRUE(near(runOk("Einsum", in, like(ACL_FLOAT, out), a), ref, 1e-6, 1e-6)) << c.eq;
    std::vector<std::vector<double>> xh;
    for (const auto& x : xs) xh.push_back(rounded16(x));
    std::vector<const std::vector<double>*> ph;
    for (const auto& x : xh) ph.push_back(&x);
    EXPECT_TRUE(near(runOk("Einsum", inh, like(ACL_FLOAT16, out), a), einsumRef(c.ops, c.out, ph, c.dims), 3e-3, 2e-3))
        << c.eq << " float16";
  }
  // Refused: ellipsis, diagonals, three operands, a bad output letter, no equation; operand ranks,
  // letter sizes, input count, dtypes and the output description.
  const auto A = f32({3, 4}, randoms(12, 40)), B = f32({4, 5}, randoms(20, 41));
  for (const char* bad :
       {"ii,jk->ik", "ij,jk,kl->il", "ij,jk->iz", "ij,jk->ii", "i1,jk", "..i,jk", "i...j...,jk", "ij,jk->i.k"}) {
    Attr a;
    a.s("equation", bad);
    EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Einsum", {A, B}, like(ACL_FLOAT, {3, 5}), a)) << bad;
  }
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, rc("Einsum", {A, B}, like(ACL_FLOAT, {3, 5})));
  Attr mm;
  mm.s("equation", "ij,jk->ik");
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Einsum", {A, f32({5, 4}, randoms(20, 42))}, like(ACL_FLOAT, {3, 4}), mm));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Einsum", {A, f32({4}, randoms(4, 43))}, like(ACL_FLOAT, {3, 5}), mm));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Einsum", {A}, like(ACL_FLOAT, {3, 5}), mm));
  Attr ell;
  ell.s("equation", "...ij,...jk->...ik");
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,  // ellipsis dims 2 and 3 do not broadcast
             rc("Einsum", {f32({2, 3, 4}, randoms(24, 45)), f32({3, 4, 5}, randoms(60, 46))},
                like(ACL_FLOAT, {3, 3, 5}), ell));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, rc("Einsum", {f32({3}, randoms(3, 47)), B}, like(ACL_FLOAT, {3, 5}), ell));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             rc("Einsum", {A, f16({4, 5}, randoms(20, 44))}, like(ACL_FLOAT, {3, 5}), mm));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, rc("Einsum", {A, B}, like(ACL_FLOAT, {5, 3}), mm));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             rc("Einsum", {i64({3, 4}, std::vector<int64_t>(12, 1)), i64({4, 5}, std::vector<int64_t>(20, 1))},
                like(ACL_INT64, {3, 5}), mm));
}

// Shapes large enough for several blocks, whose shares start mid-row.
TEST_P(ReduceOpTest, LargeShapesSplitAcrossBlocks) {
  const Dims a{3, 33, 40}, b{3, 40, 35};
  auto xa = rounded32(randoms(count(a), 50)), xb = rounded32(randoms(count(b), 51));
  Attr eq;
  eq.s("equation", "bij,bjk->bik");
  EXPECT_TRUE(near(runOk("Einsum", {f32(a, xa), f32(b, xb)}, like(ACL_FLOAT, {3, 33, 35}), eq),
                   einsumRef({"bij", "bjk"}, "bik", {&xa, &xb}, {a, b}), 1e-6, 1e-6));
  const Dims d{37, 300};
  auto x = rounded32(randoms(count(d), 52));
  std::vector<double> vals, idx;
  topkRef(x, d, 1, 5, true, &vals, &idx);
  std::vector<HostTensor> outs{like(ACL_FLOAT, {37, 5}), like(ACL_INT64, {37, 5})};
  ASSERT_ACL_OK(run("TopK", {f32(d, x), i64({1}, {5})}, outs));
  EXPECT_TRUE(near(outs[0].values(), vals, 0, 0));
  EXPECT_TRUE(near(outs[1].values(), idx, 0, 0));
}

ARUN_CONFORMANCE_INSTANTIATE(ReduceOpTest);

}  // namespace
}  // namespace conformance
