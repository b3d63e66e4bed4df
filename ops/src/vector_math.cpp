// vector_math.hpp's dispatch. Built for the baseline ISA: it runs before anything knows whether
// AVX2 is there.
#include <cpuid.h>

#include <cstdlib>
#include <cstring>

#include "vector_math.hpp"

namespace arun::ops::vmath {

Level level() {
  // A function-local static (thread-safe, once per process and per DSO that links this library).
  static const Level chosen = [] {
    __builtin_cpu_init();  // harmless if libgcc's constructor already ran; needed if it has not yet
    // F16C from CPUID itself: clang 14's __builtin_cpu_supports does not know it. AVX2 implies the
    // OS saves the YMM state F16C needs.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c)) return Level::Scalar;
    const char* mode = std::getenv("ARUN_VECTOR_MATH");
    if (mode != nullptr && std::strcmp(mode, "scalar") == 0) return Level::Scalar;
    if (mode != nullptr && std::strcmp(mode, "avx2") == 0) return Level::Avx2;
    return __builtin_cpu_supports("avx512f") ? Level::Avx512 : Level::Avx2;
  }();
  return chosen;
}

bool enabled() {
  return level() != Level::Scalar;
}

void map_f32(Fn fn, const float* in, float* out, size_t n) {
  if (level() == Level::Avx512) {
    map_f32_avx512(fn, in, out, n);
  } else {
    map_f32_avx2(fn, in, out, n);
  }
}

}  // namespace arun::ops::vmath
