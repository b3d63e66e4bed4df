// LayerNorm, LayerNormWithImplMode, FastLayerNorm (aclnn-api.md 5.23) over the op library's
// LayerNormalization kernel (normalization.cpp), which also produces the mean and 1/std in float32;
// RmsNorm (5.24) over its RMSNormalization kernel (the same kernel without centring); BatchNorm
// (5.25) over its BatchNormalization kernel (PyTorch's momentum and unbiased running variance).
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kNormTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

Status optional_tensor(const aclTensor* t, const char* what) {
  return t == nullptr ? Status::Ok() : check_tensor(t, what);
}

// A statistics output: straight into the user's tensor when it is contiguous float32, otherwise
// through the workspace (and then converted); a scratch buffer when the caller did not ask for it.
Operand stat_output(PlanBuilder& b, int ti, const ops::Shape& shape, std::vector<Step>* after) {
  if (ti >= 0) {
    const aclTensor& t = b.tensor(ti);
    if (t.dtype == ACL_FLOAT && contiguous(t)) return Operand{ti, 0, ACL_FLOAT, shape};
  }
  Operand op{-1, b.reserve(ACL_FLOAT, shape), ACL_FLOAT, shape};
  if (ti >= 0) {
    Step s;
    s.copy.src_ws = op.ws_offset;
    s.copy.src_dtype = ACL_FLOAT;
    s.copy.src_shape = shape;
    s.copy.dst_tensor = ti;
    s.copy.dst_dtype = b.tensor(ti).dtype;
    s.copy.shape = shape;
    after->push_back(std::move(s));
  }
  return op;
}

Status plan_layer_norm(const char* name, const aclTensor* input, const aclIntArray* normalizedShape,
                       const aclTensor* weight, const aclTensor* bias, double eps, aclTensor* out, aclTensor* mean,
                       aclTensor* rstd, int32_t implMode, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(input, "input"));
  if (normalizedShape == nullptr) return null_error("normalizedShape");
  if (!live(normalizedShape, Kind::IntArray)) return invalid("normalizedShape is not a live aclIntArray");
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  ARUN_RETURN_IF_ERROR(optional_tensor(weight, "weightOptional"));
  ARUN_RETURN_IF_ERROR(optional_tensor(bias, "biasOptional"));
  ARUN_RETURN_IF_ERROR(optional_tensor(mean, "meanOutOptional"));
  ARUN_RETURN_IF_ERROR(optional_tensor(rstd, "rstdOutOptional"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*input, "input"));
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(input->dtype, kNormTypes)) {
    return invalid(std::string("input has dtype ") + ops::dtype_name(input->dtype) +
                   "; supported: " + dtype_list(kNormTypes));
  }
  if (input->view.empty()) return invalid("input must have rank 1..8");
  if (out->dtype != input->dtype) return invalid("out dtype differs from input dtype");
  if (out->view != input->view) {
    return invalid("out shape " + ops::shape_text(out->view) + " differs from input shape " +
                   ops::shape_text(input->view));
  }
  const ops::Shape& norm = normalizedShape->values;
  const size_t rank = input->view.size();
  if (norm.empty() || norm.size() > rank || !std::equal(norm.begin(), norm.end(), input->view.end() - norm.size())) {
    return invalid("normalizedShape " + ops::shape_text(norm) + " is not a trailing part of the input shape " +
                   ops::shape_text(input->view));
  }
  const int64_t axis = static_cast<int64_t>(rank - norm.size());
  for (auto [t, what] : {std::pair{weight, "weightOptional"}, std::pair{bias, "biasOptional"}}) {
    if (t == nullptr) continue;
    ARUN_RETURN_IF_ERROR(check_view(*t, what));
    if (t->view != norm)
      return invalid(std::string(what) + " shape " + ops::shape_text(t->view) + " is not " + ops::shape_text(norm));
    if (t->dtype != input->dtype && t->dtype != ACL_FLOAT) {
      return invalid(std::string(what) + " dtype must be the input's or FLOAT");
    }
  }
  if (weight != nullptr && bias != nullptr && weight->dtype != bias->dtype) {
    return invalid("weightOptional and biasOptional have different dtypes");
  }
  ops::Shape stat(input->view.begin(), input->view.begin() + axis);
  stat.resize(rank, 1);
  for (auto [t, what] : {std::pair{mean, "meanOutOptional"}, std::pair{rstd, "rstdOutOptional"}}) {
    if (t == nullptr) continue;
    ARUN_RETURN_IF_ERROR(check_view(*t, what));
    if (t->view != stat)
      return invalid(std::string(what) + " shape " + ops::shape_text(t->view) + " is not " + ops::shape_text(stat));
    if (t->dtype != input->dtype && t->dtype != ACL_FLOAT)
      return invalid(std::string(what) + " dtype must be the input's or FLOAT");
  }
  if (implMode < 0 || implMode > 2) return invalid("implMode " + std::to_string(implMode) + " is not 0, 1 or 2");
  if (implMode == 2) {
    for (const aclTensor* t : {input, weight, bias}) {
      if (t != nullptr && t->dtype != ACL_FLOAT16) return invalid("implMode 2 (keep FLOAT16) needs FLOAT16 inputs");
    }
  }

  PlanBuilder b(name + 5);
  const int xi = b.add_input(input);
  const int wi = weight != nullptr ? b.add_input(weight) : (b.add_input(nullptr), -1);
  const int bi = bias != nullptr ? b.add_input(bias) : (b.add_input(nullptr), -1);
  const int oi = b.add_output(out);
  const int mi = mean != nullptr ? b.add_output(mean) : (b.add_output(nullptr), -1);
  const int ri = rstd != nullptr ? b.add_output(rstd) : (b.add_output(nullptr), -1);
  if (ops::numel(input->view) > 0) {
    bool clash = false;
    for (const aclTensor* t : {mean, rstd}) {
      if (t != nullptr && overlaps(*t, *out)) clash = true;
    }
    Staging s(b, oi, float_kernel_dtype(input->dtype), !clash && !overlaps(*input, *out));
    std::vector<Operand> ins{s.input(xi), wi >= 0 ? s.input(wi) : s.filled(norm, 1.0)};
    if (bi >= 0) ins.push_back(s.input(bi));
    const Operand r = s.output();
    std::vector<Step> after;
    Step k;
    k.is_copy = false;
    k.kernel.type = "LayerNormalization";
    k.kernel.attrs.set("axis", axis);
    k.kernel.attrs.set("epsilon", static_cast<float>(eps));
    k.kernel.inputs = std::move(ins);
    k.kernel.output = r;
    if (mi >= 0 || ri >= 0) k.kernel.extra_outputs.push_back(stat_output(b, mi, stat, &after));
    if (ri >= 0) k.kernel.extra_outputs.push_back(stat_output(b, ri, stat, &after));
    b.add(std::move(k));
    s.finish(r);
    for (Step& st : after) b.add(std::move(st));
  }
  return publish(b, ws, ex);
}

// RmsNorm's shape errors are the generated operators' tiling error (spec 5.24).
constexpr int kTilingError = 561002;  // ACLNN_ERR_INNER_TILING_ERROR

Status plan_rms_norm(const aclTensor* x, const aclTensor* gamma, double epsilon, const aclTensor* y,
                     const aclTensor* rstd, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(x, "x"));
  ARUN_RETURN_IF_ERROR(check_tensor(gamma, "gamma"));
  ARUN_RETURN_IF_ERROR(check_tensor(y, "yOut"));
  ARUN_RETURN_IF_ERROR(check_tensor(rstd, "rstdOut"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  for (auto [t, what] :
       {std::pair{x, "x"}, std::pair{gamma, "gamma"}, std::pair{y, "yOut"}, std::pair{rstd, "rstdOut"}}) {
    ARUN_RETURN_IF_ERROR(check_view(*t, what));
  }
  // The dtype table: (x, gamma, y, rstd).
  const bool ok_types =
      rstd->dtype == ACL_FLOAT && y->dtype == x->dtype &&
      ((x->dtype == ACL_FLOAT && gamma->dtype == ACL_FLOAT) ||
       ((x->dtype == ACL_FLOAT16 || x->dtype == ACL_BF16) && (gamma->dtype == ACL_FLOAT || gamma->dtype == x->dtype)));
  if (!ok_types) {
    return invalid(std::string("dtypes (x, gamma, yOut, rstdOut) = (") + ops::dtype_name(x->dtype) + ", " +
                   ops::dtype_name(gamma->dtype) + ", " + ops::dtype_name(y->dtype) + ", " +
                   ops::dtype_name(rstd->dtype) + ") are not a supported combination");
  }
  const size_t rank = x->view.size();
  if (rank == 0) return invalid("x must have rank 1..8");
  const ops::Shape& g = gamma->view;
  if (g.empty() || g.size() > rank || !std::equal(g.begin(), g.end(), x->view.end() - g.size())) {
    return error(kTilingError,
                 "gamma shape " + ops::shape_text(g) + " is not a trailing part of x's " + ops::shape_text(x->view));
  }
  if (ops::numel(g) == 0) return error(kTilingError, "gamma is empty");
  const int64_t axis = static_cast<int64_t>(rank - g.size());
  ops::Shape stat(x->view.begin(), x->view.begin() + axis);
  stat.resize(rank, 1);
  if (y->view != x->view) {
    return error(kTilingError, "yOut shape " + ops::shape_text(y->view) + " is not x's " + ops::shape_text(x->view));
  }
  if (rstd->view != stat) {
    return error(kTilingError, "rstdOut shape " + ops::shape_text(rstd->view) + " is not " + ops::shape_text(stat));
  }
  PlanBuilder b("RmsNorm");
  const int xi = b.add_input(x), gi = b.add_input(gamma);
  const int yi = b.add_output(y), ri = b.add_output(rstd);
  if (ops::numel(x->view) > 0) {
    // float16 throughout when x and gamma are float16; otherwise float32 (bf16, mixed).
    const aclDataType kdt = x->dtype == ACL_FLOAT16 && gamma->dtype == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT;
    Staging s(b, yi, kdt, !overlaps(*rstd, *y) && !overlaps(*x, *y));
    std::vector<Operand> ins{s.input(xi), s.input(gi)};
    const Operand r = s.output();
    std::vector<Step> after;
    Step k;
    k.is_copy = false;
    k.kernel.type = "RMSNormalization";
    k.kernel.attrs.set("axis", axis);
    k.kernel.attrs.set("epsilon", static_cast<float>(epsilon));
    k.kernel.inputs = std::move(ins);
    k.kernel.output = r;
    k.kernel.extra_outputs.push_back(stat_output(b, ri, stat, &after));
    b.add(std::move(k));
    s.finish(r);
    for (Step& st : after) b.add(std::move(st));
  }
  return publish(b, ws, ex);
}

Status plan_batch_norm(const aclTensor* input, const aclTensor* weight, const aclTensor* bias, aclTensor* run_mean,
                       aclTensor* run_var, bool training, double momentum, double eps, aclTensor* output,
                       aclTensor* save_mean, aclTensor* save_invstd, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(input, "input"));
  ARUN_RETURN_IF_ERROR(optional_tensor(weight, "weight"));
  ARUN_RETURN_IF_ERROR(optional_tensor(bias, "bias"));
  // Inference normalises with the running statistics: they are required then (ours, 161001).
  if (!training) {
    ARUN_RETURN_IF_ERROR(check_tensor(run_mean, "runningMean (required when training is false)"));
    ARUN_RETURN_IF_ERROR(check_tensor(run_var, "runningVar (required when training is false)"));
  } else {
    ARUN_RETURN_IF_ERROR(optional_tensor(run_mean, "runningMean"));
    ARUN_RETURN_IF_ERROR(optional_tensor(run_var, "runningVar"));
  }
  ARUN_RETURN_IF_ERROR(check_tensor(output, "output"));
  // The batch statistics are outputs of training; inference does not write them.
  if (training) {
    ARUN_RETURN_IF_ERROR(check_tensor(save_mean, "saveMean"));
    ARUN_RETURN_IF_ERROR(check_tensor(save_invstd, "saveInvstd"));
  } else {
    ARUN_RETURN_IF_ERROR(optional_tensor(save_mean, "saveMean"));
    ARUN_RETURN_IF_ERROR(optional_tensor(save_invstd, "saveInvstd"));
  }
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*input, "input"));
  ARUN_RETURN_IF_ERROR(check_view(*output, "output"));
  if (!in_list(input->dtype, kNormTypes)) {
    return invalid(std::string("input has dtype ") + ops::dtype_name(input->dtype) +
                   "; supported: " + dtype_list(kNormTypes));
  }
  // Channel axis 1: the plain formats; NHWC/NDHWC (950 only) and private formats are not supported.
  for (auto [t, what] : {std::pair{input, "input"}, std::pair{static_cast<const aclTensor*>(output), "output"}}) {
    const aclFormat f = t->format;
    if (f != ACL_FORMAT_ND && f != ACL_FORMAT_NCHW && f != ACL_FORMAT_NCDHW && f != ACL_FORMAT_NCL) {
      return invalid(std::string(what) + " format " + std::to_string(f) + " is not ND, NCL, NCHW or NCDHW");
    }
  }
  if (output->format != input->format) return invalid("output format differs from input format");
  const size_t rank = input->view.size();
  if (rank < 2) return invalid("input must have rank 2..8, got " + std::to_string(rank));
  if (output->dtype != input->dtype) return invalid("output dtype differs from input dtype");
  if (output->view != input->view) {
    return invalid("output shape " + ops::shape_text(output->view) + " differs from input shape " +
                   ops::shape_text(input->view));
  }
  const int64_t c = input->view[1];
  const std::pair<const aclTensor*, const char*> params[] = {{weight, "weight"},        {bias, "bias"},
                                                             {run_mean, "runningMean"}, {run_var, "runningVar"},
                                                             {save_mean, "saveMean"},   {save_invstd, "saveInvstd"}};
  for (auto [t, what] : params) {
    if (t == nullptr) continue;
    ARUN_RETURN_IF_ERROR(check_view(*t, what));
    if (!in_list(t->dtype, kNormTypes)) {
      return invalid(std::string(what) + " has dtype " + ops::dtype_name(t->dtype) +
                     "; supported: " + dtype_list(kNormTypes));
    }
    if (t->view != ops::Shape{c}) {
      return invalid(std::string(what) + " shape " + ops::shape_text(t->view) + " is not [" + std::to_string(c) +
                     "] (the channel count)");
    }
  }
  PlanBuilder b("BatchNorm");
  auto add_in = [&](const aclTensor* t) { return t != nullptr ? b.add_input(t) : (b.add_input(nullptr), -1); };
  auto add_out = [&](const aclTensor* t) { return t != nullptr ? b.add_output(t) : (b.add_output(nullptr), -1); };
  const int xi = b.add_input(input), wi = add_in(weight), bi = add_in(bias), mi = add_in(run_mean),
            vi = add_in(run_var);
  const int oi = b.add_output(output), smi = add_out(save_mean), sii = add_out(save_invstd);
  // The running statistics are updated in place: their tensors are outputs too (aclSet*TensorAddr
  // refresh them as inputs; the executor reads the captured views).
  if (ops::numel(input->view) > 0) {
    const ops::Shape cs{c};
    bool clash = false;
    for (auto [t, what] : params) {
      if (t != nullptr && overlaps(*t, *output)) clash = true;
    }
    Staging s(b, oi, float_kernel_dtype(input->dtype), !clash && !overlaps(*input, *output));
    Staging sp(b, oi, ACL_FLOAT);  // the parameters go to the kernel as float32
    sp.out_direct = s.out_direct;
    auto param = [&](int ti, double fill) { return ti >= 0 ? sp.input(ti) : sp.filled(cs, fill); };
    std::vector<Operand> ins{s.input(xi), param(wi, 1.0), param(bi, 0.0), param(mi, 0.0), param(vi, 1.0)};
    const Operand r = s.output();
    std::vector<Step> after;
    Step k;
    k.is_copy = false;
    k.kernel.type = "BatchNormalization";
    k.kernel.attrs.set("epsilon", static_cast<float>(eps));
    // ONNX's momentum weighs the old value; PyTorch's (aclnn's) the batch statistic.
    k.kernel.attrs.set("momentum", static_cast<float>(1.0 - momentum));
    k.kernel.attrs.set("training_mode", static_cast<int64_t>(training ? 1 : 0));
    k.kernel.attrs.set("unbiased", static_cast<int64_t>(1));
    k.kernel.inputs = std::move(ins);
    k.kernel.output = r;
    if (training) {
      // Running statistics to scratch, copied back after the kernel (the kernel reads the old ones).
      for (int ti : {mi, vi}) {
        const Operand o = sp.scratch(cs);
        k.kernel.extra_outputs.push_back(o);
        if (ti >= 0) {
          Step back;
          back.copy.src_ws = o.ws_offset;
          back.copy.src_dtype = ACL_FLOAT;
          back.copy.src_shape = cs;
          back.copy.dst_tensor = ti;
          back.copy.dst_dtype = b.tensor(ti).dtype;
          back.copy.shape = cs;
          after.push_back(std::move(back));
        }
      }
      k.kernel.extra_outputs.push_back(stat_output(b, smi, cs, &after));
      k.kernel.extra_outputs.push_back(stat_output(b, sii, cs, &after));
    }
    b.add(std::move(k));
    s.finish(r);
    for (Step& st : after) b.add(std::move(st));
  }
  return publish(b, ws, ex);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                           const aclTensor* weightOptional, const aclTensor* biasOptional, double eps,
                                           aclTensor* out, aclTensor* meanOutOptional, aclTensor* rstdOutOptional,
                                           uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnLayerNorm", [&] {
    return plan_layer_norm("aclnnLayerNorm", input, normalizedShape, weightOptional, biasOptional, eps, out,
                           meanOutOptional, rstdOutOptional, 0, workspaceSize, executor);
  });
}
aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                                       const aclTensor* weightOptional, const aclTensor* biasOptional,
                                                       double eps, aclTensor* out, aclTensor* meanOutOptional,
                                                       aclTensor* rstdOutOptional, int32_t implMode,
                                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnLayerNormWithImplMode", [&] {
    return plan_layer_norm("aclnnLayerNormWithImplMode", input, normalizedShape, weightOptional, biasOptional, eps, out,
                           meanOutOptional, rstdOutOptional, implMode, workspaceSize, executor);
  });
}
aclnnStatus aclnnFastLayerNormGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                               const aclTensor* weightOptional, const aclTensor* biasOptional,
                                               double eps, aclTensor* out, aclTensor* meanOutOptional,
                                               aclTensor* rstdOutOptional, uint64_t* workspaceSize,
                                               aclOpExecutor** executor) {
  return guarded("aclnnFastLayerNorm", [&] {
    return plan_layer_norm("aclnnFastLayerNorm", input, normalizedShape, weightOptional, biasOptional, eps, out,
                           meanOutOptional, rstdOutOptional, 0, workspaceSize, executor);
  });
}
aclnnStatus aclnnLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnLayerNorm", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnLayerNormWithImplMode(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                       aclrtStream stream) {
  return run_phase2("aclnnLayerNormWithImplMode", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnFastLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnFastLayerNorm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                         const aclTensor* yOut, const aclTensor* rstdOut, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return guarded("aclnnRmsNorm",
                 [&] { return plan_rms_norm(x, gamma, epsilon, yOut, rstdOut, workspaceSize, executor); });
}
aclnnStatus aclnnRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnRmsNorm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
                                           aclTensor* runningMean, aclTensor* runningVar, bool training,
                                           double momentum, double eps, aclTensor* output, aclTensor* saveMean,
                                           aclTensor* saveInvstd, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnBatchNorm", [&] {
    return plan_batch_norm(input, weight, bias, runningMean, runningVar, training, momentum, eps, output, saveMean,
                           saveInvstd, workspaceSize, executor);
  });
}
aclnnStatus aclnnBatchNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnBatchNorm", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
