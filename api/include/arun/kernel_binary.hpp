// ascend-run extension: C++ kernels in a kernel binary (the format: arun/kernel_binary.h,
// docs/kernel-binaries.md). A kernel is written as for arun::launch,
//
//   void vadd(arun::Block b, const float* x, const float* y, float* z, uint32_t n) { ... }
//   ARUN_BINARY_KERNEL(vadd_f32, vadd, /*funcEntry=*/1, /*defaultBlockDim=*/8)
//
// and ARUN_BINARY_KERNEL exports `vadd_f32` (the arunKernelFn entry that unpacks the argument block
// into the parameters) with its descriptor. Parameters must be trivially copyable with alignment
// <= 8; each takes a slot of its size rounded up to 8. One translation unit of the binary holds
// ARUN_KERNEL_BINARY_TABLE() (arun_add_kernel_binary generates it).
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <tuple>
#include <type_traits>
#include <utility>

#include "arun/kernel.hpp"
#include "arun/kernel_binary.h"

namespace arun::kb {

template <class F>
struct Signature;
template <class... P>
struct Signature<void (*)(Block, P...)> {
  using Params = std::tuple<std::decay_t<P>...>;
  static constexpr uint32_t count = sizeof...(P);
  static constexpr uint32_t sizes[sizeof...(P) + 1] = {static_cast<uint32_t>(sizeof(std::decay_t<P>))..., 0};
  static_assert(((std::is_trivially_copyable_v<std::decay_t<P>> && alignof(std::decay_t<P>) <= 8) && ...),
                "kernel-binary parameters are trivially copyable with alignment <= 8");
};

constexpr size_t slot(size_t bytes) {
  return (bytes + 7) / 8 * 8;
}

// Byte offset of parameter I: the earlier slots, each rounded up to 8.
template <class Tuple, size_t I>
constexpr size_t offset_of() {
  if constexpr (I == 0) {
    return 0;
  } else {
    return offset_of<Tuple, I - 1>() + slot(sizeof(std::tuple_element_t<I - 1, Tuple>));
  }
}

template <class Tuple, size_t... I>
Tuple unpack(const unsigned char* args, std::index_sequence<I...>) {
  Tuple values{};
  (void)args;  // a kernel without parameters reads nothing
  // memcpy: the slots are only 8-byte aligned and the block is plain bytes.
  (std::memcpy(&std::get<I>(values), args + offset_of<Tuple, I>(), sizeof(std::tuple_element_t<I, Tuple>)), ...);
  return values;
}

// Calls fn(Block, params...) from the packed block; faults instead of letting an exception cross
// the C boundary (as arun::launch's trampoline does).
template <auto Fn>
void entry(arunBlock* native, void* args) {
  using Sig = Signature<decltype(Fn)>;
  using Tuple = typename Sig::Params;
  try {
    Tuple values =
        unpack<Tuple>(static_cast<const unsigned char*>(args), std::make_index_sequence<std::tuple_size_v<Tuple>>{});
    std::apply([&](const auto&... p) { Fn(Block(native), p...); }, values);
  } catch (const KernelFault&) {
  } catch (const std::exception& e) {
    arunBlockFault(native, ACL_ERROR_RT_AICORE_EXCEPTION, e.what());
  } catch (...) {
    arunBlockFault(native, ACL_ERROR_RT_AICORE_EXCEPTION, "AI Core exception: kernel threw a non-standard exception");
  }
}

}  // namespace arun::kb

#define ARUN_KB_EXPORT extern "C" __attribute__((visibility("default")))

// A pointer to each ARUN_BINARY_KERNEL's descriptor goes to the section arun_kernels; the linker's
// __start_/__stop_ symbols delimit it (8-byte entries: no padding between them).
#define ARUN_BINARY_KERNEL_TYPED(name, fn, func_entry, default_block_dim, kernel_type, sched_mode)         \
  ARUN_KB_EXPORT void name(arunBlock* block, void* args) {                                                 \
    ::arun::kb::entry<&fn>(block, args);                                                                   \
  }                                                                                                        \
  static const arunKernelDesc arun_kb_desc_##name = {                                                      \
      #name,                                                                                               \
      (func_entry),                                                                                        \
      ::arun::kb::Signature<decltype(&fn)>::count,                                                         \
      (default_block_dim),                                                                                 \
      (kernel_type),                                                                                       \
      (sched_mode),                                                                                        \
      ::arun::kb::Signature<decltype(&fn)>::count ? ::arun::kb::Signature<decltype(&fn)>::sizes : nullptr, \
      0};                                                                                                  \
  __attribute__((used, section("arun_kernels"))) static const arunKernelDesc* const arun_kb_ptr_##name =   \
      &arun_kb_desc_##name;

// An AI Core kernel with normal scheduling.
#define ARUN_BINARY_KERNEL(name, fn, func_entry, default_block_dim) \
  ARUN_BINARY_KERNEL_TYPED(name, fn, func_entry, default_block_dim, 0u, 0u)

#ifndef ARUN_KERNEL_BINARY_TABLE_MAGIC
#define ARUN_KERNEL_BINARY_TABLE_MAGIC ARUN_KERNEL_BINARY_MAGIC
#endif
#ifndef ARUN_KERNEL_BINARY_TABLE_ABI
#define ARUN_KERNEL_BINARY_TABLE_ABI ARUN_KERNEL_BINARY_ABI_VERSION
#endif

// The exported table; once per binary. Weak section bounds: a binary with no kernels links too.
#define ARUN_KERNEL_BINARY_TABLE()                                                                                 \
  extern "C" {                                                                                                     \
  extern const arunKernelDesc* const __start_arun_kernels[] __attribute__((weak, visibility("hidden")));           \
  extern const arunKernelDesc* const __stop_arun_kernels[] __attribute__((weak, visibility("hidden")));            \
  __attribute__((visibility("default"))) extern const arunKernelBinaryHeader arun_kernel_binary;                   \
  const arunKernelBinaryHeader arun_kernel_binary = {ARUN_KERNEL_BINARY_TABLE_MAGIC, ARUN_KERNEL_BINARY_TABLE_ABI, \
                                                     __start_arun_kernels, __stop_arun_kernels};                   \
  }
