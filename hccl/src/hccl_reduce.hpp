// Element-wise reductions run on the device as ascend-run C++ kernels (arun/kernel.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

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

// ---- fold: one pass over n sources ----------------------------------------------------------

// What a fold kernel gets: dst (and dst2 when set) = op(...op(op(srcs[0], srcs[1]), srcs[2])...)
// element-wise, in the order of srcs (rank order, so every run gives the same bits).
struct FoldArgs {
  std::vector<const void*> srcs;
  void* dst = nullptr;
  void* dst2 = nullptr;
  size_t count = 0;
  HcclDataType type = HCCL_DATA_TYPE_FP32;
  HcclReduceOp op = HCCL_REDUCE_SUM;
};

// Each block folds its share tile by tile in a local buffer that stays in cache, so every source
// is read once and each destination written once (a chain of two-input reductions reads and writes
// the destination once per source), and a destination may alias a source.
template <class S, class Step>
void fold_tiles(const arun::Block& b, const FoldArgs& a, Step step) {
  const auto r = b.range(a.count);
  if (r.size() == 0 || a.srcs.empty()) return;
  std::vector<const S*> in;
  in.reserve(a.srcs.size());
  for (const void* src : a.srcs) in.push_back(b.map(static_cast<const S*>(src) + r.first, r.size()).data());
  S* out = b.map(static_cast<S*>(a.dst) + r.first, r.size()).data();
  S* out2 = a.dst2 != nullptr ? b.map(static_cast<S*>(a.dst2) + r.first, r.size()).data() : nullptr;
  constexpr size_t kTile = 16384 / sizeof(S);
  S acc[kTile];
  for (size_t t0 = 0; t0 < r.size(); t0 += kTile) {
    const size_t len = std::min(kTile, r.size() - t0);
    std::memcpy(acc, in[0] + t0, len * sizeof(S));
    for (size_t k = 1; k < in.size(); ++k) {
      const S* s = in[k] + t0;
      for (size_t i = 0; i < len; ++i) acc[i] = step(acc[i], s[i]);
    }
    std::memcpy(out + t0, acc, len * sizeof(S));
    if (out2 != nullptr) std::memcpy(out2 + t0, acc, len * sizeof(S));
  }
}

// The reduce op as a compile-time constant, so the inner loop has no switch and can vectorise.
template <class T>
void fold_typed(const arun::Block& b, const FoldArgs& a) {
  switch (a.op) {
    case HCCL_REDUCE_SUM:
      return fold_tiles<T>(b, a, [](T x, T y) { return apply_op<T>(x, y, HCCL_REDUCE_SUM); });
    case HCCL_REDUCE_PROD:
      return fold_tiles<T>(b, a, [](T x, T y) { return apply_op<T>(x, y, HCCL_REDUCE_PROD); });
    case HCCL_REDUCE_MAX:
      return fold_tiles<T>(b, a, [](T x, T y) { return apply_op<T>(x, y, HCCL_REDUCE_MAX); });
    default:
      return fold_tiles<T>(b, a, [](T x, T y) { return apply_op<T>(x, y, HCCL_REDUCE_MIN); });
  }
}

// 16-bit floats: each step computes in float and rounds back, as the two-input kernel does.
template <uint16_t (*To)(float), float (*From)(uint16_t)>
void fold_16(const arun::Block& b, const FoldArgs& a) {
  const HcclReduceOp op = a.op;
  fold_tiles<uint16_t>(b, a, [op](uint16_t x, uint16_t y) { return To(apply_op<float>(From(x), From(y), op)); });
}

inline void fold_kernel(arun::Block b, const FoldArgs& a) {
  switch (a.type) {
    case HCCL_DATA_TYPE_INT8:
      return fold_typed<int8_t>(b, a);
    case HCCL_DATA_TYPE_INT16:
      return fold_typed<int16_t>(b, a);
    case HCCL_DATA_TYPE_INT32:
      return fold_typed<int32_t>(b, a);
    case HCCL_DATA_TYPE_INT64:
      return fold_typed<int64_t>(b, a);
    case HCCL_DATA_TYPE_UINT64:
      return fold_typed<uint64_t>(b, a);
    case HCCL_DATA_TYPE_FP32:
      return fold_typed<float>(b, a);
    case HCCL_DATA_TYPE_FP64:
      return fold_typed<double>(b, a);
    case HCCL_DATA_TYPE_FP16:
      return fold_16<float_to_half, half_to_float>(b, a);
    case HCCL_DATA_TYPE_BFP16:
      return fold_16<float_to_bf16, bf16_to_float>(b, a);
    default:
      b.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "HCCL reduce: unsupported data type");
  }
}

}  // namespace hccl
