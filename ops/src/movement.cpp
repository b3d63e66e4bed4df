// Data-movement ops that ONNX models use around the compute: Squeeze, Unsqueeze, Expand, Tile,
// Slice, Split, Pad, DepthToSpace and SpaceToDepth. All move elements by size (1, 2, 4 or 8
// bytes), so any dtype works. Most are one strided view of the input (View): the output element at
// index (i0, i1, ...) reads input element base + sum(i_d * stride_d), strides possibly 0 (Expand,
// Tile) or negative (Slice with negative steps).
//
// Inputs that decide the geometry (Squeeze/Unsqueeze axes from opset 13, Expand's shape, Tile's
// repeats, Slice's starts/ends/axes/steps from opset 10, Split's split from 13, Pad's pads from
// 11) live in device memory: the host takes the output shape from the output description and the
// kernel reads the input, recomputes the output shape and fails the stream when they disagree.
// Opsets (the `opset` attribute, set by the model importer; default 17) pick attribute or input.
#include <algorithm>
#include <limits>

#include "kernel_common.hpp"

namespace arun::ops {
namespace {

constexpr int64_t kLatestOpset = 17;

// ---- the strided view and its kernel ----

constexpr int kViewRank = 2 * kMaxRank;  // Tile views a rank-8 output as 16 dims

struct View {
  int rank = 0;
  int64_t dims[kViewRank] = {};
  int64_t stride[kViewRank] = {};  // input elements per step of each output dim
  int64_t base = 0;                // input element of output element 0
};

// The whole tensor as one run of elements (Squeeze, Unsqueeze: a plain copy).
View flat_view(int64_t n) {
  View v;
  v.rank = 1;
  v.dims[0] = n;
  v.stride[0] = 1;
  return v;
}

// `out` with strides `st` (one per dim) from `base`.
View make_view(const Shape& out, const Shape& st, int64_t base) {
  View v;
  v.rank = static_cast<int>(out.size());
  for (int d = 0; d < v.rank; ++d) {
    v.dims[d] = out[d];
    v.stride[d] = out[d] <= 1 ? 0 : st[d];  // a stride never taken cannot overflow anything
  }
  v.base = base;
  return v;
}

// Defence in depth: the lowest and highest input element the view reads lie inside the input.
bool view_inside(const View& v, int64_t n_in) {
  int64_t lo = v.base, hi = v.base;
  for (int d = 0; d < v.rank; ++d) {
    if (v.dims[d] == 0) return true;  // reads nothing
    const int64_t span = (v.dims[d] - 1) * v.stride[d];
    (span < 0 ? lo : hi) += span;
  }
  return lo >= 0 && hi < n_in;
}

// A small integer input read by the kernel (int64, or int32 where ONNX allows it).
struct IntInput {
  const void* data = nullptr;
  bool is64 = true;
  int64_t len = 0;
};

IntInput int_input(const Tensor& t) {
  return {t.data, t.dtype == ACL_INT64, t.count()};
}

std::vector<int64_t> read_ints(const Block& blk, const IntInput& in) {
  std::vector<int64_t> v(static_cast<size_t>(in.len));
  if (in.len == 0) return v;
  if (in.is64) {
    auto s = blk.map(static_cast<const int64_t*>(in.data), static_cast<size_t>(in.len));
    std::copy(s.data(), s.data() + in.len, v.begin());
  } else {
    auto s = blk.map(static_cast<const int32_t*>(in.data), static_cast<size_t>(in.len));
    std::copy(s.data(), s.data() + in.len, v.begin());
  }
  return v;
}

[[noreturn]] void fail_input(const Block& blk, const std::string& op, const std::string& why) {
  blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, (op + ": " + why).c_str());
}
[[noreturn]] void fail_output(const Block& blk, const std::string& op, const std::string& what, const Shape& got,
                              const Shape& described) {
  blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, (op + ": " + what + " gives output " + shape_text(got) +
                                           ", the output description says " + shape_text(described))
                                              .c_str());
}

// A view fixed on the host.
struct FixedView {
  View v;
  View resolve(const Block&) const { return v; }
};

template <class E, class R>
void view_kernel(Block blk, const R& res, const E* in_dev, E* out_dev, int64_t n_in, int64_t n_out) {
  const View v = res.resolve(blk);  // every block checks the kernel-read inputs (they are small)
  const IndexRange r = blk.range(static_cast<size_t>(n_out));
  if (r.size() == 0) return;
  if (!view_inside(v, n_in)) blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, "view outside the input (internal error)");
  const E* in = blk.map(in_dev, static_cast<size_t>(n_in)).data();
  E* out = blk.map(out_dev, static_cast<size_t>(n_out)).data();
  if (v.rank == 0) {
    out[0] = in[v.base];
    return;
  }
  int64_t idx[kViewRank];
  int64_t off = v.base, lin = static_cast<int64_t>(r.first);
  for (int d = v.rank - 1; d >= 0; --d) {
    idx[d] = lin % v.dims[d];
    lin /= v.dims[d];
    off += idx[d] * v.stride[d];
  }
  // One run of the innermost dim at a time, then carry into the outer dims.
  const int last = v.rank - 1;
  const int64_t inner = v.dims[last], s = v.stride[last];
  for (size_t i = r.first; i < r.last;) {
    const int64_t cnt = std::min<int64_t>(inner - idx[last], static_cast<int64_t>(r.last - i));
    E* dst = out + i;
    const E* src = in + off;
    if (s == 1) {
      std::memcpy(dst, src, static_cast<size_t>(cnt) * sizeof(E));
    } else {
      for (int64_t j = 0; j < cnt; ++j) dst[j] = src[j * s];
    }
    i += static_cast<size_t>(cnt);
    off += cnt * s;
    idx[last] += cnt;
    if (i >= r.last) break;
    for (int d = last; d > 0 && idx[d] == v.dims[d]; --d) {
      off -= v.dims[d] * v.stride[d];
      idx[d] = 0;
      ++idx[d - 1];
      off += v.stride[d - 1];
    }
  }
}

// Calls f(E{}) with an unsigned type of the element size; false for sizes other than 1, 2, 4, 8.
template <class F>
bool dispatch_elem(size_t size, F&& f) {
  switch (size) {
    case 1:
      f(uint8_t{});
      return true;
    case 2:
      f(uint16_t{});
      return true;
    case 4:
      f(uint32_t{});
      return true;
    case 8:
      f(uint64_t{});
      return true;
    default:
      return false;
  }
}

Status elem_error(const OpCall& call, aclDataType dtype) {
  return call.dtype_error(std::string("no kernel for ") + dtype_name(dtype) + " (elements of 1, 2, 4 or 8 bytes)");
}

// Launches the view kernel from x into y. `always`: launch even for an empty output, so that a
// kernel-read input is still checked.
template <class R>
Status launch_view(const OpCall& call, const Tensor& x, const Tensor& y, R res, bool always) {
  if (y.count() == 0 && !always) return Status::Ok();
  Status st;
  if (!dispatch_elem(aclDataTypeSize(x.dtype), [&](auto tag) {
        using E = decltype(tag);
        st = launch_op(call, call.blocks_for(y.count(), 1 << 14), view_kernel<E, R>, std::move(res),
                       static_cast<const E*>(x.data), static_cast<E*>(y.data), x.count(), y.count());
      })) {
    return elem_error(call, x.dtype);
  }
  return st;
}

Status rank_check(const OpCall& call, const Tensor& x) {
  if (x.rank() > kMaxRank)
    return call.input_error("rank " + std::to_string(x.rank()) + " exceeds " + std::to_string(kMaxRank));
  return Status::Ok();
}

// A geometry input: present, 1-D, int64 (or int32 when `int32_ok`).
Status int_input_check(const OpCall& call, size_t i, const char* name, bool int32_ok) {
  const Tensor& t = call.inputs[i];
  if (t.dtype != ACL_INT64 && !(int32_ok && t.dtype == ACL_INT32)) {
    return call.input_error(std::string(name) + " must be " + (int32_ok ? "int32 or int64" : "int64") + ", got " +
                            dtype_name(t.dtype));
  }
  if (t.rank() != 1) return call.input_error(std::string(name) + " must be 1-D, got " + shape_text(t.shape));
  if (t.count() > 2 * kViewRank) return call.input_error(std::string(name) + " has too many entries");
  return Status::Ok();
}

Status opset_of(const OpCall& call, int64_t* opset) {
  return call.attr_int("opset", kLatestOpset, opset);
}

// ---- Squeeze / Unsqueeze ----

// The shape after squeezing `axes` (all size-1 dims when `all`).
bool squeeze_shape(const Shape& in, const std::vector<int64_t>& axes, bool all, Shape* out, std::string* why) {
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (all) {
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  }
  for (int64_t a : axes) {
    int64_t ax = 0;
    if (!normalize_axis(a, rank, &ax)) {
      *why = "axis " + std::to_string(a) + " is outside [-" + std::to_string(rank) + ", " + std::to_string(rank) + ")";
      return false;
    }
    if (drop[ax]) {
      *why = "axis " + std::to_string(a) + " is given twice";
      return false;
    }
    if (in[ax] != 1) {
      *why = "axis " + std::to_string(a) + " has size " + std::to_string(in[ax]) + ", not 1";
      return false;
    }
    drop[ax] = true;
  }
  out->clear();
  for (size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) out->push_back(in[d]);
  }
  return true;
}

bool unsqueeze_shape(const Shape& in, const std::vector<int64_t>& axes, Shape* out, std::string* why) {
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  if (rank > kMaxRank) {
    *why = "the output rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank);
    return false;
  }
  std::vector<bool> add(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t ax = 0;
    if (!normalize_axis(a, rank, &ax)) {
      *why = "axis " + std::to_string(a) + " is outside [-" + std::to_string(rank) + ", " + std::to_string(rank) + ")";
      return false;
    }
    if (add[ax]) {
      *why = "axis " + std::to_string(a) + " is given twice";
      return false;
    }
    add[ax] = true;
  }
  out->clear();
  size_t k = 0;
  for (int64_t d = 0; d < rank; ++d) out->push_back(add[d] ? 1 : in[k++]);
  return true;
}

struct SqueezeAxes {
  std::string op;
  IntInput axes;
  Shape in, out;
  int64_t n;
  bool squeeze;
  View resolve(const Block& blk) const {
    const std::vector<int64_t> a = read_ints(blk, axes);
    Shape got;
    std::string why;
    const bool ok = squeeze ? squeeze_shape(in, a, a.empty(), &got, &why) : unsqueeze_shape(in, a, &got, &why);
    if (!ok) fail_input(blk, op, why);
    if (got != out) fail_output(blk, op, "the axes input " + shape_text(a), got, out);
    return flat_view(n);
  }
};

template <bool kSqueeze>
Status run_squeeze(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& y = call.outputs[0];
  ARUN_RETURN_IF_ERROR(rank_check(call, x));
  int64_t opset = 0;
  ARUN_RETURN_IF_ERROR(opset_of(call, &opset));
  const bool from_input = opset >= 13;  // axes became an input at opset 13
  const bool has_input = call.inputs.size() == 2 && call.inputs[1].present();
  if (from_input && call.has_attr("axes")) {
    return call.attr_error("opset " + std::to_string(opset) + " takes axes as an input, not an attribute");
  }
  if (!from_input && has_input) {
    return call.input_error("opset " + std::to_string(opset) + " takes axes as an attribute, not an input");
  }
  if (!kSqueeze && !from_input && !call.has_attr("axes")) return call.attr_error("attribute 'axes' is required");
  if (!kSqueeze && from_input && !has_input) return call.input_error("input 1 (axes) is required");
  if (has_input) {
    ARUN_RETURN_IF_ERROR(int_input_check(call, 1, "axes", false));
    if (y.dtype != x.dtype || y.count() != x.count()) {
      return call.output_error("output " + shape_text(y.shape) + " " + dtype_name(y.dtype) + " cannot hold input " +
                               shape_text(x.shape) + " " + dtype_name(x.dtype));
    }
    const int64_t want = kSqueeze ? x.rank() - call.inputs[1].count() : x.rank() + call.inputs[1].count();
    if (call.inputs[1].count() > 0 && y.rank() != want) {  // an empty axes input squeezes every 1
      return call.output_error("the axes input has " + std::to_string(call.inputs[1].count()) +
                               " entries, so the output has rank " + std::to_string(want) +
                               ", the description has rank " + std::to_string(y.rank()));
    }
    SqueezeAxes res{call.op, int_input(call.inputs[1]), x.shape, y.shape, x.count(), kSqueeze};
    return launch_view(call, x, y, std::move(res), true);
  }
  std::vector<int64_t> axes;
  ARUN_RETURN_IF_ERROR(call.attr_ints("axes", {}, &axes));
  Shape out;
  std::string why;
  const bool ok =
      kSqueeze ? squeeze_shape(x.shape, axes, axes.empty(), &out, &why) : unsqueeze_shape(x.shape, axes, &out, &why);
  if (!ok) return call.attr_error(why);
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
  return launch_view(call, x, y, FixedView{flat_view(x.count())}, false);
}

// ---- Expand (bidirectional broadcast to a shape input) ----

View broadcast_view(const Shape& in, const Shape& out) {
  View v;
  v.rank = static_cast<int>(out.size());
  broadcast_strides(in, out, v.stride);
  for (int d = 0; d < v.rank; ++d) v.dims[d] = out[d];
  return v;
}

struct ExpandShape {
  IntInput shape;
  Shape in, out;
  View resolve(const Block& blk) const {
    const std::vector<int64_t> s = read_ints(blk, shape);
    for (int64_t d : s) {
      if (d < 0) fail_input(blk, "Expand", "shape " + shape_text(s) + " has a negative dimension");
    }
    Shape got;
    if (!broadcast_shapes(in, s, &got)) {
      fail_input(blk, "Expand", "input " + shape_text(in) + " does not broadcast to shape " + shape_text(s));
    }
    if (got != out) fail_output(blk, "Expand", "shape " + shape_text(s), got, out);
    return broadcast_view(in, out);
  }
};

Status run_expand(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& y = call.outputs[0];
  ARUN_RETURN_IF_ERROR(rank_check(call, x));
  ARUN_RETURN_IF_ERROR(int_input_check(call, 1, "shape", false));
  const int64_t len = call.inputs[1].count();
  Shape b;
  if (y.dtype != x.dtype || y.rank() != std::max<int64_t>(x.rank(), len) || !broadcast_shapes(x.shape, y.shape, &b) ||
      b != y.shape) {
    return call.output_error("input " + shape_text(x.shape) + " " + dtype_name(x.dtype) + " with a shape of " +
                             std::to_string(len) + " entries cannot expand to the output description " +
                             shape_text(y.shape) + " " + dtype_name(y.dtype));
  }
  return launch_view(call, x, y, ExpandShape{int_input(call.inputs[1]), x.shape, y.shape}, true);
}

// ---- Tile: the output as [r0, d0, r1, d1, ...] reading strides [0, s0, 0, s1, ...] ----

View tile_view(const Shape& in, const Shape& out) {
  View v;
  v.rank = static_cast<int>(2 * in.size());
  const Shape cs = contiguous_strides(in);
  for (size_t d = 0; d < in.size(); ++d) {
    v.dims[2 * d] = in[d] == 0 ? 0 : out[d] / in[d];
    v.dims[2 * d + 1] = in[d];
    v.stride[2 * d + 1] = cs[d];
  }
  return v;
}

struct TileRepeats {
  IntInput repeats;
  Shape in, out;
  View resolve(const Block& blk) const {
    const std::vector<int64_t> r = read_ints(blk, repeats);
    Shape got(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      if (r[d] < 0) fail_input(blk, "Tile", "repeats " + shape_text(r) + " has a negative entry");
      if (__builtin_mul_overflow(in[d], r[d], &got[d]))
        fail_input(blk, "Tile", "repeats " + shape_text(r) + " overflow");
    }
    if (got != out) fail_output(blk, "Tile", "repeats " + shape_text(r), got, out);
    // With an empty input dim the repeat count is not in the output; the view reads nothing then.
    return tile_view(in, out);
  }
};

Status run_tile(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& y = call.outputs[0];
  ARUN_RETURN_IF_ERROR(rank_check(call, x));
  ARUN_RETURN_IF_ERROR(int_input_check(call, 1, "repeats", false));
  if (call.inputs[1].count() != x.rank()) {
    return call.input_error("repeats has " + std::to_string(call.inputs[1].count()) + " entries for rank " +
                            std::to_string(x.rank()));
  }
  bool ok = y.dtype == x.dtype && y.rank() == x.rank();
  for (int d = 0; ok && d < x.rank(); ++d) ok = x.shape[d] == 0 ? y.shape[d] == 0 : y.shape[d] % x.shape[d] == 0;
  if (!ok) {
    return call.output_error("the output description " + shape_text(y.shape) + " " + dtype_name(y.dtype) +
                             " is no tiling of input " + shape_text(x.shape) + " " + dtype_name(x.dtype));
  }
  return launch_view(call, x, y, TileRepeats{int_input(call.inputs[1]), x.shape, y.shape}, true);
}

// ---- Slice ----

// ONNX Slice: starts/ends clamped per the sign of the step, negative values counted from the end.
// Empty `axes` = 0..n-1, empty `steps` = 1.
bool slice_view(const Shape& in, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                const std::vector<int64_t>& axes_in, const std::vector<int64_t>& steps_in, View* v, Shape* out,
                std::string* why) {
  const size_t n = starts.size();
  const int64_t rank = static_cast<int64_t>(in.size());
  if (ends.size() != n || (!axes_in.empty() && axes_in.size() != n) || (!steps_in.empty() && steps_in.size() != n)) {
    *why = "starts, ends, axes and steps must have the same length (got " + std::to_string(n) + ", " +
           std::to_string(ends.size()) + ", " + std::to_string(axes_in.size()) + ", " +
           std::to_string(steps_in.size()) + ")";
    return false;
  }
  Shape o = in, first(in.size(), 0), step(in.size(), 1);
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes_in.empty() ? static_cast<int64_t>(i) : axes_in[i];
    int64_t ax = 0;
    if (!normalize_axis(a, rank, &ax)) {
      *why = "axis " + std::to_string(a) + " is outside [-" + std::to_string(rank) + ", " + std::to_string(rank) + ")";
      return false;
    }
    if (seen[ax]) {
      *why = "axis " + std::to_string(a) + " is given twice";
      return false;
    }
    seen[ax] = true;
    const int64_t st = steps_in.empty() ? 1 : steps_in[i];
    if (st == 0) {
      *why = "steps must not be 0";
      return false;
    }
    const int64_t dim = in[ax];
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;  // cannot overflow: dim >= 0
    if (e < 0) e += dim;
    int64_t len = 0;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      if (e > s) len = static_cast<int64_t>(static_cast<uint64_t>(e - s - 1) / static_cast<uint64_t>(st) + 1);
    } else if (dim > 0) {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      if (s > e) len = static_cast<int64_t>(static_cast<uint64_t>(s - e - 1) / (0 - static_cast<uint64_t>(st)) + 1);
    }
    o[ax] = len;
    first[ax] = len > 0 ? s : 0;
    step[ax] = st;
  }
  const Shape cs = contiguous_strides(in);
  Shape strides(in.size());
  int64_t base = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    base += first[d] * cs[d];
    strides[d] = o[d] > 1 ? step[d] * cs[d] : 0;  // |step| < dim here, so no overflow
  }
  *v = make_view(o, strides, base);
  *out = std::move(o);
  return true;
}

struct SliceInputs {
  IntInput starts, ends, axes, steps;
  Shape in, out;
  View resolve(const Block& blk) const {
    View v;
    Shape got;
    std::string why;
    const std::vector<int64_t> s = read_ints(blk, starts), e = read_ints(blk, ends);
    if (!slice_view(in, s, e, read_ints(blk, axes), read_ints(blk, steps), &v, &got, &why))
      fail_input(blk, "Slice", why);
    if (got != out) fail_output(blk, "Slice", "starts " + shape_text(s) + ", ends " + shape_text(e), got, out);
    return v;
  }
};

Status run_slice(const OpCall& call) {
  int64_t opset = 0;
  ARUN_RETURN_IF_ERROR(opset_of(call, &opset));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& y = call.outputs[0];
  if (opset < 10) {  // starts, ends, axes as attributes; no steps
    ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
    const Tensor& x = call.inputs[0];
    ARUN_RETURN_IF_ERROR(rank_check(call, x));
    if (!call.has_attr("starts") || !call.has_attr("ends")) {
      return call.attr_error("attributes 'starts' and 'ends' are required before opset 10");
    }
    std::vector<int64_t> starts, ends, axes;
    ARUN_RETURN_IF_ERROR(call.attr_ints("starts", {}, &starts));
    ARUN_RETURN_IF_ERROR(call.attr_ints("ends", {}, &ends));
    ARUN_RETURN_IF_ERROR(call.attr_ints("axes", {}, &axes));
    View v;
    Shape out;
    std::string why;
    if (!slice_view(x.shape, starts, ends, axes, {}, &v, &out, &why)) return call.attr_error(why);
    ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
    return launch_view(call, x, y, FixedView{v}, false);
  }
  for (const char* a : {"starts", "ends", "axes"}) {
    if (call.has_attr(a)) return call.attr_error("opset " + std::to_string(opset) + " takes " + a + " as an input");
  }
  ARUN_RETURN_IF_ERROR(call.expect_inputs(3, 5));
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(rank_check(call, x));
  const char* names[] = {"data", "starts", "ends", "axes", "steps"};
  SliceInputs res;
  IntInput* slots[] = {nullptr, &res.starts, &res.ends, &res.axes, &res.steps};
  for (size_t i = 1; i < call.inputs.size(); ++i) {
    if (!call.inputs[i].present()) continue;
    ARUN_RETURN_IF_ERROR(int_input_check(call, i, names[i], true));
    if (call.inputs[i].dtype != call.inputs[1].dtype)
      return call.input_error("starts, ends, axes and steps must share a dtype");
    *slots[i] = int_input(call.inputs[i]);
  }
  const int64_t n = res.starts.len;
  if (res.ends.len != n || (res.axes.data != nullptr && res.axes.len != n) ||
      (res.steps.data != nullptr && res.steps.len != n)) {
    return call.input_error("starts, ends, axes and steps must have the same length");
  }
  if (y.dtype != x.dtype || y.rank() != x.rank()) {
    return call.output_error("output description " + shape_text(y.shape) + " " + dtype_name(y.dtype) +
                             " is not a slice of input " + shape_text(x.shape) + " " + dtype_name(x.dtype));
  }
  for (int d = 0; d < x.rank(); ++d) {
    if (y.shape[d] > x.shape[d]) {
      return call.output_error("output description " + shape_text(y.shape) + " exceeds input " + shape_text(x.shape));
    }
  }
  res.in = x.shape;
  res.out = y.shape;
  return launch_view(call, x, y, std::move(res), true);
}

// ---- Split ----

struct SplitSizes {
  IntInput split;  // kernel-read (opset 13+) or none
  std::vector<int64_t> sizes;
  View v;
  View resolve(const Block& blk) const {
    if (split.data != nullptr) {
      const std::vector<int64_t> s = read_ints(blk, split);
      if (s != sizes) fail_output(blk, "Split", "the split input", s, sizes);
    }
    return v;
  }
};

Status run_split(const OpCall& call) {
  int64_t opset = 0;
  ARUN_RETURN_IF_ERROR(opset_of(call, &opset));
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 2));
  if (call.outputs.empty()) return call.output_error("takes at least one output description");
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(rank_check(call, x));
  if (x.rank() == 0) return call.input_error("input must have at least one dimension");
  int64_t axis_attr = 0, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", 0, &axis_attr));
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                           std::to_string(x.rank()));
  }
  const bool has_input = call.inputs.size() == 2 && call.inputs[1].present();
  if (opset >= 13 && call.has_attr("split"))
    return call.attr_error("opset " + std::to_string(opset) + " takes split as an input");
  if (opset < 13 && has_input)
    return call.input_error("opset " + std::to_string(opset) + " takes split as an attribute");
  const size_t k = call.outputs.size();
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < k; ++i) {
    const Tensor& y = call.outputs[i];
    bool ok = y.dtype == x.dtype && y.rank() == x.rank();
    for (int d = 0; ok && d < x.rank(); ++d) ok = d == axis || y.shape[d] == x.shape[d];
    if (!ok) {
      return call.output_error("output " + std::to_string(i) + " " + shape_text(y.shape) + " " + dtype_name(y.dtype) +
                               " is not a part of input " + shape_text(x.shape) + " " + dtype_name(x.dtype) +
                               " along axis " + std::to_string(axis));
    }
    sizes.push_back(y.shape[axis]);
  }
  SplitSizes res;
  if (has_input) {
    ARUN_RETURN_IF_ERROR(int_input_check(call, 1, "split", false));
    if (call.inputs[1].count() != static_cast<int64_t>(k)) {
      return call.input_error("split has " + std::to_string(call.inputs[1].count()) + " entries for " +
                              std::to_string(k) + " outputs");
    }
    res.split = int_input(call.inputs[1]);
  } else if (call.has_attr("split")) {
    std::vector<int64_t> split;
    ARUN_RETURN_IF_ERROR(call.attr_ints("split", {}, &split));
    if (split != sizes) {
      return call.output_error("split " + shape_text(split) + " differs from the output descriptions' sizes " +
                               shape_text(sizes) + " along axis " + std::to_string(axis));
    }
  } else {
    if (x.shape[axis] % static_cast<int64_t>(k) != 0) {
      return call.input_error("axis " + std::to_string(axis) + " of size " + std::to_string(x.shape[axis]) +
                              " does not split into " + std::to_string(k) + " equal parts");
    }
    for (size_t i = 0; i < k; ++i) {
      if (sizes[i] != x.shape[axis] / static_cast<int64_t>(k)) {
        return call.output_error("output " + std::to_string(i) + " has " + std::to_string(sizes[i]) +
                                 " along the axis; an equal split gives " +
                                 std::to_string(x.shape[axis] / static_cast<int64_t>(k)));
      }
    }
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != x.shape[axis]) {
    return call.output_error("the outputs' sizes " + shape_text(sizes) + " add up to " + std::to_string(total) +
                             ", the axis has " + std::to_string(x.shape[axis]));
  }
  res.sizes = sizes;
  const Shape cs = contiguous_strides(x.shape);
  int64_t offset = 0;
  for (size_t i = 0; i < k; ++i) {
    res.v = make_view(call.outputs[i].shape, cs, offset * cs[axis]);
    ARUN_RETURN_IF_ERROR(launch_view(call, x, call.outputs[i], res, i == 0 && has_input));
    offset += sizes[i];
  }
  return Status::Ok();
}

// ---- Pad ----

enum class PadMode { Constant, Reflect, Edge };

template <class E>
struct PadParams {
  const E* in;
  E* out;
  int rank;
  int64_t in_dims[kMaxRank], out_dims[kMaxRank];
  int64_t begin[kMaxRank];  // host-known pads (attribute form)
  IntInput pads;            // kernel-read pads (opset 11+), or none
  const E* value_dev;       // kernel-read constant_value, or nullptr
  E value;
  PadMode mode;
  int64_t n_in, n_out;
};

template <class E>
void pad_kernel(Block blk, const PadParams<E>& p) {
  int64_t begin[kMaxRank];
  std::copy(p.begin, p.begin + kMaxRank, begin);
  if (p.pads.data != nullptr) {
    const std::vector<int64_t> pads = read_ints(blk, p.pads);
    Shape got(p.rank), described(p.out_dims, p.out_dims + p.rank);
    for (int d = 0; d < p.rank; ++d) {
      begin[d] = pads[d];
      const bool overflow = __builtin_add_overflow(p.in_dims[d], pads[d], &got[d]) ||
                            __builtin_add_overflow(got[d], pads[d + p.rank], &got[d]);
      if (overflow || pads[d] < -p.in_dims[d] || pads[d + p.rank] < -p.in_dims[d] || got[d] < 0) {
        fail_input(
            blk, "Pad",
            "pads " + shape_text(pads) + " do not fit input " + shape_text(Shape(p.in_dims, p.in_dims + p.rank)));
      }
    }
    if (got != described) fail_output(blk, "Pad", "pads " + shape_text(pads), got, described);
  }
  const IndexRange r = blk.range(static_cast<size_t>(p.n_out));
  if (r.size() == 0) return;
  if (p.mode != PadMode::Constant && p.n_in == 0)
    fail_input(blk, "Pad", "reflect and edge modes need a non-empty input");
  const E value = p.value_dev != nullptr ? blk.map(p.value_dev, 1)[0] : p.value;
  const E* in = p.n_in > 0 ? blk.map(p.in, static_cast<size_t>(p.n_in)).data() : nullptr;
  E* out = blk.map(p.out, static_cast<size_t>(p.n_out)).data();
  int64_t in_stride[kMaxRank];
  int64_t acc = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    in_stride[d] = acc;
    acc *= p.in_dims[d];
  }
  // The source index along dim d of output index o, or -1 for the constant.
  const auto source = [&](int d, int64_t o) -> int64_t {
    int64_t j = o - begin[d];
    const int64_t n = p.in_dims[d];
    if (j >= 0 && j < n) return j;
    if (p.mode == PadMode::Constant) return -1;
    if (p.mode == PadMode::Edge) return j < 0 ? 0 : n - 1;
    if (n == 1) return 0;
    const int64_t period = 2 * (n - 1);  // numpy's reflect: mirrored about the edges
    j %= period;
    if (j < 0) j += period;
    return j >= n ? period - j : j;
  };
  if (p.rank == 0) {
    out[0] = in[0];
    return;
  }
  // Row by row of the innermost dim: the outer dims give the row's source (or the constant), a
  // per-block table the column's.
  const int last = p.rank - 1;
  const int64_t width = p.out_dims[last];
  std::vector<int64_t> col(static_cast<size_t>(width));
  for (int64_t c = 0; c < width; ++c) col[c] = source(last, c);
  for (size_t i = r.first; i < r.last;) {
    int64_t row = static_cast<int64_t>(i) / width, off = 0;
    const int64_t c0 = static_cast<int64_t>(i) % width;
    const int64_t c1 = std::min<int64_t>(width, c0 + static_cast<int64_t>(r.last - i));
    bool pad = false;
    for (int d = last - 1; d >= 0 && !pad; --d) {
      const int64_t j = source(d, row % p.out_dims[d]);
      row /= p.out_dims[d];
      pad = j < 0;
      off += j * in_stride[d];
    }
    E* dst = out + i - c0;
    if (pad) {
      std::fill(dst + c0, dst + c1, value);
    } else {
      const E* src = in + off;
      for (int64_t c = c0; c < c1; ++c) dst[c] = col[c] < 0 ? value : src[col[c]];
    }
    i += static_cast<size_t>(c1 - c0);
  }
}

// The float `value` attribute (opset < 11) as an element of `dtype`.
bool pad_value_bits(aclDataType dtype, float v, uint64_t* bits) {
  *bits = 0;
  auto put = [&](auto x) { std::memcpy(bits, &x, sizeof(x)); };
  switch (dtype) {
    case ACL_FLOAT:
      put(v);
      return true;
    case ACL_FLOAT16:
      put(float_to_half(v));
      return true;
    case ACL_DOUBLE:
      put(static_cast<double>(v));
      return true;
    case ACL_INT8:
      put(static_cast<int8_t>(v));
      return true;
    case ACL_UINT8:
      put(static_cast<uint8_t>(v));
      return true;
    case ACL_INT16:
      put(static_cast<int16_t>(v));
      return true;
    case ACL_UINT16:
      put(static_cast<uint16_t>(v));
      return true;
    case ACL_INT32:
      put(static_cast<int32_t>(v));
      return true;
    case ACL_UINT32:
      put(static_cast<uint32_t>(v));
      return true;
    case ACL_INT64:
      put(static_cast<int64_t>(v));
      return true;
    case ACL_UINT64:
      put(static_cast<uint64_t>(v));
      return true;
    case ACL_BOOL:
      put(static_cast<uint8_t>(v != 0.0f));
      return true;
    default:
      return false;
  }
}

Status run_pad(const OpCall& call) {
  int64_t opset = 0;
  ARUN_RETURN_IF_ERROR(opset_of(call, &opset));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  std::string mode_s;
  ARUN_RETURN_IF_ERROR(call.attr_string("mode", "constant", &mode_s));
  PadMode mode;
  if (mode_s == "constant")
    mode = PadMode::Constant;
  else if (mode_s == "reflect")
    mode = PadMode::Reflect;
  else if (mode_s == "edge")
    mode = PadMode::Edge;
  else
    return call.attr_error("mode '" + mode_s + "' is not one of constant, reflect, edge");
  const bool from_inputs = opset >= 11;  // pads and the value became inputs at opset 11
  if (from_inputs) {
    ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 3));
    for (const char* a : {"pads", "value"}) {
      if (call.has_attr(a)) return call.attr_error("opset " + std::to_string(opset) + " takes " + a + " as an input");
    }
  } else {
    ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
    if (!call.has_attr("pads")) return call.attr_error("attribute 'pads' is required before opset 11");
  }
  const Tensor& x = call.inputs[0];
  const Tensor& y = call.outputs[0];
  ARUN_RETURN_IF_ERROR(rank_check(call, x));
  const size_t es = aclDataTypeSize(x.dtype);
  if (es != 1 && es != 2 && es != 4 && es != 8) return elem_error(call, x.dtype);
  uint64_t value_bits = 0;
  const void* value_dev = nullptr;
  Shape begin(kMaxRank, 0);
  IntInput pads_in;
  if (from_inputs) {
    ARUN_RETURN_IF_ERROR(int_input_check(call, 1, "pads", false));
    if (call.inputs[1].count() != 2 * x.rank()) {
      return call.input_error("pads has " + std::to_string(call.inputs[1].count()) + " entries, rank " +
                              std::to_string(x.rank()) + " needs " + std::to_string(2 * x.rank()));
    }
    pads_in = int_input(call.inputs[1]);
    if (call.inputs.size() == 3 && call.inputs[2].present()) {
      const Tensor& c = call.inputs[2];
      if (c.dtype != x.dtype || c.count() != 1 || c.rank() > 1) {
        return call.input_error("constant_value must be one " + std::string(dtype_name(x.dtype)) + " element, got " +
                                shape_text(c.shape) + " " + dtype_name(c.dtype));
      }
      value_dev = c.data;
    }
    if (y.dtype != x.dtype || y.rank() != x.rank()) {
      return call.output_error("output description " + shape_text(y.shape) + " " + dtype_name(y.dtype) +
                               " does not pad input " + shape_text(x.shape) + " " + dtype_name(x.dtype));
    }
  } else {
    std::vector<int64_t> pads;
    float value = 0.0f;
    ARUN_RETURN_IF_ERROR(call.attr_ints("pads", {}, &pads));
    ARUN_RETURN_IF_ERROR(call.attr_float("value", 0.0f, &value));
    if (static_cast<int64_t>(pads.size()) != 2 * x.rank()) {
      return call.attr_error("pads has " + std::to_string(pads.size()) + " entries, rank " + std::to_string(x.rank()) +
                             " needs " + std::to_string(2 * x.rank()));
    }
    Shape out(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      const bool overflow = __builtin_add_overflow(x.shape[d], pads[d], &out[d]) ||
                            __builtin_add_overflow(out[d], pads[d + x.rank()], &out[d]);
      if (overflow || pads[d] < -x.shape[d] || pads[d + x.rank()] < -x.shape[d] || out[d] < 0) {
        return call.attr_error("pads " + shape_text(pads) + " crop more than input " + shape_text(x.shape) + " holds");
      }
      begin[d] = pads[d];
    }
    ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
    if (!pad_value_bits(x.dtype, value, &value_bits))
      return call.dtype_error(std::string("no pad value for ") + dtype_name(x.dtype));
  }
  if (mode != PadMode::Constant && x.count() == 0 && y.count() > 0) {
    return call.input_error("mode " + mode_s + " needs a non-empty input");
  }
  if (y.count() == 0 && pads_in.data == nullptr) return Status::Ok();
  Status st;
  dispatch_elem(es, [&](auto tag) {
    using E = decltype(tag);
    PadParams<E> p{};
    p.in = static_cast<const E*>(x.data);
    p.out = static_cast<E*>(y.data);
    p.rank = x.rank();
    for (int d = 0; d < x.rank(); ++d) {
      p.in_dims[d] = x.shape[d];
      p.out_dims[d] = y.shape[d];
      p.begin[d] = begin[d];
    }
    p.pads = pads_in;
    p.value_dev = static_cast<const E*>(value_dev);
    std::memcpy(&p.value, &value_bits, sizeof(E));
    p.mode = mode;
    p.n_in = x.count();
    p.n_out = y.count();
    st = launch_op(call, call.blocks_for(y.count(), 1 << 14), pad_kernel<E>, p);
  });
  return st;
}

// ---- DepthToSpace / SpaceToDepth: a 6-D transpose of [N, C, H, W] ----

Status blocks_4d(const OpCall& call, int64_t* b) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  if (call.inputs[0].rank() != 4)
    return call.input_error("input must be 4-D [N, C, H, W], got " + shape_text(call.inputs[0].shape));
  if (!call.has_attr("blocksize")) return call.attr_error("attribute 'blocksize' is required");
  ARUN_RETURN_IF_ERROR(call.attr_int("blocksize", 0, b));
  if (*b <= 0 || *b > (int64_t{1} << 20))
    return call.attr_error("blocksize " + std::to_string(*b) + " must be positive");
  return Status::Ok();
}

Status run_depth_to_space(const OpCall& call) {
  int64_t b = 0;
  ARUN_RETURN_IF_ERROR(blocks_4d(call, &b));
  std::string mode;
  ARUN_RETURN_IF_ERROR(call.attr_string("mode", "DCR", &mode));
  if (mode != "DCR" && mode != "CRD") return call.attr_error("mode '" + mode + "' is not DCR or CRD");
  const Tensor& x = call.inputs[0];
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  if (c % (b * b) != 0) {
    return call.input_error("channels " + std::to_string(c) +
                            " do not divide by blocksize^2 = " + std::to_string(b * b));
  }
  const int64_t c2 = c / (b * b);
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, {n, c2, h * b, w * b}));
  // DCR reads the input as [N, b, b, C', H, W], CRD as [N, C', b, b, H, W]; the output is
  // [N, C', H, b, W, b].
  const bool dcr = mode == "DCR";
  const Shape t = contiguous_strides(dcr ? Shape{n, b, b, c2, h, w} : Shape{n, c2, b, b, h, w});
  const Shape st = dcr ? Shape{t[0], t[3], t[4], t[1], t[5], t[2]} : Shape{t[0], t[1], t[4], t[2], t[5], t[3]};
  return launch_view(call, x, call.outputs[0], FixedView{make_view({n, c2, h, b, w, b}, st, 0)}, false);
}

Status run_space_to_depth(const OpCall& call) {
  int64_t b = 0;
  ARUN_RETURN_IF_ERROR(blocks_4d(call, &b));
  const Tensor& x = call.inputs[0];
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  if (h % b != 0 || w % b != 0) {
    return call.input_error("height and width " + shape_text({h, w}) + " do not divide by blocksize " +
                            std::to_string(b));
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, {n, c * b * b, h / b, w / b}));
  // The input as [N, C, H/b, b, W/b, b]; the output as [N, b, b, C, H/b, W/b].
  const Shape t = contiguous_strides({n, c, h / b, b, w / b, b});
  const Shape st{t[0], t[3], t[5], t[1], t[2], t[4]};
  return launch_view(call, x, call.outputs[0], FixedView{make_view({n, b, b, c, h / b, w / b}, st, 0)}, false);
}

}  // namespace

void register_movement(std::vector<OpDef>& defs) {
  defs.push_back({"Squeeze", &run_squeeze<true>, {"axes", "opset"}});
  defs.push_back({"Unsqueeze", &run_squeeze<false>, {"axes", "opset"}});
  defs.push_back({"Expand", &run_expand, {}});
  defs.push_back({"Tile", &run_tile, {}});
  defs.push_back({"Slice", &run_slice, {"starts", "ends", "axes", "opset"}});
  defs.push_back({"Split", &run_split, {"axis", "split", "opset"}});
  defs.push_back({"Pad", &run_pad, {"mode", "pads", "value", "opset"}});
  defs.push_back({"DepthToSpace", &run_depth_to_space, {"blocksize", "mode"}});
  defs.push_back({"SpaceToDepth", &run_space_to_depth, {"blocksize"}});
}

}  // namespace arun::ops
