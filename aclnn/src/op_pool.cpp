// MaxPool, MaxPool2dWithIndices, MaxPool2dWithMask and AvgPool2d (aclnn-api.md 5.21-5.22) over the
// op library's MaxPool / AveragePool kernels (pool.cpp, 2-D over NCHW; a 3-D CHW self is the same
// bytes as [1, C, H, W]). Indices come from MaxPool's Indices output in PyTorch's per-plane form
// (h * W + w); WithMask writes the same indices (CANN's mask layout is unspecified). AvgPool2d's
// divisorOverride is the kernel's divisor_override.
#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kPoolTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

struct Geometry {
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  int64_t pad_begin[2] = {0, 0}, pad_end[2] = {0, 0};
  bool ceil = false;
  int64_t out[2] = {0, 0};
};

// An array of length 1 (both dims) or 2 into `v`; `allow_empty` keeps `v` (the default) for length 0.
Status pair_of(const aclIntArray* a, const char* what, bool allow_empty, int64_t min, int64_t v[2]) {
  const auto& x = a->values;
  if (x.empty() && allow_empty) return Status::Ok();
  if (x.empty() || x.size() > 2) {
    return invalid(std::string(what) + " must have " + (allow_empty ? "0, " : "") + "1 or 2 values, got " +
                   std::to_string(x.size()));
  }
  v[0] = x[0];
  v[1] = x.size() == 2 ? x[1] : x[0];
  // Bounded so that the window arithmetic cannot overflow.
  for (int d = 0; d < 2; ++d) {
    if (v[d] < min || v[d] > (int64_t(1) << 30)) {
      return invalid(std::string(what) + " values must be in [" + std::to_string(min) + ", 2^30], got " +
                     ops::shape_text(x));
    }
  }
  return Status::Ok();
}

// Output size per dim (PyTorch/ONNX: the ceil variant drops a last window that starts in the
// trailing padding); 161002 when a dim would be empty.
Status infer(const aclTensor& self, Geometry* g) {
  const size_t r = self.view.size();
  for (int d = 0; d < 2; ++d) {
    const int64_t in = self.view[r - 2 + static_cast<size_t>(d)];
    const int64_t span = g->dilation[d] * (g->kernel[d] - 1) + 1;
    const int64_t room = in + g->pad_begin[d] + g->pad_end[d] - span;
    if (room < 0) {
      return invalid("the window " + std::to_string(span) + " is larger than the padded input " +
                     std::to_string(in + g->pad_begin[d] + g->pad_end[d]));
    }
    int64_t o = (g->ceil ? (room + g->stride[d] - 1) / g->stride[d] : room / g->stride[d]) + 1;
    if (g->ceil && (o - 1) * g->stride[d] >= in + g->pad_begin[d]) --o;
    if (o <= 0) return invalid("the inferred output size is 0");
    g->out[d] = o;
  }
  return Status::Ok();
}

Status check_self(const aclTensor* self, const char* what = "self") {
  ARUN_RETURN_IF_ERROR(check_view(*self, what));
  if (!in_list(self->dtype, kPoolTypes)) {
    return invalid(std::string(what) + " has dtype " + ops::dtype_name(self->dtype) +
                   "; supported: " + dtype_list(kPoolTypes));
  }
  if (self->view.size() != 3 && self->view.size() != 4) {
    return invalid(std::string(what) + " must be 3-D (CHW) or 4-D (NCHW), got " + ops::shape_text(self->view));
  }
  if (self->format == ACL_FORMAT_NHWC || self->format == ACL_FORMAT_NDHWC) {
    return invalid(std::string(what) + " format NHWC is not supported (NCHW / ND)");
  }
  return Status::Ok();
}

ops::Shape out_shape(const aclTensor& self, const Geometry& g) {
  ops::Shape s = self.view;
  s[s.size() - 2] = g.out[0];
  s[s.size() - 1] = g.out[1];
  return s;
}

Status check_out(const aclTensor* self, const aclTensor* out, const ops::Shape& want, const char* what = "out") {
  ARUN_RETURN_IF_ERROR(check_view(*out, what));
  if (out->dtype != self->dtype) return invalid(std::string(what) + " dtype differs from self's");
  if (out->format != self->format) return invalid(std::string(what) + " format differs from self's");
  if (out->view != want) {
    return invalid(std::string(what) + " shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
  }
  return Status::Ok();
}

// The plan: the pool kernel on [N, C, H, W] views of self / out (and the int64 indices).
void plan_pool(PlanBuilder& b, int si, int oi, int ii, const Geometry& g, bool max, bool include_pad, int64_t divisor) {
  const aclTensor& self = b.tensor(si);
  ops::Shape x4 = self.view, o4 = b.tensor(oi).view;
  if (x4.size() == 3) {
    x4.insert(x4.begin(), 1);
    o4.insert(o4.begin(), 1);
  }
  Staging s(b, oi, float_kernel_dtype(self.dtype));
  Operand x = s.input(si);
  x.shape = x4;
  Operand r = s.output();
  r.shape = o4;
  Step k;
  k.is_copy = false;
  k.kernel.type = max ? "MaxPool" : "AveragePool";
  k.kernel.attrs.set("kernel_shape", std::vector<int64_t>{g.kernel[0], g.kernel[1]});
  k.kernel.attrs.set("strides", std::vector<int64_t>{g.stride[0], g.stride[1]});
  k.kernel.attrs.set("pads", std::vector<int64_t>{g.pad_begin[0], g.pad_begin[1], g.pad_end[0], g.pad_end[1]});
  k.kernel.attrs.set("dilations", std::vector<int64_t>{g.dilation[0], g.dilation[1]});
  k.kernel.attrs.set("ceil_mode", static_cast<int64_t>(g.ceil ? 1 : 0));
  if (!max) {
    k.kernel.attrs.set("count_include_pad", static_cast<int64_t>(include_pad ? 1 : 0));
    k.kernel.attrs.set("divisor_override", divisor);
  }
  k.kernel.inputs = {x};
  k.kernel.output = r;
  Staging si64(b, ii >= 0 ? ii : oi, ACL_INT64);
  Operand idx;
  if (ii >= 0) {
    k.kernel.attrs.set("indices_per_plane", static_cast<int64_t>(1));
    idx = si64.output();
    idx.shape = o4;
    k.kernel.extra_outputs.push_back(idx);
  }
  b.add(std::move(k));
  s.finish(r);
  if (ii >= 0) si64.finish(idx);
}

Status plan_max_pool(const aclTensor* self, const aclIntArray* kernelShape, const aclIntArray* strides, int64_t autoPad,
                     const aclIntArray* pads, const aclIntArray* dilations, int64_t ceilMode, aclTensor* out,
                     uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_array(kernelShape, "kernelShape"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  // strides / pads / dilations: NULL reads as empty (the defaults).
  for (auto [a, what] : {std::pair{strides, "strides"}, std::pair{pads, "pads"}, std::pair{dilations, "dilations"}}) {
    if (a != nullptr) ARUN_RETURN_IF_ERROR(check_array(a, what));
  }
  ARUN_RETURN_IF_ERROR(check_self(self));
  Geometry g;
  ARUN_RETURN_IF_ERROR(pair_of(kernelShape, "kernelShape", false, 1, g.kernel));
  if (strides != nullptr) ARUN_RETURN_IF_ERROR(pair_of(strides, "strides", true, 1, g.stride));
  if (autoPad != 0) return invalid("autoPad must be 0 (NOTSET), got " + std::to_string(autoPad));
  if (pads != nullptr) {
    const auto& p = pads->values;
    if (p.size() == 4) {
      g.pad_begin[0] = p[0];
      g.pad_begin[1] = p[1];
      g.pad_end[0] = p[2];
      g.pad_end[1] = p[3];
    } else if (p.size() <= 2) {
      int64_t v[2] = {0, 0};
      if (!p.empty()) ARUN_RETURN_IF_ERROR(pair_of(pads, "pads", true, 0, v));
      for (int d = 0; d < 2; ++d) g.pad_begin[d] = g.pad_end[d] = v[d];
    } else {
      return invalid("pads must have 0, 1, 2 or 4 values, got " + std::to_string(p.size()));
    }
    for (int d = 0; d < 2; ++d) {
      if (g.pad_begin[d] < 0 || g.pad_end[d] < 0 || g.pad_begin[d] + g.pad_end[d] > g.kernel[d]) {
        return invalid("pads " + ops::shape_text(p) + " must be >= 0 with each dim's total <= the kernel");
      }
    }
  }
  if (dilations != nullptr) {
    const auto& dl = dilations->values;
    if (dl.size() == 3 || dl.size() > 4) return invalid("dilations must have 0, 1, 2 or 4 values");
    for (int64_t v : dl) {
      if (v != 1) return invalid("dilations must all be 1, got " + ops::shape_text(dl));
    }
  }
  g.ceil = ceilMode != 0;
  ARUN_RETURN_IF_ERROR(infer(*self, &g));
  ARUN_RETURN_IF_ERROR(check_out(self, out, out_shape(*self, g)));
  PlanBuilder b("MaxPool");
  const int si = b.add_input(self), oi = b.add_output(out);
  if (ops::numel(out->view) > 0) plan_pool(b, si, oi, -1, g, true, false, 0);
  return publish(b, ws, ex);
}

Status plan_max_pool_indices(const char* name, const aclTensor* self, const aclIntArray* kernelSize,
                             const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation,
                             bool ceilMode, aclTensor* out, aclTensor* indices, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_array(kernelSize, "kernelSize"));
  ARUN_RETURN_IF_ERROR(check_array(stride, "stride"));
  ARUN_RETURN_IF_ERROR(check_array(padding, "padding"));
  ARUN_RETURN_IF_ERROR(check_array(dilation, "dilation"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  ARUN_RETURN_IF_ERROR(check_tensor(indices, "indices"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_self(self));
  Geometry g;
  ARUN_RETURN_IF_ERROR(pair_of(kernelSize, "kernelSize", false, 1, g.kernel));
  g.stride[0] = g.kernel[0];
  g.stride[1] = g.kernel[1];
  ARUN_RETURN_IF_ERROR(pair_of(stride, "stride", true, 1, g.stride));
  int64_t pad[2] = {0, 0};
  ARUN_RETURN_IF_ERROR(pair_of(padding, "padding", false, 0, pad));
  for (int d = 0; d < 2; ++d) {
    if (pad[d] > g.kernel[d] / 2) return invalid("padding must be at most half the kernel");
    g.pad_begin[d] = g.pad_end[d] = pad[d];
  }
  ARUN_RETURN_IF_ERROR(pair_of(dilation, "dilation", false, 1, g.dilation));
  g.ceil = ceilMode;
  ARUN_RETURN_IF_ERROR(infer(*self, &g));
  const ops::Shape want = out_shape(*self, g);
  ARUN_RETURN_IF_ERROR(check_out(self, out, want));
  ARUN_RETURN_IF_ERROR(check_view(*indices, "indices"));
  if (indices->dtype != ACL_INT32 && indices->dtype != ACL_INT64) {
    return invalid(std::string("indices must be INT32 or INT64, got ") + ops::dtype_name(indices->dtype));
  }
  if (indices->view != want) {
    return invalid("indices shape " + ops::shape_text(indices->view) + " is not " + ops::shape_text(want));
  }
  PlanBuilder b(name + 5);
  const int si = b.add_input(self), oi = b.add_output(out), ii = b.add_output(indices);
  if (ops::numel(want) > 0) plan_pool(b, si, oi, ii, g, true, false, 0);
  return publish(b, ws, ex);
}

Status plan_avg_pool(const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* strides,
                     const aclIntArray* paddings, bool ceilMode, bool countIncludePad, int64_t divisorOverride,
                     int8_t cubeMathType, aclTensor* out, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_array(kernelSize, "kernelSize"));
  ARUN_RETURN_IF_ERROR(check_array(strides, "strides"));
  ARUN_RETURN_IF_ERROR(check_array(paddings, "paddings"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_self(self));
  if (ops::numel(self->view) == 0) return invalid("self is empty");
  Geometry g;
  ARUN_RETURN_IF_ERROR(pair_of(kernelSize, "kernelSize", false, 1, g.kernel));
  g.stride[0] = g.kernel[0];
  g.stride[1] = g.kernel[1];
  ARUN_RETURN_IF_ERROR(pair_of(strides, "strides", true, 1, g.stride));
  int64_t pad[2] = {0, 0};
  ARUN_RETURN_IF_ERROR(pair_of(paddings, "paddings", false, 0, pad));
  for (int d = 0; d < 2; ++d) {
    if (pad[d] > g.kernel[d] / 2) return invalid("paddings must be at most half the kernel");
    g.pad_begin[d] = g.pad_end[d] = pad[d];
  }
  if (cubeMathType < 0 || cubeMathType > 2) {
    return invalid("cubeMathType " + std::to_string(cubeMathType) + " is not 0, 1 or 2");
  }
  if (divisorOverride < 0) return invalid("divisorOverride must be >= 0 (0 = off)");
  g.ceil = ceilMode;
  ARUN_RETURN_IF_ERROR(infer(*self, &g));
  ARUN_RETURN_IF_ERROR(check_out(self, out, out_shape(*self, g)));
  PlanBuilder b("AvgPool2d");
  const int si = b.add_input(self), oi = b.add_output(out);
  plan_pool(b, si, oi, -1, g, false, countIncludePad, divisorOverride);
  return publish(b, ws, ex);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor* self, const aclIntArray* kernelShape,
                                         const aclIntArray* strides, const int64_t autoPad, const aclIntArray* pads,
                                         const aclIntArray* dilations, const int64_t ceilMode, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnMaxPool", [&] {
    return plan_max_pool(self, kernelShape, strides, autoPad, pads, dilations, ceilMode, out, workspaceSize, executor);
  });
}
aclnnStatus aclnnMaxPool(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnMaxPool", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithMaskGetWorkspaceSize(const aclTensor* self, const aclIntArray* kernelSize,
                                                   const aclIntArray* stride, const aclIntArray* padding,
                                                   const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                                                   aclTensor* indices, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
  return guarded("aclnnMaxPool2dWithMask", [&] {
    return plan_max_pool_indices("aclnnMaxPool2dWithMask", self, kernelSize, stride, padding, dilation, ceilMode, out,
                                 indices, workspaceSize, executor);
  });
}
aclnnStatus aclnnMaxPool2dWithMask(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return run_phase2("aclnnMaxPool2dWithMask", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(const aclTensor* self, const aclIntArray* kernelSize,
                                                      const aclIntArray* stride, const aclIntArray* padding,
                                                      const aclIntArray* dilation, bool ceilMode, aclTensor* out,
                                                      aclTensor* indices, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor) {
  return guarded("aclnnMaxPool2dWithIndices", [&] {
    return plan_max_pool_indices("aclnnMaxPool2dWithIndices", self, kernelSize, stride, padding, dilation, ceilMode,
                                 out, indices, workspaceSize, executor);
  });
}
aclnnStatus aclnnMaxPool2dWithIndices(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                      aclrtStream stream) {
  return run_phase2("aclnnMaxPool2dWithIndices", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* kernelSize,
                                           const aclIntArray* strides, const aclIntArray* paddings, const bool ceilMode,
                                           const bool countIncludePad, const int64_t divisorOverride,
                                           const int8_t cubeMathType, aclTensor* out, uint64_t* workspaceSize,
                                           aclOpExecutor** executor) {
  return guarded("aclnnAvgPool2d", [&] {
    return plan_avg_pool(self, kernelSize, strides, paddings, ceilMode, countIncludePad, divisorOverride, cubeMathType,
                         out, workspaceSize, executor);
  });
}
aclnnStatus aclnnAvgPool2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnAvgPool2d", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
