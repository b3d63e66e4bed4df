// Add, Sub, Mul, Div, DivMod with their scalar and in-place variants (aclnn-api.md 5.1-5.4): the
// op library's Add/Sub/Mul/Div kernels (elementwise.cpp, NumPy broadcasting), with alpha applied
// while staging `other` and the rounding of DivMod applied while storing the result.
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::initializer_list<aclDataType> kArith = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT32, ACL_INT64,
                                                   ACL_INT16, ACL_INT8,    ACL_UINT8,  ACL_BOOL,  ACL_BF16};

enum class Kind2 { Add, Sub, Mul, Div, DivMod };

const char* kernel_name(Kind2 k) {
  switch (k) {
    case Kind2::Add:
      return "Add";
    case Kind2::Sub:
      return "Sub";
    case Kind2::Mul:
      return "Mul";
    default:
      return "Div";
  }
}

// The op library's integer kernels are int32/int64; narrower integers and bool compute in int32 and
// wrap when stored. Division computes in float32 (spec 5.4), exact DivMod quotients in float64.
aclDataType kernel_dtype(aclDataType p, Kind2 k, int mode) {
  if (k == Kind2::Div || (k == Kind2::DivMod && mode == 0)) {
    if (!is_floating(p)) return ACL_FLOAT;
  }
  if (k == Kind2::DivMod && mode != 0 && !is_floating(p)) return ACL_DOUBLE;
  switch (p) {
    case ACL_FLOAT16:
    case ACL_FLOAT:
    case ACL_DOUBLE:
    case ACL_INT32:
    case ACL_INT64:
      return p;
    case ACL_BF16:
      return ACL_FLOAT;
    default:
      return ACL_INT32;
  }
}

struct Args {
  const char* name;
  Kind2 kind;
  const aclTensor* self;
  const aclTensor* other;   // tensor variants
  const aclScalar* sother;  // scalar variants
  const aclScalar* alpha;   // Add/Sub
  const aclTensor* out;     // the output (selfRef for in-place)
  bool inplace;
  int mode = 0;
};

Status plan(const Args& a, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const bool scalar = a.sother != nullptr || a.other == nullptr;
  const bool has_alpha = a.kind == Kind2::Add || a.kind == Kind2::Sub;
  const char* self_name = a.inplace ? "selfRef" : "self";
  // NULL pointers first, in parameter order.
  ARUN_RETURN_IF_ERROR(check_tensor(a.self, self_name));
  if (scalar) {
    ARUN_RETURN_IF_ERROR(check_scalar(a.sother, "other"));
  } else {
    ARUN_RETURN_IF_ERROR(check_tensor(a.other, "other"));
  }
  if (has_alpha) ARUN_RETURN_IF_ERROR(check_scalar(a.alpha, "alpha"));
  if (!a.inplace) ARUN_RETURN_IF_ERROR(check_tensor(a.out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");

  ARUN_RETURN_IF_ERROR(check_view(*a.self, self_name));
  if (!scalar) ARUN_RETURN_IF_ERROR(check_view(*a.other, "other"));
  if (!a.inplace) ARUN_RETURN_IF_ERROR(check_view(*a.out, "out"));
  const aclDataType st = a.self->dtype;
  const aclDataType ot = scalar ? a.sother->dtype : a.other->dtype;
  for (auto [d, what] : {std::pair{st, self_name}, std::pair{ot, "other"}, std::pair{a.out->dtype, "out"}}) {
    if (a.inplace && std::string(what) == "out") continue;
    if (!in_list(d, kArith)) {
      return invalid(std::string(what) + " has dtype " + ops::dtype_name(d) + "; supported: " + dtype_list(kArith));
    }
  }
  const aclDataType p = promote(st, ot);
  if (p == ACL_DT_UNDEFINED) {
    return invalid(std::string("dtypes ") + ops::dtype_name(st) + " and " + ops::dtype_name(ot) + " do not promote");
  }
  const char* out_name = a.inplace ? "selfRef" : "out";
  if (!can_cast(p, a.out->dtype)) {
    return invalid(std::string("the result type ") + ops::dtype_name(p) + " cannot be cast to " + out_name + "'s " +
                   ops::dtype_name(a.out->dtype));
  }
  if (a.kind == Kind2::DivMod && (a.mode < 0 || a.mode > 2)) {
    return invalid("mode " + std::to_string(a.mode) + " is not 0 (true division), 1 (trunc) or 2 (floor)");
  }
  Value alpha;
  alpha.i = 1;
  if (has_alpha) {
    if (!in_list(a.alpha->dtype, kArith))
      return invalid(std::string("alpha has dtype ") + ops::dtype_name(a.alpha->dtype));
    if (p == ACL_BOOL && is_floating(a.alpha->dtype)) return invalid("alpha must be integral or bool for bool inputs");
    alpha = scalar_value(*a.alpha);
  }
  ops::Shape shape;
  const ops::Shape other_shape = scalar ? ops::Shape{} : a.other->view;
  if (!ops::broadcast_shapes(a.self->view, other_shape, &shape)) {
    return invalid("shapes " + ops::shape_text(a.self->view) + " and " + ops::shape_text(other_shape) +
                   " do not broadcast");
  }
  if (scalar && !a.inplace && a.out->view != a.self->view) {
    return invalid("out shape " + ops::shape_text(a.out->view) + " differs from self shape " +
                   ops::shape_text(a.self->view));
  }
  if (a.out->view != shape) {
    return invalid(std::string(out_name) + " shape " + ops::shape_text(a.out->view) + " is not the broadcast shape " +
                   ops::shape_text(shape));
  }

  PlanBuilder b(a.name + 5);  // "aclnnAdd" -> "Add"
  const int si = b.add_input(a.self);
  const int oi = scalar ? -1 : b.add_input(a.other);
  const int out = a.inplace ? si : b.add_output(a.out);
  if (ops::numel(shape) > 0) {
    const aclDataType kdt = kernel_dtype(p, a.kind, a.mode);
    const bool rounding = a.kind == Kind2::DivMod && a.mode != 0;
    Staging s(b, out, kdt, !rounding);
    const bool scale = has_alpha && (alpha.is_float ? alpha.f != 1.0 : alpha.i != 1);
    Operand x = s.input(si);
    Operand y;
    if (scalar) {
      Value v = scalar_value(*a.sother);
      if (scale)
        v = alpha.is_float || v.is_float ? Value{true, v.as_double() * alpha.as_double(), 0}
                                         : Value{false, 0, v.i * alpha.i};
      // The constant is held in the kernel's type: an integer kernel gets the value truncated.
      if (!is_floating(kdt) && v.is_float) v = Value{false, 0, static_cast<int64_t>(v.f)};
      y = s.constant(v);
    } else {
      y = scale ? s.input(oi, &alpha) : s.input(oi);
    }
    const Operand r = s.output();
    s.kernel(kernel_name(a.kind), {x, y}, r);
    s.finish(r, a.mode == 1 ? Round::Trunc : a.mode == 2 ? Round::Floor : Round::None, !is_floating(p));
  }
  return publish(b, workspaceSize, executor);
}

aclnnStatus phase1(const Args& a, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded(a.name, [&] { return plan(a, workspaceSize, executor); });
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other, const aclScalar* alpha,
                                     aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnAdd", Kind2::Add, self, other, nullptr, alpha, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnAdds", Kind2::Add, self, nullptr, other, alpha, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other, const aclScalar* alpha,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (selfRef != nullptr && other == nullptr) {
    return finish("aclnnInplaceAdd", null_error("other"));
  }
  return phase1({"aclnnInplaceAdd", Kind2::Add, selfRef, other, nullptr, alpha, selfRef, true}, workspaceSize,
                executor);
}
aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor* selfRef, const aclScalar* other, const aclScalar* alpha,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnInplaceAdds", Kind2::Add, selfRef, nullptr, other, alpha, selfRef, true}, workspaceSize,
                executor);
}
ACLNN_PHASE2(Add)
ACLNN_PHASE2(Adds)
ACLNN_PHASE2(InplaceAdd)
ACLNN_PHASE2(InplaceAdds)

aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor* self, const aclTensor* other, const aclScalar* alpha,
                                     aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnSub", Kind2::Sub, self, other, nullptr, alpha, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnSubs", Kind2::Sub, self, nullptr, other, alpha, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other, const aclScalar* alpha,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (selfRef != nullptr && other == nullptr) return finish("aclnnInplaceSub", null_error("other"));
  return phase1({"aclnnInplaceSub", Kind2::Sub, selfRef, other, nullptr, alpha, selfRef, true}, workspaceSize,
                executor);
}
aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other, const aclScalar* alpha,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnInplaceSubs", Kind2::Sub, selfRef, nullptr, other, alpha, selfRef, true}, workspaceSize,
                executor);
}
ACLNN_PHASE2(Sub)
ACLNN_PHASE2(Subs)
ACLNN_PHASE2(InplaceSub)
ACLNN_PHASE2(InplaceSubs)

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnMul", Kind2::Mul, self, other, nullptr, nullptr, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnMuls", Kind2::Mul, self, nullptr, other, nullptr, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  if (selfRef != nullptr && other == nullptr) return finish("aclnnInplaceMul", null_error("other"));
  return phase1({"aclnnInplaceMul", Kind2::Mul, selfRef, other, nullptr, nullptr, selfRef, true}, workspaceSize,
                executor);
}
aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return phase1({"aclnnInplaceMuls", Kind2::Mul, selfRef, nullptr, other, nullptr, selfRef, true}, workspaceSize,
                executor);
}
ACLNN_PHASE2(Mul)
ACLNN_PHASE2(Muls)
ACLNN_PHASE2(InplaceMul)
ACLNN_PHASE2(InplaceMuls)

aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnDiv", Kind2::Div, self, other, nullptr, nullptr, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnDivs", Kind2::Div, self, nullptr, other, nullptr, out, false}, workspaceSize, executor);
}
aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int mode, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnDivMod", Kind2::DivMod, self, other, nullptr, nullptr, out, false, mode}, workspaceSize,
                executor);
}
aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, int mode, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnDivMods", Kind2::DivMod, self, nullptr, other, nullptr, out, false, mode}, workspaceSize,
                executor);
}
aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  if (selfRef != nullptr && other == nullptr) return finish("aclnnInplaceDiv", null_error("other"));
  return phase1({"aclnnInplaceDiv", Kind2::Div, selfRef, other, nullptr, nullptr, selfRef, true}, workspaceSize,
                executor);
}
aclnnStatus aclnnInplaceDivsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return phase1({"aclnnInplaceDivs", Kind2::Div, selfRef, nullptr, other, nullptr, selfRef, true}, workspaceSize,
                executor);
}
aclnnStatus aclnnInplaceDivModGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other, int mode,
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (selfRef != nullptr && other == nullptr) return finish("aclnnInplaceDivMod", null_error("other"));
  return phase1({"aclnnInplaceDivMod", Kind2::DivMod, selfRef, other, nullptr, nullptr, selfRef, true, mode},
                workspaceSize, executor);
}
aclnnStatus aclnnInplaceDivModsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other, int mode,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  return phase1({"aclnnInplaceDivMods", Kind2::DivMod, selfRef, nullptr, other, nullptr, selfRef, true, mode},
                workspaceSize, executor);
}
ACLNN_PHASE2(Div)
ACLNN_PHASE2(Divs)
ACLNN_PHASE2(DivMod)
ACLNN_PHASE2(DivMods)
ACLNN_PHASE2(InplaceDiv)
ACLNN_PHASE2(InplaceDivs)
ACLNN_PHASE2(InplaceDivMod)
ACLNN_PHASE2(InplaceDivMods)

}  // extern "C"
