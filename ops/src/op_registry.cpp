// The op registry and the checks every op shares (counts, dtypes, output descriptions, attributes).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "kernel_common.hpp"

namespace arun::ops {

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_text(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

const char* dtype_name(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "float32";
    case ACL_FLOAT16: return "float16";
    case ACL_DOUBLE: return "float64";
    case ACL_INT8: return "int8";
    case ACL_UINT8: return "uint8";
    case ACL_INT16: return "int16";
    case ACL_UINT16: return "uint16";
    case ACL_INT32: return "int32";
    case ACL_UINT32: return "uint32";
    case ACL_INT64: return "int64";
    case ACL_UINT64: return "uint64";
    case ACL_BOOL: return "bool";
    case ACL_BF16: return "bfloat16";
    case ACL_DT_UNDEFINED: return "undefined";
    default: return "unsupported dtype";
  }
}

const char* msprof_dtype_name(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_INT8: return "INT8";
    case ACL_UINT8: return "UINT8";
    case ACL_INT16: return "INT16";
    case ACL_UINT16: return "UINT16";
    case ACL_INT32: return "INT32";
    case ACL_UINT32: return "UINT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT64: return "UINT64";
    case ACL_BOOL: return "BOOL";
    case ACL_STRING: return "STRING";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    case ACL_BF16: return "BF16";
    case ACL_INT4: return "INT4";
    case ACL_UINT1: return "UINT1";
    case ACL_COMPLEX32: return "COMPLEX32";
    default: return "UNDEFINED";
  }
}

const char* msprof_format_name(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    default: return "UNDEFINED";
  }
}

const AttrValue* Attrs::find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

namespace {

const char* value_kind(const AttrValue& v) {
  switch (v.index()) {
    case 0: return "int";
    case 1: return "float";
    case 2: return "bool";
    case 3: return "string";
    case 5: return "list of float";
    default: return "list of int";
  }
}

}  // namespace

Status OpCall::attr_int(std::string_view name, int64_t def, int64_t* out) const {
  const AttrValue* v = attrs != nullptr ? attrs->find(name) : nullptr;
  if (v == nullptr) {
    *out = def;
  } else if (auto* i = std::get_if<int64_t>(v)) {
    *out = *i;
  } else if (auto* b = std::get_if<bool>(v)) {
    *out = *b ? 1 : 0;
  } else {
    return attr_error("attribute '" + std::string(name) + "' must be an int, got a " + value_kind(*v));
  }
  return Status::Ok();
}

Status OpCall::attr_float(std::string_view name, float def, float* out) const {
  const AttrValue* v = attrs != nullptr ? attrs->find(name) : nullptr;
  if (v == nullptr) {
    *out = def;
  } else if (auto* f = std::get_if<float>(v)) {
    *out = *f;
  } else if (auto* i = std::get_if<int64_t>(v)) {
    *out = static_cast<float>(*i);
  } else {
    return attr_error("attribute '" + std::string(name) + "' must be a float, got a " + value_kind(*v));
  }
  return Status::Ok();
}

Status OpCall::attr_string(std::string_view name, std::string def, std::string* out) const {
  const AttrValue* v = attrs != nullptr ? attrs->find(name) : nullptr;
  if (v == nullptr) {
    *out = std::move(def);
  } else if (auto* s = std::get_if<std::string>(v)) {
    *out = *s;
  } else {
    return attr_error("attribute '" + std::string(name) + "' must be a string, got a " + value_kind(*v));
  }
  return Status::Ok();
}

Status OpCall::attr_ints(std::string_view name, std::vector<int64_t> def, std::vector<int64_t>* out) const {
  const AttrValue* v = attrs != nullptr ? attrs->find(name) : nullptr;
  if (v == nullptr) {
    *out = std::move(def);
  } else if (auto* l = std::get_if<std::vector<int64_t>>(v)) {
    *out = *l;
  } else {
    return attr_error("attribute '" + std::string(name) + "' must be a list of int, got a " + value_kind(*v));
  }
  return Status::Ok();
}

Status OpCall::attr_floats(std::string_view name, std::vector<float> def, std::vector<float>* out) const {
  const AttrValue* v = attrs != nullptr ? attrs->find(name) : nullptr;
  if (v == nullptr) {
    *out = std::move(def);
  } else if (auto* l = std::get_if<std::vector<float>>(v)) {
    *out = *l;
  } else {
    return attr_error("attribute '" + std::string(name) + "' must be a list of float, got a " + value_kind(*v));
  }
  return Status::Ok();
}

Status OpCall::input_error(const std::string& what) const { return Status(Errc::op_input_not_match, op + ": " + what); }
Status OpCall::output_error(const std::string& what) const {
  return Status(Errc::op_output_not_match, op + ": " + what);
}
Status OpCall::attr_error(const std::string& what) const { return Status(Errc::op_attr_not_match, op + ": " + what); }
Status OpCall::dtype_error(const std::string& what) const {
  return Status(Errc::unsupported_data_type, op + ": " + what);
}

Status OpCall::expect_inputs(size_t min, size_t max) const {
  const size_t n = inputs.size();
  if (n < min || n > max) {
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max);
    return input_error("takes " + want + " inputs, got " + std::to_string(n));
  }
  for (size_t i = 0; i < min; ++i) {
    if (!inputs[i].present()) return input_error("input " + std::to_string(i) + " is required but omitted");
  }
  return Status::Ok();
}

Status OpCall::expect_outputs(size_t n) const {
  if (outputs.size() != n) {
    return output_error("produces " + std::to_string(n) + " output" + (n == 1 ? "" : "s") + ", got " +
                        std::to_string(outputs.size()) + " output descriptions");
  }
  return Status::Ok();
}

Status OpCall::expect_output(size_t i, aclDataType dtype, const Shape& shape) const {
  const Tensor& t = outputs[i];
  if (t.dtype != dtype) {
    return output_error("output " + std::to_string(i) + " must be " + dtype_name(dtype) + ", the description says " +
                        dtype_name(t.dtype));
  }
  if (t.shape != shape) {
    return output_error("output " + std::to_string(i) + " has shape " + shape_text(shape) +
                        ", the description says " + shape_text(t.shape));
  }
  return Status::Ok();
}

Status OpCall::same_dtype(std::initializer_list<size_t> which) const {
  const size_t first = *which.begin();
  for (size_t i : which) {
    if (i < inputs.size() && inputs[i].present() && inputs[i].dtype != inputs[first].dtype) {
      return input_error("input " + std::to_string(i) + " is " + dtype_name(inputs[i].dtype) + " but input " +
                         std::to_string(first) + " is " + dtype_name(inputs[first].dtype));
    }
  }
  return Status::Ok();
}

uint32_t OpCall::parallelism() const { return std::max<uint32_t>(1, std::min(cores, std::max<uint32_t>(host_cpus, 1))); }

uint32_t OpCall::blocks_for(int64_t work, int64_t grain) const {
  if (work <= 0) return 1;
  const int64_t wanted = (work + grain - 1) / std::max<int64_t>(grain, 1);
  return static_cast<uint32_t>(std::clamp<int64_t>(wanted, 1, parallelism()));
}

bool normalize_axis(int64_t axis, int64_t rank, int64_t* out, bool inclusive) {
  if (axis < -rank || axis > (inclusive ? rank : rank - 1)) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  Shape r(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    r[i] = da == 1 ? db : da;
  }
  *out = std::move(r);
  return true;
}

bool reshape_target(const Shape& input, const std::vector<int64_t>& requested, bool allowzero, Shape* out,
                    std::string* why) {
  Shape r(requested.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t d = requested[i];
    if (d == 0 && !allowzero) {
      if (i >= input.size()) {
        *why = "shape[" + std::to_string(i) + "] is 0 but the input has only " + std::to_string(input.size()) +
               " dimensions to copy";
        return false;
      }
      d = input[i];
    }
    if (d == -1) {
      if (infer >= 0) {
        *why = "shape has more than one -1";
        return false;
      }
      infer = static_cast<int>(i);
      continue;
    }
    if (d < 0) {
      *why = "shape[" + std::to_string(i) + "] is " + std::to_string(d);
      return false;
    }
    r[i] = d;
    if (__builtin_mul_overflow(known, d, &known)) {
      *why = "shape " + shape_text(requested) + " overflows";
      return false;
    }
  }
  const int64_t total = numel(input);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      *why = "cannot infer the -1 dimension: " + std::to_string(total) + " elements do not divide by " +
             std::to_string(known);
      return false;
    }
    r[infer] = total / known;
  } else if (known != total) {
    *why = "shape " + shape_text(r) + " holds " + std::to_string(known) + " elements, the input " +
           std::to_string(total);
    return false;
  }
  *out = std::move(r);
  return true;
}

namespace {

const std::vector<OpDef>& registry() {
  static const std::vector<OpDef> defs = [] {
    std::vector<OpDef> d;
    register_elementwise(d);
    register_activation(d);
    register_matmul(d);
    register_normalization(d);
    register_channel_norm(d);
    register_conv(d);
    register_pool(d);
    register_shape_ops(d);
    register_pointwise(d);
    register_compare_logic(d);
    register_variadic(d);
    register_creation(d);
    register_movement(d);
    register_reduce(d);
    register_resize(d);
    register_einsum(d);
    std::sort(d.begin(), d.end(), [](const OpDef& a, const OpDef& b) { return std::string_view(a.type) < b.type; });
    // Two families registering one type would leave one of them unreachable: a build defect that
    // every test run must show, not a silent choice.
    for (size_t i = 1; i < d.size(); ++i) {
      if (std::string_view(d[i - 1].type) == d[i].type) {
        std::fprintf(stderr, "ascend-run: operator %s is registered twice\n", d[i].type);
        std::abort();
      }
    }
    return d;
  }();
  return defs;
}

}  // namespace

const OpDef* find_op(std::string_view type) {
  const auto& defs = registry();
  auto it = std::lower_bound(defs.begin(), defs.end(), type,
                             [](const OpDef& d, std::string_view t) { return std::string_view(d.type) < t; });
  return it != defs.end() && it->type == type ? &*it : nullptr;
}

std::vector<std::string> op_types() {
  std::vector<std::string> out;
  for (const OpDef& d : registry()) out.emplace_back(d.type);
  return out;
}

Status execute(OpCall& call) {
  const OpDef* def = find_op(call.op);
  if (def == nullptr) {
    std::string known;
    for (const std::string& t : op_types()) known += (known.empty() ? "" : ", ") + t;
    return Status(Errc::op_not_found, "no operator of type '" + call.op + "' (registered: " + known + ")");
  }
  if (call.attrs != nullptr) {
    for (const auto& [name, value] : call.attrs->values()) {
      if (std::find(def->attrs.begin(), def->attrs.end(), name) == def->attrs.end()) {
        std::string accepted;
        for (const std::string& a : def->attrs) accepted += (accepted.empty() ? "" : ", ") + a;
        return call.attr_error("unknown attribute '" + name + "' (accepted: " +
                               (accepted.empty() ? std::string("none") : accepted) + ")");
      }
    }
  }
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& t = call.inputs[i];
    if (t.present() && static_cast<size_t>(t.count()) * aclDataTypeSize(t.dtype) > t.bytes) {
      return call.input_error("input " + std::to_string(i) + " " + shape_text(t.shape) + " " + dtype_name(t.dtype) +
                              " needs " + std::to_string(t.count() * aclDataTypeSize(t.dtype)) +
                              " bytes, its buffer has " + std::to_string(t.bytes));
    }
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const Tensor& t = call.outputs[i];
    if (static_cast<size_t>(t.count()) * aclDataTypeSize(t.dtype) > t.bytes) {
      return call.output_error("output " + std::to_string(i) + " " + shape_text(t.shape) + " " +
                               dtype_name(t.dtype) + " needs " +
                               std::to_string(t.count() * aclDataTypeSize(t.dtype)) + " bytes, its buffer has " +
                               std::to_string(t.bytes));
    }
  }
  ARUN_RETURN_IF_ERROR(def->fn(call));
  // Overflow detection (spec part 2, 4.8): with the stream's switch on, the outputs are checked for
  // Inf / NaN once the op's kernels are done.
  return check_outputs_finite(call);
}

}  // namespace arun::ops
