// The second test kernel binary (model_build_test.cpp, aclrtTaskUpdateAsync): a kernel with
// kb_vadd's parameters that a task update swaps in, which also shows the block count it ran with.
#include "arun/kernel_binary.hpp"

namespace {

// z[i] = x[i] - y[i] * blocks: the result tells both the function and the block count apart.
void vsub_scaled(arun::Block b, const float* x, const float* y, float* z, uint32_t n) {
  auto xs = b.map(x, n);
  auto ys = b.map(y, n);
  auto zs = b.map(z, n);
  const auto blocks = static_cast<float>(b.count());
  for (size_t i : b.range(n)) zs[i] = xs[i] - ys[i] * blocks;
}

}  // namespace

ARUN_BINARY_KERNEL(kb_vsub_scaled, vsub_scaled, 7, 1)
