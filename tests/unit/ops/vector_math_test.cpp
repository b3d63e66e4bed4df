// ops/src/vector_math.hpp: SLEEF's vectorised functions, AVX2 and AVX-512 where the CPU has them,
// against a float64 reference (dense sweep and special values, explicit ULP bounds, NaN positions),
// against each other, against the scalar libm path of
// unary_math.hpp for every length 0..67 (tails, misalignment, in place), and the F16C conversions
// bit for bit against arun/core/float16.hpp over all 65536 halves and a sweep of floats.
#include <cpuid.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arun/core/float16.hpp"
#include "unary_math.hpp"
#include "vector_math.hpp"

namespace {

namespace vm = arun::ops::vmath;
using arun::ops::Unary;

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// The spacing of floats at |r| (subnormals: 2^-149).
double float_ulp(double r) {
  const double a = std::fabs(r);
  if (a < FLT_MIN) return std::ldexp(1.0, -149);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, e - 24);
}

// The reference evaluates the float code's prelude (the argument of the transcendental) in float,
// exactly as unary_math.hpp does, and the rest in double; the composite functions' tolerance adds
// the absolute error of the float 1 + t that both paths compute (t within 1 ULP, then rounded).
struct Case {
  vm::Fn fn;
  Unary kind;
  const char* name;
  double (*ref)(float);
  double ulps;      // bound in ULPs of the reference
  double x_scaled;  // plus |x| * this, absolute
};

double ref_gelu(float x) {
  const float a = x * 0.70710678118654752f;
  return 0.5 * double(x) * std::erfc(-double(a));  // 1 + erf(a), without double's cancellation
}
double ref_gelu_tanh(float x) {
  const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
  return double(x) / (1.0 + std::exp(-2.0 * double(inner)));  // 0.5 x (1 + tanh(inner))
}
double ref_sigmoid(float x) {
  return 1.0 / (1.0 + std::exp(-double(x)));
}

const Case kCases[] = {
    // SLEEF's u10 claim is 1 ULP. Measured over the sweep: exp 0.92, log 0.58, tanh 1.0000001 (tiny
    // x: x's neighbour), erf 1.09 (results near FLT_MIN).
    {vm::Fn::Exp, Unary::Exp, "exp", [](float x) { return std::exp(double(x)); }, 1.0, 0.0},
    {vm::Fn::Log, Unary::Log, "log", [](float x) { return std::log(double(x)); }, 1.0, 0.0},
    {vm::Fn::Tanh, Unary::Tanh, "tanh", [](float x) { return std::tanh(double(x)); }, 1.01, 0.0},
    {vm::Fn::Erf, Unary::Erf, "erf", [](float x) { return std::erf(double(x)); }, 1.1, 0.0},
    {vm::Fn::Sigmoid, Unary::Sigmoid, "sigmoid", ref_sigmoid, 3.0, 0.0},
    {vm::Fn::Gelu, Unary::Gelu, "gelu", ref_gelu, 3.0, 0x1p-24},
    {vm::Fn::GeluTanh, Unary::GeluTanh, "gelu_tanh", ref_gelu_tanh, 3.0, 0x1p-24},
};

// Whether v is within the case's bound of the reference r for input x; NaN exactly where r is.
bool within(const Case& c, float x, float v, double r, double scale = 1.0) {
  if (std::isnan(r)) return std::isnan(v);
  if (std::isnan(v)) return false;
  if (std::fabs(r) > FLT_MAX) return std::signbit(v) == std::signbit(r) && std::fabs(v) >= FLT_MAX;
  if (std::isinf(v)) return false;
  const double xs = c.x_scaled != 0.0 && std::isfinite(x) ? c.x_scaled * std::fabs(double(x)) : 0.0;
  const double tol = scale * (c.ulps * float_ulp(r) + xs);
  return std::fabs(double(v) - r) <= tol;
}

std::vector<float> special_values() {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, from_bits(0x7fa00001u) /* signalling */,
                          from_bits(1), from_bits(0x807fffffu), FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 0.5f,
                          -0.5f, 1e-20f, -1e-20f,
                          // exp: overflow near 88.72, subnormal results from -87.34, zero below -103.97
                          88.72f, 88.7228f, 88.73f, 89.0f, -87.33f, -87.34f, -100.0f, -103.9f, -103.98f, -104.0f,
                          -150.0f, 1000.0f, -1000.0f,
                          // erf and tanh saturation
                          3.8f, 3.9f, 3.92f, 4.0f, -3.92f, -4.0f, 9.0f, 9.01f, -9.01f, 10.0f, 20.0f, -20.0f};
  return v;
}

// Every 4099th bit pattern (about a million floats over every exponent) plus the special values.
std::vector<float> sweep() {
  std::vector<float> v = special_values();
  for (uint64_t b = 0; b <= 0xffffffffull; b += 4099) v.push_back(from_bits(static_cast<uint32_t>(b)));
  return v;
}

class VectorMath : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vm::enabled()) GTEST_SKIP() << "no AVX2 + FMA + F16C here, or ARUN_VECTOR_MATH=scalar";
  }
};

// Each implementation of map_f32 this CPU can run (the dispatching one picks one of them).
struct Impl {
  const char* name;
  void (*map)(vm::Fn, const float*, float*, size_t);
};
std::vector<Impl> impls() {
  std::vector<Impl> v = {{"avx2", vm::map_f32_avx2}};
  if (__builtin_cpu_supports("avx512f")) v.push_back({"avx512", vm::map_f32_avx512});
  return v;
}

TEST_F(VectorMath, WithinTheBoundOfAFloat64Reference) {
  const std::vector<float> xs = sweep();
  std::vector<float> out(xs.size());
  for (const Impl& im : impls()) {
    for (const Case& c : kCases) {
      SCOPED_TRACE(im.name);
      im.map(c.fn, xs.data(), out.data(), xs.size());
      size_t bad = 0;
      double worst = 0.0;  // in ULPs, for the record (the functions without an |x| term)
      for (size_t i = 0; i < xs.size(); ++i) {
        const double r = c.ref(xs[i]);
        if (c.x_scaled == 0.0 && std::isfinite(r) && std::fabs(r) <= FLT_MAX && std::isfinite(out[i])) {
          worst = std::max(worst, std::fabs(double(out[i]) - r) / float_ulp(r));
        }
        if (!within(c, xs[i], out[i], r) && ++bad <= 5) {
          ADD_FAILURE() << c.name << "(" << xs[i] << " = 0x" << std::hex << bits_of(xs[i]) << std::dec
                        << ") = " << out[i] << ", reference " << r << " (" << (double(out[i]) - r) / float_ulp(r)
                        << " ULP)";
        }
      }
      EXPECT_EQ(bad, 0u) << c.name << ": " << xs.size() << " inputs";
      if (c.x_scaled == 0.0)
        std::printf("%-6s %-8s worst %.4f ULP over %zu inputs\n", im.name, c.name, worst, xs.size());
    }
  }
}

// SLEEF's 16- and 8-lane functions compute the same bits (NaN payloads aside), so the level the
// dispatch picks does not change results.
TEST_F(VectorMath, Avx512GivesTheBitsOfAvx2) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "no AVX-512F";
  const std::vector<float> xs = sweep();
  std::vector<float> a(xs.size()), b(xs.size());
  for (const Case& c : kCases) {
    vm::map_f32_avx2(c.fn, xs.data(), a.data(), xs.size());
    vm::map_f32_avx512(c.fn, xs.data(), b.data(), xs.size());
    size_t bad = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (bits_of(a[i]) != bits_of(b[i]) && !(std::isnan(a[i]) && std::isnan(b[i])) && ++bad <= 5) {
        ADD_FAILURE() << c.name << "(" << xs[i] << "): avx2 " << a[i] << ", avx512 " << b[i];
      }
    }
    EXPECT_EQ(bad, 0u) << c.name;
  }
}

TEST_F(VectorMath, SpecialValuesAreExact) {
  const float in[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
  float out[5];
  for (const Impl& im : impls()) {
    SCOPED_TRACE(im.name);
    const auto map_f32 = im.map;
    map_f32(vm::Fn::Exp, in, out, 5);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[1], 1.0f);
    EXPECT_EQ(out[2], INFINITY);
    EXPECT_EQ(bits_of(out[3]), 0u);
    EXPECT_TRUE(std::isnan(out[4]));
    map_f32(vm::Fn::Log, in, out, 5);
    EXPECT_EQ(out[0], -INFINITY);
    EXPECT_EQ(out[1], -INFINITY);
    EXPECT_EQ(out[2], INFINITY);
    EXPECT_TRUE(std::isnan(out[3]));
    EXPECT_TRUE(std::isnan(out[4]));
    for (vm::Fn fn : {vm::Fn::Tanh, vm::Fn::Erf}) {
      map_f32(fn, in, out, 5);
      EXPECT_EQ(bits_of(out[0]), bits_of(0.0f));
      EXPECT_EQ(bits_of(out[1]), bits_of(-0.0f));
      EXPECT_EQ(out[2], 1.0f);
      EXPECT_EQ(out[3], -1.0f);
      EXPECT_TRUE(std::isnan(out[4]));
    }
    map_f32(vm::Fn::Sigmoid, in, out, 5);
    EXPECT_EQ(out[0], 0.5f);
    EXPECT_EQ(out[2], 1.0f);
    EXPECT_EQ(out[3], 0.0f);
    EXPECT_TRUE(std::isnan(out[4]));
  }
}

// Every length 0..67 from an aligned and a misaligned start, out of place and in place: the vector
// path agrees with the scalar one (apply()) within twice the bound, and writes nothing past n.
TEST_F(VectorMath, AgreesWithTheScalarPathForEveryLength) {
  std::mt19937 rng(20);
  std::uniform_real_distribution<float> wide(-12.0f, 12.0f), positive(1e-6f, 100.0f);
  const float canary = 1234.5f;
  for (const Impl& im : impls()) {
    SCOPED_TRACE(im.name);
    for (const Case& c : kCases) {
      for (size_t n = 0; n <= 67; ++n) {
        for (size_t offset : {0, 1, 3}) {
          std::vector<float> in(offset + n + 1), out(offset + n + 1, canary);
          for (float& x : in) x = c.kind == Unary::Log ? positive(rng) : wide(rng);
          im.map(c.fn, in.data() + offset, out.data() + offset, n);
          std::vector<float> inplace = in;
          im.map(c.fn, inplace.data() + offset, inplace.data() + offset, n);
          for (size_t i = 0; i < n; ++i) {
            const float x = in[offset + i];
            const float s = arun::ops::apply(c.kind, x, 0.0f);
            ASSERT_TRUE(within(c, x, out[offset + i], s, 2.0)) << c.name << " n=" << n << " i=" << i << " x=" << x
                                                               << ": vector " << out[offset + i] << ", scalar " << s;
            ASSERT_EQ(bits_of(inplace[offset + i]), bits_of(out[offset + i])) << c.name << " in place, n=" << n;
          }
          for (size_t i = 0; i < offset; ++i) ASSERT_EQ(out[i], canary) << c.name << " wrote before the start";
          ASSERT_EQ(out[offset + n], canary) << c.name << " wrote past n=" << n;
          ASSERT_EQ(inplace[offset + n], in[offset + n]) << c.name << " wrote past n=" << n << " (in place)";
        }
      }
    }
  }
}

// A block boundary must not change an element's result: any split of the array gives the same bits.
TEST_F(VectorMath, ResultsDoNotDependOnTheSplit) {
  std::vector<float> in(100);
  for (size_t i = 0; i < in.size(); ++i) in[i] = -6.0f + 0.123f * float(i);
  for (const Impl& im : impls()) {
    for (const Case& c : kCases) {
      std::vector<float> whole(in.size()), parts(in.size());
      im.map(c.fn, in.data(), whole.data(), in.size());
      for (size_t at = 0; at < in.size(); at += 13) {
        const size_t m = std::min<size_t>(13, in.size() - at);
        im.map(c.fn, in.data() + at, parts.data() + at, m);
      }
      EXPECT_EQ(std::memcmp(whole.data(), parts.data(), in.size() * sizeof(float)), 0) << im.name << " " << c.name;
    }
  }
}

TEST_F(VectorMath, HalfToFloatMatchesTheScalarConversionForAllHalves) {
  std::vector<uint16_t> h(65536 + 5);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> f(h.size());
  vm::half_to_float(h.data(), f.data(), h.size());  // 65541: a tail of 5
  size_t bad = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    const uint32_t want = bits_of(arun::half_to_float(h[i])), got = bits_of(f[i]);
    if (want != got && ++bad <= 5)
      ADD_FAILURE() << std::hex << "half 0x" << h[i] << ": 0x" << got << ", want 0x" << want;
  }
  EXPECT_EQ(bad, 0u);
}

TEST_F(VectorMath, FloatToHalfMatchesTheScalarConversion) {
  std::vector<float> xs;
  // Every half's value, the midpoints between neighbours (ties to even) and a float either side.
  for (uint32_t h = 0; h < 65536; ++h) {
    const float a = arun::half_to_float(static_cast<uint16_t>(h));
    xs.push_back(a);
    if ((h & 0x7fffu) < 0x7c00u) {
      const float b = arun::half_to_float(static_cast<uint16_t>(h + 1));
      const float mid = static_cast<float>((double(a) + double(b)) / 2);
      xs.push_back(mid);
      xs.push_back(std::nextafter(mid, INFINITY));
      xs.push_back(std::nextafter(mid, -INFINITY));
    }
  }
  for (float x : {65504.0f, 65519.99f, 65520.0f, 65536.0f, -65520.0f, 1e-8f, 2.98e-8f, 2.99e-8f, 5.96e-8f})
    xs.push_back(x);
  // NaN payloads, quiet and signalling, both signs.
  for (uint32_t b : {0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0x7fffffffu, 0xffc00001u, 0xff812345u, 0x7f802000u})
    xs.push_back(from_bits(b));
  for (uint64_t b = 0; b <= 0xffffffffull; b += 257) xs.push_back(from_bits(static_cast<uint32_t>(b)));
  xs.resize(xs.size() / 8 * 8 + 3);  // and a tail
  std::vector<uint16_t> got(xs.size());
  vm::float_to_half(xs.data(), got.data(), xs.size());
  size_t bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const uint16_t want = arun::float_to_half(xs[i]);
    if (want != got[i] && ++bad <= 5) {
      ADD_FAILURE() << std::hex << "float 0x" << bits_of(xs[i]) << ": 0x" << got[i] << ", want 0x" << want;
    }
  }
  EXPECT_EQ(bad, 0u) << xs.size() << " floats";
}

TEST_F(VectorMath, MaxAndExpSum) {
  for (size_t n = 0; n <= 67; ++n) {
    std::vector<float> x(n + 1, 999.0f);
    for (size_t i = 0; i < n; ++i) x[i] = std::sin(float(i) * 1.7f) * 10.0f;
    if (n > 5) x[n / 2] = NAN;  // ignored by the maximum, as by std::max(m, x)
    float m = -INFINITY;
    for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
    ASSERT_EQ(vm::max_f32(x.data(), n), m) << "n=" << n;
    if (n > 5) x[n / 2] = 1.0f;
    std::vector<float> terms(n + 1, 7.0f);
    const double sum = vm::exp_shift_sum(x.data(), terms.data(), n, m);
    double want = 0.0;
    for (size_t i = 0; i < n; ++i) {
      const double r = std::exp(double(x[i] - m));  // the difference is a float, as in the code
      ASSERT_LE(std::fabs(terms[i] - r), 2 * float_ulp(r)) << "n=" << n << " i=" << i;
      want += terms[i];
    }
    ASSERT_EQ(terms[n], 7.0f) << "wrote past n=" << n;
    ASSERT_NEAR(sum, want, 1e-12 * (1 + want)) << "n=" << n;
    ASSERT_EQ(vm::exp_shift_sum(x.data(), nullptr, n, m), sum) << "n=" << n;
  }
}

// ARUN_VECTOR_MATH=scalar turns the vector path off, =avx2 caps it (ctest runs this with each).
TEST(VectorMathSwitch, FollowsTheCpuAndTheEnvironment) {
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  const bool cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  const char* env = std::getenv("ARUN_VECTOR_MATH");
  const std::string mode = env != nullptr ? env : "";
  vm::Level want = vm::Level::Scalar;
  if (cpu && mode != "scalar") {
    want = mode != "avx2" && __builtin_cpu_supports("avx512f") ? vm::Level::Avx512 : vm::Level::Avx2;
  }
  EXPECT_EQ(vm::level(), want);
  EXPECT_EQ(vm::enabled(), want != vm::Level::Scalar);
}

}  // namespace
