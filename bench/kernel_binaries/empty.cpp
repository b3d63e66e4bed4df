// The kernel binary of bench/kernel_bench.cpp: an empty kernel with two parameters, launched
// through aclrtLaunchKernelWithConfig to compare its host cost with the C++ template launch.
#include <cstdint>

#include "arun/kernel_binary.hpp"

namespace {
void empty(arun::Block, uint64_t, uint32_t) {}
}  // namespace

ARUN_BINARY_KERNEL(bench_empty, empty, 1, 1)
