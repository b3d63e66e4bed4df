// Validation of an ONNX model before the importer builds anything from it and before libonnx's
// shape inference runs (see onnx_checks.hpp). Every message names the tensor or node at fault.
#include "onnx_checks.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

namespace arun::model::detail {

namespace {

// Window attributes (kernel sizes, strides, pads ...) beyond this are refused: no image is that
// large, and keeping them under 2^31 keeps shape inference's int64 arithmetic from overflowing.
constexpr int64_t kMaxWindowValue = std::numeric_limits<int32_t>::max();

std::string node_label(const onnx::NodeProto& np, int index) {
  const std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
  return "node '" + name + "' (" + np.op_type() + ")";
}

std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Where the tensors whose rank is known before inference come from.
struct Known {
  std::unordered_map<std::string, const onnx::TensorProto*> constants;  // initializers, Constant outputs
  std::unordered_map<std::string, int> declared_rank;                   // inputs with a declared shape
  int rank_of(const std::string& name) const {
    auto c = constants.find(name);
    if (c != constants.end()) return c->second->dims_size();
    auto d = declared_rank.find(name);
    return d == declared_rank.end() ? -1 : d->second;
  }
};

Status check_value_info(const onnx::ValueInfoProto& vi, const ImportLimits& limits) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return Status::Ok();
  const auto& shape = vi.type().tensor_type().shape();
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (!d.has_dim_value()) continue;
    if (d.dim_value() < 0 || static_cast<uint64_t>(d.dim_value()) > limits.max_tensor_bytes) {
      return parse_error("tensor '" + vi.name() + "' declares dimension " + std::to_string(i) + " as " +
                         std::to_string(d.dim_value()) + " (must be 0.." + std::to_string(limits.max_tensor_bytes) +
                         ")");
    }
  }
  return Status::Ok();
}

// Reads the INTS attribute `name` of node NP into *v; false when absent. A present attribute of
// another type is an error.
Status ints_attr(const onnx::NodeProto& np, const std::string& label, const char* name, std::vector<int64_t>* v,
                 bool* present) {
  *present = false;
  for (const auto& a : np.attribute()) {
    if (a.name() != name) continue;
    if (a.type() != onnx::AttributeProto::INTS) {
      return parse_error(label + ": attribute '" + name + "' must be a list of integers");
    }
    v->assign(a.ints().begin(), a.ints().end());
    *present = true;
  }
  return Status::Ok();
}

Status check_window(const onnx::NodeProto& np, const std::string& label, const Known& known) {
  const std::string& op = np.op_type();
  const bool conv = op == "Conv" || op == "ConvTranspose";
  std::vector<int64_t> kernel, strides, dilations, pads, output_padding;
  bool has_kernel = false, has_strides = false, has_dilations = false, has_pads = false, has_out_pad = false;
  ARUN_RETURN_IF_ERROR(ints_attr(np, label, "kernel_shape", &kernel, &has_kernel));
  ARUN_RETURN_IF_ERROR(ints_attr(np, label, "strides", &strides, &has_strides));
  ARUN_RETURN_IF_ERROR(ints_attr(np, label, "dilations", &dilations, &has_dilations));
  ARUN_RETURN_IF_ERROR(ints_attr(np, label, "pads", &pads, &has_pads));
  ARUN_RETURN_IF_ERROR(ints_attr(np, label, "output_padding", &output_padding, &has_out_pad));

  auto in_range = [&](const char* name, const std::vector<int64_t>& v, int64_t lo) -> Status {
    for (int64_t x : v) {
      if (x < lo || x > kMaxWindowValue) {
        return parse_error(label + ": attribute '" + name + "' is " + ints_text(v) + "; every value must be " +
                           (lo > 0 ? "positive" : "non-negative") + " and at most " + std::to_string(kMaxWindowValue));
      }
    }
    return Status::Ok();
  };
  ARUN_RETURN_IF_ERROR(in_range("kernel_shape", kernel, 1));
  ARUN_RETURN_IF_ERROR(in_range("strides", strides, 1));
  ARUN_RETURN_IF_ERROR(in_range("dilations", dilations, 1));
  ARUN_RETURN_IF_ERROR(in_range("pads", pads, 0));
  ARUN_RETURN_IF_ERROR(in_range("output_padding", output_padding, 0));
  if (!conv && !has_kernel) return parse_error(label + ": attribute 'kernel_shape' is required");

  for (const auto& a : np.attribute()) {
    if (a.name() == "group" && (a.type() != onnx::AttributeProto::INT || a.i() < 1 || a.i() > kMaxWindowValue)) {
      return parse_error(label + ": attribute 'group' must be a positive integer");
    }
    if (a.name() == "auto_pad") {
      const std::string& s = a.s();
      if (a.type() != onnx::AttributeProto::STRING ||
          (s != "NOTSET" && s != "SAME_UPPER" && s != "SAME_LOWER" && s != "VALID")) {
        return parse_error(label + ": attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
      }
    }
  }

  // The number of spatial axes: from kernel_shape, else the weight's rank, else the data's rank.
  const int data_rank = np.input_size() > 0 ? known.rank_of(np.input(0)) : -1;
  const int weight_rank = conv && np.input_size() > 1 ? known.rank_of(np.input(1)) : -1;
  long spatial = 0;
  bool known_rank = true;
  std::string from;
  if (has_kernel) {
    spatial = static_cast<long>(kernel.size());
    from = "kernel_shape " + ints_text(kernel);
  } else if (weight_rank >= 0) {
    spatial = weight_rank - 2;
    from = "the weight '" + np.input(1) + "' of rank " + std::to_string(weight_rank);
  } else if (data_rank >= 0) {
    spatial = data_rank - 2;
    from = "the input '" + np.input(0) + "' of rank " + std::to_string(data_rank);
  } else {
    known_rank = false;
  }
  if (!known_rank) return Status::Ok();  // nothing to compare with before shape inference
  if (spatial < 1) return parse_error(label + ": " + from + " leaves no spatial axis");
  auto length = [&](const char* name, bool present, const std::vector<int64_t>& v, long want) -> Status {
    if (present && static_cast<long>(v.size()) != want) {
      return parse_error(label + ": attribute '" + name + "' " + ints_text(v) + " has " + std::to_string(v.size()) +
                         " values; " + from + " needs " + std::to_string(want));
    }
    return Status::Ok();
  };
  ARUN_RETURN_IF_ERROR(length("strides", has_strides, strides, spatial));
  ARUN_RETURN_IF_ERROR(length("dilations", has_dilations, dilations, spatial));
  ARUN_RETURN_IF_ERROR(length("pads", has_pads, pads, 2 * spatial));
  ARUN_RETURN_IF_ERROR(length("output_padding", has_out_pad, output_padding, spatial));
  if (data_rank >= 0 && data_rank != spatial + 2) {
    return parse_error(label + ": input '" + np.input(0) + "' has rank " + std::to_string(data_rank) + "; " + from +
                       " needs rank " + std::to_string(spatial + 2));
  }
  if (weight_rank >= 0 && weight_rank != spatial + 2) {
    return parse_error(label + ": weight '" + np.input(1) + "' has rank " + std::to_string(weight_rank) + "; " + from +
                       " needs rank " + std::to_string(spatial + 2));
  }
  return Status::Ok();
}

// Reshape's target shape, when it is a constant: a 1-D int64 tensor of values >= -1 with at most one -1.
Status check_reshape(const onnx::NodeProto& np, const std::string& label, const Known& known) {
  if (np.input_size() < 2) return Status::Ok();
  auto it = known.constants.find(np.input(1));
  if (it == known.constants.end()) return Status::Ok();
  const onnx::TensorProto& t = *it->second;
  if (t.data_type() != onnx::TensorProto::INT64 || t.dims_size() != 1) {
    return parse_error(label + ": the shape '" + np.input(1) + "' must be a 1-D int64 tensor");
  }
  // check_tensor_data has made sure the data holds exactly dims[0] values.
  const int64_t n = t.dims(0);
  int unknown = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = 0;
    if (t.has_raw_data()) {
      std::memcpy(&v, t.raw_data().data() + i * 8, 8);
    } else {
      v = t.int64_data(static_cast<int>(i));
    }
    if (v < -1 || (v == -1 && ++unknown > 1)) {
      return parse_error(label + ": the shape '" + np.input(1) + "' holds " + std::to_string(v) + " at index " +
                         std::to_string(i) + " (values must be >= -1, with at most one -1)");
    }
  }
  return Status::Ok();
}

bool is_window_op(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool" || op == "LpPool";
}

}  // namespace

Status parse_error(const std::string& what) {
  return Status(static_cast<Errc>(ACL_ERROR_PARSE_MODEL), what);
}

bool to_acl_dtype(int32_t onnx_type, aclDataType* out) {
  using T = onnx::TensorProto;
  switch (onnx_type) {
    case T::FLOAT:
      *out = ACL_FLOAT;
      return true;
    case T::FLOAT16:
      *out = ACL_FLOAT16;
      return true;
    case T::DOUBLE:
      *out = ACL_DOUBLE;
      return true;
    case T::BFLOAT16:
      *out = ACL_BF16;
      return true;
    case T::INT8:
      *out = ACL_INT8;
      return true;
    case T::UINT8:
      *out = ACL_UINT8;
      return true;
    case T::INT16:
      *out = ACL_INT16;
      return true;
    case T::UINT16:
      *out = ACL_UINT16;
      return true;
    case T::INT32:
      *out = ACL_INT32;
      return true;
    case T::UINT32:
      *out = ACL_UINT32;
      return true;
    case T::INT64:
      *out = ACL_INT64;
      return true;
    case T::UINT64:
      *out = ACL_UINT64;
      return true;
    case T::BOOL:
      *out = ACL_BOOL;
      return true;
    default:
      return false;
  }
}

Status check_tensor_data(const onnx::TensorProto& t, const std::string& what, const ImportLimits& limits,
                         size_t* bytes) {
  aclDataType dtype = ACL_DT_UNDEFINED;
  if (!to_acl_dtype(t.data_type(), &dtype)) {
    return Status(
        static_cast<Errc>(ACL_ERROR_GE_DATATYPE_INVALID),
        what + " has ONNX data type " + std::to_string(t.data_type()) + ", which the runtime does not support");
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    return parse_error(what + " keeps its data in an external file, which is not supported");
  }
  if (t.has_segment()) return parse_error(what + " is segmented, which is not supported");
  uint64_t count = 1;
  for (int i = 0; i < t.dims_size(); ++i) {
    const int64_t d = t.dims(i);
    if (d < 0)
      return parse_error(what + " has a negative dimension " + std::to_string(d) + " at axis " + std::to_string(i));
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) {
      return parse_error(what + ": the element count of its dims overflows");
    }
  }
  uint64_t total = 0;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(aclDataTypeSize(dtype)), &total) ||
      total > limits.max_tensor_bytes) {
    return parse_error(what + " declares " + std::to_string(count) + " elements, more than the limit of " +
                       std::to_string(limits.max_tensor_bytes) + " bytes per tensor (ARUN_MODEL_MAX_TENSOR_BYTES)");
  }
  uint64_t have = 0;
  const char* unit = "values";
  if (t.has_raw_data()) {
    have = t.raw_data().size();
    unit = "bytes of raw data";
    if (have == total) {
      *bytes = static_cast<size_t>(total);
      return Status::Ok();
    }
    return parse_error(what + " has " + std::to_string(have) + " " + unit + ", its dims need " + std::to_string(total));
  }
  using T = onnx::TensorProto;
  switch (t.data_type()) {
    case T::FLOAT:
      have = static_cast<uint64_t>(t.float_data_size());
      break;
    case T::DOUBLE:
      have = static_cast<uint64_t>(t.double_data_size());
      break;
    case T::INT64:
      have = static_cast<uint64_t>(t.int64_data_size());
      break;
    case T::UINT32:
    case T::UINT64:
      have = static_cast<uint64_t>(t.uint64_data_size());
      break;
    default:
      have = static_cast<uint64_t>(t.int32_data_size());
      break;
  }
  if (have != count) {
    return parse_error(what + " has " + std::to_string(have) + " " + unit + ", its dims need " + std::to_string(count));
  }
  *bytes = static_cast<size_t>(total);
  return Status::Ok();
}

Status check_model(const onnx::ModelProto& model, const ImportLimits& limits) {
  const onnx::GraphProto& g = model.graph();
  if (g.sparse_initializer_size() > 0) {
    return parse_error("sparse initializer '" + g.sparse_initializer(0).values().name() + "' is not supported");
  }
  Known known;
  size_t bytes = 0;
  for (const auto& init : g.initializer()) {
    ARUN_RETURN_IF_ERROR(check_tensor_data(init, "initializer '" + init.name() + "'", limits, &bytes));
    known.constants[init.name()] = &init;
  }
  for (const auto& vi : g.input()) {
    ARUN_RETURN_IF_ERROR(check_value_info(vi, limits));
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape() && !known.constants.count(vi.name())) {
      known.declared_rank[vi.name()] = vi.type().tensor_type().shape().dim_size();
    }
  }
  for (const auto& vi : g.output()) ARUN_RETURN_IF_ERROR(check_value_info(vi, limits));
  for (const auto& vi : g.value_info()) ARUN_RETURN_IF_ERROR(check_value_info(vi, limits));

  // Attributes first (Constant outputs become known constants), then the per-op checks.
  for (int n = 0; n < g.node_size(); ++n) {
    const onnx::NodeProto& np = g.node(n);
    const std::string label = node_label(np, n);
    for (const auto& a : np.attribute()) {
      using A = onnx::AttributeProto;
      switch (a.type()) {
        case A::TENSOR:
          ARUN_RETURN_IF_ERROR(
              check_tensor_data(a.t(), label + ": tensor attribute '" + a.name() + "'", limits, &bytes));
          break;
        case A::TENSORS:
        case A::GRAPH:
        case A::GRAPHS:
        case A::SPARSE_TENSOR:
        case A::SPARSE_TENSORS:
        case A::TYPE_PROTO:
        case A::TYPE_PROTOS:
          return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID),
                        label + ": attribute '" + a.name() + "' has ONNX type " + std::to_string(a.type()) +
                            " (tensor lists, subgraphs, sparse tensors and types are not supported)");
        default:
          if (a.has_t() || a.has_g() || a.tensors_size() > 0 || a.graphs_size() > 0) {
            return parse_error(label + ": attribute '" + a.name() +
                               "' carries a tensor or graph its type does not declare");
          }
          break;
      }
    }
    if (np.op_type() == "Constant" && np.output_size() == 1 && np.attribute_size() == 1 &&
        np.attribute(0).type() == onnx::AttributeProto::TENSOR) {
      known.constants[np.output(0)] = &np.attribute(0).t();
    }
  }
  for (int n = 0; n < g.node_size(); ++n) {
    const onnx::NodeProto& np = g.node(n);
    if (is_window_op(np.op_type())) ARUN_RETURN_IF_ERROR(check_window(np, node_label(np, n), known));
    if (np.op_type() == "Reshape") ARUN_RETURN_IF_ERROR(check_reshape(np, node_label(np, n), known));
  }
  return Status::Ok();
}

}  // namespace arun::model::detail
