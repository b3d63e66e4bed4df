// Issue 20's unary pointwise operators through aclopExecuteV2: Elu ... Cos, Sign / Abs / Neg (floats
// and integers), PRelu, Clip (opset 6 attributes, opset 11 inputs, opset 12 integers) and inference
// Dropout (opsets 7, 10, 12+), each against a float64 reference on random data in float32, float16
// and float64, plus every error rule (dtype, attribute, output description, a kernel-read input).
#include <functional>
#include <limits>
#include <map>

#include "op_typed.hpp"

namespace conformance {
namespace {

using ActivationOpTest = OpTest;
using typed::recent_message;
using typed::tensor;

double round_even(double x) {
  const double f = std::floor(x), d = x - f;
  if (d != 0.5) return d < 0.5 ? f : f + 1;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

struct UnaryCase {
  const char* op;
  std::function<void(Attr&)> attrs;  // sets the case's attributes (none: defaults)
  std::function<double(double)> ref;
};

std::vector<UnaryCase> unary_cases() {
  const double selu_a = 1.67326319217681884765625, selu_g = 1.05070102214813232421875;
  return {
      {"Elu", [](Attr& a) { a.f("alpha", 0.7f); },
       [](double x) { return x < 0 ? double(0.7f) * (std::exp(x) - 1) : x; }},
      {"Elu", nullptr, [](double x) { return x < 0 ? std::exp(x) - 1 : x; }},
      {"Selu", nullptr, [=](double x) { return x <= 0 ? selu_g * (selu_a * std::exp(x) - selu_a) : selu_g * x; }},
      {"Selu", [](Attr& a) { a.f("alpha", 2.0f).f("gamma", 0.5f); },
       [](double x) { return x <= 0 ? 0.5 * (2 * std::exp(x) - 2) : 0.5 * x; }},
      {"Celu", [](Attr& a) { a.f("alpha", 1.5f); },
       [](double x) { return std::max(0.0, x) + std::min(0.0, 1.5 * (std::exp(x / 1.5) - 1)); }},
      {"Softplus", nullptr, [](double x) { return std::log(std::exp(x) + 1); }},
      {"Softsign", nullptr, [](double x) { return x / (1 + std::fabs(x)); }},
      {"HardSigmoid", nullptr, [](double x) { return std::max(0.0, std::min(1.0, double(0.2f) * x + 0.5)); }},
      {"HardSigmoid", [](Attr& a) { a.f("alpha", 0.25f).f("beta", 0.375f); },
       [](double x) { return std::max(0.0, std::min(1.0, 0.25 * x + 0.375)); }},
      {"HardSwish", nullptr, [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); }},
      {"ThresholdedRelu", nullptr, [](double x) { return x > 1 ? x : 0; }},
      {"ThresholdedRelu", [](Attr& a) { a.f("alpha", -0.5f); }, [](double x) { return x > -0.5 ? x : 0; }},
      {"Shrink", nullptr, [](double x) { return x < -0.5  ? x
                                                : x > 0.5 ? x
                                                          : 0; }},
      {"Shrink", [](Attr& a) { a.f("bias", 0.25f).f("lambd", 1.5f); },
       [](double x) { return x < -1.5  ? x + 0.25
                             : x > 1.5 ? x - 0.25
                                       : 0; }},
      {"Reciprocal", nullptr, [](double x) { return 1 / x; }},
      {"Floor", nullptr, [](double x) { return std::floor(x); }},
      {"Ceil", nullptr, [](double x) { return std::ceil(x); }},
      {"Round", nullptr, round_even},
      {"Sin", nullptr, [](double x) { return std::sin(x); }},
      {"Cos", nullptr, [](double x) { return std::cos(x); }},
      {"Sign", nullptr, [](double x) { return x > 0   ? 1.0
                                              : x < 0 ? -1.0
                                                      : 0.0; }},
      {"Abs", nullptr, [](double x) { return std::fabs(x); }},
      {"Neg", nullptr, [](double x) { return -x; }},
  };
}

std::vector<double> map_ref(const std::vector<double>& x, const std::function<double(double)>& f) {
  std::vector<double> r;
  for (double v : x) r.push_back(f(v));
  return r;
}

TEST_P(ActivationOpTest, UnaryOpsMatchFloat64References) {
  // Values on a grid of quarters too, so Round's ties and Floor / Ceil's integers are exercised.
  const Dims d{3, 5, 7};
  auto x = rounded32(randoms(count(d), 201, -4, 4));
  for (size_t i = 0; i < x.size(); i += 3) x[i] = std::round(x[i] * 4) / 4;
  uint32_t seed = 300;
  for (const UnaryCase& c : unary_cases()) {
    Attr a;
    if (c.attrs) c.attrs(a);
    // float32: computed in float, a few ulp.
    EXPECT_TRUE(near(runOk(c.op, {f32(d, x)}, like(ACL_FLOAT, d), a), map_ref(x, c.ref), 1e-6, 1e-6)) << c.op;
    // float16: the input is exact in float16, the result rounds once (2^-11 relative).
    HostTensor h = f16(d, x);
    EXPECT_TRUE(near(runOk(c.op, {h}, like(ACL_FLOAT16, d), a), map_ref(h.values(), c.ref), 1e-4, 1e-3)) << c.op;
    // float64: computed in double.
    EXPECT_TRUE(near(runOk(c.op, {tensor(ACL_DOUBLE, d, x)}, like(ACL_DOUBLE, d), a), map_ref(x, c.ref), 1e-12, 1e-12))
        << c.op;
    // Many blocks.
    const Dims big{64, 515};
    auto xb = rounded32(randoms(count(big), ++seed, -6, 6));
    EXPECT_TRUE(near(runOk(c.op, {f32(big, xb)}, like(ACL_FLOAT, big), a), map_ref(xb, c.ref), 1e-6, 1e-6)) << c.op;
  }
  // Round: ties go to the even neighbour, in every float type.
  const std::vector<double> ties{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, 2.6, -3.5, 4.5};
  const std::vector<double> even{-2, -2, -0.0, 0, 2, 2, 2, 3, -4, 4};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
    EXPECT_TRUE(near(runOk("Round", {tensor(dt, {10}, ties)}, like(dt, {10})), even, 0, 0)) << dt;
  }
  // NaN stays NaN through Sign, Abs and Clip-like ops; Sign keeps a signed zero's value 0.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(near(runOk("Sign", {f32({3}, {nan, -0.0, 0.0})}, like(ACL_FLOAT, {3})), {nan, 0, 0}, 0, 0));
}

TEST_P(ActivationOpTest, SignAbsNegTakeIntegersAndWrap) {
  for (const typed::IntType& t : typed::int_types()) {
    std::vector<double> v = typed::int_randoms(40, 210 + t.dt, t.is_signed ? -100 : 0, 100);
    v.push_back(0);
    v.push_back(t.is_signed ? -1 : 1);
    const Dims d{42};
    std::vector<double> sign, abs;
    for (double x : v) sign.push_back(x > 0 ? 1 : x < 0 ? -1 : 0), abs.push_back(std::fabs(x));
    EXPECT_TRUE(near(typed::values([&] {
                       std::vector<HostTensor> o{like(t.dt, d)};
                       EXPECT_ACL_OK(run("Sign", {tensor(t.dt, d, v)}, o));
                       return o[0];
                     }()),
                     sign, 0, 0))
        << t.dt;
    std::vector<HostTensor> o{like(t.dt, d)};
    ASSERT_ACL_OK(run("Abs", {tensor(t.dt, d, v)}, o));
    EXPECT_TRUE(near(typed::values(o[0]), abs, 0, 0)) << t.dt;
    if (t.is_signed) {
      ASSERT_ACL_OK(run("Neg", {tensor(t.dt, d, v)}, o));
      EXPECT_TRUE(near(typed::values(o[0]), map_ref(v, [](double x) { return x == 0 ? 0.0 : -x; }), 0, 0)) << t.dt;
    } else {
      EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Neg", {tensor(t.dt, d, v)}, o)) << t.dt;
    }
  }
  // The lowest value wraps to itself (two's complement), as on the device.
  std::vector<HostTensor> o{like(ACL_INT8, {2})};
  ASSERT_ACL_OK(run("Abs", {tensor(ACL_INT8, {2}, {-128, -127})}, o));
  EXPECT_TRUE(near(o[0].values(), {-128, 127}, 0, 0));
  ASSERT_ACL_OK(run("Neg", {tensor(ACL_INT8, {2}, {-128, 127})}, o));
  EXPECT_TRUE(near(o[0].values(), {-128, -127}, 0, 0));
  std::vector<HostTensor> o64{like(ACL_INT64, {1})};
  ASSERT_ACL_OK(run("Neg", {i64({1}, {std::numeric_limits<int64_t>::min()})}, o64));
  EXPECT_EQ(o64[0].values()[0], static_cast<double>(std::numeric_limits<int64_t>::min()));
}

TEST_P(ActivationOpTest, UnaryErrorRules) {
  std::vector<HostTensor> outs{like(ACL_INT32, {4})};
  // Float-only ops refuse integers and bool (100026), naming what they take.
  for (const char* op : {"Elu", "Softplus", "Round", "Sin", "HardSwish", "Reciprocal"}) {
    EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run(op, {i32({4}, {1, 2, 3, 4})}, outs)) << op;
    EXPECT_THAT_MESSAGE("float32, float16, float64");
  }
  std::vector<HostTensor> bools{like(ACL_BOOL, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Abs", {tensor(ACL_BOOL, {2}, {1, 0})}, bools));
  // Output description: shape and dtype.
  std::vector<HostTensor> wrongShape{like(ACL_FLOAT, {5})}, wrongType{like(ACL_FLOAT16, {4})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Selu", {f32({4}, {1, 2, 3, 4})}, wrongShape));
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Selu", {f32({4}, {1, 2, 3, 4})}, wrongType));
  // Attributes: Celu's alpha 0 divides by zero; an undeclared one; one of the wrong kind.
  std::vector<HostTensor> out4{like(ACL_FLOAT, {4})};
  Attr zero, unknown, kind;
  zero.f("alpha", 0.0f);
  unknown.f("beta", 1.0f);
  kind.s("alpha", "big");
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Celu", {f32({4}, {1, 2, 3, 4})}, out4, zero));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Elu", {f32({4}, {1, 2, 3, 4})}, out4, unknown));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("ThresholdedRelu", {f32({4}, {1, 2, 3, 4})}, out4, kind));
  // Input count.
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Floor", {f32({4}, {1, 2, 3, 4}), f32({4}, {1, 2, 3, 4})}, out4));
}

std::string shape_of(const Dims& d) {
  std::string s;
  for (int64_t v : d) s += std::to_string(v) + ",";
  return s;
}

TEST_P(ActivationOpTest, PReluBroadcastsTheSlopeToX) {
  const Dims dx{2, 3, 4, 5};
  auto x = rounded32(randoms(count(dx), 220, -3, 3));
  for (const Dims& ds : std::vector<Dims>{{3, 1, 1}, {5}, {}, {1}, {2, 3, 4, 5}, {4, 1}}) {
    auto s = rounded32(randoms(count(ds), 221, -0.5, 0.5));
    std::vector<double> ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      // The slope element for output i: its index with broadcast dimensions at 0.
      size_t rem = i, idx = 0, mul = 1;
      for (size_t dd = dx.size(); dd-- > 0;) {
        const size_t o = rem % dx[dd];
        rem /= dx[dd];
        if (dd + ds.size() >= dx.size()) {
          const size_t sd = ds[dd + ds.size() - dx.size()];
          idx += (sd == 1 ? 0 : o) * mul;
          mul *= sd;
        }
      }
      ref[i] = x[i] < 0 ? s[idx] * x[i] : x[i];
    }
    EXPECT_TRUE(near(runOk("PRelu", {f32(dx, x), f32(ds, s)}, like(ACL_FLOAT, dx)), ref, 1e-7, 1e-6)) << shape_of(ds);
    HostTensor hx = f16(dx, x), hs = f16(ds, s);
    auto hxv = hx.values(), hsv = hs.values();
    std::vector<double> href(x.size());
    for (size_t i = 0; i < x.size(); ++i) href[i] = hxv[i] < 0 ? ref[i] / x[i] * hxv[i] : hxv[i];
    EXPECT_TRUE(near(runOk("PRelu", {hx, hs}, like(ACL_FLOAT16, dx)), href, 1e-3, 2e-3)) << shape_of(ds);
  }
  std::vector<HostTensor> outs{like(ACL_FLOAT, dx)};
  // The slope must broadcast to X without growing it (unidirectional).
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("PRelu", {f32(dx, x), f32({4}, {1, 1, 1, 1})}, outs));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH,
             run("PRelu", {f32({4, 5}, randoms(20, 1)), f32({2, 4, 5}, randoms(40, 1))}, outs));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("PRelu", {f32(dx, x), f16({1}, {0.1})}, outs));
  std::vector<HostTensor> iout{like(ACL_INT32, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("PRelu", {i32({2}, {1, -1}), i32({1}, {2})}, iout));
}

TEST_P(ActivationOpTest, ClipFollowsItsOpset) {
  const Dims d{6, 40};
  auto x = rounded32(randoms(count(d), 230, -3, 3));
  x[5] = std::numeric_limits<double>::quiet_NaN();
  auto clip = [&](double lo, double hi) {
    return map_ref(x, [=](double v) { return std::isnan(v) ? v : std::min(std::max(v, lo), hi); });
  };
  // Opset 6: attributes, each defaulting to no bound.
  Attr o6, o6max;
  o6.i("opset", 6).f("min", -1.25f).f("max", 0.5f);
  o6max.i("opset", 6).f("max", 0.5f);
  EXPECT_TRUE(near(runOk("Clip", {f32(d, x)}, like(ACL_FLOAT, d), o6), clip(-1.25, 0.5), 0, 0));
  EXPECT_TRUE(near(runOk("Clip", {f32(d, x)}, like(ACL_FLOAT, d), o6max), clip(-INFINITY, 0.5), 0, 0));
  EXPECT_TRUE(near(runOk("Clip", {tensor(ACL_DOUBLE, d, x)}, like(ACL_DOUBLE, d), o6max), clip(-INFINITY, 0.5), 0, 0));
  // Opset 11+ (the default for aclopExecuteV2): optional scalar inputs, read in the kernel.
  Attr o11;
  o11.i("opset", 11);
  EXPECT_TRUE(near(runOk("Clip", {f32(d, x), f32({}, {-0.75}), f32({}, {1.5})}, like(ACL_FLOAT, d), o11),
                   clip(-0.75, 1.5), 0, 0));
  EXPECT_TRUE(
      near(runOk("Clip", {f32(d, x), omitted(), f32({}, {1.5})}, like(ACL_FLOAT, d)), clip(-INFINITY, 1.5), 0, 0));
  EXPECT_TRUE(near(runOk("Clip", {f32(d, x), f32({1}, {0.25})}, like(ACL_FLOAT, d)), clip(0.25, INFINITY), 0, 0));
  EXPECT_TRUE(near(runOk("Clip", {f32(d, x)}, like(ACL_FLOAT, d)), x, 0, 0));
  // min > max: every element becomes max (NumPy's clip).
  EXPECT_TRUE(near(runOk("Clip", {f32(d, x), f32({}, {1}), f32({}, {-1})}, like(ACL_FLOAT, d)), clip(1, -1), 0, 0));
  HostTensor h = f16(d, x);
  EXPECT_TRUE(near(runOk("Clip", {h, f16({}, {-0.5}), f16({}, {0.5})}, like(ACL_FLOAT16, d)),
                   map_ref(h.values(), [](double v) { return std::isnan(v) ? v : std::min(std::max(v, -0.5), 0.5); }),
                   0, 0));
  // Opset 12+: integers.
  for (const typed::IntType& t : typed::int_types()) {
    auto v = typed::int_randoms(50, 231, t.is_signed ? -50 : 0, 50);
    const double lo = t.is_signed ? -20 : 5, hi = 30;
    std::vector<HostTensor> o{like(t.dt, {50})};
    ASSERT_ACL_OK(run("Clip", {tensor(t.dt, {50}, v), tensor(t.dt, {}, {lo}), tensor(t.dt, {}, {hi})}, o));
    EXPECT_TRUE(near(typed::values(o[0]), map_ref(v, [=](double e) { return std::min(std::max(e, lo), hi); }), 0, 0))
        << t.dt;
    ASSERT_ACL_OK(run("Clip", {tensor(t.dt, {50}, v)}, o));
    EXPECT_TRUE(near(typed::values(o[0]), v, 0, 0)) << t.dt;
  }
  // Errors: integers before opset 12; attributes from 11; inputs before 11; bounds that are not
  // scalars of X's dtype; a bad output description.
  std::vector<HostTensor> io{like(ACL_INT32, {2})}, fo{like(ACL_FLOAT, d)};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Clip", {i32({2}, {1, 2})}, io, o11));
  EXPECT_THAT_MESSAGE("opset 11");
  Attr attrAt11;
  attrAt11.i("opset", 11).f("min", 0.0f);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Clip", {f32(d, x)}, fo, attrAt11));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Clip", {f32(d, x), f32({}, {0})}, fo, o6));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Clip", {f32(d, x), f32({2}, {0, 1})}, fo));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Clip", {f32(d, x), f16({}, {0})}, fo));
  std::vector<HostTensor> badOut{like(ACL_FLOAT, {6, 41})};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Clip", {f32(d, x)}, badOut));
}

TEST_P(ActivationOpTest, DropoutIsACopyForInference) {
  const Dims d{5, 300};
  auto x = rounded32(randoms(count(d), 240, -2, 2));
  const std::vector<double> ones(x.size(), 1.0);
  // Opset 12+: Y = X, the mask all true, with or without ratio and training_mode = false.
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
    HostTensor in = tensor(dt, d, x);
    std::vector<HostTensor> o{like(dt, d), like(ACL_BOOL, d)};
    ASSERT_ACL_OK(run("Dropout", {in, f32({}, {0.3}), tensor(ACL_BOOL, {}, {0})}, o));
    EXPECT_TRUE(near(o[0].values(), in.values(), 0, 0)) << dt;
    EXPECT_TRUE(near(o[1].values(), ones, 0, 0)) << dt;
  }
  std::vector<HostTensor> y{like(ACL_FLOAT, d)};
  ASSERT_ACL_OK(run("Dropout", {f32(d, x)}, y));
  EXPECT_TRUE(near(y[0].values(), x, 0, 0));
  // training_mode = true is read in the kernel: the stream's synchronize fails (the reason is logged).
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Dropout", {f32(d, x), omitted(), tensor(ACL_BOOL, {}, {1})}, y));
  // Opset 10/11: the ratio attribute, a bool mask; opset 7: the mask has X's type.
  Attr o10, o7;
  o10.i("opset", 10).f("ratio", 0.2f);
  o7.i("opset", 7);
  std::vector<HostTensor> m10{like(ACL_FLOAT, d), like(ACL_BOOL, d)}, m7{like(ACL_FLOAT16, d), like(ACL_FLOAT16, d)};
  ASSERT_ACL_OK(run("Dropout", {f32(d, x)}, m10, o10));
  EXPECT_TRUE(near(m10[0].values(), x, 0, 0));
  EXPECT_TRUE(near(m10[1].values(), ones, 0, 0));
  ASSERT_ACL_OK(run("Dropout", {f16(d, x)}, m7, o7));
  EXPECT_TRUE(near(m7[0].values(), f16(d, x).values(), 0, 0));
  EXPECT_TRUE(near(m7[1].values(), ones, 0, 0));
  // Errors.
  Attr ratioAt13, badRatio;
  ratioAt13.f("ratio", 0.5f);
  badRatio.i("opset", 10).f("ratio", 1.5f);
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Dropout", {f32(d, x)}, y, ratioAt13));
  EXPECT_ACL(ACL_ERROR_OP_ATTR_NOT_MATCH, run("Dropout", {f32(d, x)}, y, badRatio));
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Dropout", {f32(d, x), f32({}, {0.5})}, y, o10));  // input at 10
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Dropout", {f32(d, x), i32({}, {0})}, y));         // ratio type
  EXPECT_ACL(ACL_ERROR_OP_INPUT_NOT_MATCH, run("Dropout", {f32(d, x), omitted(), f32({}, {0})}, y));
  std::vector<HostTensor> iy{like(ACL_INT32, {2})};
  EXPECT_ACL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, run("Dropout", {i32({2}, {1, 2})}, iy));
  std::vector<HostTensor> badMask{like(ACL_FLOAT, d), like(ACL_FLOAT, d)};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Dropout", {f32(d, x)}, badMask));
  std::vector<HostTensor> three{like(ACL_FLOAT, d), like(ACL_BOOL, d), like(ACL_BOOL, d)};
  EXPECT_ACL(ACL_ERROR_OP_OUTPUT_NOT_MATCH, run("Dropout", {f32(d, x)}, three));
}

ARUN_CONFORMANCE_INSTANTIATE(ActivationOpTest);

}  // namespace
}  // namespace conformance
