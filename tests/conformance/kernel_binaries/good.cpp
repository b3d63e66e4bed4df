// The well-formed test kernel binary (kernel_binary_test.cpp): kernels with mixed parameter sizes,
// a placeholder, a gate for the unload-in-flight test, a vector kernel with batch scheduling and an
// exported global.
#include <atomic>
#include <chrono>
#include <thread>

#include "acl/acl_rt.h"
#include "arun/kernel_binary.hpp"
#include "kb_test_types.hpp"

namespace {

void vadd(arun::Block b, const float* x, const float* y, float* z, uint32_t n) {
  auto xs = b.map(x, n);
  auto ys = b.map(y, n);
  auto zs = b.map(z, n);
  for (size_t i : b.range(n)) zs[i] = xs[i] + ys[i];
}

// Writes back every parameter as received, so the test compares them with what it packed.
void mixed(arun::Block b, uint8_t a, uint64_t c, uint16_t d, kbtest::Pair p, float e, kbtest::Echo* out) {
  if (b.index() != 0) return;
  kbtest::Echo& o = b.at(out);
  o.a = a;
  o.c = c;
  o.d = d;
  o.p = p;
  o.e = e;
}

// `table` is a placeholder: its data travels with the arguments and is read directly.
void scaled(arun::Block b, const int32_t* table, uint32_t n, int32_t factor, int32_t* out) {
  auto os = b.map(out, n);
  for (size_t i : b.range(n)) os[i] = table[i] * factor;
}

}  // namespace

// Host-visible through aclrtBinaryGetGlobal: the test opens the gate after unloading the binary.
extern "C" {
__attribute__((visibility("default"))) std::atomic<int> kb_gate{0};
// A global's size is its ELF symbol size; clang's ASan pads instrumented globals and counts the
// padding, so this one is left uninstrumented to keep the size the test checks.
#if defined(__clang__)
__attribute__((no_sanitize("address")))
#endif
__attribute__((visibility("default"))) int32_t kb_global_table[16] = {1, 2, 3};
}

namespace {
void gated(arun::Block b, int32_t* out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (kb_gate.load() == 0) {
    if (std::chrono::steady_clock::now() > deadline) b.trap("kb_gated: the gate was never opened");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  b.at(out) = 42;
}

void noop(arun::Block) {}
}  // namespace

ARUN_BINARY_KERNEL(kb_vadd, vadd, 1, 4)
ARUN_BINARY_KERNEL(kb_mixed, mixed, 2, 1)
ARUN_BINARY_KERNEL(kb_scaled, scaled, 3, 2)
ARUN_BINARY_KERNEL(kb_gated, gated, 4, 1)
ARUN_BINARY_KERNEL_TYPED(kb_vector_batch, noop, 5, 1, ACL_KERNEL_TYPE_VECTOR, 1u)
