// arun_op_kernels.so: the operator library's elementwise kernels as a kernel binary
// (docs/kernel-binaries.md), for programs that launch them by name (aclrtBinaryLoadFromFile ->
// aclrtBinaryGetFunction("Gelu_float32") -> aclrtLaunchKernelWithConfig) instead of through
// aclopExecuteV2. The math is the library's own (unary_math.hpp, binary_math.hpp), so a kernel gives
// the same bits as the operator. Kernels take contiguous tensors of the same shape:
//   <Unary>_<dtype>(const T* x, T* y, uint64_t n, float alpha)     alpha: LeakyRelu's slope, else unused
//   <Binary>_<dtype>(const T* a, const T* b, T* y, uint64_t n)
// dtype float32 or float16; each block takes a contiguous share of the n elements.
#include <cstdint>

#include "arun/kernel_binary.hpp"
#include "binary_math.hpp"
#include "unary_math.hpp"

namespace op_kernels {

using arun::ops::Compute;
using arun::ops::Half;
using arun::ops::Unary;

template <class T, Unary K>
void unary(arun::Block b, const T* x, T* y, uint64_t n, float alpha) {
  arun::ops::unary_kernel<T, K>(b, arun::ops::UnaryParams<T>{x, y, static_cast<int64_t>(n), K, alpha});
}

template <class T, class Op>
void binary(arun::Block blk, const T* a, const T* b, T* y, uint64_t n) {
  const arun::IndexRange r = blk.range(static_cast<size_t>(n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* as = blk.map(a, n).data();
  const T* bs = blk.map(b, n).data();
  T* ys = blk.map(y, n).data();
  for (size_t i = r.first; i < r.last; ++i) ys[i] = C::store(Op::apply(C::load(as[i]), C::load(bs[i])));
}

// The entry points: plain functions, one per (op, dtype), for ARUN_BINARY_KERNEL.
#define OP_KERNELS_UNARY(Name)                                                            \
  void Name##_float32(arun::Block b, const float* x, float* y, uint64_t n, float alpha) { \
    unary<float, Unary::Name>(b, x, y, n, alpha);                                         \
  }                                                                                       \
  void Name##_float16(arun::Block b, const Half* x, Half* y, uint64_t n, float alpha) {   \
    unary<Half, Unary::Name>(b, x, y, n, alpha);                                          \
  }
#define OP_KERNELS_BINARY(Name)                                                                \
  void Name##_float32(arun::Block blk, const float* a, const float* b, float* y, uint64_t n) { \
    binary<float, arun::ops::Name##Op>(blk, a, b, y, n);                                       \
  }                                                                                            \
  void Name##_float16(arun::Block blk, const Half* a, const Half* b, Half* y, uint64_t n) {    \
    binary<Half, arun::ops::Name##Op>(blk, a, b, y, n);                                        \
  }

OP_KERNELS_UNARY(Relu)
OP_KERNELS_UNARY(LeakyRelu)
OP_KERNELS_UNARY(Gelu)
OP_KERNELS_UNARY(GeluTanh)
OP_KERNELS_UNARY(Sigmoid)
OP_KERNELS_UNARY(Tanh)
OP_KERNELS_UNARY(Erf)
OP_KERNELS_UNARY(Sqrt)
OP_KERNELS_UNARY(Exp)
OP_KERNELS_UNARY(Log)
OP_KERNELS_UNARY(Neg)
OP_KERNELS_UNARY(Abs)
OP_KERNELS_BINARY(Add)
OP_KERNELS_BINARY(Sub)
OP_KERNELS_BINARY(Mul)
OP_KERNELS_BINARY(Div)
OP_KERNELS_BINARY(Pow)

}  // namespace op_kernels

// Entries (CANN's tiling keys): 1000 + 10 * unary op + dtype, 2000 + 10 * binary op + dtype, with
// dtype 0 = float32, 1 = float16. Eight blocks unless the launch says otherwise.
#define OP_KERNELS_EXPORT(Name, base)                                       \
  ARUN_BINARY_KERNEL(Name##_float32, op_kernels::Name##_float32, (base), 8) \
  ARUN_BINARY_KERNEL(Name##_float16, op_kernels::Name##_float16, (base) + 1, 8)

OP_KERNELS_EXPORT(Relu, 1000)
OP_KERNELS_EXPORT(LeakyRelu, 1010)
OP_KERNELS_EXPORT(Gelu, 1020)
OP_KERNELS_EXPORT(GeluTanh, 1030)
OP_KERNELS_EXPORT(Sigmoid, 1040)
OP_KERNELS_EXPORT(Tanh, 1050)
OP_KERNELS_EXPORT(Erf, 1060)
OP_KERNELS_EXPORT(Sqrt, 1070)
OP_KERNELS_EXPORT(Exp, 1080)
OP_KERNELS_EXPORT(Log, 1090)
OP_KERNELS_EXPORT(Neg, 1100)
OP_KERNELS_EXPORT(Abs, 1110)
OP_KERNELS_EXPORT(Add, 2000)
OP_KERNELS_EXPORT(Sub, 2010)
OP_KERNELS_EXPORT(Mul, 2020)
OP_KERNELS_EXPORT(Div, 2030)
OP_KERNELS_EXPORT(Pow, 2040)
