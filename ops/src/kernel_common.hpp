// What the kernel families share: float16 storage, dtype dispatch, the launch wrapper, and the
// strided index walk used by broadcasting, transposes and reductions.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "arun/kernel.hpp"
#include "arun/ops/op.hpp"
#include "arun/runtime/launch.hpp"
#include "arun/runtime/overflow.hpp"
#include "arun/runtime/recorder.hpp"
#include "float16_storage.hpp"

namespace arun::ops {

void register_elementwise(std::vector<OpDef>& defs);
void register_activation(std::vector<OpDef>& defs);
void register_matmul(std::vector<OpDef>& defs);
void register_normalization(std::vector<OpDef>& defs);
void register_conv(std::vector<OpDef>& defs);
// issue 20 (h20c): BatchNormalization, InstanceNormalization, LRN, LpNormalization (batchnorm.cpp).
void register_channel_norm(std::vector<OpDef>& defs);
void register_pool(std::vector<OpDef>& defs);
void register_shape_ops(std::vector<OpDef>& defs);
// Issue 20, pointwise breadth (pointwise_common.hpp): unary math, PRelu, Clip, Dropout; comparisons
// and bool logic; variadic Max / Min / Sum / Mean and Mod; Shape, Size, ConstantOfShape, Range, EyeLike.
void register_pointwise(std::vector<OpDef>& defs);
void register_compare_logic(std::vector<OpDef>& defs);
void register_variadic(std::vector<OpDef>& defs);
void register_creation(std::vector<OpDef>& defs);
void register_movement(std::vector<OpDef>& defs);  // movement.cpp: Squeeze ... SpaceToDepth
void register_reduce(std::vector<OpDef>& defs);    // reduce.cpp: Reduce*, TopK
void register_resize(std::vector<OpDef>& defs);    // resize.cpp: Resize, Upsample
void register_einsum(std::vector<OpDef>& defs);    // einsum.cpp: Einsum

// The highest rank the strided kernels handle (ONNX models stay far below).
inline constexpr int kMaxRank = 8;

// Row-major strides of `shape`, in elements.
Shape contiguous_strides(const Shape& shape);

// A walk over the elements of an output of `rank` dims (<= kMaxRank) in row-major order that keeps,
// for up to two operands, the element offset under per-dimension strides (0 = broadcast).
struct StridedWalk {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t stride[2][kMaxRank] = {};

  // Offsets of operand 0 and 1 for the element at linear output index `linear`, and the index.
  struct Cursor {
    int64_t idx[kMaxRank];
    int64_t off[2];
  };
  Cursor at(int64_t linear) const {
    Cursor c{};
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t i = dims[d] == 0 ? 0 : linear % dims[d];
      linear = dims[d] == 0 ? 0 : linear / dims[d];
      c.idx[d] = i;
      c.off[0] += i * stride[0][d];
      c.off[1] += i * stride[1][d];
    }
    return c;
  }
  void next(Cursor& c) const {
    for (int d = rank - 1; d >= 0; --d) {
      c.off[0] += stride[0][d];
      c.off[1] += stride[1][d];
      if (++c.idx[d] < dims[d]) return;
      c.off[0] -= stride[0][d] * dims[d];
      c.off[1] -= stride[1][d] * dims[d];
      c.idx[d] = 0;
    }
  }
};

// The checks every two-input broadcasting op makes: two inputs of one dtype whose shapes broadcast
// (NumPy) to *out, of rank <= kMaxRank, and one output of `out_dtype` and that shape.
Status binary_geometry(const OpCall& call, aclDataType out_dtype, Shape* out);

// Strides that read `in` broadcast to `out` (in's rank <= out's, aligned on the right).
void broadcast_strides(const Shape& in, const Shape& out, int64_t* strides);

// The operator's detail text for profiling records (plugin::OpDetailField): node or op name, model
// name, and msprof-style shapes / dtypes / formats of the present inputs and of the outputs.
std::string op_detail_text(const OpCall& call);

// Launches `kernel` like arun::launch (arguments copied now, one task of `blocks` blocks on the
// call's stream) but straight through the front door: ops run inside the API call that invoked
// them (aclopExecuteV2, aclmdlExecute), so a launch is no second API call. The task is named after
// the op type ("MatMul") in profiling records. The result is a Status naming the op.
template <class F, class... Args>
Status launch_op(const OpCall& call, uint32_t blocks, F&& kernel, Args&&... args) {
  using Pack = arun::detail::KernelPack<std::decay_t<F>, std::decay_t<Args>...>;
  static_assert(std::is_invocable_v<const std::decay_t<F>&, Block, const std::decay_t<Args>&...>,
                "an ascend-run kernel is called as kernel(arun::Block, args...) with const arguments");
  const auto failed = [&](aclError rc) {
    return Status(static_cast<Errc>(rc), call.op + ": kernel launch failed (code " + std::to_string(rc) + ")");
  };
  if (blocks == 0) return failed(ACL_ERROR_INVALID_PARAM);
  Pack* pack =
      new (std::nothrow) Pack{std::forward<F>(kernel), std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
  if (pack == nullptr) return failed(ACL_ERROR_BAD_ALLOC);
  rt::LaunchAttrs attrs;
  attrs.op_name = call.op.c_str();
  attrs.args_bytes = static_cast<uint32_t>(sizeof(Pack));
  std::string detail;  // built only while a session collects tasks: one relaxed load otherwise
  if (prof::on(prof::kTasks)) [[unlikely]] {
    detail = op_detail_text(call);
    attrs.op_detail = detail.c_str();
    attrs.model_tag = call.trace != nullptr ? (uint64_t(call.trace->model_id) << 32) | call.trace->infer_id : 0;
  }
  const Status st = rt::launch_kernel(call.stream, blocks, &Pack::run, pack, &Pack::destroy, attrs);
  if (st.ok()) return st;
  return failed(st.value());
}

// Overflow detection (spec part 2, 4.8), called by execute() after every op: when the call's
// stream has its overflow switch on, launches after the op's kernels one check per floating-point
// output that reports an overflow (arun::Block::check_finite) if any element is Inf or NaN. Nothing
// is launched when the switch is off.
Status check_outputs_finite(const OpCall& call);

// Typed device pointers from a tensor.
template <class T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data);
}

// The aclDataType a storage type stands for (Half: float16; bool tensors have their own byte type
// where a kernel needs one, so bool is not listed here).
template <class T>
constexpr aclDataType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return ACL_FLOAT;
  else if constexpr (std::is_same_v<T, Half>)
    return ACL_FLOAT16;
  else if constexpr (std::is_same_v<T, double>)
    return ACL_DOUBLE;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ACL_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ACL_UINT8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ACL_INT16;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return ACL_UINT16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ACL_INT32;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return ACL_UINT32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ACL_INT64;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return ACL_UINT64;
  else
    static_assert(sizeof(T) == 0, "no aclDataType for this storage type");
}

// Calls f(T{}) with the first of Ts whose dtype is `dtype`; false when none is.
template <class... Ts, class F>
bool dispatch_dtypes(aclDataType dtype, F&& f) {
  return ((dtype == dtype_of<Ts>() ? (f(Ts{}), true) : false) || ...);
}

// The float dtypes most kernels have (float32, float16), and the numeric ones of the arithmetic ops.
template <class F>
bool dispatch_float(aclDataType dtype, F&& f) {
  return dispatch_dtypes<float, Half>(dtype, f);
}
template <class F>
bool dispatch_numeric(aclDataType dtype, F&& f) {
  return dispatch_dtypes<float, Half, double, int32_t, int64_t>(dtype, f);
}

}  // namespace arun::ops
