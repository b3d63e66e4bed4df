// vector_math.hpp's functions for AVX2 + FMA + F16C, on SLEEF's 8-lane u10 (1 ULP) entry points.
// The only file built with -mavx2 -mfma -mf16c, and kept out of unity builds (a batch would lose
// the per-file flags). It must not instantiate an inline function with external linkage (std::
// templates, the float16.hpp conversions): the linker may keep this file's AVX2 copy of such a COMDAT
// for the baseline code too. Hence plain loops, and helpers with internal linkage only.
#include <immintrin.h>
#include <sleef.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vector_math.hpp"

namespace arun::ops::vmath {
namespace {

// The formulas of unary_math.hpp's apply(), operation for operation (no FMA contraction), with
// SLEEF for the libm calls.
__m256 sigmoid8(__m256 x) {
  // x >= 0: 1 / (1 + e^-x); else e^x / (1 + e^x). Both are e / (1 + e) or 1 / (1 + e), e = e^-|x|.
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 neg_abs = _mm256_or_ps(x, _mm256_set1_ps(-0.0f));
  const __m256 e = Sleef_expf8_u10avx2(neg_abs);
  const __m256 d = _mm256_add_ps(one, e);
  const __m256 pos = _mm256_div_ps(one, d), neg = _mm256_div_ps(e, d);
  return _mm256_blendv_ps(neg, pos, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));  // NaN: neg, NaN
}

__m256 gelu8(__m256 x) {
  const __m256 t = Sleef_erff8_u10avx2(_mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f)));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), _mm256_add_ps(_mm256_set1_ps(1.0f), t));
}

__m256 gelu_tanh8(__m256 x) {
  const __m256 cube = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.044715f), x), x), x);
  const __m256 inner = _mm256_mul_ps(_mm256_set1_ps(0.79788456080286536f), _mm256_add_ps(x, cube));
  const __m256 t = Sleef_tanhf8_u10avx2(inner);
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), _mm256_add_ps(_mm256_set1_ps(1.0f), t));
}

template <auto F>  // a function __m256 -> __m256 (SLEEF declares its results const)
void map8(const float* in, float* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, F(_mm256_loadu_ps(in + i)));
  if (i == n) return;
  // The tail through a zero-padded vector: the same code as the body, never a read or write past n.
  float buf[8] = {};
  std::memcpy(buf, in + i, (n - i) * sizeof(float));
  _mm256_storeu_ps(buf, F(_mm256_loadu_ps(buf)));
  std::memcpy(out + i, buf, (n - i) * sizeof(float));
}

// Eight halves at a time; the NaN lanes are rewritten to the scalar conversion's bits (F16C quiets a
// signalling NaN and keeps payloads; float16.hpp keeps the half's payload bits as they are going
// up and writes the one quiet NaN going down).
__m256 half8_to_float(__m128i h) {
  const __m256i e = _mm256_cvtepu16_epi32(h);
  const __m256i abs = _mm256_and_si256(e, _mm256_set1_epi32(0x7fff));
  const __m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7c00));
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(e, _mm256_set1_epi32(0x8000)), 16);
  const __m256i mant = _mm256_slli_epi32(_mm256_and_si256(e, _mm256_set1_epi32(0x3ff)), 13);
  const __m256i nan_bits = _mm256_or_si256(_mm256_or_si256(sign, mant), _mm256_set1_epi32(0x7f800000));
  const __m256 f = _mm256_cvtph_ps(h);
  return _mm256_blendv_ps(f, _mm256_castsi256_ps(nan_bits), _mm256_castsi256_ps(nan));
}

__m128i float8_to_half(__m256 f) {
  const __m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256i bits = _mm256_castps_si256(f);
  const __m256i abs = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  const __m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
  const __m256i nan_bits = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x8000)),
                                           _mm256_set1_epi32(0x7e00));
  // 32-bit lanes to 16: the mask's -1 / 0 and the NaN bits (< 0x8000 | 0x7e00, unsigned) survive packing.
  const __m128i nan16 = _mm_packs_epi32(_mm256_castsi256_si128(nan), _mm256_extracti128_si256(nan, 1));
  const __m128i bits16 = _mm_packus_epi32(_mm256_castsi256_si128(nan_bits), _mm256_extracti128_si256(nan_bits, 1));
  return _mm_blendv_epi8(h, bits16, nan16);
}

}  // namespace

void map_f32_avx2(Fn fn, const float* in, float* out, size_t n) {
  switch (fn) {
    case Fn::Exp:
      return map8<Sleef_expf8_u10avx2>(in, out, n);
    case Fn::Log:
      return map8<Sleef_logf8_u10avx2>(in, out, n);
    case Fn::Tanh:
      return map8<Sleef_tanhf8_u10avx2>(in, out, n);
    case Fn::Erf:
      return map8<Sleef_erff8_u10avx2>(in, out, n);
    case Fn::Sigmoid:
      return map8<sigmoid8>(in, out, n);
    case Fn::Gelu:
      return map8<gelu8>(in, out, n);
    case Fn::GeluTanh:
      return map8<gelu_tanh8>(in, out, n);
  }
}

void half_to_float(const uint16_t* in, float* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, half8_to_float(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  }
  if (i == n) return;
  uint16_t h[8] = {};
  float f[8];
  std::memcpy(h, in + i, (n - i) * sizeof(uint16_t));
  _mm256_storeu_ps(f, half8_to_float(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h))));
  std::memcpy(out + i, f, (n - i) * sizeof(float));
}

void float_to_half(const float* in, uint16_t* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), float8_to_half(_mm256_loadu_ps(in + i)));
  }
  if (i == n) return;
  float f[8] = {};
  uint16_t h[8];
  std::memcpy(f, in + i, (n - i) * sizeof(float));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), float8_to_half(_mm256_loadu_ps(f)));
  std::memcpy(out + i, h, (n - i) * sizeof(uint16_t));
}

float max_f32(const float* in, size_t n) {
  // maxps returns its second operand when either is NaN: a NaN element never replaces the maximum.
  __m256 acc = _mm256_set1_ps(-__builtin_inff());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) acc = _mm256_max_ps(_mm256_loadu_ps(in + i), acc);
  float lanes[8];
  _mm256_storeu_ps(lanes, acc);
  float m = lanes[0];
  for (int k = 1; k < 8; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (; i < n; ++i) m = in[i] > m ? in[i] : m;
  return m;
}

double exp_shift_sum(const float* in, float* out, size_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(in + i), s));
    if (out != nullptr) _mm256_storeu_ps(out + i, e);
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
  }
  double lanes[4];
  _mm256_storeu_pd(lanes, _mm256_add_pd(lo, hi));
  double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  if (i == n) return sum;
  float buf[8] = {};
  std::memcpy(buf, in + i, (n - i) * sizeof(float));
  _mm256_storeu_ps(buf, Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(buf), s)));
  for (size_t k = 0; k < n - i; ++k) sum += buf[k];
  if (out != nullptr) std::memcpy(out + i, buf, (n - i) * sizeof(float));
  return sum;
}

}  // namespace arun::ops::vmath
