// ascend-run demo: the double-buffered H2D -> kernel -> D2H pipeline (demo.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace demo {

struct Options {
  const char* config = nullptr;  // aclInit's argument: nullptr = $ASCEND_RUN_CONFIG or the default
  size_t batches = 12;
  size_t elements = size_t(1) << 21;  // floats per batch (8 MiB)
  uint32_t blocks = 20;               // blocks per kernel: one per AI core of an Ascend910B3
};

// Runs the demo; 0 when every result matched the host, 1 on a failure, 2 on bad options.
int run(const Options& options);

}  // namespace demo
