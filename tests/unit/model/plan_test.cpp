// The execution plan without a device: stream assignment for independent branches, the events
// that join them, and workspace offsets. Memory safety is checked against an independent
// happens-before relation: reachability in the DAG of stream order plus event waits.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/model/graph.hpp"

namespace arun::model {
namespace {

// Builds graphs by hand: tensor names map to indices, nodes must be added in topological order.
struct Builder {
  Graph g;
  int tensor(const std::string& name, TensorKind kind, size_t bytes) {
    TensorInfo t;
    t.name = name;
    t.kind = kind;
    t.dtype = ACL_FLOAT;
    t.shape = {static_cast<int64_t>(bytes / 4)};
    t.bytes = bytes;
    g.tensors.push_back(t);
    const int i = static_cast<int>(g.tensors.size()) - 1;
    if (kind == TensorKind::input) g.inputs.push_back(i);
    if (kind == TensorKind::output) g.outputs.push_back(i);
    return i;
  }
  void node(const std::string& op, std::vector<int> in, std::vector<int> out) {
    const int n = static_cast<int>(g.nodes.size());
    Node node;
    node.name = op + std::to_string(n);
    node.op = op;
    node.inputs = in;
    node.outputs = out;
    for (int t : in) {
      auto& c = g.tensors[t].consumers;
      if (c.empty() || c.back() != n) c.push_back(n);
    }
    for (int t : out) g.tensors[t].producer = n;
    g.nodes.push_back(node);
  }
};

// reach[a][b]: a completes before b starts (a path of stream-order or wait edges from a to b).
std::vector<std::vector<bool>> reachability(const Graph& g, const Plan& p) {
  const size_t n = g.nodes.size();
  std::vector<std::vector<int>> succ(n);
  std::vector<int> last(p.streams, -1);
  for (size_t i = 0; i < n; ++i) {
    const int s = p.stream_of[i];
    if (last[s] >= 0) succ[last[s]].push_back(static_cast<int>(i));
    last[s] = static_cast<int>(i);
    for (int w : p.waits[i]) succ[w].push_back(static_cast<int>(i));
  }
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (size_t a = n; a-- > 0;) {  // successors have larger indices (topological order)
    for (int b : succ[a]) {
      reach[a][b] = true;
      for (size_t c = 0; c < n; ++c) {
        if (reach[b][c]) reach[a][c] = true;
      }
    }
  }
  return reach;
}

// Every producer is ordered before its consumers, and intermediates that may be live at the same
// time never share bytes; everything fits in work_size.
void expectSound(const Graph& g, const Plan& p) {
  const auto reach = reachability(g, p);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (int t : g.nodes[n].inputs) {
      const int prod = t >= 0 ? g.tensors[t].producer : -1;
      if (prod >= 0) {
        EXPECT_TRUE(reach[prod][n]) << g.nodes[prod].name << " -> " << g.nodes[n].name;
      }
    }
  }
  // Stream 0's tail must follow every node (the caller's stream sees the whole execution).
  int last0 = -1;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (p.stream_of[n] == 0) last0 = static_cast<int>(n);
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (static_cast<int>(n) == last0) continue;
    const int tail = p.tails[p.stream_of[n]];
    EXPECT_TRUE(reach[n][last0] || (tail >= 0 && (tail == static_cast<int>(n) || reach[n][tail])))
        << g.nodes[n].name << " is not joined into the caller's stream";
  }
  auto users = [&](int t) {
    std::vector<int> u = g.tensors[t].consumers;
    u.push_back(g.tensors[t].producer);
    return u;
  };
  auto dead_before = [&](int t, int node) {
    for (int u : users(t)) {
      if (!reach[u][node]) return false;
    }
    return true;
  };
  for (size_t a = 0; a < g.tensors.size(); ++a) {
    if (g.tensors[a].kind != TensorKind::intermediate) continue;
    EXPECT_LE(p.offset[a] + g.tensors[a].bytes, p.work_size);
    EXPECT_EQ(0u, p.offset[a] % kAlignment);
    for (size_t b = a + 1; b < g.tensors.size(); ++b) {
      if (g.tensors[b].kind != TensorKind::intermediate) continue;
      const bool disjoint = p.offset[a] + g.tensors[a].bytes <= p.offset[b] ||
                            p.offset[b] + g.tensors[b].bytes <= p.offset[a];
      if (disjoint) continue;
      const int pa = g.tensors[a].producer, pb = g.tensors[b].producer;
      EXPECT_TRUE(dead_before(static_cast<int>(a), pb) || dead_before(static_cast<int>(b), pa))
          << g.tensors[a].name << " and " << g.tensors[b].name << " share bytes while both may be live";
    }
  }
}

TEST(ModelPlan, ChainReusesTwoBuffers) {
  Builder b;
  int x = b.tensor("x", TensorKind::input, 4096);
  int prev = x;
  for (int i = 0; i < 6; ++i) {
    const int t = b.tensor("t" + std::to_string(i), i == 5 ? TensorKind::output : TensorKind::intermediate, 4096);
    b.node("Relu", {prev}, {t});
    prev = t;
  }
  const Plan p = make_plan(b.g, 4);
  EXPECT_EQ(1, p.streams);
  EXPECT_EQ(2u * 4096, p.work_size);  // ping-pong: five intermediates in two slots
  for (size_t n = 0; n < b.g.nodes.size(); ++n) EXPECT_TRUE(p.waits[n].empty());
  expectSound(b.g, p);
}

TEST(ModelPlan, TwoBranchesGetTwoStreamsJoinedByAnEvent) {
  Builder b;
  int x = b.tensor("x", TensorKind::input, 1024);
  int a1 = b.tensor("a1", TensorKind::intermediate, 1024), a2 = b.tensor("a2", TensorKind::intermediate, 1024);
  int b1 = b.tensor("b1", TensorKind::intermediate, 1024), b2 = b.tensor("b2", TensorKind::intermediate, 1024);
  int y = b.tensor("y", TensorKind::output, 1024);
  b.node("Relu", {x}, {a1});
  b.node("Tanh", {a1}, {a2});
  b.node("Neg", {x}, {b1});
  b.node("Sigmoid", {b1}, {b2});
  b.node("Add", {a2, b2}, {y});
  const Plan p = make_plan(b.g, 4);
  EXPECT_EQ(2, p.streams);
  EXPECT_EQ((std::vector<int>{0, 0, 1, 1, 0}), p.stream_of);
  EXPECT_EQ((std::vector<int>{3}), p.waits[4]);  // the join waits for the other branch's end
  EXPECT_TRUE(p.record[3]);
  EXPECT_EQ(-1, p.tails[1]);  // already joined through that wait
  // The branches run concurrently: all four intermediates are possibly live together except
  // a1 after Tanh and b1 after Sigmoid, which nothing orders against the other branch.
  expectSound(b.g, p);
  EXPECT_EQ(4u * 1024, p.work_size);

  const Plan serial = make_plan(b.g, 1);
  EXPECT_EQ(1, serial.streams);
  for (size_t n = 0; n < b.g.nodes.size(); ++n) {
    EXPECT_EQ(0, serial.stream_of[n]);
    EXPECT_TRUE(serial.waits[n].empty());
  }
  expectSound(b.g, serial);
  EXPECT_LT(serial.work_size, p.work_size);  // in order, dead branch tensors are reused
}

TEST(ModelPlan, DanglingBranchIsJoinedAtTheEnd) {
  // A branch whose result is a second graph output: nothing on stream 0 waits for it, so the
  // plan joins its tail.
  Builder b;
  int x = b.tensor("x", TensorKind::input, 256);
  int a = b.tensor("a", TensorKind::output, 256), c = b.tensor("c", TensorKind::output, 256);
  b.node("Relu", {x}, {a});
  b.node("Neg", {x}, {c});
  const Plan p = make_plan(b.g, 4);
  EXPECT_EQ(2, p.streams);
  EXPECT_EQ(1, p.tails[1]);
  EXPECT_TRUE(p.record[1]);
  expectSound(b.g, p);
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ModelPlan, TestModelsImportAndPlanSoundly) {
  for (const char* stem : {"mlp_b1", "mlp_b32", "cnn_b1", "cnn_b32", "transformer_b1", "transformer_b32"}) {
    SCOPED_TRACE(stem);
    const std::string image = readAll(std::string(ARUN_TEST_MODELS_DIR) + "/" + stem + ".onnx");
    ASSERT_FALSE(image.empty());
    Graph g;
    Status st = import_onnx(image.data(), image.size(), &g);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(1u, g.inputs.size());
    ASSERT_EQ(1u, g.outputs.size());
    for (int streams : {1, 4}) {
      const Plan p = make_plan(g, streams);
      expectSound(g, p);
      if (std::string(stem).rfind("transformer", 0) == 0 && streams == 4) {
        EXPECT_GE(p.streams, 3);  // at least the Q, K and V projections are independent
      } else if (streams == 4) {
        EXPECT_EQ(1, p.streams);  // MLP and CNN are chains
      }
    }
  }
}

TEST(ModelImport, ShapesAndOrderOfTheTransformer) {
  const std::string image = readAll(std::string(ARUN_TEST_MODELS_DIR) + "/transformer_b1.onnx");
  Graph g;
  ASSERT_TRUE(import_onnx(image.data(), image.size(), &g).ok());
  auto find = [&](const std::string& name) {
    for (const TensorInfo& t : g.tensors) {
      if (t.name == name) return &t;
    }
    return static_cast<const TensorInfo*>(nullptr);
  };
  ASSERT_NE(nullptr, find("q_t"));
  EXPECT_EQ((ops::Shape{1, 4, 128, 64}), find("q_t")->shape);  // Reshape with 0 + Transpose, inferred
  EXPECT_EQ((ops::Shape{1, 4, 64, 128}), find("k_t")->shape);
  EXPECT_EQ(TensorKind::weight, find("wq")->kind);
  EXPECT_EQ(256u * 256 * 4, find("wq")->data.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (int t : g.nodes[n].inputs) {
      if (t >= 0 && g.tensors[t].producer >= 0) {
        EXPECT_LT(g.tensors[t].producer, static_cast<int>(n));
      }
    }
  }
  // Garbage is a parse error, not a crash.
  const std::string junk(100, '\x07');
  Status st = import_onnx(junk.data(), junk.size(), &g);
  EXPECT_EQ(ACL_ERROR_PARSE_MODEL, st.value()) << st.message();
}

}  // namespace
}  // namespace arun::model
