// Cast, InplaceFillScalar and InplaceCopy (aclnn-api.md 5.26, 5.36, 5.37): all three are the
// strided copy kernel (executor.cpp), which reads and writes arbitrary views and converts dtypes.
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

// The real types; complex and the sub-byte / 8-bit float formats are not implemented (DEVELOPERS.md).
const std::initializer_list<aclDataType> kReal = {ACL_FLOAT16, ACL_FLOAT,  ACL_DOUBLE, ACL_INT8,   ACL_UINT8,
                                                  ACL_INT16,   ACL_UINT16, ACL_INT32,  ACL_UINT32, ACL_INT64,
                                                  ACL_UINT64,  ACL_BOOL,   ACL_BF16};

Status supported(aclDataType d, const char* what) {
  if (in_list(d, kReal)) return Status::Ok();
  return invalid(std::string(what) + " has dtype " + ops::dtype_name(d) + "; supported: " + dtype_list(kReal));
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun;
using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, const aclDataType dtype, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnCast", [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
    ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
    if (workspaceSize == nullptr) return null_error("workspaceSize");
    if (executor == nullptr) return null_error("executor");
    ARUN_RETURN_IF_ERROR(check_view(*self, "self"));
    ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
    ARUN_RETURN_IF_ERROR(supported(self->dtype, "self"));
    ARUN_RETURN_IF_ERROR(supported(dtype, "the target dtype"));
    if (out->dtype != dtype) {
      return invalid(std::string("out dtype ") + ops::dtype_name(out->dtype) + " is not the target " +
                     ops::dtype_name(dtype));
    }
    if (out->view != self->view) {
      return invalid("out shape " + ops::shape_text(out->view) + " differs from self shape " +
                     ops::shape_text(self->view));
    }
    PlanBuilder b("Cast");
    const int si = b.add_input(self);
    const int oi = b.add_output(out);
    if (ops::numel(self->view) > 0) plan_copy(b, si, oi);
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnCast(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnCast", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor* selfRef, const aclScalar* value, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
  return guarded("aclnnInplaceFillScalar", [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_tensor(selfRef, "selfRef"));
    ARUN_RETURN_IF_ERROR(check_scalar(value, "value"));
    if (workspaceSize == nullptr) return null_error("workspaceSize");
    if (executor == nullptr) return null_error("executor");
    ARUN_RETURN_IF_ERROR(check_view(*selfRef, "selfRef"));
    ARUN_RETURN_IF_ERROR(supported(selfRef->dtype, "selfRef"));
    ARUN_RETURN_IF_ERROR(supported(value->dtype, "value"));
    if (!can_cast(value->dtype, selfRef->dtype)) {
      return invalid(std::string("value of dtype ") + ops::dtype_name(value->dtype) + " cannot be cast to " +
                     ops::dtype_name(selfRef->dtype));
    }
    PlanBuilder b("InplaceFillScalar");
    const int si = b.add_input(selfRef);
    if (ops::numel(selfRef->view) > 0) {
      Step s;
      s.copy.src_const = true;
      s.copy.constant = scalar_value(*value);
      s.copy.src_dtype = value->dtype;
      s.copy.dst_tensor = si;
      s.copy.dst_dtype = selfRef->dtype;
      s.copy.shape = selfRef->view;
      b.add(std::move(s));
    }
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceFillScalar(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return run_phase2("aclnnInplaceFillScalar", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef, const aclTensor* src, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return guarded("aclnnInplaceCopy", [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_tensor(selfRef, "selfRef"));
    ARUN_RETURN_IF_ERROR(check_tensor(src, "src"));
    if (workspaceSize == nullptr) return null_error("workspaceSize");
    if (executor == nullptr) return null_error("executor");
    ARUN_RETURN_IF_ERROR(check_view(*selfRef, "selfRef"));
    ARUN_RETURN_IF_ERROR(check_view(*src, "src"));
    ARUN_RETURN_IF_ERROR(supported(selfRef->dtype, "selfRef"));
    ARUN_RETURN_IF_ERROR(supported(src->dtype, "src"));
    if (!can_cast(src->dtype, selfRef->dtype)) {
      return invalid(std::string("src dtype ") + ops::dtype_name(src->dtype) + " cannot be converted to " +
                     ops::dtype_name(selfRef->dtype));
    }
    ops::Shape shape;
    if (!ops::broadcast_shapes(selfRef->view, src->view, &shape) || shape != selfRef->view) {
      return invalid("src shape " + ops::shape_text(src->view) + " does not broadcast to selfRef shape " +
                     ops::shape_text(selfRef->view));
    }
    PlanBuilder b("InplaceCopy");
    const int di = b.add_input(selfRef);
    const int si = b.add_input(src);
    if (ops::numel(selfRef->view) > 0) plan_copy(b, si, di);
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnInplaceCopy(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             const aclrtStream stream) {
  return run_phase2("aclnnInplaceCopy", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
