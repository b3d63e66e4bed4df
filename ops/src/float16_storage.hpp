// float16 tensors: stored as IEEE binary16, computed in float. Shared by the operator library and
// the kernel binary built from its kernels (ops/kernels), so it needs nothing but the installed
// conversion header.
#pragma once

#include <cstdint>

#include "arun/core/float16.hpp"

namespace arun::ops {

// IEEE binary16 storage; arithmetic happens in float.
struct Half {
  uint16_t bits;
};

// Loads and stores in the compute type: float16 goes through float, everything else is itself.
template <class T>
struct Compute {
  using type = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};
template <>
struct Compute<Half> {
  using type = float;
  static float load(Half v) { return half_to_float(v.bits); }
  static Half store(float v) { return Half{float_to_half(v)}; }
};

}  // namespace arun::ops
