// Window geometry shared by Conv and the pools: ONNX's kernel_shape / strides / pads / dilations /
// auto_pad attributes for the two spatial dimensions of an NCHW tensor.
#pragma once

#include "kernel_common.hpp"

namespace arun::ops {

struct Window2d {
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t dilation[2] = {1, 1};
  int64_t pad_begin[2] = {0, 0};
  int64_t pad_end[2] = {0, 0};
  int64_t out[2] = {0, 0};
};

// Reads strides, dilations, pads and auto_pad (and ceil_mode when `ceil_mode` is set) for input
// spatial size `in` and the given kernel size, and computes the output size. Attribute errors name
// the attribute; a window larger than the padded input is an input error.
Status window_2d(const OpCall& call, const int64_t in[2], const int64_t kernel[2], bool allow_ceil, Window2d* w);

}  // namespace arun::ops
