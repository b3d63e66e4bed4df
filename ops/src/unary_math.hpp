// The unary float kernels' math and their block kernel: one contiguous share of the tensor per
// block, computed in float. Used by activation.cpp and compiled into the op
// kernel binary (ops/kernels), so both give the same bits; needs only the public kernel API and
// the vector math library (vector_math.hpp), linked into both.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "arun/kernel.hpp"
#include "float16_storage.hpp"
#include "vector_math.hpp"

namespace arun::ops {

enum class Unary { Relu, LeakyRelu, Gelu, GeluTanh, Sigmoid, Tanh, Erf, Sqrt, Exp, Log, Neg, Abs };

template <class T>
struct UnaryParams {
  const T* in;
  T* out;
  int64_t n;
  Unary kind;
  float alpha;
};

inline float apply(Unary kind, float x, float alpha) {
  switch (kind) {
    case Unary::Relu:
      return x < 0.0f ? 0.0f : x;  // a maxss, no branch; NaN stays NaN as in NumPy
    case Unary::LeakyRelu:
      return x >= 0.0f ? x : alpha * x;
    case Unary::Gelu:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Unary::GeluTanh: {
      const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);  // sqrt(2/pi)
      return 0.5f * x * (1.0f + std::tanh(inner));
    }
    case Unary::Sigmoid:
      return x >= 0.0f ? 1.0f / (1.0f + std::exp(-x)) : std::exp(x) / (1.0f + std::exp(x));
    case Unary::Tanh:
      return std::tanh(x);
    case Unary::Erf:
      return std::erf(x);
    case Unary::Sqrt:
      return std::sqrt(x);
    case Unary::Exp:
      return std::exp(x);
    case Unary::Log:
      return std::log(x);
    case Unary::Neg:
      return -x;
    case Unary::Abs:
      return std::fabs(x);
  }
  return x;
}

// The functions with a vectorised form (vector_math.hpp); the rest are cheap or auto-vectorise.
constexpr bool has_vector_form(Unary k) {
  return k == Unary::Gelu || k == Unary::GeluTanh || k == Unary::Sigmoid || k == Unary::Tanh || k == Unary::Erf ||
         k == Unary::Exp || k == Unary::Log;
}
constexpr vmath::Fn vector_fn(Unary k) {
  switch (k) {
    case Unary::Gelu:
      return vmath::Fn::Gelu;
    case Unary::GeluTanh:
      return vmath::Fn::GeluTanh;
    case Unary::Sigmoid:
      return vmath::Fn::Sigmoid;
    case Unary::Tanh:
      return vmath::Fn::Tanh;
    case Unary::Erf:
      return vmath::Fn::Erf;
    case Unary::Log:
      return vmath::Fn::Log;
    default:
      return vmath::Fn::Exp;
  }
}

template <class T, Unary K>
void unary_kernel(arun::Block blk, const UnaryParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* in = blk.map(p.in, p.n).data();
  T* out = blk.map(p.out, p.n).data();
  if constexpr (has_vector_form(K)) {
    if (vmath::enabled()) {
      if constexpr (std::is_same_v<T, float>) {
        vmath::map_f32(vector_fn(K), in + r.first, out + r.first, r.size());
      } else {
        static_assert(std::is_same_v<T, Half> && sizeof(Half) == sizeof(uint16_t));
        // float16: through a small float buffer, converted with F16C (same bits as Compute<Half>).
        constexpr size_t kChunk = 512;
        float buf[kChunk];
        for (size_t i = r.first; i < r.last; i += kChunk) {
          const size_t m = std::min(kChunk, r.last - i);
          vmath::half_to_float(reinterpret_cast<const uint16_t*>(in + i), buf, m);
          vmath::map_f32(vector_fn(K), buf, buf, m);
          vmath::float_to_half(buf, reinterpret_cast<uint16_t*>(out + i), m);
        }
      }
      return;
    }
  }
  // K is a template argument so that each loop is specialised (and vectorisable) for its function.
  for (size_t i = r.first; i < r.last; ++i) out[i] = C::store(apply(K, static_cast<float>(C::load(in[i])), p.alpha));
}

}  // namespace arun::ops
