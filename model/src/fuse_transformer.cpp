// LayerNorm and GELU fusion at load.
//
// Exporters of transformers (PyTorch before opset 17, TF2ONNX, our test models) spell LayerNorm as
// nine elementwise nodes and the exact GELU as five: every one a task on the simulated device and a
// full pass over the activation, plus a Reduce that walks rows the normalisation walks again. ONNX
// Runtime fuses both; so does this pass, into the operator library's LayerNormalization and Gelu
// (internal here like FusedConv: the importer's opset checks ran on the original nodes, and
// shape inference before this pass, so a model of opset 11 may hold them). A pattern fuses only
// when each intermediate is read by the pattern alone and is no graph output, so nothing else
// observes the values the fused kernel no longer writes.
#include "fuse_transformer.hpp"

#include "graph_edit.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace arun::model::detail {

namespace {

// A weight's value when it holds one number (float or integer; Pow's exponent may be either).
std::optional<double> constant_scalar(const TensorInfo& t) {
  if (t.kind != TensorKind::weight || ops::numel(t.shape) != 1) return std::nullopt;
  auto read = [&](auto v) -> std::optional<double> {
    if (t.data.size() != sizeof v) return std::nullopt;
    std::memcpy(&v, t.data.data(), sizeof v);
    return static_cast<double>(v);
  };
  switch (t.dtype) {
    case ACL_FLOAT:
      return read(float{});
    case ACL_DOUBLE:
      return read(double{});
    case ACL_INT32:
      return read(int32_t{});
    case ACL_INT64:
      return read(int64_t{});
    case ACL_FLOAT16: {
      const std::optional<double> h = read(uint16_t{});
      if (!h) return std::nullopt;
      return static_cast<double>(ops::half_to_float(static_cast<uint16_t>(*h)));
    }
    default:
      return std::nullopt;
  }
}

struct Fuser {
  Graph& g;
  std::vector<int> reads;  // node inputs reading each tensor (Mul(c, c) reads c twice)
  std::vector<bool> dropped;
  int removed = 0;

  explicit Fuser(Graph* graph) : g(*graph), reads(graph->tensors.size(), 0), dropped(graph->nodes.size(), false) {
    for (const Node& n : g.nodes) {
      for (int t : n.inputs) {
        if (t >= 0) ++reads[t];
      }
    }
  }

  // The one node that reads intermediate t (once), or -1: a second reader, a graph output, or a
  // node an earlier match already took.
  int sole_reader(int t) const {
    const TensorInfo& ti = g.tensors[t];
    if (ti.kind != TensorKind::intermediate || reads[t] != 1 || ti.consumers.size() != 1) return -1;
    const int n = ti.consumers[0];
    return dropped[n] ? -1 : n;
  }

  // Node n when it is `op` with `inputs` inputs and one output.
  const Node* node_if(int n, const char* op, size_t inputs) const {
    if (n < 0 || dropped[n]) return nullptr;
    const Node& node = g.nodes[n];
    if (node.op != op || node.inputs.size() != inputs || node.outputs.size() != 1 || node.outputs[0] < 0) {
      return nullptr;
    }
    for (int t : node.inputs) {
      if (t < 0) return nullptr;
    }
    return &node;
  }

  // The operand of binary node n that is not t (-1 when both are t).
  static int other_operand(const Node& n, int t) {
    if (n.inputs[0] == t) return n.inputs[1] == t ? -1 : n.inputs[1];
    return n.inputs[1] == t ? n.inputs[0] : -1;
  }

  // Whether tensor t is a constant scalar equal to `want` to within its type's rounding.
  bool is_constant(int t, double want) const {
    const std::optional<double> v = constant_scalar(g.tensors[t]);
    const double tol = g.tensors[t].dtype == ACL_FLOAT16 ? 1e-3 : 1e-6;
    return v && std::fabs(*v - want) <= tol * std::fabs(want);
  }

  // Whether node n is ReduceMean over x's last axis alone, keeping the dimension: axes as an
  // attribute (opset < 18) or as a constant input (18).
  bool reduces_last_axis(const Node& n) const {
    if (n.op != "ReduceMean" || n.outputs.size() != 1 || n.outputs[0] < 0 || n.inputs.empty() || n.inputs[0] < 0) {
      return false;
    }
    const TensorInfo& x = g.tensors[n.inputs[0]];
    const auto rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) return false;
    if (const ops::AttrValue* k = n.attrs.find("keepdims")) {
      const int64_t* v = std::get_if<int64_t>(k);
      if (v == nullptr || *v == 0) return false;
    }
    std::vector<int64_t> axes;
    if (const ops::AttrValue* a = n.attrs.find("axes")) {
      const auto* v = std::get_if<std::vector<int64_t>>(a);
      if (v == nullptr) return false;
      axes = *v;
    } else if (n.inputs.size() == 2 && n.inputs[1] >= 0) {
      const TensorInfo& a = g.tensors[n.inputs[1]];
      if (a.kind != TensorKind::weight || a.dtype != ACL_INT64 || a.data.size() != sizeof(int64_t)) return false;
      axes.resize(1);
      std::memcpy(axes.data(), a.data.data(), sizeof(int64_t));
    }
    if (axes.size() != 1 || (axes[0] != -1 && axes[0] != rank - 1)) return false;
    ops::Shape want = x.shape;
    want.back() = 1;
    const TensorInfo& y = g.tensors[n.outputs[0]];
    return y.shape == want && y.dtype == x.dtype;
  }

  // Whether `p` can be LayerNormalization's Scale / B for x: exactly the last axis, leading 1s
  // allowed, no wider than x (so the Mul / Add did not broadcast x up).
  static bool fits_last_axis(const TensorInfo& p, const TensorInfo& x) {
    if (p.dtype != x.dtype || p.shape.size() > x.shape.size() || p.shape.empty()) return false;
    for (size_t d = 0; d + 1 < p.shape.size(); ++d) {
      if (p.shape[d] != 1) return false;
    }
    return p.shape.back() == x.shape.back();
  }

  // Replaces node `last` by `fused`; `others` are dropped. The fused node's inputs are all ready
  // at `last`, which every other node of the pattern precedes.
  void replace(int last, Node fused, const std::vector<int>& others) {
    for (int n : others) dropped[n] = true;
    removed += static_cast<int>(others.size());
    g.nodes[last] = std::move(fused);
  }

  int add_ones(const std::string& name, aclDataType type, int64_t len) {
    TensorInfo t;
    t.name = name;
    t.dtype = type;
    t.shape = {len};
    t.kind = TensorKind::weight;
    t.bytes = static_cast<size_t>(len) * (type == ACL_FLOAT16 ? 2 : 4);
    t.data.resize(t.bytes);
    for (int64_t i = 0; i < len; ++i) {
      if (type == ACL_FLOAT16) {
        const uint16_t one = ops::float_to_half(1.0f);
        std::memcpy(t.data.data() + i * 2, &one, 2);
      } else {
        const float one = 1.0f;
        std::memcpy(t.data.data() + i * 4, &one, 4);
      }
    }
    g.tensors.push_back(std::move(t));
    reads.push_back(1);
    return static_cast<int>(g.tensors.size()) - 1;
  }

  // ReduceMean -> Sub -> Pow 2 -> ReduceMean -> Add eps -> Sqrt -> Div [-> Mul gamma] [-> Add beta].
  void layer_norm(int r1) {
    const Node& mean_node = g.nodes[r1];
    if (dropped[r1] || !reduces_last_axis(mean_node)) return;
    const int x = mean_node.inputs[0], mean = mean_node.outputs[0];
    // A reference into g.tensors, which add_ones may grow: not used after it.
    const TensorInfo& xi = g.tensors[x];
    if (!fusable_type(xi.dtype)) return;
    const int sub_n = sole_reader(mean);
    const Node* sub = node_if(sub_n, "Sub", 2);
    if (sub == nullptr || sub->inputs[0] != x || sub->inputs[1] != mean) return;
    // The centred values: read by the Pow and the Div, nothing else.
    const int c = sub->outputs[0];
    const TensorInfo& ci = g.tensors[c];
    if (ci.kind != TensorKind::intermediate || reads[c] != 2 || ci.consumers.size() != 2 || ci.shape != xi.shape) {
      return;
    }
    int pow_n = -1, div_n = -1;
    for (int n : ci.consumers) {
      if (g.nodes[n].op == "Pow") pow_n = n;
      if (g.nodes[n].op == "Div") div_n = n;
    }
    const Node* pow = node_if(pow_n, "Pow", 2);
    const Node* div = node_if(div_n, "Div", 2);
    if (pow == nullptr || div == nullptr || pow->inputs[0] != c || div->inputs[0] != c) return;
    const std::optional<double> exponent = constant_scalar(g.tensors[pow->inputs[1]]);
    if (!exponent || *exponent != 2.0 || g.tensors[pow->outputs[0]].shape != xi.shape) return;
    const int r2 = sole_reader(pow->outputs[0]);
    if (r2 < 0 || dropped[r2] || !reduces_last_axis(g.nodes[r2])) return;
    const int var = g.nodes[r2].outputs[0];
    const int add_n = sole_reader(var);
    const Node* add = node_if(add_n, "Add", 2);
    if (add == nullptr) return;
    const int eps_t = other_operand(*add, var);
    const std::optional<double> eps = eps_t >= 0 ? constant_scalar(g.tensors[eps_t]) : std::nullopt;
    if (!eps || !(*eps >= 0.0) || g.tensors[add->outputs[0]].shape != g.tensors[var].shape) return;
    const int sqrt_n = sole_reader(add->outputs[0]);
    const Node* sq = node_if(sqrt_n, "Sqrt", 1);
    if (sq == nullptr || sole_reader(sq->outputs[0]) != div_n || div->inputs[1] != sq->outputs[0]) return;
    const int normed = div->outputs[0];
    if (g.tensors[normed].shape != xi.shape) return;

    int last = div_n, y = normed, scale = -1, bias = -1;
    std::vector<int> others = {r1, sub_n, pow_n, r2, add_n, sqrt_n};
    // The affine tail, each step only while y has that one reader: y * gamma, then + beta.
    auto absorb = [&](const char* op, int* operand) {
      const Node* n = node_if(sole_reader(y), op, 2);
      if (n == nullptr) return;
      const int w = other_operand(*n, y);
      if (w < 0 || !fits_last_axis(g.tensors[w], xi) || g.tensors[n->outputs[0]].shape != xi.shape) return;
      others.push_back(last);
      last = sole_reader(y);
      y = n->outputs[0];
      *operand = w;
    };
    absorb("Mul", &scale);
    absorb("Add", &bias);
    Node fused;
    fused.name = mean_node.name;
    fused.op = "LayerNormalization";
    fused.attrs.set("axis", int64_t{-1});
    fused.attrs.set("epsilon", static_cast<float>(*eps));
    if (scale < 0) scale = add_ones(fused.name + "_ones", xi.dtype, xi.shape.back());
    fused.inputs = {x, scale};
    if (bias >= 0) fused.inputs.push_back(bias);
    fused.outputs = {y};
    replace(last, std::move(fused), others);
  }

  // The producer of intermediate t when t is read only by node `reader` and the producer is `op`
  // with two inputs; nullptr otherwise. *n is its index.
  const Node* feeding(int t, int reader, const char* op, int* n) const {
    if (sole_reader(t) != reader) return nullptr;
    *n = g.tensors[t].producer;
    return node_if(*n, op, 2);
  }

  // The operand of binary node n beside a constant scalar `want`, or -1.
  int beside_constant(const Node& n, double want) const {
    for (int i = 0; i < 2; ++i) {
      if (is_constant(n.inputs[i], want)) return n.inputs[1 - i];
    }
    return -1;
  }

  // Erf's argument x / sqrt(2) or x * (1 / sqrt(2)): x, or -1. Adds its node to *nodes.
  int erf_argument(int e, std::vector<int>* nodes) const {
    const int s = g.nodes[e].inputs[0];
    int n = -1, x = -1;
    if (const Node* d = feeding(s, e, "Div", &n); d != nullptr && is_constant(d->inputs[1], std::sqrt(2.0))) {
      x = d->inputs[0];
    } else if (const Node* m = feeding(s, e, "Mul", &n)) {
      x = beside_constant(*m, std::sqrt(0.5));
    }
    if (x >= 0) nodes->push_back(n);
    return x;
  }

  // Tanh's argument sqrt(2 / pi) * (x + 0.044715 * x^3), x^3 as Pow(x, 3) or x * x * x (either
  // association): x, or -1. Adds its nodes to *nodes.
  int tanh_argument(int e, std::vector<int>* nodes) const {
    int scale_n = -1, add_n = -1, mul_n = -1, cube_n = -1, square_n = -1;
    const Node* scale = feeding(g.nodes[e].inputs[0], e, "Mul", &scale_n);
    const int v = scale != nullptr ? beside_constant(*scale, std::sqrt(2.0 / 3.14159265358979323846)) : -1;
    const Node* add = v >= 0 ? feeding(v, scale_n, "Add", &add_n) : nullptr;
    if (add == nullptr) return -1;
    for (int i = 0; i < 2; ++i) {
      const int x = add->inputs[1 - i];
      const Node* mul = feeding(add->inputs[i], add_n, "Mul", &mul_n);
      const int cube = mul != nullptr ? beside_constant(*mul, 0.044715) : -1;
      if (cube < 0) continue;
      std::vector<int> found = {scale_n, add_n, mul_n};
      if (const Node* pow = feeding(cube, mul_n, "Pow", &cube_n)) {
        const std::optional<double> k = constant_scalar(g.tensors[pow->inputs[1]]);
        if (pow->inputs[0] != x || !k || *k != 3.0) continue;
        found.push_back(cube_n);
      } else if (const Node* m3 = feeding(cube, mul_n, "Mul", &cube_n)) {
        // Mul(Mul(x, x), x) in either operand order.
        const int sq = m3->inputs[0] == x ? m3->inputs[1] : m3->inputs[1] == x ? m3->inputs[0] : -1;
        const Node* m2 = sq >= 0 ? feeding(sq, cube_n, "Mul", &square_n) : nullptr;
        if (m2 == nullptr || m2->inputs[0] != x || m2->inputs[1] != x) continue;
        found.insert(found.end(), {cube_n, square_n});
      } else {
        continue;
      }
      for (int n : found) {
        if (g.tensors[g.nodes[n].outputs[0]].shape != g.tensors[x].shape) return -1;
      }
      nodes->insert(nodes->end(), found.begin(), found.end());
      return x;
    }
    return -1;
  }

  // x * 0.5 * (1 + f(u)) with f = erf, u = x / sqrt(2) (Gelu "none"), or f = tanh, u = the tanh
  // approximation's argument (Gelu "tanh"), starting at the Erf / Tanh. The 0.5 scales x first
  // (Mul(Mul(x, 0.5), 1 + f)), the 1 + f (Mul(x, Mul(1 + f, 0.5))) or the product last
  // (Mul(Mul(x, 1 + f), 0.5)).
  void gelu(int e) {
    const Node* erf = node_if(e, "Erf", 1);
    const Node* tanh = erf == nullptr ? node_if(e, "Tanh", 1) : nullptr;
    if (erf == nullptr && tanh == nullptr) return;
    std::vector<int> others;
    const int x = erf != nullptr ? erf_argument(e, &others) : tanh_argument(e, &others);
    if (x < 0) return;
    const TensorInfo& xi = g.tensors[x];
    const Node& f = g.nodes[e];
    if (!fusable_type(xi.dtype) || g.tensors[f.inputs[0]].shape != xi.shape) return;
    auto same_shape = [&](const Node* n) { return n != nullptr && g.tensors[n->outputs[0]].shape == xi.shape; };

    const int add_n = sole_reader(f.outputs[0]);
    const Node* add = node_if(add_n, "Add", 2);
    if (!same_shape(add)) return;
    const int one = other_operand(*add, f.outputs[0]);
    if (one < 0 || !is_constant(one, 1.0)) return;
    const int a = add->outputs[0];
    const int m1_n = sole_reader(a);
    const Node* m1 = node_if(m1_n, "Mul", 2);
    if (!same_shape(m1)) return;
    const int o = other_operand(*m1, a);
    if (o < 0) return;
    others.insert(others.end(), {e, add_n});
    int last = -1;
    if (o == x || is_constant(o, 0.5)) {
      // Mul(x, 1 + f) then * 0.5, or Mul(1 + f, 0.5) then * x.
      const int m2_n = sole_reader(m1->outputs[0]);
      const Node* m2 = node_if(m2_n, "Mul", 2);
      if (!same_shape(m2)) return;
      const int o2 = other_operand(*m2, m1->outputs[0]);
      if (o2 < 0 || (o == x ? !is_constant(o2, 0.5) : o2 != x)) return;
      others.push_back(m1_n);
      last = m2_n;
    } else {
      // Mul(Mul(x, 0.5), 1 + f).
      int h_n = -1;
      const Node* h = feeding(o, m1_n, "Mul", &h_n);
      if (!same_shape(h)) return;
      const int half = other_operand(*h, x);
      if (half < 0 || !is_constant(half, 0.5)) return;
      others.push_back(h_n);
      last = m1_n;
    }
    Node fused;
    fused.name = f.name;
    fused.op = "Gelu";
    fused.inputs = {x};
    fused.outputs = {g.nodes[last].outputs[0]};
    fused.attrs.set("approximate", std::string(erf != nullptr ? "none" : "tanh"));
    replace(last, std::move(fused), others);
  }

  void compact() { drop_nodes(&g, dropped); }
};

}  // namespace

int fuse_transformer(Graph* g) {
  Fuser f(g);
  // Matches only look at nodes no earlier match dropped or replaced (the fused ops are neither
  // ReduceMean nor Erf, and sole_reader refuses dropped nodes), so one sweep per pattern is enough.
  for (size_t n = 0; n < g->nodes.size(); ++n) f.layer_norm(static_cast<int>(n));
  for (size_t n = 0; n < g->nodes.size(); ++n) f.gelu(static_cast<int>(n));
  if (f.removed > 0) f.compact();
  return f.removed;
}

}  // namespace arun::model::detail
