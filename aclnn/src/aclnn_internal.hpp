// The aclnn front end's internals: the objects behind the opaque handles of aclnn/acl_meta.h, the
// registry of live objects (a destroyed or foreign pointer is an error, never a dereference), the
// status helpers, and the executor with its plan (aclnn-api.md sections 1-3).
//
// An operator's phase 1 validates its arguments and records a Plan: a list of steps, each either a
// strided copy (gather a view into the workspace, converting dtype and scaling; scatter a
// contiguous workspace result into a strided output; fill a view with a constant) or a call of the
// op library's kernel (ops::execute, the same kernel aclopExecuteV2 and the model path run) on
// contiguous operands. The workspace size is what the staged operands need. Phase 2 resolves the
// captured tensor addresses and the workspace and enqueues the steps on the stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "arun/core/status.hpp"
#include "arun/ops/op.hpp"

// The opaque types, in the global namespace as acl_meta.h declares them.
struct aclTensor {
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::vector<int64_t> view;
  std::vector<int64_t> strides;
  std::vector<int64_t> storage;
  int64_t offset = 0;
  aclFormat format = ACL_FORMAT_ND;
  void* data = nullptr;
};
struct aclScalar {
  aclDataType dtype = ACL_DT_UNDEFINED;
  alignas(16) unsigned char bytes[16] = {};
};
struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};
struct aclTensorList {
  std::vector<aclTensor*> values;
};
struct aclScalarList {
  std::vector<aclScalar*> values;
};

namespace arun::aclnn {

inline constexpr int kNullptr = 161001;       // ACLNN_ERR_PARAM_NULLPTR
inline constexpr int kInvalid = 161002;       // ACLNN_ERR_PARAM_INVALID
inline constexpr int kRuntimeError = 361001;  // ACLNN_ERR_RUNTIME_ERROR
inline constexpr int kInner = 561000;         // ACLNN_ERR_INNER
inline constexpr int kInnerNullptr = 561103;  // ACLNN_ERR_INNER_NULLPTR
inline constexpr int kMaxRank = 8;

Status error(int code, const std::string& message);
inline Status null_error(const std::string& what) {
  return error(kNullptr, what + " is NULL");
}
inline Status invalid(const std::string& what) {
  return error(kInvalid, what);
}

// Runs body() -> Status, records a failure (the thread's last error and aclGetRecentErrMsg) and
// returns its code; no exception leaves it.
template <class Body>
aclnnStatus guarded(const char* function, Body&& body);
aclnnStatus finish(const char* function, const Status& st);
aclnnStatus finish_exception(const char* function);

template <class Body>
aclnnStatus guarded(const char* function, Body&& body) {
  try {
    return finish(function, body());
  } catch (...) {
    return finish_exception(function);
  }
}

// ---- the live-object registry
enum class Kind { Tensor, Scalar, IntArray, FloatArray, BoolArray, TensorList, ScalarList, Executor };
void track(const void* object, Kind kind);
bool untrack(const void* object, Kind kind);  // false when not a live object of that kind
bool live(const void* object, Kind kind);
// A live tensor (NULL -> 161001 naming `what`, dead or foreign -> 161002).
Status check_tensor(const aclTensor* t, const char* what);
Status check_scalar(const aclScalar* s, const char* what);
Status check_array(const aclIntArray* a, const char* what);

// ---- dtypes
bool is_floating(aclDataType d);  // f16, f32, f64, bf16
bool is_integral(aclDataType d);  // signed/unsigned integers (not bool)
bool is_complex(aclDataType d);
// The TensorTensor promotion table of section 4 (ACL_DT_UNDEFINED where it has "x").
aclDataType promote(aclDataType a, aclDataType b);
// Section 4's conversion rule: may a result of `from` be written to `to`?
bool can_cast(aclDataType from, aclDataType to);
std::string dtype_list(const std::vector<aclDataType>& list);
bool in_list(aclDataType d, const std::vector<aclDataType>& list);

// A scalar value in a host representation wide enough for every supported real type.
struct Value {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;
  double as_double() const { return is_float ? f : static_cast<double>(i); }
};
// One element of dtype `d` at `p` (unaligned), as a Value; complex and sub-byte floats read as 0
// (operators reject them before reading).
Value load_value(const void* p, aclDataType d);
Value scalar_value(const aclScalar& s);

// ---- executors and plans
struct Operand {
  int tensor = -1;         // index into Executor::tensors: the user's memory, used in place
  uint64_t ws_offset = 0;  // otherwise a contiguous buffer at this workspace offset
  aclDataType dtype = ACL_DT_UNDEFINED;
  ops::Shape shape;
};

enum class Round : uint8_t { None, Trunc, Floor };

struct CopyStep {
  // Source: a user tensor's view (broadcast to `shape`), a workspace buffer, or a constant.
  int src_tensor = -1;
  bool src_const = false;
  Value constant;
  uint64_t src_ws = 0;
  aclDataType src_dtype = ACL_DT_UNDEFINED;
  ops::Shape src_shape;  // the source's own shape (broadcast to `shape` on the right)
  // Destination: a user tensor's view or a contiguous workspace buffer.
  int dst_tensor = -1;
  uint64_t dst_ws = 0;
  aclDataType dst_dtype = ACL_DT_UNDEFINED;
  ops::Shape shape;  // the elements written
  bool scaled = false;
  Value scale;
  bool relu = false;      // max(x, 0): the integer Relu, which the float kernels do not cover
  bool absolute = false;  // |x|: the integer Abs
  Round round = Round::None;
  bool nonfinite_zero = false;  // float -> integer stores of Inf/NaN give 0 (integer DivMod by zero)
};

struct KernelStep {
  std::string type;  // the op library's operator ("Add", "Softmax", ...)
  ops::Attrs attrs;
  std::vector<Operand> inputs;
  Operand output;
  std::vector<Operand> extra_outputs;  // the op's further outputs, in its order (LayerNorm's statistics)
};

struct Step {
  bool is_copy = true;
  CopyStep copy;
  KernelStep kernel;
};

// A tensor argument as phase 1 captured it (the address can be refreshed for repeatable executors).
struct TensorArg {
  bool present = false;
  aclTensor desc;
};

}  // namespace arun::aclnn

struct aclOpExecutor {
  std::string op;                               // "Add": task names in profiles, messages
  std::vector<arun::aclnn::TensorArg> tensors;  // tensor inputs, then tensor outputs
  size_t num_inputs = 0;
  uint64_t workspace = 0;
  std::vector<arun::aclnn::Step> steps;
  bool repeatable = false;
  // The tensor-list input (Cat, Sum), element by element: its index in `tensors`, or -1 for an
  // element the plan does not read (for aclSetDynamicInputTensorAddr).
  std::vector<int> dynamic_inputs;
};

namespace arun::aclnn {

// Builds executors: phase 1 adds the tensor arguments in declaration order (inputs, then outputs)
// and the steps, then publish() hands it to the caller.
class PlanBuilder {
 public:
  explicit PlanBuilder(std::string op);
  int add_input(const aclTensor* t);
  int add_output(const aclTensor* t);
  uint64_t reserve(aclDataType dtype, const ops::Shape& shape);  // a contiguous workspace buffer
  void add(Step step) { exec_.steps.push_back(std::move(step)); }
  const aclTensor& tensor(int i) const { return exec_.tensors[static_cast<size_t>(i)].desc; }
  // The captured view, for operators that read an argument through another view of it (Permute).
  aclTensor& view(int i) { return exec_.tensors[static_cast<size_t>(i)].desc; }
  void set_dynamic_inputs(std::vector<int> indices) { exec_.dynamic_inputs = std::move(indices); }
  Status publish(uint64_t* workspaceSize, aclOpExecutor** executor);

 private:
  aclOpExecutor exec_;
};

// Phase 2 of every operator (section 3's table).
aclnnStatus run_phase2(const char* function, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream);
// Defines the exported phase-2 function aclnn<Name> (at global scope, inside extern "C").
#define ACLNN_PHASE2(Name)                                                                                        \
  aclnnStatus aclnn##Name(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) { \
    return ::arun::aclnn::run_phase2("aclnn" #Name, workspace, workspaceSize, executor, stream);                  \
  }

// Shape helpers.
bool contiguous(const aclTensor& t);
// Whether two views can touch the same bytes, and whether they are the same view.
bool overlaps(const aclTensor& a, const aclTensor& b);
bool same_view(const aclTensor& a, const aclTensor& b);
// Rank <= 8, no negative dims/strides/offset (161002 naming `what`).
Status check_view(const aclTensor& t, const char* what);

}  // namespace arun::aclnn
