// Fused LayerNorm and GELU compute what the nodes they replace compute: each model is loaded twice
// through aclmdlLoadFromMem, with the fusion (default) and without it (ARUN_MODEL_FUSE=0), run on
// the same inputs and the outputs compared: small patterns in float32 and float16 (between Casts),
// and the test transformer (tests/models/make_models.py).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "model_runner.hpp"
#include "transformer_patterns.hpp"

namespace {

using namespace onnx_test;

size_t count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

class FuseTransformerRun : public ModelRunTest {
 protected:
  // Loads (fused or not) and runs the model once on x made from a fixed seed; returns y.
  static std::vector<float> run(const std::string& bytes, const std::vector<int64_t>& dims, bool fuse) {
    if (!fuse) ::setenv("ARUN_MODEL_FUSE", "0", 1);
    const uint32_t id = load_model(bytes);
    ::unsetenv("ARUN_MODEL_FUSE");
    if (id == 0) return {};
    std::vector<float> x = values(count(dims), 100);
    for (float& v : x) v *= 3.0f;  // GELU's tails too
    std::vector<std::vector<float>> got = run_and_unload(id, {x}, {count(dims)});
    return got.empty() ? std::vector<float>{} : got[0];
  }

  // |fused - unfused| <= tol * (1 + |unfused|) everywhere (the first few misses are reported).
  static void expect_same(const std::string& bytes, const std::vector<int64_t>& dims, float tol,
                          const std::string& what) {
    const std::vector<float> fused = run(bytes, dims, true), plain = run(bytes, dims, false);
    ASSERT_EQ(fused.size(), count(dims)) << what;
    ASSERT_EQ(plain.size(), count(dims)) << what;
    size_t bad = 0;
    for (size_t i = 0; i < fused.size() && bad < 3; ++i) {
      const bool ok = std::fabs(fused[i] - plain[i]) <= tol * (1.0f + std::fabs(plain[i]));
      EXPECT_TRUE(ok) << what << " element " << i << ": fused " << fused[i] << ", unfused " << plain[i];
      bad += ok ? 0 : 1;
    }
  }
};

// float16: the unfused chain rounds every intermediate to half, the fused kernel computes in float.
constexpr float kTol32 = 1e-5f, kTol16 = 4e-3f;

TEST_F(FuseTransformerRun, LayerNormMatchesTheUnfusedNodes) {
  // One row block and many (rows spread over the blocks of the fused kernel).
  for (const auto& dims : {std::vector<int64_t>{2, 3, 8}, std::vector<int64_t>{4, 64, 256}}) {
    for (int type : {TensorProto::FLOAT, TensorProto::FLOAT16}) {
      for (auto [mul, add] : {std::pair{true, true}, std::pair{false, false}, std::pair{false, true}}) {
        LayerNormSpec s;
        s.dims = dims;
        s.type = type;
        s.mul = mul;
        s.add = add;
        expect_same(layer_norm_model(s).SerializeAsString(), dims, type == TensorProto::FLOAT ? kTol32 : kTol16,
                    "layer norm " + std::to_string(dims.back()) + " type " + std::to_string(type) + " mul " +
                        std::to_string(mul) + " add " + std::to_string(add));
      }
    }
  }
}

TEST_F(FuseTransformerRun, GeluMatchesTheUnfusedNodes) {
  for (const auto& dims : {std::vector<int64_t>{2, 3, 8}, std::vector<int64_t>{4, 64, 256}}) {
    for (int type : {TensorProto::FLOAT, TensorProto::FLOAT16}) {
      for (auto form : {GeluSpec::HalfFirst, GeluSpec::HalfOnErf, GeluSpec::HalfLast}) {
        GeluSpec s;
        s.dims = dims;
        s.type = type;
        s.form = form;
        s.mul_by_inverse = form == GeluSpec::HalfOnErf;
        expect_same(gelu_model(s).SerializeAsString(), dims, type == TensorProto::FLOAT ? kTol32 : kTol16,
                    "gelu form " + std::to_string(form) + " type " + std::to_string(type));
      }
    }
  }
}

TEST_F(FuseTransformerRun, GeluTanhMatchesTheUnfusedNodes) {
  for (const auto& dims : {std::vector<int64_t>{2, 3, 8}, std::vector<int64_t>{4, 64, 256}}) {
    for (int type : {TensorProto::FLOAT, TensorProto::FLOAT16}) {
      for (bool cube_by_mul : {false, true}) {
        GeluSpec s;
        s.tanh = true;
        s.dims = dims;
        s.type = type;
        s.cube_by_mul = cube_by_mul;
        s.form = cube_by_mul ? GeluSpec::HalfLast : GeluSpec::HalfFirst;
        expect_same(gelu_model(s).SerializeAsString(), dims, type == TensorProto::FLOAT ? kTol32 : kTol16,
                    "gelu tanh type " + std::to_string(type) + " cube_by_mul " + std::to_string(cube_by_mul));
      }
    }
  }
}

// The LayerNormalization kernel itself on long rows (float partial sums added into double every
// 1024 values; a length that leaves a remainder of the 16 lanes) against a float64 reference.
TEST_F(FuseTransformerRun, LayerNormalizationKernelKeepsLongRowsAccurate) {
  const int64_t rows = 3, len = 50003;
  onnx::ModelProto m = new_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {rows, len});
  std::vector<float> gamma = values(static_cast<size_t>(len), 3), beta = values(static_cast<size_t>(len), 5);
  add_const(g, "gamma", TensorProto::FLOAT, {len}, gamma);
  add_const(g, "beta", TensorProto::FLOAT, {len}, beta);
  add_node(g, "LayerNormalization", {"x", "gamma", "beta"}, "y");
  add_value(g->mutable_output(), "y", {rows, len});
  const uint32_t id = load_model(m.SerializeAsString());
  ASSERT_NE(id, 0u);
  std::vector<float> x = values(static_cast<size_t>(rows * len), 100);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 10.0f * static_cast<float>(i / len + 1) + x[i];  // offset rows
  const std::vector<std::vector<float>> got = run_and_unload(id, {x}, {x.size()});
  ASSERT_EQ(got.size(), 1u);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * len;
    double mean = 0.0, var = 0.0;
    for (int64_t j = 0; j < len; ++j) mean += row[j];
    mean /= static_cast<double>(len);
    for (int64_t j = 0; j < len; ++j) var += (row[j] - mean) * (row[j] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(len) + 1e-5);
    size_t bad = 0;
    for (int64_t j = 0; j < len && bad < 3; ++j) {
      const double want = (row[j] - mean) * inv * gamma[j] + beta[j];
      const bool ok = std::fabs(got[0][r * len + j] - want) <= 1e-5 * (1.0 + std::fabs(want));
      EXPECT_TRUE(ok) << "row " << r << " element " << j << ": " << got[0][r * len + j] << ", want " << want;
      bad += ok ? 0 : 1;
    }
  }
}

TEST_F(FuseTransformerRun, TheTestTransformerMatchesTheUnfusedModel) {
  std::ifstream f(std::string(ARUN_TEST_MODELS_DIR) + "/transformer_b1.onnx", std::ios::binary);
  ASSERT_TRUE(f) << "run the models.generate test first";
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  expect_same(bytes, {1, 128, 256}, kTol32, "transformer_b1");
}

}  // namespace
