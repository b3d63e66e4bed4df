#include "graph_edit.hpp"

namespace arun::model::detail {

void drop_nodes(Graph* g, const std::vector<bool>& dropped) {
  std::vector<Node> kept;
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    if (!dropped[n]) kept.push_back(std::move(g->nodes[n]));
  }
  g->nodes = std::move(kept);
  std::vector<bool> used(g->tensors.size(), false);
  for (const Node& n : g->nodes) {
    for (int t : n.inputs) {
      if (t >= 0) used[t] = true;
    }
    for (int t : n.outputs) {
      if (t >= 0) used[t] = true;
    }
  }
  std::vector<int> index(g->tensors.size(), -1);
  std::vector<TensorInfo> tensors;
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    if (!used[t] && g->tensors[t].kind == TensorKind::intermediate) continue;
    index[t] = static_cast<int>(tensors.size());
    tensors.push_back(std::move(g->tensors[t]));
  }
  g->tensors = std::move(tensors);
  auto remap = [&](std::vector<int>& v) {
    for (int& t : v) {
      if (t >= 0) t = index[t];
    }
  };
  remap(g->inputs);
  remap(g->outputs);
  for (TensorInfo& t : g->tensors) {
    t.producer = -1;
    t.consumers.clear();
  }
  for (size_t n = 0; n < g->nodes.size(); ++n) {
    remap(g->nodes[n].inputs);
    remap(g->nodes[n].outputs);
    for (int t : g->nodes[n].outputs) {
      if (t >= 0) g->tensors[t].producer = static_cast<int>(n);
    }
    for (int t : g->nodes[n].inputs) {
      if (t < 0) continue;
      auto& c = g->tensors[t].consumers;
      if (c.empty() || c.back() != static_cast<int>(n)) c.push_back(static_cast<int>(n));
    }
  }
}

}  // namespace arun::model::detail
