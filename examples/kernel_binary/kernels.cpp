// The kernels of the kernel_binary example, built into kernel_binary_kernels.so by
// arun_add_kernel_binary (CMakeLists.txt). Each is an ordinary C++ function of (arun::Block,
// parameters...); ARUN_BINARY_KERNEL exports it under its kernel name with its descriptor.
#include <cstdint>

#include "arun/kernel_binary.hpp"

namespace {

// y[i] = a * x[i] + y[i]
void saxpy(arun::Block b, float a, const float* x, float* y, uint32_t n) {
  auto xs = b.map(x, n);
  auto ys = b.map(y, n);
  for (size_t i : b.range(n)) ys[i] = a * xs[i] + ys[i];
}

// out[i] = lut[in[i] % lutSize]; `lut` is a placeholder: host data that travels with the launch.
void lookup(arun::Block b, const uint32_t* in, const float* lut, uint32_t lutSize, float* out, uint32_t n) {
  auto is = b.map(in, n);
  auto os = b.map(out, n);
  for (size_t i : b.range(n)) os[i] = lut[is[i] % lutSize];
}

}  // namespace

ARUN_BINARY_KERNEL(saxpy_f32, saxpy, /*funcEntry=*/100, /*defaultBlockDim=*/8)
ARUN_BINARY_KERNEL(lookup_f32, lookup, /*funcEntry=*/200, /*defaultBlockDim=*/4)
