// Folding at load (model/src/onnx_fold.cpp): the shape computations exporters write for dynamic
// reshapes become constants, so every tensor of an opset-13 model gets a static shape; what cannot be
// known at load stays a node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "onnx_builder.hpp"

namespace arun::model {
namespace {

using namespace testing;

bool has_op(const Graph& g, const std::string& op) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; });
}

const TensorInfo& tensor(const Graph& g, const std::string& name) {
  for (const TensorInfo& t : g.tensors) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("no tensor " + name);
}

// x [2, 6, 8] -> Reshape to [batch, seq, 2, 4] with batch and seq read through
// Shape -> Gather -> Unsqueeze -> Concat, as PyTorch exports a head split (opset 13).
onnx::ModelProto head_split(int64_t opset) {
  onnx::ModelProto m = new_model(opset);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 6, 8});
  add_value(g->mutable_output(), "y", {2, 6, 2, 4});
  add_int64s(g, "zero", {}, {0});
  add_int64s(g, "one", {}, {1});
  add_int64s(g, "axes0", {1}, {0});
  add_int64s(g, "heads", {2}, {2, 4});
  add_node(g, "Shape", "shape", {"x"}, "s");
  add_int(add_node(g, "Gather", "batch", {"s", "zero"}, "b"), "axis", 0);
  add_int(add_node(g, "Gather", "seq", {"s", "one"}, "l"), "axis", 0);
  if (opset >= 13) {
    add_node(g, "Unsqueeze", "ub", {"b", "axes0"}, "b1");
    add_node(g, "Unsqueeze", "ul", {"l", "axes0"}, "l1");
  } else {
    add_ints(add_node(g, "Unsqueeze", "ub", {"b"}, "b1"), "axes", {0});
    add_ints(add_node(g, "Unsqueeze", "ul", {"l"}, "l1"), "axes", {0});
  }
  add_int(add_node(g, "Concat", "cat", {"b1", "l1", "heads"}, "shape4"), "axis", 0);
  add_node(g, "Reshape", "split", {"x", "shape4"}, "r");
  add_node(g, "Relu", "act", {"r"}, "y");
  return m;
}

TEST(ImportFolding, ShapeChainsOfAnExportedHeadSplitBecomeConstants) {
  for (int64_t opset : {11, 13}) {
    Graph g;
    const Result r = import(head_split(opset), ImportLimits{}, &g);
    ASSERT_EQ(r.code, 0) << "opset " << opset << ": " << r.message;
    // Only the Reshape and the Relu are left to run; the Reshape's shape is a weight holding the values.
    ASSERT_EQ(g.nodes.size(), 2u) << "opset " << opset;
    EXPECT_FALSE(has_op(g, "Shape"));
    EXPECT_FALSE(has_op(g, "Concat"));
    EXPECT_EQ(tensor(g, "r").shape, (ops::Shape{2, 6, 2, 4}));
    const TensorInfo& shape = tensor(g, "shape4");
    EXPECT_EQ(shape.kind, TensorKind::weight);
    ASSERT_EQ(shape.data.size(), 4 * sizeof(int64_t));
    int64_t v[4];
    std::memcpy(v, shape.data.data(), sizeof v);
    EXPECT_EQ(std::vector<int64_t>(v, v + 4), (std::vector<int64_t>{2, 6, 2, 4}));
  }
}

TEST(ImportFolding, LayersWhoseShapesDependOnEarlierReshapesFoldInLaterPasses) {
  // Two head splits in a row: the second Shape reads the first Reshape's output, whose shape is
  // known only once the first chain has been folded.
  onnx::ModelProto m = head_split(13);
  auto* g = m.mutable_graph();
  g->mutable_node(g->node_size() - 1)->set_output(0, "y1");
  add_int64s(g, "flat", {3}, {0, 0, -1});
  add_node(g, "Reshape", "merge", {"y1", "flat"}, "merged");
  add_node(g, "Shape", "shape2", {"merged"}, "s2");
  add_int(add_node(g, "Gather", "seq2", {"s2", "one"}, "l2"), "axis", 0);
  add_node(g, "Unsqueeze", "ul2", {"l2", "axes0"}, "l2u");
  add_int64s(g, "rest", {2}, {2, 4});
  add_int64s(g, "batch2", {1}, {2});
  add_int(add_node(g, "Concat", "cat2", {"batch2", "l2u", "rest"}, "shape2_4"), "axis", 0);
  add_node(g, "Reshape", "split2", {"merged", "shape2_4"}, "y");
  Graph out;
  const Result r = import(m, ImportLimits{}, &out);
  ASSERT_EQ(r.code, 0) << r.message;
  EXPECT_FALSE(has_op(out, "Shape"));
  EXPECT_EQ(tensor(out, "y").shape, (ops::Shape{2, 6, 2, 4}));
}

TEST(ImportFolding, SliceWithANegativeStepFoldsAsOnnxSpecifies) {
  // Shape [2, 6, 8] sliced from the last entry backwards past the front: [8, 6, 2], the Reshape's target.
  onnx::ModelProto m = new_model(13);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 6, 8});
  add_value(g->mutable_output(), "y", {8, 6, 2});
  add_int64s(g, "starts", {1}, {-1});
  add_int64s(g, "ends", {1}, {INT64_MIN});
  add_int64s(g, "axes", {1}, {0});
  add_int64s(g, "steps", {1}, {-1});
  add_node(g, "Shape", "shape", {"x"}, "s");
  add_node(g, "Slice", "reverse", {"s", "starts", "ends", "axes", "steps"}, "target");
  add_node(g, "Reshape", "reshape", {"x", "target"}, "y");
  Graph out;
  const Result r = import(m, ImportLimits{}, &out);
  ASSERT_EQ(r.code, 0) << r.message;
  ASSERT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(tensor(out, "y").shape, (ops::Shape{8, 6, 2}));
}

TEST(ImportFolding, WhatDependsOnInputDataStaysANode) {
  // Shape folds, but a Gather of the input's values does not: only shapes are known at load.
  onnx::ModelProto m = new_model(13);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "ids", {1}, TensorProto::INT64);
  add_value(g->mutable_output(), "y", {1}, TensorProto::INT64);
  add_value(g->mutable_output(), "z", {1}, TensorProto::INT64);
  add_node(g, "Shape", "shape", {"ids"}, "s");
  add_node(g, "Add", "plus", {"ids", "s"}, "y");
  add_node(g, "Neg", "neg", {"s"}, "z");  // a graph output: computed by a node, never folded away
  Graph out;
  const Result r = import(m, ImportLimits{}, &out);
  ASSERT_EQ(r.code, 0) << r.message;
  EXPECT_TRUE(has_op(out, "Add"));
  EXPECT_TRUE(has_op(out, "Neg"));
  EXPECT_FALSE(has_op(out, "Shape"));
}

TEST(ImportFolding, AFoldedReshapeShapeIsCheckedLikeAConstantOne) {
  // The folded shape holds -2: refused as the same value in an initializer would be.
  onnx::ModelProto m = head_split(13);
  auto* g = m.mutable_graph();
  for (auto& t : *g->mutable_initializer()) {
    if (t.name() == "heads") t.set_int64_data(0, -2);
  }
  const Result r = import(m);
  EXPECT_EQ(r.code, ACL_ERROR_PARSE_MODEL) << r.message;
  EXPECT_NE(r.message.find("holds -2"), std::string::npos) << r.message;
}

// x [1, 2, 3, 3] -> Conv (W [2, 2, 1, 1], no bias) -> c -> BatchNormalization -> y; with
// `second_reader`, c is also a graph output (so the BatchNormalization cannot be folded).
onnx::ModelProto conv_bn(bool second_reader) {
  onnx::ModelProto m = new_model(9);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 2, 3, 3});
  add_value(g->mutable_output(), "y", {1, 2, 3, 3});
  if (second_reader) add_value(g->mutable_output(), "c", {1, 2, 3, 3});
  TensorProto* w = add_init(g, "w", TensorProto::FLOAT, {2, 2, 1, 1});
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) w->add_float_data(v);
  const std::vector<std::pair<const char*, std::vector<float>>> bn = {
      {"scale", {2.0f, 0.5f}}, {"beta", {1.0f, -1.0f}}, {"mean", {0.5f, 2.0f}}, {"var", {3.0f, 0.0f}}};
  for (const auto& [name, values] : bn) {
    TensorProto* t = add_init(g, name, TensorProto::FLOAT, {2});
    for (float v : values) t->add_float_data(v);
  }
  add_node(g, "Conv", "conv", {"x", "w"}, "c");
  auto* n = add_node(g, "BatchNormalization", "bn", {"c", "scale", "beta", "mean", "var"}, "y");
  auto* eps = n->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(1.0f);
  return m;
}

std::vector<float> floats(const TensorInfo& t) {
  std::vector<float> v(t.data.size() / sizeof(float));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

TEST(ImportFolding, ABatchNormalizationAfterAConvFoldsIntoItsWeights) {
  Graph g;
  const Result r = import(conv_bn(false), ImportLimits{}, &g);
  ASSERT_EQ(r.code, 0) << r.message;
  ASSERT_EQ(g.nodes.size(), 1u);
  ASSERT_EQ(g.nodes[0].op, "Conv");
  ASSERT_EQ(g.nodes[0].inputs.size(), 3u);
  EXPECT_EQ(g.tensors[g.nodes[0].outputs[0]].name, "y");
  // k = scale / sqrt(var + eps): channel 0: 2 / 2 = 1; channel 1: 0.5 / 1 = 0.5.
  EXPECT_EQ(floats(g.tensors[g.nodes[0].inputs[1]]), (std::vector<float>{1.0f, 2.0f, 1.5f, 2.0f}));
  // bias = (0 - mean) * k + beta: channel 0: -0.5 + 1; channel 1: -1 - 1.
  EXPECT_EQ(floats(g.tensors[g.nodes[0].inputs[2]]), (std::vector<float>{0.5f, -2.0f}));
}

TEST(ImportFolding, AConvOutputReadElsewhereKeepsItsBatchNormalization) {
  Graph g;
  const Result r = import(conv_bn(true), ImportLimits{}, &g);
  ASSERT_EQ(r.code, 0) << r.message;
  EXPECT_TRUE(has_op(g, "BatchNormalization"));
  EXPECT_EQ(floats(tensor(g, "w")), (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
}

}  // namespace
}  // namespace arun::model
