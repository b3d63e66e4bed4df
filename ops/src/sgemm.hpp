// Single-precision matrix products for the kernels (MatMul, Gemm, Einsum, Conv's im2col path), on
// the calling AI core's thread: one engine call per tile, the blocks are the parallelism.
#pragma once

#include <cstdint>

namespace arun::ops {

enum class GemmEngine { openblas, onednn };

// The engine sgemm() uses for an m x n x k product. oneDNN's sgemm (JIT, AVX2 / AVX-512) ran 1.8-2.2x
// OpenBLAS's on one thread from 128x64x128 to 4096x256x256 (bench: arun_op_bench onednn_1t vs
// blas_1t); its per-call cost loses below about 32 K multiply-adds, and matrix-vector products
// (m = 1, memory-bound) are a tie, so those stay on OpenBLAS. ARUN_GEMM_ENGINE=openblas (read once)
// puts every product on OpenBLAS.
GemmEngine gemm_engine_for(int64_t m, int64_t n, int64_t k);

// C = alpha * op(A) * op(B) + beta * C, all row-major; op(X) is X or X^T. Dimensions must fit int
// (the callers check: OpenBLAS's interface is int).
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// The same on a given engine (tests and benchmarks compare them).
void sgemm_on(GemmEngine engine, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
              const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Both engines single-threaded on this process's threads: the AI cores are the threads. Called by an
// op before it launches (OpenBLAS's setting is process-wide); oneDNN's OpenMP setting is per thread:
// see pin_onednn_to_this_thread.
void pin_blas_threads();

// oneDNN (its sgemm and its primitives) sizes its parallel regions by the calling thread's OpenMP
// setting: this sets it to one, once per thread, so they run inline on the AI core that calls.
void pin_onednn_to_this_thread();

}  // namespace arun::ops
