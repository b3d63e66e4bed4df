// MaxPool and AveragePool (1-D, 2-D and 3-D; kernel_shape, strides, pads, dilations, auto_pad,
// ceil_mode, count_include_pad), GlobalAveragePool and GlobalMaxPool (any spatial rank), float32
// and float16 (MaxPool also int8 / uint8). Each block takes whole output rows. MaxPool's optional Indices output
// (int64) is ONNX's flat index over the whole tensor (storage_order 0: row major within the plane, 1: column major), or
// with the extension attribute indices_per_plane = 1 (ours, for aclnn) PyTorch's row-major index within the plane; NaN
// wins the max. AveragePool's extension attribute divisor_override (ours, PyTorch's; 0 = off) replaces the divisor.
// Only the taps inside the input are visited, so huge pads cost nothing.
#include <algorithm>
#include <limits>
#include <vector>

#include "conv_geometry.hpp"

namespace arun::ops {
namespace {

template <class T>
struct PoolParams {
  const T* x;
  T* y;
  int64_t planes;
  Window win;
  bool max;
  bool include_pad;
  int64_t* indices = nullptr;  // MaxPool's Indices output, or null
  bool per_plane = false;      // indices within the plane (PyTorch) instead of the whole tensor (ONNX)
  bool col_major = false;      // storage_order 1
  int64_t divisor = 0;         // AveragePool's divisor override, 0 = off
};

// The stored result: int8 / uint8 MaxPool values are exact in float, and an all-padding window's
// -inf becomes the type's lowest value (a float-to-integer conversion of -inf is undefined).
template <class T>
T pool_store(float v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::clamp(v, float(std::numeric_limits<T>::lowest()), float(std::numeric_limits<T>::max())));
  } else {
    return Compute<T>::store(v);
  }
}

// One output row's inner columns (every tap inside the input along x), separably: first down the
// window's rows, element by element over the contiguous input span the columns read, then across,
// tap by tap over all n outputs. Both loops vectorise, with a select where the max would branch (on
// real activations "v > best" is a coin toss). Max: the first maximum in the order (kx, then the
// rows) and a NaN wins, so values equal the per-output path's (only which of +0 / -0 ties, or which
// NaN payload, may differ; ONNX leaves both open). Averages sum in double.
struct SeparableRow {
  int64_t span;  // input columns reduced down the window (from the row pointers on)
  int64_t x0;    // where the first inner output's window starts within them
  int64_t n, sx, kw, dx;
  double div;  // AveragePool's divisor of an inner output
};

// b, or v where v is larger or a NaN, unless b is a NaN already.
__attribute__((always_inline)) inline float max_step(float b, float v) {
  return (b != b || !(v > b || v != v)) ? b : v;
}

template <class T, bool kMax, class Acc>
__attribute__((always_inline)) inline void separable_loops(const T* const* rows, size_t nrows, const SeparableRow& g,
                                                           Acc* __restrict down, Acc* __restrict across,
                                                           T* __restrict y) {
  using C = Compute<T>;
  const int64_t span = g.span;
  for (int64_t j = 0; j < span; ++j) down[j] = static_cast<float>(C::load(rows[0][j]));
  for (size_t r = 1; r < nrows; ++r) {
    const T* __restrict x = rows[r];
    for (int64_t j = 0; j < span; ++j) {
      const float v = static_cast<float>(C::load(x[j]));
      if constexpr (kMax) {
        down[j] = max_step(down[j], v);
      } else {
        down[j] += v;
      }
    }
  }
  const Acc* inner = down + g.x0;
  for (int64_t i = 0; i < g.n; ++i) across[i] = inner[i * g.sx];
  for (int64_t kx = 1; kx < g.kw; ++kx) {
    const Acc* __restrict d = inner + kx * g.dx;
    for (int64_t i = 0; i < g.n; ++i) {
      if constexpr (kMax) {
        across[i] = max_step(across[i], d[i * g.sx]);
      } else {
        across[i] += d[i * g.sx];
      }
    }
  }
  // The average by multiplying with the divisor's reciprocal in double: a division per output was
  // a sixth of the pass, and the float result can differ only where the double quotient lies
  // within one double ulp of a float rounding boundary.
  const double inv = 1.0 / g.div;
  for (int64_t i = 0; i < g.n; ++i) {
    if constexpr (kMax) {
      y[i] = pool_store<T>(across[i]);
    } else {
      y[i] = pool_store<T>(static_cast<float>(across[i] * inv));
    }
  }
}

// Float32, the common case, is compiled twice, for AVX2 and for the baseline x86-64 the library
// targets, and picked once by what the CPU has (not target_clones: conv.cpp's taps_row says why);
// the other types take the baseline.
template <bool kMax, class Acc>
__attribute__((target("avx2"))) void separable_f32_avx2(const float* const* rows, size_t nrows, const SeparableRow& g,
                                                        Acc* down, Acc* across, float* y) {
  separable_loops<float, kMax>(rows, nrows, g, down, across, y);
}

template <bool kMax, class Acc>
void separable_f32_baseline(const float* const* rows, size_t nrows, const SeparableRow& g, Acc* down, Acc* across,
                            float* y) {
  separable_loops<float, kMax>(rows, nrows, g, down, across, y);
}

template <class T, bool kMax, class Acc>
void separable_row(const std::vector<const T*>& rows, const SeparableRow& g, Acc* down, Acc* across, T* y) {
  if constexpr (std::is_same_v<T, float>) {
    using Fn = void (*)(const float* const*, size_t, const SeparableRow&, Acc*, Acc*, float*);
    static const Fn fn =
        __builtin_cpu_supports("avx2") ? &separable_f32_avx2<kMax, Acc> : &separable_f32_baseline<kMax, Acc>;
    fn(rows.data(), rows.size(), g, down, across, y);
  } else {
    separable_loops<T, kMax>(rows.data(), rows.size(), g, down, across, y);
  }
}

template <class T>
void pool_kernel(arun::Block blk, const PoolParams<T>& p) {
  const Window& wn = p.win;
  const int64_t od = wn.out[0], oh = wn.out[1], ow = wn.out[2];
  const int64_t id = wn.in[0], ih = wn.in[1], iw = wn.in[2], ivol = wn.in_count(), ovol = wn.out_count();
  const IndexRange r = blk.range(static_cast<size_t>(p.planes * od * oh));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* x = blk.map(p.x, p.planes * ivol).data();
  T* y = blk.map(p.y, p.planes * ovol).data();
  int64_t* ind = p.indices != nullptr ? blk.map(p.indices, p.planes * ovol).data() : nullptr;
  const int64_t kw = wn.kernel[2], sx = wn.stride[2], dx = wn.dilation[2], pl = wn.pad_begin[2];
  // The output columns whose taps along x all lie inside the input: [xa, xb).
  const int64_t xa = std::min(ow, (pl + sx - 1) / sx);
  const int64_t last_start = iw - 1 - (kw - 1) * dx + pl;  // the largest ox * sx whose window fits
  const int64_t xb = last_start < 0 ? xa : std::clamp(last_start / sx + 1, xa, ow);
  // The separable pass's rows: reduced down the window (one element per input column the inner
  // outputs read), then across it (one per output).
  std::vector<float> down(p.max ? static_cast<size_t>(iw) : 0), across(p.max ? static_cast<size_t>(ow) : 0);
  std::vector<double> down_sum(p.max ? 0 : static_cast<size_t>(iw)), across_sum(p.max ? 0 : static_cast<size_t>(ow));
  std::vector<const T*> rows;
  for (size_t row = r.first; row < r.last; ++row) {
    const int64_t plane = static_cast<int64_t>(row) / (od * oh);
    const int64_t oz = static_cast<int64_t>(row) / oh % od, oy = static_cast<int64_t>(row) % oh;
    const T* xp = x + plane * ivol;
    T* yr = y + row * ow;
    int64_t lo[3], hi[3];
    const int64_t s0 = oz * wn.stride[0] - wn.pad_begin[0], s1 = oy * wn.stride[1] - wn.pad_begin[1];
    window_taps(s0, wn.kernel[0], wn.dilation[0], id, &lo[0], &hi[0]);
    window_taps(s1, wn.kernel[1], wn.dilation[1], ih, &lo[1], &hi[1]);
    // Taps in the padding count for count_include_pad; beyond it (ceil_mode) they never do. In
    // double: three windows of 2^30 would overflow int64.
    auto covered = [&](int d, int64_t s) {
      const int64_t room = wn.in[d] + wn.pad_end[d] - s;
      return room <= 0 ? 0.0 : double(std::min<int64_t>(wn.kernel[d], (room + wn.dilation[d] - 1) / wn.dilation[d]));
    };
    const double covered_zy = covered(0, s0) * covered(1, s1);
    const double valid_zy = double((hi[0] - lo[0]) * (hi[1] - lo[1]));
    // The divisor of an output whose window starts at s2 and has taps [l, h) inside along x.
    auto divisor = [&](int64_t s2, int64_t l, int64_t h) {
      return p.divisor != 0  ? double(p.divisor)
             : p.include_pad ? std::max(covered_zy * covered(2, s2), 1.0)
                             : std::max(valid_zy * double(h - l), 1.0);
    };
    // One output, any window: bounds per tap, the index.
    auto one = [&](int64_t ox) {
      const int64_t s2 = ox * sx - pl;
      window_taps(s2, kw, dx, iw, &lo[2], &hi[2]);
      float best = -std::numeric_limits<float>::infinity();
      int64_t best_at = -1;
      double sum = 0.0;
      for (int64_t kz = lo[0]; kz < hi[0]; ++kz) {
        const int64_t iz = s0 + kz * wn.dilation[0];
        for (int64_t ky = lo[1]; ky < hi[1]; ++ky) {
          const int64_t iy = s1 + ky * wn.dilation[1];
          const T* xr = xp + (iz * ih + iy) * iw;
          for (int64_t kx = lo[2]; kx < hi[2]; ++kx) {
            const int64_t ix = s2 + kx * dx;
            const float v = static_cast<float>(C::load(xr[ix]));
            // The first maximum wins; a NaN is the maximum (and the first NaN stays).
            if (best_at < 0 || (!std::isnan(best) && (v > best || std::isnan(v)))) {
              best = v;
              best_at = p.col_major ? iz + id * (iy + ih * ix) : (iz * ih + iy) * iw + ix;
            }
            sum += v;
          }
        }
      }
      const float v = p.max ? best : static_cast<float>(sum / divisor(s2, lo[2], hi[2]));
      yr[ox] = pool_store<T>(v);
      if (ind != nullptr) ind[row * ow + ox] = best_at < 0 ? 0 : best_at + (p.per_plane ? 0 : plane * ivol);
    };
    if (ind != nullptr || hi[0] == lo[0] || hi[1] == lo[1]) {
      for (int64_t ox = 0; ox < ow; ++ox) one(ox);
      continue;
    }
    if (!p.max && xa == 0 && xb == 1 && ow == 1 && dx == 1 && kw >= 16) {
      // One output over a long contiguous row (GlobalAveragePool): eight partial sums in double
      // vectorise where one serial accumulator would not.
      double part[8] = {};
      for (int64_t kz = lo[0]; kz < hi[0]; ++kz) {
        for (int64_t ky = lo[1]; ky < hi[1]; ++ky) {
          const T* xr = xp - pl + ((s0 + kz * wn.dilation[0]) * ih + s1 + ky * wn.dilation[1]) * iw;
          int64_t kx = 0;
          for (; kx + 8 <= kw; kx += 8) {
            for (int j = 0; j < 8; ++j) part[j] += static_cast<float>(C::load(xr[kx + j]));
          }
          for (; kx < kw; ++kx) part[kx % 8] += static_cast<float>(C::load(xr[kx]));
        }
      }
      const double sum = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
      yr[0] = pool_store<T>(static_cast<float>(sum / divisor(-pl, 0, kw)));
      continue;
    }
    // Every column from the window's rows reduced down (separable_row), with the inner columns
    // [xa, xb) then reduced across in the same call; the border columns, whose taps along x are
    // partly outside, across here from the same reduced row. No per-output bounds in z and y, no
    // branch on the max (a select: on real activations "v > best" is a coin toss).
    rows.clear();
    for (int64_t kz = lo[0]; kz < hi[0]; ++kz) {
      const int64_t iz = s0 + kz * wn.dilation[0];
      for (int64_t ky = lo[1]; ky < hi[1]; ++ky) rows.push_back(xp + (iz * ih + s1 + ky * wn.dilation[1]) * iw);
    }
    const SeparableRow g{iw, xa * sx - pl, xb - xa, sx, kw, dx, divisor(xa * sx - pl, 0, kw)};
    if (p.max) {
      separable_row<T, true>(rows, g, down.data(), across.data(), yr + xa);
    } else {
      separable_row<T, false>(rows, g, down_sum.data(), across_sum.data(), yr + xa);
    }
    auto border = [&](int64_t ox) {
      const int64_t s2 = ox * sx - pl;
      int64_t l, h;
      window_taps(s2, kw, dx, iw, &l, &h);
      if (p.max) {
        float b = -std::numeric_limits<float>::infinity();
        for (int64_t kx = l; kx < h; ++kx) b = kx == l ? down[s2 + kx * dx] : max_step(b, down[s2 + kx * dx]);
        yr[ox] = pool_store<T>(b);
      } else {
        double sum = 0.0;
        for (int64_t kx = l; kx < h; ++kx) sum += down_sum[s2 + kx * dx];
        yr[ox] = pool_store<T>(static_cast<float>(sum / divisor(s2, l, h)));
      }
    };
    for (int64_t ox = 0; ox < xa; ++ox) border(ox);
    for (int64_t ox = xb; ox < ow; ++ox) border(ox);
  }
}

template <bool kMax, bool kGlobal>
Status run_pool(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  if (call.outputs.empty() || call.outputs.size() > (kMax && !kGlobal ? 2u : 1u)) {
    return call.output_error(kMax && !kGlobal ? "produces Y and an optional Indices output" : "produces one output");
  }
  const Tensor& x = call.inputs[0];
  // MaxPool also takes int8 / uint8 (opset 12): their values pass through float exactly.
  constexpr bool kInt8 = kMax && !kGlobal;
  const bool int8 = kInt8 && (x.dtype == ACL_INT8 || x.dtype == ACL_UINT8);
  if (x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16 && !int8) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) +
                            (kInt8 ? " (float32, float16, int8, uint8)" : " (float32, float16)"));
  }
  Window win;
  int64_t include_pad = 0, per_plane = 0, divisor = 0, order = 0;
  Shape out_shape;
  if (kGlobal) {
    if (x.rank() < 2 || x.rank() > kMaxRank) {
      return call.input_error("X must be N x C x spatial.. (rank 2 to 8), got " + shape_text(x.shape));
    }
    // Any spatial rank: the spatial dims pool as one.
    win.rank = 1;
    win.in[2] = win.kernel[2] = numel(Shape(x.shape.begin() + 2, x.shape.end()));
    if (win.in[2] == 0) return call.input_error("X " + shape_text(x.shape) + " has no spatial elements to pool");
    out_shape = x.shape;
    std::fill(out_shape.begin() + 2, out_shape.end(), 1);
  } else {
    if (x.rank() < 3 || x.rank() > 5) {
      return call.input_error("1-D to 3-D pooling only: X must be 3-D, 4-D or 5-D (N C spatial..), got " +
                              shape_text(x.shape));
    }
    const int spatial = x.rank() - 2;
    std::vector<int64_t> kshape;
    if (!call.has_attr("kernel_shape")) return call.attr_error("attribute 'kernel_shape' is required");
    ARUN_RETURN_IF_ERROR(window_attr(call, "kernel_shape", static_cast<size_t>(spatial), 1, {}, &kshape));
    if (kMax) {
      ARUN_RETURN_IF_ERROR(call.attr_int("storage_order", 0, &order));
      if (order != 0 && order != 1) return call.attr_error("storage_order must be 0 (row major) or 1 (column major)");
      ARUN_RETURN_IF_ERROR(call.attr_int("indices_per_plane", 0, &per_plane));
    } else {
      ARUN_RETURN_IF_ERROR(call.attr_int("count_include_pad", 0, &include_pad));
      ARUN_RETURN_IF_ERROR(call.attr_int("divisor_override", 0, &divisor));
      if (divisor < 0) return call.attr_error("divisor_override must be >= 0");
    }
    ARUN_RETURN_IF_ERROR(window_nd(call, spatial, x.shape.data() + 2, kshape.data(), true, &win));
    out_shape = win.out_shape(x.shape[0], x.shape[1]);
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out_shape));
  if (call.outputs.size() == 2) ARUN_RETURN_IF_ERROR(call.expect_output(1, ACL_INT64, out_shape));
  const int64_t planes = x.shape[0] * x.shape[1];
  if (planes * win.out_count() == 0) return Status::Ok();
  Status st;
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    PoolParams<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), planes, win, kMax, include_pad != 0};
    p.indices = call.outputs.size() == 2 ? ptr<int64_t>(call.outputs[1]) : nullptr;
    p.per_plane = per_plane != 0;
    p.col_major = order == 1;
    p.divisor = divisor;
    // Only the taps inside the input are visited: at most min(kernel, input) per dim.
    int64_t taps = 1;
    for (int d = 0; d < kMaxSpatial; ++d) taps *= std::min(win.kernel[d], win.in[d]);
    const int64_t work = planes * win.out_count() * taps;
    st = launch_op(call, call.blocks_for(work, 1 << 16), pool_kernel<T>, p);
  };
  if constexpr (kInt8) {
    if (x.dtype == ACL_INT8) launch(int8_t{});
    if (x.dtype == ACL_UINT8) launch(uint8_t{});
  }
  if (!int8) dispatch_float(x.dtype, launch);
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
  defs.push_back({"GlobalMaxPool", &run_pool<true, true>, {}});
}

}  // namespace arun::ops
