// Softmax / LogSoftmax (along one axis, opset 13), LayerNormalization (over the trailing axes from
// `axis`, optional Mean / InvStdDev outputs), RMSNormalization (opset 23, optional InvStdDev).
// float32 and float16; sums are accumulated in double so long rows keep float32 accuracy; Softmax's
// contiguous float32 rows take SLEEF's exp (vector_math.hpp). (The Reduce* ops are in reduce.cpp,
// BatchNormalization in batchnorm.cpp.) ArgMax / ArgMin (one axis, int64
// indices) over float32/16/64 and int32/64.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernel_common.hpp"
#include "vector_math.hpp"

namespace arun::ops {
namespace {

// ---- Softmax ----

template <class T>
struct SoftmaxParams {
  const T* in;
  T* out;
  int64_t n, outer, len, inner;
  bool log;
};

template <class T>
void softmax_kernel(arun::Block blk, const SoftmaxParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.outer * p.inner));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* in = blk.map(p.in, p.n).data();
  T* out = blk.map(p.out, p.n).data();
  if constexpr (std::is_same_v<T, float>) {
    // Contiguous float32 rows (softmax over the last axis, the common case): SLEEF's exp. Each
    // element is read before its output is written, so in == out stays correct.
    if (p.inner == 1 && vmath::enabled()) {
      const size_t len = static_cast<size_t>(p.len);
      for (size_t line = r.first; line < r.last; ++line) {
        const float* x = in + line * len;
        float* y = out + line * len;
        const float mx = vmath::max_f32(x, len);
        if (p.log) {
          const float logsum = static_cast<float>(std::log(vmath::exp_shift_sum(x, nullptr, len, mx)));
          for (size_t j = 0; j < len; ++j) y[j] = (x[j] - mx) - logsum;
        } else {
          const float inv = static_cast<float>(1.0 / vmath::exp_shift_sum(x, y, len, mx));
          for (size_t j = 0; j < len; ++j) y[j] *= inv;
        }
      }
      return;
    }
  }
  for (size_t line = r.first; line < r.last; ++line) {
    const int64_t o = static_cast<int64_t>(line) / p.inner, i = static_cast<int64_t>(line) % p.inner;
    const int64_t base = o * p.len * p.inner + i;
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < p.len; ++j) mx = std::max(mx, static_cast<float>(C::load(in[base + j * p.inner])));
    double sum = 0.0;
    for (int64_t j = 0; j < p.len; ++j) sum += std::exp(static_cast<float>(C::load(in[base + j * p.inner])) - mx);
    const float inv = static_cast<float>(1.0 / sum), logsum = static_cast<float>(std::log(sum));
    for (int64_t j = 0; j < p.len; ++j) {
      const float x = static_cast<float>(C::load(in[base + j * p.inner])) - mx;
      out[base + j * p.inner] = C::store(p.log ? x - logsum : std::exp(x) * inv);
    }
  }
}

template <bool kLog>
Status run_softmax(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  // ONNX changed the operator at opset 13: before, the input is flattened to 2-D at `axis`
  // (default 1) and the softmax runs over everything from `axis` on; from 13, over `axis` alone
  // (default -1). The model importer passes the model's opset; aclopExecuteV2 callers may too.
  int64_t opset = 13;
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", 13, &opset));
  const bool flatten = opset < 13;
  int64_t axis_attr = flatten ? 1 : -1, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", axis_attr, &axis_attr));
  if (x.rank() == 0) return call.input_error("input must have at least one dimension");
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is outside [-" + std::to_string(x.rank()) + ", " +
                           std::to_string(x.rank()) + ")");
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  if (x.count() == 0) return Status::Ok();
  int64_t outer = 1, len = x.shape[axis], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d) (flatten ? len : inner) *= x.shape[d];
  Status st;
  const bool ok = dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    SoftmaxParams<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), x.count(), outer, len, inner, kLog};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), softmax_kernel<T>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32, float16)");
  return st;
}

// ---- LayerNormalization ----

template <class T>
struct LayerNormParams {
  const T* in;
  const T* scale;
  const T* bias;  // may be null
  T* out;
  float* mean;  // optional outputs, float32
  float* inv_std;
  int64_t lines, len;
  float epsilon;
  bool rms = false;  // RMSNormalization: no centring, the variance is the mean square
};

// A row's sum of (x - centre) or of its square: kLanes independent float partials, which the
// compiler vectorises (a double accumulator is one serial dependency chain), added into double
// every kChunk values so long rows keep float32 accuracy.
template <bool kSquare, class T>
double row_sum(const T* x, int64_t len, float centre) {
  using C = Compute<T>;
  constexpr int64_t kLanes = 16, kChunk = 1024;
  double total = 0.0;
  for (int64_t c0 = 0; c0 < len; c0 += kChunk) {
    const int64_t c1 = std::min(len, c0 + kChunk);
    float acc[kLanes] = {};
    int64_t j = c0;
    for (; j + kLanes <= c1; j += kLanes) {
      for (int64_t k = 0; k < kLanes; ++k) {
        const float d = static_cast<float>(C::load(x[j + k])) - centre;
        acc[k] += kSquare ? d * d : d;
      }
    }
    for (; j < c1; ++j) {
      const float d = static_cast<float>(C::load(x[j])) - centre;
      total += kSquare ? d * d : d;
    }
    for (float a : acc) total += a;
  }
  return total;
}

template <class T>
void layernorm_kernel(arun::Block blk, const LayerNormParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.lines));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const int64_t n = p.lines * p.len;
  const T* in = blk.map(p.in, n).data();
  const T* scale = blk.map(p.scale, p.len).data();
  const T* bias = p.bias != nullptr ? blk.map(p.bias, p.len).data() : nullptr;
  T* out = blk.map(p.out, n).data();
  float* mean_out = p.mean != nullptr ? blk.map(p.mean, p.lines).data() : nullptr;
  float* inv_out = p.inv_std != nullptr ? blk.map(p.inv_std, p.lines).data() : nullptr;
  for (size_t line = r.first; line < r.last; ++line) {
    const T* x = in + line * p.len;
    // Two passes over the row (it is in cache for the second): the centred sum of squares does
    // not cancel as sum(x^2) - n * mean^2 does.
    const float m = p.rms ? 0.0f : static_cast<float>(row_sum<false>(x, p.len, 0.0f) / double(p.len));
    const double var = row_sum<true>(x, p.len, m) / double(p.len);
    const float inv = static_cast<float>(1.0 / std::sqrt(var + p.epsilon));
    T* y = out + line * p.len;
    if (bias != nullptr) {
      for (int64_t j = 0; j < p.len; ++j) {
        const float v = (static_cast<float>(C::load(x[j])) - m) * inv;
        y[j] = C::store(v * static_cast<float>(C::load(scale[j])) + static_cast<float>(C::load(bias[j])));
      }
    } else {
      for (int64_t j = 0; j < p.len; ++j) {
        y[j] = C::store((static_cast<float>(C::load(x[j])) - m) * inv * static_cast<float>(C::load(scale[j])));
      }
    }
    if (mean_out != nullptr) mean_out[line] = m;
    if (inv_out != nullptr) inv_out[line] = inv;
  }
}

// `param` (Scale or B) must hold exactly the normalised trailing shape, leading 1s allowed.
bool fits_trailing(const Shape& param, const Shape& x, int64_t axis) {
  Shape p = param;
  while (p.size() > x.size() - axis && !p.empty() && p.front() == 1) p.erase(p.begin());
  return p == Shape(x.begin() + axis, x.end());
}

// LayerNormalization, or with kRms ONNX's RMSNormalization (X, scale; Y and, ours, an optional
// float32 InvStdDev output).
template <bool kRms>
Status run_layernorm(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, kRms ? 2 : 3));
  if (call.outputs.empty() || call.outputs.size() > (kRms ? 2 : 3)) {
    return call.output_error(std::string("produces ") +
                             (kRms ? "1 or 2 outputs (Y, InvStdDev)" : "1 to 3 outputs (Y, Mean, InvStdDev)") +
                             ", got " + std::to_string(call.outputs.size()));
  }
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  const Tensor& x = call.inputs[0];
  int64_t axis_attr = -1, axis = 0, stash = 1;
  float epsilon = 1e-5f;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", -1, &axis_attr));
  ARUN_RETURN_IF_ERROR(call.attr_float("epsilon", 1e-5f, &epsilon));
  ARUN_RETURN_IF_ERROR(call.attr_int("stash_type", 1, &stash));
  if (stash != 1) return call.attr_error("stash_type must be 1 (float32)");
  if (!(epsilon >= 0.0f)) return call.attr_error("epsilon must be >= 0");
  if (x.rank() == 0) return call.input_error("input must have at least one dimension");
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is outside [-" + std::to_string(x.rank()) + ", " +
                           std::to_string(x.rank()) + ")");
  }
  const Tensor& scale = call.inputs[1];
  if (!fits_trailing(scale.shape, x.shape, axis)) {
    return call.input_error("Scale " + shape_text(scale.shape) + " must have the normalised shape " +
                            shape_text(Shape(x.shape.begin() + axis, x.shape.end())));
  }
  const Tensor* bias = call.inputs.size() == 3 && call.inputs[2].present() ? &call.inputs[2] : nullptr;
  if (bias != nullptr && !fits_trailing(bias->shape, x.shape, axis)) {
    return call.input_error("B " + shape_text(bias->shape) + " must have the normalised shape " +
                            shape_text(Shape(x.shape.begin() + axis, x.shape.end())));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  Shape stat_shape(x.shape.begin(), x.shape.begin() + axis);
  stat_shape.resize(x.shape.size(), 1);
  for (size_t i = 1; i < call.outputs.size(); ++i) ARUN_RETURN_IF_ERROR(call.expect_output(i, ACL_FLOAT, stat_shape));
  int64_t lines = 1, len = 1;
  for (int64_t d = 0; d < axis; ++d) lines *= x.shape[d];
  for (int64_t d = axis; d < x.rank(); ++d) len *= x.shape[d];
  if (lines * len == 0) return Status::Ok();
  Status st;
  const bool ok = dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    LayerNormParams<T> p{ptr<T>(x),
                         ptr<T>(scale),
                         bias != nullptr ? ptr<T>(*bias) : nullptr,
                         ptr<T>(call.outputs[0]),
                         !kRms && call.outputs.size() > 1 ? ptr<float>(call.outputs[1]) : nullptr,
                         call.outputs.size() > (kRms ? 1 : 2) ? ptr<float>(call.outputs[kRms ? 1 : 2]) : nullptr,
                         lines,
                         len,
                         epsilon,
                         kRms};
    st = launch_op(call, call.blocks_for(lines * len, 1 << 14), layernorm_kernel<T>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32, float16)");
  return st;
}

// ---- ArgMax / ArgMin (ONNX, int64 output): the first extreme along one axis; NaN counts as the
// maximum and the minimum (PyTorch), the first NaN wins. One row = (outer, inner) pair. ----

struct ArgParams {
  const void* x;
  int64_t* out;
  int64_t n_in, outer, axis_dim, inner;
  bool last;  // select_last_index
};

template <class T, bool kMax>
void arg_kernel(arun::Block blk, const ArgParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.outer * p.inner));
  if (r.size() == 0) return;
  const T* x = blk.map(static_cast<const T*>(p.x), p.n_in).data();
  int64_t* o = blk.map(p.out, p.outer * p.inner).data();
  using C = Compute<T>;
  for (size_t row = r.first; row < r.last; ++row) {
    const int64_t a = static_cast<int64_t>(row) / p.inner, b = static_cast<int64_t>(row) % p.inner;
    const T* base = x + a * p.axis_dim * p.inner + b;
    auto best = C::load(base[0]);
    int64_t at = 0;
    for (int64_t k = 1; k < p.axis_dim; ++k) {
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(best)) break;
      }
      const auto v = C::load(base[k * p.inner]);
      bool take;
      if constexpr (!std::is_integral_v<T>) {
        take = std::isnan(v) || (kMax ? v > best : v < best) || (p.last && v == best);
      } else {
        take = (kMax ? v > best : v < best) || (p.last && v == best);
      }
      if (take) {
        best = v;
        at = k;
      }
    }
    o[row] = at;
  }
}

template <bool kMax>
Status run_arg(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  if (x.rank() > kMaxRank) return call.input_error("rank exceeds " + std::to_string(kMaxRank));
  int64_t axis_attr = 0, keepdims = 1, last = 0, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", 0, &axis_attr));
  ARUN_RETURN_IF_ERROR(call.attr_int("keepdims", 1, &keepdims));
  ARUN_RETURN_IF_ERROR(call.attr_int("select_last_index", 0, &last));
  if (x.rank() == 0 || !normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                           std::to_string(x.rank()));
  }
  Shape out_shape;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d < axis) outer *= x.shape[d];
    if (d > axis) inner *= x.shape[d];
    if (d != axis || keepdims != 0) out_shape.push_back(d == axis ? 1 : x.shape[d]);
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_INT64, out_shape));
  if (outer * inner == 0) return Status::Ok();
  if (x.shape[axis] == 0) return call.input_error("the arg of an empty axis has no value");
  Status st;
  const bool ok = dispatch_numeric(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    ArgParams p{x.data, ptr<int64_t>(call.outputs[0]), x.count(), outer, x.shape[axis], inner, last != 0};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), arg_kernel<T, kMax>, p);
  });
  if (!ok) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) +
                            " (float32, float16, float64, int32, int64)");
  }
  return st;
}

}  // namespace

void register_normalization(std::vector<OpDef>& defs) {
  defs.push_back({"Softmax", &run_softmax<false>, {"axis", "opset"}});
  defs.push_back({"LogSoftmax", &run_softmax<true>, {"axis", "opset"}});
  defs.push_back({"LayerNormalization", &run_layernorm<false>, {"axis", "epsilon", "stash_type"}});
  defs.push_back({"RMSNormalization", &run_layernorm<true>, {"axis", "epsilon", "stash_type"}});
  defs.push_back({"ArgMax", &run_arg<true>, {"axis", "keepdims", "select_last_index"}});
  defs.push_back({"ArgMin", &run_arg<false>, {"axis", "keepdims", "select_last_index"}});
}

}  // namespace arun::ops
