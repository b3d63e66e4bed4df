// The two sgemm engines behind MatMul, Gemm, Einsum and Conv's im2col path (ops/src/sgemm.hpp): the
// same products as a float64 reference on every engine, transposes, tiles addressed through leading
// dimensions, beta accumulation, and the per-shape choice.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "sgemm.hpp"

namespace {

using arun::ops::GemmEngine;

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  int64_t pad;  // extra leading-dimension elements: a tile of a larger matrix
  float alpha, beta;
};

// C = alpha op(A) op(B) + beta C in double, from the same row-major operands.
std::vector<double> reference(const Case& c, const std::vector<float>& a, int64_t lda, const std::vector<float>& b,
                              int64_t ldb, const std::vector<float>& c0, int64_t ldc) {
  std::vector<double> out(c0.begin(), c0.end());
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double av = c.ta ? a[p * lda + i] : a[i * lda + p];
        const double bv = c.tb ? b[j * ldb + p] : b[p * ldb + j];
        acc += av * bv;
      }
      out[i * ldc + j] = c.alpha * acc + c.beta * double(c0[i * ldc + j]);
    }
  }
  return out;
}

class SgemmTest : public ::testing::TestWithParam<GemmEngine> {};

TEST_P(SgemmTest, MatchesAFloat64Reference) {
  const Case cases[] = {
      {false, false, 128, 64, 128, 0, 1.0f, 0.0f}, {false, true, 37, 29, 71, 3, 1.0f, 0.0f},
      {true, false, 64, 33, 40, 5, 0.5f, 1.0f},    {true, true, 17, 128, 9, 1, -2.0f, 0.25f},
      {false, false, 2, 3, 1, 0, 1.0f, 1.0f},      {false, false, 96, 200, 256, 7, 1.0f, 0.0f},
      {false, true, 1, 50, 64, 0, 1.0f, 0.0f},
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.m << "x" << c.n << "x" << c.k << " ta=" << c.ta << " tb=" << c.tb);
    const int64_t lda = (c.ta ? c.m : c.k) + c.pad, ldb = (c.tb ? c.k : c.n) + c.pad, ldc = c.n + c.pad;
    std::vector<float> a(size_t((c.ta ? c.k : c.m) * lda)), b(size_t((c.tb ? c.n : c.k) * ldb)), out(size_t(c.m * ldc));
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    for (float& v : out) v = dist(rng);
    const std::vector<double> want = reference(c, a, lda, b, ldb, out, ldc);
    const std::vector<float> before = out;
    arun::ops::sgemm_on(GetParam(), c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(), ldb, c.beta,
                        out.data(), ldc);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const size_t at = size_t(i * ldc + j);
        if (j >= c.n) {
          EXPECT_EQ(out[at], before[at]) << "wrote outside the tile at " << i << "," << j;
        } else {
          EXPECT_NEAR(out[at], want[at], 1e-5 * (1 + c.k)) << i << "," << j;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, SgemmTest, ::testing::Values(GemmEngine::openblas, GemmEngine::onednn),
                         [](const auto& info) { return info.param == GemmEngine::onednn ? "onednn" : "openblas"; });

TEST(SgemmChoice, OneDnnForRealProductsOpenBlasForVectorsAndTinyOnes) {
  // ARUN_GEMM_ENGINE=openblas (tests/unit/ops.cmake runs this test a second time with it) moves all.
  const bool forced = std::getenv("ARUN_GEMM_ENGINE") != nullptr;
  const GemmEngine big = forced ? GemmEngine::openblas : GemmEngine::onednn;
  EXPECT_EQ(arun::ops::gemm_engine_for(128, 256, 256), big);
  EXPECT_EQ(arun::ops::gemm_engine_for(32, 512, 784), big);
  EXPECT_EQ(arun::ops::gemm_engine_for(32, 32, 32), big);
  EXPECT_EQ(arun::ops::gemm_engine_for(1, 4096, 4096), GemmEngine::openblas);  // a matrix-vector product
  EXPECT_EQ(arun::ops::gemm_engine_for(8, 8, 8), GemmEngine::openblas);        // the call costs more
}

}  // namespace
