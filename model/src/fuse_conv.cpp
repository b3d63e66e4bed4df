// Conv + activation / residual Add fusion at load.
//
// Every node is a task on the simulated device and every Relu / Clip / Add one more pass over an
// activation that the convolution has just written: in MobileNetV2, SqueezeNet or ResNet they are
// a third to a half of the nodes. ONNX Runtime fuses them into its convolutions; so does this pass,
// into FusedConv, which applies them as oneDNN post-ops (sum, eltwise) or right after the sgemm of
// each output tile. It runs on the imported graph (after ONNX shape inference, which knows no
// FusedConv), so every tensor's shape and type are known.
#include "fuse_conv.hpp"

#include "graph_edit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace arun::model::detail {

namespace {

// A weight's value as one float, when it is a scalar of the activation's type.
std::optional<float> scalar_of(const TensorInfo& t, aclDataType type) {
  if (t.kind != TensorKind::weight || t.dtype != type || ops::numel(t.shape) != 1) return std::nullopt;
  if (type == ACL_FLOAT && t.data.size() == sizeof(float)) {
    float v;
    std::memcpy(&v, t.data.data(), sizeof v);
    return v;
  }
  if (type == ACL_FLOAT16 && t.data.size() == sizeof(uint16_t)) {
    uint16_t h;
    std::memcpy(&h, t.data.data(), sizeof h);
    return ops::half_to_float(h);
  }
  return std::nullopt;
}

float float_attr(const Node& n, const char* name, float def) {
  const ops::AttrValue* v = n.attrs.find(name);
  if (v == nullptr) return def;
  if (const float* f = std::get_if<float>(v)) return *f;
  return std::numeric_limits<float>::quiet_NaN();  // not a float: the caller refuses NaN
}

// The activation `act` reading a tensor of `type` as FusedConv's attributes; false when it cannot
// fuse (a Clip bound computed at run time, or bounds FusedConv does not take).
bool activation_of(const Graph& g, const Node& act, aclDataType type, std::string* name, std::vector<float>* params) {
  *name = act.op;
  params->clear();
  if (act.op == "Relu") return act.inputs.size() == 1;
  if (act.op == "LeakyRelu") {
    const float alpha = float_attr(act, "alpha", 0.01f);
    params->push_back(alpha);
    return act.inputs.size() == 1 && !std::isnan(alpha);
  }
  if (act.op != "Clip") return false;
  // Opset < 11: attributes; later: optional scalar inputs, which must be constants here. A node
  // that mixes the two is left to the Clip kernel, which refuses it.
  int64_t opset = 13;
  if (const ops::AttrValue* v = act.attrs.find("opset"); v != nullptr && std::holds_alternative<int64_t>(*v)) {
    opset = std::get<int64_t>(*v);
  }
  const bool has_attrs = act.attrs.find("min") != nullptr || act.attrs.find("max") != nullptr;
  if (opset < 11 ? act.inputs.size() != 1 : has_attrs) return false;
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  lo = float_attr(act, "min", lo);
  hi = float_attr(act, "max", hi);
  for (size_t i = 1; i < act.inputs.size(); ++i) {
    if (act.inputs[i] < 0) continue;
    const std::optional<float> v = scalar_of(g.tensors[act.inputs[i]], type);
    if (!v) return false;
    (i == 1 ? lo : hi) = *v;
  }
  // NumPy's clip gives max where min > max; FusedConv only takes ordered bounds (NaN fails too).
  if (!(lo <= hi)) return false;
  params->assign({lo, hi});
  return true;
}

// BatchNormalization -> Relu (pre-activation blocks: DenseNet, ResNet v2) into the normalisation's
// one pass over the tensor (its fused_relu attribute). Same single-reader rule as the convolutions.
bool fuse_norm_relu(Graph* g, const std::vector<int>& reads, size_t i, std::vector<bool>* dropped) {
  std::vector<Node>& nodes = g->nodes;
  Node& norm = nodes[i];
  if (norm.outputs.size() != 1 || norm.outputs[0] < 0 || norm.attrs.find("fused_relu") != nullptr) return false;
  const int t = norm.outputs[0];
  TensorInfo& y = g->tensors[t];
  if (y.kind != TensorKind::intermediate || reads[t] != 1 || y.consumers.size() != 1 || !fusable_type(y.dtype)) {
    return false;
  }
  const size_t j = static_cast<size_t>(y.consumers[0]);
  Node& relu = nodes[j];
  if (relu.op != "Relu" || relu.inputs.size() != 1 || relu.outputs.size() != 1 || relu.outputs[0] < 0) return false;
  norm.attrs.set("fused_relu", int64_t{1});
  norm.outputs[0] = relu.outputs[0];
  relu = std::move(norm);
  (*dropped)[i] = true;
  y.producer = -1;
  y.consumers.clear();
  g->tensors[relu.outputs[0]].producer = static_cast<int>(j);
  return true;
}

}  // namespace

bool conv_fusion_enabled() {
  const char* v = std::getenv("ARUN_MODEL_FUSE");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

int fuse_convs(Graph* g) {
  std::vector<Node>& nodes = g->nodes;
  // Node inputs reading each tensor (consumers counts nodes once; Add(c, c) reads c twice).
  std::vector<int> reads(g->tensors.size(), 0);
  for (const Node& n : nodes) {
    for (int t : n.inputs) {
      if (t >= 0) ++reads[t];
    }
  }
  std::vector<bool> dropped(nodes.size(), false);
  int removed = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].op == "BatchNormalization") {
      if (fuse_norm_relu(g, reads, i, &dropped)) ++removed;
      continue;
    }
    if (nodes[i].op != "Conv" || nodes[i].outputs.size() != 1 || nodes[i].inputs.size() > 3) continue;
    size_t at = i;  // where the fused node is now
    bool has_sum = false, has_act = false;
    for (;;) {
      Node& conv = nodes[at];
      const int t = conv.outputs[0];
      const TensorInfo& c = g->tensors[t];
      if (c.kind != TensorKind::intermediate || reads[t] != 1 || c.consumers.size() != 1 || !fusable_type(c.dtype)) {
        break;
      }
      const size_t j = static_cast<size_t>(c.consumers[0]);
      if (dropped[j]) break;  // an Add already fused into the other operand's convolution
      Node& next = nodes[j];
      if (next.outputs.size() != 1 || next.outputs[0] < 0) break;
      std::string act;
      std::vector<float> params;
      if (next.op == "Add" && !has_sum && !has_act && next.inputs.size() == 2) {
        // The other operand, added as it is: only the same shape and type (no broadcast).
        const int z = next.inputs[0] == t ? next.inputs[1] : next.inputs[0];
        if (z < 0 || g->tensors[z].shape != c.shape || g->tensors[z].dtype != c.dtype) break;
        while (conv.inputs.size() < 3) conv.inputs.push_back(-1);  // B omitted
        conv.inputs.push_back(z);
        has_sum = true;
      } else if (!has_act && next.inputs[0] == t && activation_of(*g, next, c.dtype, &act, &params)) {
        conv.attrs.set("activation", act);
        conv.attrs.set("activation_params", params);
        has_act = true;
      } else {
        break;
      }
      // The fused node replaces `next` in the order (all its inputs are ready there) and writes
      // next's output; conv's output is gone.
      conv.op = "FusedConv";
      conv.outputs[0] = next.outputs[0];
      next = std::move(conv);
      dropped[at] = true;
      dropped[j] = false;
      at = j;
      g->tensors[t].producer = -1;
      g->tensors[t].consumers.clear();
      g->tensors[next.outputs[0]].producer = static_cast<int>(j);
      ++removed;
    }
  }
  if (removed == 0) return 0;

  drop_nodes(g, dropped);
  return removed;
}

}  // namespace arun::model::detail
