// Pow (aclnn-api.md 5.11): PowTensorScalar, PowScalarTensor, PowTensorTensor and the in-place forms,
// over the op library's Pow kernel (NumPy broadcasting; float32/16/64 through std::pow with
// exponent 2 as a square, int32/64 by exact squaring that wraps). The compute type is the
// TensorTensor promotion (A2/A3), narrower integers compute in int32 and wrap when stored.
#include <limits>

#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kPowIn = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT8, ACL_INT16,
                                         ACL_INT32, ACL_INT64,   ACL_UINT8,  ACL_BOOL, ACL_BF16};
const std::vector<aclDataType> kPowOut = {ACL_FLOAT,  ACL_FLOAT16, ACL_DOUBLE, ACL_INT8, ACL_INT16,
                                          ACL_INT32,  ACL_INT64,   ACL_UINT8,  ACL_BOOL, ACL_BF16,
                                          ACL_UINT16, ACL_UINT32,  ACL_UINT64};

// The integer range of a compute dtype (for the scalar exponent's "representable" rule).
bool fits(int64_t v, aclDataType d) {
  switch (d) {
    case ACL_INT8:
      return v >= std::numeric_limits<int8_t>::min() && v <= std::numeric_limits<int8_t>::max();
    case ACL_UINT8:
      return v >= 0 && v <= std::numeric_limits<uint8_t>::max();
    case ACL_INT16:
      return v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max();
    case ACL_INT32:
      return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
    case ACL_BOOL:
      return v == 0 || v == 1;
    default:
      return true;
  }
}

struct PowArgs {
  const char* name;
  const aclTensor* self = nullptr;   // tensor base
  const aclScalar* sself = nullptr;  // scalar base (PowScalarTensor)
  const aclTensor* exp = nullptr;    // tensor exponent
  const aclScalar* sexp = nullptr;   // scalar exponent (PowTensorScalar)
  const aclTensor* out = nullptr;
  bool inplace = false;
  bool scalar_base = false, scalar_exp = false;
};

Status plan_pow(const PowArgs& a, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const char* self_name = a.inplace ? "selfRef" : "self";
  if (a.scalar_base) {
    ARUN_RETURN_IF_ERROR(check_scalar(a.sself, "self"));
  } else {
    ARUN_RETURN_IF_ERROR(check_tensor(a.self, self_name));
  }
  if (a.scalar_exp) {
    ARUN_RETURN_IF_ERROR(check_scalar(a.sexp, "exponent"));
  } else {
    ARUN_RETURN_IF_ERROR(check_tensor(a.exp, "exponent"));
  }
  if (!a.inplace) ARUN_RETURN_IF_ERROR(check_tensor(a.out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  if (!a.scalar_base) ARUN_RETURN_IF_ERROR(check_view(*a.self, self_name));
  if (!a.scalar_exp) ARUN_RETURN_IF_ERROR(check_view(*a.exp, "exponent"));
  if (!a.inplace) ARUN_RETURN_IF_ERROR(check_view(*a.out, "out"));
  const aclTensor* out = a.inplace ? a.self : a.out;
  const aclDataType bt = a.scalar_base ? a.sself->dtype : a.self->dtype;
  const aclDataType et = a.scalar_exp ? a.sexp->dtype : a.exp->dtype;
  for (auto [d, what] : {std::pair{bt, self_name}, std::pair{et, "exponent"}}) {
    if (!in_list(d, kPowIn)) {
      return invalid(std::string(what) + " has dtype " + ops::dtype_name(d) + "; supported: " + dtype_list(kPowIn));
    }
  }
  if (!in_list(out->dtype, kPowOut)) {
    return invalid(std::string("out has dtype ") + ops::dtype_name(out->dtype) + "; supported: " + dtype_list(kPowOut));
  }
  if (bt == ACL_BOOL && et == ACL_BOOL) return invalid("base and exponent are both BOOL");
  const aclDataType p = promote(bt, et);
  if (p == ACL_DT_UNDEFINED) {
    return invalid(std::string("dtypes ") + ops::dtype_name(bt) + " and " + ops::dtype_name(et) + " do not promote");
  }
  if (!can_cast(p, out->dtype)) {
    return invalid(std::string("the result type ") + ops::dtype_name(p) + " cannot be cast to " +
                   (a.inplace ? "selfRef" : "out") + "'s " + ops::dtype_name(out->dtype));
  }
  if (a.scalar_exp && !is_floating(p)) {
    const Value e = scalar_value(*a.sexp);
    const double ev = e.as_double();
    if (ev < 0) return invalid("a negative exponent " + std::to_string(ev) + " with an integer compute type");
    if (e.is_float || !fits(e.i, p)) {
      if (e.is_float && ev != static_cast<double>(static_cast<int64_t>(ev))) {
        return invalid("exponent " + std::to_string(ev) + " is not an integer");
      }
      if (!fits(static_cast<int64_t>(ev), p)) {
        return invalid("exponent " + std::to_string(ev) + " is not representable in " + ops::dtype_name(p));
      }
    }
  }
  const ops::Shape bshape = a.scalar_base ? ops::Shape{} : a.self->view;
  const ops::Shape eshape = a.scalar_exp ? ops::Shape{} : a.exp->view;
  ops::Shape shape;
  if (!ops::broadcast_shapes(bshape, eshape, &shape)) {
    return invalid("shapes " + ops::shape_text(bshape) + " and " + ops::shape_text(eshape) + " do not broadcast");
  }
  if (out->view != shape) {
    return invalid(std::string(a.inplace ? "selfRef" : "out") + " shape " + ops::shape_text(out->view) + " is not " +
                   ops::shape_text(shape));
  }

  PlanBuilder b(a.name + 5);
  const int si = a.scalar_base ? -1 : b.add_input(a.self);
  const int ei = a.scalar_exp ? -1 : b.add_input(a.exp);
  const int oi = a.inplace ? si : b.add_output(out);
  if (ops::numel(shape) > 0) {
    const aclDataType kdt = numeric_kernel_dtype(p);
    Staging s(b, oi, kdt);
    auto constant = [&](const aclScalar* sc) {
      Value v = scalar_value(*sc);
      if (!is_floating(kdt) && v.is_float) v = Value{false, 0, static_cast<int64_t>(v.f)};
      return s.constant(v);
    };
    const Operand x = a.scalar_base ? constant(a.sself) : s.input(si);
    const Operand y = a.scalar_exp ? constant(a.sexp) : s.input(ei);
    if (!is_floating(p) && kdt != p && out->dtype != p) {
      // A narrow integer compute type (int8, uint8, int16) wraps in its own width before the
      // conversion to a wider output, as if the kernel ran in that type.
      const Operand r = s.scratch(shape);
      s.kernel("Pow", {x, y}, r);
      const uint64_t narrow = b.reserve(p, shape);
      Step c1, c2;
      c1.copy.src_ws = r.ws_offset;
      c1.copy.src_dtype = kdt;
      c1.copy.src_shape = shape;
      c1.copy.dst_ws = narrow;
      c1.copy.dst_dtype = p;
      c1.copy.shape = shape;
      c2.copy.src_ws = narrow;
      c2.copy.src_dtype = p;
      c2.copy.src_shape = shape;
      c2.copy.dst_tensor = oi;
      c2.copy.dst_dtype = out->dtype;
      c2.copy.shape = shape;
      b.add(std::move(c1));
      b.add(std::move(c2));
    } else {
      const Operand r = s.output();
      s.kernel("Pow", {x, y}, r);
      s.finish(r);
    }
  }
  return publish(b, workspaceSize, executor);
}

aclnnStatus pow_phase1(const PowArgs& a, uint64_t* ws, aclOpExecutor** ex) {
  return guarded(a.name, [&] { return plan_pow(a, ws, ex); });
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor* self, const aclScalar* exponent, const aclTensor* out,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor) {
  PowArgs a{"aclnnPowTensorScalar"};
  a.self = self;
  a.sexp = exponent;
  a.scalar_exp = true;
  a.out = out;
  return pow_phase1(a, workspaceSize, executor);
}
aclnnStatus aclnnInplacePowTensorScalarGetWorkspaceSize(const aclTensor* self, const aclScalar* exponent,
                                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  PowArgs a{"aclnnInplacePowTensorScalar"};
  a.self = self;
  a.sexp = exponent;
  a.scalar_exp = true;
  a.inplace = true;
  return pow_phase1(a, workspaceSize, executor);
}
aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar* self, const aclTensor* exponent, const aclTensor* out,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor) {
  PowArgs a{"aclnnPowScalarTensor"};
  a.sself = self;
  a.scalar_base = true;
  a.exp = exponent;
  a.out = out;
  return pow_phase1(a, workspaceSize, executor);
}
aclnnStatus aclnnPowTensorTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* exponent, aclTensor* out,
                                                 uint64_t* workspaceSize, aclOpExecutor** executor) {
  PowArgs a{"aclnnPowTensorTensor"};
  a.self = self;
  a.exp = exponent;
  a.out = out;
  return pow_phase1(a, workspaceSize, executor);
}
aclnnStatus aclnnInplacePowTensorTensorGetWorkspaceSize(const aclTensor* self, const aclTensor* exponent,
                                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  PowArgs a{"aclnnInplacePowTensorTensor"};
  a.self = self;
  a.exp = exponent;
  a.inplace = true;
  return pow_phase1(a, workspaceSize, executor);
}
ACLNN_PHASE2(PowTensorScalar)
ACLNN_PHASE2(InplacePowTensorScalar)
ACLNN_PHASE2(PowScalarTensor)
ACLNN_PHASE2(PowTensorTensor)
ACLNN_PHASE2(InplacePowTensorTensor)

}  // extern "C"
