// Folding at load: what a model computes from constants and from static shapes becomes initializers.
//
// Exporters write a dynamic reshape as Shape -> Gather -> Unsqueeze -> Concat -> Reshape (PyTorch
// does for every attention head split). With static input shapes all of it is known at load, but
// libonnx 1.12 propagates values through such chains only for Reshape-14 and later, so a model of
// opset 11-13 would keep a Reshape of unknown shape. This pass evaluates those small integer
// computations on the host and replaces them with initializers, then shape inference sees
// constants. It only folds tensors of at most kMaxFoldElements elements, of the integer, bool and
// float types, with the operators below; anything else stays a node for the operator library.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include "onnx_checks.hpp"

namespace arun::model::detail {

namespace {

using onnx::TensorProto;

constexpr int64_t kMaxFoldElements = 1 << 16;
constexpr int64_t kMaxFoldReals = 64;  // real-valued initializers read as possible fold inputs

// A small host tensor: integers (and bool) in `ints`, floating point in `reals`.
struct Value {
  int32_t type = TensorProto::UNDEFINED;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  bool integral() const {
    return type == TensorProto::INT64 || type == TensorProto::INT32 || type == TensorProto::BOOL;
  }
  int64_t size() const { return integral() ? static_cast<int64_t>(ints.size()) : static_cast<int64_t>(reals.size()); }
  double at(int64_t i) const { return integral() ? static_cast<double>(ints[i]) : reals[i]; }
};

bool foldable_type(int32_t t) {
  return t == TensorProto::INT64 || t == TensorProto::INT32 || t == TensorProto::BOOL || t == TensorProto::FLOAT ||
         t == TensorProto::DOUBLE;
}

std::optional<int64_t> element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kMaxFoldElements) return std::nullopt;
  }
  return n;
}

// An initializer or Constant value (already checked against its dims by check_model).
std::optional<Value> from_tensor(const TensorProto& t) {
  if (!foldable_type(t.data_type()) || t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  Value v;
  v.type = t.data_type();
  v.dims.assign(t.dims().begin(), t.dims().end());
  const auto n = element_count(v.dims);
  if (!n) return std::nullopt;
  const bool raw = t.has_raw_data();
  const char* r = t.raw_data().data();
  for (int64_t i = 0; i < *n; ++i) {
    switch (v.type) {
      case TensorProto::INT64: {
        int64_t x;
        if (raw)
          std::memcpy(&x, r + 8 * i, 8);
        else
          x = t.int64_data(static_cast<int>(i));
        v.ints.push_back(x);
        break;
      }
      case TensorProto::INT32:
      case TensorProto::BOOL: {
        int32_t x = 0;
        if (raw && v.type == TensorProto::BOOL)
          x = static_cast<uint8_t>(r[i]);
        else if (raw)
          std::memcpy(&x, r + 4 * i, 4);
        else
          x = t.int32_data(static_cast<int>(i));
        v.ints.push_back(v.type == TensorProto::BOOL ? (x != 0) : x);
        break;
      }
      case TensorProto::FLOAT: {
        float x;
        if (raw)
          std::memcpy(&x, r + 4 * i, 4);
        else
          x = t.float_data(static_cast<int>(i));
        v.reals.push_back(x);
        break;
      }
      default: {
        double x;
        if (raw)
          std::memcpy(&x, r + 8 * i, 8);
        else
          x = t.double_data(static_cast<int>(i));
        v.reals.push_back(x);
        break;
      }
    }
  }
  return v;
}

TensorProto to_tensor(const Value& v, const std::string& name) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(v.type);
  for (int64_t d : v.dims) t.add_dims(d);
  switch (v.type) {
    case TensorProto::INT64:
      for (int64_t x : v.ints) t.add_int64_data(x);
      break;
    case TensorProto::INT32:
    case TensorProto::BOOL:
      for (int64_t x : v.ints) t.add_int32_data(static_cast<int32_t>(x));
      break;
    case TensorProto::FLOAT:
      for (double x : v.reals) t.add_float_data(static_cast<float>(x));
      break;
    default:
      for (double x : v.reals) t.add_double_data(x);
      break;
  }
  return t;
}

// Converts every element to `type` as a cast does (float -> int truncates toward zero).
Value cast(const Value& in, int32_t type) {
  Value v;
  v.type = type;
  v.dims = in.dims;
  const bool to_int = type == TensorProto::INT64 || type == TensorProto::INT32 || type == TensorProto::BOOL;
  for (int64_t i = 0; i < in.size(); ++i) {
    if (to_int) {
      int64_t x = in.integral() ? in.ints[i] : static_cast<int64_t>(std::trunc(in.reals[i]));
      if (type == TensorProto::INT32) x = static_cast<int32_t>(x);
      if (type == TensorProto::BOOL) x = in.integral() ? (in.ints[i] != 0) : (in.reals[i] != 0.0);
      v.ints.push_back(x);
    } else {
      const double x = in.at(i);
      v.reals.push_back(type == TensorProto::FLOAT ? static_cast<float>(x) : x);
    }
  }
  return v;
}

bool normalize(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Elementwise with NumPy broadcasting over up to three operands; f gets the flat indices.
std::optional<Value> broadcast(const std::vector<const Value*>& in, int32_t type,
                               const std::function<void(Value&, const std::vector<int64_t>&)>& f) {
  size_t rank = 0;
  for (const Value* v : in) rank = std::max(rank, v->dims.size());
  std::vector<int64_t> out(rank, 1);
  for (const Value* v : in) {
    for (size_t i = 0; i < v->dims.size(); ++i) {
      int64_t& o = out[rank - v->dims.size() + i];
      const int64_t d = v->dims[i];
      if (d != o && d != 1 && o != 1) return std::nullopt;
      if (o == 1) o = d;
    }
  }
  const auto n = element_count(out);
  if (!n) return std::nullopt;
  Value r;
  r.type = type;
  r.dims = out;
  const std::vector<int64_t> os = strides_of(out);
  std::vector<int64_t> idx(in.size());
  std::vector<std::vector<int64_t>> strides;  // each operand's, computed once
  for (const Value* v : in) strides.push_back(strides_of(v->dims));
  for (int64_t e = 0; e < *n; ++e) {
    for (size_t k = 0; k < in.size(); ++k) {
      const Value& v = *in[k];
      const std::vector<int64_t>& vs = strides[k];
      int64_t off = 0;
      for (size_t d = 0; d < v.dims.size(); ++d) {
        const int64_t coord = (e / os[rank - v.dims.size() + d]) % out[rank - v.dims.size() + d];
        off += (v.dims[d] == 1 ? 0 : coord) * vs[d];
      }
      idx[k] = off;
    }
    f(r, idx);
  }
  return r;
}

std::optional<Value> binary(const std::string& op, const Value& a, const Value& b) {
  if (a.type != b.type && op != "Equal") return std::nullopt;
  const bool compare = op == "Equal" || op == "Less" || op == "Greater";
  const int32_t type = compare ? TensorProto::BOOL : a.type;
  bool overflow = false;  // an integer result that does not fit: left to the kernel, not folded
  auto r = broadcast({&a, &b}, type, [&](Value& r, const std::vector<int64_t>& i) {
    if (compare) {
      const double x = a.at(i[0]), y = b.at(i[1]);
      r.ints.push_back(op == "Equal" ? x == y : op == "Less" ? x < y : x > y);
    } else if (a.integral()) {
      const int64_t x = a.ints[i[0]], y = b.ints[i[1]];
      int64_t z = 0;
      if (op == "Add")
        overflow |= __builtin_add_overflow(x, y, &z);
      else if (op == "Sub")
        overflow |= __builtin_sub_overflow(x, y, &z);
      else if (op == "Mul")
        overflow |= __builtin_mul_overflow(x, y, &z);
      else if (y == 0 || (x == INT64_MIN && y == -1))
        overflow = true;
      else
        z = x / y;
      r.ints.push_back(z);
    } else {
      const double x = a.reals[i[0]], y = b.reals[i[1]];
      r.reals.push_back(op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y);
    }
  });
  if (overflow) return std::nullopt;
  return r;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
int64_t attr_int(const onnx::NodeProto& n, const char* name, int64_t def) {
  const auto* a = attr(n, name);
  return a != nullptr && a->type() == onnx::AttributeProto::INT ? a->i() : def;
}
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const char* name) {
  const auto* a = attr(n, name);
  if (a == nullptr || a->type() != onnx::AttributeProto::INTS) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

// ONNX Slice on one axis: the first index and the count, clamped as the operator specifies.
void slice_range(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* first, int64_t* count) {
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); };
  // Negative positions count from the end; the sums cannot overflow once clamped first.
  start = start < 0 ? std::max(start, -dim) + dim : start;
  end = end < 0 ? std::max(end, -dim - 1) + dim : end;
  if (step > 0) {
    start = clamp(start, 0, dim);
    end = clamp(end, 0, dim);
    *count = end > start ? (end - start - 1) / step + 1 : 0;
  } else {
    start = clamp(start, 0, dim - 1);
    end = clamp(end, -1, dim - 1);
    *count = start > end ? (start - end - 1) / -step + 1 : 0;
  }
  *first = start;
}

// Gathers elements of `in` at the flat offsets `offsets` into a tensor of `dims`.
Value pick(const Value& in, std::vector<int64_t> dims, const std::vector<int64_t>& offsets) {
  Value r;
  r.type = in.type;
  r.dims = std::move(dims);
  for (int64_t o : offsets) {
    if (in.integral())
      r.ints.push_back(in.ints[o]);
    else
      r.reals.push_back(in.reals[o]);
  }
  return r;
}

class Folder {
 public:
  Folder(onnx::ModelProto* model, int64_t opset) : model_(model), opset_(opset) {}

  // One pass: infer shapes, evaluate what can be, rewrite the graph. True when something folded.
  bool pass() {
    onnx::GraphProto* g = model_->mutable_graph();
    try {
      onnx::shape_inference::InferShapes(*model_, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(/*check_type=*/false, /*strict=*/0,
                                                                     /*data_prop=*/true));
    } catch (const std::exception&) {
      return false;  // the strict inference after folding reports it
    }
    shapes_.clear();
    auto note = [&](const onnx::ValueInfoProto& vi) {
      if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
      std::vector<int64_t> dims;
      for (const auto& d : vi.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value()) return;
        dims.push_back(d.dim_value());
      }
      shapes_[vi.name()] = dims;
    };
    for (const auto& vi : g->input()) note(vi);
    for (const auto& vi : g->value_info()) note(vi);
    for (const auto& t : g->initializer()) shapes_[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());

    values_.clear();
    for (const auto& t : g->initializer()) {
      // Integer tensors (shapes, indices, axes) and small real ones: the weights are never read.
      const bool small = t.dims_size() == 0 || (t.dims_size() == 1 && t.dims(0) <= kMaxFoldReals);
      const bool integer = t.data_type() == TensorProto::INT64 || t.data_type() == TensorProto::INT32 ||
                           t.data_type() == TensorProto::BOOL;
      if (!integer && !small) continue;
      if (auto v = from_tensor(t)) values_.emplace(t.name(), std::move(*v));
    }
    std::set<std::string> graph_outputs;
    for (const auto& o : g->output()) graph_outputs.insert(o.name());

    std::vector<bool> folded(g->node_size(), false);
    bool any = false;
    for (int n = 0; n < g->node_size(); ++n) {
      const onnx::NodeProto& node = g->node(n);
      if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
      if (node.output_size() != 1 || graph_outputs.count(node.output(0)) != 0) continue;
      std::optional<Value> v = evaluate(node);
      if (!v || v->size() > kMaxFoldElements) continue;
      values_[node.output(0)] = std::move(*v);
      folded[n] = true;
      any = true;
    }
    if (!any) return false;

    // Initializers for the folded tensors that a remaining node reads; the folded nodes go.
    std::set<std::string> needed;
    for (int n = 0; n < g->node_size(); ++n) {
      if (folded[n]) continue;
      for (const auto& in : g->node(n).input()) needed.insert(in);
    }
    std::set<std::string> have;
    for (const auto& t : g->initializer()) have.insert(t.name());
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    for (int n = 0; n < g->node_size(); ++n) {
      if (!folded[n]) {
        kept.Add()->CopyFrom(g->node(n));
        continue;
      }
      const std::string& out = g->node(n).output(0);
      if (needed.count(out) != 0 && have.count(out) == 0) *g->add_initializer() = to_tensor(values_[out], out);
    }
    g->mutable_node()->Swap(&kept);
    return true;
  }

 private:
  const Value* known(const onnx::NodeProto& n, int i) const {
    if (i >= n.input_size() || n.input(i).empty()) return nullptr;
    auto it = values_.find(n.input(i));
    return it == values_.end() ? nullptr : &it->second;
  }
  bool absent(const onnx::NodeProto& n, int i) const { return i >= n.input_size() || n.input(i).empty(); }

  // Axes from the attribute (before `since`) or the input `i`; nullopt when given but unknown.
  std::optional<std::vector<int64_t>> axes(const onnx::NodeProto& n, int64_t since, int i) const {
    if (opset_ < since) return attr_ints(n, "axes").value_or(std::vector<int64_t>{});
    if (absent(n, i)) return std::vector<int64_t>{};
    const Value* a = known(n, i);
    if (a == nullptr || !a->integral()) return std::nullopt;
    return a->ints;
  }

  std::optional<Value> evaluate(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") {
      const auto* a = attr(n, "value");
      if (n.attribute_size() != 1 || a == nullptr || !a->has_t()) return std::nullopt;
      return from_tensor(a->t());
    }
    if (op == "Shape" || op == "Size") {
      auto it = shapes_.find(n.input_size() > 0 ? n.input(0) : std::string());
      if (it == shapes_.end()) return std::nullopt;
      const std::vector<int64_t>& dims = it->second;
      Value v;
      v.type = TensorProto::INT64;
      if (op == "Size") {
        const auto count = element_count(dims);
        if (!count) return std::nullopt;
        v.ints = {*count};
        return v;
      }
      const int64_t r = static_cast<int64_t>(dims.size());
      int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", r);
      start = std::clamp(start < 0 ? start + r : start, int64_t{0}, r);
      end = std::clamp(end < 0 ? end + r : end, int64_t{0}, r);
      for (int64_t i = start; i < end; ++i) v.ints.push_back(dims[i]);
      v.dims = {static_cast<int64_t>(v.ints.size())};
      return v;
    }
    if (op == "ConstantOfShape") {
      const Value* shape = known(n, 0);
      if (shape == nullptr || !shape->integral() || !element_count(shape->ints)) return std::nullopt;
      Value fill;
      fill.type = TensorProto::FLOAT;
      fill.reals = {0.0};
      if (const auto* a = attr(n, "value"); a != nullptr) {
        auto v = a->has_t() ? from_tensor(a->t()) : std::nullopt;
        if (!v || v->size() != 1) return std::nullopt;
        fill = *v;
      }
      Value r;
      r.type = fill.type;
      r.dims = shape->ints;
      const int64_t count = *element_count(shape->ints);
      if (fill.integral())
        r.ints.assign(count, fill.ints[0]);
      else
        r.reals.assign(count, fill.reals[0]);
      return r;
    }
    // Everything else needs every present input known.
    for (int i = 0; i < n.input_size(); ++i) {
      if (!n.input(i).empty() && known(n, i) == nullptr) return std::nullopt;
    }
    if (n.input_size() == 0 || known(n, 0) == nullptr) return std::nullopt;
    const Value& x = *known(n, 0);
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    if (op == "Identity") return x;
    if (op == "Cast") {
      const int64_t to = attr_int(n, "to", 0);
      if (!foldable_type(static_cast<int32_t>(to))) return std::nullopt;
      return cast(x, static_cast<int32_t>(to));
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal" || op == "Less" || op == "Greater") {
      const Value* y = known(n, 1);
      if (y == nullptr) return std::nullopt;
      if (op == "Div" && x.integral() && std::count(y->ints.begin(), y->ints.end(), 0) != 0) return std::nullopt;
      return binary(op, x, *y);
    }
    if (op == "Where") {
      const Value* a = known(n, 1);
      const Value* b = known(n, 2);
      if (a == nullptr || b == nullptr || a->type != b->type || x.type != TensorProto::BOOL) return std::nullopt;
      return broadcast({&x, a, b}, a->type, [&](Value& r, const std::vector<int64_t>& i) {
        const Value& src = x.ints[i[0]] != 0 ? *a : *b;
        const int64_t o = x.ints[i[0]] != 0 ? i[1] : i[2];
        if (src.integral())
          r.ints.push_back(src.ints[o]);
        else
          r.reals.push_back(src.reals[o]);
      });
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
      auto ax = axes(n, 13, 1);
      if (!ax) return std::nullopt;
      Value r = x;
      if (op == "Unsqueeze") {
        const int64_t out_rank = rank + static_cast<int64_t>(ax->size());
        std::vector<bool> inserted(out_rank, false);
        for (int64_t a : *ax) {
          int64_t k;
          if (!normalize(a, out_rank, &k) || inserted[k]) return std::nullopt;
          inserted[k] = true;
        }
        r.dims.clear();
        size_t src = 0;
        for (int64_t i = 0; i < out_rank; ++i) r.dims.push_back(inserted[i] ? 1 : x.dims[src++]);
        return r;
      }
      std::vector<bool> drop(rank, ax->empty());
      for (int64_t i = 0; i < rank && ax->empty(); ++i) drop[i] = x.dims[i] == 1;
      for (int64_t a : *ax) {
        int64_t k;
        if (!normalize(a, rank, &k) || x.dims[k] != 1) return std::nullopt;
        drop[k] = true;
      }
      r.dims.clear();
      for (int64_t i = 0; i < rank; ++i) {
        if (!drop[i]) r.dims.push_back(x.dims[i]);
      }
      return r;
    }
    if (op == "Reshape") {
      const Value* s = known(n, 1);
      if (s == nullptr || !s->integral()) return std::nullopt;
      std::vector<int64_t> dims;
      int64_t infer = -1, product = 1;
      for (size_t i = 0; i < s->ints.size(); ++i) {
        int64_t d = s->ints[i];
        if (d == 0 && attr_int(n, "allowzero", 0) == 0) {
          if (static_cast<int64_t>(i) >= rank) return std::nullopt;
          d = x.dims[i];
        }
        if (d == -1) {
          if (infer >= 0) return std::nullopt;
          infer = static_cast<int64_t>(i);
          d = 1;
        } else if (d < 0) {
          return std::nullopt;
        }
        dims.push_back(d);
        if (__builtin_mul_overflow(product, d, &product) || product > kMaxFoldElements) return std::nullopt;
      }
      if (infer >= 0) {
        if (product == 0 || x.size() % product != 0) return std::nullopt;
        dims[infer] = x.size() / product;
      }
      if (element_count(dims) != x.size()) return std::nullopt;
      Value r = x;
      r.dims = dims;
      return r;
    }
    if (op == "Concat") {
      int64_t axis;
      if (!normalize(attr_int(n, "axis", 0), rank, &axis)) return std::nullopt;
      std::vector<const Value*> parts;
      for (int i = 0; i < n.input_size(); ++i) {
        const Value* p = known(n, i);
        if (p == nullptr || p->type != x.type || p->dims.size() != x.dims.size()) return std::nullopt;
        for (int64_t d = 0; d < rank; ++d) {
          if (d != axis && p->dims[d] != x.dims[d]) return std::nullopt;
        }
        parts.push_back(p);
      }
      Value r;
      r.type = x.type;
      r.dims = x.dims;
      r.dims[axis] = 0;
      for (const Value* p : parts) r.dims[axis] += p->dims[axis];
      if (!element_count(r.dims)) return std::nullopt;
      int64_t outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= x.dims[d];
      for (int64_t o = 0; o < outer; ++o) {
        for (const Value* p : parts) {
          const int64_t chunk = p->size() / std::max<int64_t>(outer, 1);
          for (int64_t i = 0; i < chunk; ++i) {
            if (p->integral())
              r.ints.push_back(p->ints[o * chunk + i]);
            else
              r.reals.push_back(p->reals[o * chunk + i]);
          }
        }
      }
      return r;
    }
    if (op == "Gather") {
      const Value* idx = known(n, 1);
      int64_t axis;
      if (idx == nullptr || !idx->integral() || !normalize(attr_int(n, "axis", 0), rank, &axis)) return std::nullopt;
      std::vector<int64_t> dims(x.dims.begin(), x.dims.begin() + axis);
      dims.insert(dims.end(), idx->dims.begin(), idx->dims.end());
      dims.insert(dims.end(), x.dims.begin() + axis + 1, x.dims.end());
      if (!element_count(dims)) return std::nullopt;
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= x.dims[d];
      for (int64_t d = axis + 1; d < rank; ++d) inner *= x.dims[d];
      std::vector<int64_t> offsets;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k : idx->ints) {
          if (k < -x.dims[axis] || k >= x.dims[axis]) return std::nullopt;  // the kernel reports it
          if (k < 0) k += x.dims[axis];
          for (int64_t i = 0; i < inner; ++i) offsets.push_back(o * x.dims[axis] * inner + k * inner + i);
        }
      }
      return pick(x, dims, offsets);
    }
    if (op == "Slice") {
      std::vector<int64_t> starts, ends, ax, steps;
      if (opset_ < 10) {
        starts = attr_ints(n, "starts").value_or(std::vector<int64_t>{});
        ends = attr_ints(n, "ends").value_or(std::vector<int64_t>{});
        ax = attr_ints(n, "axes").value_or(std::vector<int64_t>{});
      } else {
        const Value* s = known(n, 1);
        const Value* e = known(n, 2);
        if (s == nullptr || e == nullptr || !s->integral() || !e->integral()) return std::nullopt;
        starts = s->ints;
        ends = e->ints;
        if (const Value* a = known(n, 3)) ax = a->ints;
        if (const Value* st = known(n, 4)) steps = st->ints;
      }
      if (ax.empty()) {
        for (size_t i = 0; i < starts.size(); ++i) ax.push_back(static_cast<int64_t>(i));
      }
      if (steps.empty()) steps.assign(starts.size(), 1);
      if (ends.size() != starts.size() || ax.size() != starts.size() || steps.size() != starts.size()) {
        return std::nullopt;
      }
      std::vector<int64_t> first(rank, 0), step(rank, 1), dims = x.dims;
      for (size_t i = 0; i < starts.size(); ++i) {
        int64_t a;
        if (!normalize(ax[i], rank, &a) || steps[i] == 0 || steps[i] == INT64_MIN) return std::nullopt;
        slice_range(x.dims[a], starts[i], ends[i], steps[i], &first[a], &dims[a]);
        step[a] = steps[i];
      }
      const auto count = element_count(dims);
      if (!count) return std::nullopt;
      const std::vector<int64_t> xs = strides_of(x.dims), os = strides_of(dims);
      std::vector<int64_t> offsets;
      for (int64_t e = 0; e < *count; ++e) {
        int64_t off = 0;
        for (int64_t d = 0; d < rank; ++d) off += (first[d] + ((e / os[d]) % dims[d]) * step[d]) * xs[d];
        offsets.push_back(off);
      }
      return pick(x, dims, offsets);
    }
    if (op == "Range") {
      const Value* limit = known(n, 1);
      const Value* delta = known(n, 2);
      if (limit == nullptr || delta == nullptr || x.size() != 1 || limit->size() != 1 || delta->size() != 1 ||
          limit->type != x.type || delta->type != x.type) {
        return std::nullopt;
      }
      const double s = x.at(0), l = limit->at(0), d = delta->at(0);
      if (d == 0) return std::nullopt;
      const double count = std::max(std::ceil((l - s) / d), 0.0);
      if (count > kMaxFoldElements) return std::nullopt;
      Value r;
      r.type = x.type;
      r.dims = {static_cast<int64_t>(count)};
      for (int64_t i = 0; i < r.dims[0]; ++i) {
        if (x.integral())
          r.ints.push_back(x.ints[0] + i * delta->ints[0]);
        else
          r.reals.push_back(s + i * d);
      }
      return r;
    }
    return std::nullopt;
  }

  onnx::ModelProto* model_;
  int64_t opset_;
  std::unordered_map<std::string, std::vector<int64_t>> shapes_;
  std::unordered_map<std::string, Value> values_;
};

}  // namespace

Status fold_constants(onnx::ModelProto* model, int64_t opset, const ImportLimits& limits) {
  // Inference writes value_info; the model's own goes back afterwards, so the strict inference that
  // follows starts from what the file declared.
  const auto declared = model->graph().value_info();
  Folder folder(model, opset);
  // Each pass can only see through the reshapes the previous one made static: a 24-layer encoder
  // needs 25 passes. The bound keeps a pathological file from looping.
  for (int pass = 0; pass < 256 && folder.pass(); ++pass) {
    // The new constants are checked as the file's were (a Reshape's shape values) before libonnx's
    // inference reads them in the next pass.
    ARUN_RETURN_IF_ERROR(check_model(*model, limits));
  }
  *model->mutable_graph()->mutable_value_info() = declared;
  return Status::Ok();
}

namespace {

// A float32 initializer's values (raw or typed storage); nullopt for any other kind.
std::optional<std::vector<float>> floats_of(const TensorProto& t) {
  if (t.data_type() != TensorProto::FLOAT || t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;  // check_model has bounded the product
  std::vector<float> v(static_cast<size_t>(n));
  if (t.has_raw_data()) {
    std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
  } else {
    std::copy(t.float_data().begin(), t.float_data().end(), v.begin());
  }
  return v;
}

void set_floats(TensorProto* t, const std::vector<float>& v) {
  t->clear_float_data();
  t->set_raw_data(v.data(), v.size() * sizeof(float));
}

}  // namespace

int fold_batch_norms(onnx::ModelProto* model) {
  onnx::GraphProto* g = model->mutable_graph();
  std::unordered_map<std::string, TensorProto*> inits;
  for (auto& t : *g->mutable_initializer()) inits[t.name()] = &t;
  std::unordered_map<std::string, int> readers;  // how many node inputs read each tensor
  for (const auto& n : g->node()) {
    for (const auto& in : n.input()) ++readers[in];
  }
  std::set<std::string> graph_outputs;
  for (const auto& o : g->output()) graph_outputs.insert(o.name());
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < g->node_size(); ++i) {
    for (const auto& out : g->node(i).output()) producer[out] = i;
  }
  auto weight = [&](const std::string& name) -> TensorProto* {
    auto it = inits.find(name);
    return it == inits.end() ? nullptr : it->second;
  };

  std::vector<bool> drop(g->node_size(), false);
  int folded = 0;
  for (int b = 0; b < g->node_size(); ++b) {
    const onnx::NodeProto& bn = g->node(b);
    if (bn.op_type() != "BatchNormalization" || bn.output_size() != 1 || bn.input_size() != 5) continue;
    if (attr_int(bn, "training_mode", 0) != 0 || attr_int(bn, "spatial", 1) != 1) continue;
    const auto* eps_attr = attr(bn, "epsilon");
    const float eps = eps_attr != nullptr && eps_attr->type() == onnx::AttributeProto::FLOAT ? eps_attr->f() : 1e-5f;
    // The convolution's output must feed only this BatchNormalization and be no graph output.
    const std::string& x = bn.input(0);
    auto p = producer.find(x);
    if (p == producer.end() || readers[x] != 1 || graph_outputs.count(x) != 0) continue;
    onnx::NodeProto* conv = g->mutable_node(p->second);
    if (conv->op_type() != "Conv" || conv->output_size() != 1 || conv->input_size() < 2) continue;
    TensorProto* w = weight(conv->input(1));
    TensorProto* bias = conv->input_size() > 2 && !conv->input(2).empty() ? weight(conv->input(2)) : nullptr;
    if (w == nullptr || readers[w->name()] != 1 || w->dims_size() < 3) continue;
    if (conv->input_size() > 2 && !conv->input(2).empty() && (bias == nullptr || readers[bias->name()] != 1)) continue;
    auto wv = floats_of(*w);
    std::optional<std::vector<float>> params[4];
    bool ok = wv.has_value();
    for (int i = 0; i < 4 && ok; ++i) {
      const TensorProto* t = weight(bn.input(1 + i));
      params[i] = t != nullptr ? floats_of(*t) : std::nullopt;
      ok = params[i].has_value() && static_cast<int64_t>(params[i]->size()) == w->dims(0);
    }
    std::vector<float> bv(static_cast<size_t>(w->dims(0)), 0.0f);
    if (ok && bias != nullptr) {
      auto v = floats_of(*bias);
      ok = v.has_value() && v->size() == bv.size();
      if (ok) bv = *v;
    }
    if (!ok) continue;
    // y = (conv(x) + b - mean) * scale / sqrt(var + eps) + beta, per output channel m, computed in
    // double so that the folded weights round once.
    const size_t per = wv->size() / bv.size();
    for (size_t m = 0; m < bv.size(); ++m) {
      const double k = (*params[0])[m] / std::sqrt(static_cast<double>((*params[3])[m]) + eps);
      for (size_t i = 0; i < per; ++i) (*wv)[m * per + i] = static_cast<float>((*wv)[m * per + i] * k);
      bv[m] = static_cast<float>((bv[m] - (*params[2])[m]) * k + (*params[1])[m]);
    }
    set_floats(w, *wv);
    if (bias == nullptr) {
      TensorProto* t = g->add_initializer();
      t->set_name(conv->output(0) + "/folded_bias");
      t->set_data_type(TensorProto::FLOAT);
      t->add_dims(static_cast<int64_t>(bv.size()));
      set_floats(t, bv);
      while (conv->input_size() < 3) conv->add_input();
      conv->set_input(2, t->name());
      inits.clear();  // add_initializer may have moved them
      for (auto& it : *g->mutable_initializer()) inits[it.name()] = &it;
    } else {
      set_floats(bias, bv);
    }
    conv->set_output(0, bn.output(0));
    drop[b] = true;
    ++folded;
  }
  if (folded == 0) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < g->node_size(); ++i) {
    if (!drop[i]) kept.Add()->CopyFrom(g->node(i));
  }
  g->mutable_node()->Swap(&kept);
  return folded;
}

}  // namespace arun::model::detail
