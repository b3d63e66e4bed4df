// Plan-building helpers shared by the operator files: how an operand reaches a kernel (in place
// when it is contiguous, of the kernel's dtype and safe from the output's writes; otherwise staged
// through the workspace by the copy kernel) and how a result reaches a strided or other-dtype output.
#pragma once

#include "aclnn_internal.hpp"

namespace arun::aclnn {

// The float kernels of the op library run float32 and float16; every other floating type goes
// through float32 (bf16: as CANN computes it; double: ours, documented in DEVELOPERS.md).
inline aclDataType float_kernel_dtype(aclDataType d) {
  return d == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT;
}

// The op library's arithmetic kernels (Add ... Pow, Max, Min, ArgMax) run float32/16/64 and
// int32/64: bf16 computes in float32, narrower integers and bool in int32 (wrapping when stored).
inline aclDataType numeric_kernel_dtype(aclDataType d) {
  switch (d) {
    case ACL_FLOAT16:
    case ACL_FLOAT:
    case ACL_DOUBLE:
    case ACL_INT32:
    case ACL_INT64:
      return d;
    case ACL_BF16:
      return ACL_FLOAT;
    default:
      return ACL_INT32;
  }
}

struct Staging {
  PlanBuilder& b;
  int out = -1;             // the output tensor's index
  aclDataType kdt;          // the kernel's dtype
  bool out_direct = false;  // the kernel writes the user's output in place

  Staging(PlanBuilder& builder, int out_index, aclDataType kernel_dtype, bool allow_direct_out = true)
      : b(builder), out(out_index), kdt(kernel_dtype) {
    const aclTensor& o = b.tensor(out);
    out_direct = allow_direct_out && o.dtype == kdt && contiguous(o);
  }

  // Operand for user tensor `ti`, optionally scaled on the way (forces staging).
  Operand input(int ti, const Value* scale = nullptr) {
    const aclTensor& t = b.tensor(ti);
    const aclTensor& o = b.tensor(out);
    const bool safe = !out_direct || !overlaps(t, o) || same_view(t, o);
    if (scale == nullptr && t.dtype == kdt && contiguous(t) && safe) return Operand{ti, 0, kdt, t.view};
    Operand op{-1, b.reserve(kdt, t.view), kdt, t.view};
    Step s;
    s.copy.src_tensor = ti;
    s.copy.src_dtype = t.dtype;
    s.copy.src_shape = t.view;
    s.copy.dst_ws = op.ws_offset;
    s.copy.dst_dtype = kdt;
    s.copy.shape = t.view;
    if (scale != nullptr) {
      s.copy.scaled = true;
      s.copy.scale = *scale;
    }
    b.add(std::move(s));
    return op;
  }

  // A one-element operand holding `v`.
  Operand constant(const Value& v) {
    Operand op{-1, b.reserve(kdt, {}), kdt, {}};
    Step s;
    s.copy.src_const = true;
    s.copy.constant = v;
    s.copy.src_dtype = kdt;
    s.copy.dst_ws = op.ws_offset;
    s.copy.dst_dtype = kdt;
    b.add(std::move(s));
    return op;
  }

  Operand output() {
    const aclTensor& o = b.tensor(out);
    if (out_direct) return Operand{out, 0, kdt, o.view};
    return Operand{-1, b.reserve(kdt, o.view), kdt, o.view};
  }

  // A contiguous buffer of `shape` filled with `v` (an omitted weight of ones, say).
  Operand filled(const ops::Shape& shape, double v) {
    Operand op{-1, b.reserve(kdt, shape), kdt, shape};
    Step s;
    s.copy.src_const = true;
    s.copy.constant = Value{true, v, 0};
    s.copy.src_dtype = ACL_DOUBLE;
    s.copy.dst_ws = op.ws_offset;
    s.copy.dst_dtype = kdt;
    s.copy.shape = shape;
    b.add(std::move(s));
    return op;
  }

  // A scratch buffer of the kernel dtype (intermediate results).
  Operand scratch(const ops::Shape& shape) { return Operand{-1, b.reserve(kdt, shape), kdt, shape}; }

  void kernel(const char* type, std::vector<Operand> ins, const Operand& result, ops::Attrs attrs = {}) {
    Step s;
    s.is_copy = false;
    s.kernel.type = type;
    s.kernel.attrs = std::move(attrs);
    s.kernel.inputs = std::move(ins);
    s.kernel.output = result;
    b.add(std::move(s));
  }

  // After the kernel: a staged result goes to the user's output (converted, rounded).
  void finish(const Operand& result, Round round = Round::None, bool nonfinite_zero = false) {
    if (result.tensor >= 0) return;
    const aclTensor& o = b.tensor(out);
    Step s;
    s.copy.src_ws = result.ws_offset;
    s.copy.src_dtype = kdt;
    s.copy.src_shape = o.view;
    s.copy.dst_tensor = out;
    s.copy.dst_dtype = o.dtype;
    s.copy.shape = o.view;
    s.copy.round = round;
    s.copy.nonfinite_zero = nonfinite_zero;
    b.add(std::move(s));
  }
};

// One strided copy from user tensor `src` (broadcast to `dst`'s view) into user tensor `dst`,
// through the workspace when the two overlap (so `src` is read completely first).
inline void plan_copy(PlanBuilder& b, int src, int dst, bool relu = false, bool absolute = false,
                      const Value* scale = nullptr) {
  const aclTensor& s = b.tensor(src);
  const aclTensor& d = b.tensor(dst);
  Step step;
  step.copy.src_tensor = src;
  step.copy.src_dtype = s.dtype;
  step.copy.src_shape = s.view;
  step.copy.relu = relu;
  step.copy.absolute = absolute;
  if (scale != nullptr) {
    step.copy.scaled = true;
    step.copy.scale = *scale;
  }
  if (overlaps(s, d) && !same_view(s, d)) {
    const uint64_t ws = b.reserve(s.dtype, s.view);
    Step stage;
    stage.copy.src_tensor = src;
    stage.copy.src_dtype = s.dtype;
    stage.copy.src_shape = s.view;
    stage.copy.dst_ws = ws;
    stage.copy.dst_dtype = s.dtype;
    stage.copy.shape = s.view;
    b.add(std::move(stage));
    step.copy.src_tensor = -1;
    step.copy.src_ws = ws;
  }
  step.copy.dst_tensor = dst;
  step.copy.dst_dtype = d.dtype;
  step.copy.shape = d.view;
  b.add(std::move(step));
}

// Phase-1 epilogue shared by every operator: output pointers checked, executor published.
inline Status publish(PlanBuilder& b, uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (workspaceSize == nullptr) return null_error("workspaceSize");
  if (executor == nullptr) return null_error("executor");
  return b.publish(workspaceSize, executor);
}

}  // namespace arun::aclnn
