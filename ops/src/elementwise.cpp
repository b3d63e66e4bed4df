// Binary arithmetic with NumPy broadcasting: Add, Sub, Mul, Div, Pow (float32/16/64,
// int32/64). One launch; each block takes a contiguous share of the output and walks its inputs
// with broadcast strides (a plain loop when both inputs already have the output's shape). Where
// (ONNX's select, three-way broadcasting) moves elements by size, so any dtype works.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "binary_math.hpp"
#include "kernel_common.hpp"

namespace arun::ops {
namespace {

template <class T>
struct BinaryParams {
  const T* a;
  const T* b;
  T* out;
  int64_t na, nb, n;
  bool same_shape;
  StridedWalk walk;
};

template <class T, class Op>
void binary_kernel(arun::Block blk, const BinaryParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* a = blk.map(p.a, p.na).data();
  const T* b = blk.map(p.b, p.nb).data();
  T* o = blk.map(p.out, p.n).data();
  auto one = [&](T x, T y) -> T {
    auto cx = C::load(x);
    auto cy = C::load(y);
    if constexpr (std::is_integral_v<T> && std::is_same_v<Op, DivOp>) {
      if (cy == 0) blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "Div: integer division by zero");
      if (cy == -1 && cx == std::numeric_limits<T>::min()) return cx;  // wraps, as two's complement does
    }
    return C::store(Op::apply(cx, cy));
  };
  if (p.same_shape) {
    for (size_t i = r.first; i < r.last; ++i) o[i] = one(a[i], b[i]);
    return;
  }
  // Broadcasting: a row of the innermost dimension at a time, with that dimension's strides (0 or 1
  // for the common patterns, which get loops the compiler can vectorise), then one cursor step.
  if (p.walk.rank == 0) {
    o[0] = one(a[0], b[0]);
    return;
  }
  const int last = p.walk.rank - 1;
  const int64_t inner = p.walk.dims[last], sa = p.walk.stride[0][last], sb = p.walk.stride[1][last];
  StridedWalk::Cursor c = p.walk.at(static_cast<int64_t>(r.first));
  for (size_t i = r.first; i < r.last;) {
    const int64_t cnt = std::min<int64_t>(inner - c.idx[last], static_cast<int64_t>(r.last - i));
    const T* pa = a + c.off[0];
    const T* pb = b + c.off[1];
    T* po = o + i;
    if (sa == 1 && sb == 1) {
      for (int64_t j = 0; j < cnt; ++j) po[j] = one(pa[j], pb[j]);
    } else if (sa == 1 && sb == 0) {
      const T y = *pb;
      for (int64_t j = 0; j < cnt; ++j) po[j] = one(pa[j], y);
    } else if (sa == 0 && sb == 1) {
      const T x = *pa;
      for (int64_t j = 0; j < cnt; ++j) po[j] = one(x, pb[j]);
    } else {
      for (int64_t j = 0; j < cnt; ++j) po[j] = one(pa[j * sa], pb[j * sb]);
    }
    i += static_cast<size_t>(cnt);
    if (i >= r.last) break;
    // To the row's last element, then one step (which carries into the outer dimensions).
    c.off[0] += (cnt - 1) * sa;
    c.off[1] += (cnt - 1) * sb;
    c.idx[last] += cnt - 1;
    p.walk.next(c);
  }
}

template <class Op, bool kFloatOnly>
Status run_binary(const OpCall& call) {
  Shape out;
  ARUN_RETURN_IF_ERROR(binary_geometry(call, call.inputs.empty() ? ACL_DT_UNDEFINED : call.inputs[0].dtype, &out));
  const Tensor& a = call.inputs[0];
  const Tensor& b = call.inputs[1];
  const int64_t n = numel(out);
  if (n == 0) return Status::Ok();
  Status st;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    BinaryParams<T> p{ptr<T>(a), ptr<T>(b), ptr<T>(call.outputs[0]),          a.count(),
                      b.count(), n,         a.shape == out && b.shape == out, {}};
    p.walk.rank = static_cast<int>(out.size());
    for (size_t d = 0; d < out.size(); ++d) p.walk.dims[d] = out[d];
    broadcast_strides(a.shape, out, p.walk.stride[0]);
    broadcast_strides(b.shape, out, p.walk.stride[1]);
    st = launch_op(call, call.blocks_for(n, 1 << 14), binary_kernel<T, Op>, p);
  };
  const bool ok = kFloatOnly ? dispatch_float(a.dtype, go) : dispatch_numeric(a.dtype, go);
  if (!ok) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(a.dtype) +
                            (kFloatOnly ? " (float32, float16)" : " (float32, float16, float64, int32, int64)"));
  }
  return st;
}

// ---- Pow with an exponent of another type (ONNX Pow-12+: T1 != T) ----
// ONNX's reference computes NumPy's power of the two types (in double once either is a float or
// they differ in width) and casts the result to the base's type: so does this kernel. An integer
// base truncates toward zero, saturating; NaN becomes 0 (a float-to-integer cast of NaN or of an
// out-of-range value is undefined in C++).
template <class T, class E>
struct PowMixedParams {
  const T* a;
  const E* b;
  T* out;
  int64_t na, nb, n;
  StridedWalk walk;
};

template <class T>
T store_from_double(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return Compute<T>::store(static_cast<typename Compute<T>::type>(v));
  }
}

template <class T, class E>
void pow_mixed_kernel(arun::Block blk, const PowMixedParams<T, E>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const T* a = blk.map(p.a, p.na).data();
  const E* b = blk.map(p.b, p.nb).data();
  T* o = blk.map(p.out, p.n).data();
  StridedWalk::Cursor c = p.walk.at(static_cast<int64_t>(r.first));
  for (size_t i = r.first; i < r.last; ++i, p.walk.next(c)) {
    const double x = static_cast<double>(Compute<T>::load(a[c.off[0]]));
    const double y = static_cast<double>(Compute<E>::load(b[c.off[1]]));
    o[i] = store_from_double<T>(std::pow(x, y));
  }
}

Status run_pow(const OpCall& call) {
  if (call.inputs.size() != 2 || call.inputs[0].dtype == call.inputs[1].dtype) return run_binary<PowOp, false>(call);
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& a = call.inputs[0];
  const Tensor& b = call.inputs[1];
  Shape out;
  if (!broadcast_shapes(a.shape, b.shape, &out) || out.size() > static_cast<size_t>(kMaxRank)) {
    return call.input_error("shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not broadcast");
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, a.dtype, out));
  const int64_t n = numel(out);
  Status st;
  bool exponent_ok = true;
  const bool base_ok = dispatch_numeric(a.dtype, [&](auto base) {
    using T = decltype(base);
    exponent_ok = dispatch_dtypes<float, Half, double, int32_t, int64_t, uint32_t, uint64_t>(b.dtype, [&](auto exp) {
      using E = decltype(exp);
      if (n == 0) return;
      PowMixedParams<T, E> p{ptr<T>(a), ptr<E>(b), ptr<T>(call.outputs[0]), a.count(), b.count(), n, {}};
      p.walk.rank = static_cast<int>(out.size());
      for (size_t d = 0; d < out.size(); ++d) p.walk.dims[d] = out[d];
      broadcast_strides(a.shape, out, p.walk.stride[0]);
      broadcast_strides(b.shape, out, p.walk.stride[1]);
      st = launch_op(call, call.blocks_for(n, 1 << 14), pow_mixed_kernel<T, E>, p);
    });
  });
  if (!base_ok || !exponent_ok) {
    return call.dtype_error(std::string("no kernel for a ") + dtype_name(a.dtype) + " base with a " +
                            dtype_name(b.dtype) +
                            " exponent (base float32, float16, float64, int32, int64; exponent also uint32, uint64)");
  }
  return st;
}

// ---- Where: out = cond ? x : y, three-way broadcasting, elements moved by size ----

struct WhereParams {
  const uint8_t* cond;
  const uint8_t* x;
  const uint8_t* y;
  uint8_t* out;
  int64_t nc, nx, ny, n;
  int rank;
  int64_t dims[kMaxRank];
  int64_t stride[3][kMaxRank];  // cond, x, y (0 = broadcast)
};

template <class T>
void where_kernel(arun::Block blk, const WhereParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const uint8_t* c = blk.map(p.cond, p.nc).data();
  const T* x = blk.map(reinterpret_cast<const T*>(p.x), p.nx).data();
  const T* y = blk.map(reinterpret_cast<const T*>(p.y), p.ny).data();
  T* o = blk.map(reinterpret_cast<T*>(p.out), p.n).data();
  int64_t idx[kMaxRank] = {}, off[3] = {};
  int64_t lin = static_cast<int64_t>(r.first);
  for (int d = p.rank - 1; d >= 0; --d) {
    idx[d] = lin % p.dims[d];
    lin /= p.dims[d];
    for (int k = 0; k < 3; ++k) off[k] += idx[d] * p.stride[k][d];
  }
  for (size_t i = r.first; i < r.last; ++i) {
    o[i] = c[off[0]] != 0 ? x[off[1]] : y[off[2]];
    for (int d = p.rank - 1; d >= 0; --d) {
      for (int k = 0; k < 3; ++k) off[k] += p.stride[k][d];
      if (++idx[d] < p.dims[d]) break;
      for (int k = 0; k < 3; ++k) off[k] -= p.stride[k][d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

Status run_where(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(3, 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({1, 2}));
  const Tensor& c = call.inputs[0];
  const Tensor& x = call.inputs[1];
  const Tensor& y = call.inputs[2];
  if (c.dtype != ACL_BOOL && c.dtype != ACL_UINT8) {
    return call.dtype_error(std::string("condition must be bool or uint8, got ") + dtype_name(c.dtype));
  }
  Shape xy, out;
  if (!broadcast_shapes(x.shape, y.shape, &xy) || !broadcast_shapes(c.shape, xy, &out)) {
    return call.input_error("shapes " + shape_text(c.shape) + ", " + shape_text(x.shape) + " and " +
                            shape_text(y.shape) + " do not broadcast");
  }
  if (out.size() > static_cast<size_t>(kMaxRank)) {
    return call.input_error("rank " + std::to_string(out.size()) + " exceeds " + std::to_string(kMaxRank));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
  const int64_t n = numel(out);
  if (n == 0) return Status::Ok();
  WhereParams p{ptr<uint8_t>(c),
                ptr<uint8_t>(x),
                ptr<uint8_t>(y),
                ptr<uint8_t>(call.outputs[0]),
                c.count(),
                x.count(),
                y.count(),
                n,
                static_cast<int>(out.size()),
                {},
                {}};
  for (size_t d = 0; d < out.size(); ++d) p.dims[d] = out[d];
  broadcast_strides(c.shape, out, p.stride[0]);
  broadcast_strides(x.shape, out, p.stride[1]);
  broadcast_strides(y.shape, out, p.stride[2]);
  const uint32_t blocks = call.blocks_for(n, 1 << 14);
  switch (aclDataTypeSize(x.dtype)) {
    case 1:
      return launch_op(call, blocks, where_kernel<uint8_t>, p);
    case 2:
      return launch_op(call, blocks, where_kernel<uint16_t>, p);
    case 4:
      return launch_op(call, blocks, where_kernel<uint32_t>, p);
    case 8:
      return launch_op(call, blocks, where_kernel<uint64_t>, p);
    default:
      return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype));
  }
}

}  // namespace

void register_elementwise(std::vector<OpDef>& defs) {
  defs.push_back({"Add", &run_binary<AddOp, false>, {}});
  defs.push_back({"Sub", &run_binary<SubOp, false>, {}});
  defs.push_back({"Mul", &run_binary<MulOp, false>, {}});
  defs.push_back({"Div", &run_binary<DivOp, false>, {}});
  defs.push_back({"Pow", &run_pow, {}});
  // Max and Min (1..N inputs) are registered by variadic.cpp.
  defs.push_back({"Where", &run_where, {}});
}

}  // namespace arun::ops
