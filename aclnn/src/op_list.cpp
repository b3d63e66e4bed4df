// The tensor-list operators (aclnn-api.md 5.27 Cat, 5.31 Sum): Cat is the op library's Concat (a
// byte copy per slice, so any dtype) on the list staged to the promoted dtype; Sum (AccumulateNV2)
// is the first tensor broadcast into the result, then one Add kernel per further tensor.
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_sum.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kCatTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64,  ACL_INT16,
                                            ACL_INT8,  ACL_UINT8,   ACL_BOOL,  ACL_DOUBLE, ACL_BF16};
const std::vector<aclDataType> kSumTypes = {ACL_FLOAT16, ACL_FLOAT, ACL_INT8, ACL_INT32, ACL_UINT8};

// The list and each element (NULL -> 161001, dead -> 161002), views checked.
Status check_list(const aclTensorList* list, const char* what) {
  if (list == nullptr) return null_error(what);
  if (!live(list, Kind::TensorList)) {
    return invalid(std::string(what) + " is not a live aclTensorList (destroyed or foreign)");
  }
  for (size_t i = 0; i < list->values.size(); ++i) {
    const std::string name = std::string(what) + "[" + std::to_string(i) + "]";
    ARUN_RETURN_IF_ERROR(check_tensor(list->values[i], name.c_str()));
  }
  return Status::Ok();
}

Status plan_cat(const aclTensorList* tensors, int64_t dim, aclTensor* out, uint64_t* workspaceSize,
                aclOpExecutor** executor) {
  ARUN_RETURN_IF_ERROR(check_list(tensors, "tensors"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  const auto& ts = tensors->values;
  if (ts.empty()) return invalid("tensors is an empty list");
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(out->dtype, kCatTypes)) {
    return invalid(std::string("out has dtype ") + ops::dtype_name(out->dtype) +
                   "; supported: " + dtype_list(kCatTypes));
  }
  aclDataType p = ACL_DT_UNDEFINED;
  const aclTensor* first = nullptr;  // the first tensor that takes part (not a legacy 1-D [0])
  for (size_t i = 0; i < ts.size(); ++i) {
    const aclTensor& t = *ts[i];
    const std::string name = "tensors[" + std::to_string(i) + "]";
    ARUN_RETURN_IF_ERROR(check_view(t, name.c_str()));
    if (!in_list(t.dtype, kCatTypes)) {
      return invalid(name + " has dtype " + ops::dtype_name(t.dtype) + "; supported: " + dtype_list(kCatTypes));
    }
    p = i == 0 ? t.dtype : promote(p, t.dtype);
    if (p == ACL_DT_UNDEFINED) return invalid("the dtypes of tensors do not promote (at " + name + ")");
    if (first == nullptr && !(t.view.size() == 1 && t.view[0] == 0)) first = &t;
  }
  if (!can_cast(p, out->dtype)) {
    return invalid(std::string("the result type ") + ops::dtype_name(p) + " cannot be cast to out's " +
                   ops::dtype_name(out->dtype));
  }
  if (first == nullptr) {
    // Only legacy empty tensors: the result is empty.
    if (ops::numel(out->view) != 0) return invalid("out shape " + ops::shape_text(out->view) + " is not empty");
    PlanBuilder b("Cat");
    b.add_output(out);
    return publish(b, workspaceSize, executor);
  }
  const int64_t rank = static_cast<int64_t>(first->view.size());
  if (rank == 0) return invalid("tensors must have rank 1 to 8, not 0");
  if (dim < -rank || dim >= rank) {
    return invalid("dim " + std::to_string(dim) + " is outside [" + std::to_string(-rank) + ", " +
                   std::to_string(rank - 1) + "]");
  }
  const size_t axis = static_cast<size_t>(dim < 0 ? dim + rank : dim);
  ops::Shape want = first->view;
  want[axis] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const aclTensor& t = *ts[i];
    if (t.view.size() == 1 && t.view[0] == 0) continue;
    bool ok = t.view.size() == first->view.size();
    for (size_t d = 0; ok && d < t.view.size(); ++d) ok = d == axis || t.view[d] == first->view[d];
    if (!ok) {
      return invalid("tensors[" + std::to_string(i) + "] shape " + ops::shape_text(t.view) + " differs from " +
                     ops::shape_text(first->view) + " outside dim " + std::to_string(axis));
    }
    want[axis] += t.view[axis];
  }
  if (out->view != want) {
    return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
  }
  PlanBuilder b("Cat");
  std::vector<int> ins, dynamic;
  for (const aclTensor* t : ts) {
    // Tensors without elements contribute nothing to the copy.
    dynamic.push_back(ops::numel(t->view) > 0 ? b.add_input(t) : -1);
    if (dynamic.back() >= 0) ins.push_back(dynamic.back());
  }
  b.set_dynamic_inputs(std::move(dynamic));
  const int oi = b.add_output(out);
  if (ops::numel(want) > 0) {
    Staging s(b, oi, p);
    std::vector<Operand> ops_in;
    for (int i : ins) ops_in.push_back(s.input(i));
    const Operand r = s.output();
    ops::Attrs attrs;
    attrs.set("axis", static_cast<int64_t>(axis));
    s.kernel("Concat", std::move(ops_in), r, std::move(attrs));
    s.finish(r);
  }
  return publish(b, workspaceSize, executor);
}

Status plan_sum(const aclTensorList* tensors, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  ARUN_RETURN_IF_ERROR(check_list(tensors, "tensors"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  const auto& ts = tensors->values;
  if (ts.empty()) return invalid("tensors is an empty list");
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(out->dtype, kSumTypes)) {
    return invalid(std::string("out has dtype ") + ops::dtype_name(out->dtype) +
                   "; supported: " + dtype_list(kSumTypes));
  }
  for (size_t i = 0; i < ts.size(); ++i) {
    const aclTensor& t = *ts[i];
    const std::string name = "tensors[" + std::to_string(i) + "]";
    ARUN_RETURN_IF_ERROR(check_view(t, name.c_str()));
    if (t.dtype != out->dtype) {
      return invalid(name + " has dtype " + ops::dtype_name(t.dtype) + ", out " + ops::dtype_name(out->dtype));
    }
    ops::Shape shape;
    if (!ops::broadcast_shapes(t.view, out->view, &shape) || shape != out->view) {
      return invalid(name + " shape " + ops::shape_text(t.view) + " does not broadcast to out's " +
                     ops::shape_text(out->view));
    }
  }
  PlanBuilder b("Sum");
  std::vector<int> ins;
  for (const aclTensor* t : ts) ins.push_back(b.add_input(t));
  b.set_dynamic_inputs(ins);
  const int oi = b.add_output(out);
  if (ops::numel(out->view) > 0) {
    const aclDataType kdt = numeric_kernel_dtype(out->dtype);
    // The running sum lives in the output only when no input can be overwritten by it before it is read.
    bool direct = true;
    for (int i : ins) direct = direct && !overlaps(b.tensor(i), b.tensor(oi));
    Staging s(b, oi, kdt, direct);
    std::vector<Operand> rest;
    for (size_t k = 1; k < ins.size(); ++k) rest.push_back(s.input(ins[k]));
    const Operand r = s.output();
    // The first tensor broadcast into the running sum (converted to the kernel's dtype).
    Step init;
    init.copy.src_tensor = ins[0];
    init.copy.src_dtype = b.tensor(ins[0]).dtype;
    init.copy.src_shape = b.tensor(ins[0]).view;
    if (r.tensor >= 0) {
      init.copy.dst_tensor = r.tensor;
    } else {
      init.copy.dst_ws = r.ws_offset;
    }
    init.copy.dst_dtype = kdt;
    init.copy.shape = out->view;
    b.add(std::move(init));
    for (const Operand& x : rest) s.kernel("Add", {r, x}, r);
    s.finish(r);
  }
  return publish(b, workspaceSize, executor);
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList* tensors, int64_t dim, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return guarded("aclnnCat", [&] { return plan_cat(tensors, dim, out, workspaceSize, executor); });
}
aclnnStatus aclnnCat(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream) {
  return run_phase2("aclnnCat", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSumGetWorkspaceSize(const aclTensorList* tensors, aclTensor* out, uint64_t* workspaceSize,
                                     aclOpExecutor** executor) {
  return guarded("aclnnSum", [&] { return plan_sum(tensors, out, workspaceSize, executor); });
}
aclnnStatus aclnnSum(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
  return run_phase2("aclnnSum", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
