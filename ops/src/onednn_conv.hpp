// 2-D float32 convolution on oneDNN (Debian's libdnnl 2.6): the engine behind Conv's NCHW kernel
// where it has an implementation. Measured against the OpenBLAS im2col + sgemm path on the ResNet
// shapes (bench/README.md, "Convolution engines"): 2-3x faster at one thread with the same NCHW
// tensors, so Conv uses it first and keeps OpenBLAS as the fallback (ARUN_CONV_ENGINE=openblas
// forces the fallback, for the comparison). Where it pays (3x3 and larger kernels), the convolution
// runs on oneDNN's blocked layouts, its tensors reordered in and out per call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace arun::ops {

// One image's convolution: x [c, h, w], weights [m, c / group, kh, kw], optional bias [m], y [m, oh, ow],
// all contiguous. pads: top, left, bottom, right; dilations >= 1 (ONNX's meaning).
struct OneDnnConv2d {
  int64_t c = 0, h = 0, w = 0, m = 0, group = 1;
  int64_t kh = 1, kw = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_t = 0, pad_l = 0, pad_b = 0, pad_r = 0;
  int64_t oh = 0, ow = 0;
  bool bias = false;

  bool operator==(const OneDnnConv2d&) const = default;
};

// Whether Conv should use oneDNN at all (false with ARUN_CONV_ENGINE=openblas); read once.
bool onednn_conv_enabled();

// Whether oneDNN has an implementation for `shape` (creating and caching its primitive): the op
// function asks on the host, before it chooses the kernel.
bool onednn_conv2d_supported(const OneDnnConv2d& shape);

// Whether `shape` runs on oneDNN's blocked layouts (nChw16c activations, packed weights, reordered
// in and out per call) rather than on the NCHW tensors themselves; false where unsupported. The
// choice per shape is in onednn_conv.cpp (prefers_blocked, with the measurements).
bool onednn_conv2d_blocked(const OneDnnConv2d& shape);

// Runs `shape` on the calling thread (oneDNN's OpenMP threading pinned to one thread: the AI cores
// are the threads). The primitive is created on first use of a shape and cached. False when oneDNN
// has no implementation for the shape (the caller uses its own path); nothing is written then.
bool onednn_conv2d(const OneDnnConv2d& shape, const float* x, const float* weights, const float* bias, float* y);

}  // namespace arun::ops
