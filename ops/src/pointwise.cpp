// Unary pointwise ops beyond activation.cpp's (ONNX opsets 7..17): Elu, Selu, Celu, Softplus,
// Softsign, HardSigmoid, HardSwish, ThresholdedRelu, Shrink, Reciprocal, Floor, Ceil, Round (half to
// even), Sin, Cos on float32 / float16 / float64; Sign, Abs, Neg on floats and integers; PRelu (slope
// broadcast to X), Clip (attributes before opset 11, optional scalar inputs read in the kernel
// from 11, integers from 12) and inference Dropout (a copy; its mask all true).
#include <cmath>

#include "pointwise_common.hpp"

namespace arun::ops::pw_unary {
namespace {

using pointwise::dispatch_floats;
using pointwise::dispatch_ints;
using pointwise::is_float;
using pointwise::kFloatList;
using pointwise::kRealList;

enum class Fn {
  Elu,
  Selu,
  Celu,
  Softplus,
  Softsign,
  HardSigmoid,
  HardSwish,
  ThresholdedRelu,
  Shrink,
  Reciprocal,
  Floor,
  Ceil,
  Round,
  Sin,
  Cos,
  Sign,
  Abs,
  Neg
};

// Attribute values as the op reads them (alpha, beta / gamma / lambd ...).
struct Coeffs {
  float a = 0, b = 0;
};

// Round half to even without depending on the thread's rounding mode.
template <class C>
C round_half_even(C x) {
  if (!std::isfinite(x)) return x;
  const C f = std::floor(x);
  const C diff = x - f;
  if (diff > C(0.5)) return f + C(1);
  if (diff < C(0.5)) return f;
  return std::fmod(f, C(2)) == C(0) ? f : f + C(1);
}

// C is float (float32 / float16 storage) or double.
template <Fn K, class C>
C apply(C x, const Coeffs& k) {
  const C a = static_cast<C>(k.a), b = static_cast<C>(k.b);
  if constexpr (K == Fn::Elu) return x < C(0) ? a * (std::exp(x) - C(1)) : x;
  if constexpr (K == Fn::Selu) return x <= C(0) ? b * (a * std::exp(x) - a) : b * x;  // a = alpha, b = gamma
  if constexpr (K == Fn::Celu) return std::max(C(0), x) + std::min(C(0), a * (std::exp(x / a) - C(1)));
  if constexpr (K == Fn::Softplus) return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  if constexpr (K == Fn::Softsign) return x / (C(1) + std::fabs(x));
  if constexpr (K == Fn::HardSigmoid) return std::max(C(0), std::min(C(1), a * x + b));
  if constexpr (K == Fn::HardSwish) return x * std::max(C(0), std::min(C(1), x / C(6) + C(0.5)));
  if constexpr (K == Fn::ThresholdedRelu) return x > a ? x : C(0);
  if constexpr (K == Fn::Shrink) return x < -b ? x + a : x > b ? x - a : C(0);  // a = bias, b = lambd
  if constexpr (K == Fn::Reciprocal) return C(1) / x;
  if constexpr (K == Fn::Floor) return std::floor(x);
  if constexpr (K == Fn::Ceil) return std::ceil(x);
  if constexpr (K == Fn::Round) return round_half_even(x);
  if constexpr (K == Fn::Sin) return std::sin(x);
  if constexpr (K == Fn::Cos) return std::cos(x);
  if constexpr (K == Fn::Sign) return x > C(0) ? C(1) : x < C(0) ? C(-1) : x;  // keeps 0, -0 and NaN
  if constexpr (K == Fn::Abs) return std::fabs(x);
  if constexpr (K == Fn::Neg) return -x;
  return x;
}

// Integers: Sign, Abs (identity when unsigned) and Neg wrap as two's complement does.
template <Fn K, class T>
T apply_int(T x) {
  using U = std::make_unsigned_t<T>;
  if constexpr (K == Fn::Sign) return x > T(0) ? T(1) : x < T(0) ? static_cast<T>(-1) : T(0);
  if constexpr (K == Fn::Neg) return static_cast<T>(U(0) - static_cast<U>(x));
  if constexpr (K == Fn::Abs) {
    if constexpr (std::is_signed_v<T>) return x < T(0) ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
  }
  return x;
}

template <class T>
struct UnaryArgs {
  const T* in;
  T* out;
  int64_t n;
  Coeffs k;
};

template <class T, Fn K>
void unary_kernel(arun::Block blk, const UnaryArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const T* in = blk.map(p.in, p.n).data();
  T* out = blk.map(p.out, p.n).data();
  if constexpr (std::is_integral_v<T>) {
    for (size_t i = r.first; i < r.last; ++i) out[i] = apply_int<K>(in[i]);
  } else {
    using C = Compute<T>;
    for (size_t i = r.first; i < r.last; ++i) out[i] = C::store(apply<K>(C::load(in[i]), p.k));
  }
}

// Which dtypes an op takes beyond the floats: ONNX's Sign and Abs take every integer, Neg the signed ones.
template <Fn K>
bool takes_int(aclDataType d) {
  if constexpr (K == Fn::Sign || K == Fn::Abs) return pointwise::is_int(d);
  if constexpr (K == Fn::Neg) return d == ACL_INT8 || d == ACL_INT16 || d == ACL_INT32 || d == ACL_INT64;
  return false;
}

template <Fn K>
Status run_fn(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  Coeffs k;
  if constexpr (K == Fn::Elu) ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 1.0f, &k.a));
  if constexpr (K == Fn::Selu) {
    ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 1.67326319217681884765625f, &k.a));
    ARUN_RETURN_IF_ERROR(call.attr_float("gamma", 1.05070102214813232421875f, &k.b));
  }
  if constexpr (K == Fn::Celu) {
    ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 1.0f, &k.a));
    if (k.a == 0.0f || !std::isfinite(k.a)) return call.attr_error("alpha must be finite and non-zero");
  }
  if constexpr (K == Fn::HardSigmoid) {
    ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 0.2f, &k.a));
    ARUN_RETURN_IF_ERROR(call.attr_float("beta", 0.5f, &k.b));
  }
  if constexpr (K == Fn::ThresholdedRelu) ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 1.0f, &k.a));
  if constexpr (K == Fn::Shrink) {
    ARUN_RETURN_IF_ERROR(call.attr_float("bias", 0.0f, &k.a));
    ARUN_RETURN_IF_ERROR(call.attr_float("lambd", 0.5f, &k.b));
  }
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  const int64_t n = x.count();
  Status st;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    if (n == 0) return;
    UnaryArgs<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), n, k};
    st = launch_op(call, call.blocks_for(n, 1 << 14), unary_kernel<T, K>, p);
  };
  bool ok = dispatch_floats(x.dtype, go);
  if constexpr (K == Fn::Sign || K == Fn::Abs || K == Fn::Neg) {
    if (!ok && takes_int<K>(x.dtype)) ok = dispatch_ints(x.dtype, go);
  }
  if (!ok) {
    const char* list = K == Fn::Sign || K == Fn::Abs ? kRealList
                       : K == Fn::Neg                ? "float32, float16, float64, int8, int16, int32, int64"
                                                     : kFloatList;
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (" + list + ")");
  }
  return st;
}

// ---- PRelu: Y = X < 0 ? slope * X : X, slope broadcast to X (unidirectional) ----

template <class T>
struct PreluArgs {
  const T* x;
  const T* slope;
  T* y;
  int64_t n, n_slope;
  StridedWalk walk;  // operand 0 = X (contiguous), 1 = slope
};

template <class T>
void prelu_kernel(arun::Block blk, const PreluArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* x = blk.map(p.x, p.n).data();
  const T* s = blk.map(p.slope, p.n_slope).data();
  T* y = blk.map(p.y, p.n).data();
  pointwise::binary_rows(p.walk, r.first, r.last, x, s, y, [](T xv, T sv) {
    const auto cx = C::load(xv);
    return C::store(cx < 0 ? C::load(sv) * cx : cx);
  });
}

Status run_prelu(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1}));
  const Tensor& x = call.inputs[0];
  const Tensor& slope = call.inputs[1];
  Shape out;
  if (x.rank() > kMaxRank) return call.input_error("rank exceeds " + std::to_string(kMaxRank));
  if (!broadcast_shapes(x.shape, slope.shape, &out) || out != x.shape) {
    return call.input_error("slope " + shape_text(slope.shape) + " does not broadcast to X " + shape_text(x.shape));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  Status st;
  const bool ok = dispatch_floats(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (x.count() == 0) return;
    PreluArgs<T> p{ptr<T>(x), ptr<T>(slope), ptr<T>(call.outputs[0]),
                   x.count(), slope.count(), pointwise::make_walk(x.shape, x.shape, &slope.shape)};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), prelu_kernel<T>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (" + kFloatList + ")");
  return st;
}

// ---- Clip ----

template <class T>
struct ClipArgs {
  const T* x;
  T* y;
  int64_t n;
  const T* lo;  // the optional scalar inputs (opset >= 11), read in the kernel; nullptr when omitted
  const T* hi;
  float lo_attr, hi_attr;  // opset < 11: the attributes (floats only)
};

template <class T>
void clip_kernel(arun::Block blk, const ClipArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  using V = typename C::type;
  V lo, hi;
  if constexpr (std::is_integral_v<T>) {
    lo = std::numeric_limits<T>::lowest();
    hi = std::numeric_limits<T>::max();
  } else {
    lo = static_cast<V>(p.lo_attr);
    hi = static_cast<V>(p.hi_attr);
  }
  if (p.lo != nullptr) lo = C::load(*blk.map(p.lo, 1).data());
  if (p.hi != nullptr) hi = C::load(*blk.map(p.hi, 1).data());
  const T* x = blk.map(p.x, p.n).data();
  T* y = blk.map(p.y, p.n).data();
  // NumPy's clip: max then min, so min > max gives max; NaN (in X) stays NaN.
  for (size_t i = r.first; i < r.last; ++i) {
    V v = C::load(x[i]);
    v = v < lo ? lo : v;
    v = hi < v ? hi : v;
    y[i] = C::store(v);
  }
}

Status run_clip(const OpCall& call) {
  int64_t opset = 13;
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", 13, &opset));
  const bool attrs = opset < 11;
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, attrs ? 1 : 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  // Absent attributes mean T's lowest / max: infinities clip nothing in any float type.
  float lo_attr = -INFINITY, hi_attr = INFINITY;
  if (attrs) {
    ARUN_RETURN_IF_ERROR(call.attr_float("min", lo_attr, &lo_attr));
    ARUN_RETURN_IF_ERROR(call.attr_float("max", hi_attr, &hi_attr));
  } else if (call.has_attr("min") || call.has_attr("max")) {
    return call.attr_error("from opset 11 min and max are inputs, not attributes (opset " + std::to_string(opset) +
                           ")");
  }
  for (size_t i = 1; i < call.inputs.size(); ++i) {
    const Tensor& b = call.inputs[i];
    if (!b.present()) continue;
    if (b.dtype != x.dtype) {
      return call.input_error(std::string(i == 1 ? "min" : "max") + " is " + dtype_name(b.dtype) + ", input is " +
                              dtype_name(x.dtype));
    }
    if (b.count() != 1) {
      return call.input_error(std::string(i == 1 ? "min" : "max") + " must be a scalar, got shape " +
                              shape_text(b.shape));
    }
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  // Integers from opset 12 on.
  const bool ints_ok = opset >= 12 && pointwise::is_int(x.dtype);
  if (!is_float(x.dtype) && !ints_ok) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " at opset " + std::to_string(opset) +
                            " (" + (opset >= 12 ? kRealList : kFloatList) + ")");
  }
  if (x.count() == 0) return Status::Ok();
  Status st;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    auto bound = [&](size_t i) {
      return i < call.inputs.size() && call.inputs[i].present() ? ptr<T>(call.inputs[i]) : nullptr;
    };
    ClipArgs<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), x.count(), bound(1), bound(2), lo_attr, hi_attr};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), clip_kernel<T>, p);
  };
  if (!dispatch_floats(x.dtype, go)) dispatch_ints(x.dtype, go);
  return st;
}

// ---- Dropout (inference): Y = X, the optional mask all true ----

struct DropoutArgs {
  const uint8_t* x;
  uint8_t* y;
  size_t bytes;
  uint8_t* mask;  // nullptr when the mask output is omitted
  int64_t mask_n;
  size_t mask_es;
  uint64_t one;             // the mask's "true" in its dtype (bool 1, or T's 1 before opset 10)
  const uint8_t* training;  // the optional training_mode input (opset >= 12)
};

void dropout_kernel(arun::Block blk, const DropoutArgs& p) {
  if (p.training != nullptr && *blk.map(p.training, 1).data() != 0) {
    blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH,
             "Dropout: training_mode is true; ascend-run runs Dropout for inference only (training_mode false or "
             "omitted)");
  }
  const IndexRange r = blk.range(p.bytes);
  if (r.size() > 0 && p.x != p.y) {
    std::memcpy(blk.map(p.y, p.bytes).data() + r.first, blk.map(p.x, p.bytes).data() + r.first, r.size());
  }
  if (p.mask == nullptr) return;
  const IndexRange m = blk.range(static_cast<size_t>(p.mask_n));
  if (m.size() == 0) return;
  uint8_t* mask = blk.map(p.mask, static_cast<size_t>(p.mask_n) * p.mask_es).data();
  for (size_t i = m.first; i < m.last; ++i) std::memcpy(mask + i * p.mask_es, &p.one, p.mask_es);
}

Status run_dropout(const OpCall& call) {
  int64_t opset = 13;
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", 13, &opset));
  const bool ratio_attr = opset < 12;
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, ratio_attr ? 1 : 3));
  if (call.outputs.empty() || call.outputs.size() > 2) {
    return call.output_error("produces 1 or 2 outputs, got " + std::to_string(call.outputs.size()) +
                             " output descriptions");
  }
  const Tensor& x = call.inputs[0];
  if (ratio_attr) {
    float ratio = 0.5f;
    ARUN_RETURN_IF_ERROR(call.attr_float("ratio", 0.5f, &ratio));
    if (!(ratio >= 0.0f && ratio <= 1.0f))
      return call.attr_error("ratio " + std::to_string(ratio) + " is outside [0, 1]");
  } else if (call.has_attr("ratio")) {
    return call.attr_error("from opset 12 ratio is an input, not an attribute (opset " + std::to_string(opset) + ")");
  }
  if (!is_float(x.dtype)) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (" + kFloatList + ")");
  }
  if (call.inputs.size() > 1 && call.inputs[1].present()) {
    const Tensor& ratio = call.inputs[1];
    if (!is_float(ratio.dtype) || ratio.count() != 1) {
      return call.input_error("ratio must be a float scalar, got " + std::string(dtype_name(ratio.dtype)) + " " +
                              shape_text(ratio.shape));
    }
  }
  const Tensor* training = call.inputs.size() > 2 && call.inputs[2].present() ? &call.inputs[2] : nullptr;
  if (training != nullptr && (training->dtype != ACL_BOOL || training->count() != 1)) {
    return call.input_error("training_mode must be a bool scalar, got " + std::string(dtype_name(training->dtype)) +
                            " " + shape_text(training->shape));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  DropoutArgs p{ptr<uint8_t>(x),
                ptr<uint8_t>(call.outputs[0]),
                static_cast<size_t>(x.count()) * aclDataTypeSize(x.dtype),
                nullptr,
                0,
                1,
                1,
                training != nullptr ? ptr<uint8_t>(*training) : nullptr};
  if (call.outputs.size() == 2 && call.outputs[1].present()) {
    // Before opset 10 the mask has X's type, from 10 on it is bool.
    const aclDataType mask_dtype = opset < 10 ? x.dtype : ACL_BOOL;
    ARUN_RETURN_IF_ERROR(call.expect_output(1, mask_dtype, x.shape));
    p.mask = ptr<uint8_t>(call.outputs[1]);
    p.mask_n = x.count();
    p.mask_es = aclDataTypeSize(mask_dtype);
    pointwise::scalar_bytes(mask_dtype, 1.0, 1, true, &p.one);
  }
  if (x.count() == 0 && training == nullptr) return Status::Ok();
  return launch_op(call, call.blocks_for(x.count(), 1 << 16), dropout_kernel, p);
}

}  // namespace
}  // namespace arun::ops::pw_unary

namespace arun::ops {

void register_pointwise(std::vector<OpDef>& defs) {
  using namespace pw_unary;
  defs.push_back({"Elu", &run_fn<Fn::Elu>, {"alpha"}});
  defs.push_back({"Selu", &run_fn<Fn::Selu>, {"alpha", "gamma"}});
  defs.push_back({"Celu", &run_fn<Fn::Celu>, {"alpha"}});
  defs.push_back({"Softplus", &run_fn<Fn::Softplus>, {}});
  defs.push_back({"Softsign", &run_fn<Fn::Softsign>, {}});
  defs.push_back({"HardSigmoid", &run_fn<Fn::HardSigmoid>, {"alpha", "beta"}});
  defs.push_back({"HardSwish", &run_fn<Fn::HardSwish>, {}});
  defs.push_back({"ThresholdedRelu", &run_fn<Fn::ThresholdedRelu>, {"alpha"}});
  defs.push_back({"Shrink", &run_fn<Fn::Shrink>, {"bias", "lambd"}});
  defs.push_back({"Reciprocal", &run_fn<Fn::Reciprocal>, {}});
  defs.push_back({"Floor", &run_fn<Fn::Floor>, {}});
  defs.push_back({"Ceil", &run_fn<Fn::Ceil>, {}});
  defs.push_back({"Round", &run_fn<Fn::Round>, {}});
  defs.push_back({"Sin", &run_fn<Fn::Sin>, {}});
  defs.push_back({"Cos", &run_fn<Fn::Cos>, {}});
  defs.push_back({"Sign", &run_fn<Fn::Sign>, {}});
  // Abs and Neg moved here from activation.cpp to take integers too (float results unchanged).
  defs.push_back({"Abs", &run_fn<Fn::Abs>, {}});
  defs.push_back({"Neg", &run_fn<Fn::Neg>, {}});
  defs.push_back({"PRelu", &run_prelu, {}});
  defs.push_back({"Clip", &run_clip, {"min", "max", "opset"}});
  defs.push_back({"Dropout", &run_dropout, {"ratio", "seed", "opset"}});
}

}  // namespace arun::ops
