// Relu, Gelu, GeluV2, Silu, Sigmoid, Tanh (and in-place variants), Softmax and LogSoftmax
// (aclnn-api.md 5.12-5.17), and Abs, Neg, Exp, Log, Sqrt (5.5-5.9) over the op library's float kernels (activation.cpp,
// normalization.cpp). Integer Relu, which those kernels do not cover, is the copy kernel's max(x, 0).
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tanh.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

using List = std::vector<aclDataType>;

struct Unary {
  const char* name;  // "aclnnRelu"
  const aclTensor* self;
  const aclTensor* out;  // == self for in-place
  bool inplace;
  List self_types;
  List out_types;             // empty: out dtype must equal self's
  bool out_castable = false;  // out dtype any castable one from out_types
};

Status check_unary(const Unary& u, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const char* self_name = u.inplace ? "selfRef" : "self";
  ARUN_RETURN_IF_ERROR(check_tensor(u.self, self_name));
  if (!u.inplace) ARUN_RETURN_IF_ERROR(check_tensor(u.out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*u.self, self_name));
  if (!u.inplace) ARUN_RETURN_IF_ERROR(check_view(*u.out, "out"));
  if (!in_list(u.self->dtype, u.self_types)) {
    return invalid(std::string(self_name) + " has dtype " + ops::dtype_name(u.self->dtype) +
                   "; supported: " + dtype_list(u.self_types));
  }
  if (u.out_types.size() == 0) {
    if (u.out->dtype != u.self->dtype) {
      return invalid(std::string("out dtype ") + ops::dtype_name(u.out->dtype) + " differs from self dtype " +
                     ops::dtype_name(u.self->dtype));
    }
  } else if (!in_list(u.out->dtype, u.out_types)) {
    return invalid(std::string("out has dtype ") + ops::dtype_name(u.out->dtype) +
                   "; supported: " + dtype_list(u.out_types));
  }
  if (u.out->view != u.self->view) {
    return invalid("out shape " + ops::shape_text(u.out->view) + " differs from self shape " +
                   ops::shape_text(u.self->view));
  }
  return Status::Ok();
}

// self -> kernel `type` (float32 or float16) -> out.
Status plan_unary(const Unary& u, const char* type, ops::Attrs attrs, uint64_t* workspaceSize,
                  aclOpExecutor** executor) {
  ARUN_RETURN_IF_ERROR(check_unary(u, workspaceSize, executor));
  PlanBuilder b(u.name + 5);
  const int si = b.add_input(u.self);
  const int out = u.inplace ? si : b.add_output(u.out);
  if (ops::numel(u.self->view) > 0) {
    Staging s(b, out, float_kernel_dtype(u.self->dtype));
    const Operand x = s.input(si);
    const Operand r = s.output();
    s.kernel(type, {x}, r, std::move(attrs));
    s.finish(r);
  }
  return publish(b, workspaceSize, executor);
}

const List kFloat3 = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

aclnnStatus relu(const char* name, const aclTensor* self, const aclTensor* out, bool inplace, uint64_t* ws,
                 aclOpExecutor** ex) {
  return guarded(name, [&]() -> Status {
    const Unary u{name,
                  self,
                  out,
                  inplace,
                  inplace ? List{ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_BF16, ACL_UINT8}
                          : List{ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_BF16},
                  {}};
    if (self == nullptr || !is_integral(self->dtype) || !live(self, Kind::Tensor)) {
      return plan_unary(u, "Relu", {}, ws, ex);
    }
    ARUN_RETURN_IF_ERROR(check_unary(u, ws, ex));
    PlanBuilder b(name + 5);
    const int si = b.add_input(self);
    const int oi = inplace ? si : b.add_output(out);
    plan_copy(b, si, oi, /*relu=*/true);
    return publish(b, ws, ex);
  });
}

aclnnStatus gelu(const char* name, const aclTensor* self, int64_t approximate, aclTensor* out, uint64_t* ws,
                 aclOpExecutor** ex) {
  return guarded(name, [&]() -> Status {
    const Unary u{name, self, out, false, kFloat3, {}};
    ARUN_RETURN_IF_ERROR(check_unary(u, ws, ex));
    if (approximate != 0 && approximate != 1) {
      return invalid("approximate " + std::to_string(approximate) + " is not 0 (erf) or 1 (tanh)");
    }
    ops::Attrs attrs;
    attrs.set("approximate", std::string(approximate == 1 ? "tanh" : "none"));
    return plan_unary(u, "Gelu", std::move(attrs), ws, ex);
  });
}

Status plan_softmax(const char* name, const aclTensor* self, int64_t dim, aclTensor* out, bool log, uint64_t* ws,
                    aclOpExecutor** ex) {
  const Unary u{name,
                self,
                out,
                false,
                {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_BF16},
                {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_BF16}};
  ARUN_RETURN_IF_ERROR(check_unary(u, ws, ex));
  const int64_t rank = static_cast<int64_t>(self->view.size());
  const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi) {
    return invalid("dim " + std::to_string(dim) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                   "]");
  }
  PlanBuilder b(name + 5);
  const int si = b.add_input(self);
  const int oi = b.add_output(out);
  if (rank == 0) {
    // One element: softmax is 1, log-softmax 0 (NaN stays NaN in CANN; ours: the constant).
    Step s;
    s.copy.src_const = true;
    s.copy.constant = Value{true, log ? 0.0 : 1.0, 0};
    s.copy.src_dtype = ACL_DOUBLE;
    s.copy.dst_tensor = oi;
    s.copy.dst_dtype = out->dtype;
    b.add(std::move(s));
  } else if (ops::numel(self->view) > 0) {
    Staging s(b, oi, float_kernel_dtype(self->dtype));
    const Operand x = s.input(si);
    const Operand r = s.output();
    ops::Attrs attrs;
    attrs.set("axis", dim);
    s.kernel(log ? "LogSoftmax" : "Softmax", {x}, r, std::move(attrs));
    s.finish(r);
  }
  return publish(b, ws, ex);
}

const List kFloat4 = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16};

// Abs and Neg of integers are exact copies (|x|, -x wrapping); floats use the library's kernels.
aclnnStatus abs_neg(const char* name, const aclTensor* self, const aclTensor* out, bool inplace, bool neg, uint64_t* ws,
                    aclOpExecutor** ex) {
  return guarded(name, [&]() -> Status {
    const Unary u = neg ? Unary{name,
                                self,
                                out,
                                inplace,
                                {ACL_INT8, ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE},
                                {ACL_INT8, ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE}}
                        : Unary{name,
                                self,
                                out,
                                inplace,
                                {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, ACL_INT8, ACL_INT16, ACL_INT32,
                                 ACL_INT64, ACL_UINT8, ACL_BOOL},
                                {}};
    ARUN_RETURN_IF_ERROR(check_unary(u, ws, ex));
    if (neg && !can_cast(self->dtype, out->dtype)) return invalid("self's dtype cannot be cast to out's");
    if (is_floating(self->dtype) && self->dtype != ACL_DOUBLE) return plan_unary(u, neg ? "Neg" : "Abs", {}, ws, ex);
    PlanBuilder b(name + 5);
    const int si = b.add_input(self);
    const int oi = inplace ? si : b.add_output(out);
    const Value minus_one{false, 0, -1};
    if (ops::numel(self->view) > 0) plan_copy(b, si, oi, false, !neg, neg ? &minus_one : nullptr);
    return publish(b, ws, ex);
  });
}

// 1/sqrt(x): the library's Sqrt into the workspace, then its Div of a constant 1 by it.
Status plan_rsqrt(const Unary& u, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_unary(u, ws, ex));
  PlanBuilder b(u.name + 5);
  const int si = b.add_input(u.self);
  const int oi = u.inplace ? si : b.add_output(u.out);
  if (ops::numel(u.self->view) > 0) {
    Staging s(b, oi, float_kernel_dtype(u.self->dtype));
    const Operand x = s.input(si);
    const Operand root = s.scratch(u.self->view);
    s.kernel("Sqrt", {x}, root);
    const Operand one = s.constant(Value{true, 1.0, 0});
    const Operand r = s.output();
    s.kernel("Div", {one, root}, r);
    s.finish(r);
  }
  return publish(b, ws, ex);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun;
using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor* self, const aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return relu("aclnnRelu", self, out, false, workspaceSize, executor);
}
aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return relu("aclnnInplaceRelu", selfRef, selfRef, true, workspaceSize, executor);
}
ACLNN_PHASE2(Relu)
ACLNN_PHASE2(InplaceRelu)

aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return gelu("aclnnGelu", self, 1, out, workspaceSize, executor);
}
aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate, aclTensor* y, uint64_t* workspaceSize,
                                        aclOpExecutor** executor) {
  return gelu("aclnnGeluV2", x, approximate, y, workspaceSize, executor);
}
ACLNN_PHASE2(Gelu)
ACLNN_PHASE2(GeluV2)

aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return guarded("aclnnSilu", [&]() -> Status {
    const Unary u{"aclnnSilu", self, out, false, kFloat3, {}};
    ARUN_RETURN_IF_ERROR(check_unary(u, workspaceSize, executor));
    PlanBuilder b("Silu");
    const int si = b.add_input(self);
    const int oi = b.add_output(out);
    if (ops::numel(self->view) > 0) {
      // x * sigmoid(x): the sigmoid goes to the workspace, then the library's Mul.
      Staging s(b, oi, float_kernel_dtype(self->dtype));
      const Operand x = s.input(si);
      const Operand sig = s.scratch(self->view);
      s.kernel("Sigmoid", {x}, sig);
      const Operand r = s.output();
      s.kernel("Mul", {x, sig}, r);
      s.finish(r);
    }
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnSilu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnSilu", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSigmoidGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return guarded("aclnnSigmoid", [&] {
    return plan_unary({"aclnnSigmoid", self, out, false, kFloat3, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}},
                      "Sigmoid", {}, workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceSigmoidGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnInplaceSigmoid", [&] {
    return plan_unary(
        {"aclnnInplaceSigmoid", selfRef, selfRef, true, {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16}, {}}, "Sigmoid",
        {}, workspaceSize, executor);
  });
}
ACLNN_PHASE2(Sigmoid)
ACLNN_PHASE2(InplaceSigmoid)

aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return guarded("aclnnTanh", [&] {
    return plan_unary(
        {"aclnnTanh",
         self,
         out,
         false,
         {ACL_FLOAT, ACL_FLOAT16, ACL_BOOL, ACL_UINT8, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_BF16},
         kFloat3},
        "Tanh", {}, workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceTanhGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnInplaceTanh", [&] {
    return plan_unary({"aclnnInplaceTanh", selfRef, selfRef, true, kFloat3, {}}, "Tanh", {}, workspaceSize, executor);
  });
}
ACLNN_PHASE2(Tanh)
ACLNN_PHASE2(InplaceTanh)

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return guarded("aclnnSoftmax",
                 [&] { return plan_softmax("aclnnSoftmax", self, dim, out, false, workspaceSize, executor); });
}
aclnnStatus aclnnSoftmax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnSoftmax", workspace, workspaceSize, executor, stream);
}
aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return guarded("aclnnLogSoftmax",
                 [&] { return plan_softmax("aclnnLogSoftmax", self, dim, out, true, workspaceSize, executor); });
}
aclnnStatus aclnnLogSoftmax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnLogSoftmax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAbsGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return abs_neg("aclnnAbs", self, out, false, false, workspaceSize, executor);
}
ACLNN_PHASE2(Abs)
aclnnStatus aclnnNegGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return abs_neg("aclnnNeg", self, out, false, true, workspaceSize, executor);
}
aclnnStatus aclnnInplaceNegGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return abs_neg("aclnnInplaceNeg", selfRef, selfRef, true, true, workspaceSize, executor);
}
ACLNN_PHASE2(Neg)
ACLNN_PHASE2(InplaceNeg)

// Exp, Log, Sqrt: integer and bool inputs compute in float32 (spec 5.7-5.9); outputs are floating.
aclnnStatus aclnnExpGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return guarded("aclnnExp", [&] {
    return plan_unary(
        {"aclnnExp", self, out, false, {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BOOL, ACL_INT64, ACL_BF16}, kFloat4},
        "Exp", {}, workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceExpGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnInplaceExp", [&] {
    return plan_unary({"aclnnInplaceExp", selfRef, selfRef, true, kFloat4, {}}, "Exp", {}, workspaceSize, executor);
  });
}
ACLNN_PHASE2(Exp)
ACLNN_PHASE2(InplaceExp)
aclnnStatus aclnnLogGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return guarded("aclnnLog", [&] {
    return plan_unary(
        {"aclnnLog",
         self,
         out,
         false,
         {ACL_BOOL, ACL_INT64, ACL_INT32, ACL_INT16, ACL_INT8, ACL_UINT8, ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16},
         kFloat4},
        "Log", {}, workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceLogGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnInplaceLog", [&] {
    return plan_unary({"aclnnInplaceLog", selfRef, selfRef, true, kFloat4, {}}, "Log", {}, workspaceSize, executor);
  });
}
ACLNN_PHASE2(Log)
ACLNN_PHASE2(InplaceLog)
aclnnStatus aclnnSqrtGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** opExecutor) {
  return guarded("aclnnSqrt", [&] {
    return plan_unary(
        {"aclnnSqrt",
         self,
         out,
         false,
         {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT16, ACL_INT8, ACL_UINT8, ACL_BOOL},
         kFloat4},
        "Sqrt", {}, workspaceSize, opExecutor);
  });
}
aclnnStatus aclnnInplaceSqrtGetWorkspaceSize(aclTensor* self, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnInplaceSqrt", [&] {
    return plan_unary({"aclnnInplaceSqrt", self, self, true, kFloat4, {}}, "Sqrt", {}, workspaceSize, executor);
  });
}
ACLNN_PHASE2(Sqrt)
ACLNN_PHASE2(InplaceSqrt)

aclnnStatus aclnnRsqrtGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                       aclOpExecutor** executor) {
  return guarded("aclnnRsqrt", [&] {
    return plan_rsqrt(
        {"aclnnRsqrt",
         self,
         out,
         false,
         {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_UINT8, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_BOOL, ACL_BF16},
         kFloat4},
        workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceRsqrtGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnInplaceRsqrt", [&] {
    return plan_rsqrt({"aclnnInplaceRsqrt", selfRef, selfRef, true, kFloat4, {}}, workspaceSize, executor);
  });
}
ACLNN_PHASE2(Rsqrt)
ACLNN_PHASE2(InplaceRsqrt)

}  // extern "C"
