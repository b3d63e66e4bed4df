// MatMul (NumPy semantics: batched, broadcast batch dimensions, 1-D operands promoted) and Gemm
// (transA/transB, alpha, beta, C broadcast to [M, N]) over sgemm.hpp (oneDNN's or OpenBLAS's sgemm).
//
// Each AI core is a thread, so the engines run single-threaded inside a block (pin_blas_threads) and
// the parallelism comes from the blocks: the output is cut into batch x row-tile x column-tile
// items, about one per AI core, and each block calls sgemm on its items' sub-matrices in place
// (leading dimensions select the tile; nothing is copied).
#include <cblas.h>

#include "kernel_common.hpp"
#include "sgemm.hpp"

namespace arun::ops {
namespace {

struct GemmParams {
  const float* a;
  const float* b;
  const float* c;  // nullptr: no bias term
  float* out;
  int64_t na, nb, nc, nout;
  int64_t m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  int64_t c_stride_m, c_stride_n;     // C read with these strides (0 = broadcast)
  std::vector<int64_t> a_off, b_off;  // per batch entry, in elements
  int64_t tiles_m, tiles_n, tile_m, tile_n;
};

void gemm_kernel(arun::Block blk, const GemmParams& p) {
  const int64_t batch = static_cast<int64_t>(p.a_off.size());
  const int64_t per_batch = p.tiles_m * p.tiles_n;
  const IndexRange r = blk.range(static_cast<size_t>(batch * per_batch));
  if (r.size() == 0) return;
  const float* a = blk.map(p.a, p.na).data();
  const float* b = blk.map(p.b, p.nb).data();
  const float* c = p.c != nullptr ? blk.map(p.c, p.nc).data() : nullptr;
  float* out = blk.map(p.out, p.nout).data();
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t bi = static_cast<int64_t>(item) / per_batch;
    const int64_t t = static_cast<int64_t>(item) % per_batch;
    const int64_t m0 = (t / p.tiles_n) * p.tile_m, m1 = std::min(p.m, m0 + p.tile_m);
    const int64_t n0 = (t % p.tiles_n) * p.tile_n, n1 = std::min(p.n, n0 + p.tile_n);
    if (m0 >= m1 || n0 >= n1) continue;
    float* o = out + bi * p.m * p.n + m0 * p.n + n0;
    float beta = 0.0f;
    if (c != nullptr && p.beta != 0.0f) {
      for (int64_t i = m0; i < m1; ++i) {
        for (int64_t j = n0; j < n1; ++j)
          o[(i - m0) * p.n + (j - n0)] = p.beta * c[i * p.c_stride_m + j * p.c_stride_n];
      }
      beta = 1.0f;
    }
    const float* as = p.trans_a ? a + p.a_off[bi] + m0 : a + p.a_off[bi] + m0 * p.k;
    const float* bs = p.trans_b ? b + p.b_off[bi] + n0 * p.k : b + p.b_off[bi] + n0;
    const int lda = static_cast<int>(std::max<int64_t>(1, p.trans_a ? p.m : p.k));
    const int ldb = static_cast<int>(std::max<int64_t>(1, p.trans_b ? p.k : p.n));
    if (m1 - m0 == 1) {
      // One output row (batch-1 Gemm): a matrix-vector product. OpenBLAS's sgemm sends M = 1 to a
      // small-matrix kernel about 4x slower than sgemv (bench/README.md, models).
      const int inc_a = p.trans_a ? lda : 1;
      if (p.trans_b) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(n1 - n0), static_cast<int>(p.k), p.alpha, bs, ldb, as,
                    inc_a, beta, o, 1);
      } else {
        cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<int>(p.k), static_cast<int>(n1 - n0), p.alpha, bs, ldb, as,
                    inc_a, beta, o, 1);
      }
      continue;
    }
    sgemm(p.trans_a, p.trans_b, m1 - m0, n1 - n0, p.k, p.alpha, as, lda, bs, ldb, beta, o, p.n);
  }
}

// Picks the tiling: about one item per usable AI core (OpCall::parallelism), tiles no thinner than 16 rows / 64
// columns, and a single block for small products (a launch costs more than a few hundred kiloflops).
void plan_tiles(const OpCall& call, int64_t batch, GemmParams& p, uint32_t* blocks) {
  const double flops = 2.0 * double(batch) * double(p.m) * double(p.n) * double(p.k);
  const int64_t cores = flops < 1e6 ? 1 : call.parallelism();
  const int64_t wanted = std::max<int64_t>(1, (cores + batch - 1) / batch);
  p.tiles_m = std::min(wanted, std::max<int64_t>(1, (p.m + 15) / 16));
  p.tiles_n = std::min((wanted + p.tiles_m - 1) / p.tiles_m, std::max<int64_t>(1, (p.n + 63) / 64));
  p.tile_m = (p.m + p.tiles_m - 1) / p.tiles_m;
  p.tiles_m = (p.m + p.tile_m - 1) / p.tile_m;
  p.tile_n = (p.n + p.tiles_n - 1) / p.tiles_n;
  p.tiles_n = (p.n + p.tile_n - 1) / p.tile_n;
  *blocks = static_cast<uint32_t>(std::clamp<int64_t>(batch * p.tiles_m * p.tiles_n, 1, cores));
}

Status check_int_range(const OpCall& call, int64_t m, int64_t n, int64_t k) {
  const int64_t limit = std::numeric_limits<int>::max();
  if (m > limit || n > limit || k > limit) return call.input_error("matrix dimension exceeds the BLAS int range");
  return Status::Ok();
}

Status run_matmul(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1}));
  const Tensor& ta = call.inputs[0];
  const Tensor& tb = call.inputs[1];
  if (ta.dtype != ACL_FLOAT)
    return call.dtype_error(std::string("no kernel for ") + dtype_name(ta.dtype) + " (float32)");
  if (ta.rank() == 0 || tb.rank() == 0) return call.input_error("operands must have at least one dimension");
  // 1-D operands: A [K] is [1, K] and B [K] is [K, 1]; the added dimension is dropped from the result.
  Shape sa = ta.shape, sb = tb.shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  if (sb[sb.size() - 2] != k) {
    return call.input_error("inner dimensions differ: " + shape_text(ta.shape) + " x " + shape_text(tb.shape));
  }
  ARUN_RETURN_IF_ERROR(check_int_range(call, m, n, k));
  const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  Shape batch_shape;
  if (!broadcast_shapes(batch_a, batch_b, &batch_shape) || batch_shape.size() > static_cast<size_t>(kMaxRank)) {
    return call.input_error("batch dimensions of " + shape_text(ta.shape) + " and " + shape_text(tb.shape) +
                            " do not broadcast");
  }
  Shape out = batch_shape;
  if (ta.rank() > 1) out.push_back(m);
  if (tb.rank() > 1) out.push_back(n);
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_FLOAT, out));
  if (numel(out) == 0) return Status::Ok();

  GemmParams p{ptr<float>(ta),
               ptr<float>(tb),
               nullptr,
               ptr<float>(call.outputs[0]),
               ta.count(),
               tb.count(),
               0,
               numel(out),
               m,
               n,
               k,
               false,
               false,
               1.0f,
               0.0f,
               0,
               0,
               {},
               {},
               0,
               0,
               0,
               0};
  // Per batch entry, the offset of its A and B matrices under broadcasting.
  const int64_t batch = numel(batch_shape);
  int64_t stride_a[kMaxRank] = {}, stride_b[kMaxRank] = {};
  broadcast_strides(batch_a, batch_shape, stride_a);
  broadcast_strides(batch_b, batch_shape, stride_b);
  p.a_off.resize(batch);
  p.b_off.resize(batch);
  for (int64_t i = 0; i < batch; ++i) {
    int64_t rest = i, oa = 0, ob = 0;
    for (size_t d = batch_shape.size(); d-- > 0;) {
      const int64_t idx = rest % batch_shape[d];
      rest /= batch_shape[d];
      oa += idx * stride_a[d];
      ob += idx * stride_b[d];
    }
    p.a_off[i] = oa * m * k;
    p.b_off[i] = ob * k * n;
  }
  uint32_t blocks = 1;
  plan_tiles(call, batch, p, &blocks);
  pin_blas_threads();
  return launch_op(call, blocks, gemm_kernel, std::move(p));
}

Status run_gemm(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  const Tensor& ta = call.inputs[0];
  const Tensor& tb = call.inputs[1];
  if (ta.dtype != ACL_FLOAT)
    return call.dtype_error(std::string("no kernel for ") + dtype_name(ta.dtype) + " (float32)");
  int64_t trans_a = 0, trans_b = 0;
  float alpha = 1.0f, beta = 1.0f;
  ARUN_RETURN_IF_ERROR(call.attr_int("transA", 0, &trans_a));
  ARUN_RETURN_IF_ERROR(call.attr_int("transB", 0, &trans_b));
  ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 1.0f, &alpha));
  ARUN_RETURN_IF_ERROR(call.attr_float("beta", 1.0f, &beta));
  if ((trans_a != 0 && trans_a != 1) || (trans_b != 0 && trans_b != 1)) {
    return call.attr_error("transA and transB must be 0 or 1");
  }
  if (ta.rank() != 2 || tb.rank() != 2) {
    return call.input_error("A and B must be 2-D, got " + shape_text(ta.shape) + " and " + shape_text(tb.shape));
  }
  const int64_t m = trans_a ? ta.shape[1] : ta.shape[0], k = trans_a ? ta.shape[0] : ta.shape[1];
  const int64_t kb = trans_b ? tb.shape[1] : tb.shape[0], n = trans_b ? tb.shape[0] : tb.shape[1];
  if (k != kb) {
    return call.input_error("inner dimensions differ: A " + shape_text(ta.shape) + (trans_a ? "^T" : "") + " x B " +
                            shape_text(tb.shape) + (trans_b ? "^T" : ""));
  }
  ARUN_RETURN_IF_ERROR(check_int_range(call, m, n, k));
  const Shape out{m, n};
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_FLOAT, out));
  GemmParams p{ptr<float>(ta),
               ptr<float>(tb),
               nullptr,
               ptr<float>(call.outputs[0]),
               ta.count(),
               tb.count(),
               0,
               m * n,
               m,
               n,
               k,
               trans_a != 0,
               trans_b != 0,
               alpha,
               beta,
               0,
               0,
               {0},
               {0},
               0,
               0,
               0,
               0};
  if (call.inputs.size() == 3 && call.inputs[2].present()) {
    const Tensor& tc = call.inputs[2];
    Shape joined;
    if (tc.rank() > 2 || !broadcast_shapes(tc.shape, out, &joined) || joined != out) {
      return call.input_error("C " + shape_text(tc.shape) + " does not broadcast to " + shape_text(out));
    }
    int64_t strides[2];
    broadcast_strides(tc.shape, out, strides);
    p.c = ptr<float>(tc);
    p.nc = tc.count();
    p.c_stride_m = strides[0];
    p.c_stride_n = strides[1];
  }
  if (m * n == 0) return Status::Ok();
  uint32_t blocks = 1;
  plan_tiles(call, 1, p, &blocks);
  pin_blas_threads();
  return launch_op(call, blocks, gemm_kernel, std::move(p));
}

}  // namespace

void register_matmul(std::vector<OpDef>& defs) {
  defs.push_back({"MatMul", &run_matmul, {}});
  defs.push_back({"Gemm", &run_gemm, {"alpha", "beta", "transA", "transB"}});
}

}  // namespace arun::ops
