// Variadic Max, Min, Sum, Mean (1..N inputs, NumPy broadcasting of all of them; Max / Min on every
// real dtype with NaN propagating, Sum / Mean on floats) and Mod (fmod 0: the remainder takes the
// divisor's sign, integers only; fmod 1: C's fmod, the dividend's sign). Max / Min with two inputs
// give what elementwise.cpp's binary kernels gave (aclnn's Clamp relies on it).
#include <cmath>

#include "pointwise_common.hpp"

namespace arun::ops::pw_variadic {
namespace {

using pointwise::dispatch_floats;
using pointwise::dispatch_reals;
using pointwise::kFloatList;
using pointwise::kRealList;

enum class Fold { Max, Min, Sum, Mean };

template <Fold K, class V>
V fold(V acc, V x) {
  if constexpr (K == Fold::Sum || K == Fold::Mean) {
    return acc + x;
  } else {
    if constexpr (!std::is_integral_v<V>) {
      if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<V>::quiet_NaN();
    }
    if constexpr (K == Fold::Max) return acc < x ? x : acc;
    return x < acc ? x : acc;
  }
}

template <class T>
struct VariadicArgs {
  std::vector<const T*> ins;
  std::vector<int64_t> counts;
  std::vector<StridedWalk> walks;  // one per input over the output (operand 0 = the input)
  T* out;
  int64_t n;
};

template <class T, Fold K>
void variadic_kernel(arun::Block blk, const VariadicArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  using V = typename C::type;
  const size_t k = p.ins.size();
  std::vector<const T*> in(k);
  for (size_t i = 0; i < k; ++i) in[i] = blk.map(p.ins[i], p.counts[i]).data();
  T* out = blk.map(p.out, p.n).data();
  // A chunk of the output at a time is folded in the compute type (float16 rounds once, on store).
  constexpr size_t kChunk = 512;
  V acc[kChunk];
  for (size_t c0 = r.first; c0 < r.last; c0 += kChunk) {
    const size_t c1 = std::min(c0 + kChunk, r.last);
    for (size_t t = 0; t < k; ++t) {
      const StridedWalk& w = p.walks[t];
      const int64_t s = w.rank == 0 ? 0 : w.stride[0][w.rank - 1];
      pointwise::walk_rows(w, c0, c1, [&](size_t i, int64_t cnt, const StridedWalk::Cursor& c) {
        const T* src = in[t] + c.off[0];
        V* dst = acc + (i - c0);
        if (t == 0) {
          for (int64_t j = 0; j < cnt; ++j) dst[j] = C::load(src[j * s]);
        } else if (s == 1) {
          for (int64_t j = 0; j < cnt; ++j) dst[j] = fold<K>(dst[j], C::load(src[j]));
        } else {
          for (int64_t j = 0; j < cnt; ++j) dst[j] = fold<K>(dst[j], C::load(src[j * s]));
        }
      });
    }
    if constexpr (K == Fold::Mean) {
      const V count = static_cast<V>(k);
      for (size_t i = c0; i < c1; ++i) out[i] = C::store(acc[i - c0] / count);
    } else {
      for (size_t i = c0; i < c1; ++i) out[i] = C::store(acc[i - c0]);
    }
  }
}

// Two broadcast inputs, one output (Max / Min of two, aclnn's Clamp, Mod): one pass, as fast as
// Add's kernel.
template <class T>
struct PairArgs {
  const T* a;
  const T* b;
  T* out;
  int64_t na, nb, n;
  StridedWalk walk;
};

// The arguments of a two-input kernel writing call.outputs[0] of `n` elements, shaped `out`.
template <class T>
PairArgs<T> pair_args(const OpCall& call, const Tensor& a, const Tensor& b, int64_t n, const Shape& out) {
  return {ptr<T>(a),
          ptr<T>(b),
          ptr<T>(call.outputs[0]),
          a.count(),
          b.count(),
          n,
          pointwise::make_walk(out, a.shape, &b.shape)};
}

template <class T, Fold K>
void pair_kernel(arun::Block blk, const PairArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  using V = typename C::type;
  const T* a = blk.map(p.a, p.na).data();
  const T* b = blk.map(p.b, p.nb).data();
  T* o = blk.map(p.out, p.n).data();
  pointwise::binary_rows(p.walk, r.first, r.last, a, b, o, [](T x, T y) {
    const V v = fold<K>(C::load(x), C::load(y));
    if constexpr (K == Fold::Mean) return C::store(v / V(2));
    return C::store(v);
  });
}

template <Fold K>
Status run_variadic(const OpCall& call) {
  if (call.inputs.empty()) return call.input_error("takes at least 1 input, got 0");
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x0 = call.inputs[0];
  std::vector<const Shape*> shapes;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& t = call.inputs[i];
    if (!t.present()) return call.input_error("input " + std::to_string(i) + " is omitted");
    if (t.dtype != x0.dtype) {
      return call.input_error("input " + std::to_string(i) + " is " + dtype_name(t.dtype) + " but input 0 is " +
                              dtype_name(x0.dtype));
    }
    shapes.push_back(&t.shape);
  }
  Shape out;
  if (!pointwise::broadcast_all(shapes, &out)) {
    std::string list;
    for (const Shape* s : shapes) list += (list.empty() ? "" : ", ") + shape_text(*s);
    return call.input_error("shapes " + list + " do not broadcast");
  }
  if (out.size() > static_cast<size_t>(kMaxRank)) {
    return call.input_error("rank " + std::to_string(out.size()) + " exceeds " + std::to_string(kMaxRank));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x0.dtype, out));
  const int64_t n = numel(out);
  Status st;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    if (n == 0) return;
    if (call.inputs.size() == 2) {
      const Tensor& a = call.inputs[0];
      const Tensor& b = call.inputs[1];
      st = launch_op(call, call.blocks_for(n, 1 << 14), pair_kernel<T, K>, pair_args<T>(call, a, b, n, out));
      return;
    }
    VariadicArgs<T> p{{}, {}, {}, ptr<T>(call.outputs[0]), n};
    for (const Tensor& t : call.inputs) {
      p.ins.push_back(ptr<T>(t));
      p.counts.push_back(t.count());
      p.walks.push_back(pointwise::make_walk(out, t.shape, nullptr));
    }
    st = launch_op(call, call.blocks_for(n, 1 << 14), variadic_kernel<T, K>, std::move(p));
  };
  constexpr bool kReals = K == Fold::Max || K == Fold::Min;
  const bool ok = kReals ? dispatch_reals(x0.dtype, go) : dispatch_floats(x0.dtype, go);
  if (!ok)
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x0.dtype) + " (" +
                            (kReals ? kRealList : kFloatList) + ")");
  return st;
}

// ---- Mod ----

template <class T, bool kFmod>
void mod_kernel(arun::Block blk, const PairArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const T* a = blk.map(p.a, p.na).data();
  const T* b = blk.map(p.b, p.nb).data();
  T* o = blk.map(p.out, p.n).data();
  pointwise::binary_rows(p.walk, r.first, r.last, a, b, o, [&](T x, T y) -> T {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "Mod: integer division by zero");
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return 0;  // also for the lowest value, whose quotient overflows
      }
      const T rem = static_cast<T>(x % y);
      if constexpr (!kFmod && std::is_signed_v<T>) {
        if (rem != 0 && ((rem < 0) != (y < 0))) return static_cast<T>(rem + y);  // the divisor's sign
      }
      return rem;
    } else {
      using C = Compute<T>;
      return C::store(std::fmod(C::load(x), C::load(y)));
    }
  });
}

Status run_mod(const OpCall& call) {
  Shape out;
  ARUN_RETURN_IF_ERROR(binary_geometry(call, call.inputs.empty() ? ACL_DT_UNDEFINED : call.inputs[0].dtype, &out));
  int64_t fmod = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("fmod", 0, &fmod));
  if (fmod != 0 && fmod != 1) return call.attr_error("fmod must be 0 or 1, got " + std::to_string(fmod));
  const Tensor& a = call.inputs[0];
  const Tensor& b = call.inputs[1];
  if (pointwise::is_float(a.dtype) && fmod != 1) {
    return call.attr_error(std::string("fmod must be 1 for floating-point inputs (") + dtype_name(a.dtype) + ")");
  }
  const int64_t n = numel(out);
  Status st;
  const bool ok = dispatch_reals(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (n == 0) return;
    const PairArgs<T> p = pair_args<T>(call, a, b, n, out);
    const uint32_t blocks = call.blocks_for(n, 1 << 14);
    st = fmod != 0 ? launch_op(call, blocks, mod_kernel<T, true>, p) : launch_op(call, blocks, mod_kernel<T, false>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(a.dtype) + " (" + kRealList + ")");
  return st;
}

}  // namespace
}  // namespace arun::ops::pw_variadic

namespace arun::ops {

void register_variadic(std::vector<OpDef>& defs) {
  using namespace pw_variadic;
  // Max and Min moved here from elementwise.cpp (two inputs: the same results) to take 1..N inputs.
  defs.push_back({"Max", &run_variadic<Fold::Max>, {}});
  defs.push_back({"Min", &run_variadic<Fold::Min>, {}});
  defs.push_back({"Sum", &run_variadic<Fold::Sum>, {}});
  defs.push_back({"Mean", &run_variadic<Fold::Mean>, {}});
  defs.push_back({"Mod", &run_mod, {"fmod"}});
}

}  // namespace arun::ops
