// The execution plan: streams for independent branches, the events that join them, and
// lifetime-based workspace offsets.
//
// Streams: nodes are visited in topological order. A node continues the stream of the first of its
// producers that is still that stream's last node (a chain stays on one stream); otherwise it
// starts a branch on a new stream while fewer than max_streams exist, or joins the least recently
// extended one. A producer on another stream is waited for through an event unless the order
// already guarantees it (vector clocks: per node, how far each stream has provably completed).
//
// Memory: the same clocks say whether every user of a tensor has finished before a node starts, in
// any legal interleaving of the streams. A new intermediate takes the lowest aligned offset that
// does not overlap a tensor still possibly in use when its producer runs.
#include <algorithm>

#include "arun/model/graph.hpp"

namespace arun::model {

namespace {

size_t align_up(size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

Plan make_plan(const Graph& graph, int max_streams) {
  const int n_nodes = static_cast<int>(graph.nodes.size());
  max_streams = std::max(1, max_streams);
  Plan p;
  p.stream_of.assign(n_nodes, 0);
  p.record.assign(n_nodes, false);
  p.waits.assign(n_nodes, {});

  // Stream assignment.
  std::vector<int> last_on;  // per stream: its last node so far
  for (int n = 0; n < n_nodes; ++n) {
    int chosen = -1, any_producer = -1;
    for (int t : graph.nodes[n].inputs) {
      if (t < 0) continue;
      const int prod = graph.tensors[t].producer;
      if (prod < 0) continue;
      if (any_producer < 0) any_producer = prod;
      if (last_on[p.stream_of[prod]] == prod) {
        chosen = p.stream_of[prod];
        break;
      }
    }
    if (chosen < 0) {
      if (static_cast<int>(last_on.size()) < max_streams) {
        chosen = static_cast<int>(last_on.size());
        last_on.push_back(-1);
      } else {
        chosen = static_cast<int>(std::min_element(last_on.begin(), last_on.end()) - last_on.begin());
      }
    }
    p.stream_of[n] = chosen;
    last_on[chosen] = n;
  }
  p.streams = std::max<int>(1, static_cast<int>(last_on.size()));
  const int S = p.streams;

  // Vector clocks: before[n][s] = how many nodes of stream s are complete when n starts.
  std::vector<int> pos(n_nodes);
  std::vector<int> count(S, 0);
  std::vector<std::vector<int>> before(n_nodes, std::vector<int>(S, 0)), after(n_nodes);
  std::vector<int> prev_on(S, -1);
  for (int n = 0; n < n_nodes; ++n) {
    const int s = p.stream_of[n];
    pos[n] = ++count[s];
    if (prev_on[s] >= 0) before[n] = after[prev_on[s]];
    for (int t : graph.nodes[n].inputs) {
      if (t < 0) continue;
      const int prod = graph.tensors[t].producer;
      if (prod < 0 || p.stream_of[prod] == s) continue;
      if (before[n][p.stream_of[prod]] >= pos[prod]) continue;  // already ordered
      p.waits[n].push_back(prod);
      p.record[prod] = true;
      for (int k = 0; k < S; ++k) before[n][k] = std::max(before[n][k], after[prod][k]);
    }
    after[n] = before[n];
    after[n][s] = pos[n];
    prev_on[s] = n;
  }
  // Joins: stream 0 (the caller's) waits for every other stream's last node it does not already follow.
  p.tails.assign(S, -1);
  const int last0 = prev_on[0];
  for (int s = 1; s < S; ++s) {
    const int tail = prev_on[s];
    if (tail < 0) continue;
    if (last0 >= 0 && after[last0][s] >= pos[tail]) continue;
    p.tails[s] = tail;
    p.record[tail] = true;
  }

  // a has completed before b starts, in every interleaving.
  auto happens_before = [&](int a, int b) { return a != b && before[b][p.stream_of[a]] >= pos[a]; };

  // Weights: packed in order.
  p.offset.assign(graph.tensors.size(), 0);
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    if (graph.tensors[t].kind != TensorKind::weight) continue;
    p.offset[t] = p.weight_size;
    p.weight_size += align_up(std::max<size_t>(graph.tensors[t].bytes, 1));
  }

  // Workspace: intermediates in the order they are produced, first fit among the live ones.
  struct Placed {
    size_t offset, size;
    int tensor;
  };
  std::vector<Placed> placed;
  std::vector<Placed> busy;
  for (int n = 0; n < n_nodes; ++n) {
    for (int t : graph.nodes[n].outputs) {
      if (t < 0 || graph.tensors[t].kind != TensorKind::intermediate) continue;
      const size_t size = align_up(std::max<size_t>(graph.tensors[t].bytes, 1));
      busy.clear();
      for (const Placed& b : placed) {
        const TensorInfo& other = graph.tensors[b.tensor];
        bool dead = happens_before(other.producer, n);
        for (int c : other.consumers) dead = dead && happens_before(c, n);
        if (!dead) busy.push_back(b);
      }
      std::sort(busy.begin(), busy.end(), [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
      size_t at = 0;
      for (const Placed& b : busy) {
        if (at + size <= b.offset) break;
        at = std::max(at, b.offset + b.size);
      }
      p.offset[t] = at;
      p.work_size = std::max(p.work_size, at + size);
      placed.push_back({at, size, t});
    }
  }
  return p;
}

}  // namespace arun::model
