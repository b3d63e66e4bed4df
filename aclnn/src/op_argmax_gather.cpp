// ArgMax (aclnn-api.md 5.33) over the op library's ArgMax kernel (first maximum, NaN wins, int64
// indices; an INT32 `out` is converted on the way out) and Gather (5.29, torch.gather) over its
// GatherElements kernel (elements moved by size, so any dtype; an index out of range fails the
// stream at its next synchronize).
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_gather.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kArgMaxTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_INT8,
                                               ACL_INT16, ACL_INT32,   ACL_INT64, ACL_UINT8};
const std::vector<aclDataType> kGatherTypes = {ACL_DOUBLE, ACL_FLOAT16, ACL_BF16,   ACL_FLOAT, ACL_INT32,
                                               ACL_UINT32, ACL_INT64,   ACL_UINT64, ACL_INT16, ACL_UINT16,
                                               ACL_INT8,   ACL_UINT8,   ACL_BOOL};

std::string range_text(int64_t lo, int64_t hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

Status plan_argmax(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, uint64_t* workspaceSize,
                   aclOpExecutor** executor) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*self, "self"));
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(self->dtype, kArgMaxTypes)) {
    return invalid(std::string("self has dtype ") + ops::dtype_name(self->dtype) +
                   "; supported: " + dtype_list(kArgMaxTypes));
  }
  if (out->dtype != ACL_INT32 && out->dtype != ACL_INT64) {
    return invalid(std::string("out must be INT32 or INT64, got ") + ops::dtype_name(out->dtype));
  }
  const int64_t rank = static_cast<int64_t>(self->view.size());
  const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi) return invalid("dim " + std::to_string(dim) + " is outside " + range_text(lo, hi));
  const int64_t axis = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
  ops::Shape want;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) {
      want.push_back(self->view[static_cast<size_t>(d)]);
    } else if (keepdim) {
      want.push_back(1);
    }
  }
  if (out->view != want) return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
  if (rank > 0 && self->view[static_cast<size_t>(axis)] == 0 && ops::numel(want) > 0) {
    return invalid("argmax of an empty dim " + std::to_string(dim) + " has no value");
  }
  PlanBuilder b("ArgMax");
  const int si = b.add_input(self), oi = b.add_output(out);
  if (ops::numel(want) > 0) {
    if (rank == 0) {
      // The index of a single element is 0.
      Step s;
      s.copy.src_const = true;
      s.copy.constant = Value{false, 0, 0};
      s.copy.src_dtype = ACL_INT64;
      s.copy.dst_tensor = oi;
      s.copy.dst_dtype = out->dtype;
      s.copy.shape = want;
      b.add(std::move(s));
    } else {
      Staging so(b, oi, ACL_INT64);
      Staging sx(b, oi, numeric_kernel_dtype(self->dtype));
      sx.out_direct = so.out_direct;
      const Operand x = sx.input(si);
      const Operand r = so.output();
      ops::Attrs attrs;
      attrs.set("axis", axis);
      attrs.set("keepdims", static_cast<int64_t>(keepdim ? 1 : 0));
      so.kernel("ArgMax", {x}, r, std::move(attrs));
      so.finish(r);
    }
  }
  return publish(b, workspaceSize, executor);
}

Status plan_gather(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out, uint64_t* workspaceSize,
                   aclOpExecutor** executor) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  ARUN_RETURN_IF_ERROR(check_tensor(index, "index"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*self, "self"));
  ARUN_RETURN_IF_ERROR(check_view(*index, "index"));
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(self->dtype, kGatherTypes)) {
    return invalid(std::string("self has dtype ") + ops::dtype_name(self->dtype) +
                   "; supported: " + dtype_list(kGatherTypes));
  }
  if (index->dtype != ACL_INT32 && index->dtype != ACL_INT64) {
    return invalid(std::string("index must be INT32 or INT64, got ") + ops::dtype_name(index->dtype));
  }
  if (out->dtype != self->dtype) return invalid("out dtype differs from self's");
  if (index->view.size() != self->view.size()) {
    return invalid("index rank " + std::to_string(index->view.size()) + " differs from self rank " +
                   std::to_string(self->view.size()));
  }
  const int64_t rank = static_cast<int64_t>(self->view.size());
  const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi) return invalid("dim " + std::to_string(dim) + " is outside " + range_text(lo, hi));
  const size_t axis = static_cast<size_t>(dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim);
  for (size_t d = 0; d < index->view.size(); ++d) {
    if (d != axis && index->view[d] > self->view[d]) {
      return invalid("index shape " + ops::shape_text(index->view) + " is larger than self " +
                     ops::shape_text(self->view) + " outside dim " + std::to_string(axis));
    }
  }
  if (rank > 0 && self->view[axis] == 0 && ops::numel(index->view) > 0) {
    return invalid("a non-empty index into an empty dim");
  }
  if (out->view != index->view) {
    return invalid("out shape " + ops::shape_text(out->view) + " is not index's " + ops::shape_text(index->view));
  }
  PlanBuilder b("Gather");
  const int si = b.add_input(self), ii = b.add_input(index), oi = b.add_output(out);
  if (ops::numel(index->view) > 0) {
    if (rank == 0) {
      plan_copy(b, si, oi);  // a 0-d gather reads the one element
    } else {
      Staging s(b, oi, self->dtype);
      Staging si_idx(b, oi, index->dtype);
      si_idx.out_direct = s.out_direct;
      const Operand x = s.input(si), idx = si_idx.input(ii);
      const Operand r = s.output();
      ops::Attrs attrs;
      attrs.set("axis", static_cast<int64_t>(axis));
      s.kernel("GatherElements", {x, idx}, r, std::move(attrs));
      s.finish(r);
    }
  }
  return publish(b, workspaceSize, executor);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnArgMax", [&] { return plan_argmax(self, dim, keepdim, out, workspaceSize, executor); });
}
aclnnStatus aclnnArgMax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnArgMax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor* self, const int64_t dim, const aclTensor* index,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnGather", [&] { return plan_gather(self, dim, index, out, workspaceSize, executor); });
}
aclnnStatus aclnnGather(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream) {
  return run_phase2("aclnnGather", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
