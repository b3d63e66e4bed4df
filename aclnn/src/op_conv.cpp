// Convolution, ConvTbc and ConvDepthwise2d (aclnn-api.md 5.20) over the op library's Conv kernel
// (conv.cpp: 2-D, NCHW, float32, im2col + sgemm). float16/bf16 operands are staged to float32 and
// the result converted; a 1-D convolution is the 2-D one over [N, C, 1, L]; ConvTbc reads its
// [T, B, C] input and [K, Cin, Cout] weight through permuted views (staged contiguous) and writes
// its output through one; a transposed convolution is the library's ConvTranspose (2-D, a direct
// gather); a 3-D one is its 3-D Conv (a direct loop). 3-D transposed convolutions have no kernel
// here: after the argument checks they answer 561103 (the spec's code for a specification no kernel
// supports).
#include "aclnnop/aclnn_convolution.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kConvTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

Status check_dtype(const aclTensor* t, const char* what) {
  if (in_list(t->dtype, kConvTypes)) return Status::Ok();
  return invalid(std::string(what) + " has dtype " + ops::dtype_name(t->dtype) +
                 "; supported: " + dtype_list(kConvTypes));
}

// A 2-D convolution on [N, C, H, W] views of the operands (shapes given; the bytes are the
// tensors' own or their staged copies).
struct Conv2d {
  ops::Shape x, w, y;  // 4-D
  int64_t stride[2] = {1, 1}, dilation[2] = {1, 1};
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right (ONNX order)
  int64_t groups = 1;
  bool transposed = false;
  int64_t out_pad[2] = {0, 0};  // transposed only
};

void plan_conv2d(PlanBuilder& b, int xi, int wi, int bi, int oi, const Conv2d& c) {
  Staging s(b, oi, ACL_FLOAT);
  Operand x = s.input(xi), w = s.input(wi);
  x.shape = c.x;
  w.shape = c.w;
  std::vector<Operand> ins{x, w};
  if (bi >= 0) ins.push_back(s.input(bi));
  Operand r = s.output();
  r.shape = c.y;
  ops::Attrs attrs;
  attrs.set("strides", std::vector<int64_t>{c.stride[0], c.stride[1]});
  attrs.set("dilations", std::vector<int64_t>{c.dilation[0], c.dilation[1]});
  attrs.set("pads", std::vector<int64_t>{c.pads[0], c.pads[1], c.pads[2], c.pads[3]});
  attrs.set("group", c.groups);
  if (c.transposed) attrs.set("output_padding", std::vector<int64_t>{c.out_pad[0], c.out_pad[1]});
  s.kernel(c.transposed ? "ConvTranspose" : "Conv", std::move(ins), r, std::move(attrs));
  s.finish(r);
}

// Output size of one spatial dim; 161002 when the padded input is smaller than the dilated kernel.
Status out_size(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d, int64_t* out) {
  const int64_t room = in + pb + pe - d * (k - 1) - 1;
  if (room < 0) {
    return invalid("the padded input " + std::to_string(in + pb + pe) + " is smaller than the dilated kernel " +
                   std::to_string(d * (k - 1) + 1));
  }
  *out = room / s + 1;
  return Status::Ok();
}

// Everything after the NULL checks (the arrays' values given as vectors).
Status plan_convolution_checked(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                                const std::vector<int64_t>& st, const std::vector<int64_t>& pd,
                                const std::vector<int64_t>& dl, bool transposed, const std::vector<int64_t>& op,
                                int64_t groups, aclTensor* output, int8_t cubeMathType, uint64_t* ws,
                                aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_view(*input, "input"));
  ARUN_RETURN_IF_ERROR(check_view(*weight, "weight"));
  ARUN_RETURN_IF_ERROR(check_view(*output, "output"));
  ARUN_RETURN_IF_ERROR(check_dtype(input, "input"));
  ARUN_RETURN_IF_ERROR(check_dtype(weight, "weight"));
  ARUN_RETURN_IF_ERROR(check_dtype(output, "output"));
  if (bias != nullptr) {
    ARUN_RETURN_IF_ERROR(check_view(*bias, "bias"));
    ARUN_RETURN_IF_ERROR(check_dtype(bias, "bias"));
  }
  if (transposed && (weight->dtype != input->dtype || output->dtype != input->dtype)) {
    return invalid("a transposed convolution needs input, weight and output of one dtype");
  }
  if (cubeMathType < 0 || cubeMathType > 4) {
    return invalid("cubeMathType " + std::to_string(cubeMathType) + " is not 0..4");
  }
  const size_t rank = input->view.size();
  if (rank < 3 || rank > 5) return invalid("input must be 3-D, 4-D or 5-D (NCL, NCHW, NCDHW)");
  if (weight->view.size() != rank) return invalid("weight rank differs from input rank");
  const size_t sr = rank - 2;
  if (st.size() != sr || dl.size() != sr) {
    return invalid("stride and dilation must have " + std::to_string(sr) + " values");
  }
  for (size_t d = 0; d < sr; ++d) {
    if (st[d] <= 0 || dl[d] <= 0) return invalid("stride and dilation must be positive");
    if (st[d] > (int64_t(1) << 30) || dl[d] > (int64_t(1) << 30)) return invalid("stride/dilation above 2^30");
  }
  // Padding: begin and end per spatial dim.
  std::vector<int64_t> pb(sr), pe(sr);
  if (pd.size() == sr) {
    for (size_t d = 0; d < sr; ++d) pb[d] = pe[d] = pd[d];
  } else if (sr == 1 && pd.size() == 2 && !transposed) {
    pb[0] = pd[0];
    pe[0] = pd[1];
  } else if (sr == 2 && pd.size() == 4) {
    pb = {pd[0], pd[2]};  // top, bottom, left, right
    pe = {pd[1], pd[3]};
  } else {
    return invalid("padding has " + std::to_string(pd.size()) + " values for a " + std::to_string(sr) +
                   "-D convolution");
  }
  for (size_t d = 0; d < sr; ++d) {
    if (pb[d] < 0 || pe[d] < 0 || pb[d] > (int64_t(1) << 30) || pe[d] > (int64_t(1) << 30)) {
      return invalid("padding values must be in [0, 2^30]");
    }
  }
  if (transposed) {
    if (op.size() != sr) return invalid("outputPadding must have " + std::to_string(sr) + " values");
    for (size_t d = 0; d < sr; ++d) {
      if (op[d] < 0 || (op[d] >= st[d] && op[d] >= dl[d])) {
        return invalid("outputPadding must be smaller than stride or dilation");
      }
    }
  }
  if (groups < 1 || groups > 65535) return invalid("groups " + std::to_string(groups) + " is not in [1, 65535]");
  const int64_t n = input->view[0], cin = input->view[1];
  int64_t cout;
  if (!transposed) {
    if (weight->view[1] * groups != cin) {
      return invalid("groups x weight channels (" + std::to_string(groups) + " x " + std::to_string(weight->view[1]) +
                     ") differ from the input channels " + std::to_string(cin));
    }
    cout = weight->view[0];
    if (cout % groups != 0) return invalid("the output channels are not a multiple of groups");
  } else {
    if (weight->view[0] != cin || cin % groups != 0) {
      return invalid("a transposed weight must be [Cin, Cout/groups, k...] with Cin divisible by groups");
    }
    cout = weight->view[1] * groups;
  }
  if (bias != nullptr && bias->view != ops::Shape{cout}) {
    return invalid("bias shape " + ops::shape_text(bias->view) + " is not [" + std::to_string(cout) + "]");
  }
  ops::Shape want{n, cout};
  for (size_t d = 0; d < sr; ++d) {
    const int64_t in = input->view[2 + d], k = weight->view[2 + d];
    int64_t o;
    if (!transposed) {
      ARUN_RETURN_IF_ERROR(out_size(in, k, st[d], pb[d], pe[d], dl[d], &o));
    } else {
      o = (in - 1) * st[d] - pb[d] - pe[d] + dl[d] * (k - 1) + op[d] + 1;
      if (o <= 0) return invalid("the transposed convolution's output would be empty");
    }
    want.push_back(o);
  }
  if (output->view != want) {
    return invalid("output shape " + ops::shape_text(output->view) + " is not " + ops::shape_text(want));
  }
  if (sr == 3 && transposed) {
    return error(kInnerNullptr, "3-D transposed convolution has no kernel in ascend-run");
  }
  PlanBuilder b("Convolution");
  const int xi = b.add_input(input), wi = b.add_input(weight);
  const int bi = bias != nullptr ? b.add_input(bias) : (b.add_input(nullptr), -1);
  const int oi = b.add_output(output);
  if (ops::numel(want) > 0 && ops::numel(input->view) > 0 && sr == 3) {
    // 3-D: the library's Conv on NCDHW, float32.
    Staging s(b, oi, ACL_FLOAT);
    std::vector<Operand> ins{s.input(xi), s.input(wi)};
    if (bi >= 0) ins.push_back(s.input(bi));
    const Operand r = s.output();
    ops::Attrs attrs;
    attrs.set("strides", st);
    attrs.set("dilations", dl);
    attrs.set("pads", std::vector<int64_t>{pb[0], pb[1], pb[2], pe[0], pe[1], pe[2]});
    attrs.set("group", groups);
    s.kernel("Conv", std::move(ins), r, std::move(attrs));
    s.finish(r);
  } else if (ops::numel(want) > 0 && ops::numel(input->view) > 0) {
    Conv2d c;
    c.groups = groups;
    c.transposed = transposed;
    if (sr == 1) {
      c.x = {n, cin, 1, input->view[2]};
      c.w = {weight->view[0], weight->view[1], 1, weight->view[2]};
      c.y = {n, cout, 1, want[2]};
      c.stride[1] = st[0];
      c.dilation[1] = dl[0];
      c.pads[1] = pb[0];
      c.pads[3] = pe[0];
      if (transposed) c.out_pad[1] = op[0];
    } else {
      c.x = input->view;
      c.w = weight->view;
      c.y = want;
      for (int d = 0; d < 2; ++d) {
        c.stride[d] = st[static_cast<size_t>(d)];
        c.dilation[d] = dl[static_cast<size_t>(d)];
        c.pads[d] = pb[static_cast<size_t>(d)];
        c.pads[d + 2] = pe[static_cast<size_t>(d)];
        if (transposed) c.out_pad[d] = op[static_cast<size_t>(d)];
      }
    }
    plan_conv2d(b, xi, wi, bi, oi, c);
  } else if (ops::numel(want) > 0) {
    // No input elements (Cin == 0): the output is the bias (or 0).
    Step s;
    if (bi >= 0) {
      ops::Shape bshape{cout};
      for (size_t d = 0; d < sr; ++d) bshape.push_back(1);
      s.copy.src_tensor = bi;
      s.copy.src_dtype = bias->dtype;
      s.copy.src_shape = bshape;
      b.view(bi).view = bshape;  // [Cout, 1, ...] broadcasts over the output
      b.view(bi).strides.assign(bshape.size(), 0);
      b.view(bi).strides[0] = bias->strides[0];
    } else {
      s.copy.src_const = true;
      s.copy.constant = Value{true, 0, 0};
      s.copy.src_dtype = ACL_FLOAT;
    }
    s.copy.dst_tensor = oi;
    s.copy.dst_dtype = output->dtype;
    s.copy.shape = want;
    b.add(std::move(s));
  }
  return publish(b, ws, ex);
}

Status plan_convolution(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                        const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation,
                        bool transposed, const aclIntArray* outputPadding, int64_t groups, aclTensor* output,
                        int8_t cubeMathType, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(input, "input"));
  ARUN_RETURN_IF_ERROR(check_tensor(weight, "weight"));
  if (bias != nullptr) ARUN_RETURN_IF_ERROR(check_tensor(bias, "bias"));
  ARUN_RETURN_IF_ERROR(check_array(stride, "stride"));
  ARUN_RETURN_IF_ERROR(check_array(padding, "padding"));
  ARUN_RETURN_IF_ERROR(check_array(dilation, "dilation"));
  ARUN_RETURN_IF_ERROR(check_array(outputPadding, "outputPadding"));
  ARUN_RETURN_IF_ERROR(check_tensor(output, "output"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  return plan_convolution_checked(input, weight, bias, stride->values, padding->values, dilation->values, transposed,
                                  outputPadding->values, groups, output, cubeMathType, ws, ex);
}

Status plan_conv_tbc(const aclTensor* self, const aclTensor* weight, const aclTensor* bias, int64_t pad,
                     aclTensor* output, int8_t cubeMathType, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_tensor(weight, "weight"));
  ARUN_RETURN_IF_ERROR(check_tensor(bias, "bias"));
  ARUN_RETURN_IF_ERROR(check_tensor(output, "output"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  for (auto [t, what] : {std::pair{self, "self"}, std::pair{weight, "weight"}, std::pair{bias, "bias"},
                         std::pair{static_cast<const aclTensor*>(output), "output"}}) {
    ARUN_RETURN_IF_ERROR(check_view(*t, what));
    ARUN_RETURN_IF_ERROR(check_dtype(t, what));
  }
  if (cubeMathType < 0 || cubeMathType > 4) {
    return invalid("cubeMathType " + std::to_string(cubeMathType) + " is not 0..4");
  }
  if (self->view.size() != 3 || weight->view.size() != 3) return invalid("self and weight must be 3-D");
  const int64_t t = self->view[0], bsz = self->view[1], cin = self->view[2];
  const int64_t k = weight->view[0], cout = weight->view[2];
  if (weight->view[1] != cin) return invalid("weight [K, Cin, Cout] does not match self's channels");
  if (bias->view != ops::Shape{cout}) return invalid("bias must be [" + std::to_string(cout) + "]");
  if (pad < 0 || pad > (int64_t(1) << 30)) return invalid("pad must be in [0, 2^30]");
  int64_t tout = 0;
  ARUN_RETURN_IF_ERROR(out_size(t, k, 1, pad, pad, 1, &tout));
  const ops::Shape want{tout, bsz, cout};
  if (output->view != want) {
    return invalid("output shape " + ops::shape_text(output->view) + " is not " + ops::shape_text(want));
  }
  PlanBuilder b("ConvTbc");
  const int xi = b.add_input(self), wi = b.add_input(weight), bi = b.add_input(bias), oi = b.add_output(output);
  // Permuted views: self [T, B, C] as [B, C, T]; weight [K, Cin, Cout] as [Cout, Cin, K]; output
  // [T', B, Cout] as [B, Cout, T'].
  auto permute = [&](int i, std::initializer_list<size_t> order) {
    aclTensor& v = b.view(i);
    const ops::Shape view = v.view, strides = v.strides;
    size_t j = 0;
    for (size_t o : order) {
      v.view[j] = view[o];
      v.strides[j++] = strides[o];
    }
  };
  permute(xi, {1, 2, 0});
  permute(wi, {2, 1, 0});
  permute(oi, {1, 2, 0});
  if (ops::numel(want) > 0) {
    if (cin == 0) {
      // An empty contraction: every output row is the bias.
      Step s;
      b.view(bi).view = {cout, 1};
      b.view(bi).strides = {bias->strides[0], 0};
      s.copy.src_tensor = bi;
      s.copy.src_dtype = bias->dtype;
      s.copy.src_shape = {cout, 1};
      s.copy.dst_tensor = oi;
      s.copy.dst_dtype = output->dtype;
      s.copy.shape = {bsz, cout, tout};
      b.add(std::move(s));
    } else {
      Conv2d c;
      c.x = {bsz, cin, 1, t};
      c.w = {cout, cin, 1, k};
      c.y = {bsz, cout, 1, tout};
      c.pads[1] = c.pads[3] = pad;
      plan_conv2d(b, xi, wi, bi, oi, c);
    }
  }
  return publish(b, ws, ex);
}

Status plan_depthwise(const aclTensor* self, const aclTensor* weight, const aclIntArray* kernelSize,
                      const aclTensor* bias, const aclIntArray* stride, const aclIntArray* padding,
                      const aclIntArray* dilation, aclTensor* out, int8_t cubeMathType, uint64_t* ws,
                      aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_tensor(weight, "weight"));
  ARUN_RETURN_IF_ERROR(check_array(kernelSize, "kernelSize"));
  if (bias != nullptr) ARUN_RETURN_IF_ERROR(check_tensor(bias, "bias"));
  ARUN_RETURN_IF_ERROR(check_array(stride, "stride"));
  ARUN_RETURN_IF_ERROR(check_array(padding, "padding"));
  ARUN_RETURN_IF_ERROR(check_array(dilation, "dilation"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  if (self->view.size() != 4 || weight->view.size() != 4) return invalid("self and weight must be 4-D (NCHW)");
  const int64_t c = self->view[1];
  if (c < 1 || weight->view[1] != 1 || weight->view[0] % c != 0) {
    return invalid("weight " + ops::shape_text(weight->view) + " is not [C x m, 1, kH, kW] for " + std::to_string(c) +
                   " channels");
  }
  const auto& ks = kernelSize->values;
  const ops::Shape wk{weight->view[2], weight->view[3]};
  if (!(ks.size() == 2 && ks == wk) && !(ks.size() == 1 && wk[0] == ks[0] && wk[1] == ks[0])) {
    return invalid("kernelSize " + ops::shape_text(ks) + " differs from the weight's " + ops::shape_text(wk));
  }
  // Same as Convolution with groups = C, 2 values per array (one value: both dims).
  auto two = [](const aclIntArray* a) {
    std::vector<int64_t> v = a->values;
    if (v.size() == 1) v.push_back(v[0]);
    return v;
  };
  const std::vector<int64_t> st = two(stride), pd = two(padding), dl = two(dilation);
  if (st.size() != 2 || pd.size() != 2 || dl.size() != 2) {
    return invalid("stride, padding and dilation must have 1 or 2 values");
  }
  return plan_convolution_checked(self, weight, bias, st, pd, dl, false, {0, 0}, c, out, cubeMathType, ws, ex);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                                             const aclIntArray* stride, const aclIntArray* padding,
                                             const aclIntArray* dilation, bool transposed,
                                             const aclIntArray* outputPadding, const int64_t groups, aclTensor* output,
                                             int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnConvolution", [&] {
    return plan_convolution(input, weight, bias, stride, padding, dilation, transposed, outputPadding, groups, output,
                            cubeMathType, workspaceSize, executor);
  });
}
aclnnStatus aclnnConvTbcGetWorkspaceSize(const aclTensor* self, const aclTensor* weight, const aclTensor* bias,
                                         const int64_t pad, aclTensor* output, int8_t cubeMathType,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnConvTbc",
                 [&] { return plan_conv_tbc(self, weight, bias, pad, output, cubeMathType, workspaceSize, executor); });
}
aclnnStatus aclnnConvDepthwise2dGetWorkspaceSize(const aclTensor* self, const aclTensor* weight,
                                                 const aclIntArray* kernelSize, const aclTensor* bias,
                                                 const aclIntArray* stride, const aclIntArray* padding,
                                                 const aclIntArray* dilation, aclTensor* out, int8_t cubeMathType,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnConvDepthwise2d", [&] {
    return plan_depthwise(self, weight, kernelSize, bias, stride, padding, dilation, out, cubeMathType, workspaceSize,
                          executor);
  });
}
aclnnStatus aclnnConvolution(void* workspace, const uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return run_phase2("aclnnConvolution", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnConvTbc(void* workspace, const uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnConvTbc", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnConvDepthwise2d(void* workspace, const uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream) {
  return run_phase2("aclnnConvDepthwise2d", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
