// Data-movement ops: Flatten, Reshape (ONNX's 0 and -1, allowzero), Identity, Transpose, Concat,
// Gather, GatherElements and Cast. Everything but Cast moves elements by size, so any dtype works.
#include <algorithm>
#include <limits>

#include "kernel_common.hpp"

namespace arun::ops {
namespace {

// ---- plain copies (Flatten, Reshape, Identity) ----

struct CopyParams {
  const uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  size_t bytes = 0;
  // Reshape only: the requested shape (a device int64 tensor) is checked on the device against the
  // output description, since the host cannot read it without waiting for the stream.
  const int64_t* shape = nullptr;
  int64_t shape_len = 0;
  Shape in_shape, out_shape;
  bool allowzero = false;
};

void copy_kernel(arun::Block blk, const CopyParams& p) {
  if (p.shape != nullptr && blk.index() == 0) {
    auto req = blk.map(p.shape, p.shape_len);
    Shape target;
    std::string why;
    if (!reshape_target(p.in_shape, std::vector<int64_t>(req.begin(), req.end()), p.allowzero, &target, &why)) {
      blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, ("Reshape: " + why).c_str());
    }
    if (target != p.out_shape) {
      blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, ("Reshape: the shape input asks for " + shape_text(target) +
                                               ", the output description says " + shape_text(p.out_shape))
                                                  .c_str());
    }
  }
  const IndexRange r = blk.range(p.bytes);
  if (r.size() == 0 || p.in == p.out) return;
  const uint8_t* in = blk.map(p.in, p.bytes).data();
  uint8_t* out = blk.map(p.out, p.bytes).data();
  std::memcpy(out + r.first, in + r.first, r.size());
}

Status launch_copy(const OpCall& call, CopyParams p) {
  const uint32_t blocks = call.blocks_for(static_cast<int64_t>(p.bytes), 1 << 20);
  if (p.bytes == 0 && p.shape == nullptr) return Status::Ok();
  return launch_op(call, blocks, copy_kernel, std::move(p));
}

size_t byte_size(const Tensor& t) { return static_cast<size_t>(t.count()) * aclDataTypeSize(t.dtype); }

CopyParams plain_copy(const Tensor& in, const Tensor& out) {
  CopyParams p;
  p.in = ptr<uint8_t>(in);
  p.out = ptr<uint8_t>(out);
  p.bytes = byte_size(in);
  return p;
}

Status run_identity(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  return launch_copy(call, plain_copy(x, call.outputs[0]));
}

Status run_flatten(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  int64_t axis_attr = 1, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", 1, &axis_attr));
  if (!normalize_axis(axis_attr, x.rank(), &axis, true)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is outside [-" + std::to_string(x.rank()) + ", " +
                           std::to_string(x.rank()) + "]");
  }
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < x.rank(); ++d) (d < axis ? rows : cols) *= x.shape[d];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, {rows, cols}));
  return launch_copy(call, plain_copy(x, call.outputs[0]));
}

Status run_reshape(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& shape = call.inputs[1];
  int64_t allowzero = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("allowzero", 0, &allowzero));
  if (shape.dtype != ACL_INT64) return call.input_error(std::string("shape must be int64, got ") + dtype_name(shape.dtype));
  if (shape.rank() != 1) return call.input_error("shape must be 1-D, got " + shape_text(shape.shape));
  const Tensor& y = call.outputs[0];
  if (shape.shape[0] != y.rank()) {
    return call.output_error("shape input has " + std::to_string(shape.shape[0]) +
                             " entries, the output description has rank " + std::to_string(y.rank()));
  }
  if (y.dtype != x.dtype || y.count() != x.count()) {
    return call.output_error("output " + shape_text(y.shape) + " " + dtype_name(y.dtype) + " cannot hold input " +
                             shape_text(x.shape) + " " + dtype_name(x.dtype));
  }
  CopyParams p = plain_copy(x, y);
  p.shape = ptr<int64_t>(shape);
  p.shape_len = shape.shape[0];
  p.in_shape = x.shape;
  p.out_shape = y.shape;
  p.allowzero = allowzero != 0;
  return launch_copy(call, std::move(p));
}

// ---- Transpose ----

template <class E>
struct TransposeParams {
  const E* in;
  E* out;
  int64_t n;
  StridedWalk walk;  // over the output; stride[0] = the input stride of the permuted dimension
};

template <class E>
void transpose_kernel(arun::Block blk, const TransposeParams<E>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const E* in = blk.map(p.in, p.n).data();
  E* out = blk.map(p.out, p.n).data();
  if (p.walk.rank == 0) {
    out[0] = in[0];
    return;
  }
  // A row of the output's innermost dimension at a time (a plain copy when the permutation keeps
  // the last axis), then one cursor step.
  const int last = p.walk.rank - 1;
  const int64_t inner = p.walk.dims[last], s0 = p.walk.stride[0][last], s1 = p.walk.stride[1][last];
  StridedWalk::Cursor c = p.walk.at(static_cast<int64_t>(r.first));
  for (size_t i = r.first; i < r.last;) {
    const int64_t cnt = std::min<int64_t>(inner - c.idx[last], static_cast<int64_t>(r.last - i));
    const E* src = in + c.off[0];
    E* dst = out + i;
    if (s0 == 1) {
      for (int64_t j = 0; j < cnt; ++j) dst[j] = src[j];
    } else {
      for (int64_t j = 0; j < cnt; ++j) dst[j] = src[j * s0];
    }
    i += static_cast<size_t>(cnt);
    if (i >= r.last) break;
    c.off[0] += (cnt - 1) * s0;
    c.off[1] += (cnt - 1) * s1;
    c.idx[last] += cnt - 1;
    p.walk.next(c);
  }
}

// Calls f(E{}) with an unsigned integer type of the dtype's element size.
template <class F>
bool dispatch_size(size_t size, F&& f) {
  switch (size) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    default: return false;
  }
}

Status run_transpose(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  if (x.rank() > kMaxRank) return call.input_error("rank exceeds " + std::to_string(kMaxRank));
  std::vector<int64_t> def(x.rank());
  for (int i = 0; i < x.rank(); ++i) def[i] = x.rank() - 1 - i;
  std::vector<int64_t> perm;
  ARUN_RETURN_IF_ERROR(call.attr_ints("perm", def, &perm));
  if (static_cast<int>(perm.size()) != x.rank()) {
    return call.attr_error("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(x.rank()));
  }
  std::vector<bool> seen(x.rank(), false);
  for (int64_t v : perm) {
    if (v < 0 || v >= x.rank() || seen[v]) return call.attr_error("perm " + shape_text(perm) + " is not a permutation");
    seen[v] = true;
  }
  Shape out(x.rank());
  const Shape strides = contiguous_strides(x.shape);
  StridedWalk walk;
  walk.rank = x.rank();
  for (int d = 0; d < x.rank(); ++d) {
    out[d] = x.shape[perm[d]];
    walk.dims[d] = out[d];
    walk.stride[0][d] = strides[perm[d]];
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
  if (x.count() == 0) return Status::Ok();
  Status st;
  dispatch_size(aclDataTypeSize(x.dtype), [&](auto tag) {
    using E = decltype(tag);
    TransposeParams<E> p{ptr<E>(x), ptr<E>(call.outputs[0]), x.count(), walk};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 14), transpose_kernel<E>, p);
  });
  return st;
}

// ---- Concat ----

struct ConcatParams {
  std::vector<const uint8_t*> ins;
  std::vector<size_t> chunk;  // bytes of input i per outer index
  uint8_t* out;
  size_t row;                 // output bytes per outer index
  int64_t outer;
};

void concat_kernel(arun::Block blk, const ConcatParams& p) {
  const size_t k = p.ins.size();
  const IndexRange r = blk.range(static_cast<size_t>(p.outer) * k);
  if (r.size() == 0) return;
  std::vector<const uint8_t*> in(k);
  std::vector<size_t> at(k);
  for (size_t i = 0, off = 0; i < k; off += p.chunk[i], ++i) {
    in[i] = p.chunk[i] > 0 ? blk.map(p.ins[i], p.chunk[i] * p.outer).data() : nullptr;
    at[i] = off;
  }
  uint8_t* out = blk.map(p.out, p.row * p.outer).data();
  for (size_t item = r.first; item < r.last; ++item) {
    const size_t o = item / k, i = item % k;
    if (p.chunk[i] > 0) std::memcpy(out + o * p.row + at[i], in[i] + o * p.chunk[i], p.chunk[i]);
  }
}

Status run_concat(const OpCall& call) {
  if (call.inputs.empty()) return call.input_error("takes at least 1 input, got 0");
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  if (!call.has_attr("axis")) return call.attr_error("attribute 'axis' is required");
  const Tensor& x0 = call.inputs[0];
  int64_t axis_attr = 0, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", 0, &axis_attr));
  if (x0.rank() == 0) return call.input_error("inputs must have at least one dimension");
  if (!normalize_axis(axis_attr, x0.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                           std::to_string(x0.rank()));
  }
  Shape out = x0.shape;
  out[axis] = 0;
  const size_t es = aclDataTypeSize(x0.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x0.shape[d];
  for (int64_t d = axis + 1; d < x0.rank(); ++d) inner *= x0.shape[d];
  ConcatParams p{{}, {}, ptr<uint8_t>(call.outputs[0]), 0, outer};
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& t = call.inputs[i];
    if (!t.present()) return call.input_error("input " + std::to_string(i) + " is omitted");
    if (t.dtype != x0.dtype) {
      return call.input_error("input " + std::to_string(i) + " is " + dtype_name(t.dtype) + ", input 0 is " +
                              dtype_name(x0.dtype));
    }
    bool ok = t.rank() == x0.rank();
    for (int64_t d = 0; ok && d < x0.rank(); ++d) ok = d == axis || t.shape[d] == x0.shape[d];
    if (!ok) {
      return call.input_error("input " + std::to_string(i) + " " + shape_text(t.shape) + " differs from input 0 " +
                              shape_text(x0.shape) + " outside axis " + std::to_string(axis));
    }
    out[axis] += t.shape[axis];
    p.ins.push_back(ptr<uint8_t>(t));
    p.chunk.push_back(static_cast<size_t>(t.shape[axis] * inner) * es);
    p.row += p.chunk.back();
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x0.dtype, out));
  if (numel(out) == 0) return Status::Ok();
  const uint32_t blocks = call.blocks_for(numel(out) * static_cast<int64_t>(es), 1 << 18);
  return launch_op(call, blocks, concat_kernel, std::move(p));
}

// ---- Gather ----

struct GatherParams {
  const uint8_t* data;
  uint8_t* out;
  const void* indices;
  bool idx64;
  int64_t n_data, n_idx, outer, axis_dim;
  size_t inner_bytes;
};

void gather_kernel(arun::Block blk, const GatherParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.outer * p.n_idx));
  if (r.size() == 0) return;
  const uint8_t* data = blk.map(p.data, static_cast<size_t>(p.n_data)).data();
  uint8_t* out = blk.map(p.out, static_cast<size_t>(p.outer * p.n_idx) * p.inner_bytes).data();
  const int64_t* i64 = p.idx64 ? blk.map(static_cast<const int64_t*>(p.indices), p.n_idx).data() : nullptr;
  const int32_t* i32 = p.idx64 ? nullptr : blk.map(static_cast<const int32_t*>(p.indices), p.n_idx).data();
  for (size_t item = r.first; item < r.last; ++item) {
    const int64_t o = static_cast<int64_t>(item) / p.n_idx, j = static_cast<int64_t>(item) % p.n_idx;
    int64_t idx = p.idx64 ? i64[j] : i32[j];
    if (idx < -p.axis_dim || idx >= p.axis_dim) {
      blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, ("Gather: index " + std::to_string(idx) + " is outside [-" +
                                               std::to_string(p.axis_dim) + ", " + std::to_string(p.axis_dim) + ")")
                                                  .c_str());
    }
    if (idx < 0) idx += p.axis_dim;
    std::memcpy(out + item * p.inner_bytes, data + (o * p.axis_dim + idx) * p.inner_bytes, p.inner_bytes);
  }
}

Status run_gather(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& idx = call.inputs[1];
  if (idx.dtype != ACL_INT64 && idx.dtype != ACL_INT32) {
    return call.input_error(std::string("indices must be int32 or int64, got ") + dtype_name(idx.dtype));
  }
  int64_t axis_attr = 0, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", 0, &axis_attr));
  if (x.rank() == 0) return call.input_error("data must have at least one dimension");
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                           std::to_string(x.rank()));
  }
  Shape out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
  if (numel(out) == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape[d];
  GatherParams p{ptr<uint8_t>(x), ptr<uint8_t>(call.outputs[0]), idx.data, idx.dtype == ACL_INT64,
                 static_cast<int64_t>(byte_size(x)), idx.count(), outer, x.shape[axis],
                 static_cast<size_t>(inner) * aclDataTypeSize(x.dtype)};
  return launch_op(call, call.blocks_for(numel(out), 1 << 14), gather_kernel, p);
}

// ---- GatherElements (torch.gather): out[i] = data[i with i[axis] = indices[i]] ----

struct GatherElementsParams {
  const uint8_t* data;
  uint8_t* out;
  const void* indices;
  bool idx64;
  int64_t n_data, n_idx;
  int rank, axis;
  int64_t idx_dims[kMaxRank];
  int64_t data_strides[kMaxRank];
  int64_t axis_dim;
  size_t es;
};

void gather_elements_kernel(arun::Block blk, const GatherElementsParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n_idx));
  if (r.size() == 0) return;
  const uint8_t* data = blk.map(p.data, static_cast<size_t>(p.n_data) * p.es).data();
  uint8_t* out = blk.map(p.out, static_cast<size_t>(p.n_idx) * p.es).data();
  const int64_t* i64 = p.idx64 ? blk.map(static_cast<const int64_t*>(p.indices), p.n_idx).data() : nullptr;
  const int32_t* i32 = p.idx64 ? nullptr : blk.map(static_cast<const int32_t*>(p.indices), p.n_idx).data();
  for (size_t i = r.first; i < r.last; ++i) {
    int64_t k = p.idx64 ? i64[i] : i32[i];
    if (k < -p.axis_dim || k >= p.axis_dim) {
      blk.fail(ACL_ERROR_RT_AICORE_EXCEPTION, ("GatherElements: index " + std::to_string(k) + " is outside [" +
                                               std::to_string(-p.axis_dim) + ", " + std::to_string(p.axis_dim) + ")")
                                                  .c_str());
      return;
    }
    if (k < 0) k += p.axis_dim;
    int64_t lin = static_cast<int64_t>(i), off = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t c = lin % p.idx_dims[d];
      lin /= p.idx_dims[d];
      off += (d == p.axis ? k : c) * p.data_strides[d];
    }
    std::memcpy(out + i * p.es, data + static_cast<size_t>(off) * p.es, p.es);
  }
}

// ONNX GatherElements, extended as torch.gather is: indices may be smaller than data outside the axis.
Status run_gather_elements(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& idx = call.inputs[1];
  if (idx.dtype != ACL_INT64 && idx.dtype != ACL_INT32) {
    return call.input_error(std::string("indices must be int32 or int64, got ") + dtype_name(idx.dtype));
  }
  int64_t axis_attr = 0, axis = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", 0, &axis_attr));
  if (x.rank() == 0 || x.rank() > kMaxRank) return call.input_error("data must have rank 1 to 8");
  if (idx.rank() != x.rank()) return call.input_error("indices must have data's rank");
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                           std::to_string(x.rank()));
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != axis && idx.shape[d] > x.shape[d]) {
      return call.input_error("indices " + shape_text(idx.shape) + " exceed data " + shape_text(x.shape) +
                              " outside the axis");
    }
  }
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, idx.shape));
  if (idx.count() == 0) return Status::Ok();
  GatherElementsParams p{ptr<uint8_t>(x),
                         ptr<uint8_t>(call.outputs[0]),
                         idx.data,
                         idx.dtype == ACL_INT64,
                         x.count(),
                         idx.count(),
                         x.rank(),
                         static_cast<int>(axis),
                         {},
                         {},
                         x.shape[axis],
                         aclDataTypeSize(x.dtype)};
  const Shape st = contiguous_strides(x.shape);
  for (int d = 0; d < x.rank(); ++d) {
    p.idx_dims[d] = idx.shape[d];
    p.data_strides[d] = st[d];
  }
  return launch_op(call, call.blocks_for(idx.count(), 1 << 14), gather_elements_kernel, p);
}

// ---- Cast ----

// ONNX TensorProto.DataType codes, as the `to` attribute carries them.
bool onnx_to_acl(int64_t onnx, aclDataType* out) {
  switch (onnx) {
    case 1: *out = ACL_FLOAT; return true;
    case 2: *out = ACL_UINT8; return true;
    case 3: *out = ACL_INT8; return true;
    case 5: *out = ACL_INT16; return true;
    case 6: *out = ACL_INT32; return true;
    case 7: *out = ACL_INT64; return true;
    case 9: *out = ACL_BOOL; return true;
    case 10: *out = ACL_FLOAT16; return true;
    case 11: *out = ACL_DOUBLE; return true;
    default: return false;
  }
}

struct Bool8 {
  uint8_t v;
};

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, Half>) return half_to_float(v.bits);
  else if constexpr (std::is_same_v<T, Bool8>) return v.v != 0 ? 1.0 : 0.0;
  else return static_cast<double>(v);
}

// Float to integer saturates (NaN -> 0) instead of being undefined; integer to integer wraps.
template <class To, class From>
To convert(From v) {
  if constexpr (std::is_same_v<To, Half>) return Half{float_to_half(static_cast<float>(to_double(v)))};
  else if constexpr (std::is_same_v<To, Bool8>) return Bool8{static_cast<uint8_t>(to_double(v) != 0.0)};
  else if constexpr (std::is_floating_point_v<To>) return static_cast<To>(to_double(v));
  else if constexpr (std::is_integral_v<From>) return static_cast<To>(v);
  else {
    const double d = to_double(v);
    if (std::isnan(d)) return 0;
    if (d <= static_cast<double>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  }
}

template <class From, class To>
struct CastParams {
  const From* in;
  To* out;
  int64_t n;
};

template <class From, class To>
void cast_kernel(arun::Block blk, const CastParams<From, To>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const From* in = blk.map(p.in, p.n).data();
  To* out = blk.map(p.out, p.n).data();
  for (size_t i = r.first; i < r.last; ++i) out[i] = convert<To>(in[i]);
}

template <class F>
bool dispatch_cast(aclDataType dtype, F&& f) {
  switch (dtype) {
    case ACL_FLOAT: f(float{}); return true;
    case ACL_FLOAT16: f(Half{}); return true;
    case ACL_DOUBLE: f(double{}); return true;
    case ACL_INT8: f(int8_t{}); return true;
    case ACL_UINT8: f(uint8_t{}); return true;
    case ACL_INT16: f(int16_t{}); return true;
    case ACL_INT32: f(int32_t{}); return true;
    case ACL_INT64: f(int64_t{}); return true;
    case ACL_BOOL: f(Bool8{}); return true;
    default: return false;
  }
}

Status run_cast(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  if (!call.has_attr("to")) return call.attr_error("attribute 'to' is required");
  int64_t to = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("to", 0, &to));
  aclDataType target;
  if (!onnx_to_acl(to, &target)) {
    return call.attr_error("to = " + std::to_string(to) +
                           " is not a supported ONNX data type (1, 2, 3, 5, 6, 7, 9, 10, 11)");
  }
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, target, x.shape));
  if (x.count() == 0) return Status::Ok();
  Status st;
  const bool ok = dispatch_cast(x.dtype, [&](auto from) {
    dispatch_cast(target, [&](auto to_tag) {
      using From = decltype(from);
      using To = decltype(to_tag);
      CastParams<From, To> p{ptr<From>(x), ptr<To>(call.outputs[0]), x.count()};
      st = launch_op(call, call.blocks_for(x.count(), 1 << 14), cast_kernel<From, To>, p);
    });
  });
  if (!ok) return call.dtype_error(std::string("no cast from ") + dtype_name(x.dtype));
  return st;
}

}  // namespace

void register_shape_ops(std::vector<OpDef>& defs) {
  defs.push_back({"Identity", &run_identity, {}});
  defs.push_back({"Flatten", &run_flatten, {"axis"}});
  defs.push_back({"Reshape", &run_reshape, {"allowzero"}});
  defs.push_back({"Transpose", &run_transpose, {"perm"}});
  defs.push_back({"Concat", &run_concat, {"axis"}});
  defs.push_back({"Gather", &run_gather, {"axis"}});
  defs.push_back({"GatherElements", &run_gather_elements, {"axis"}});
  defs.push_back({"Cast", &run_cast, {"to"}});
}

}  // namespace arun::ops
