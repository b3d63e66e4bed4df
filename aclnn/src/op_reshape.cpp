// Permute, ReduceSum, Mean and MeanV2 (aclnn-api.md 5.28, 5.31, 5.32). Permute is a strided copy of
// the permuted view (no kernel of its own); the reductions are the op library's ReduceSum and
// ReduceMean (normalization.cpp, float32/float16).
#include <algorithm>
#include <cmath>

#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

// Normalised, duplicate-free axes of a rank-`rank` tensor (161002 naming the bad one).
Status axes_of(const aclIntArray& dims, int64_t rank, std::vector<int64_t>* out) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 1)), false);
  for (int64_t a : dims.values) {
    const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
    if (a < lo || a > hi) {
      return invalid("axis " + std::to_string(a) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "]");
    }
    const int64_t n = a < 0 ? a + std::max<int64_t>(rank, 1) : a;
    if (seen[static_cast<size_t>(n)]) return invalid("axis " + std::to_string(a) + " is repeated");
    seen[static_cast<size_t>(n)] = true;
    out->push_back(n);
  }
  return Status::Ok();
}

const std::vector<aclDataType> kReduceIn = {ACL_FLOAT16, ACL_FLOAT, ACL_INT8, ACL_INT16,  ACL_INT32,
                                            ACL_INT64,   ACL_UINT8, ACL_BOOL, ACL_DOUBLE, ACL_BF16};
// The op library reduces in float32/float16: integer result types are not implemented (an exact
// integer sum needs an integer kernel), so `dtype` must be floating.
const std::vector<aclDataType> kReduceOut = {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_BF16};

// Sum or mean of `self` over `axes` (empty: all, unless `noop`), computed in `dtype`, into `out`.
Status plan_reduce(const char* name, const aclTensor* self, const aclIntArray* dims, bool keep, aclDataType dtype,
                   bool noop, aclTensor* out, bool mean, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
  if (dims == nullptr) return null_error("dims");
  if (!live(dims, Kind::IntArray)) return invalid("dims is not a live aclIntArray");
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*self, "self"));
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(self->dtype, kReduceIn)) {
    return invalid(std::string("self has dtype ") + ops::dtype_name(self->dtype) +
                   "; supported: " + dtype_list(kReduceIn));
  }
  if (!in_list(dtype, kReduceOut)) {
    return invalid(std::string("dtype ") + ops::dtype_name(dtype) +
                   " is not implemented; supported: " + dtype_list(kReduceOut));
  }
  if (!mean && out->dtype != dtype) {
    return invalid(std::string("dtype ") + ops::dtype_name(dtype) + " differs from out's " +
                   ops::dtype_name(out->dtype));
  }
  if (!can_cast(self->dtype, dtype) || !can_cast(dtype, out->dtype)) {
    return invalid(std::string("cannot compute ") + ops::dtype_name(self->dtype) + " in " + ops::dtype_name(dtype) +
                   " into " + ops::dtype_name(out->dtype));
  }
  const int64_t rank = static_cast<int64_t>(self->view.size());
  std::vector<int64_t> axes;
  ARUN_RETURN_IF_ERROR(axes_of(*dims, rank, &axes));
  std::vector<bool> reduce(static_cast<size_t>(rank), axes.empty() && !noop);
  for (int64_t a : axes) {
    if (rank > 0) reduce[static_cast<size_t>(a)] = true;
  }
  ops::Shape want;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduce[static_cast<size_t>(d)]) {
      want.push_back(self->view[static_cast<size_t>(d)]);
    } else if (keep) {
      want.push_back(1);
    }
  }
  if (out->view != want) {
    return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
  }
  PlanBuilder b(name + 5);
  const int si = b.add_input(self), oi = b.add_output(out);
  const bool any = std::find(reduce.begin(), reduce.end(), true) != reduce.end();
  if (ops::numel(want) > 0) {
    if (!any) {
      plan_copy(b, si, oi);  // nothing reduced (0-d self, or no axes with noop): a copy
    } else if (ops::numel(self->view) == 0) {
      // An empty reduction: 0 for a sum, NaN for a mean.
      Step s;
      s.copy.src_const = true;
      s.copy.constant = Value{true, mean ? std::nan("") : 0.0, 0};
      s.copy.src_dtype = ACL_DOUBLE;
      s.copy.dst_tensor = oi;
      s.copy.dst_dtype = out->dtype;
      s.copy.shape = want;
      b.add(std::move(s));
    } else {
      Staging s(b, oi, float_kernel_dtype(dtype));
      const Operand x = s.input(si), r = s.output();
      ops::Attrs attrs;
      std::vector<int64_t> all;
      for (int64_t d = 0; d < rank; ++d) {
        if (reduce[static_cast<size_t>(d)]) all.push_back(d);
      }
      attrs.set("axes", all);
      attrs.set("keepdims", int64_t{keep});
      s.kernel(mean ? "ReduceMean" : "ReduceSum", {x}, r, std::move(attrs));
      s.finish(r);
    }
  }
  return publish(b, ws, ex);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun;
using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnPermute", [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_tensor(self, "self"));
    if (dims == nullptr) return null_error("dims");
    if (!live(dims, Kind::IntArray)) return invalid("dims is not a live aclIntArray");
    ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
    if (workspaceSize == nullptr) return null_error("workspaceSize");
    if (executor == nullptr) return null_error("executor");
    ARUN_RETURN_IF_ERROR(check_view(*self, "self"));
    ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
    const std::vector<aclDataType> types = {ACL_FLOAT,  ACL_FLOAT16, ACL_DOUBLE, ACL_UINT64, ACL_INT64,
                                            ACL_UINT32, ACL_INT32,   ACL_UINT16, ACL_INT16,  ACL_UINT8,
                                            ACL_INT8,   ACL_BOOL,    ACL_BF16};
    if (!in_list(self->dtype, types)) return invalid(std::string("self has dtype ") + ops::dtype_name(self->dtype));
    if (out->dtype != self->dtype) return invalid("out dtype differs from self dtype");
    const int64_t rank = static_cast<int64_t>(self->view.size());
    if (static_cast<int64_t>(dims->values.size()) != rank) {
      return invalid("dims has " + std::to_string(dims->values.size()) + " entries for a rank-" + std::to_string(rank) +
                     " tensor");
    }
    std::vector<int64_t> perm;
    ARUN_RETURN_IF_ERROR(axes_of(*dims, rank, &perm));  // in range, no repeats: a permutation
    ops::Shape view, strides;
    for (int64_t p : perm) {
      view.push_back(self->view[static_cast<size_t>(p)]);
      strides.push_back(self->strides[static_cast<size_t>(p)]);
    }
    if (out->view != view)
      return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(view));
    PlanBuilder b("Permute");
    const int si = b.add_input(self), oi = b.add_output(out);
    // The source is read through the permuted view of its own storage: one strided copy.
    b.view(si).view = view;
    b.view(si).strides = strides;
    if (ops::numel(view) > 0) plan_copy(b, si, oi);
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnPermute(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream) {
  return run_phase2("aclnnPermute", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, bool keepDims,
                                           aclDataType dtype, aclTensor* out, uint64_t* workspaceSize,
                                           aclOpExecutor** executor) {
  return guarded("aclnnReduceSum", [&] {
    return plan_reduce("aclnnReduceSum", self, dims, keepDims, dtype, false, out, false, workspaceSize, executor);
  });
}
aclnnStatus aclnnReduceSum(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnReduceSum", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnMean", [&] {
    return plan_reduce("aclnnMean", self, dim, keepDim, dtype, false, out, true, workspaceSize, executor);
  });
}
aclnnStatus aclnnMean(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnMean", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMeanV2GetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                        bool noopWithEmptyAxes, aclTensor* out, uint64_t* workspaceSize,
                                        aclOpExecutor** executor) {
  return guarded("aclnnMeanV2", [&]() -> Status {
    // No dtype argument: the mean is computed in self's (floating) type.
    const aclDataType dtype =
        self != nullptr && live(self, Kind::Tensor) && is_floating(self->dtype) ? self->dtype : ACL_FLOAT;
    return plan_reduce("aclnnMeanV2", self, dim, keepDim, dtype, noopWithEmptyAxes, out, true, workspaceSize, executor);
  });
}
aclnnStatus aclnnMeanV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnMeanV2", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
