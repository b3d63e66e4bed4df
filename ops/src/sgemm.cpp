#include "sgemm.hpp"

#include <cblas.h>
#include <dnnl.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

// libgomp's, the OpenMP runtime oneDNN is built with (as in onednn_conv.cpp).
extern "C" void omp_set_num_threads(int);

namespace arun::ops {
namespace {

bool onednn_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("ARUN_GEMM_ENGINE");
    return v == nullptr || std::strcmp(v, "openblas") != 0;
  }();
  return allowed;
}

void cblas(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

}  // namespace

GemmEngine gemm_engine_for(int64_t m, int64_t n, int64_t k) {
  if (!onednn_allowed() || m < 2 || m * n * k < (int64_t{1} << 15)) return GemmEngine::openblas;
  return GemmEngine::onednn;
}

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  sgemm_on(gemm_engine_for(m, n, k), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void sgemm_on(GemmEngine engine, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
              const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (engine == GemmEngine::onednn) {
    pin_onednn_to_this_thread();
    if (dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
        dnnl_success) {
      return;
    }
    // oneDNN refuses only arguments the callers never pass; OpenBLAS then gives the same product.
  }
  cblas(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void pin_onednn_to_this_thread() {
  thread_local const bool pinned = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)pinned;
}

void pin_blas_threads() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

}  // namespace arun::ops
