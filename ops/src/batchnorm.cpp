// Per-channel normalisations: BatchNormalization (opsets 7 to 15+, inference and opset-14+
// training), InstanceNormalization, LRN and LpNormalization. float32 and float16 (computed in
// float, sums in double).
#include <algorithm>
#include <limits>

#include "kernel_common.hpp"

namespace arun::ops {
namespace {

// Parameters (float32 or float16) widened to float for one block.
std::vector<float> load_params(const arun::Block& blk, const void* src, bool half, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  if (half) {
    const Half* h = blk.map(static_cast<const Half*>(src), static_cast<size_t>(n)).data();
    for (int64_t i = 0; i < n; ++i) out[i] = Compute<Half>::load(h[i]);
  } else {
    const float* f = blk.map(static_cast<const float*>(src), static_cast<size_t>(n)).data();
    std::copy(f, f + n, out.begin());
  }
  return out;
}

Status check_float_operand(const OpCall& call, const Tensor& t, const char* what) {
  if (t.dtype == ACL_FLOAT || t.dtype == ACL_FLOAT16) return Status::Ok();
  return call.dtype_error(std::string(what) + " has dtype " + dtype_name(t.dtype) + "; float32 or float16 only");
}

// ---- BatchNormalization (channel axis 1) ----
// Inputs X, scale, B, input_mean, input_var; outputs Y and, with training_mode (opset 14+),
// running_mean / running_var = input * momentum + batch * (1 - momentum). scale / B and mean / var
// may each be float32 or float16 (opset 15's T1 / T2; training needs float32 statistics).
// Opsets 7-8: `spatial` = 1 (default) normalises per channel; spatial = 0 per element of C x D1..,
// with statistics of that shape (a channel count of C * D1 * .. and no inner extent). Before opset
// 14 the extra outputs were training outputs: refused (inference only).
// Extensions (ours, for aclnnBatchNorm): outputs 3 and 4 are the batch mean and 1/sqrt(var + eps)
// (float32, training only), and `unbiased` = 1 updates running_var with the unbiased batch variance
// (PyTorch) instead of ONNX's population variance. One block takes a share of the channels.

template <class T>
struct BatchNormParams {
  const T* x;
  const void* scale;  // scale and bias: float16 when half_sb, else float32
  const void* bias;
  const void* mean;  // mean and var: float16 when half_mv
  const void* var;
  bool half_sb, half_mv;
  T* y;
  float* run_mean;  // training outputs, may be null
  float* run_var;
  float* save_mean;
  float* save_invstd;
  int64_t n, c, inner;
  float epsilon, momentum;
  bool training, unbiased;
  bool relu;  // fused_relu: a Relu that read only this output, applied in the same pass
};

template <class T>
void batchnorm_kernel(arun::Block blk, const BatchNormParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.c));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const int64_t total = p.n * p.c * p.inner;
  const T* x = blk.map(p.x, total).data();
  T* y = blk.map(p.y, total).data();
  const std::vector<float> scale = load_params(blk, p.scale, p.half_sb, p.c);
  const std::vector<float> bias = load_params(blk, p.bias, p.half_sb, p.c);
  const std::vector<float> mean_in = load_params(blk, p.mean, p.half_mv, p.c);
  const std::vector<float> var_in = load_params(blk, p.var, p.half_mv, p.c);
  float* run_mean = p.run_mean != nullptr ? blk.map(p.run_mean, p.c).data() : nullptr;
  float* run_var = p.run_var != nullptr ? blk.map(p.run_var, p.c).data() : nullptr;
  float* save_mean = p.save_mean != nullptr ? blk.map(p.save_mean, p.c).data() : nullptr;
  float* save_invstd = p.save_invstd != nullptr ? blk.map(p.save_invstd, p.c).data() : nullptr;
  const int64_t count = p.n * p.inner;
  for (size_t ch = r.first; ch < r.last; ++ch) {
    double mean = mean_in[ch], var = var_in[ch];
    if (p.training) {
      double sum = 0.0;
      for (int64_t b = 0; b < p.n; ++b) {
        const T* row = x + (b * p.c + static_cast<int64_t>(ch)) * p.inner;
        for (int64_t i = 0; i < p.inner; ++i) sum += static_cast<float>(C::load(row[i]));
      }
      mean = sum / double(count);
      double sq = 0.0;
      for (int64_t b = 0; b < p.n; ++b) {
        const T* row = x + (b * p.c + static_cast<int64_t>(ch)) * p.inner;
        for (int64_t i = 0; i < p.inner; ++i) {
          const double d = static_cast<float>(C::load(row[i])) - mean;
          sq += d * d;
        }
      }
      var = sq / double(count);
      const double batch_var = !p.unbiased ? var
                               : count > 1 ? sq / double(count - 1)
                                           : std::numeric_limits<double>::quiet_NaN();
      if (run_mean != nullptr) run_mean[ch] = static_cast<float>(mean_in[ch] * p.momentum + mean * (1.0 - p.momentum));
      if (run_var != nullptr)
        run_var[ch] = static_cast<float>(var_in[ch] * p.momentum + batch_var * (1.0 - p.momentum));
    }
    const double inv = 1.0 / std::sqrt(var + p.epsilon);
    if (save_mean != nullptr) save_mean[ch] = static_cast<float>(mean);
    if (save_invstd != nullptr) save_invstd[ch] = static_cast<float>(inv);
    const float a = static_cast<float>(inv * scale[ch]);
    const float b0 = static_cast<float>(bias[ch] - mean * inv * scale[ch]);
    for (int64_t b = 0; b < p.n; ++b) {
      const int64_t off = (b * p.c + static_cast<int64_t>(ch)) * p.inner;
      if (p.relu) {
        for (int64_t i = 0; i < p.inner; ++i) {
          const float v = static_cast<float>(C::load(x[off + i])) * a + b0;
          y[off + i] = C::store(v < 0.0f ? 0.0f : v);  // Relu's select: NaN stays NaN
        }
      } else {
        for (int64_t i = 0; i < p.inner; ++i) y[off + i] = C::store(static_cast<float>(C::load(x[off + i])) * a + b0);
      }
    }
  }
}

Status run_batchnorm(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(5, 5));
  int64_t opset = 15, training = 0, unbiased = 0, spatial = 1, relu = 0;
  float epsilon = 1e-5f, momentum = 0.9f;
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", 15, &opset));
  if (opset < 7) return call.attr_error("opset " + std::to_string(opset) + " is not supported (7 and later)");
  if (call.has_attr("spatial") && opset >= 9) {
    return call.attr_error("spatial exists only in opsets 7 and 8 (this call is opset " + std::to_string(opset) + ")");
  }
  if (call.has_attr("training_mode") && opset < 14) {
    return call.attr_error("training_mode exists from opset 14 (this call is opset " + std::to_string(opset) + ")");
  }
  ARUN_RETURN_IF_ERROR(call.attr_int("spatial", 1, &spatial));
  ARUN_RETURN_IF_ERROR(call.attr_int("training_mode", 0, &training));
  ARUN_RETURN_IF_ERROR(call.attr_int("unbiased", 0, &unbiased));
  // Ours: set by the model importer's fusion (model/src/fuse_conv.cpp) when a Relu reads only Y.
  ARUN_RETURN_IF_ERROR(call.attr_int("fused_relu", 0, &relu));
  if (relu != 0 && relu != 1) return call.attr_error("fused_relu must be 0 or 1");
  ARUN_RETURN_IF_ERROR(call.attr_float("epsilon", 1e-5f, &epsilon));
  ARUN_RETURN_IF_ERROR(call.attr_float("momentum", 0.9f, &momentum));
  if (spatial != 0 && spatial != 1) return call.attr_error("spatial must be 0 or 1");
  if (training != 0 && training != 1) return call.attr_error("training_mode must be 0 or 1");
  if (!(epsilon >= 0.0f)) return call.attr_error("epsilon must be >= 0");
  const size_t max_out = training != 0 ? 5 : 1;
  if (call.outputs.empty() || call.outputs.size() > max_out) {
    if (opset < 14 && call.outputs.size() > 1) {
      return call.output_error("opset " + std::to_string(opset) +
                               ": the extra outputs (mean, var, saved statistics) belong to training, which is not "
                               "supported; inference produces Y only");
    }
    return call.output_error("produces 1 to " + std::to_string(max_out) + " outputs, got " +
                             std::to_string(call.outputs.size()));
  }
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(check_float_operand(call, x, "X"));
  if (x.rank() < 2 || x.rank() > kMaxRank) return call.input_error("X must have rank 2 to 8");
  // Per element (spatial = 0): the statistics cover C x D1 x ..; the kernel sees that many channels.
  const Shape stat = spatial != 0 ? Shape{x.shape[1]} : Shape(x.shape.begin() + 1, x.shape.end());
  const int64_t c = numel(stat);
  for (size_t i = 1; i < 5; ++i) {
    const Tensor& t = call.inputs[i];
    ARUN_RETURN_IF_ERROR(check_float_operand(call, t, i < 3 ? "scale / B" : "mean / var"));
    if (t.shape != stat) {
      return call.input_error("input " + std::to_string(i) + " " + shape_text(t.shape) + " is not " + shape_text(stat) +
                              (spatial != 0 ? "" : " (spatial = 0: per element)"));
    }
  }
  if (call.inputs[1].dtype != call.inputs[2].dtype || call.inputs[3].dtype != call.inputs[4].dtype) {
    return call.dtype_error("scale and B, and mean and var, must have the same dtype");
  }
  if (training != 0 && call.inputs[3].dtype != ACL_FLOAT) {
    return call.dtype_error("training mode needs float32 mean and var");
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  for (size_t i = 1; i < call.outputs.size(); ++i) ARUN_RETURN_IF_ERROR(call.expect_output(i, ACL_FLOAT, {c}));
  const int64_t inner = x.count() == 0 ? 0 : x.count() / (x.shape[0] * c);
  if (x.count() == 0) return Status::Ok();
  auto out_f = [&](size_t i) { return call.outputs.size() > i ? ptr<float>(call.outputs[i]) : nullptr; };
  Status st;
  dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    BatchNormParams<T> p{ptr<T>(x),
                         call.inputs[1].data,
                         call.inputs[2].data,
                         call.inputs[3].data,
                         call.inputs[4].data,
                         call.inputs[1].dtype == ACL_FLOAT16,
                         call.inputs[3].dtype == ACL_FLOAT16,
                         ptr<T>(call.outputs[0]),
                         out_f(1),
                         out_f(2),
                         out_f(3),
                         out_f(4),
                         x.shape[0],
                         c,
                         inner,
                         epsilon,
                         momentum,
                         training != 0,
                         unbiased != 0,
                         relu != 0};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), batchnorm_kernel<T>, p);
  });
  return st;
}

// ---- InstanceNormalization: per (image, channel) plane, y = scale * (x - mean) / sqrt(var + eps) + B ----

template <class T>
struct InstanceNormParams {
  const T* x;
  const T* scale;
  const T* bias;
  T* y;
  int64_t n, c, inner;
  float epsilon;
};

template <class T>
void instance_norm_kernel(arun::Block blk, const InstanceNormParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n * p.c));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* x = blk.map(p.x, p.n * p.c * p.inner).data();
  T* y = blk.map(p.y, p.n * p.c * p.inner).data();
  const T* scale = blk.map(p.scale, p.c).data();
  const T* bias = blk.map(p.bias, p.c).data();
  for (size_t plane = r.first; plane < r.last; ++plane) {
    const int64_t ch = static_cast<int64_t>(plane) % p.c;
    const T* xp = x + static_cast<int64_t>(plane) * p.inner;
    double sum = 0.0;
    for (int64_t i = 0; i < p.inner; ++i) sum += static_cast<float>(C::load(xp[i]));
    const double mean = sum / double(p.inner);
    double sq = 0.0;
    for (int64_t i = 0; i < p.inner; ++i) {
      const double d = static_cast<float>(C::load(xp[i])) - mean;
      sq += d * d;
    }
    const double inv = 1.0 / std::sqrt(sq / double(p.inner) + p.epsilon);
    const float a = static_cast<float>(inv * static_cast<float>(C::load(scale[ch])));
    const float b0 = static_cast<float>(static_cast<float>(C::load(bias[ch])) - mean * a);
    T* yp = y + static_cast<int64_t>(plane) * p.inner;
    for (int64_t i = 0; i < p.inner; ++i) yp[i] = C::store(static_cast<float>(C::load(xp[i])) * a + b0);
  }
}

Status run_instance_norm(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(3, 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(check_float_operand(call, x, "X"));
  float epsilon = 1e-5f;
  ARUN_RETURN_IF_ERROR(call.attr_float("epsilon", 1e-5f, &epsilon));
  if (!(epsilon >= 0.0f)) return call.attr_error("epsilon must be >= 0");
  if (x.rank() < 3 || x.rank() > kMaxRank) {
    return call.input_error("X must be N x C x D1.. (rank 3 to 8), got " + shape_text(x.shape));
  }
  const int64_t c = x.shape[1];
  for (size_t i = 1; i < 3; ++i) {
    if (call.inputs[i].shape != Shape{c}) {
      return call.input_error(std::string(i == 1 ? "scale " : "B ") + shape_text(call.inputs[i].shape) + " is not [" +
                              std::to_string(c) + "]");
    }
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  if (x.count() == 0) return Status::Ok();
  Status st;
  dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    InstanceNormParams<T> p{ptr<T>(x),
                            ptr<T>(call.inputs[1]),
                            ptr<T>(call.inputs[2]),
                            ptr<T>(call.outputs[0]),
                            x.shape[0],
                            c,
                            x.count() / (x.shape[0] * c),
                            epsilon};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), instance_norm_kernel<T>, p);
  });
  return st;
}

// ---- LRN: y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2),
// c + ceil((size-1)/2)])^beta ----

template <class T>
struct LrnParams {
  const T* x;
  T* y;
  int64_t n, c, inner, size;
  float alpha, beta, bias;
};

template <class T>
void lrn_kernel(arun::Block blk, const LrnParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n * p.c));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* x = blk.map(p.x, p.n * p.c * p.inner).data();
  T* y = blk.map(p.y, p.n * p.c * p.inner).data();
  const int64_t before = (p.size - 1) / 2, after = p.size - 1 - before;
  const double scale = double(p.alpha) / double(p.size);
  std::vector<double> sq(static_cast<size_t>(p.inner));
  for (size_t plane = r.first; plane < r.last; ++plane) {
    const int64_t img = static_cast<int64_t>(plane) / p.c, ch = static_cast<int64_t>(plane) % p.c;
    std::fill(sq.begin(), sq.end(), 0.0);
    const int64_t c0 = std::max<int64_t>(0, ch - before), c1 = std::min<int64_t>(p.c - 1, ch + after);
    for (int64_t k = c0; k <= c1; ++k) {
      const T* xk = x + (img * p.c + k) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        const double v = static_cast<float>(C::load(xk[i]));
        sq[i] += v * v;
      }
    }
    const T* xp = x + static_cast<int64_t>(plane) * p.inner;
    T* yp = y + static_cast<int64_t>(plane) * p.inner;
    for (int64_t i = 0; i < p.inner; ++i) {
      const double d = std::pow(double(p.bias) + scale * sq[i], double(p.beta));
      yp[i] = C::store(static_cast<float>(static_cast<float>(C::load(xp[i])) / d));
    }
  }
}

Status run_lrn(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(check_float_operand(call, x, "X"));
  int64_t size = 0;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
  if (!call.has_attr("size")) return call.attr_error("attribute 'size' is required");
  ARUN_RETURN_IF_ERROR(call.attr_int("size", 0, &size));
  ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 1e-4f, &alpha));
  ARUN_RETURN_IF_ERROR(call.attr_float("beta", 0.75f, &beta));
  ARUN_RETURN_IF_ERROR(call.attr_float("bias", 1.0f, &bias));
  if (size < 1 || size > (int64_t(1) << 30))
    return call.attr_error("size must be in [1, 2^30], got " + std::to_string(size));
  if (!std::isfinite(alpha) || !std::isfinite(beta) || !std::isfinite(bias)) {
    return call.attr_error("alpha, beta and bias must be finite");
  }
  if (x.rank() < 3 || x.rank() > kMaxRank) {
    return call.input_error("X must be N x C x D1.. (rank 3 to 8), got " + shape_text(x.shape));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  if (x.count() == 0) return Status::Ok();
  const int64_t c = x.shape[1];
  Status st;
  dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    LrnParams<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), x.shape[0], c, x.count() / (x.shape[0] * c), size, alpha, beta,
                   bias};
    const int64_t work = x.count() * std::min<int64_t>(size, c);
    st = launch_op(call, call.blocks_for(work, 1 << 14), lrn_kernel<T>, p);
  });
  return st;
}

// ---- LpNormalization: x divided by its L1 or L2 norm along `axis` (a zero norm gives 0) ----

template <class T>
struct LpNormParams {
  const T* x;
  T* y;
  int64_t outer, len, inner;
  int p;
};

template <class T>
void lp_norm_kernel(arun::Block blk, const LpNormParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.outer * p.inner));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const int64_t n = p.outer * p.len * p.inner;
  const T* x = blk.map(p.x, n).data();
  T* y = blk.map(p.y, n).data();
  for (size_t line = r.first; line < r.last; ++line) {
    const int64_t o = static_cast<int64_t>(line) / p.inner, i = static_cast<int64_t>(line) % p.inner;
    const int64_t base = o * p.len * p.inner + i;
    double norm = 0.0;
    for (int64_t j = 0; j < p.len; ++j) {
      const double v = static_cast<float>(C::load(x[base + j * p.inner]));
      norm += p.p == 1 ? std::fabs(v) : v * v;
    }
    if (p.p == 2) norm = std::sqrt(norm);
    const double inv = norm == 0.0 ? 0.0 : 1.0 / norm;
    for (int64_t j = 0; j < p.len; ++j) {
      y[base + j * p.inner] = C::store(static_cast<float>(static_cast<float>(C::load(x[base + j * p.inner])) * inv));
    }
  }
}

Status run_lp_norm(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(check_float_operand(call, x, "X"));
  int64_t axis_attr = -1, axis = 0, pv = 2;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", -1, &axis_attr));
  ARUN_RETURN_IF_ERROR(call.attr_int("p", 2, &pv));
  if (pv != 1 && pv != 2) return call.attr_error("p must be 1 or 2, got " + std::to_string(pv));
  if (x.rank() == 0 || x.rank() > kMaxRank) return call.input_error("X must have rank 1 to 8");
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is outside [-" + std::to_string(x.rank()) + ", " +
                           std::to_string(x.rank()) + ")");
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  if (x.count() == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape[d];
  Status st;
  dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    LpNormParams<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), outer, x.shape[axis], inner, static_cast<int>(pv)};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), lp_norm_kernel<T>, p);
  });
  return st;
}

}  // namespace

void register_channel_norm(std::vector<OpDef>& defs) {
  defs.push_back({"BatchNormalization",
                  &run_batchnorm,
                  {"epsilon", "fused_relu", "momentum", "opset", "spatial", "training_mode", "unbiased"}});
  defs.push_back({"InstanceNormalization", &run_instance_norm, {"epsilon"}});
  defs.push_back({"LRN", &run_lrn, {"alpha", "beta", "bias", "size"}});
  defs.push_back({"LpNormalization", &run_lp_norm, {"axis", "p"}});
}

}  // namespace arun::ops
