// MaxPool and AveragePool (2-D, NCHW; kernel_shape, strides, pads, dilations, auto_pad, ceil_mode,
// count_include_pad) and GlobalAveragePool, float32 and float16. Each block takes whole output rows.
// MaxPool's optional Indices output (int64) is ONNX's flat index over the whole tensor, or with the
// extension attribute indices_per_plane = 1 (ours, for aclnn) PyTorch's h * W + w within the plane;
// NaN wins the max. AveragePool's extension attribute divisor_override (ours, PyTorch's; 0 = off)
// replaces the divisor.
#include <algorithm>
#include <limits>

#include "conv_geometry.hpp"

namespace arun::ops {
namespace {

template <class T>
struct PoolParams {
  const T* x;
  T* y;
  int64_t planes, h, w;
  Window2d win;
  bool max;
  bool include_pad;
  bool inside;  // every window lies inside the input (no padding reached, no dilation)
  int64_t* indices = nullptr;  // MaxPool's Indices output, or null
  bool per_plane = false;      // indices within the plane (PyTorch) instead of the whole tensor (ONNX)
  int64_t divisor = 0;         // AveragePool's divisor override, 0 = off
};

template <class T>
void pool_kernel(arun::Block blk, const PoolParams<T>& p) {
  const int64_t oh = p.win.out[0], ow = p.win.out[1];
  const IndexRange r = blk.range(static_cast<size_t>(p.planes * oh));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* x = blk.map(p.x, p.planes * p.h * p.w).data();
  T* y = blk.map(p.y, p.planes * oh * ow).data();
  int64_t* ind = p.indices != nullptr ? blk.map(p.indices, p.planes * oh * ow).data() : nullptr;
  if (p.max && p.inside && ind == nullptr) {
    // The common MaxPool: no bounds checks, no averaging state.
    const int64_t kh = p.win.kernel[0], kw = p.win.kernel[1], sy = p.win.stride[0], sx = p.win.stride[1];
    for (size_t row = r.first; row < r.last; ++row) {
      const int64_t plane = static_cast<int64_t>(row) / oh, oy = static_cast<int64_t>(row) % oh;
      const T* xr = x + plane * p.h * p.w + oy * sy * p.w;
      T* yr = y + row * ow;
      for (int64_t ox = 0; ox < ow; ++ox) {
        const T* xw = xr + ox * sx;
        float best = static_cast<float>(C::load(xw[0]));
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            const float v = static_cast<float>(C::load(xw[ky * p.w + kx]));
            if (v > best || std::isnan(v)) best = std::isnan(best) ? best : v;
          }
        }
        yr[ox] = C::store(best);
      }
    }
    return;
  }
  for (size_t row = r.first; row < r.last; ++row) {
    const int64_t plane = static_cast<int64_t>(row) / oh, oy = static_cast<int64_t>(row) % oh;
    const T* xp = x + plane * p.h * p.w;
    for (int64_t ox = 0; ox < ow; ++ox) {
      const int64_t y0 = oy * p.win.stride[0] - p.win.pad_begin[0];
      const int64_t x0 = ox * p.win.stride[1] - p.win.pad_begin[1];
      float best = -std::numeric_limits<float>::infinity();
      int64_t best_at = -1;
      double sum = 0.0;
      int64_t valid = 0, covered = 0;
      for (int64_t ky = 0; ky < p.win.kernel[0]; ++ky) {
        const int64_t iy = y0 + ky * p.win.dilation[0];
        for (int64_t kx = 0; kx < p.win.kernel[1]; ++kx) {
          const int64_t ix = x0 + kx * p.win.dilation[1];
          // Positions in the padding count for count_include_pad; beyond it (ceil_mode) they never do.
          if (iy < p.h + p.win.pad_end[0] && ix < p.w + p.win.pad_end[1]) ++covered;
          if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
          const float v = static_cast<float>(C::load(xp[iy * p.w + ix]));
          // The first maximum wins; a NaN is the maximum (and the first NaN stays).
          if (best_at < 0 || (!std::isnan(best) && (v > best || std::isnan(v)))) {
            best = v;
            best_at = iy * p.w + ix;
          }
          sum += v;
          ++valid;
        }
      }
      const int64_t div = p.divisor != 0 ? p.divisor : p.include_pad ? covered : std::max<int64_t>(valid, 1);
      const float v = p.max ? best : static_cast<float>(sum / double(div));
      y[row * ow + ox] = C::store(v);
      if (ind != nullptr) ind[row * ow + ox] = best_at < 0 ? 0 : best_at + (p.per_plane ? 0 : plane * p.h * p.w);
    }
  }
}

template <bool kMax, bool kGlobal>
Status run_pool(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  if (call.outputs.empty() || call.outputs.size() > (kMax && !kGlobal ? 2u : 1u)) {
    return call.output_error(kMax ? "produces Y and an optional Indices output" : "produces one output");
  }
  const Tensor& x = call.inputs[0];
  if (x.rank() != 4) return call.input_error("only 2-D pooling: X must be 4-D (NCHW), got " + shape_text(x.shape));
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  Window2d win;
  int64_t include_pad = 0, per_plane = 0, divisor = 0;
  if (kGlobal) {
    win.kernel[0] = in[0];
    win.kernel[1] = in[1];
    win.out[0] = win.out[1] = 1;
  } else {
    std::vector<int64_t> kshape;
    if (!call.has_attr("kernel_shape")) return call.attr_error("attribute 'kernel_shape' is required");
    ARUN_RETURN_IF_ERROR(call.attr_ints("kernel_shape", {}, &kshape));
    if (kshape.size() != 2 || kshape[0] < 1 || kshape[1] < 1) {
      return call.attr_error("kernel_shape must be 2 values >= 1, got " + shape_text(kshape));
    }
    if (kMax) {
      int64_t order = 0;
      ARUN_RETURN_IF_ERROR(call.attr_int("storage_order", 0, &order));
      if (order != 0) return call.attr_error("storage_order must be 0 (row major)");
      ARUN_RETURN_IF_ERROR(call.attr_int("indices_per_plane", 0, &per_plane));
    } else {
      ARUN_RETURN_IF_ERROR(call.attr_int("count_include_pad", 0, &include_pad));
      ARUN_RETURN_IF_ERROR(call.attr_int("divisor_override", 0, &divisor));
      if (divisor < 0) return call.attr_error("divisor_override must be >= 0");
    }
    const int64_t kernel[2] = {kshape[0], kshape[1]};
    ARUN_RETURN_IF_ERROR(window_2d(call, in, kernel, true, &win));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, {x.shape[0], x.shape[1], win.out[0], win.out[1]}));
  if (call.outputs.size() == 2) {
    ARUN_RETURN_IF_ERROR(call.expect_output(1, ACL_INT64, {x.shape[0], x.shape[1], win.out[0], win.out[1]}));
  }
  const int64_t planes = x.shape[0] * x.shape[1];
  if (planes * win.out[0] * win.out[1] == 0) return Status::Ok();
  Status st;
  const bool ok = dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    bool inside = win.dilation[0] == 1 && win.dilation[1] == 1 && win.pad_begin[0] == 0 && win.pad_begin[1] == 0;
    for (int d = 0; d < 2; ++d) inside = inside && (win.out[d] - 1) * win.stride[d] + win.kernel[d] <= in[d];
    PoolParams<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), planes, in[0], in[1], win, kMax, include_pad != 0, inside};
    p.indices = call.outputs.size() == 2 ? ptr<int64_t>(call.outputs[1]) : nullptr;
    p.per_plane = per_plane != 0;
    p.divisor = divisor;
    const int64_t work = planes * win.out[0] * win.out[1] * win.kernel[0] * win.kernel[1];
    st = launch_op(call, call.blocks_for(work, 1 << 16), pool_kernel<T>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32, float16)");
  return st;
}

}  // namespace

void register_pool(std::vector<OpDef>& defs) {
  defs.push_back({"MaxPool",
                  &run_pool<true, false>,
                  {"auto_pad", "ceil_mode", "dilations", "indices_per_plane", "kernel_shape", "pads", "storage_order",
                   "strides"}});
  defs.push_back({"AveragePool",
                  &run_pool<false, false>,
                  {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "divisor_override", "kernel_shape",
                   "pads", "strides"}});
  defs.push_back({"GlobalAveragePool", &run_pool<false, true>, {}});
}

}  // namespace arun::ops
