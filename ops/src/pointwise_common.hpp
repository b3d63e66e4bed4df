// What the pointwise families (pointwise.cpp, compare_logic.cpp, variadic.cpp, creation.cpp) share:
// dispatch over every real dtype ONNX's elementwise ops take, broadcast geometry for one output and
// any number of operands, the row walk the broadcasting kernels use, and a scalar converted to a
// dtype's bytes (fills). Private to ops/src.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernel_common.hpp"

namespace arun::ops::pointwise {

// The float dtypes with a kernel here: float32, float16 (storage, float compute), float64.
template <class F>
bool dispatch_floats(aclDataType dtype, F&& f) {
  return dispatch_dtypes<float, Half, double>(dtype, f);
}

// The integer dtypes (not bool).
template <class F>
bool dispatch_ints(aclDataType dtype, F&& f) {
  return dispatch_dtypes<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>(dtype, f);
}

// Floats and integers: what ONNX calls "all numeric types" (bfloat16 aside).
template <class F>
bool dispatch_reals(aclDataType dtype, F&& f) {
  return dispatch_floats(dtype, f) || dispatch_ints(dtype, f);
}

inline bool is_float(aclDataType d) {
  return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_DOUBLE;
}
inline bool is_int(aclDataType d) {
  return dispatch_ints(d, [](auto) {});
}

inline const char* kFloatList = "float32, float16, float64";
inline const char* kRealList = "float32, float16, float64, int8, uint8, int16, uint16, int32, uint32, int64, uint64";

// The NumPy broadcast of every present shape in `shapes` into *out; false when they do not broadcast.
inline bool broadcast_all(const std::vector<const Shape*>& shapes, Shape* out) {
  Shape r;
  for (const Shape* s : shapes) {
    Shape next;
    if (!broadcast_shapes(r, *s, &next)) return false;
    r = std::move(next);
  }
  *out = std::move(r);
  return true;
}

// A walk over `out` for operand 0 = `a` and operand 1 = `b` (b may be nullptr: stride 0 throughout).
inline StridedWalk make_walk(const Shape& out, const Shape& a, const Shape* b) {
  StridedWalk w;
  w.rank = static_cast<int>(out.size());
  for (size_t d = 0; d < out.size(); ++d) w.dims[d] = out[d];
  broadcast_strides(a, out, w.stride[0]);
  if (b != nullptr) broadcast_strides(*b, out, w.stride[1]);
  return w;
}

// Calls row(i, cnt, cursor) for consecutive runs of output elements [first, last) along the
// innermost dimension: cursor.off[k] is operand k's offset at output element i, and each further
// element of the run steps operand k by w.stride[k][rank - 1] (0 or 1 for the usual patterns, so
// the caller's inner loops vectorise). A rank-0 walk is one run of one element.
template <class Row>
void walk_rows(const StridedWalk& w, size_t first, size_t last, Row&& row) {
  if (first >= last) return;
  if (w.rank == 0) {
    StridedWalk::Cursor c{};
    row(first, int64_t{1}, c);
    return;
  }
  const int ld = w.rank - 1;
  StridedWalk::Cursor c = w.at(static_cast<int64_t>(first));
  for (size_t i = first; i < last;) {
    const int64_t cnt = std::min<int64_t>(w.dims[ld] - c.idx[ld], static_cast<int64_t>(last - i));
    row(i, cnt, c);
    i += static_cast<size_t>(cnt);
    if (i >= last) break;
    // To the run's last element, then one step (which carries into the outer dimensions).
    c.off[0] += (cnt - 1) * w.stride[0][ld];
    c.off[1] += (cnt - 1) * w.stride[1][ld];
    c.idx[ld] += cnt - 1;
    w.next(c);
  }
}

// out[i] = f(a[.], b[.]) over [first, last) with broadcasting; the stride patterns get their own loops.
template <class A, class B, class O, class F>
void binary_rows(const StridedWalk& w, size_t first, size_t last, const A* a, const B* b, O* o, F&& f) {
  const int64_t sa = w.rank == 0 ? 0 : w.stride[0][w.rank - 1];
  const int64_t sb = w.rank == 0 ? 0 : w.stride[1][w.rank - 1];
  walk_rows(w, first, last, [&](size_t i, int64_t cnt, const StridedWalk::Cursor& c) {
    const A* pa = a + c.off[0];
    const B* pb = b + c.off[1];
    O* po = o + i;
    if (sa == 1 && sb == 1) {
      for (int64_t j = 0; j < cnt; ++j) po[j] = f(pa[j], pb[j]);
    } else if (sa == 1 && sb == 0) {
      const B y = *pb;
      for (int64_t j = 0; j < cnt; ++j) po[j] = f(pa[j], y);
    } else if (sa == 0 && sb == 1) {
      const A x = *pa;
      for (int64_t j = 0; j < cnt; ++j) po[j] = f(x, pb[j]);
    } else {
      for (int64_t j = 0; j < cnt; ++j) po[j] = f(pa[j * sa], pb[j * sb]);
    }
  });
}

// Up to 8 bytes holding one element of `dtype` equal to `v` (an integer value converts exactly
// where the dtype can hold it, wrapping otherwise; bool is v != 0). False for a dtype without a
// fixed-size numeric representation here.
// A float value given for an integer dtype converts only when it is integral and in range.
inline bool scalar_bytes(aclDataType dtype, double fv, int64_t iv, bool from_int, uint64_t* bits) {
  *bits = 0;
  const double v = from_int ? static_cast<double>(iv) : fv;
  auto put = [&](auto x) {
    static_assert(sizeof(x) <= sizeof(uint64_t));
    std::memcpy(bits, &x, sizeof(x));  // little-endian: the element's bytes first
    return true;
  };
  switch (dtype) {
    case ACL_FLOAT:
      return put(static_cast<float>(v));
    case ACL_DOUBLE:
      return put(from_int ? static_cast<double>(iv) : fv);
    case ACL_FLOAT16:
      return put(float_to_half(static_cast<float>(v)));
    case ACL_BF16:
      return put(float_to_bf16(static_cast<float>(v)));
    case ACL_BOOL:
      return put(static_cast<uint8_t>(from_int ? iv != 0 : fv != 0.0));
    default:
      break;
  }
  if (!from_int) {
    // 2^63 bounds every integer dtype's range from above; the narrower ones wrap as integers do.
    if (!(std::trunc(fv) == fv && std::fabs(fv) < 9.2233720368547758e18)) return false;
    iv = static_cast<int64_t>(fv);
  }
  bool ok = false;
  dispatch_ints(dtype, [&](auto tag) { ok = put(static_cast<decltype(tag)>(iv)); });
  return ok;
}

}  // namespace arun::ops::pointwise
