// Matmul, Mm, BatchMatMul, Addmm (and their WeightNz / in-place variants; aclnn-api.md 5.18-5.19)
// over the op library's MatMul and Gemm kernels (matmul.cpp: OpenBLAS sgemm in float32). A
// float32 2-D operand that is a transposed view goes to Gemm as its storage with transA/transB set,
// without a copy; other layouts and the half types are staged through the workspace in float32.
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "plan_util.hpp"

namespace arun::aclnn {
namespace {

const std::vector<aclDataType> kMatTypes = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16};

Status check_common(const char* self_name, const aclTensor* a, const aclTensor* b, const aclTensor* out,
                    int8_t cubeMathType, uint64_t* ws, aclOpExecutor** ex) {
  ARUN_RETURN_IF_ERROR(check_tensor(a, self_name));
  ARUN_RETURN_IF_ERROR(check_tensor(b, "mat2"));
  ARUN_RETURN_IF_ERROR(check_tensor(out, "out"));
  if (ws == nullptr) return null_error("workspaceSize");
  if (ex == nullptr) return null_error("executor");
  for (auto [t, what] : {std::pair{a, self_name}, std::pair{b, "mat2"}, std::pair{out, "out"}}) {
    ARUN_RETURN_IF_ERROR(check_view(*t, what));
    if (!in_list(t->dtype, kMatTypes)) {
      return invalid(std::string(what) + " has dtype " + ops::dtype_name(t->dtype) +
                     "; supported: " + dtype_list(kMatTypes));
    }
    if (t->format == ACL_FORMAT_FRACTAL_NZ) {
      return invalid(std::string(what) + " is in FRACTAL_NZ format, which ascend-run does not implement");
    }
  }
  if ((a->dtype == ACL_BF16) != (b->dtype == ACL_BF16)) {
    return invalid("BF16 cannot be mixed with FLOAT16 or FLOAT (" + std::string(ops::dtype_name(a->dtype)) + " x " +
                   ops::dtype_name(b->dtype) + ")");
  }
  if (cubeMathType < 0 || cubeMathType > 4) {
    return invalid("cubeMathType " + std::to_string(cubeMathType) + " is not 0..4");
  }
  if (cubeMathType == 2 && a->dtype == ACL_BF16) return invalid("cubeMathType 2 (USE_FP16) does not apply to BF16");
  if (cubeMathType == 3 && a->dtype != ACL_FLOAT && b->dtype != ACL_FLOAT) {
    return invalid("cubeMathType 3 (USE_HF32) applies to FLOAT only");
  }
  const aclDataType p = promote(a->dtype, b->dtype);
  if (!can_cast(p, out->dtype)) return invalid("the result cannot be cast to out");
  return Status::Ok();
}

// A float32 2-D operand for Gemm: in place (trans = false), as its transposed storage (trans = true),
// or staged contiguous in the workspace.
Operand gemm_operand(Staging& s, int ti, bool* trans, bool must_stage) {
  const aclTensor& t = s.b.tensor(ti);
  *trans = false;
  if (!must_stage && t.dtype == ACL_FLOAT && t.view.size() == 2) {
    if (contiguous(t)) return Operand{ti, 0, ACL_FLOAT, t.view};
    if (t.strides[0] == 1 && t.strides[1] == t.view[0]) {
      *trans = true;
      return Operand{ti, 0, ACL_FLOAT, {t.view[1], t.view[0]}};
    }
  }
  return s.input(ti);
}

// out = alpha * a @ b + beta * c (c optional), all 2-D.
Status plan_gemm(PlanBuilder& b, int ai, int bi, int ci, int out, double alpha, double beta, bool inplace) {
  const aclTensor& o = b.tensor(out);
  // The output goes straight to the user only when no input shares its memory.
  bool clash = inplace;
  for (int i : {ai, bi, ci}) {
    if (i >= 0 && i != out && overlaps(b.tensor(i), o)) clash = true;
  }
  Staging s(b, out, ACL_FLOAT, !clash);
  bool ta = false, tb = false;
  std::vector<Operand> ins;
  ins.push_back(gemm_operand(s, ai, &ta, false));
  ins.push_back(gemm_operand(s, bi, &tb, false));
  if (ci >= 0) ins.push_back(s.input(ci));
  ops::Attrs attrs;
  attrs.set("alpha", static_cast<float>(alpha));
  attrs.set("beta", static_cast<float>(beta));
  attrs.set("transA", int64_t{ta});
  attrs.set("transB", int64_t{tb});
  const Operand r = s.output();
  s.kernel("Gemm", std::move(ins), r, std::move(attrs));
  s.finish(r);
  return Status::Ok();
}

aclnnStatus mm(const char* name, const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cube,
               uint64_t* ws, aclOpExecutor** ex) {
  return guarded(name, [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_common("self", self, mat2, out, cube, ws, ex));
    if (self->view.size() != 2 || mat2->view.size() != 2) {
      return invalid("Mm takes 2-D operands, got " + ops::shape_text(self->view) + " and " +
                     ops::shape_text(mat2->view));
    }
    if (self->view[1] != mat2->view[0]) {
      return invalid("inner dimensions differ: " + ops::shape_text(self->view) + " x " + ops::shape_text(mat2->view));
    }
    const ops::Shape want{self->view[0], mat2->view[1]};
    if (out->view != want)
      return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
    PlanBuilder b("Mm");
    const int ai = b.add_input(self), bi = b.add_input(mat2), oi = b.add_output(out);
    if (ops::numel(want) > 0) ARUN_RETURN_IF_ERROR(plan_gemm(b, ai, bi, -1, oi, 1.0, 0.0, false));
    return publish(b, ws, ex);
  });
}

// torch.matmul's output shape (ranks 1..6), or false.
bool matmul_shape(const ops::Shape& a, const ops::Shape& b, ops::Shape* out) {
  ops::Shape sa = a, sb = b;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  if (sa[sa.size() - 1] != sb[sb.size() - 2]) return false;
  ops::Shape batch;
  if (!ops::broadcast_shapes(ops::Shape(sa.begin(), sa.end() - 2), ops::Shape(sb.begin(), sb.end() - 2), &batch)) {
    return false;
  }
  *out = batch;
  if (a.size() > 1) out->push_back(sa[sa.size() - 2]);
  if (b.size() > 1) out->push_back(sb.back());
  return true;
}

aclnnStatus matmul(const char* name, const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cube,
                   uint64_t* ws, aclOpExecutor** ex, size_t min_rank, size_t max_rank) {
  return guarded(name, [&]() -> Status {
    ARUN_RETURN_IF_ERROR(check_common("self", self, mat2, out, cube, ws, ex));
    for (auto [t, what] : {std::pair{self, "self"}, std::pair{mat2, "mat2"}}) {
      if (t->view.size() < min_rank || t->view.size() > max_rank) {
        return invalid(std::string(what) + " has rank " + std::to_string(t->view.size()) + "; " + (name + 5) +
                       " takes " + std::to_string(min_rank) +
                       (min_rank == max_rank ? "" : ".." + std::to_string(max_rank)));
      }
    }
    ops::Shape want;
    if (!matmul_shape(self->view, mat2->view, &want)) {
      return invalid("cannot multiply " + ops::shape_text(self->view) + " by " + ops::shape_text(mat2->view));
    }
    if (out->view != want)
      return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(want));
    PlanBuilder b(name + 5);
    const int ai = b.add_input(self), bi = b.add_input(mat2), oi = b.add_output(out);
    if (ops::numel(want) > 0) {
      if (self->view.size() == 2 && mat2->view.size() == 2) {
        ARUN_RETURN_IF_ERROR(plan_gemm(b, ai, bi, -1, oi, 1.0, 0.0, false));
      } else {
        const bool clash = overlaps(*self, *out) || overlaps(*mat2, *out);
        Staging s(b, oi, ACL_FLOAT, !clash);
        const Operand x = s.input(ai), y = s.input(bi), r = s.output();
        s.kernel("MatMul", {x, y}, r);
        s.finish(r);
      }
    }
    return publish(b, ws, ex);
  });
}

aclnnStatus addmm(const char* name, const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                  const aclScalar* beta, const aclScalar* alpha, aclTensor* out, int8_t cube, uint64_t* ws,
                  aclOpExecutor** ex, bool inplace) {
  return guarded(name, [&]() -> Status {
    const char* self_name = inplace ? "selfRef" : "self";
    ARUN_RETURN_IF_ERROR(check_tensor(self, self_name));
    ARUN_RETURN_IF_ERROR(check_tensor(mat1, "mat1"));
    ARUN_RETURN_IF_ERROR(check_tensor(mat2, "mat2"));
    ARUN_RETURN_IF_ERROR(check_scalar(beta, "beta"));
    ARUN_RETURN_IF_ERROR(check_scalar(alpha, "alpha"));
    ARUN_RETURN_IF_ERROR(check_common("mat1", mat1, mat2, out, cube, ws, ex));
    ARUN_RETURN_IF_ERROR(check_view(*self, self_name));
    if (!in_list(self->dtype, kMatTypes))
      return invalid(std::string(self_name) + " has dtype " + ops::dtype_name(self->dtype));
    const std::vector<aclDataType> scalar_types = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT8,
                                                   ACL_INT16, ACL_INT32,   ACL_INT64,  ACL_UINT8};
    for (auto [s, what] : {std::pair{beta, "beta"}, std::pair{alpha, "alpha"}}) {
      if (!in_list(s->dtype, scalar_types))
        return invalid(std::string(what) + " has dtype " + ops::dtype_name(s->dtype));
    }
    if (mat1->view.size() != 2 || mat2->view.size() != 2 || mat1->view[1] != mat2->view[0]) {
      return invalid("mat1 " + ops::shape_text(mat1->view) + " and mat2 " + ops::shape_text(mat2->view) +
                     " cannot be multiplied");
    }
    const ops::Shape mn{mat1->view[0], mat2->view[1]};
    if (out->view != mn) return invalid("out shape " + ops::shape_text(out->view) + " is not " + ops::shape_text(mn));
    ops::Shape bshape;
    if (self->view.size() > 2 || !ops::broadcast_shapes(self->view, mn, &bshape) || bshape != mn) {
      return invalid(std::string(self_name) + " shape " + ops::shape_text(self->view) + " does not broadcast to " +
                     ops::shape_text(mn));
    }
    const double bv = scalar_value(*beta).as_double(), av = scalar_value(*alpha).as_double();
    PlanBuilder b(name + 5);
    const int si = b.add_input(self), ai = b.add_input(mat1), bi = b.add_input(mat2);
    const int oi = inplace ? si : b.add_output(out);
    // beta == 0: self is not read (NaN there does not propagate), as PyTorch.
    if (ops::numel(mn) > 0) ARUN_RETURN_IF_ERROR(plan_gemm(b, ai, bi, bv == 0.0 ? -1 : si, oi, av, bv, inplace));
    return publish(b, ws, ex);
  });
}

}  // namespace
}  // namespace arun::aclnn

using namespace arun::aclnn;

extern "C" {

aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cubeMathType,
                                    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return mm("aclnnMm", self, mat2, out, cubeMathType, workspaceSize, executor);
}
aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                        int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return matmul("aclnnMatmul", self, mat2, out, cubeMathType, workspaceSize, executor, 1, 6);
}
// The NZ-weight variants: the ND forms; a FRACTAL_NZ mat2 is refused (161002) by check_common.
aclnnStatus aclnnMatmulWeightNzGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                                int8_t cubeMathType, uint64_t* workspaceSize,
                                                aclOpExecutor** executor) {
  return matmul("aclnnMatmulWeightNz", self, mat2, out, cubeMathType, workspaceSize, executor, 1, 6);
}
aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                             int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return matmul("aclnnBatchMatMul", self, mat2, out, cubeMathType, workspaceSize, executor, 3, 3);
}
aclnnStatus aclnnBatchMatMulWeightNzGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                                     int8_t cubeMathType, uint64_t* workspaceSize,
                                                     aclOpExecutor** executor) {
  return matmul("aclnnBatchMatMulWeightNz", self, mat2, out, cubeMathType, workspaceSize, executor, 3, 3);
}
aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                                       const aclScalar* beta, const aclScalar* alpha, aclTensor* out,
                                       int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return addmm("aclnnAddmm", self, mat1, mat2, beta, alpha, out, cubeMathType, workspaceSize, executor, false);
}
aclnnStatus aclnnAddmmWeightNzGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                                               const aclScalar* beta, const aclScalar* alpha, aclTensor* out,
                                               int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return addmm("aclnnAddmmWeightNz", self, mat1, mat2, beta, alpha, out, cubeMathType, workspaceSize, executor, false);
}
aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* mat1, const aclTensor* mat2,
                                              const aclScalar* beta, const aclScalar* alpha, int8_t cubeMathType,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  return addmm("aclnnInplaceAddmm", selfRef, mat1, mat2, beta, alpha, const_cast<aclTensor*>(selfRef), cubeMathType,
               workspaceSize, executor, true);
}
ACLNN_PHASE2(Mm)
ACLNN_PHASE2(Matmul)
ACLNN_PHASE2(MatmulWeightNz)
ACLNN_PHASE2(BatchMatMul)
ACLNN_PHASE2(BatchMatMulWeightNz)
ACLNN_PHASE2(Addmm)
ACLNN_PHASE2(AddmmWeightNz)
ACLNN_PHASE2(InplaceAddmm)

}  // extern "C"
