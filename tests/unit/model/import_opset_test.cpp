// The importer's opset paths for operators whose attributes became inputs: the same graph,
// x [2,1,3,1] -> Squeeze(axes 1, 3) -> s [2,3] -> ReduceSum(axes 1, keepdims 0) -> y [2], written
// at opset 11 (axes attributes) and at opset 13 (axes as int64 initializers, read by the kernels),
// loads through aclmdlLoadFromMem and gives the same, correct result. And Upsample, whose scales
// are a float-list attribute at opsets 7/8 and an input from 9.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "model_runner.hpp"
#include "onnx_proto.hpp"

namespace {

using namespace onnx_test;  // add_value, add_node, add_ints, ...

// A 1-D int64 initializer.
void add_axes(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& v) {
  add_int64s(g, name, {static_cast<int64_t>(v.size())}, v);
}

std::string squeeze_sum_model(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("squeeze_sum");
  add_value(g->mutable_input(), "x", {2, 1, 3, 1});
  add_value(g->mutable_output(), "s", {2, 3});
  add_value(g->mutable_output(), "y", {2});
  if (opset >= 13) {
    add_axes(g, "sq_axes", {1, -1});
    add_axes(g, "sum_axes", {-1});
    add_node(g, "Squeeze", {"x", "sq_axes"}, "s");
    add_int(add_node(g, "ReduceSum", {"s", "sum_axes"}, "y"), "keepdims", 0);
  } else {
    add_ints(add_node(g, "Squeeze", {"x"}, "s"), "axes", {1, 3});
    auto* r = add_node(g, "ReduceSum", {"s"}, "y");
    add_ints(r, "axes", {1});
    add_int(r, "keepdims", 0);
  }
  return m.SerializeAsString();
}

std::string upsample_model(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(opset >= 9 ? 4 : 3);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("upsample");
  add_value(g->mutable_input(), "x", {1, 1, 2, 3});
  add_value(g->mutable_output(), "y", {1, 1, 4, 9});
  const std::vector<float> scales{1.0f, 1.0f, 2.0f, 3.0f};
  if (opset >= 9) {
    TensorProto* t = g->add_initializer();
    t->set_name("scales");
    t->set_data_type(TensorProto::FLOAT);
    t->add_dims(4);
    for (float v : scales) t->add_float_data(v);
    add_node(g, "Upsample", {"x", "scales"}, "y");
  } else {
    auto* a = add_node(g, "Upsample", {"x"}, "y")->add_attribute();
    a->set_name("scales");
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : scales) a->add_floats(v);
  }
  return m.SerializeAsString();
}

// Opset 13, every geometry as an initializer input, as exporters write them:
// x [2,6,4] -> Split(axis 1, split [2,4]) -> a [2,2,4], b [2,4,4]; TopK(b, K 2) -> v [2,4,2] (and
// unused indices); Slice(a, -1, INT64_MIN, axis 2, step -1) -> s; Resize(s, roi "", scales
// [1,1,2]) -> r [2,2,8].
std::string zoo_paths_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("zoo_paths");
  add_value(g->mutable_input(), "x", {2, 6, 4});
  add_value(g->mutable_output(), "v", {2, 4, 2});
  add_value(g->mutable_output(), "r", {2, 2, 8});
  add_axes(g, "split", {2, 4});
  add_axes(g, "k", {2});
  add_axes(g, "starts", {-1});
  add_axes(g, "ends", {INT64_MIN});
  add_axes(g, "axes", {2});
  add_axes(g, "steps", {-1});
  TensorProto* sc = g->add_initializer();
  sc->set_name("scales");
  sc->set_data_type(TensorProto::FLOAT);
  sc->add_dims(3);
  for (float v : {1.0f, 1.0f, 2.0f}) sc->add_float_data(v);
  onnx::NodeProto* split = add_node(g, "Split", {"x", "split"}, "a");
  split->add_output("b");
  add_int(split, "axis", 1);
  add_node(g, "TopK", {"b", "k"}, "v")->add_output("i");
  add_node(g, "Slice", {"a", "starts", "ends", "axes", "steps"}, "s");
  add_node(g, "Resize", {"s", "", "scales"}, "r");
  return m.SerializeAsString();
}

class ImportOpset : public ModelRunTest {
 protected:
  // Loads and runs the model once; returns its outputs (of `out_counts` floats each).
  static std::vector<std::vector<float>> run(const std::string& bytes, const std::vector<float>& x,
                                             const std::vector<size_t>& out_counts = {6, 2}) {
    const uint32_t id = load_model(bytes);
    if (id == 0) return {};
    return run_and_unload(id, {x}, out_counts);
  }
};

TEST_F(ImportOpset, SqueezeAndReduceSumAxesAttributeAndInputAgree) {
  const std::vector<float> x{1.5f, -2.0f, 4.25f, 0.5f, 8.0f, -1.0f};
  const std::vector<float> want_y{1.5f - 2.0f + 4.25f, 0.5f + 8.0f - 1.0f};
  const auto a = run(squeeze_sum_model(11), x);
  const auto b = run(squeeze_sum_model(13), x);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0], x);
  EXPECT_EQ(b[0], x);
  EXPECT_EQ(a[1], want_y);
  EXPECT_EQ(b[1], want_y);
}

TEST_F(ImportOpset, UpsampleScalesAttributeAndInputAgree) {
  const std::vector<float> x{1, 2, 3, 4, 5, 6};
  std::vector<float> want;  // nearest, asymmetric: each row twice, each element three times
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 9; ++w) want.push_back(x[(h / 2) * 3 + w / 3]);
  for (int opset : {7, 8, 9}) {
    const auto got = run(upsample_model(opset), x, {36});
    ASSERT_EQ(got.size(), 1u) << "opset " << opset;
    EXPECT_EQ(got[0], want) << "opset " << opset;
  }
}

TEST_F(ImportOpset, SplitTopKSliceResizeFromInitializers) {
  std::vector<float> x(48);
  for (int i = 0; i < 48; ++i) x[i] = static_cast<float>(i);
  std::vector<float> v, r;
  for (int n = 0; n < 2; ++n)
    for (int c = 2; c < 6; ++c)
      for (int w : {3, 2}) v.push_back(x[n * 24 + c * 4 + w]);  // rows ascend: the top two, largest first
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 2; ++c)
      for (int w = 0; w < 8; ++w) r.push_back(x[n * 24 + c * 4 + (3 - w / 2)]);  // reversed, each twice
  const auto got = run(zoo_paths_model(), x, {16, 32});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], v);
  EXPECT_EQ(got[1], r);
}

}  // namespace
