// Conv fusion at load (model/src/fuse_conv.cpp): which links become one FusedConv node and which
// must stay apart (a second reader of the convolution's output, a graph output, a Clip bound known
// only at run time, a broadcasting Add). Import only, no device; the results of fused and unfused
// models are compared in fuse_conv_run_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "onnx_builder.hpp"

namespace arun::model {
namespace {

using namespace testing;

// x [1, 2, 4, 4] -> Conv (W [2, 2, 3, 3], pads 1, bias) -> c [1, 2, 4, 4], the rest added by each test.
onnx::ModelProto conv_model(int64_t opset = 13) {
  onnx::ModelProto m = new_model(opset);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 2, 4, 4});
  TensorProto* w = add_init(g, "w", TensorProto::FLOAT, {2, 2, 3, 3});
  for (int i = 0; i < 36; ++i) w->add_float_data(0.1f * static_cast<float>(i % 7) - 0.3f);
  TensorProto* b = add_init(g, "b", TensorProto::FLOAT, {2});
  b->add_float_data(0.5f);
  b->add_float_data(-0.5f);
  add_ints(add_node(g, "Conv", "conv", {"x", "w", "b"}, "c"), "pads", {1, 1, 1, 1});
  return m;
}

TensorProto* add_scalar(onnx::GraphProto* g, const std::string& name, float v) {
  TensorProto* t = add_init(g, name, TensorProto::FLOAT, {});
  t->add_float_data(v);
  return t;
}

std::string act_of(const Node& n) {
  const ops::AttrValue* v = n.attrs.find("activation");
  return v != nullptr ? std::get<std::string>(*v) : "";
}

std::vector<float> params_of(const Node& n) {
  const ops::AttrValue* v = n.attrs.find("activation_params");
  return v != nullptr ? std::get<std::vector<float>>(*v) : std::vector<float>{};
}

const std::string& name_of(const Graph& g, int t) {
  return g.tensors[t].name;
}

TEST(FuseConv, ReluAfterAConvBecomesOneNode) {
  onnx::ModelProto m = conv_model();
  add_node(m.mutable_graph(), "Relu", "relu", {"c"}, "y");
  add_value(m.mutable_graph()->mutable_output(), "y", {1, 2, 4, 4});
  const Graph g = load(m);
  ASSERT_EQ(ops_of(g), std::vector<std::string>{"FusedConv"});
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.name, "conv");
  EXPECT_EQ(act_of(n), "Relu");
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(name_of(g, n.outputs[0]), "y");
  // The dropped intermediate is gone; the survivors know their producer and readers.
  for (const TensorInfo& t : g.tensors) EXPECT_NE(t.name, "c");
  EXPECT_EQ(g.tensors[g.outputs[0]].producer, 0);
  EXPECT_EQ(g.tensors[g.inputs[0]].consumers, std::vector<int>{0});
}

TEST(FuseConv, ClipWithConstantBoundsAndLeakyReluFuse) {
  for (int64_t opset : {9, 13}) {
    onnx::ModelProto m = conv_model(opset);
    auto* g = m.mutable_graph();
    onnx::NodeProto* clip = nullptr;
    if (opset >= 11) {
      add_scalar(g, "lo", 0.0f);
      add_scalar(g, "hi", 6.0f);
      clip = add_node(g, "Clip", "clip", {"c", "lo", "hi"}, "r");
    } else {
      clip = add_node(g, "Clip", "clip", {"c"}, "r");
      for (auto [name, v] : {std::pair{"min", 0.0f}, std::pair{"max", 6.0f}}) {
        auto* a = clip->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(v);
      }
    }
    // A second convolution reads the Clip's output through a LeakyRelu.
    add_ints(add_node(g, "Conv", "conv2", {"r", "w"}, "c2"), "pads", {1, 1, 1, 1});
    auto* a = add_node(g, "LeakyRelu", "leaky", {"c2"}, "y")->add_attribute();
    a->set_name("alpha");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(0.25f);
    add_value(g->mutable_output(), "y", {1, 2, 4, 4});
    const Graph gr = load(m);
    ASSERT_EQ(ops_of(gr), (std::vector<std::string>{"FusedConv", "FusedConv"})) << "opset " << opset;
    EXPECT_EQ(act_of(gr.nodes[0]), "Clip");
    EXPECT_EQ(params_of(gr.nodes[0]), (std::vector<float>{0.0f, 6.0f}));
    EXPECT_EQ(act_of(gr.nodes[1]), "LeakyRelu");
    EXPECT_EQ(params_of(gr.nodes[1]), std::vector<float>{0.25f});
    EXPECT_EQ(gr.nodes[1].inputs[0], gr.nodes[0].outputs[0]);
  }
}

TEST(FuseConv, ResidualAddThenReluBecomesOneNodeReadingTheOtherOperand) {
  onnx::ModelProto m = conv_model();
  auto* g = m.mutable_graph();
  add_node(g, "Add", "add", {"x", "c"}, "s");  // the convolution is the second operand
  add_node(g, "Relu", "relu", {"s"}, "y");
  add_value(g->mutable_output(), "y", {1, 2, 4, 4});
  const Graph gr = load(m);
  ASSERT_EQ(ops_of(gr), std::vector<std::string>{"FusedConv"});
  const Node& n = gr.nodes[0];
  ASSERT_EQ(n.inputs.size(), 4u);
  EXPECT_EQ(name_of(gr, n.inputs[3]), "x");
  EXPECT_EQ(act_of(n), "Relu");
  EXPECT_EQ(name_of(gr, n.outputs[0]), "y");
}

TEST(FuseConv, ResidualAddOfTwoConvolutionsFusesIntoOne) {
  // ResNet's projection block: Add(conv, conv2) -> Relu; one of them takes the Add, the other stays.
  onnx::ModelProto m = conv_model();
  auto* g = m.mutable_graph();
  add_ints(add_node(g, "Conv", "conv2", {"x", "w"}, "c2"), "pads", {1, 1, 1, 1});
  add_node(g, "Add", "add", {"c", "c2"}, "s");
  add_node(g, "Relu", "relu", {"s"}, "y");
  add_value(g->mutable_output(), "y", {1, 2, 4, 4});
  const Graph gr = load(m);
  ASSERT_EQ(ops_of(gr), (std::vector<std::string>{"Conv", "FusedConv"}));
  EXPECT_EQ(gr.nodes[1].inputs[3], gr.nodes[0].outputs[0]);
  EXPECT_EQ(act_of(gr.nodes[1]), "Relu");
}

TEST(FuseConv, AConvOutputWithTwoReadersStaysApart) {
  onnx::ModelProto m = conv_model();
  auto* g = m.mutable_graph();
  add_node(g, "Relu", "relu", {"c"}, "r");
  add_node(g, "Add", "add", {"r", "c"}, "y");  // c read twice
  add_value(g->mutable_output(), "y", {1, 2, 4, 4});
  EXPECT_EQ(ops_of(load(m)), (std::vector<std::string>{"Conv", "Relu", "Add"}));

  onnx::ModelProto twice = conv_model();
  add_node(twice.mutable_graph(), "Add", "add", {"c", "c"}, "y");  // one node, both operands
  add_value(twice.mutable_graph()->mutable_output(), "y", {1, 2, 4, 4});
  EXPECT_EQ(ops_of(load(twice)), (std::vector<std::string>{"Conv", "Add"}));
}

TEST(FuseConv, AConvOutputThatIsAGraphOutputStaysApart) {
  onnx::ModelProto m = conv_model();
  auto* g = m.mutable_graph();
  add_node(g, "Relu", "relu", {"c"}, "y");
  add_value(g->mutable_output(), "c", {1, 2, 4, 4});
  add_value(g->mutable_output(), "y", {1, 2, 4, 4});
  EXPECT_EQ(ops_of(load(m)), (std::vector<std::string>{"Conv", "Relu"}));
}

TEST(FuseConv, AClipBoundKnownOnlyAtRunTimeStaysApart) {
  onnx::ModelProto m = conv_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "hi", {});
  g->mutable_input(g->input_size() - 1)->mutable_type()->mutable_tensor_type()->mutable_shape();  // a scalar
  add_scalar(g, "lo", 0.0f);
  add_node(g, "Clip", "clip", {"c", "lo", "hi"}, "y");
  add_value(g->mutable_output(), "y", {1, 2, 4, 4});
  EXPECT_EQ(ops_of(load(m)), (std::vector<std::string>{"Conv", "Clip"}));
}

TEST(FuseConv, ABroadcastingAddStaysApart) {
  onnx::ModelProto m = conv_model();
  auto* g = m.mutable_graph();
  TensorProto* k = add_init(g, "k", TensorProto::FLOAT, {1, 2, 1, 1});
  k->add_float_data(1.0f);
  k->add_float_data(2.0f);
  add_node(g, "Add", "add", {"c", "k"}, "y");
  add_value(g->mutable_output(), "y", {1, 2, 4, 4});
  EXPECT_EQ(ops_of(load(m)), (std::vector<std::string>{"Conv", "Add"}));
}

TEST(FuseConv, TurnedOffByTheEnvironment) {
  onnx::ModelProto m = conv_model();
  add_node(m.mutable_graph(), "Relu", "relu", {"c"}, "y");
  add_value(m.mutable_graph()->mutable_output(), "y", {1, 2, 4, 4});
  ::setenv("ARUN_MODEL_FUSE", "0", 1);
  const Graph g = load(m);
  ::unsetenv("ARUN_MODEL_FUSE");
  EXPECT_EQ(ops_of(g), (std::vector<std::string>{"Conv", "Relu"}));
}

// x [1, 2, 3, 3] -> BatchNormalization (inference) -> n; the readers added by each test.
onnx::ModelProto norm_model() {
  onnx::ModelProto m = new_model(13);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 2, 3, 3});
  for (const char* name : {"scale", "bias", "mean", "var"}) {
    TensorProto* t = add_init(g, name, TensorProto::FLOAT, {2});
    t->add_float_data(0.5f);
    t->add_float_data(1.5f);
  }
  add_node(g, "BatchNormalization", "bn", {"x", "scale", "bias", "mean", "var"}, "n");
  return m;
}

int64_t fused_relu_of(const Node& n) {
  const ops::AttrValue* v = n.attrs.find("fused_relu");
  return v != nullptr ? std::get<int64_t>(*v) : 0;
}

TEST(FuseNorm, ReluAfterABatchNormRunsInItsPass) {
  onnx::ModelProto m = norm_model();
  add_node(m.mutable_graph(), "Relu", "relu", {"n"}, "y");
  add_value(m.mutable_graph()->mutable_output(), "y", {1, 2, 3, 3});
  const Graph g = load(m);
  ASSERT_EQ(ops_of(g), std::vector<std::string>{"BatchNormalization"});
  EXPECT_EQ(fused_relu_of(g.nodes[0]), 1);
  EXPECT_EQ(name_of(g, g.nodes[0].outputs[0]), "y");
  for (const TensorInfo& t : g.tensors) EXPECT_NE(t.name, "n");
}

TEST(FuseNorm, ANormOutputWithAnotherReaderOrAGraphOutputStaysApart) {
  onnx::ModelProto two = norm_model();
  add_node(two.mutable_graph(), "Relu", "relu", {"n"}, "y");
  add_node(two.mutable_graph(), "Neg", "neg", {"n"}, "z");
  add_value(two.mutable_graph()->mutable_output(), "y", {1, 2, 3, 3});
  add_value(two.mutable_graph()->mutable_output(), "z", {1, 2, 3, 3});
  Graph g = load(two);
  EXPECT_EQ(ops_of(g), (std::vector<std::string>{"BatchNormalization", "Relu", "Neg"}));
  EXPECT_EQ(fused_relu_of(g.nodes[0]), 0);

  onnx::ModelProto out = norm_model();
  add_node(out.mutable_graph(), "Relu", "relu", {"n"}, "y");
  add_value(out.mutable_graph()->mutable_output(), "n", {1, 2, 3, 3});
  add_value(out.mutable_graph()->mutable_output(), "y", {1, 2, 3, 3});
  g = load(out);
  EXPECT_EQ(ops_of(g), (std::vector<std::string>{"BatchNormalization", "Relu"}));
}

}  // namespace
}  // namespace arun::model
