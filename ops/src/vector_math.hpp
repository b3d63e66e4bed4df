// Vectorised float32 transcendental functions (SLEEF's AVX2 entry points, within 1 ULP) and float16
// <-> float32 array conversion (F16C, the same bits as arun/core/float16.hpp). Used by the unary
// kernels (unary_math.hpp) and Softmax; a small static library (arun_vector_math) linked into the
// operator library and into the op kernel binary, so both compute the same bits.
//
// The implementations live in vector_math_avx2.cpp and vector_math_avx512.cpp, the only files built
// with -mavx2 -mfma -mf16c / -mavx512f; callers test enabled() first and otherwise run their scalar
// libm code. level() is decided once per process: the best the CPU has (AVX-512F for map_f32, else
// AVX2 + FMA + F16C), capped by ARUN_VECTOR_MATH=avx2 or turned off by ARUN_VECTOR_MATH=scalar (A/B
// measurements, tests). No IFUNC / target_clones (their resolvers ran before the TSan runtime was
// up) and no thread_local (the kernel binary is dlopen'ed; LSan's exit scan).
#pragma once

#include <cstddef>
#include <cstdint>

namespace arun::ops::vmath {

enum class Fn : int { Exp, Log, Tanh, Erf, Sigmoid, Gelu, GeluTanh };

enum class Level : int { Scalar, Avx2, Avx512 };

// vector_math.cpp, built for the baseline ISA.
Level level();
// Whether the functions below may be called (level() is at least Avx2).
bool enabled();

// out[i] = fn(in[i]) for i < n, with the formulas of unary_math.hpp's apply(). in == out is allowed.
// A tail shorter than a vector goes through a padded vector too, so an element's result does not
// depend on where a block boundary falls. Runs map_f32_avx512 or map_f32_avx2 by level().
void map_f32(Fn fn, const float* in, float* out, size_t n);
void map_f32_avx2(Fn fn, const float* in, float* out, size_t n);
void map_f32_avx512(Fn fn, const float* in, float* out, size_t n);  // only where level() is Avx512
// IEEE binary16 bits <-> float, round to nearest even; NaNs as arun::half_to_float / float_to_half.
void half_to_float(const uint16_t* in, float* out, size_t n);
void float_to_half(const float* in, uint16_t* out, size_t n);
// The maximum of in[0, n) ignoring NaN (as std::max(m, x) from -inf); -inf when n == 0.
float max_f32(const float* in, size_t n);
// Sum of exp(in[i] - shift), accumulated in double; the terms are stored to out unless it is null.
double exp_shift_sum(const float* in, float* out, size_t n, float shift);

}  // namespace arun::ops::vmath
