// Conv (1-D, 2-D and 3-D; NCW / NCHW / NCDHW; float32 and float16): strides, pads, dilations,
// group (depthwise too), auto_pad, optional bias. Lowered to im2col + sgemm per (image, group,
// column tile), float16 staged through float in the block's scratch; a float32 1x1 stride-1
// unpadded convolution skips the im2col and multiplies the input directly. Items are spread over
// the blocks like MatMul's tiles.
// FusedConv is Conv with what the model loader fused into it (model/src/fuse_conv.cpp): an optional
// fourth input Z added to the result (a residual Add) and then an activation ("Relu", "LeakyRelu"
// with activation_params [alpha], "Clip" with [min, max]), applied in the same task to each output
// slice right after it is computed (sgemm tile, depthwise row, oneDNN chunk): no task and no
// tensor of its own. Depthwise float32 1-D / 2-D convolutions take a direct kernel.
// ConvTranspose (1-D, 2-D and 3-D, float32 and float16; group, dilations, output_padding,
// output_shape, auto_pad) is a direct gather per output element, accumulated in double.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "conv_geometry.hpp"
#include "onednn_conv.hpp"
#include "sgemm.hpp"

namespace arun::ops {

Status window_attr(const OpCall& call, const char* name, size_t n, int64_t lo, std::vector<int64_t> def,
                   std::vector<int64_t>* out) {
  ARUN_RETURN_IF_ERROR(call.attr_ints(name, std::move(def), out));
  bool ok = out->size() == n;
  for (int64_t v : *out) ok = ok && v >= lo && v <= kWindowLimit;
  if (!ok) {
    return call.attr_error(std::string(name) + " must be " + std::to_string(n) + " values in [" + std::to_string(lo) +
                           ", 2^30], got " + shape_text(*out));
  }
  return Status::Ok();
}

Status window_nd(const OpCall& call, int rank, const int64_t* in, const int64_t* kernel, bool allow_ceil, Window* w) {
  const size_t r = static_cast<size_t>(rank);
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;
  int64_t ceil_mode = 0;
  ARUN_RETURN_IF_ERROR(window_attr(call, "strides", r, 1, std::vector<int64_t>(r, 1), &strides));
  ARUN_RETURN_IF_ERROR(window_attr(call, "dilations", r, 1, std::vector<int64_t>(r, 1), &dilations));
  ARUN_RETURN_IF_ERROR(window_attr(call, "pads", 2 * r, 0, std::vector<int64_t>(2 * r, 0), &pads));
  ARUN_RETURN_IF_ERROR(call.attr_string("auto_pad", "NOTSET", &auto_pad));
  if (allow_ceil) ARUN_RETURN_IF_ERROR(call.attr_int("ceil_mode", 0, &ceil_mode));
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return call.attr_error("auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got \"" + auto_pad + "\"");
  }
  if (ceil_mode != 0 && ceil_mode != 1) return call.attr_error("ceil_mode must be 0 or 1");
  *w = Window{};
  w->rank = rank;
  const int off = kMaxSpatial - rank;
  for (int i = 0; i < rank; ++i) {
    if (kernel[i] < 1 || kernel[i] > kWindowLimit) return call.input_error("kernel sizes must be in [1, 2^30]");
    const int d = off + i;
    w->in[d] = in[i];
    w->kernel[d] = kernel[i];
    w->stride[d] = strides[i];
    w->dilation[d] = dilations[i];
    const int64_t span = dilations[i] * (kernel[i] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // ONNX: out = ceil(in / stride); an odd total padding puts the extra at the end (UPPER) or
      // the beginning (LOWER).
      w->out[d] = (in[i] + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (w->out[d] - 1) * strides[i] + span - in[i]);
      w->pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w->pad_end[d] = total - w->pad_begin[d];
      continue;
    }
    w->pad_begin[d] = auto_pad == "VALID" ? 0 : pads[i];
    w->pad_end[d] = auto_pad == "VALID" ? 0 : pads[i + r];
    const int64_t room = in[i] + w->pad_begin[d] + w->pad_end[d] - span;
    if (room < 0) {
      return call.input_error("window " + std::to_string(span) + " is larger than the padded input " +
                              std::to_string(in[i] + w->pad_begin[d] + w->pad_end[d]));
    }
    w->out[d] = (ceil_mode ? (room + strides[i] - 1) / strides[i] : room / strides[i]) + 1;
    // With ceil_mode the last window must still start inside the input or its leading padding.
    if (ceil_mode && (w->out[d] - 1) * strides[i] >= in[i] + w->pad_begin[d]) --w->out[d];
  }
  return Status::Ok();
}

namespace {

// The fused tail of FusedConv: z (the residual, shaped as y) is added first, then the activation.
enum class ConvAct : uint8_t {
  none,
  relu,  // x < 0 ? alpha * x : x (Relu: alpha 0; LeakyRelu)
  clip,  // min(max(x, alpha), beta), alpha <= beta
};
struct ConvPost {
  ConvAct act = ConvAct::none;
  float alpha = 0.0f, beta = 0.0f;
};

// v[i] = act(v[i] + bias + z[i]) over n outputs in one pass (a separate pass for the activation
// read a residual block's output a second time).
template <class Z, class Act>
void tail_pass(float* v, int64_t n, float bias, const Z* z, Act act) {
  if (z != nullptr) {
    for (int64_t i = 0; i < n; ++i) v[i] = act(v[i] + bias + Compute<Z>::load(z[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) v[i] = act(v[i] + bias);
  }
}

// The fused epilogue of one row of n outputs (z may be null): the im2col and oneDNN paths'.
template <class Z>
void finish_row(float* v, int64_t n, float bias, const Z* z, const ConvPost& post) {
  const float alpha = post.alpha, beta = post.beta;
  switch (post.act) {
    case ConvAct::none:
      if (z != nullptr || bias != 0.0f) tail_pass(v, n, bias, z, [](float x) { return x; });
      break;
    case ConvAct::relu:
      if (alpha == 0.0f) {
        tail_pass(v, n, bias, z, [](float x) { return x < 0.0f ? 0.0f : x; });
      } else {
        tail_pass(v, n, bias, z, [alpha](float x) { return x < 0.0f ? alpha * x : x; });
      }
      break;
    case ConvAct::clip:
      tail_pass(v, n, bias, z, [alpha, beta](float x) { return std::min(std::max(x, alpha), beta); });
      break;
  }
}

template <class T>
struct ConvParams {
  const T* x;
  const T* w;
  const T* bias;  // may be null
  T* y;
  const T* z;  // FusedConv's residual, shaped as y; may be null
  ConvPost post;
  int64_t n, c;      // input images, channels
  int64_t m, group;  // output channels, groups
  Window win;
  int64_t col_tiles, tile_cols;
  bool direct;  // float32, 1x1, stride 1, no padding: the input is already the column matrix
};

template <class T>
void conv_kernel(arun::Block blk, const ConvParams<T>& p) {
  using C = Compute<T>;
  constexpr bool kFloat = std::is_same_v<T, float>;
  const int64_t items = p.n * p.group * p.col_tiles;
  const IndexRange r = blk.range(static_cast<size_t>(items));
  if (r.size() == 0) return;
  const Window& wn = p.win;
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  const int64_t kd = wn.kernel[0], kh = wn.kernel[1], kw = wn.kernel[2];
  const int64_t oh = wn.out[1], ow = wn.out[2], ohw = oh * ow, plane = wn.out_count();
  const int64_t id = wn.in[0], ih = wn.in[1], iw = wn.in[2], ivol = wn.in_count();
  const int64_t kc = cg * kd * kh * kw;
  const T* x = blk.map(p.x, p.n * p.c * ivol).data();
  const T* wsrc = blk.map(p.w, p.m * kc).data();
  const T* bias = p.bias != nullptr ? blk.map(p.bias, p.m).data() : nullptr;
  T* y = blk.map(p.y, p.n * p.m * plane).data();
  const T* z = p.z != nullptr ? blk.map(p.z, p.n * p.m * plane).data() : nullptr;
  // float16 weights are widened a group at a time (the items of a block mostly share one group);
  // the product lands in `acc` before rounding.
  std::vector<float> wf, acc;
  int64_t wf_group = -1;
  std::vector<float> col;  // this block's im2col scratch (its local memory)
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t tile = static_cast<int64_t>(item) % p.col_tiles;
    const int64_t ng = static_cast<int64_t>(item) / p.col_tiles;
    const int64_t img = ng / p.group, g = ng % p.group;
    const int64_t c0 = tile * p.tile_cols, c1 = std::min(plane, c0 + p.tile_cols), cols = c1 - c0;
    if (cols <= 0) continue;
    const T* xg = x + (img * p.c + g * cg) * ivol;
    const float* b = nullptr;
    int ldb = static_cast<int>(cols);
    if constexpr (kFloat) {
      if (p.direct) {
        b = xg + c0;
        ldb = static_cast<int>(plane);
      }
    }
    if (b == nullptr) {
      col.assign(static_cast<size_t>(kc * cols), 0.0f);
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t kz = 0; kz < kd; ++kz)
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              float* row = col.data() + (((ci * kd + kz) * kh + ky) * kw + kx) * cols;
              const T* xc = xg + ci * ivol;
              // One output row segment at a time: no division per element.
              const int64_t ix_off = kx * wn.dilation[2] - wn.pad_begin[2], sx = wn.stride[2];
              for (int64_t o = c0; o < c1;) {
                const int64_t oz = o / ohw, oy = o / ow % oh, ox0 = o % ow, seg = std::min(ow - ox0, c1 - o);
                const int64_t iz = oz * wn.stride[0] - wn.pad_begin[0] + kz * wn.dilation[0];
                const int64_t iy = oy * wn.stride[1] - wn.pad_begin[1] + ky * wn.dilation[1];
                if (iz >= 0 && iz < id && iy >= 0 && iy < ih) {
                  const T* src = xc + (iz * ih + iy) * iw;
                  float* dst = row + (o - c0);
                  for (int64_t j = 0; j < seg; ++j) {
                    const int64_t ix = (ox0 + j) * sx + ix_off;
                    if (ix >= 0 && ix < iw) dst[j] = C::load(src[ix]);
                  }
                }
                o += seg;
              }
            }
      b = col.data();
    }
    if constexpr (kFloat) {
      float* out = y + (img * p.m + g * mg) * plane + c0;
      sgemm(false, false, mg, cols, kc, 1.0f, wsrc + g * mg * kc, kc, b, ldb, 0.0f, out, plane);
      if (bias != nullptr || z != nullptr || p.post.act != ConvAct::none) {
        for (int64_t oc = 0; oc < mg; ++oc) {
          const float bv = bias != nullptr ? bias[g * mg + oc] : 0.0f;
          const float* zr = z != nullptr ? z + (out - y) + oc * plane : nullptr;
          finish_row(out + oc * plane, cols, bv, zr, p.post);
        }
      }
    } else {
      if (g != wf_group) {
        wf.resize(static_cast<size_t>(mg * kc));
        const T* wg = wsrc + g * mg * kc;
        for (size_t i = 0; i < wf.size(); ++i) wf[i] = C::load(wg[i]);
        wf_group = g;
      }
      acc.resize(static_cast<size_t>(mg * cols));
      sgemm(false, false, mg, cols, kc, 1.0f, wf.data(), kc, b, ldb, 0.0f, acc.data(), cols);
      for (int64_t oc = 0; oc < mg; ++oc) {
        const float bv = bias != nullptr ? C::load(bias[g * mg + oc]) : 0.0f;
        const int64_t at = (img * p.m + g * mg + oc) * plane + c0;
        float* v = acc.data() + oc * cols;
        finish_row(v, cols, bv, z != nullptr ? z + at : nullptr, p.post);
        for (int64_t o = 0; o < cols; ++o) y[at + o] = C::store(v[o]);
      }
    }
  }
}

// Input count, dtypes (float32 / float16, all alike) and ranks (X and W alike, 3 to 5) of Conv and
// ConvTranspose (FusedConv: up to `max_inputs`, Z too). `spatial` is the number of spatial dims.
Status check_conv_inputs(const OpCall& call, int* spatial, size_t max_inputs = 3) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, max_inputs));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  if (x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32, float16)");
  }
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank()) {
    return call.input_error("1-D to 3-D only: X and W must both be 3-D, 4-D or 5-D (N C spatial.. / weights), got " +
                            shape_text(x.shape) + " and " + shape_text(w.shape));
  }
  *spatial = x.rank() - 2;
  return Status::Ok();
}

// kernel_shape, when given, must be W's spatial dims.
Status check_kernel_shape(const OpCall& call, const Tensor& w) {
  const Shape kernel(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> kshape;
  ARUN_RETURN_IF_ERROR(call.attr_ints("kernel_shape", kernel, &kshape));
  if (kshape != kernel) {
    return call.attr_error("kernel_shape " + shape_text(kshape) + " differs from W's " + shape_text(kernel));
  }
  return Status::Ok();
}

// B, when present, must be [m]; returns it or null.
Status conv_bias(const OpCall& call, int64_t m, const Tensor** bias) {
  *bias = call.inputs.size() >= 3 && call.inputs[2].present() ? &call.inputs[2] : nullptr;
  if (*bias != nullptr && (*bias)->shape != Shape{m}) {
    return call.input_error("B " + shape_text((*bias)->shape) + " must be [" + std::to_string(m) + "]");
  }
  return Status::Ok();
}

// The 1-D and 2-D float32 convolution on oneDNN (ops/src/onednn_conv.cpp): items are (image, chunk of
// output channels) with one group, or (image, chunk of groups); each runs one cached primitive on
// its slice of the NCHW tensors, whose channel ranges are contiguous.
struct OneDnnConvParams {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  const float* z;  // FusedConv's residual; may be null
  ConvPost post;
  int64_t n;
  OneDnnConv2d whole;  // one image, all channels
  int64_t chunk;       // output channels (group == 1) or groups per item
  int64_t chunks;      // items per image
};

// The sub-problem of chunk k: its shape and the element offsets of its input, weight, output and
// bias slices within one image.
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
  const float* z = p.z != nullptr ? blk.map(p.z, p.n * out_img).data() : nullptr;
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t img = static_cast<int64_t>(item) / p.chunks, k = static_cast<int64_t>(item) % p.chunks;
    int64_t xo, wo, yo, bo;
    const OneDnnConv2d sub = chunk_shape(p, k, &xo, &wo, &yo, &bo);
    // The op function created this shape's primitive: it cannot be missing here.
    if (!onednn_conv2d(sub, x + img * in_img + xo, w + wo, bias != nullptr ? bias + bo : nullptr,
                       y + img * out_img + yo)) {
      blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "Conv: the oneDNN primitive of a checked shape is missing");
    }
    // FusedConv's tail on the slice just written, in the same task. Not as oneDNN post-ops: its
    // gemm:jit NCHW convolution applies those element by element through the reference eltwise
    // (measured: a 16->96 1x1 at 112x112 with Clip took 8.5 ms against 0.3 ms without).
    if (z != nullptr || p.post.act != ConvAct::none) {
      const int64_t at = img * out_img + yo;
      finish_row(y + at, sub.m * s.oh * s.ow, 0.0f, z != nullptr ? z + at : nullptr, p.post);
    }
  }
}

// Depthwise 1-D / 2-D float32 convolution (group == channels in == channels out: MobileNetV2's 3x3,
// ShuffleNet's), direct: each output row accumulates kh * kw shifted, scaled input rows, then gets
// the fused epilogue. oneDNN has no plain-layout depthwise kernel, and its gemm path runs a tiny
// im2col + sgemm per channel. Items are (image, channel) planes.
struct DepthwiseParams {
  const float* x;
  const float* w;
  const float* bias;  // may be null
  const float* z;     // FusedConv's residual; may be null
  float* y;
  int64_t n, c;
  Window win;
  ConvPost post;
};

// One output row of n outputs: y[i] = sum over taps t (in order) of k[t] * tap[t][i], every tap a
// contiguous run (depthwise_kernel lays the input out so). Compiled twice, for AVX2 + FMA and for
// the baseline x86-64 the library targets, and picked once by what the CPU has: one call per row,
// not per tap (MobileNetV2's rows are 7-112 wide). Not target_clones: its IFUNC resolver runs while
// the dynamic loader relocates, before a sanitizer runtime is up, and an instrumented resolver
// crashes the TSan build there.
// Eight outputs at a time, every tap accumulated in registers before the one store (tap by tap
// over the row, the row's loads and stores were the cost: 6 GFMA/s on MobileNetV2). A vector type,
// as the loop over eight lanes came out half-width.
typedef float Lanes8 __attribute__((vector_size(32)));

__attribute__((always_inline)) inline void taps_loop(float* y, const float* const* tap, const float* k, int64_t taps,
                                                     int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Lanes8 acc = {};
    for (int64_t t = 0; t < taps; ++t) {
      Lanes8 x;
      std::memcpy(&x, tap[t] + i, sizeof x);
      acc += k[t] * x;
    }
    std::memcpy(y + i, &acc, sizeof acc);
  }
  for (; i < n; ++i) {
    float acc = 0.0f;
    for (int64_t t = 0; t < taps; ++t) acc += k[t] * tap[t][i];
    y[i] = acc;
  }
}

__attribute__((target("avx2,fma"))) void taps_row_avx2(float* y, const float* const* tap, const float* k, int64_t taps,
                                                       int64_t n) {
  taps_loop(y, tap, k, taps, n);
}

void taps_row_baseline(float* y, const float* const* tap, const float* k, int64_t taps, int64_t n) {
  taps_loop(y, tap, k, taps, n);
}

void taps_row(float* y, const float* const* tap, const float* k, int64_t taps, int64_t n) {
  using Fn = void (*)(float*, const float* const*, const float*, int64_t, int64_t);
  static const Fn fn =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &taps_row_avx2 : &taps_row_baseline;
  fn(y, tap, k, taps, n);
}

// Each (image, channel) plane is first copied into a zero-bordered plane covering every tap, and
// with stride 2 along x each row is split into its even and odd columns, so that every tap of an
// output row is a contiguous run: no bounds per tap, no gathers (a strided load compiled to AVX2
// gathers, which AMD cores run slowly: the per-tap strided loop was 40% of MobileNetV2). Padding
// taps add k * 0, which leaves every sum as the skipped tap did (up to the sign of a zero).
// Strides above 2 along x keep one column per element (each tap a strided run, copied per row).
void depthwise_kernel(arun::Block blk, const DepthwiseParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n * p.c));
  if (r.size() == 0) return;
  const Window& wn = p.win;
  const int64_t ih = wn.in[1], iw = wn.in[2], oh = wn.out[1], ow = wn.out[2];
  const int64_t kh = wn.kernel[1], kw = wn.kernel[2], sh = wn.stride[1], sw = wn.stride[2];
  const int64_t dh = wn.dilation[1], dw = wn.dilation[2], ph = wn.pad_begin[1], pw = wn.pad_begin[2];
  const float* x = blk.map(p.x, p.n * p.c * ih * iw).data();
  const float* w = blk.map(p.w, p.c * kh * kw).data();
  const float* bias = p.bias != nullptr ? blk.map(p.bias, p.c).data() : nullptr;
  const float* z = p.z != nullptr ? blk.map(p.z, p.n * p.c * oh * ow).data() : nullptr;
  float* y = blk.map(p.y, p.n * p.c * oh * ow).data();
  // The padded plane: rows [0, prows) cover input rows -ph.., columns [0, pcols) input columns -pw..
  const int64_t prows = (oh - 1) * sh + (kh - 1) * dh + 1, pcols = (ow - 1) * sw + (kw - 1) * dw + 1;
  const bool split = sw == 2;
  const int64_t even = (pcols + 1) / 2;  // with split: columns 0, 2, .. first, then 1, 3, ..
  std::vector<float> plane(static_cast<size_t>(prows * pcols));
  std::vector<float> gathered(sw > 2 ? static_cast<size_t>(kh * kw * ow) : 0);
  std::vector<const float*> tap(static_cast<size_t>(kh * kw));
  std::vector<float> wide(sw == 1 && sh == 1 ? static_cast<size_t>(oh * pcols) : 0);
  // The input rows and columns that land inside the padded plane.
  const int64_t y0 = std::clamp<int64_t>(ph, 0, prows), y1 = std::clamp<int64_t>(ph + ih, y0, prows);
  const int64_t x0 = std::clamp<int64_t>(pw, 0, pcols), x1 = std::clamp<int64_t>(pw + iw, x0, pcols);
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t ch = static_cast<int64_t>(item) % p.c;
    const float* xc = x + static_cast<int64_t>(item) * ih * iw;
    const float* wc = w + ch * kh * kw;
    const int64_t at = static_cast<int64_t>(item) * oh * ow;
    // Zeros where no input lands (the border: rows above and below, columns left and right),
    // the input everywhere else.
    auto column = [&](int64_t px) { return split ? ((px & 1) != 0 ? even + px / 2 : px / 2) : px; };
    std::fill(plane.begin(), plane.begin() + y0 * pcols, 0.0f);
    std::fill(plane.begin() + y1 * pcols, plane.end(), 0.0f);
    for (int64_t py = y0; py < y1; ++py) {
      const float* src = xc + (py - ph) * iw - pw;
      float* dst = plane.data() + py * pcols;
      for (int64_t px = 0; px < x0; ++px) dst[column(px)] = 0.0f;
      for (int64_t px = x1; px < pcols; ++px) dst[column(px)] = 0.0f;
      if (split) {
        for (int64_t px = x0; px < x1; ++px) dst[column(px)] = src[px];
      } else {
        std::copy(src + x0, src + x1, dst + x0);
      }
    }
    if (sw == 1 && sh == 1) {
      // Stride 1: every tap is one run over the whole plane, whose rows are pcols apart in the
      // input and in `wide` alike (its columns past ow are discarded): long runs, where MobileNetV2's
      // 7- and 14-wide rows left most of each row to the scalar remainder.
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) tap[ky * kw + kx] = plane.data() + ky * dh * pcols + kx * dw;
      }
      taps_row(wide.data(), tap.data(), wc, kh * kw, (oh - 1) * pcols + ow);
      for (int64_t oy = 0; oy < oh; ++oy) {
        float* yr = y + at + oy * ow;
        std::copy_n(wide.data() + oy * pcols, ow, yr);
        finish_row(yr, ow, bias != nullptr ? bias[ch] : 0.0f, z != nullptr ? z + at + oy * ow : nullptr, p.post);
      }
      continue;
    }
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ky = 0; ky < kh; ++ky) {
        const float* row = plane.data() + (oy * sh + ky * dh) * pcols;
        for (int64_t kx = 0; kx < kw; ++kx) {
          const int64_t o = kx * dw, t = ky * kw + kx;
          if (split) {
            tap[t] = row + ((o & 1) != 0 ? even + o / 2 : o / 2);
          } else if (sw == 1) {
            tap[t] = row + o;
          } else {
            float* g = gathered.data() + t * ow;
            for (int64_t i = 0; i < ow; ++i) g[i] = row[o + i * sw];
            tap[t] = g;
          }
        }
      }
      float* yr = y + at + oy * ow;
      taps_row(yr, tap.data(), wc, kh * kw, ow);
      finish_row(yr, ow, bias != nullptr ? bias[ch] : 0.0f, z != nullptr ? z + at + oy * ow : nullptr, p.post);
    }
  }
}

// Launches a 1-D or 2-D float32 Conv on oneDNN when it has an implementation for the shapes the
// blocks will run (false otherwise: the caller takes the im2col + sgemm path). About one item per
// core; output-channel chunks are multiples of 16 floats, oneDNN's vector width.
bool launch_onednn_conv(const OpCall& call, const Window& win, int64_t n, int64_t c, int64_t m, int64_t group,
                        int64_t cores, const Tensor* bias, const Tensor* z, const ConvPost& post, Status* st) {
  if (!onednn_conv_enabled() || win.rank > 2 || call.inputs[0].dtype != ACL_FLOAT) return false;
  OneDnnConvParams q{ptr<float>(call.inputs[0]),
                     ptr<float>(call.inputs[1]),
                     bias != nullptr ? ptr<float>(*bias) : nullptr,
                     ptr<float>(call.outputs[0]),
                     z != nullptr ? ptr<float>(*z) : nullptr,
                     post,
                     n,
                     {},
                     1,
                     1};
  // Slots 1 and 2 hold H and W (a 1-D window has H = 1).
  q.whole = {c,
             win.in[1],
             win.in[2],
             m,
             group,
             win.kernel[1],
             win.kernel[2],
             win.stride[1],
             win.stride[2],
             win.dilation[1],
             win.dilation[2],
             win.pad_begin[1],
             win.pad_begin[2],
             win.pad_end[1],
             win.pad_end[2],
             win.out[1],
             win.out[2],
             bias != nullptr};
  const int64_t per_image = std::max<int64_t>(1, (cores + n - 1) / n);
  if (group == 1) {
    q.chunk = std::min(m, ((m + per_image - 1) / per_image + 15) / 16 * 16);
    q.chunks = (m + q.chunk - 1) / q.chunk;
  } else {
    q.chunk = (group + per_image - 1) / per_image;
    q.chunks = (group + q.chunk - 1) / q.chunk;
  }
  int64_t xo, wo, yo, bo;
  for (int64_t k : {int64_t{0}, q.chunks - 1}) {
    if (!onednn_conv2d_supported(chunk_shape(q, k, &xo, &wo, &yo, &bo))) return false;
  }
  *st = launch_op(call, static_cast<uint32_t>(std::clamp<int64_t>(n * q.chunks, 1, cores)), onednn_conv_kernel, q);
  return true;
}

// Whether depthwise convolutions take the direct kernel (ARUN_DEPTHWISE=engine: the engines' path,
// for the comparison); read once.
bool depthwise_direct() {
  static const bool on = [] {
    const char* v = std::getenv("ARUN_DEPTHWISE");
    return v == nullptr || std::strcmp(v, "engine") != 0;
  }();
  return on;
}

// FusedConv's activation attributes; `none` for a plain Conv.
Status conv_post(const OpCall& call, ConvPost* post) {
  *post = ConvPost{};
  if (call.op != "FusedConv") return Status::Ok();
  std::string act;
  std::vector<float> params;
  ARUN_RETURN_IF_ERROR(call.attr_string("activation", "", &act));
  ARUN_RETURN_IF_ERROR(call.attr_floats("activation_params", {}, &params));
  if (act.empty() && params.empty()) return Status::Ok();
  if (act == "Relu" && params.empty()) {
    post->act = ConvAct::relu;
  } else if (act == "LeakyRelu" && params.size() == 1) {
    post->act = ConvAct::relu;
    post->alpha = params[0];
  } else if (act == "Clip" && params.size() == 2 && params[0] <= params[1]) {
    post->act = ConvAct::clip;
    post->alpha = params[0];
    post->beta = params[1];
  } else {
    return call.attr_error("activation \"" + act + "\" with " + std::to_string(params.size()) +
                           " activation_params: expected Relu [], LeakyRelu [alpha] or Clip [min, max] (min <= max)");
  }
  return Status::Ok();
}

Status run_conv(const OpCall& call) {
  const bool fused = call.op == "FusedConv";
  int spatial = 0;
  ARUN_RETURN_IF_ERROR(check_conv_inputs(call, &spatial, fused ? 4 : 3));
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  int64_t group = 1;
  ARUN_RETURN_IF_ERROR(call.attr_int("group", 1, &group));
  if (group < 1) return call.attr_error("group must be >= 1, got " + std::to_string(group));
  const int64_t c = x.shape[1], m = w.shape[0];
  if (c == 0) return call.input_error("X " + shape_text(x.shape) + " has no channels");
  if (c % group != 0 || m % group != 0) {
    return call.attr_error("group " + std::to_string(group) + " does not divide the channels (" + std::to_string(c) +
                           " in, " + std::to_string(m) + " out)");
  }
  if (w.shape[1] != c / group) {
    return call.input_error("W " + shape_text(w.shape) + " needs " + std::to_string(c / group) +
                            " input channels per group for X " + shape_text(x.shape));
  }
  ARUN_RETURN_IF_ERROR(check_kernel_shape(call, w));
  const Tensor* bias = nullptr;
  ARUN_RETURN_IF_ERROR(conv_bias(call, m, &bias));
  Window win;
  ARUN_RETURN_IF_ERROR(window_nd(call, spatial, x.shape.data() + 2, w.shape.data() + 2, false, &win));
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, win.out_shape(x.shape[0], m)));
  ConvPost post;
  ARUN_RETURN_IF_ERROR(conv_post(call, &post));
  const Tensor* z = call.inputs.size() == 4 && call.inputs[3].present() ? &call.inputs[3] : nullptr;
  if (z != nullptr && (z->dtype != x.dtype || z->shape != call.outputs[0].shape)) {
    return call.input_error("Z " + shape_text(z->shape) + " " + dtype_name(z->dtype) + " must be the output's " +
                            shape_text(call.outputs[0].shape) + " " + dtype_name(x.dtype));
  }
  const int64_t n = x.shape[0], plane = win.out_count();
  if (n * m * plane == 0) return Status::Ok();
  const int64_t kc = c / group * win.kernel_count();
  // About one item per AI core, tiles of at least 64 output columns, and at most 4 Mi floats of
  // im2col scratch per item; small convolutions use one block.
  const double flops = 2.0 * double(n) * double(m) * double(plane) * double(kc);
  const int64_t cores = flops < 1e6 ? 1 : call.parallelism();
  const int64_t images = n * group;
  const int64_t wanted = std::max<int64_t>(1, (cores + images - 1) / images);
  int64_t tiles = std::min(wanted, std::max<int64_t>(1, plane / 64));
  const int64_t max_cols = std::max<int64_t>(64, (int64_t(1) << 22) / std::max<int64_t>(kc, 1));
  tiles = std::max(tiles, (plane + max_cols - 1) / max_cols);
  const int64_t tile_cols = (plane + tiles - 1) / tiles;
  tiles = (plane + tile_cols - 1) / tile_cols;
  const auto blocks = static_cast<uint32_t>(std::clamp<int64_t>(images * tiles, 1, cores));
  bool direct = x.dtype == ACL_FLOAT && win.kernel_count() == 1;
  for (int d = 0; d < kMaxSpatial; ++d) {
    direct = direct && win.stride[d] == 1 && win.pad_begin[d] == 0 && win.pad_end[d] == 0;
  }
  Status st;
  if (x.dtype == ACL_FLOAT && win.rank <= 2 && group == c && m == c && depthwise_direct()) {
    DepthwiseParams q{ptr<float>(x),
                      ptr<float>(w),
                      bias != nullptr ? ptr<float>(*bias) : nullptr,
                      z != nullptr ? ptr<float>(*z) : nullptr,
                      ptr<float>(call.outputs[0]),
                      n,
                      c,
                      win,
                      post};
    return launch_op(call, static_cast<uint32_t>(std::clamp<int64_t>(n * c, 1, cores)), depthwise_kernel, q);
  }
  if (launch_onednn_conv(call, win, n, c, m, group, cores, bias, z, post, &st)) return st;
  pin_blas_threads();
  dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    ConvParams<T> p{ptr<T>(x),
                    ptr<T>(w),
                    bias != nullptr ? ptr<T>(*bias) : nullptr,
                    ptr<T>(call.outputs[0]),
                    z != nullptr ? ptr<T>(*z) : nullptr,
                    post,
                    n,
                    c,
                    m,
                    group,
                    win,
                    tiles,
                    tile_cols,
                    direct};
    st = launch_op(call, blocks, conv_kernel<T>, p);
  });
  return st;
}

// ---- ConvTranspose ----
// A direct gather per output element: y[n, m, o] sums x[n, c, i] * W[c, m', k] over the taps with
// o + pad_begin - k * dilation = i * stride (per spatial dim). One block takes a share of the
// (n, m) planes.

template <class T>
struct ConvTransposeParams {
  const T* x;
  const T* w;
  const T* bias;  // may be null
  T* y;
  int64_t n, c, m, group;
  Window win;  // in / kernel / stride / dilation / pad_begin / out, 3 slots
};

template <class T>
void conv_transpose_kernel(arun::Block blk, const ConvTransposeParams<T>& p) {
  using C = Compute<T>;
  const IndexRange r = blk.range(static_cast<size_t>(p.n * p.m));
  if (r.size() == 0) return;
  const Window& wn = p.win;
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  const int64_t ivol = wn.in_count(), ovol = wn.out_count(), kvol = wn.kernel_count();
  const T* x = blk.map(p.x, p.n * p.c * ivol).data();
  const T* w = blk.map(p.w, p.c * mg * kvol).data();
  const T* bias = p.bias != nullptr ? blk.map(p.bias, p.m).data() : nullptr;
  T* y = blk.map(p.y, p.n * p.m * ovol).data();
  // Per spatial dim and output position, the taps that hit an input position: (k, i) pairs.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> taps[kMaxSpatial];
  for (int d = 0; d < kMaxSpatial; ++d) {
    taps[d].resize(static_cast<size_t>(wn.out[d]));
    for (int64_t o = 0; o < wn.out[d]; ++o) {
      for (int64_t k = 0; k < wn.kernel[d]; ++k) {
        const int64_t t = o + wn.pad_begin[d] - k * wn.dilation[d];
        if (t < 0 || t % wn.stride[d] != 0 || t / wn.stride[d] >= wn.in[d]) continue;
        taps[d][o].push_back({k, t / wn.stride[d]});
      }
    }
  }
  for (size_t plane = r.first; plane < r.last; ++plane) {
    const int64_t img = static_cast<int64_t>(plane) / p.m, om = static_cast<int64_t>(plane) % p.m;
    const int64_t g = om / mg, mm = om % mg;
    T* out = y + static_cast<int64_t>(plane) * ovol;
    const T* xb = x + (img * p.c + g * cg) * ivol;
    const T* wb = w + (g * cg * mg + mm) * kvol;
    for (int64_t oz = 0; oz < wn.out[0]; ++oz)
      for (int64_t oy = 0; oy < wn.out[1]; ++oy)
        for (int64_t ox = 0; ox < wn.out[2]; ++ox) {
          double acc = bias != nullptr ? static_cast<float>(C::load(bias[om])) : 0.0;
          for (const auto& [kz, iz] : taps[0][oz])
            for (const auto& [ky, iy] : taps[1][oy])
              for (const auto& [kx, ix] : taps[2][ox]) {
                const int64_t xi = (iz * wn.in[1] + iy) * wn.in[2] + ix;
                const int64_t wi = (kz * wn.kernel[1] + ky) * wn.kernel[2] + kx;
                for (int64_t ci = 0; ci < cg; ++ci) {
                  acc += double(static_cast<float>(C::load(xb[ci * ivol + xi]))) *
                         double(static_cast<float>(C::load(wb[ci * mg * kvol + wi])));
                }
              }
          out[(oz * wn.out[1] + oy) * wn.out[2] + ox] = C::store(static_cast<float>(acc));
        }
  }
}

Status run_conv_transpose(const OpCall& call) {
  int spatial = 0;
  ARUN_RETURN_IF_ERROR(check_conv_inputs(call, &spatial));
  const Tensor& x = call.inputs[0];
  const Tensor& w = call.inputs[1];
  const size_t r = static_cast<size_t>(spatial);
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads, out_pad, out_shape;
  std::string auto_pad;
  ARUN_RETURN_IF_ERROR(call.attr_int("group", 1, &group));
  ARUN_RETURN_IF_ERROR(window_attr(call, "strides", r, 1, std::vector<int64_t>(r, 1), &strides));
  ARUN_RETURN_IF_ERROR(window_attr(call, "dilations", r, 1, std::vector<int64_t>(r, 1), &dilations));
  ARUN_RETURN_IF_ERROR(window_attr(call, "pads", 2 * r, 0, std::vector<int64_t>(2 * r, 0), &pads));
  ARUN_RETURN_IF_ERROR(window_attr(call, "output_padding", r, 0, std::vector<int64_t>(r, 0), &out_pad));
  ARUN_RETURN_IF_ERROR(call.attr_string("auto_pad", "NOTSET", &auto_pad));
  ARUN_RETURN_IF_ERROR(call.attr_ints("output_shape", {}, &out_shape));
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return call.attr_error("auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got \"" + auto_pad + "\"");
  }
  // output_shape holds the spatial sizes (or, as some exporters write it, the whole N C .. shape).
  if (out_shape.size() == r + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (call.has_attr("output_shape")) {
    bool ok = out_shape.size() == r;
    for (int64_t v : out_shape) ok = ok && v >= 0 && v <= kWindowLimit;
    if (!ok) {
      return call.attr_error("output_shape must be " + std::to_string(r) + " sizes in [0, 2^30], got " +
                             shape_text(out_shape));
    }
  }
  const int64_t c = x.shape[1];
  if (group < 1 || c % group != 0) {
    return call.attr_error("group " + std::to_string(group) + " does not divide the input channels " +
                           std::to_string(c));
  }
  if (w.shape[0] != c) {
    return call.input_error("W " + shape_text(w.shape) + " must have X's " + std::to_string(c) +
                            " channels first (C x M/group x kernel)");
  }
  ARUN_RETURN_IF_ERROR(check_kernel_shape(call, w));
  const int64_t m = w.shape[1] * group;
  const Tensor* bias = nullptr;
  ARUN_RETURN_IF_ERROR(conv_bias(call, m, &bias));
  Window win;
  win.rank = spatial;
  const int off = kMaxSpatial - spatial;
  for (size_t i = 0; i < r; ++i) {
    const int d = off + static_cast<int>(i);
    const int64_t in = x.shape[2 + i], k = w.shape[2 + i];
    if (k > kWindowLimit) return call.input_error("kernel sizes must be at most 2^30");
    win.in[d] = in;
    win.kernel[d] = k;
    win.stride[d] = strides[i];
    win.dilation[d] = dilations[i];
    // The output before any padding is taken off.
    const int64_t full = strides[i] * (in - 1) + out_pad[i] + (k - 1) * dilations[i] + 1;
    int64_t want = -1;  // the requested output size, when output_shape or SAME fixes it
    if (!out_shape.empty()) {
      want = out_shape[i];
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      want = in * strides[i];
    }
    if (want >= 0) {
      const int64_t total = full - want;
      if (total < 0) {
        // A larger output than the taps reach: the extra positions come at the end and hold only
        // the bias, as output_padding would (ONNX's test_convtranspose_output_shape, onnxruntime).
        win.pad_begin[d] = 0;
        win.pad_end[d] = total;
      } else {
        // ONNX's split: SAME_UPPER puts the odd unit at the end, otherwise at the beginning.
        win.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        win.pad_end[d] = total - win.pad_begin[d];
      }
    } else {
      win.pad_begin[d] = auto_pad == "VALID" ? 0 : pads[i];
      win.pad_end[d] = auto_pad == "VALID" ? 0 : pads[i + r];
    }
    win.out[d] = full - win.pad_begin[d] - win.pad_end[d];
    if (win.out[d] < 0) return call.input_error("the output would have a negative size");
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, win.out_shape(x.shape[0], m)));
  if (x.shape[0] * m * win.out_count() == 0) return Status::Ok();
  const int64_t work = x.shape[0] * m * win.out_count() * (c / group);
  Status st;
  dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    ConvTransposeParams<T> p{
        ptr<T>(x), ptr<T>(w), bias != nullptr ? ptr<T>(*bias) : nullptr, ptr<T>(call.outputs[0]), x.shape[0], c, m,
        group,     win};
    st = launch_op(call, call.blocks_for(work, 1 << 16), conv_transpose_kernel<T>, p);
  });
  return st;
}

}  // namespace

void register_conv(std::vector<OpDef>& defs) {
  defs.push_back({"Conv", &run_conv, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}});
  // Made by the model loader only (ONNX shape inference knows no FusedConv in the default domain).
  defs.push_back(
      {"FusedConv",
       &run_conv,
       {"activation", "activation_params", "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}});
  defs.push_back(
      {"ConvTranspose",
       &run_conv_transpose,
       {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"}});
}

}  // namespace arun::ops
