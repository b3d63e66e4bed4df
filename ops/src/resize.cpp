// Resize (opsets 10, 11, 13) and Upsample (opset 9: scales input), float32 and float16.
//
// Modes nearest (nearest_mode round_prefer_floor, round_prefer_ceil, floor, ceil) and linear
// (N-linear over every axis whose scale is not 1); coordinate_transformation_mode half_pixel,
// pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn. cubic and
// tf_crop_and_resize answer an attribute error. Resize-10 and Upsample use asymmetric coordinates
// and ONNX Runtime's "simple" nearest rounding (truncate when enlarging, ceil when shrinking).
// Upsample 7/8 take scales as a float-list attribute (from ONNX models only: aclop has no setter).
//
// The output shape comes from the output description; scales / sizes live in device memory, so
// the kernel reads them, checks that they give the described shape (floor(in * scale), as ONNX
// shape inference computes it in float) and builds per-axis source tables from them.
#include <algorithm>
#include <limits>

#include "kernel_common.hpp"

namespace arun::ops {
namespace {

enum class Coord { HalfPixel, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNn };
enum class Nearest { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };

template <class T>
struct ResizeParams {
  const T* in;
  T* out;
  int rank;
  int64_t in_dims[kMaxRank], out_dims[kMaxRank];
  const float* scales;          // kernel-read, or nullptr
  const int64_t* sizes;         // kernel-read, or nullptr
  float host_scales[kMaxRank];  // Upsample 7/8: the scales attribute (neither pointer set)
  bool linear;
  Coord coord;
  Nearest nearest;
  bool upsample;  // Upsample: scales must be >= 1
  int64_t n_in, n_out;
  std::string op;
};

double source_coord(Coord c, int64_t x, float scale, int64_t len_in, int64_t len_out) {
  const double s = scale;
  switch (c) {
    case Coord::HalfPixel:
      return (x + 0.5) / s - 0.5;
    case Coord::PytorchHalfPixel:
      return len_out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case Coord::AlignCorners:
      // The resized length is the output's (integer) size, as ONNX Runtime and PyTorch take it.
      // ONNX's own test case test_resize_downsample_scales_linear_align_corners takes the
      // unrounded len_in * scale instead; we follow the runtime models are checked against.
      return len_out == 1 ? 0.0 : double(x) * double(len_in - 1) / double(len_out - 1);
    case Coord::Asymmetric:
      return x / s;
    case Coord::TfHalfPixelForNn:
      return (x + 0.5) / s;
  }
  return 0.0;
}

int64_t nearest_index(Nearest m, double v, float scale) {
  switch (m) {
    case Nearest::RoundPreferFloor:
      return v == std::floor(v) + 0.5 ? int64_t(std::floor(v)) : int64_t(std::round(v));
    case Nearest::RoundPreferCeil:
      return int64_t(std::floor(v + 0.5));
    case Nearest::Floor:
      return int64_t(std::floor(v));
    case Nearest::Ceil:
      return int64_t(std::ceil(v));
    case Nearest::Simple:
      return scale < 1.0f ? int64_t(std::ceil(v)) : int64_t(v);
  }
  return 0;
}

// One output index along one axis: the two source indices and the weight of the second.
struct Tap {
  int64_t lo, hi;
  float w;
};

template <class T>
void resize_kernel(arun::Block blk, const ResizeParams<T>& p) {
  const int r = p.rank;
  float scale[kMaxRank];
  const Shape in_shape(p.in_dims, p.in_dims + r), out_shape(p.out_dims, p.out_dims + r);
  if (p.sizes != nullptr) {
    auto s = blk.map(p.sizes, static_cast<size_t>(r));
    const Shape got(s.data(), s.data() + r);
    if (got != out_shape) {
      blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
               (p.op + ": sizes " + shape_text(got) + " differ from the output description " + shape_text(out_shape))
                   .c_str());
    }
    for (int d = 0; d < r; ++d) scale[d] = p.in_dims[d] > 0 ? float(p.out_dims[d]) / float(p.in_dims[d]) : 1.0f;
  } else if (p.scales == nullptr) {
    std::copy(p.host_scales, p.host_scales + r, scale);  // checked on the host
  } else {
    auto s = blk.map(p.scales, static_cast<size_t>(r));
    Shape got(r);
    for (int d = 0; d < r; ++d) {
      const float v = s[d];
      if (!(v > 0.0f) || !std::isfinite(v) || (p.upsample && v < 1.0f)) {
        blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, (p.op + ": scale " + std::to_string(v) + " of axis " +
                                                std::to_string(d) + " must be " + (p.upsample ? ">= 1" : "positive"))
                                                   .c_str());
      }
      const float g = std::floor(float(p.in_dims[d]) * v);
      if (!(g < 9.0e15f)) blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, (p.op + ": scales overflow the output").c_str());
      got[d] = static_cast<int64_t>(g);
      scale[d] = v;
    }
    if (got != out_shape) {
      blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, (p.op + ": the scales give output " + shape_text(got) +
                                               ", the output description says " + shape_text(out_shape))
                                                  .c_str());
    }
  }
  const IndexRange range = blk.range(static_cast<size_t>(p.n_out));
  if (range.size() == 0) return;
  // Per-axis taps, clamped into the input.
  std::vector<Tap> taps;
  size_t at[kMaxRank];
  int active[kMaxRank];  // axes that interpolate (linear, some weight on a second source)
  int n_active = 0;
  for (int d = 0; d < r; ++d) {
    at[d] = taps.size();
    const int64_t len = p.in_dims[d];
    bool interp = false;
    for (int64_t o = 0; o < p.out_dims[d]; ++o) {
      const double x = source_coord(p.coord, o, scale[d], len, p.out_dims[d]);
      Tap t{0, 0, 0.0f};
      if (p.linear) {
        const double c = std::clamp(x, 0.0, double(len - 1));
        t.lo = std::min<int64_t>(static_cast<int64_t>(c), len - 1);
        t.hi = std::min<int64_t>(t.lo + 1, len - 1);
        t.w = t.hi == t.lo ? 0.0f : static_cast<float>(c - double(t.lo));
        interp = interp || t.w != 0.0f;
      } else {
        t.lo = t.hi = std::clamp<int64_t>(nearest_index(p.nearest, x, scale[d]), 0, len - 1);
      }
      taps.push_back(t);
    }
    if (interp) active[n_active++] = d;
  }
  int64_t in_stride[kMaxRank];
  for (int d = r - 1; d >= 0; --d) in_stride[d] = d == r - 1 ? 1 : in_stride[d + 1] * p.in_dims[d + 1];
  using C = Compute<T>;
  const T* in = blk.map(p.in, static_cast<size_t>(p.n_in)).data();
  T* out = blk.map(p.out, static_cast<size_t>(p.n_out)).data();
  // Row by row of the innermost dim: the outer dims give up to 2^k (offset, weight) corners, the
  // innermost dim's taps are read per column.
  const int last = r - 1;
  const int64_t width = p.out_dims[last];
  const Tap* col = &taps[at[last]];
  const bool last_active = n_active > 0 && active[n_active - 1] == last;
  const int n_outer = last_active ? n_active - 1 : n_active;
  std::vector<std::pair<int64_t, double>> corners;
  for (size_t i = range.first; i < range.last;) {
    int64_t row = static_cast<int64_t>(i) / width, base = 0;
    const int64_t c0 = static_cast<int64_t>(i) % width;
    const int64_t c1 = std::min<int64_t>(width, c0 + static_cast<int64_t>(range.last - i));
    const Tap* tap[kMaxRank];
    for (int d = last - 1; d >= 0; --d) {
      tap[d] = &taps[at[d] + row % p.out_dims[d]];
      row /= p.out_dims[d];
      base += tap[d]->lo * in_stride[d];
    }
    T* dst = out + i - c0;
    if (n_active == 0) {  // nearest (or scale 1 everywhere): a gather
      for (int64_t c = c0; c < c1; ++c) dst[c] = in[base + col[c].lo];
    } else {
      corners.clear();
      for (int corner = 0; corner < (1 << n_outer); ++corner) {
        double w = 1.0;
        int64_t off = base;
        for (int k = 0; k < n_outer; ++k) {
          const Tap& t = *tap[active[k]];
          if (corner & (1 << k)) {
            w *= t.w;
            off += (t.hi - t.lo) * in_stride[active[k]];
          } else {
            w *= 1.0 - t.w;
          }
        }
        if (w != 0.0) corners.emplace_back(off, w);
      }
      for (int64_t c = c0; c < c1; ++c) {
        const Tap& t = col[c];
        double acc = 0.0;
        for (const auto& [off, w] : corners) {
          const double lo = static_cast<double>(C::load(in[off + t.lo]));
          acc += last_active ? w * (lo + t.w * (static_cast<double>(C::load(in[off + t.hi])) - lo)) : w * lo;
        }
        dst[c] = C::store(static_cast<float>(acc));
      }
    }
    i += static_cast<size_t>(c1 - c0);
  }
}

template <bool kUpsample>
Status run_resize(const OpCall& call) {
  int64_t opset = 13;
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", kUpsample ? 9 : 13, &opset));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  std::string mode, coord_s, nearest_s;
  ARUN_RETURN_IF_ERROR(call.attr_string("mode", "nearest", &mode));
  // Before opset 11 (Resize-10, Upsample) there is no choice: asymmetric, "simple" rounding.
  const bool legacy = kUpsample || opset < 11;
  ARUN_RETURN_IF_ERROR(
      call.attr_string("coordinate_transformation_mode", legacy ? "asymmetric" : "half_pixel", &coord_s));
  ARUN_RETURN_IF_ERROR(call.attr_string("nearest_mode", "round_prefer_floor", &nearest_s));
  if (legacy && (call.has_attr("coordinate_transformation_mode") || call.has_attr("nearest_mode"))) {
    return call.attr_error("coordinate_transformation_mode and nearest_mode arrived at opset 11");
  }
  if (mode != "nearest" && mode != "linear") {
    return call.attr_error("mode '" + mode + "' is not supported (nearest, linear" +
                           (mode == "cubic" ? "; cubic is not implemented)" : ")"));
  }
  Coord coord;
  if (coord_s == "half_pixel")
    coord = Coord::HalfPixel;
  else if (coord_s == "pytorch_half_pixel")
    coord = Coord::PytorchHalfPixel;
  else if (coord_s == "align_corners")
    coord = Coord::AlignCorners;
  else if (coord_s == "asymmetric")
    coord = Coord::Asymmetric;
  else if (coord_s == "tf_half_pixel_for_nn")
    coord = Coord::TfHalfPixelForNn;
  else
    return call.attr_error("coordinate_transformation_mode '" + coord_s + "' is not supported");
  Nearest nearest;
  if (legacy)
    nearest = Nearest::Simple;
  else if (nearest_s == "round_prefer_floor")
    nearest = Nearest::RoundPreferFloor;
  else if (nearest_s == "round_prefer_ceil")
    nearest = Nearest::RoundPreferCeil;
  else if (nearest_s == "floor")
    nearest = Nearest::Floor;
  else if (nearest_s == "ceil")
    nearest = Nearest::Ceil;
  else
    return call.attr_error("nearest_mode '" + nearest_s + "' is not supported");
  // Inputs: X, scales (Upsample, Resize-10); X, roi, scales, sizes (Resize-11+, roi ignored:
  // it only matters for tf_crop_and_resize). roi and scales are formally required at opset 11,
  // but exporters write them as "" as often as empty tensors: both are taken.
  const bool two = kUpsample || opset < 11;
  const bool scales_attr = kUpsample && opset < 9;  // Upsample 7/8: a float-list attribute
  if (!scales_attr && call.has_attr("scales")) {
    return call.attr_error("opset " + std::to_string(opset) + " takes scales as an input, not an attribute");
  }
  std::vector<float> attr_scales;
  if (scales_attr) {
    ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
    if (!call.has_attr("scales")) return call.attr_error("attribute 'scales' is required before opset 9");
    ARUN_RETURN_IF_ERROR(call.attr_floats("scales", {}, &attr_scales));
  } else {
    ARUN_RETURN_IF_ERROR(two ? call.expect_inputs(2, 2) : call.expect_inputs(1, 4));
  }
  const Tensor& x = call.inputs[0];
  const Tensor& y = call.outputs[0];
  if (x.rank() == 0 || x.rank() > kMaxRank)
    return call.input_error("input rank must be 1 to " + std::to_string(kMaxRank));
  const size_t scales_at = two ? 1 : 2;
  const Tensor* scales =
      call.inputs.size() > scales_at && call.inputs[scales_at].present() ? &call.inputs[scales_at] : nullptr;
  const Tensor* sizes = !two && call.inputs.size() > 3 && call.inputs[3].present() ? &call.inputs[3] : nullptr;
  if (scales != nullptr && scales->count() == 0) scales = nullptr;  // an empty scales means "use sizes"
  if (scales_attr) {
    if (static_cast<int>(attr_scales.size()) != x.rank()) {
      return call.attr_error("scales has " + std::to_string(attr_scales.size()) + " entries for rank " +
                             std::to_string(x.rank()));
    }
    Shape want(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      const float v = attr_scales[d];
      if (!(v >= 1.0f) || !std::isfinite(v) || !(std::floor(float(x.shape[d]) * v) < 9.0e15f)) {
        return call.attr_error("scale " + std::to_string(v) + " of axis " + std::to_string(d) +
                               " must be finite and >= 1");
      }
      want[d] = static_cast<int64_t>(std::floor(float(x.shape[d]) * v));
    }
    ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, want));
  } else if ((scales == nullptr) == (sizes == nullptr)) {
    return call.input_error("exactly one of scales and sizes must be given");
  }
  if (scales != nullptr && (scales->dtype != ACL_FLOAT || scales->rank() != 1 || scales->count() != x.rank())) {
    return call.input_error("scales must be float32 with one entry per input axis (" + std::to_string(x.rank()) +
                            "), got " + shape_text(scales->shape) + " " + dtype_name(scales->dtype));
  }
  if (sizes != nullptr && (sizes->dtype != ACL_INT64 || sizes->rank() != 1 || sizes->count() != x.rank())) {
    return call.input_error("sizes must be int64 with one entry per input axis (" + std::to_string(x.rank()) +
                            "), got " + shape_text(sizes->shape) + " " + dtype_name(sizes->dtype));
  }
  if (y.dtype != x.dtype || y.rank() != x.rank()) {
    return call.output_error("output description " + shape_text(y.shape) + " " + dtype_name(y.dtype) +
                             " is no resize of input " + shape_text(x.shape) + " " + dtype_name(x.dtype));
  }
  if (x.count() == 0 && y.count() > 0) return call.input_error("cannot resize an empty input to a non-empty output");
  Status st;
  const bool ok = dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    ResizeParams<T> p{};
    p.in = ptr<T>(x);
    p.out = ptr<T>(y);
    p.rank = x.rank();
    for (int d = 0; d < x.rank(); ++d) {
      p.in_dims[d] = x.shape[d];
      p.out_dims[d] = y.shape[d];
    }
    p.scales = scales != nullptr ? ptr<const float>(*scales) : nullptr;
    p.sizes = sizes != nullptr ? ptr<const int64_t>(*sizes) : nullptr;
    std::copy(attr_scales.begin(), attr_scales.end(), p.host_scales);
    p.linear = mode == "linear";
    p.coord = coord;
    p.nearest = nearest;
    p.upsample = kUpsample;
    p.n_in = x.count();
    p.n_out = y.count();
    p.op = call.op;
    st = launch_op(call, call.blocks_for(y.count(), 1 << 12), resize_kernel<T>, std::move(p));
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32, float16)");
  return st;
}

}  // namespace

void register_resize(std::vector<OpDef>& defs) {
  defs.push_back({"Resize",
                  &run_resize<false>,
                  {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                   "extrapolation_value", "opset"}});
  defs.push_back({"Upsample", &run_resize<true>, {"mode", "scales", "opset"}});
}

}  // namespace arun::ops
