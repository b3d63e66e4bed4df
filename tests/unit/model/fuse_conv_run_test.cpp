// Fused convolutions compute what the nodes they replace compute: each model is loaded twice
// through aclmdlLoadFromMem, with the fusion (default) and without it (ARUN_MODEL_FUSE=0), run on
// the same inputs, and the outputs compared. ctest runs this on oneDNN and again with
// ARUN_CONV_ENGINE=openblas (the im2col + sgemm epilogue).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "model_runner.hpp"
#include "onnx_proto.hpp"

namespace {

using namespace onnx_test;  // add_value, add_node, add_ints, ...

// Deterministic values in [-1, 1).
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

void add_floats(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims, uint32_t seed,
                float scale = 1.0f) {
  TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT);
  size_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= static_cast<size_t>(d);
  }
  for (float v : values(n, seed)) t->add_float_data(v * scale);
}

struct Case {
  std::string bytes;
  std::vector<std::vector<int64_t>> inputs;  // x, then z where the model has it
  std::vector<int64_t> output;
};

// x [n, c, h, w] -> Conv (m outputs, k x k, pads k / 2, group, bias) -> `tail` -> y. tail: "Relu",
// "Clip" (0, 6 as initializers), "LeakyRelu" (alpha 0.1), "AddRelu" (+ the graph input z, then Relu),
// "Add" (+ z).
Case conv_case(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t k, int64_t group,
               const std::string& tail) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("fuse_" + tail);
  Case cs;
  cs.inputs.push_back({n, c, h, w});
  cs.output = {n, m, h, w};
  add_value(g->mutable_input(), "x", cs.inputs[0]);
  add_floats(g, "w", {m, c / group, k, k}, 7, 1.0f / std::sqrt(static_cast<float>(c / group * k * k)));
  add_floats(g, "b", {m}, 11, 0.5f);
  auto* conv = add_node(g, "Conv", {"x", "w", "b"}, "c");
  add_ints(conv, "pads", {k / 2, k / 2, k / 2, k / 2});
  auto* ga = conv->add_attribute();
  ga->set_name("group");
  ga->set_type(onnx::AttributeProto::INT);
  ga->set_i(group);
  if (tail == "Relu") {
    add_node(g, "Relu", {"c"}, "y");
  } else if (tail == "Clip") {
    for (auto [name, v] : {std::pair{"lo", 0.0f}, std::pair{"hi", 0.6f}}) {
      TensorProto* t = g->add_initializer();
      t->set_name(name);
      t->set_data_type(TensorProto::FLOAT);
      t->add_float_data(v);
    }
    add_node(g, "Clip", {"c", "lo", "hi"}, "y");
  } else if (tail == "LeakyRelu") {
    auto* a = add_node(g, "LeakyRelu", {"c"}, "y")->add_attribute();
    a->set_name("alpha");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(0.1f);
  } else {
    cs.inputs.push_back(cs.output);
    add_value(g->mutable_input(), "z", cs.output);
    add_node(g, "Add", {"z", "c"}, tail == "Add" ? "y" : "s");
    if (tail == "AddRelu") add_node(g, "Relu", {"s"}, "y");
  }
  add_value(g->mutable_output(), "y", cs.output);
  cs.bytes = model.SerializeAsString();
  return cs;
}

size_t count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

class FuseConvRun : public ModelRunTest {
 protected:
  // Loads (fused or not) and runs `cs` once on inputs made from fixed seeds; returns y.
  static std::vector<float> run(const Case& cs, bool fuse) {
    if (!fuse) ::setenv("ARUN_MODEL_FUSE", "0", 1);
    const uint32_t id = load_model(cs.bytes);
    ::unsetenv("ARUN_MODEL_FUSE");
    if (id == 0) return {};
    std::vector<std::vector<float>> inputs;
    for (size_t i = 0; i < cs.inputs.size(); ++i) inputs.push_back(values(count(cs.inputs[i]), 100 + uint32_t(i)));
    std::vector<std::vector<float>> got = run_and_unload(id, inputs, {count(cs.output)});
    return got.empty() ? std::vector<float>{} : got[0];
  }

  // Fused and unfused agree to float rounding (the same sums, added in the same order, except
  // where oneDNN's post-ops round differently).
  static std::vector<float> expect_same(const Case& cs) {
    const std::vector<float> fused = run(cs, true), plain = run(cs, false);
    EXPECT_EQ(fused.size(), plain.size());
    if (fused.size() != plain.size()) return fused;
    size_t bad = 0;  // reported: the first few
    for (size_t i = 0; i < fused.size() && bad < 3; ++i) {
      const bool ok = std::fabs(fused[i] - plain[i]) <= 1e-5f * (1.0f + std::fabs(plain[i]));
      EXPECT_TRUE(ok) << "element " << i << ": fused " << fused[i] << ", unfused " << plain[i];
      bad += ok ? 0 : 1;
    }
    return fused;
  }
};

TEST_F(FuseConvRun, ActivationsMatchTheUnfusedNodes) {
  // A small conv (one block) and a larger one (several blocks, oneDNN channel chunks).
  for (const auto& dims : {std::vector<int64_t>{1, 3, 6, 6, 4}, std::vector<int64_t>{2, 16, 20, 20, 40}}) {
    const auto y = expect_same(conv_case(dims[0], dims[1], dims[2], dims[3], dims[4], 3, 1, "Relu"));
    ASSERT_FALSE(y.empty());
    EXPECT_EQ(*std::min_element(y.begin(), y.end()), 0.0f);
    const auto clip = expect_same(conv_case(dims[0], dims[1], dims[2], dims[3], dims[4], 3, 1, "Clip"));
    ASSERT_FALSE(clip.empty());
    EXPECT_EQ(*std::min_element(clip.begin(), clip.end()), 0.0f);
    EXPECT_EQ(*std::max_element(clip.begin(), clip.end()), 0.6f);
    const auto leaky = expect_same(conv_case(dims[0], dims[1], dims[2], dims[3], dims[4], 1, 1, "LeakyRelu"));
    ASSERT_FALSE(leaky.empty());
    EXPECT_LT(*std::min_element(leaky.begin(), leaky.end()), 0.0f);
  }
}

TEST_F(FuseConvRun, ResidualAddMatchesTheUnfusedNodes) {
  for (const std::string tail : {"Add", "AddRelu"}) {
    expect_same(conv_case(1, 4, 5, 5, 4, 3, 1, tail));
    expect_same(conv_case(2, 32, 14, 14, 32, 1, 1, tail));
  }
}

TEST_F(FuseConvRun, DepthwiseWithClipMatchesTheUnfusedNodes) {
  // MobileNetV2's depthwise 3x3 + ReLU6.
  const auto y = expect_same(conv_case(1, 32, 12, 12, 32, 3, 32, "Clip"));
  ASSERT_FALSE(y.empty());
  EXPECT_EQ(*std::max_element(y.begin(), y.end()), 0.6f);
}

// x [2, c, h, w] -> BatchNormalization (random statistics) -> Relu -> y: the Relu runs inside the
// normalisation's pass when fused.
Case norm_relu_case(int64_t c, int64_t h, int64_t w) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("fuse_norm_relu");
  Case cs;
  cs.inputs.push_back({2, c, h, w});
  cs.output = cs.inputs[0];
  add_value(g->mutable_input(), "x", cs.inputs[0]);
  add_floats(g, "scale", {c}, 3);
  add_floats(g, "bias", {c}, 5, 0.5f);
  add_floats(g, "mean", {c}, 9, 0.2f);
  TensorProto* var = g->add_initializer();
  var->set_name("var");
  var->set_data_type(TensorProto::FLOAT);
  var->add_dims(c);
  for (float v : values(static_cast<size_t>(c), 13)) var->add_float_data(1.0f + 0.5f * v);  // positive
  add_node(g, "BatchNormalization", {"x", "scale", "bias", "mean", "var"}, "n");
  add_node(g, "Relu", {"n"}, "y");
  add_value(g->mutable_output(), "y", cs.output);
  cs.bytes = model.SerializeAsString();
  return cs;
}

TEST_F(FuseConvRun, BatchNormWithReluMatchesTheUnfusedNodes) {
  for (const auto& d : {std::vector<int64_t>{3, 5, 5}, std::vector<int64_t>{64, 14, 14}}) {
    const auto y = expect_same(norm_relu_case(d[0], d[1], d[2]));
    ASSERT_FALSE(y.empty());
    EXPECT_EQ(*std::min_element(y.begin(), y.end()), 0.0f);
    EXPECT_GT(*std::max_element(y.begin(), y.end()), 0.0f);
  }
}

}  // namespace
