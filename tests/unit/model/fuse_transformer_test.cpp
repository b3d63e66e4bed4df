// LayerNorm and GELU fusion at load (model/src/fuse_transformer.cpp): which spellings become one
// LayerNormalization / Gelu node and which must stay apart (an intermediate with a second reader or
// that is a graph output, a value known only at run time, a wrong constant, another axis). Import
// only, no device; fused and unfused results are compared in fuse_transformer_run_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "onnx_builder.hpp"
#include "transformer_patterns.hpp"

namespace arun::model {
namespace {

using namespace testing;

const std::vector<std::string> kLayerNormOps = {"ReduceMean", "Sub", "Pow", "ReduceMean", "Add",
                                                "Sqrt",       "Div", "Mul", "Add"};

const Node* find_op(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes) {
    if (n.op == op) return &n;
  }
  return nullptr;
}

TEST(FuseTransformer, LayerNormBecomesOneNode) {
  const Graph g = load(layer_norm_model({}));
  ASSERT_EQ(ops_of(g), std::vector<std::string>{"LayerNormalization"});
  const Node& n = g.nodes[0];
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(g.tensors[n.inputs[0]].name, "x");
  EXPECT_EQ(g.tensors[n.inputs[1]].name, "gamma");
  EXPECT_EQ(g.tensors[n.inputs[2]].name, "beta");
  EXPECT_EQ(g.tensors[n.outputs[0]].name, "y");
  EXPECT_EQ(std::get<int64_t>(*n.attrs.find("axis")), -1);
  EXPECT_FLOAT_EQ(std::get<float>(*n.attrs.find("epsilon")), 1e-5f);
  // The dropped intermediates are gone; the survivors know their producer and readers.
  for (const TensorInfo& t : g.tensors) {
    for (const char* gone : {"mean", "c", "sq", "var", "ve", "std", "normed", "scaled"}) EXPECT_NE(t.name, gone);
  }
  EXPECT_EQ(g.tensors[g.outputs[0]].producer, 0);
  EXPECT_EQ(g.tensors[g.inputs[0]].consumers, std::vector<int>{0});
}

TEST(FuseTransformer, LayerNormPositiveAxisFloat16AndOldOpsets) {
  for (int64_t opset : {11, 13, 17}) {
    LayerNormSpec s;
    s.axis = 2;
    s.type = TensorProto::FLOAT16;
    s.opset = opset;
    if (opset >= 12) s.exponent_type = TensorProto::FLOAT;
    const Graph g = load(layer_norm_model(s));
    EXPECT_EQ(ops_of(g), (std::vector<std::string>{"Cast", "LayerNormalization", "Cast"})) << "opset " << opset;
  }
}

TEST(FuseTransformer, LayerNormWithoutAffineGetsOnesScale) {
  for (auto [mul, add] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    LayerNormSpec s;
    s.mul = mul;
    s.add = add;
    const Graph g = load(layer_norm_model(s));
    ASSERT_EQ(ops_of(g), std::vector<std::string>{"LayerNormalization"}) << mul << add;
    const Node& n = g.nodes[0];
    ASSERT_EQ(n.inputs.size(), add ? 3u : 2u);
    const TensorInfo& scale = g.tensors[n.inputs[1]];
    EXPECT_EQ(scale.kind, TensorKind::weight);
    if (!mul) {
      ASSERT_EQ(scale.shape, ops::Shape{8});
      ASSERT_EQ(scale.data.size(), 32u);
      const float* v = reinterpret_cast<const float*>(scale.data.data());
      EXPECT_TRUE(std::all_of(v, v + 8, [](float f) { return f == 1.0f; }));
    }
  }
}

TEST(FuseTransformer, LayerNormIntermediatesReadElsewhereStayApart) {
  for (const char* t : {"mean", "c", "sq", "var", "ve", "std"}) {
    LayerNormSpec s;
    s.extra_reader = t;
    EXPECT_EQ(find_op(load(layer_norm_model(s)), "LayerNormalization"), nullptr) << t;
    LayerNormSpec o;
    o.extra_output = t;
    EXPECT_EQ(find_op(load(layer_norm_model(o)), "LayerNormalization"), nullptr) << t;
  }
  // The affine tail stops at a tensor read elsewhere: the fused node writes it, the rest stays.
  LayerNormSpec normed;
  normed.extra_reader = "normed";
  EXPECT_EQ(ops_of(load(layer_norm_model(normed))),
            (std::vector<std::string>{"LayerNormalization", "Mul", "Add", "Neg"}));
  LayerNormSpec scaled;
  scaled.extra_output = "scaled";
  EXPECT_EQ(ops_of(load(layer_norm_model(scaled))), (std::vector<std::string>{"LayerNormalization", "Add"}));
}

TEST(FuseTransformer, LayerNormWithRunTimeOrWrongConstantsOrAxisStaysApart) {
  LayerNormSpec eps;
  eps.eps_input = true;
  EXPECT_EQ(ops_of(load(layer_norm_model(eps))), kLayerNormOps);
  LayerNormSpec exp_in;
  exp_in.exponent_input = true;
  EXPECT_EQ(ops_of(load(layer_norm_model(exp_in))), kLayerNormOps);
  LayerNormSpec cube;
  cube.exponent = 3.0f;
  EXPECT_EQ(ops_of(load(layer_norm_model(cube))), kLayerNormOps);
  for (int64_t axis : {0, 1, -2}) {
    LayerNormSpec s;
    s.dims = {2, 8, 8};  // gamma [8] still broadcasts
    s.axis = axis;
    EXPECT_EQ(ops_of(load(layer_norm_model(s))), kLayerNormOps) << axis;
  }
}

TEST(FuseTransformer, GeluSpellingsBecomeOneNode) {
  for (auto form : {GeluSpec::HalfFirst, GeluSpec::HalfOnErf, GeluSpec::HalfLast}) {
    for (bool inverse : {false, true}) {
      for (bool swap : {false, true}) {
        for (int type : {TensorProto::FLOAT, TensorProto::FLOAT16}) {
          GeluSpec s;
          s.form = form;
          s.mul_by_inverse = inverse;
          s.swap = swap;
          s.type = type;
          const Graph g = load(gelu_model(s));
          const std::string what = "form " + std::to_string(form) + " inverse " + std::to_string(inverse) + " swap " +
                                   std::to_string(swap) + " type " + std::to_string(type);
          const std::vector<std::string> want = type == TensorProto::FLOAT
                                                    ? std::vector<std::string>{"Gelu"}
                                                    : std::vector<std::string>{"Cast", "Gelu", "Cast"};
          ASSERT_EQ(ops_of(g), want) << what;
          const Node* n = find_op(g, "Gelu");
          EXPECT_EQ(std::get<std::string>(*n->attrs.find("approximate")), "none");
          EXPECT_EQ(g.tensors[n->inputs[0]].name, type == TensorProto::FLOAT ? "x" : "xh");
        }
      }
    }
  }
}

TEST(FuseTransformer, GeluWithWrongConstantsOrSharedIntermediatesStaysApart) {
  for (auto form : {GeluSpec::HalfFirst, GeluSpec::HalfOnErf, GeluSpec::HalfLast}) {
    GeluSpec s;
    s.form = form;
    s.half = 0.6;
    EXPECT_EQ(find_op(load(gelu_model(s)), "Gelu"), nullptr) << form;
    GeluSpec r;
    r.form = form;
    r.root = std::sqrt(3.0);
    EXPECT_EQ(find_op(load(gelu_model(r)), "Gelu"), nullptr) << form;
    GeluSpec r2 = r;
    r2.mul_by_inverse = true;
    EXPECT_EQ(find_op(load(gelu_model(r2)), "Gelu"), nullptr) << form;
    const char* mid = form == GeluSpec::HalfFirst ? "h" : form == GeluSpec::HalfOnErf ? "q" : "p";
    for (const char* t : {"s", "e", "a", mid}) {
      GeluSpec e;
      e.form = form;
      e.extra_reader = t;
      EXPECT_EQ(find_op(load(gelu_model(e)), "Gelu"), nullptr) << form << t;
      GeluSpec o;
      o.form = form;
      o.extra_output = t;
      EXPECT_EQ(find_op(load(gelu_model(o)), "Gelu"), nullptr) << form << t;
    }
  }
}

TEST(FuseTransformer, GeluTanhSpellingsBecomeOneNode) {
  for (auto form : {GeluSpec::HalfFirst, GeluSpec::HalfOnErf, GeluSpec::HalfLast}) {
    for (bool cube_by_mul : {false, true}) {
      for (bool swap : {false, true}) {
        GeluSpec s;
        s.tanh = true;
        s.form = form;
        s.cube_by_mul = cube_by_mul;
        s.swap = swap;
        const Graph g = load(gelu_model(s));
        ASSERT_EQ(ops_of(g), std::vector<std::string>{"Gelu"}) << form << cube_by_mul << swap;
        EXPECT_EQ(std::get<std::string>(*g.nodes[0].attrs.find("approximate")), "tanh");
      }
    }
  }
  GeluSpec f16;
  f16.tanh = true;
  f16.type = TensorProto::FLOAT16;
  EXPECT_EQ(ops_of(load(gelu_model(f16))), (std::vector<std::string>{"Cast", "Gelu", "Cast"}));
}

TEST(FuseTransformer, GeluTanhWithWrongConstantsOrSharedIntermediatesStaysApart) {
  GeluSpec coeff;
  coeff.tanh = true;
  coeff.coeff = 0.05;
  EXPECT_EQ(find_op(load(gelu_model(coeff)), "Gelu"), nullptr);
  GeluSpec half;
  half.tanh = true;
  half.half = 0.6;
  EXPECT_EQ(find_op(load(gelu_model(half)), "Gelu"), nullptr);
  for (bool cube_by_mul : {false, true}) {
    for (const char* t : {"x3", "w", "v", "s", "e", "a"}) {
      GeluSpec e;
      e.tanh = true;
      e.cube_by_mul = cube_by_mul;
      e.extra_reader = t;
      EXPECT_EQ(find_op(load(gelu_model(e)), "Gelu"), nullptr) << t;
    }
  }
  GeluSpec x2;
  x2.tanh = true;
  x2.cube_by_mul = true;
  x2.extra_output = "x2";
  EXPECT_EQ(find_op(load(gelu_model(x2)), "Gelu"), nullptr);
}

TEST(FuseTransformer, TurnedOffByTheEnvironment) {
  ::setenv("ARUN_MODEL_FUSE", "0", 1);
  const Graph ln = load(layer_norm_model({}));
  const Graph gelu = load(gelu_model({}));
  ::unsetenv("ARUN_MODEL_FUSE");
  EXPECT_EQ(ops_of(ln), kLayerNormOps);
  EXPECT_EQ(ops_of(gelu).size(), 5u);
}

// The test transformer (tests/models/make_models.py): both LayerNorms and the GELU fuse, 12 nodes
// fewer.
TEST(FuseTransformer, TheTestTransformerFuses) {
  std::ifstream f(std::string(ARUN_TEST_MODELS_DIR) + "/transformer_b1.onnx", std::ios::binary);
  ASSERT_TRUE(f) << "run the models.generate test first";
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Graph fused, plain;
  ASSERT_TRUE(import_onnx(bytes.data(), bytes.size(), &fused).ok());
  ::setenv("ARUN_MODEL_FUSE", "0", 1);
  ASSERT_TRUE(import_onnx(bytes.data(), bytes.size(), &plain).ok());
  ::unsetenv("ARUN_MODEL_FUSE");
  auto count = [](const Graph& g, const std::string& op) {
    return std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; });
  };
  EXPECT_EQ(count(fused, "LayerNormalization"), 2);
  EXPECT_EQ(count(fused, "Gelu"), 1);
  for (const char* op : {"ReduceMean", "Pow", "Sqrt", "Erf", "Sub"}) EXPECT_EQ(count(fused, op), 0) << op;
  EXPECT_EQ(plain.nodes.size() - fused.nodes.size(), 2u * 8u + 4u);
}

}  // namespace
}  // namespace arun::model
