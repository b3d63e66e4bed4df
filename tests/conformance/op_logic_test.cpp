// Issue 20's comparison, logic, variadic and creation operators through aclopExecuteV2: Equal ...
// GreaterOrEqual, Not / And / Or / Xor, Max / Min / Sum / Mean over 1..N broadcast inputs, Mod,
// Where and Cast with bool, Shape / Size, ConstantOfShape, Range, EyeLike. Each against a float64
// (or exact) reference on random data over the dtypes the op takes, plus every error rule,
// including kernel-read inputs that disagree with the output description (the synchronize fails).
#include <functional>
#include <limits>
#include <map>

#include "op_typed.hpp"

namespace conformance {
namespace {

using typed::recent_message;
using typed::tensor;

// The index into a tensor of shape `a` read for element i of the broadcast shape `out`.
size_t bcast_index(const Dims& a, const Dims& out, size_t i) {
  size_t idx = 0, mul = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const size_t o = i % out[d];
    i /= out[d];
    if (d + a.size() >= out.size()) {
      const size_t dim = a[d + a.size() - out.size()];
      idx += (dim == 1 ? 0 : o) * mul;
      mul *= dim;
    }
  }
  return idx;
}

Dims broadcast(const std::vector<Dims>& shapes) {
  size_t rank = 0;
  for (const Dims& s : shapes) rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (const Dims& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      if (s[i] != 1) o = s[i];
    }
  return out;
}

// f over the broadcast of the inputs (a fold from the first).
std::vector<double> nary_ref(const std::vector<Dims>& shapes, const std::vector<std::vector<double>>& v,
                             const std::function<double(const std::vector<double>&)>& f) {
  const Dims out = broadcast(shapes);
  std::vector<double> r(count(out)), args(shapes.size());
  for (size_t i = 0; i < r.size(); ++i) {
    for (size_t k = 0; k < shapes.size(); ++k) args[k] = v[k][bcast_index(shapes[k], out, i)];
    r[i] = f(args);
  }
  return r;
}

class LogicOpTest : public OpTest {
 protected:
  // Runs `op`, which must succeed; output 0 as doubles (every dtype op_typed.hpp makes).
  std::vector<double> run_values(const std::string& op, const std::vector<HostTensor>& in, const HostTensor& out,
                                 const aclopAttr* attr = nullptr) {
    std::vector<HostTensor> o{out};
    const aclError rc = run(op, in, o, attr);
    EXPECT_ACL_OK(rc) << op << ": " << recent_message();
    return rc == ACL_SUCCESS ? typed::values(o[0]) : std::vector<double>{};
  }
};

const std::vector<std::pair<Dims, Dims>>& binary_shapes() {
  static const std::vector<std::pair<Dims, Dims>> v = {
      {{3, 4}, {3, 4}}, {{2, 3, 4}, {4}}, {{2, 1, 5}, {3, 1}}, {{7}, {}}, {{1}, {2, 2}}, {{40, 1, 130}, {1, 30, 130}}};
  return v;
}

// ---- comparisons and logic ----

TEST_P(LogicOpTest, ComparisonsBroadcastOverEveryRealDtype) {
  const std::map<std::string, std::function<bool(double, double)>> ops = {
      {"Equal", [](double x, double y) { return x == y; }},
      {"Less", [](double x, double y) { return x < y; }},
      {"Greater", [](double x, double y) { return x > y; }},
      {"LessOrEqual", [](double x, double y) { return x <= y; }},
      {"GreaterOrEqual", [](double x, double y) { return x >= y; }},
  };
  std::vector<aclDataType> dts{ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE};
  for (const typed::IntType& t : typed::int_types()) dts.push_back(t.dt);
  uint32_t seed = 400;
  for (const auto& [op, f] : ops) {
    for (aclDataType dt : dts) {
      for (const auto& [da, db] : binary_shapes()) {
        // Few distinct values, so that equal pairs are common; floats get fractions.
        const bool fl = dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_DOUBLE;
        auto a = typed::int_randoms(count(da), ++seed, 0, 5), b = typed::int_randoms(count(db), ++seed, 0, 5);
        if (fl)
          for (double& x : a) x = x / 4 - 0.5;
        if (fl)
          for (double& x : b) x = x / 4 - 0.5;
        const Dims out = broadcast({da, db});
        const auto& cmp = f;  // a structured binding cannot be captured before C++20
        auto ref =
            nary_ref({da, db}, {a, b}, [&](const std::vector<double>& v) { return cmp(v[0], v[1]) ? 1.0 : 0.0; });
        EXPECT_TRUE(near(run_values(op, {tensor(dt, da, a), tensor(dt, db, b)}, like(ACL_BOOL, out)), ref, 0, 0))
            << op << " dtype " << dt << " shapes " << da.size() << "/" << db.size();
      }
    }
  }
  // NaN is unequal and unordered; Equal also takes bool (any non-zero byte is true).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [op, f] : ops) {
    EXPECT_TRUE(
        near(run_values(op, {f32({3}, {nan, 1, nan}), f32({3}, {nan, nan, 1})}, like(ACL_BOOL, {3})), {0, 0, 0}, 0, 0))
        << op;
  }
  HostTensor b1 = tensor(ACL_BOOL, {4}, {0, 1, 0, 1}), b2 = tensor(ACL_BOOL, {4}, {0, 0, 1, 1});
  b2.bytes[3] = 7;
  EXPECT_TRUE(near(run_values("Equal", {b1, b2}, like(ACL_BOOL, {4})), {1, 0, 0, 1}, 0, 0));
}

TEST_P(LogicOpTest, ComparisonErrorRules) {
  std::vector<HostTensor> o{like(ACL_BOOL, {2})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Less", {f32({2}, {1, 2}), i32({2}, {1, 2})}, o));  // mixed dtypes
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Less", {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}, o));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             run("Less", {tensor(ACL_BOOL, {2}, {1, 0}), tensor(ACL_BOOL, {2}, {1, 0})}, o));  // only Equal
  std::vector<HostTensor> f{like(ACL_FLOAT, {2})}, wrong{like(ACL_BOOL, {3})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Equal", {f32({2}, {1, 2}), f32({2}, {1, 2})}, f));  // not bool
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Greater", {f32({2}, {1, 2}), f32({2}, {1, 2})}, wrong));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("GreaterOrEqual", {f32({2}, {1, 2})}, o));
}

TEST_P(LogicOpTest, LogicOpsOnBool) {
  const std::map<std::string, std::function<bool(bool, bool)>> ops = {
      {"And", [](bool x, bool y) { return x && y; }},
      {"Or", [](bool x, bool y) { return x || y; }},
      {"Xor", [](bool x, bool y) { return x != y; }},
  };
  uint32_t seed = 500;
  for (const auto& [op, f] : ops) {
    for (const auto& [da, db] : binary_shapes()) {
      auto a = typed::int_randoms(count(da), ++seed, 0, 1), b = typed::int_randoms(count(db), ++seed, 0, 1);
      HostTensor ta = tensor(ACL_BOOL, da, a);
      if (!a.empty() && a[0] != 0) ta.bytes[0] = 0xff;  // any non-zero byte reads as true
      const auto& logic = f;                            // a structured binding cannot be captured before C++20
      auto ref = nary_ref({da, db}, {a, b}, [&](const std::vector<double>& v) { return logic(v[0] != 0, v[1] != 0); });
      EXPECT_TRUE(near(run_values(op, {ta, tensor(ACL_BOOL, db, b)}, like(ACL_BOOL, broadcast({da, db}))), ref, 0, 0))
          << op;
    }
  }
  HostTensor n = tensor(ACL_BOOL, {5}, {1, 0, 1, 0, 0});
  n.bytes[2] = 2;
  EXPECT_TRUE(near(run_values("Not", {n}, like(ACL_BOOL, {5})), {0, 1, 0, 1, 1}, 0, 0));
  std::vector<HostTensor> o{like(ACL_BOOL, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("And", {f32({2}, {1, 0}), f32({2}, {1, 0})}, o));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Not", {i32({2}, {1, 0})}, o));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             run("Or", {tensor(ACL_BOOL, {2}, {1, 0}), tensor(ACL_BOOL, {3}, {1, 0, 1})}, o));
  std::vector<HostTensor> f{like(ACL_FLOAT, {2})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Not", {tensor(ACL_BOOL, {2}, {1, 0})}, f));
}

TEST_P(LogicOpTest, WhereAndCastHandleBoolAndEveryElementSize) {
  const Dims dc{4, 1}, dx{1, 6};
  auto c = typed::int_randoms(4, 520, 0, 1);
  for (aclDataType dt : {ACL_INT8, ACL_INT16, ACL_INT64, ACL_DOUBLE, ACL_FLOAT16, ACL_BOOL}) {
    auto x = typed::int_randoms(6, 521, 0, 1), y = typed::int_randoms(24, 522, 0, 1);
    if (dt != ACL_BOOL) x = typed::int_randoms(6, 521, -9, 9), y = typed::int_randoms(24, 522, -9, 9);
    auto ref =
        nary_ref({dc, dx, {4, 6}}, {c, x, y}, [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; });
    EXPECT_TRUE(
        near(run_values("Where", {tensor(ACL_BOOL, dc, c), tensor(dt, dx, x), tensor(dt, {4, 6}, y)}, like(dt, {4, 6})),
             ref, 0, 0))
        << dt;
  }
  // Cast between bool and numbers: non-zero is true, true is 1.
  Attr toBool, toF32, toI64;
  toBool.i("to", 9);
  toF32.i("to", 1);
  toI64.i("to", 7);
  EXPECT_TRUE(near(run_values("Cast", {i32({4}, {0, 3, -1, 0})}, like(ACL_BOOL, {4}), toBool), {0, 1, 1, 0}, 0, 0));
  EXPECT_TRUE(
      near(run_values("Cast", {tensor(ACL_BOOL, {3}, {1, 0, 1})}, like(ACL_FLOAT, {3}), toF32), {1, 0, 1}, 0, 0));
  EXPECT_TRUE(
      near(run_values("Cast", {tensor(ACL_BOOL, {3}, {0, 1, 1})}, like(ACL_INT64, {3}), toI64), {0, 1, 1}, 0, 0));
  std::vector<HostTensor> o{like(ACL_INT8, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
             run("Where", {f32({2}, {1, 0}), tensor(ACL_INT8, {2}, {1, 2}), tensor(ACL_INT8, {2}, {3, 4})}, o));
}

// ---- variadic and Mod ----

TEST_P(LogicOpTest, VariadicMaxMinSumMeanBroadcastAllInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::map<std::string, std::function<double(const std::vector<double>&)>> ops = {
      {"Max",
       [](const std::vector<double>& v) {
         double r = v[0];
         for (double x : v) r = std::isnan(r) || std::isnan(x) ? NAN : std::max(r, x);
         return r;
       }},
      {"Min",
       [](const std::vector<double>& v) {
         double r = v[0];
         for (double x : v) r = std::isnan(r) || std::isnan(x) ? NAN : std::min(r, x);
         return r;
       }},
      {"Sum",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double x : v) s += x;
         return s;
       }},
      {"Mean",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double x : v) s += x;
         return s / v.size();
       }},
  };
  const std::vector<std::vector<Dims>> cases = {
      {{5, 7}}, {{3, 4}, {4}}, {{2, 1, 5}, {3, 1}, {5}}, {{4}, {}, {2, 4}, {3, 1, 1}}, {{64, 600}, {64, 600}, {600}}};
  uint32_t seed = 600;
  for (const auto& [op, f] : ops) {
    for (const auto& shapes : cases) {
      std::vector<std::vector<double>> v32, v16;
      std::vector<HostTensor> t32, t16, t64;
      for (const Dims& s : shapes) {
        auto v = randoms(count(s), ++seed, -3, 3);
        for (double& x : v) x = static_cast<float>(x);
        if (v.size() > 3) v[3] = op == "Max" || op == "Min" ? nan : v[3];
        t32.push_back(f32(s, v));
        t64.push_back(tensor(ACL_DOUBLE, s, v));
        t16.push_back(f16(s, v));
        v32.push_back(v);
        v16.push_back(t16.back().values());
      }
      const Dims out = broadcast(shapes);
      const double tol = 1e-6 * shapes.size();
      EXPECT_TRUE(near(run_values(op, t32, like(ACL_FLOAT, out)), nary_ref(shapes, v32, f), tol, tol))
          << op << " with " << shapes.size() << " inputs";
      EXPECT_TRUE(near(run_values(op, t64, like(ACL_DOUBLE, out)), nary_ref(shapes, v32, f), 1e-12, 1e-12)) << op;
      // float16 folds in float and rounds once.
      EXPECT_TRUE(near(run_values(op, t16, like(ACL_FLOAT16, out)), nary_ref(shapes, v16, f), 1e-3, 1e-3)) << op;
    }
  }
  // Max / Min on every integer dtype (two inputs: what aclnn's Clamp runs), three inputs too.
  for (const typed::IntType& t : typed::int_types()) {
    const int lo = t.is_signed ? -100 : 0;
    auto a = typed::int_randoms(12, 610, lo, 100), b = typed::int_randoms(4, 611, lo, 100),
         c = typed::int_randoms(1, 612, lo, 100);
    for (const char* op : {"Max", "Min"}) {
      const auto& fn = ops.at(op);
      EXPECT_TRUE(near(run_values(op, {tensor(t.dt, {3, 4}, a), tensor(t.dt, {4}, b)}, like(t.dt, {3, 4})),
                       nary_ref({{3, 4}, {4}}, {a, b}, fn), 0, 0))
          << op << " " << t.dt;
      EXPECT_TRUE(
          near(run_values(op, {tensor(t.dt, {3, 4}, a), tensor(t.dt, {4}, b), tensor(t.dt, {}, c)}, like(t.dt, {3, 4})),
               nary_ref({{3, 4}, {4}, {}}, {a, b, c}, fn), 0, 0))
          << op << " " << t.dt;
    }
  }
  // Errors: no inputs, mixed dtypes, shapes that do not broadcast, Sum / Mean of integers, the output.
  std::vector<HostTensor> o{like(ACL_FLOAT, {2})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Max", {}, o));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Sum", {f32({2}, {1, 2}), f32({2}, {1, 2}), f16({2}, {1, 2})}, o));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Mean", {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}, o));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Min", {f32({2}, {1, 2}), omitted()}, o));
  std::vector<HostTensor> io{like(ACL_INT32, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Sum", {i32({2}, {1, 2}), i32({2}, {1, 2})}, io));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Mean", {i32({2}, {1, 2})}, io));
  std::vector<HostTensor> bo{like(ACL_BOOL, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Max", {tensor(ACL_BOOL, {2}, {1, 0})}, bo));
  std::vector<HostTensor> wrong{like(ACL_FLOAT, {3, 2})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Max", {f32({2}, {1, 2}), f32({2}, {1, 2})}, wrong));
}

double py_mod(double a, double b) {
  const double r = std::fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

TEST_P(LogicOpTest, ModFollowsTheDivisorOrTheDividend) {
  for (const typed::IntType& t : typed::int_types()) {
    const int lo = t.is_signed ? -50 : 1;
    auto a = typed::int_randoms(24, 700 + t.dt, t.is_signed ? -100 : 0, 100),
         b = typed::int_randoms(4, 710 + t.dt, lo, 50);
    for (double& x : b)
      if (x == 0) x = 7;
    Attr fm;
    fm.i("fmod", 1);
    EXPECT_TRUE(near(run_values("Mod", {tensor(t.dt, {6, 4}, a), tensor(t.dt, {4}, b)}, like(t.dt, {6, 4})),
                     nary_ref({{6, 4}, {4}}, {a, b}, [](const std::vector<double>& v) { return py_mod(v[0], v[1]); }),
                     0, 0))
        << t.dt;
    EXPECT_TRUE(
        near(run_values("Mod", {tensor(t.dt, {6, 4}, a), tensor(t.dt, {4}, b)}, like(t.dt, {6, 4}), fm),
             nary_ref({{6, 4}, {4}}, {a, b}, [](const std::vector<double>& v) { return std::fmod(v[0], v[1]); }), 0, 0))
        << t.dt;
  }
  // The lowest value by -1 does not trap.
  std::vector<HostTensor> o32{like(ACL_INT32, {2})};
  ASSERT_ACL_OK(run("Mod", {i32({2}, {std::numeric_limits<int32_t>::min(), 7}), i32({2}, {-1, -1})}, o32));
  EXPECT_TRUE(near(o32[0].values(), {0, 0}, 0, 0));
  // Floats: fmod = 1 (C's fmod, the dividend's sign).
  Attr fm;
  fm.i("fmod", 1);
  const Dims da{5, 8}, db{8};
  auto a = randoms(count(da), 720, -10, 10), b = randoms(count(db), 721, 0.5, 3);
  for (size_t i = 0; i < b.size(); i += 2) b[i] = -b[i];
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
    HostTensor ta = tensor(dt, da, a), tb = tensor(dt, db, b);
    auto ref = nary_ref({da, db}, {ta.values(), tb.values()},
                        [](const std::vector<double>& v) { return std::fmod(v[0], v[1]); });
    EXPECT_TRUE(near(run_values("Mod", {ta, tb}, like(dt, da), fm), ref, dt == ACL_FLOAT16 ? 1e-2 : 1e-6,
                     dt == ACL_FLOAT16 ? 1e-3 : 1e-6))
        << dt;
  }
  // Errors: fmod 0 on floats, fmod outside {0, 1}, mixed dtypes, integer division by zero (kernel).
  std::vector<HostTensor> fo{like(ACL_FLOAT, {2})};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Mod", {f32({2}, {1, 2}), f32({2}, {1, 2})}, fo));
  Attr two;
  two.i("fmod", 2);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Mod", {i32({2}, {1, 2}), i32({2}, {1, 2})}, o32, two));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Mod", {i32({2}, {1, 2}), i64({2}, {1, 2})}, o32));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, run("Mod", {i32({2}, {1, 2}), i32({2}, {1, 0})}, o32));
}

// ---- creation and shape queries ----

TEST_P(LogicOpTest, ShapeAndSize) {
  const Dims d{2, 3, 4};
  const HostTensor x = tensor(ACL_INT8, d, std::vector<double>(24, 1));
  EXPECT_TRUE(near(run_values("Shape", {x}, like(ACL_INT64, {3})), {2, 3, 4}, 0, 0));
  struct Case {
    std::vector<std::pair<const char*, int64_t>> attrs;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {{{{"start", -1}}, {4}},
                                   {{{"end", -1}}, {2, 3}},
                                   {{{"start", 1}, {"end", 2}}, {3}},
                                   {{{"start", -10}, {"end", 10}}, {2, 3, 4}},
                                   {{{"start", 2}, {"end", 1}}, {}},
                                   {{{"start", 3}}, {}}};
  for (const Case& c : cases) {
    Attr a;
    for (const auto& [n, v] : c.attrs) a.i(n, v);
    std::vector<HostTensor> o{like(ACL_INT64, {static_cast<int64_t>(c.want.size())})};
    ASSERT_ACL_OK(run("Shape", {x}, o, a));
    EXPECT_TRUE(near(o[0].values(), c.want, 0, 0)) << c.attrs[0].first << "=" << c.attrs[0].second;
  }
  EXPECT_TRUE(near(run_values("Shape", {f32({}, {1})}, like(ACL_INT64, {0})), {}, 0, 0));
  EXPECT_TRUE(near(run_values("Size", {x}, like(ACL_INT64, {})), {24}, 0, 0));
  EXPECT_TRUE(near(run_values("Size", {f32({0, 5}, {})}, like(ACL_INT64, {})), {0}, 0, 0));
  std::vector<HostTensor> wrong{like(ACL_INT64, {2})}, i32o{like(ACL_INT32, {3})}, sizeWrong{like(ACL_INT64, {1})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Shape", {x}, wrong));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Shape", {x}, i32o));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Size", {x}, sizeWrong));
  Attr kind;
  kind.f("start", 1.5f);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Shape", {x}, wrong, kind));
}

TEST_P(LogicOpTest, ConstantOfShapeFillsWithTheValue) {
  // Default: float 0.
  EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({2}, {2, 3})}, like(ACL_FLOAT, {2, 3})),
                   std::vector<double>(6, 0.0), 0, 0));
  Attr iv, fv, big;
  iv.i("value", -7);
  fv.f("value", 2.5f);
  big.i("value", (int64_t(1) << 40) + 3);
  for (aclDataType dt : {ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
    EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({3}, {4, 1, 5})}, like(dt, {4, 1, 5}), iv),
                     std::vector<double>(20, -7.0), 0, 0))
        << dt;
  }
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
    EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({1}, {300000})}, like(dt, {300000}), fv),
                     std::vector<double>(300000, 2.5), 0, 0))
        << dt;
  }
  EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({1}, {3})}, like(ACL_INT64, {3}), big),
                   std::vector<double>(3, double((int64_t(1) << 40) + 3)), 0, 0));
  EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({1}, {3})}, like(ACL_BOOL, {3}), iv), {1, 1, 1}, 0, 0));
  EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({0}, {})}, like(ACL_FLOAT, {}), fv), {2.5}, 0, 0));
  EXPECT_TRUE(near(run_values("ConstantOfShape", {i64({2}, {0, 4})}, like(ACL_FLOAT, {0, 4}), fv), {}, 0, 0));
  // The shape input is read in the kernel: one that disagrees with the description fails the
  // synchronize (the logged reason names both); a negative dimension is refused.
  std::vector<HostTensor> o{like(ACL_FLOAT, {2, 3})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("ConstantOfShape", {i64({2}, {3, 2})}, o));
  std::vector<HostTensor> empty{like(ACL_FLOAT, {0, 3})};
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("ConstantOfShape", {i64({2}, {-1, 3})}, empty));
  // Host checks: the shape input's dtype and length, a float value for an integer output.
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("ConstantOfShape", {i32({2}, {2, 3})}, o));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("ConstantOfShape", {i64({3}, {2, 3, 1})}, o));
  std::vector<HostTensor> io{like(ACL_INT32, {2})};
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("ConstantOfShape", {i64({1}, {2})}, io, fv));
  Attr sv;
  sv.s("value", "x");
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("ConstantOfShape", {i64({1}, {2})}, io, sv));
}

TEST_P(LogicOpTest, RangeReadsItsScalarsInTheKernel) {
  struct Case {
    aclDataType dt;
    double start, limit, delta;
  };
  const std::vector<Case> cases = {{ACL_FLOAT, 0.5, 10.25, 0.75}, {ACL_FLOAT, 3, -2, -0.5}, {ACL_DOUBLE, -1, 1, 0.1},
                                   {ACL_INT16, -7, 20, 3},        {ACL_INT32, 10, -10, -4}, {ACL_INT64, 0, 100000, 1},
                                   {ACL_INT32, 5, 5, 1},          {ACL_INT64, 5, 0, 1}};
  for (const Case& c : cases) {
    const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((c.limit - c.start) / c.delta)));
    std::vector<double> ref;
    for (int64_t i = 0; i < n; ++i) ref.push_back(c.start + i * c.delta);
    EXPECT_TRUE(near(
        run_values("Range", {tensor(c.dt, {}, {c.start}), tensor(c.dt, {}, {c.limit}), tensor(c.dt, {}, {c.delta})},
                   like(c.dt, {n})),
        ref, 1e-6, 1e-6))
        << c.dt << " " << c.start << " " << c.limit << " " << c.delta;
  }
  // The whole int64 range in four steps: i * delta alone would overflow.
  const int64_t step = int64_t(1) << 62;
  std::vector<HostTensor> wide{like(ACL_INT64, {4})};
  ASSERT_ACL_OK(run(
      "Range",
      {i64({}, {std::numeric_limits<int64_t>::min()}), i64({}, {std::numeric_limits<int64_t>::max()}), i64({}, {step})},
      wide));
  EXPECT_TRUE(near(wide[0].values(), {-2.0 * step, -1.0 * step, 0, 1.0 * step}, 0, 0));
  // A description that disagrees with the values, and delta 0, fail the synchronize.
  std::vector<HostTensor> o{like(ACL_INT32, {4})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Range", {i32({}, {0}), i32({}, {10}), i32({}, {2})}, o));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Range", {i32({}, {0}), i32({}, {10}), i32({}, {0})}, o));
  std::vector<HostTensor> fo{like(ACL_FLOAT, {4})};
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Range", {f32({}, {0}), f32({}, {inf}), f32({}, {1})}, fo));
  // Host checks: scalars of one supported dtype, a 1-D output of that dtype.
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Range", {i32({2}, {0, 1}), i32({}, {10}), i32({}, {2})}, o));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Range", {i32({}, {0}), i64({}, {10}), i32({}, {2})}, o));
  std::vector<HostTensor> two{like(ACL_INT32, {2, 2})}, other{like(ACL_INT64, {4})}, ho{like(ACL_FLOAT16, {4})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Range", {i32({}, {0}), i32({}, {4}), i32({}, {1})}, two));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Range", {i32({}, {0}), i32({}, {4}), i32({}, {1})}, other));
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Range", {f16({}, {0}), f16({}, {4}), f16({}, {1})}, ho));
}

TEST_P(LogicOpTest, EyeLikePutsOnesOnDiagonalK) {
  const Dims d{4, 6};
  const HostTensor x = f32(d, std::vector<double>(24, 5.0));
  for (int64_t k : std::vector<int64_t>{0, 2, -1, 5, -4, 100, std::numeric_limits<int64_t>::min()}) {
    std::vector<double> ref(24, 0.0);
    for (int64_t i = 0; i < 4; ++i)
      if (k > -100 && k < 100 && i + k >= 0 && i + k < 6) ref[i * 6 + i + k] = 1;
    Attr a;
    a.i("k", k);
    EXPECT_TRUE(near(run_values("EyeLike", {x}, like(ACL_FLOAT, d), a), ref, 0, 0)) << k;
    Attr asInt;
    asInt.i("k", k).i("dtype", 7);
    EXPECT_TRUE(near(run_values("EyeLike", {x}, like(ACL_INT64, d), asInt), ref, 0, 0)) << k;
  }
  Attr toBool;
  toBool.i("dtype", 9);
  EXPECT_TRUE(
      near(run_values("EyeLike", {i32({2, 2}, {7, 7, 7, 7})}, like(ACL_BOOL, {2, 2}), toBool), {1, 0, 0, 1}, 0, 0));
  EXPECT_TRUE(near(run_values("EyeLike", {f16({2, 3}, std::vector<double>(6, 0))}, like(ACL_FLOAT16, {2, 3})),
                   {1, 0, 0, 0, 1, 0}, 0, 0));
  std::vector<HostTensor> o{like(ACL_FLOAT, d)};
  Attr bad;
  bad.i("dtype", 8);  // STRING
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("EyeLike", {x}, o, bad));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("EyeLike", {f32({2, 2, 6}, std::vector<double>(24, 0))}, o));
  std::vector<HostTensor> wrong{like(ACL_INT32, d)};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("EyeLike", {x}, wrong));
}

ARUN_CONFORMANCE_INSTANTIATE(LogicOpTest);

}  // namespace
}  // namespace conformance
