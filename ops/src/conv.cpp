// Conv (2-D, NCHW, float32): strides, pads, dilations, group, auto_pad, optional bias. Lowered to
// im2col + sgemm per (image, group, column tile); a 1x1 stride-1 unpadded convolution skips the
// im2col and multiplies the input directly. Items are spread over the blocks like MatMul's tiles.
// ConvTranspose (2-D, float32, no auto_pad / output_shape) is a direct gather per output element;
// a 3-D Conv (NCDHW, no auto_pad) a direct loop per output element.
#include <cblas.h>

#include <algorithm>

#include "conv_geometry.hpp"
#include "onednn_conv.hpp"

namespace arun::ops {

Status window_2d(const OpCall& call, const int64_t in[2], const int64_t kernel[2], bool allow_ceil, Window2d* w) {
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;
  int64_t ceil_mode = 0;
  ARUN_RETURN_IF_ERROR(call.attr_ints("strides", {1, 1}, &strides));
  ARUN_RETURN_IF_ERROR(call.attr_ints("dilations", {1, 1}, &dilations));
  ARUN_RETURN_IF_ERROR(call.attr_ints("pads", {0, 0, 0, 0}, &pads));
  ARUN_RETURN_IF_ERROR(call.attr_string("auto_pad", "NOTSET", &auto_pad));
  if (allow_ceil) ARUN_RETURN_IF_ERROR(call.attr_int("ceil_mode", 0, &ceil_mode));
  if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1) {
    return call.attr_error("strides must be 2 values >= 1, got " + shape_text(strides));
  }
  if (dilations.size() != 2 || dilations[0] < 1 || dilations[1] < 1) {
    return call.attr_error("dilations must be 2 values >= 1, got " + shape_text(dilations));
  }
  if (pads.size() != 4 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0) {
    return call.attr_error("pads must be 4 values >= 0 (top, left, bottom, right), got " + shape_text(pads));
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return call.attr_error("auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got \"" + auto_pad + "\"");
  }
  if (ceil_mode != 0 && ceil_mode != 1) return call.attr_error("ceil_mode must be 0 or 1");
  // Bounded so that the window arithmetic below cannot overflow.
  constexpr int64_t kLimit = int64_t(1) << 30;
  for (const auto* list : {&strides, &dilations, &pads}) {
    for (int64_t v : *list) {
      if (v > kLimit) return call.attr_error("strides, dilations and pads must be at most 2^30");
    }
  }
  if (kernel[0] > kLimit || kernel[1] > kLimit) return call.attr_error("kernel_shape must be at most 2^30");
  for (int d = 0; d < 2; ++d) {
    w->kernel[d] = kernel[d];
    w->stride[d] = strides[d];
    w->dilation[d] = dilations[d];
    const int64_t span = dilations[d] * (kernel[d] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w->out[d] = (in[d] + strides[d] - 1) / strides[d];
      const int64_t total = std::max<int64_t>(0, (w->out[d] - 1) * strides[d] + span - in[d]);
      w->pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w->pad_end[d] = total - w->pad_begin[d];
      continue;
    }
    w->pad_begin[d] = auto_pad == "VALID" ? 0 : pads[d];
    w->pad_end[d] = auto_pad == "VALID" ? 0 : pads[d + 2];
    const int64_t room = in[d] + w->pad_begin[d] + w->pad_end[d] - span;
    if (room < 0) {
      return call.input_error("window " + std::to_string(span) + " is larger than the padded input " +
                              std::to_string(in[d] + w->pad_begin[d] + w->pad_end[d]));
    }
    w->out[d] = (ceil_mode ? (room + strides[d] - 1) / strides[d] : room / strides[d]) + 1;
    // With ceil_mode the last window must still start inside the input or its leading padding.
    if (ceil_mode && (w->out[d] - 1) * strides[d] >= in[d] + w->pad_begin[d]) --w->out[d];
  }
  return Status::Ok();
}

namespace {

struct ConvParams {
  const float* x;
  const float* w;
  const float* bias;  // may be null
  float* y;
  int64_t n, c, h, wd;  // input
  int64_t m, group;     // output channels, groups
  Window2d win;
  int64_t col_tiles, tile_cols;
  bool direct;  // 1x1, stride 1, no padding: the input is already the column matrix
};

void conv_kernel(arun::Block blk, const ConvParams& p) {
  const int64_t items = p.n * p.group * p.col_tiles;
  const IndexRange r = blk.range(static_cast<size_t>(items));
  if (r.size() == 0) return;
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  const int64_t kh = p.win.kernel[0], kw = p.win.kernel[1];
  const int64_t oh = p.win.out[0], ow = p.win.out[1], plane = oh * ow;
  const int64_t kc = cg * kh * kw;
  const float* x = blk.map(p.x, p.n * p.c * p.h * p.wd).data();
  const float* w = blk.map(p.w, p.m * kc).data();
  const float* bias = p.bias != nullptr ? blk.map(p.bias, p.m).data() : nullptr;
  float* y = blk.map(p.y, p.n * p.m * plane).data();
  std::vector<float> col;  // this block's im2col scratch (its local memory)
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t tile = static_cast<int64_t>(item) % p.col_tiles;
    const int64_t ng = static_cast<int64_t>(item) / p.col_tiles;
    const int64_t img = ng / p.group, g = ng % p.group;
    const int64_t c0 = tile * p.tile_cols, c1 = std::min(plane, c0 + p.tile_cols), cols = c1 - c0;
    if (cols <= 0) continue;
    const float* xg = x + (img * p.c + g * cg) * p.h * p.wd;
    const float* b;
    int ldb;
    if (p.direct) {
      b = xg + c0;
      ldb = static_cast<int>(plane);
    } else {
      col.assign(static_cast<size_t>(kc * cols), 0.0f);
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            float* row = col.data() + ((ci * kh + ky) * kw + kx) * cols;
            const float* xc = xg + ci * p.h * p.wd;
            // One output row segment at a time: no division per element.
            const int64_t ix_off = kx * p.win.dilation[1] - p.win.pad_begin[1], sx = p.win.stride[1];
            for (int64_t o = c0; o < c1;) {
              const int64_t oy = o / ow, ox0 = o % ow, seg = std::min(ow - ox0, c1 - o);
              const int64_t iy = oy * p.win.stride[0] - p.win.pad_begin[0] + ky * p.win.dilation[0];
              if (iy >= 0 && iy < p.h) {
                const float* src = xc + iy * p.wd;
                float* dst = row + (o - c0);
                for (int64_t j = 0; j < seg; ++j) {
                  const int64_t ix = (ox0 + j) * sx + ix_off;
                  if (ix >= 0 && ix < p.wd) dst[j] = src[ix];
                }
              }
              o += seg;
            }
          }
      b = col.data();
      ldb = static_cast<int>(cols);
    }
    float* out = y + (img * p.m + g * mg) * plane + c0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(mg), static_cast<int>(cols),
                static_cast<int>(kc), 1.0f, w + g * mg * kc, static_cast<int>(kc), b, ldb, 0.0f, out,
                static_cast<int>(plane));
    if (bias != nullptr) {
      for (int64_t oc = 0; oc < mg; ++oc) {
        const float bv = bias[g * mg + oc];
        for (int64_t o = 0; o < cols; ++o) out[oc * plane + o] += bv;
      }
    }
  }
}

// The same convolution on oneDNN: items are (image, chunk of output channels) with one group, or
// (image, chunk of groups); each runs one cached primitive on its slice of the NCHW tensors, whose
// channel ranges are contiguous.
struct OneDnnConvParams {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  int64_t n;
  OneDnnConv2d whole;  // one image, all channels
  int64_t chunk;       // output channels (group == 1) or groups per item
  int64_t chunks;      // items per image
};

// The sub-problem of chunk k: its shape and the element offsets of its input, weight and output
// (and bias) slices within one image.
OneDnnConv2d chunk_shape(const OneDnnConvParams& p, int64_t k, int64_t* x_off, int64_t* w_off, int64_t* y_off,
                         int64_t* b_off) {
  const OneDnnConv2d& s = p.whole;
  OneDnnConv2d sub = s;
  const int64_t ksize = s.kh * s.kw, plane = s.oh * s.ow;
  if (s.group == 1) {
    const int64_t m0 = k * p.chunk;
    sub.m = std::min(p.chunk, s.m - m0);
    *x_off = 0;
    *w_off = m0 * s.c * ksize;
    *y_off = m0 * plane;
    *b_off = m0;
  } else {
    const int64_t cg = s.c / s.group, mg = s.m / s.group, g0 = k * p.chunk;
    sub.group = std::min(p.chunk, s.group - g0);
    sub.c = sub.group * cg;
    sub.m = sub.group * mg;
    *x_off = g0 * cg * s.h * s.w;
    *w_off = g0 * mg * cg * ksize;
    *y_off = g0 * mg * plane;
    *b_off = g0 * mg;
  }
  return sub;
}

void onednn_conv_kernel(arun::Block blk, const OneDnnConvParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n * p.chunks));
  if (r.size() == 0) return;
  const OneDnnConv2d& s = p.whole;
  const int64_t in_img = s.c * s.h * s.w, out_img = s.m * s.oh * s.ow;
  const float* x = blk.map(p.x, p.n * in_img).data();
  const float* w = blk.map(p.w, s.m * (s.c / s.group) * s.kh * s.kw).data();
  const float* bias = p.bias != nullptr ? blk.map(p.bias, s.m).data() : nullptr;
  float* y = blk.map(p.y, p.n * out_img).data();
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t img = static_cast<int64_t>(item) / p.chunks, k = static_cast<int64_t>(item) % p.chunks;
    int64_t xo, wo, yo, bo;
    const OneDnnConv2d sub = chunk_shape(p, k, &xo, &wo, &yo, &bo);
    // The op function created this shape's primitive: it cannot be missing here.
    if (!onednn_conv2d(sub, x + img * in_img + xo, w + wo, bias != nullptr ? bias + bo : nullptr,
                       y + img * out_img + yo)) {
      blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "Conv: the oneDNN primitive of a checked shape is missing");
    }
  }
}

// 3-D (NCDHW): a direct loop per output element (double accumulation); ONNX's attributes with
// 3 values (pads: 3 begins then 3 ends), no auto_pad.
struct Conv3dParams {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  int64_t n, c, in[3], m, group, k[3], out[3], stride[3], dilation[3], pad[3];
};

void conv3d_kernel(arun::Block blk, const Conv3dParams& p) {
  const int64_t planes = p.n * p.m, vol = p.out[0] * p.out[1] * p.out[2];
  const IndexRange r = blk.range(static_cast<size_t>(planes));
  if (r.size() == 0) return;
  const int64_t cg = p.c / p.group, mg = p.m / p.group, ivol = p.in[0] * p.in[1] * p.in[2];
  const int64_t kvol = p.k[0] * p.k[1] * p.k[2];
  const float* x = blk.map(p.x, p.n * p.c * ivol).data();
  const float* w = blk.map(p.w, p.m * cg * kvol).data();
  const float* bias = p.bias != nullptr ? blk.map(p.bias, p.m).data() : nullptr;
  float* y = blk.map(p.y, planes * vol).data();
  for (size_t plane = r.first; plane < r.last; ++plane) {
    const int64_t img = static_cast<int64_t>(plane) / p.m, om = static_cast<int64_t>(plane) % p.m, g = om / mg;
    for (int64_t o = 0; o < vol; ++o) {
      const int64_t oz = o / (p.out[1] * p.out[2]), oy = o / p.out[2] % p.out[1], ox = o % p.out[2];
      double acc = bias != nullptr ? bias[om] : 0.0;
      for (int64_t ci = 0; ci < cg; ++ci) {
        const float* xc = x + (img * p.c + g * cg + ci) * ivol;
        const float* wc = w + (om * cg + ci) * kvol;
        for (int64_t kz = 0; kz < p.k[0]; ++kz) {
          const int64_t iz = oz * p.stride[0] - p.pad[0] + kz * p.dilation[0];
          if (iz < 0 || iz >= p.in[0]) continue;
          for (int64_t ky = 0; ky < p.k[1]; ++ky) {
            const int64_t iy = oy * p.stride[1] - p.pad[1] + ky * p.dilation[1];
            if (iy < 0 || iy >= p.in[1]) continue;
            for (int64_t kx = 0; kx < p.k[2]; ++kx) {
              const int64_t ix = ox * p.stride[2] - p.pad[2] + kx * p.dilation[2];
              if (ix < 0 || ix >= p.in[2]) continue;
              acc += double(xc[(iz * p.in[1] + iy) * p.in[2] + ix]) * double(wc[(kz * p.k[1] + ky) * p.k[2] + kx]);
            }
          }
        }
      }
      y[static_cast<int64_t>(plane) * vol + o] = static_cast<float>(acc);
    }
  }
}

// What every Conv checks whatever its rank: group against the channels of X and W, kernel_shape
// against W's spatial dims, and B's shape. `group` and `bias` (null when absent) are the results.
Status check_conv_operands(const OpCall& call, int64_t* group, const Tensor** bias) {
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  ARUN_RETURN_IF_ERROR(call.attr_int("group", 1, group));
  if (*group < 1) return call.attr_error("group must be >= 1, got " + std::to_string(*group));
  const int64_t c = x.shape[1], m = w.shape[0];
  if (c % *group != 0 || m % *group != 0) {
    return call.attr_error("group " + std::to_string(*group) + " does not divide the channels (" + std::to_string(c) +
                           " in, " + std::to_string(m) + " out)");
  }
  if (w.shape[1] != c / *group) {
    return call.input_error("W " + shape_text(w.shape) + " needs " + std::to_string(c / *group) +
                            " input channels per group for X " + shape_text(x.shape));
  }
  const Shape kernel(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> kshape;
  ARUN_RETURN_IF_ERROR(call.attr_ints("kernel_shape", kernel, &kshape));
  if (kshape != kernel) {
    return call.attr_error("kernel_shape " + shape_text(kshape) + " differs from W's " + shape_text(kernel));
  }
  *bias = call.inputs.size() == 3 && call.inputs[2].present() ? &call.inputs[2] : nullptr;
  if (*bias != nullptr && (*bias)->shape != Shape{m}) {
    return call.input_error("B " + shape_text((*bias)->shape) + " must be [" + std::to_string(m) + "]");
  }
  return Status::Ok();
}

Status run_conv3d(const OpCall& call) {
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  int64_t group = 1;
  const Tensor* bias = nullptr;
  ARUN_RETURN_IF_ERROR(check_conv_operands(call, &group, &bias));
  std::string auto_pad;
  std::vector<int64_t> strides, dilations, pads;
  ARUN_RETURN_IF_ERROR(call.attr_string("auto_pad", "NOTSET", &auto_pad));
  ARUN_RETURN_IF_ERROR(call.attr_ints("strides", {1, 1, 1}, &strides));
  ARUN_RETURN_IF_ERROR(call.attr_ints("dilations", {1, 1, 1}, &dilations));
  ARUN_RETURN_IF_ERROR(call.attr_ints("pads", {0, 0, 0, 0, 0, 0}, &pads));
  if (auto_pad != "NOTSET") return call.attr_error("3-D Conv supports only auto_pad NOTSET");
  const int64_t c = x.shape[1], m = w.shape[0];
  constexpr int64_t kLimit = int64_t(1) << 30;
  auto ok = [&](const std::vector<int64_t>& v, size_t n, int64_t lo) {
    if (v.size() != n) return false;
    for (int64_t e : v) {
      if (e < lo || e > kLimit) return false;
    }
    return true;
  };
  if (!ok(strides, 3, 1) || !ok(dilations, 3, 1) || !ok(pads, 6, 0)) {
    return call.attr_error("3-D Conv needs 3 strides and dilations >= 1 and 6 pads >= 0");
  }
  Conv3dParams p{ptr<float>(x),
                 ptr<float>(w),
                 bias != nullptr ? ptr<float>(*bias) : nullptr,
                 ptr<float>(call.outputs[0]),
                 x.shape[0],
                 c,
                 {},
                 m,
                 group,
                 {},
                 {},
                 {},
                 {},
                 {}};
  Shape out{x.shape[0], m};
  for (int d = 0; d < 3; ++d) {
    p.in[d] = x.shape[2 + d];
    p.k[d] = w.shape[2 + d];
    p.stride[d] = strides[d];
    p.dilation[d] = dilations[d];
    p.pad[d] = pads[d];
    const int64_t room = p.in[d] + pads[d] + pads[d + 3] - dilations[d] * (p.k[d] - 1) - 1;
    if (room < 0) return call.input_error("the window is larger than the padded input");
    p.out[d] = room / strides[d] + 1;
    out.push_back(p.out[d]);
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_FLOAT, out));
  if (numel(out) == 0) return Status::Ok();
  const int64_t work = numel(out) * (c / group) * p.k[0] * p.k[1] * p.k[2];
  return launch_op(call, call.blocks_for(work, 1 << 16), conv3d_kernel, p);
}

Status run_conv(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  if (x.dtype != ACL_FLOAT) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32)");
  if (x.rank() == 5 && w.rank() == 5) return run_conv3d(call);
  if (x.rank() != 4 || w.rank() != 4) {
    return call.input_error("only 2-D and 3-D convolution: X and W must be 4-D (NCHW / MCkHkW) or 5-D, got " +
                            shape_text(x.shape) + " and " + shape_text(w.shape));
  }
  int64_t group = 1;
  const Tensor* bias = nullptr;
  ARUN_RETURN_IF_ERROR(check_conv_operands(call, &group, &bias));
  const int64_t c = x.shape[1], m = w.shape[0];
  const int64_t kernel[2] = {w.shape[2], w.shape[3]};
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  ConvParams p{ptr<float>(x),
               ptr<float>(w),
               bias != nullptr ? ptr<float>(*bias) : nullptr,
               ptr<float>(call.outputs[0]),
               x.shape[0],
               c,
               in[0],
               in[1],
               m,
               group,
               {},
               1,
               1,
               false};
  ARUN_RETURN_IF_ERROR(window_2d(call, in, kernel, false, &p.win));
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_FLOAT, {x.shape[0], m, p.win.out[0], p.win.out[1]}));
  const int64_t plane = p.win.out[0] * p.win.out[1];
  if (p.n * m * plane == 0) return Status::Ok();
  const Window2d& wn = p.win;
  p.direct = kernel[0] == 1 && kernel[1] == 1 && wn.stride[0] == 1 && wn.stride[1] == 1 && wn.pad_begin[0] == 0 &&
             wn.pad_begin[1] == 0 && wn.pad_end[0] == 0 && wn.pad_end[1] == 0;
  // About one item per AI core, tiles of at least 64 output columns; small convolutions use one block.
  const double flops = 2.0 * double(p.n) * double(m) * double(plane) * double(c / group * kernel[0] * kernel[1]);
  const int64_t cores = flops < 1e6 ? 1 : call.parallelism();
  const int64_t images = p.n * group;
  const int64_t wanted = std::max<int64_t>(1, (cores + images - 1) / images);
  p.col_tiles = std::min(wanted, std::max<int64_t>(1, plane / 64));
  p.tile_cols = (plane + p.col_tiles - 1) / p.col_tiles;
  p.col_tiles = (plane + p.tile_cols - 1) / p.tile_cols;
  if (onednn_conv_enabled()) {
    OneDnnConvParams q{p.x, p.w, p.bias, p.y, p.n, {}, 1, 1};
    q.whole = {c,
               in[0],
               in[1],
               m,
               group,
               kernel[0],
               kernel[1],
               wn.stride[0],
               wn.stride[1],
               wn.dilation[0],
               wn.dilation[1],
               wn.pad_begin[0],
               wn.pad_begin[1],
               wn.pad_end[0],
               wn.pad_end[1],
               wn.out[0],
               wn.out[1],
               bias != nullptr};
    // Chunks per image so that about every core gets one item; output-channel chunks of a
    // multiple of 16 (oneDNN's vector width in floats).
    const int64_t per_image = std::max<int64_t>(1, (cores + p.n - 1) / p.n);
    if (group == 1) {
      q.chunk = std::min(m, ((m + per_image - 1) / per_image + 15) / 16 * 16);
      q.chunks = (m + q.chunk - 1) / q.chunk;
    } else {
      q.chunk = (group + per_image - 1) / per_image;
      q.chunks = (group + q.chunk - 1) / q.chunk;
    }
    int64_t xo, wo, yo, bo;
    bool supported = true;
    for (int64_t k : {int64_t{0}, q.chunks - 1})
      supported = supported && onednn_conv2d_supported(chunk_shape(q, k, &xo, &wo, &yo, &bo));
    if (supported) {
      const auto blocks = static_cast<uint32_t>(std::clamp<int64_t>(p.n * q.chunks, 1, cores));
      return launch_op(call, blocks, onednn_conv_kernel, q);
    }
  }
  const auto blocks = static_cast<uint32_t>(std::clamp<int64_t>(images * p.col_tiles, 1, cores));
  pin_blas_threads();
  return launch_op(call, blocks, conv_kernel, p);
}

// ---- ConvTranspose (2-D, NCHW, float32; strides, pads, dilations, group, output_padding) ----
// A direct gather per output element: y[n, m, oy, ox] sums x[n, c, iy, ix] * W[c, m', ky, kx] over
// the taps with oy + pad - ky * dilation = iy * stride. One block takes a share of the (n, m) planes.

struct ConvTransposeParams {
  const float* x;
  const float* w;
  const float* bias;  // may be null
  float* y;
  int64_t n, c, h, wd, m, group;
  int64_t kh, kw, oh, ow;
  int64_t stride[2], dilation[2], pad[2];
};

void conv_transpose_kernel(arun::Block blk, const ConvTransposeParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n * p.m));
  if (r.size() == 0) return;
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  const float* x = blk.map(p.x, p.n * p.c * p.h * p.wd).data();
  const float* w = blk.map(p.w, p.c * mg * p.kh * p.kw).data();
  const float* bias = p.bias != nullptr ? blk.map(p.bias, p.m).data() : nullptr;
  float* y = blk.map(p.y, p.n * p.m * p.oh * p.ow).data();
  for (size_t plane = r.first; plane < r.last; ++plane) {
    const int64_t img = static_cast<int64_t>(plane) / p.m, om = static_cast<int64_t>(plane) % p.m;
    const int64_t g = om / mg, mm = om % mg;
    float* out = y + static_cast<int64_t>(plane) * p.oh * p.ow;
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        double acc = bias != nullptr ? bias[om] : 0.0;
        for (int64_t ky = 0; ky < p.kh; ++ky) {
          const int64_t ty = oy + p.pad[0] - ky * p.dilation[0];
          if (ty < 0 || ty % p.stride[0] != 0 || ty / p.stride[0] >= p.h) continue;
          const int64_t iy = ty / p.stride[0];
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            const int64_t tx = ox + p.pad[1] - kx * p.dilation[1];
            if (tx < 0 || tx % p.stride[1] != 0 || tx / p.stride[1] >= p.wd) continue;
            const int64_t ix = tx / p.stride[1];
            for (int64_t ci = 0; ci < cg; ++ci) {
              const int64_t c = g * cg + ci;
              acc += double(x[((img * p.c + c) * p.h + iy) * p.wd + ix]) *
                     double(w[((c * mg + mm) * p.kh + ky) * p.kw + kx]);
            }
          }
        }
        out[oy * p.ow + ox] = static_cast<float>(acc);
      }
    }
  }
}

Status run_conv_transpose(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  if (x.dtype != ACL_FLOAT) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32)");
  if (x.rank() != 4 || w.rank() != 4) {
    return call.input_error("only 2-D: X and W must be 4-D (NCHW / C M/group kH kW), got " + shape_text(x.shape) +
                            " and " + shape_text(w.shape));
  }
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads, out_pad, kshape;
  ARUN_RETURN_IF_ERROR(call.attr_int("group", 1, &group));
  ARUN_RETURN_IF_ERROR(call.attr_ints("strides", {1, 1}, &strides));
  ARUN_RETURN_IF_ERROR(call.attr_ints("dilations", {1, 1}, &dilations));
  ARUN_RETURN_IF_ERROR(call.attr_ints("pads", {0, 0, 0, 0}, &pads));
  ARUN_RETURN_IF_ERROR(call.attr_ints("output_padding", {0, 0}, &out_pad));
  ARUN_RETURN_IF_ERROR(call.attr_ints("kernel_shape", {w.shape[2], w.shape[3]}, &kshape));
  const int64_t c = x.shape[1];
  if (group < 1 || c % group != 0 || w.shape[0] != c) {
    return call.attr_error("group " + std::to_string(group) + " and W " + shape_text(w.shape) +
                           " do not fit the input channels " + std::to_string(c));
  }
  constexpr int64_t kLimit = int64_t(1) << 30;
  auto in_range = [&](const std::vector<int64_t>& v, size_t n, int64_t lo) {
    if (v.size() != n) return false;
    for (int64_t e : v) {
      if (e < lo || e > kLimit) return false;
    }
    return true;
  };
  if (!in_range(strides, 2, 1) || !in_range(dilations, 2, 1) || !in_range(pads, 4, 0) || !in_range(out_pad, 2, 0)) {
    return call.attr_error(
        "strides/dilations (2 values >= 1), pads (4 values >= 0) or output_padding (2 values >= 0) "
        "are invalid");
  }
  if (kshape.size() != 2 || kshape[0] != w.shape[2] || kshape[1] != w.shape[3]) {
    return call.attr_error("kernel_shape " + shape_text(kshape) + " differs from W's");
  }
  const int64_t m = w.shape[1] * group;
  const Tensor* bias = call.inputs.size() == 3 && call.inputs[2].present() ? &call.inputs[2] : nullptr;
  if (bias != nullptr && bias->shape != Shape{m}) {
    return call.input_error("B " + shape_text(bias->shape) + " must be [" + std::to_string(m) + "]");
  }
  ConvTransposeParams p{ptr<float>(x),
                        ptr<float>(w),
                        bias != nullptr ? ptr<float>(*bias) : nullptr,
                        ptr<float>(call.outputs[0]),
                        x.shape[0],
                        c,
                        x.shape[2],
                        x.shape[3],
                        m,
                        group,
                        w.shape[2],
                        w.shape[3],
                        0,
                        0,
                        {strides[0], strides[1]},
                        {dilations[0], dilations[1]},
                        {pads[0], pads[1]}};
  int64_t out[2];
  for (int d = 0; d < 2; ++d) {
    out[d] = strides[d] * (x.shape[2 + d] - 1) + out_pad[d] + (w.shape[2 + d] - 1) * dilations[d] + 1 - pads[d] -
             pads[d + 2];
    if (out[d] < 0) return call.input_error("the output would have a negative size");
  }
  p.oh = out[0];
  p.ow = out[1];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_FLOAT, {x.shape[0], m, out[0], out[1]}));
  if (x.shape[0] * m * out[0] * out[1] == 0) return Status::Ok();
  const int64_t work = x.shape[0] * m * out[0] * out[1] * (c / group) * w.shape[2] * w.shape[3];
  return launch_op(call, call.blocks_for(work, 1 << 16), conv_transpose_kernel, p);
}

}  // namespace

void register_conv(std::vector<OpDef>& defs) {
  defs.push_back({"Conv", &run_conv, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}});
  defs.push_back({"ConvTranspose",
                  &run_conv_transpose,
                  {"dilations", "group", "kernel_shape", "output_padding", "pads", "strides"}});
}

}  // namespace arun::ops
