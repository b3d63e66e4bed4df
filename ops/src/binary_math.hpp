// The arithmetic of Add, Sub, Mul, Div and Pow on one pair of elements, in the compute type. Used
// by elementwise.cpp and compiled into the op kernel binary (ops/kernels), so both give the same bits.
#pragma once

#include <cmath>
#include <type_traits>

namespace arun::ops {

// Integer arithmetic wraps (as on the device) instead of being undefined on overflow.
template <class C, bool = std::is_integral_v<C>>
struct WideOf {
  using type = C;
};
template <class C>
struct WideOf<C, true> {
  using type = std::make_unsigned_t<C>;
};
template <class C>
using Wide = typename WideOf<C>::type;

struct AddOp {
  template <class C>
  static C apply(C x, C y) {
    return static_cast<C>(static_cast<Wide<C>>(x) + static_cast<Wide<C>>(y));
  }
};
struct SubOp {
  template <class C>
  static C apply(C x, C y) {
    return static_cast<C>(static_cast<Wide<C>>(x) - static_cast<Wide<C>>(y));
  }
};
struct MulOp {
  template <class C>
  static C apply(C x, C y) {
    return static_cast<C>(static_cast<Wide<C>>(x) * static_cast<Wide<C>>(y));
  }
};
struct DivOp {
  template <class C>
  static C apply(C x, C y) {
    return x / y;  // integer cases are checked by the kernel first
  }
};
struct PowOp {
  template <class C>
  static C apply(C x, C y) {
    if constexpr (std::is_integral_v<C>) {
      // Exact integer power by squaring, wrapping on overflow; a negative exponent truncates 1/x^-y.
      if (y < 0) return x == 1 ? C(1) : x == -1 ? ((y & 1) != 0 ? C(-1) : C(1)) : C(0);
      Wide<C> r = 1, b = static_cast<Wide<C>>(x);
      for (auto e = static_cast<Wide<C>>(y); e != 0; e >>= 1) {
        if ((e & 1) != 0) r = static_cast<Wide<C>>(r * b);
        b = static_cast<Wide<C>>(b * b);
      }
      return static_cast<C>(r);
    } else {
      if (y == C(2)) return x * x;  // LayerNorm's square: exact, and far cheaper than powf
      return std::pow(x, y);
    }
  }
};

}  // namespace arun::ops
