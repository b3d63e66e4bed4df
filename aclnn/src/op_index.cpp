// IndexSelect and Embedding (aclnn-api.md 5.29-5.30) over the op library's Gather kernel
// (shape_ops.cpp: ONNX Gather, a byte copy per selected slice, so every dtype works; an index out
// of range fails the stream with ACL_ERROR_RT_AICORE_EXCEPTION at the next synchronize).
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_index_select.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kIndexData = {ACL_FLOAT,  ACL_FLOAT16, ACL_BF16,  ACL_INT64,  ACL_INT32,
                                             ACL_INT16,  ACL_INT8,    ACL_UINT8, ACL_UINT16, ACL_UINT32,
                                             ACL_UINT64, ACL_BOOL,    ACL_DOUBLE};

// out = Gather(data, index as `index_shape`, axis).
void plan_gather(PlanBuilder& b, int di, int ii, int oi, const ops::Shape& index_shape, int64_t axis) {
  const aclTensor& data = b.tensor(di);
  const aclTensor& index = b.tensor(ii);
  Staging s(b, oi, data.dtype);
  const Operand x = s.input(di);
  // The indices keep their own dtype (int32 or int64); staged only when not contiguous.
  Staging si(b, oi, index.dtype);
  si.out_direct = s.out_direct;
  Operand idx = si.input(ii);
  idx.shape = index_shape;  // a 0-d index is read as [1]: same bytes
  const Operand r = s.output();
  ops::Attrs attrs;
  attrs.set("axis", axis);
  s.kernel("Gather", {x, idx}, r, std::move(attrs));
  s.finish(r);
}

Status check_common(const aclTensor* data, const char* data_name, const aclTensor* index, const char* index_name,
                    const aclTensor* out, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(data, data_name));
  ARUN_RETURN_IF_ERROR(check_tensor(index, index_name));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  ARUN_RETURN_IF_ERROR(check_view(*data, data_name));
  ARUN_RETURN_IF_ERROR(check_view(*index, index_name));
  ARUN_RETURN_IF_ERROR(check_view(*out, "out"));
  if (!in_list(data->dtype, kIndexData)) {
    return invalid(std::string(data_name) + " has dtype " + ops::dtype_name(data->dtype) +
                   "; supported: " + dtype_list(kIndexData));
  }
  if (index->dtype != ACL_INT32 && index->dtype != ACL_INT64) {
    return invalid(std::string(index_name) + " must be INT32 or INT64, got " + ops::dtype_name(index->dtype));
  }
  if (out->dtype != data->dtype) return invalid(std::string("out dtype differs from ") + data_name + "'s");
  return Status::Ok();
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun;
using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnIndexSelect", [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_common(self, "self", index, "index", out, workspaceSize, executor));
    if (index->view.size() > 1) return invalid("index must be 0-D or 1-D, got " + ops::shape_text(index->view));
    const int64_t rank = static_cast<int64_t>(self->view.size());
    const int64_t lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 0 : rank - 1;
    if (dim < lo || dim > hi)
      return invalid("dim " + std::to_string(dim) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "]");
    const int64_t n = index->view.empty() ? 1 : index->view[0];
    ops::Shape want = self->view;
    const int64_t axis = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    if (rank > 0) {
      if (self->view[static_cast<size_t>(axis)] == 0 && n > 0) return invalid("non-empty index into an empty dim");
      want[static_cast<size_t>(axis)] = n;
    } else if (n != 1) {
      return invalid("a 0-d self takes an index of one element");
    }
    if (out->view != want)
      return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
    PlanBuilder b("IndexSelect");
    const int si = b.add_input(self), ii = b.add_input(index), oi = b.add_output(out);
    if (ops::numel(want) > 0) {
      if (rank == 0) {
        plan_copy(b, si, oi);
      } else {
        plan_gather(b, si, ii, oi, {n}, axis);
      }
    }
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnIndexSelect(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             const aclrtStream stream) {
  return run_phase2("aclnnIndexSelect", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor* weight, const aclTensor* indices, const aclTensor* out,
                                           uint64_t* workspaceSize, aclOpExecutor** executor) {
  return guarded("aclnnEmbedding", [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_common(weight, "weight", indices, "indices", out, workspaceSize, executor));
    if (weight->view.size() != 2) return invalid("weight must be 2-D, got " + ops::shape_text(weight->view));
    ops::Shape want = indices->view;
    want.push_back(weight->view[1]);
    if (want.size() > static_cast<size_t>(kMaxRank)) return invalid("out would have rank > 8");
    if (out->view != want)
      return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
    if (weight->view[0] == 0 && ops::numel(indices->view) > 0) return invalid("indices into an empty weight");
    PlanBuilder b("Embedding");
    const int wi = b.add_input(weight), ii = b.add_input(indices), oi = b.add_output(const_cast<aclTensor*>(out));
    if (ops::numel(want) > 0) plan_gather(b, wi, ii, oi, indices->view, 0);
    return publish(b, workspaceSize, executor);
  });
}
aclnnStatus aclnnEmbedding(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, const aclrtStream stream) {
  return run_phase2("aclnnEmbedding", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
