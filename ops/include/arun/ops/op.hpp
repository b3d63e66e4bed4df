// The operator library behind aclopExecuteV2 (and, later, the model executor): tensors as the
// library sees them, ONNX-named attributes, and the registry that maps an op type to the function
// that validates a call and launches its kernels on the simulated NPU's AI cores.
//
// An op function checks everything it can before launching (input count, dtypes, shapes against
// the output descriptions, attributes) and returns a Status with the specific ACL code:
//   unknown op type                          -> op_not_found          (100024)
//   wrong number of inputs, shape mismatch   -> op_input_not_match    (100021)
//   output description not what the op makes -> op_output_not_match  (100022)
//   unknown attribute, bad value or type     -> op_attr_not_match     (100023)
//   dtype the kernel does not implement      -> unsupported_data_type (100026)
// Kernels read and write device memory only through Block::map, inside the kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "acl/acl_base.h"
#include "arun/core/float16.hpp"
#include "arun/core/status.hpp"

namespace arun::ops {

using Shape = std::vector<int64_t>;

// Product of the dimensions (1 for a scalar); the caller has rejected negative dimensions.
int64_t numel(const Shape& shape);
std::string shape_text(const Shape& shape);
const char* dtype_name(aclDataType dtype);
// msprof's spellings in op_summary: "FLOAT", "FLOAT16", "INT32" ...; "ND", "NCHW", "NC1HWC0" ...
const char* msprof_dtype_name(aclDataType dtype);
const char* msprof_format_name(aclFormat format);

// IEEE binary16 <-> float32, rounding to nearest even (also behind aclFloat16ToFloat / aclFloatToFloat16).
using arun::float_to_half;
using arun::half_to_float;

// One operand: a description plus the device buffer it is paired with. An omitted optional input
// has dtype ACL_DT_UNDEFINED and no data.
struct Tensor {
  aclDataType dtype = ACL_DT_UNDEFINED;
  Shape shape;
  void* data = nullptr;
  size_t bytes = 0;
  aclFormat format = ACL_FORMAT_ND;  // as described (kernels read row-major); reported by profiling

  bool present() const { return dtype != ACL_DT_UNDEFINED; }
  int64_t count() const { return numel(shape); }
  int rank() const { return static_cast<int>(shape.size()); }
};

// An attribute value as aclopSetAttr* stores it. Bool is kept apart so that a message can say what
// was set, but reads as an int (ONNX has no bool attributes). A float list comes only from ONNX
// models (Upsample 7/8's scales): aclop has no setter for one.
using AttrValue = std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>>;

class Attrs {
 public:
  void set(std::string name, AttrValue value) { values_[std::move(name)] = std::move(value); }
  const AttrValue* find(std::string_view name) const;
  const std::map<std::string, AttrValue, std::less<>>& values() const { return values_; }

 private:
  std::map<std::string, AttrValue, std::less<>> values_;
};

// Who an operator call is, for profiling records, when it runs as a model node (the model executor
// sets it; nullptr for a single operator, aclopExecuteV2 / aclnn).
struct OpTrace {
  std::string node_name;   // the graph node's name
  std::string model_name;  // the model's (file stem or graph name)
  uint32_t model_id = 0;   // the id aclmdlLoad* gave
  uint32_t infer_id = 0;   // which execution of the model (from 1)
};

// Everything an op function needs for one call.
struct OpCall {
  std::string op;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  const Attrs* attrs = nullptr;
  aclrtStream stream = nullptr;
  uint32_t cores = 1;              // AI cores of the device
  uint32_t host_cpus = 1;          // CPUs the simulated cores' threads share (hardware_concurrency)
  const OpTrace* trace = nullptr;  // read at launch only while a profiling session collects tasks

  // The most blocks worth launching: one per AI core, but no more than there are host CPUs, since
  // the AI cores are host threads and extra blocks only time-slice (see bench/README.md, ops).
  uint32_t parallelism() const;

  // Typed attribute reads: `def` when absent, op_attr_not_match when present with another type.
  Status attr_int(std::string_view name, int64_t def, int64_t* out) const;
  Status attr_float(std::string_view name, float def, float* out) const;
  Status attr_string(std::string_view name, std::string def, std::string* out) const;
  Status attr_ints(std::string_view name, std::vector<int64_t> def, std::vector<int64_t>* out) const;
  Status attr_floats(std::string_view name, std::vector<float> def, std::vector<float>* out) const;
  bool has_attr(std::string_view name) const { return attrs != nullptr && attrs->find(name) != nullptr; }

  // Error helpers: the message is prefixed with the op type.
  Status input_error(const std::string& what) const;
  Status output_error(const std::string& what) const;
  Status attr_error(const std::string& what) const;
  Status dtype_error(const std::string& what) const;

  // Checks: exact input count (or a range, for optional trailing inputs) and output count.
  Status expect_inputs(size_t min, size_t max) const;
  Status expect_outputs(size_t n) const;
  // Output `i` must have `dtype` and `shape` (what the op computes from its inputs).
  Status expect_output(size_t i, aclDataType dtype, const Shape& shape) const;
  // All present inputs in `which` have the same dtype as input which[0].
  Status same_dtype(std::initializer_list<size_t> which) const;

  // Blocks to launch for `work` units of which each block should get at least `grain`.
  uint32_t blocks_for(int64_t work, int64_t grain) const;
};

using OpFn = Status (*)(const OpCall&);

struct OpDef {
  const char* type;
  OpFn fn;
  std::vector<std::string> attrs;  // the attribute names it accepts (ONNX's)
};

// The registry, filled by the kernel families (one register_* per source file).
const OpDef* find_op(std::string_view type);
std::vector<std::string> op_types();

// Validates the attributes against the op's list and runs it. Unknown op -> op_not_found.
Status execute(OpCall& call);

// Normalises an axis in [-rank, rank) (or [-rank, rank] with `inclusive`, as Flatten's); false when outside.
bool normalize_axis(int64_t axis, int64_t rank, int64_t* out, bool inclusive = false);

// NumPy broadcasting of two shapes; false when incompatible.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out);

// ONNX Reshape: the target shape from the requested one (0 copies the input dimension unless
// allowzero, one -1 is inferred). False with a reason when the request is invalid.
bool reshape_target(const Shape& input, const std::vector<int64_t>& requested, bool allowzero, Shape* out,
                    std::string* why);

}  // namespace arun::ops
