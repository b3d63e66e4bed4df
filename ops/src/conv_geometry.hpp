// Window geometry shared by Conv, ConvTranspose and the pools: ONNX's kernel_shape / strides / pads /
// dilations / auto_pad attributes over the 1 to 3 spatial dimensions of an N C D1.. tensor.
#pragma once

#include "kernel_common.hpp"

namespace arun::ops {

inline constexpr int kMaxSpatial = 3;
// Attribute values (strides, dilations, pads, kernel sizes) are bounded so that window arithmetic
// cannot overflow.
inline constexpr int64_t kWindowLimit = int64_t(1) << 30;

// The window over 1 to 3 spatial dims, right-aligned in 3 slots: a 2-D window uses slots 1 and 2
// and slot 0 is a unit dimension (size, kernel, stride, dilation and output 1, no padding), so the
// kernels always loop over 3 dims. pads are ONNX's: all begins, then all ends.
struct Window {
  int rank = 0;  // spatial dims, 1..3
  int64_t in[kMaxSpatial] = {1, 1, 1};
  int64_t kernel[kMaxSpatial] = {1, 1, 1};
  int64_t stride[kMaxSpatial] = {1, 1, 1};
  int64_t dilation[kMaxSpatial] = {1, 1, 1};
  int64_t pad_begin[kMaxSpatial] = {0, 0, 0};
  int64_t pad_end[kMaxSpatial] = {0, 0, 0};
  int64_t out[kMaxSpatial] = {1, 1, 1};

  int64_t in_count() const { return in[0] * in[1] * in[2]; }
  int64_t out_count() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_count() const { return kernel[0] * kernel[1] * kernel[2]; }
  // The output shape: N, C, then the spatial outputs.
  Shape out_shape(int64_t n, int64_t c) const {
    Shape s{n, c};
    for (int d = kMaxSpatial - rank; d < kMaxSpatial; ++d) s.push_back(out[d]);
    return s;
  }
};

// Reads an int-list attribute that must hold `n` values in [lo, kWindowLimit] (`def` when absent).
Status window_attr(const OpCall& call, const char* name, size_t n, int64_t lo, std::vector<int64_t> def,
                   std::vector<int64_t>* out);

// Reads strides, dilations, pads and auto_pad (and ceil_mode when `allow_ceil`) for the `rank`
// spatial sizes `in` and kernel sizes `kernel`, and computes the output size. Attribute errors name
// the attribute; a window larger than the padded input is an input error.
Status window_nd(const OpCall& call, int rank, const int64_t* in, const int64_t* kernel, bool allow_ceil, Window* w);

// The taps of one window dimension that land inside the input: k in [*lo, *hi) for a window that
// starts at `start` (may be negative: the leading padding).
inline void window_taps(int64_t start, int64_t kernel, int64_t dilation, int64_t in, int64_t* lo, int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *hi = in - start <= 0 ? 0 : std::min<int64_t>(kernel, (in - start + dilation - 1) / dilation);
  if (*hi < *lo) *hi = *lo;
}

}  // namespace arun::ops
