// Rounding to a multiple of an alignment (any positive value, not only powers of two).
#pragma once

#include <cstdint>

namespace arun::ascend {

inline uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}
inline uint64_t align_down(uint64_t v, uint64_t a) {
  return v / a * a;
}

}  // namespace arun::ascend
