// Types shared by the test kernel binary and kernel_binary_test.cpp.
#pragma once

#include <cstdint>

namespace kbtest {
struct Pair {  // 12 bytes: a 16-byte slot
  int32_t x, y, z;
};
struct Echo {
  uint8_t a;
  uint64_t c;
  uint16_t d;
  Pair p;
  float e;
};
}  // namespace kbtest
