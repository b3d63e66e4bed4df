// ONNX -> Graph: parse with Debian's libonnx (protobuf), infer shapes, resolve every tensor to a
// static shape and dtype, order the nodes topologically and check each node against the operator
// library's registry, so that a model we cannot run fails at load rather than at execution.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <queue>
#include <unordered_map>

#include "acl/acl.h"
#include "arun/model/graph.hpp"
#include "fuse_conv.hpp"
#include "fuse_transformer.hpp"
#include "onnx_checks.hpp"

namespace arun::model {

namespace {

using detail::parse_error;
using detail::to_acl_dtype;

Status dtype_error(const std::string& tensor, int32_t onnx_type) {
  return Status(static_cast<Errc>(ACL_ERROR_GE_DATATYPE_INVALID), "tensor '" + tensor + "' has ONNX data type " +
                                                                      std::to_string(onnx_type) +
                                                                      ", which the runtime does not support");
}

Status shape_bytes(const std::string& name, aclDataType dtype, const ops::Shape& shape, uint64_t max_bytes,
                   size_t* bytes) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) n = -1;
    if (n < 0) break;
  }
  int64_t b = 0;
  if (n < 0 || __builtin_mul_overflow(n, static_cast<int64_t>(aclDataTypeSize(dtype)), &b)) {
    return Status(static_cast<Errc>(ACL_ERROR_GE_SHAPE_INVALID),
                  "tensor '" + name + "' of shape " + ops::shape_text(shape) + " is too large");
  }
  if (static_cast<uint64_t>(b) > max_bytes) {
    return Status(static_cast<Errc>(ACL_ERROR_GE_SHAPE_INVALID),
                  "tensor '" + name + "' of shape " + ops::shape_text(shape) + " needs " + std::to_string(b) +
                      " bytes, more than the limit of " + std::to_string(max_bytes) +
                      " bytes per tensor (ARUN_MODEL_MAX_TENSOR_BYTES)");
  }
  *bytes = static_cast<size_t>(b);
  return Status::Ok();
}

// Reads a TypeProto's static tensor type; `where` says which tensor for the message.
Status static_type(const std::string& name, const onnx::TypeProto& type, aclDataType* dtype, ops::Shape* shape) {
  if (!type.has_tensor_type()) return parse_error("tensor '" + name + "' is not a tensor (sequence, map or optional)");
  const auto& tt = type.tensor_type();
  if (!to_acl_dtype(tt.elem_type(), dtype)) return dtype_error(name, tt.elem_type());
  if (!tt.has_shape()) {
    return Status(static_cast<Errc>(ACL_ERROR_GE_SHAPE_INVALID),
                  "tensor '" + name + "' has no shape after shape inference (unknown rank)");
  }
  shape->clear();
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) {
      return Status(static_cast<Errc>(ACL_ERROR_GE_SHAPE_INVALID),
                    "tensor '" + name + "' has a dynamic dimension" +
                        (d.has_dim_param() ? " '" + d.dim_param() + "'" : std::string()) +
                        " (only static shapes are supported)");
    }
    shape->push_back(d.dim_value());
  }
  return Status::Ok();
}

// An initializer's bytes in row-major little-endian order, from raw_data or the typed fields.
// detail::check_tensor_data has accepted T (BYTES is its size), so the data holds exactly BYTES.
void initializer_bytes(const onnx::TensorProto& t, aclDataType dtype, size_t bytes, std::vector<uint8_t>* out) {
  if (t.has_raw_data()) {  // one pass over the bytes: weights are most of a model file
    const auto* raw = reinterpret_cast<const uint8_t*>(t.raw_data().data());
    out->assign(raw, raw + bytes);
    return;
  }
  out->assign(bytes, 0);
  if (bytes == 0) return;
  const size_t elem = aclDataTypeSize(dtype);
  const size_t count = bytes / elem;
  uint8_t* dst = out->data();
  switch (dtype) {
    case ACL_FLOAT:
      std::memcpy(dst, t.float_data().data(), bytes);
      break;
    case ACL_DOUBLE:
      std::memcpy(dst, t.double_data().data(), bytes);
      break;
    case ACL_INT64:
      std::memcpy(dst, t.int64_data().data(), bytes);
      break;
    case ACL_UINT32:
    case ACL_UINT64:
      for (size_t i = 0; i < count; ++i) {
        const uint64_t v = t.uint64_data(static_cast<int>(i));
        std::memcpy(dst + i * elem, &v, elem);  // little-endian: the low bytes first
      }
      break;
    default:
      // int32 and the narrower types (float16 / bfloat16 as their bits) are stored in int32_data.
      for (size_t i = 0; i < count; ++i) {
        const int32_t v = t.int32_data(static_cast<int>(i));
        std::memcpy(dst + i * elem, &v, elem);
      }
      break;
  }
}

// A weight (initializer or Constant value): checked against its data and the limits, then copied.
Status weight_from(const onnx::TensorProto& t, const std::string& what, const ImportLimits& limits, TensorInfo* ti) {
  ARUN_RETURN_IF_ERROR(detail::check_tensor_data(t, what, limits, &ti->bytes));
  to_acl_dtype(t.data_type(), &ti->dtype);
  ti->kind = TensorKind::weight;
  ti->shape.assign(t.dims().begin(), t.dims().end());
  initializer_bytes(t, ti->dtype, ti->bytes, &ti->data);
  return Status::Ok();
}

Status convert_attr(const Node& node, const onnx::AttributeProto& a, ops::Attrs* attrs) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT:
      attrs->set(a.name(), static_cast<int64_t>(a.i()));
      break;
    case A::FLOAT:
      attrs->set(a.name(), a.f());
      break;
    case A::STRING:
      attrs->set(a.name(), a.s());
      break;
    case A::INTS:
      attrs->set(a.name(), std::vector<int64_t>(a.ints().begin(), a.ints().end()));
      break;
    case A::TENSOR: {
      // ConstantOfShape's `value`: a one-element tensor becomes a scalar attribute, int64 for integer
      // and bool tensors, float otherwise (the op converts it to its output's dtype).
      const onnx::TensorProto& t = a.t();
      size_t bytes = 0;
      ARUN_RETURN_IF_ERROR(detail::check_tensor_data(
          t, "node '" + node.name + "' (" + node.op + "): attribute '" + a.name() + "'", ImportLimits{}, &bytes));
      aclDataType dtype = ACL_DT_UNDEFINED;
      to_acl_dtype(t.data_type(), &dtype);
      const size_t elem = aclDataTypeSize(dtype);
      if (elem == 0 || bytes != elem) {
        return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID),
                      "node '" + node.name + "' (" + node.op + "): attribute '" + a.name() + "' is a tensor of " +
                          std::to_string(elem == 0 ? 0 : bytes / elem) +
                          " elements; only a one-element tensor attribute is supported");
      }
      std::vector<uint8_t> v;
      initializer_bytes(t, dtype, bytes, &v);
      auto as = [&](auto x) {
        std::memcpy(&x, v.data(), sizeof(x));
        return x;
      };
      switch (dtype) {
        case ACL_FLOAT:
          attrs->set(a.name(), as(float{}));
          break;
        case ACL_DOUBLE:
          attrs->set(a.name(), static_cast<float>(as(double{})));
          break;
        case ACL_FLOAT16:
          attrs->set(a.name(), half_to_float(as(uint16_t{})));
          break;
        case ACL_BF16:
          attrs->set(a.name(), bf16_to_float(as(uint16_t{})));
          break;
        case ACL_INT8:
          attrs->set(a.name(), static_cast<int64_t>(as(int8_t{})));
          break;
        case ACL_INT16:
          attrs->set(a.name(), static_cast<int64_t>(as(int16_t{})));
          break;
        case ACL_INT32:
          attrs->set(a.name(), static_cast<int64_t>(as(int32_t{})));
          break;
        case ACL_INT64:
          attrs->set(a.name(), as(int64_t{}));
          break;
        case ACL_UINT8:
        case ACL_BOOL:
          attrs->set(a.name(), static_cast<int64_t>(as(uint8_t{})));
          break;
        case ACL_UINT16:
          attrs->set(a.name(), static_cast<int64_t>(as(uint16_t{})));
          break;
        case ACL_UINT32:
          attrs->set(a.name(), static_cast<int64_t>(as(uint32_t{})));
          break;
        case ACL_UINT64:
          attrs->set(a.name(), static_cast<int64_t>(as(uint64_t{})));
          break;  // the same bits
        default:
          return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID),
                        "node '" + node.name + "' (" + node.op + "): attribute '" + a.name() + "' is a " +
                            ops::dtype_name(dtype) + " tensor, which the operator library does not take");
      }
      break;
    }
    case A::FLOATS:
      attrs->set(a.name(), std::vector<float>(a.floats().begin(), a.floats().end()));
      break;
    default:
      return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID),
                    "node '" + node.name + "' (" + node.op + "): attribute '" + a.name() + "' has ONNX type " +
                        std::to_string(a.type()) + ", which the operator library does not take");
  }
  return Status::Ok();
}

struct Importer {
  Graph g;
  std::unordered_map<std::string, int> index;  // tensor name -> index

  int add_tensor(const std::string& name) {
    auto [it, inserted] = index.emplace(name, static_cast<int>(g.tensors.size()));
    if (inserted) {
      g.tensors.emplace_back();
      g.tensors.back().name = name;
    }
    return it->second;
  }
};

}  // namespace

ImportLimits import_limits() {
  static const ImportLimits limits = [] {
    ImportLimits l;
    auto read = [](const char* name, uint64_t* v, uint64_t most) {
      const char* env = std::getenv(name);
      if (env == nullptr || *env == '\0') return;
      char* end = nullptr;
      errno = 0;
      const unsigned long long x = std::strtoull(env, &end, 10);
      if (errno == 0 && *end == '\0' && x > 0 && env[0] != '-') *v = std::min<uint64_t>(x, most);
    };
    read("ARUN_MODEL_MAX_TENSOR_BYTES", &l.max_tensor_bytes, UINT64_MAX);
    read("ARUN_MODEL_MAX_FILE_BYTES", &l.max_file_bytes, INT32_MAX);
    return l;
  }();
  return limits;
}

Status read_model_file(const char* path, const ImportLimits& limits, std::string* out) {
  auto fail = [&](const std::string& why) {
    return Status(static_cast<Errc>(ACL_ERROR_READ_MODEL_FAILURE), std::string("model file '") + path + "' " + why);
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the file type is checked before any read.
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    return Status(static_cast<Errc>(ACL_ERROR_READ_MODEL_FAILURE),
                  std::string("cannot open model file '") + path + "': " + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::string("cannot be examined: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail("is a directory, not a model file");
  if (!S_ISREG(st.st_mode)) return fail("is not a regular file (a device, FIFO or socket is not read)");
  if (st.st_size == 0) return fail("is empty");
  if (static_cast<uint64_t>(st.st_size) > limits.max_file_bytes) {
    return fail("has " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                std::to_string(limits.max_file_bytes) + " (ARUN_MODEL_MAX_FILE_BYTES)");
  }
  // The file may change while it is read: never read past the size it had, and notice a short read.
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    const ssize_t n = ::read(fd, out->data() + done, out->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) return fail("shrank while it was read");
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status import_onnx(const void* data, size_t size, Graph* out) {
  return import_onnx(data, size, import_limits(), out);
}

Status import_onnx(const void* data, size_t size, const ImportLimits& limits, Graph* out) {
  onnx::ModelProto model;
  if (size > static_cast<size_t>(INT32_MAX) || !model.ParseFromArray(data, static_cast<int>(size))) {
    return parse_error("the model is not a valid ONNX ModelProto (" + std::to_string(size) +
                       " bytes that protobuf cannot parse)");
  }
  if (!model.has_graph()) return parse_error("the ONNX model has no graph");
  // Everything shape inference reads is checked first: it trusts its input.
  ARUN_RETURN_IF_ERROR(detail::check_model(model, limits));
  const onnx::GraphProto& gp = model.graph();
  // The default domain's opset decides what every operator means; refused outside the range whose
  // semantics the operator library follows.
  int64_t opset = -1;
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  if (opset < 0) {
    return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID),
                  "the model imports no opset of the default ONNX domain (opset_import)");
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID),
                  "the model uses opset " + std::to_string(opset) +
                      " of the default ONNX domain; ascend-run imports opsets " + std::to_string(kMinOpset) + " to " +
                      std::to_string(kMaxOpset));
  }
  // Shape computations of static tensors become constants, so every tensor gets a static shape.
  ARUN_RETURN_IF_ERROR(detail::fold_constants(&model, opset, limits));
  detail::fold_batch_norms(&model);
  Importer im;
  Graph& g = im.g;
  g.name = gp.name();

  // Initializers are weights, also when (IR < 4 style) they are listed as inputs too.
  for (const auto& init : gp.initializer()) {
    const int t = im.add_tensor(init.name());
    ARUN_RETURN_IF_ERROR(weight_from(init, "initializer '" + init.name() + "'", limits, &g.tensors[t]));
  }
  for (const auto& vi : gp.input()) {
    if (im.index.count(vi.name()) != 0) continue;  // an initializer with a default value
    const int t = im.add_tensor(vi.name());
    g.tensors[t].kind = TensorKind::input;
    g.tensors[t].io_index = static_cast<int>(g.inputs.size());
    g.inputs.push_back(t);
  }

  // Nodes in file order first; Constant nodes become weights.
  struct Pending {
    Node node;
    std::vector<std::string> in, out;
  };
  std::vector<Pending> pending;
  // What the operator library cannot run is gathered over the whole graph and reported at once, so
  // one load names every node to fix, not the first.
  std::vector<std::string> unsupported;
  for (int n = 0; n < gp.node_size(); ++n) {
    const onnx::NodeProto& np = gp.node(n);
    Pending p;
    p.node.op = np.op_type();
    p.node.name = np.name().empty() ? np.op_type() + "_" + std::to_string(n) : np.name();
    const std::string where = "node '" + p.node.name + "' (" + np.op_type() + ")";
    if (!np.domain().empty() && np.domain() != "ai.onnx") {
      unsupported.push_back(where + ": domain '" + np.domain() + "'; only the default ONNX domain is supported");
      continue;
    }
    if (np.op_type() == "Constant") {
      if (np.output_size() != 1 || np.attribute_size() != 1 || !np.attribute(0).has_t()) {
        unsupported.push_back(where + ": only a 'value' tensor attribute is supported");
        continue;
      }
      const onnx::TensorProto& value = np.attribute(0).t();
      if (im.index.count(np.output(0)) != 0) return parse_error("tensor '" + np.output(0) + "' is defined twice");
      TensorInfo& ti = g.tensors[im.add_tensor(np.output(0))];
      ARUN_RETURN_IF_ERROR(weight_from(value, "tensor '" + ti.name + "'", limits, &ti));
      continue;
    }
    const ops::OpDef* def = ops::find_op(np.op_type());
    if (def == nullptr) {
      unsupported.push_back(where + ": not implemented by the operator library");
      continue;
    }
    for (const auto& a : np.attribute()) {
      if (std::find(def->attrs.begin(), def->attrs.end(), a.name()) == def->attrs.end()) {
        unsupported.push_back(where + ": attribute '" + a.name() + "' is not supported by the operator library");
        continue;
      }
      if (Status st = convert_attr(p.node, a, &p.node.attrs); !st.ok()) unsupported.push_back(st.message());
    }
    // Operators whose meaning changed between opsets are told the model's.
    if (std::find(def->attrs.begin(), def->attrs.end(), "opset") != def->attrs.end()) {
      p.node.attrs.set("opset", opset);
    }
    p.in.assign(np.input().begin(), np.input().end());
    p.out.assign(np.output().begin(), np.output().end());
    pending.push_back(std::move(p));
  }
  if (!unsupported.empty()) {
    constexpr size_t kListed = 20;
    std::string msg = std::to_string(unsupported.size()) + " node" + (unsupported.size() == 1 ? "" : "s") +
                      " of the model cannot run here:";
    for (size_t i = 0; i < unsupported.size() && i < kListed; ++i) msg += "\n  " + unsupported[i];
    if (unsupported.size() > kListed) msg += "\n  ... and " + std::to_string(unsupported.size() - kListed) + " more";
    return Status(static_cast<Errc>(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID), msg);
  }

  // Producers: every node output is a new tensor.
  std::vector<std::vector<int>> out_idx(pending.size());
  for (size_t n = 0; n < pending.size(); ++n) {
    for (const std::string& name : pending[n].out) {
      if (name.empty()) {
        out_idx[n].push_back(-1);
        continue;
      }
      if (im.index.count(name) != 0) return parse_error("tensor '" + name + "' is defined twice");
      const int t = im.add_tensor(name);
      g.tensors[t].producer = static_cast<int>(n);  // file order for now, renumbered below
      out_idx[n].push_back(t);
    }
  }
  // Topological order (Kahn), stable: among ready nodes, the one first in the file goes first.
  std::vector<int> indegree(pending.size(), 0);
  std::vector<std::vector<int>> users(pending.size());
  std::vector<std::vector<int>> in_idx(pending.size());
  for (size_t n = 0; n < pending.size(); ++n) {
    for (const std::string& name : pending[n].in) {
      if (name.empty()) {
        in_idx[n].push_back(-1);
        continue;
      }
      auto it = im.index.find(name);
      if (it == im.index.end()) {
        return parse_error("node '" + pending[n].node.name + "' (" + pending[n].node.op + ") reads tensor '" + name +
                           "', which no node, initializer or graph input defines");
      }
      in_idx[n].push_back(it->second);
      const int p = g.tensors[it->second].producer;
      if (p >= 0) {
        ++indegree[n];
        users[p].push_back(static_cast<int>(n));
      }
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t n = 0; n < pending.size(); ++n) {
    if (indegree[n] == 0) ready.push(static_cast<int>(n));
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int n = ready.top();
    ready.pop();
    order.push_back(n);
    for (int u : users[n]) {
      if (--indegree[u] == 0) ready.push(u);
    }
  }
  if (order.size() != pending.size()) {
    for (size_t n = 0; n < pending.size(); ++n) {
      if (indegree[n] > 0) return parse_error("the graph has a cycle through node '" + pending[n].node.name + "'");
    }
  }
  std::vector<int> new_index(pending.size());
  for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int>(i);
  for (int old : order) {
    Node node = std::move(pending[old].node);
    node.inputs = in_idx[old];
    node.outputs = out_idx[old];
    g.nodes.push_back(std::move(node));
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (int t : g.nodes[n].outputs) {
      if (t >= 0) g.tensors[t].producer = static_cast<int>(n);
    }
    for (int t : g.nodes[n].inputs) {
      if (t < 0) continue;
      auto& c = g.tensors[t].consumers;
      if (c.empty() || c.back() != static_cast<int>(n)) c.push_back(static_cast<int>(n));
    }
  }

  // Outputs must be computed by a node (a graph that passes an input or a weight straight through
  // would need a copy node, which the importer does not add).
  for (const auto& vi : gp.output()) {
    auto it = im.index.find(vi.name());
    if (it == im.index.end()) return parse_error("graph output '" + vi.name() + "' is not defined by any node");
    TensorInfo& ti = g.tensors[it->second];
    if (ti.producer < 0 || ti.kind == TensorKind::output) {
      return parse_error("graph output '" + vi.name() +
                         "' is a graph input, a weight or listed twice; it must be computed by a node");
    }
    ti.kind = TensorKind::output;
    ti.io_index = static_cast<int>(g.outputs.size());
    g.outputs.push_back(it->second);
  }

  // Shape inference, now that the graph's data, attributes, references and order are known good.
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/true, /*strict=*/1,
                                                                   /*data_prop=*/true));
  } catch (const std::exception& e) {
    return parse_error(std::string("ONNX shape inference failed: ") + e.what());
  }
  // Declared types: value_info (intermediates, filled by shape inference), inputs, outputs.
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  for (const auto& vi : gp.value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : gp.input()) types[vi.name()] = &vi.type();
  for (const auto& vi : gp.output()) types[vi.name()] = &vi.type();

  // Types and sizes of everything that is not a weight.
  for (TensorInfo& ti : g.tensors) {
    if (ti.kind == TensorKind::weight) continue;
    auto it = types.find(ti.name);
    if (it == types.end()) {
      return Status(static_cast<Errc>(ACL_ERROR_GE_SHAPE_INVALID),
                    "tensor '" + ti.name + "' has no type or shape after ONNX shape inference");
    }
    ARUN_RETURN_IF_ERROR(static_type(ti.name, *it->second, &ti.dtype, &ti.shape));
    ARUN_RETURN_IF_ERROR(shape_bytes(ti.name, ti.dtype, ti.shape, limits.max_tensor_bytes, &ti.bytes));
  }
  // Activations and residual Adds into the convolutions before them (needs the inferred shapes),
  // and the elementwise LayerNorm / GELU of transformers into one node each.
  if (detail::conv_fusion_enabled()) {
    detail::fuse_convs(&g);
    detail::fuse_transformer(&g);
  }
  *out = std::move(g);
  return Status::Ok();
}

}  // namespace arun::model
