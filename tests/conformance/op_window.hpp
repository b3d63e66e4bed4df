// Window geometry of the Conv / pool tests (op_conv_test.cpp, op_pool_norm_test.cpp), computed from
// ONNX's formulas independently of the library, and a spec of the attributes to set.
#ifndef ARUN_TESTS_CONFORMANCE_OP_WINDOW_HPP_
#define ARUN_TESTS_CONFORMANCE_OP_WINDOW_HPP_

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "op_support.hpp"

namespace conformance {

// The geometry of one spatial dimension, as the reference sees it.
struct Dim1 {
  int64_t in, k, stride = 1, dil = 1, pad_b = 0, pad_e = 0, out = 0;
};

// Up to 3 spatial dims, right-aligned into 3 slots (unused slots are unit dims) like the library's
// Window, but computed independently from ONNX's formulas.
struct Geo {
  Dim1 d[3] = {{1, 1, 1, 1, 0, 0, 1}, {1, 1, 1, 1, 0, 0, 1}, {1, 1, 1, 1, 0, 0, 1}};
  int rank = 0;
  Dim1& at(int i) { return d[3 - rank + i]; }
  int64_t in() const { return d[0].in * d[1].in * d[2].in; }
  int64_t out() const { return d[0].out * d[1].out * d[2].out; }
  int64_t kvol() const { return d[0].k * d[1].k * d[2].k; }
  Dims outDims(int64_t n, int64_t c) {
    Dims r{n, c};
    for (int i = 0; i < rank; ++i) r.push_back(at(i).out);
    return r;
  }
};

// A convolution (or pool) spec: attributes left empty are not set.
struct Spec {
  Dims x;  // N C spatial..
  Dims k;  // kernel sizes
  std::vector<int64_t> strides, dilations, pads, outPad, outShape;
  std::string autoPad;
  int64_t group = 1;
  bool ceil = false;

  // Braced like an aggregate ({x, k, strides, ...}), trailing members defaulted.
  Spec(Dims x_, Dims k_, std::vector<int64_t> strides_ = {}, std::vector<int64_t> dilations_ = {},
       std::vector<int64_t> pads_ = {}, std::vector<int64_t> outPad_ = {}, std::vector<int64_t> outShape_ = {},
       std::string autoPad_ = "", int64_t group_ = 1, bool ceil_ = false)
      : x(std::move(x_)),
        k(std::move(k_)),
        strides(std::move(strides_)),
        dilations(std::move(dilations_)),
        pads(std::move(pads_)),
        outPad(std::move(outPad_)),
        outShape(std::move(outShape_)),
        autoPad(std::move(autoPad_)),
        group(group_),
        ceil(ceil_) {}

  void apply(Attr& a) const {
    if (!strides.empty()) a.l("strides", strides);
    if (!dilations.empty()) a.l("dilations", dilations);
    if (!pads.empty()) a.l("pads", pads);
    if (!outPad.empty()) a.l("output_padding", outPad);
    if (!outShape.empty()) a.l("output_shape", outShape);
    if (!autoPad.empty()) a.s("auto_pad", autoPad.c_str());
    if (group != 1) a.i("group", group);
  }
  // Forward window geometry (Conv, pools).
  Geo geo() const {
    Geo g;
    g.rank = static_cast<int>(x.size()) - 2;
    for (int i = 0; i < g.rank; ++i) {
      Dim1& d = g.at(i);
      d.in = x[2 + i];
      d.k = k[i];
      d.stride = strides.empty() ? 1 : strides[i];
      d.dil = dilations.empty() ? 1 : dilations[i];
      const int64_t span = d.dil * (d.k - 1) + 1;
      if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        d.out = (d.in + d.stride - 1) / d.stride;
        const int64_t total = std::max<int64_t>(0, (d.out - 1) * d.stride + span - d.in);
        d.pad_b = autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
        d.pad_e = total - d.pad_b;
        continue;
      }
      if (autoPad != "VALID" && !pads.empty()) {
        d.pad_b = pads[i];
        d.pad_e = pads[i + g.rank];
      }
      const double q = double(d.in + d.pad_b + d.pad_e - span) / double(d.stride);
      d.out = static_cast<int64_t>(ceil ? std::ceil(q) : std::floor(q)) + 1;
      // PyTorch's rule, which the library follows: the last window starts inside input or left pad.
      if (ceil && (d.out - 1) * d.stride >= d.in + d.pad_b) --d.out;
    }
    return g;
  }
};

inline HostTensor make(aclDataType dt, const Dims& d, const std::vector<double>& v) {
  return dt == ACL_FLOAT ? f32(d, v) : f16(d, v);
}

}  // namespace conformance

#endif  // ARUN_TESTS_CONFORMANCE_OP_WINDOW_HPP_
