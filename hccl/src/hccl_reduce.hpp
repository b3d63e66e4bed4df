// Element-wise reductions run on the device as ascend-run C++ kernels (arun/kernel.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "arun/core/float16.hpp"
#include "arun/kernel.hpp"
#include "hccl/hccl_types.h"

namespace hccl {

// The runtime's binary16 / bfloat16 conversions (installed, header-only).
using arun::bf16_to_float;
using arun::float_to_bf16;
using arun::float_to_half;
using arun::half_to_float;

template <class T>
inline T apply_op(T a, T b, HcclReduceOp op) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN) {
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;  // NaN propagates (ours)
    }
  }
  switch (op) {
    case HCCL_REDUCE_SUM:
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(a) + U(b));  // two's-complement wrap
      } else {
        return a + b;
      }
    case HCCL_REDUCE_PROD:
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
        return T(U(W(U(a)) * W(U(b))));
      } else {
        return a * b;
      }
    case HCCL_REDUCE_MAX:
      return a < b ? b : a;
    default:
      return b < a ? b : a;
  }
}

// dst[i] = op(dst[i], src[i]) for count elements of type t; both buffers on the launching device.
template <class T>
void reduce_typed(const arun::Block& b, void* dst, const void* src, size_t count, HcclReduceOp op) {
  const auto r = b.range(count);
  if (r.size() == 0) return;
  auto d = b.map(static_cast<T*>(dst) + r.first, r.size());
  auto s = b.map(static_cast<const T*>(src) + r.first, r.size());
  T* dp = d.data();
  const T* sp = s.data();
  for (size_t i = 0; i < r.size(); ++i) dp[i] = apply_op<T>(dp[i], sp[i], op);
}

template <uint16_t (*To)(float), float (*From)(uint16_t)>
void reduce_16(const arun::Block& b, void* dst, const void* src, size_t count, HcclReduceOp op) {
  const auto r = b.range(count);
  if (r.size() == 0) return;
  auto d = b.map(static_cast<uint16_t*>(dst) + r.first, r.size());
  auto s = b.map(static_cast<const uint16_t*>(src) + r.first, r.size());
  for (size_t i = 0; i < r.size(); ++i) d.data()[i] = To(apply_op<float>(From(d.data()[i]), From(s.data()[i]), op));
}

inline void reduce_kernel(arun::Block b, void* dst, const void* src, size_t count, HcclDataType t, HcclReduceOp op) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8:
      return reduce_typed<int8_t>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_INT16:
      return reduce_typed<int16_t>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_INT32:
      return reduce_typed<int32_t>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_INT64:
      return reduce_typed<int64_t>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_UINT64:
      return reduce_typed<uint64_t>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_FP32:
      return reduce_typed<float>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_FP64:
      return reduce_typed<double>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_FP16:
      return reduce_16<float_to_half, half_to_float>(b, dst, src, count, op);
    case HCCL_DATA_TYPE_BFP16:
      return reduce_16<float_to_bf16, bf16_to_float>(b, dst, src, count, op);
    default:
      b.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "HCCL reduce: unsupported data type");
  }
}

// dst = op(...op(op(dst, src[0]), src[1])..., src[nsrc-1]) where src holds nsrc runs of count
// elements: one launch folds every peer's contribution, in rank order.
inline void reduce_many_kernel(arun::Block b, void* dst, const void* src, size_t count, uint32_t nsrc, HcclDataType t,
                               HcclReduceOp op, size_t elem_size) {
  for (uint32_t k = 0; k < nsrc; ++k)
    reduce_kernel(b, dst, static_cast<const char*>(src) + size_t(k) * count * elem_size, count, t, op);
}

}  // namespace hccl
