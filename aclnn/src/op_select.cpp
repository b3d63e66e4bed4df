// SWhere and the Clamp family (aclnn-api.md 5.34-5.35). SWhere is the op library's Where kernel
// (three-way broadcasting, elements moved by size) on operands staged to the promoted dtype; Clamp
// is its Min kernel (upper bound) followed by its Max kernel (lower bound), CANN's order, so a lower
// bound above the upper one wins. Both kernels propagate NaN.
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_s_where.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kWhereTypes = {ACL_FLOAT,   ACL_INT32,  ACL_UINT64, ACL_INT64, ACL_UINT32,
                                              ACL_FLOAT16, ACL_UINT16, ACL_INT16,  ACL_INT8,  ACL_UINT8,
                                              ACL_DOUBLE,  ACL_BOOL,   ACL_BF16};

const std::vector<aclDataType> kClampSelf = {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_INT8, ACL_UINT8,
                                             ACL_INT16,   ACL_INT32, ACL_INT64,  ACL_BF16};
const std::vector<aclDataType> kClampBound = {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_INT8, ACL_UINT8,
                                              ACL_INT16,   ACL_INT32, ACL_INT64,  ACL_BF16, ACL_BOOL};

Status check_dtype(aclDataType d, const std::vector<aclDataType>& list, const std::string& what) {
  if (in_list(d, list)) return Status::Ok();
  return invalid(what + " has dtype " + ops::dtype_name(d) + "; supported: " + dtype_list(list));
}

Status plan_where(const aclTensor* cond, const aclTensor* self, const aclTensor* other, aclTensor* out,
                  uint64_t* workspaceSize, aclOpExecutor** executor) {
  ARUN_RETURN_IF_ERROR(check_tensor(cond, "condition"));
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_tensor(other, "other"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*cond, "condition"));
  ARUN_RETURN_IF_ERROR(check_view(*self, "self"));
  ARUN_RETURN_IF_ERROR(check_view(*other, "other"));
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (cond->dtype != ACL_BOOL && cond->dtype != ACL_UINT8) {
    return invalid(std::string("condition must be BOOL or UINT8, got ") + ops::dtype_name(cond->dtype));
  }
  ARUN_RETURN_IF_ERROR(check_dtype(self->dtype, kWhereTypes, "self"));
  ARUN_RETURN_IF_ERROR(check_dtype(other->dtype, kWhereTypes, "other"));
  ARUN_RETURN_IF_ERROR(check_dtype(out->dtype, kWhereTypes, "out"));
  const aclDataType p = promote(self->dtype, other->dtype);
  if (p == ACL_DT_UNDEFINED) {
    return invalid(std::string("dtypes ") + ops::dtype_name(self->dtype) + " and " + ops::dtype_name(other->dtype) +
                   " do not promote");
  }
  if (!can_cast(p, out->dtype)) {
    return invalid(std::string("the result type ") + ops::dtype_name(p) + " cannot be cast to out's " +
                   ops::dtype_name(out->dtype));
  }
  ops::Shape xy, shape;
  if (!ops::broadcast_shapes(self->view, other->view, &xy) || !ops::broadcast_shapes(cond->view, xy, &shape)) {
    return invalid("shapes " + ops::shape_text(cond->view) + ", " + ops::shape_text(self->view) + " and " +
                   ops::shape_text(other->view) + " do not broadcast");
  }
  if (shape.size() > static_cast<size_t>(kMaxRank)) return invalid("the broadcast shape has rank > 8");
  if (out->view != shape) {
    return invalid("out shape " + ops::shape_text(out->view) + " is not the broadcast shape " + ops::shape_text(shape));
  }
  PlanBuilder b("SWhere");
  const int ci = b.add_input(cond), si = b.add_input(self), oi = b.add_input(other), out_i = b.add_output(out);
  if (ops::numel(shape) > 0) {
    Staging s(b, out_i, p);
    Staging sc(b, out_i, cond->dtype);  // the condition keeps its own 1-byte dtype
    sc.out_direct = s.out_direct;
    const Operand c = sc.input(ci), x = s.input(si), y = s.input(oi);
    const Operand r = s.output();
    s.kernel("Where", {c, x, y}, r);
    s.finish(r);
  }
  return publish(b, workspaceSize, executor);
}

// ---- Clamp ----

struct ClampArgs {
  const char* name;  // "aclnnClamp"
  const aclTensor* self;
  const aclScalar* smin = nullptr;
  const aclScalar* smax = nullptr;
  const aclTensor* tmin = nullptr;
  const aclTensor* tmax = nullptr;
  const aclTensor* out = nullptr;  // selfRef for in-place
  bool inplace = false;
  bool tensors = false;                 // the bounds are tensors
  bool has_min = true, has_max = true;  // which bounds the function takes
};

Status plan_clamp(const ClampArgs& a, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const char* self_name = a.inplace ? "selfRef" : "self";
  ARUN_RETURN_IF_ERROR(check_tensor(a.self, self_name));
  // A bound the function declares is NULL: with two bounds only both NULL is an error (161001).
  const bool min_null = a.tensors ? a.tmin == nullptr : a.smin == nullptr;
  const bool max_null = a.tensors ? a.tmax == nullptr : a.smax == nullptr;
  if (a.has_min && a.has_max) {
    if (min_null && max_null) return null_error("both clipValueMin and clipValueMax are");
  } else if (a.has_min && min_null) {
    return null_error("clipValueMin");
  } else if (a.has_max && max_null) {
    return null_error(a.tensors ? "max" : "clipValueMax");
  }
  if (a.tensors) {
    if (!min_null) ARUN_RETURN_IF_ERROR(check_tensor(a.tmin, "clipValueMin"));
    if (!max_null) ARUN_RETURN_IF_ERROR(check_tensor(a.tmax, "clipValueMax"));
  } else {
    if (!min_null) ARUN_RETURN_IF_ERROR(check_scalar(a.smin, "clipValueMin"));
    if (!max_null) ARUN_RETURN_IF_ERROR(check_scalar(a.smax, "clipValueMax"));
  }
  if (!a.inplace) ARUN_RETURN_IF_ERROR(check_tensor(a.out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");

  ARUN_RETURN_IF_ERROR(check_view(*a.self, self_name));
  ARUN_RETURN_IF_ERROR(check_dtype(a.self->dtype, kClampSelf, self_name));
  if (!a.inplace) {
    ARUN_RETURN_IF_ERROR(check_view(*a.out, "out"));
    ARUN_RETURN_IF_ERROR(check_dtype(a.out->dtype, kClampSelf, "out"));
    if (!can_cast(a.self->dtype, a.out->dtype)) {
      return invalid(std::string("self's ") + ops::dtype_name(a.self->dtype) + " cannot be cast to out's " +
                     ops::dtype_name(a.out->dtype));
    }
  }
  // Bounds: a listed dtype castable to self's (A2/A3: they are converted to self's type).
  ops::Shape shape = a.self->view;
  auto check_bound = [&](aclDataType d, const ops::Shape* view, const char* what) -> Status {
    ARUN_RETURN_IF_ERROR(check_dtype(d, kClampBound, what));
    if (!can_cast(d, a.self->dtype)) {
      return invalid(std::string(what) + "'s " + ops::dtype_name(d) + " cannot be cast to " + self_name + "'s " +
                     ops::dtype_name(a.self->dtype));
    }
    if (view != nullptr && !ops::broadcast_shapes(shape, *view, &shape)) {
      return invalid(std::string(what) + " shape " + ops::shape_text(*view) + " does not broadcast with " +
                     ops::shape_text(a.self->view));
    }
    return Status::Ok();
  };
  if (a.tensors) {
    if (!min_null) {
      ARUN_RETURN_IF_ERROR(check_view(*a.tmin, "clipValueMin"));
      ARUN_RETURN_IF_ERROR(check_bound(a.tmin->dtype, &a.tmin->view, "clipValueMin"));
    }
    if (!max_null) {
      ARUN_RETURN_IF_ERROR(check_view(*a.tmax, "clipValueMax"));
      ARUN_RETURN_IF_ERROR(check_bound(a.tmax->dtype, &a.tmax->view, "clipValueMax"));
    }
  } else {
    if (!min_null) ARUN_RETURN_IF_ERROR(check_bound(a.smin->dtype, nullptr, "clipValueMin"));
    if (!max_null) ARUN_RETURN_IF_ERROR(check_bound(a.smax->dtype, nullptr, "clipValueMax"));
  }
  if (shape.size() > static_cast<size_t>(kMaxRank)) return invalid("the broadcast shape has rank > 8");
  const aclTensor* out = a.inplace ? a.self : a.out;
  if (out->view != shape) {
    return invalid(std::string(a.inplace ? "selfRef" : "out") + " shape " + ops::shape_text(out->view) +
                   " is not the broadcast shape " + ops::shape_text(shape));
  }

  PlanBuilder b(a.name + 5);
  const int si = b.add_input(a.self);
  const int mini = a.tensors && !min_null ? b.add_input(a.tmin) : -1;
  const int maxi = a.tensors && !max_null ? b.add_input(a.tmax) : -1;
  const int oi = a.inplace ? si : b.add_output(out);
  if (ops::numel(shape) > 0) {
    const aclDataType kdt = numeric_kernel_dtype(a.self->dtype);
    Staging s(b, oi, kdt);
    // A scalar bound converted to self's dtype (truncated for an integer self), held in the kernel's.
    auto bound = [&](const aclScalar* sc) {
      Value v = scalar_value(*sc);
      if (!is_floating(a.self->dtype) && v.is_float) v = Value{false, 0, static_cast<int64_t>(v.f)};
      return s.constant(v);
    };
    // All staging happens before the first kernel writes the output.
    const Operand x = s.input(si);
    Operand lo, hi;
    if (!min_null) lo = a.tensors ? s.input(mini) : bound(a.smin);
    if (!max_null) hi = a.tensors ? s.input(maxi) : bound(a.smax);
    const Operand r = s.output();
    Operand cur = x;
    if (!max_null) {
      ops::Shape mid;
      ops::broadcast_shapes(x.shape, hi.shape, &mid);
      const Operand t = mid == shape ? r : s.scratch(mid);
      s.kernel("Min", {cur, hi}, t);
      cur = t;
    }
    if (!min_null) {
      s.kernel("Max", {cur, lo}, r);
      cur = r;
    }
    s.finish(r);
  }
  return publish(b, workspaceSize, executor);
}

aclnnStatus clamp(const ClampArgs& a, uint64_t* ws, aclOpExecutor** ex) {
  return guarded(a.name, [&] { return plan_clamp(a, ws, ex); });
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor* condition, const aclTensor* self, const aclTensor* other,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnSWhere", [&] { return plan_where(condition, self, other, out, workspaceSize, executor); });
}
ACLNN_PHASE2(SWhere)

aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMin,
                                       const aclScalar* clipValueMax, aclTensor* out, uint64_t* workspaceSize,
                                       aclOpExecutor** executor) {
  ClampArgs a{"aclnnClamp", self};
  a.smin = clipValueMin;
  a.smax = clipValueMax;
  a.out = out;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMin, aclTensor* out,
                                          uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnClampMin", self};
  a.smin = clipValueMin;
  a.out = out;
  a.has_max = false;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor* self, const aclScalar* clipValueMax, aclTensor* out,
                                          uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnClampMax", self};
  a.smax = clipValueMax;
  a.out = out;
  a.has_min = false;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor* selfRef, const aclScalar* clipValueMax,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnInplaceClampMax", selfRef};
  a.smax = clipValueMax;
  a.inplace = true;
  a.has_min = false;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* clipValueMin,
                                             const aclTensor* clipValueMax, aclTensor* out, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  ClampArgs a{"aclnnClampTensor", self};
  a.tmin = clipValueMin;
  a.tmax = clipValueMax;
  a.out = out;
  a.tensors = true;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnClampMinTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* clipValueMin, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnClampMinTensor", self};
  a.tmin = clipValueMin;
  a.out = out;
  a.tensors = true;
  a.has_max = false;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnInplaceClampMinTensorGetWorkspaceSize(aclTensor* selfRef, const aclTensor* clipValueMin,
                                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnInplaceClampMinTensor", selfRef};
  a.tmin = clipValueMin;
  a.inplace = true;
  a.tensors = true;
  a.has_max = false;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnClampMaxTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* max, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnClampMaxTensor", self};
  a.tmax = max;
  a.out = out;
  a.tensors = true;
  a.has_min = false;
  return clamp(a, workspaceSize, executor);
}
aclnnStatus aclnnInplaceClampMaxTensorGetWorkspaceSize(aclTensor* selfRef, const aclTensor* max,
                                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  ClampArgs a{"aclnnInplaceClampMaxTensor", selfRef};
  a.tmax = max;
  a.inplace = true;
  a.tensors = true;
  a.has_min = false;
  return clamp(a, workspaceSize, executor);
}
ACLNN_PHASE2(Clamp)
ACLNN_PHASE2(ClampMin)
ACLNN_PHASE2(ClampMax)
ACLNN_PHASE2(InplaceClampMax)
ACLNN_PHASE2(ClampTensor)
ACLNN_PHASE2(ClampMinTensor)
ACLNN_PHASE2(InplaceClampMinTensor)
ACLNN_PHASE2(ClampMaxTensor)
ACLNN_PHASE2(InplaceClampMaxTensor)

}  // extern "C"
