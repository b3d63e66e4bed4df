// Tensors made from shapes and scalars: Shape (opset 15's start / end), Size, ConstantOfShape (its
// shape input read and checked in the kernel against the output description), Range (start, limit,
// delta read in the kernel; the length checked against the description) and EyeLike (k, dtype).
// None reads the data of its tensor input; outputs are written by element size.
#include <cmath>

#include "pointwise_common.hpp"

namespace arun::ops::pw_creation {
namespace {

// ---- Shape, Size: values the host knows, written by one block ----

struct ValuesArgs {
  std::vector<int64_t> values;
  int64_t* out;
};

void values_kernel(arun::Block blk, const ValuesArgs& p) {
  if (blk.index() != 0) return;
  int64_t* out = blk.map(p.out, p.values.size()).data();
  std::copy(p.values.begin(), p.values.end(), out);
}

Status launch_values(const OpCall& call, std::vector<int64_t> values) {
  if (values.empty()) return Status::Ok();
  return launch_op(call, 1, values_kernel, ValuesArgs{std::move(values), ptr<int64_t>(call.outputs[0])});
}

Status run_shape(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const int64_t rank = x.rank();
  int64_t start = 0, end = rank;
  ARUN_RETURN_IF_ERROR(call.attr_int("start", 0, &start));
  ARUN_RETURN_IF_ERROR(call.attr_int("end", rank, &end));
  // Opset 15: negative axes count from the back, then both are clamped to [0, rank].
  auto clamp_axis = [rank](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
  start = clamp_axis(start);
  end = clamp_axis(end);
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(x.shape[d]);
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_INT64, {static_cast<int64_t>(dims.size())}));
  return launch_values(call, std::move(dims));
}

Status run_size(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_INT64, {}));
  return launch_values(call, {call.inputs[0].count()});
}

// ---- fills by element size ----

// Writes `pattern` (the element's bytes) into elements [first, last) of `out`.
void fill_elements(uint8_t* out, size_t es, uint64_t pattern, size_t first, size_t last) {
  auto fill = [&](auto tag) {
    using E = decltype(tag);
    E v;
    std::memcpy(&v, &pattern, sizeof(E));
    std::fill(reinterpret_cast<E*>(out) + first, reinterpret_cast<E*>(out) + last, v);
  };
  switch (es) {
    case 1:
      fill(uint8_t{});
      break;
    case 2:
      fill(uint16_t{});
      break;
    case 4:
      fill(uint32_t{});
      break;
    default:
      fill(uint64_t{});
      break;
  }
}

// Element sizes the fills handle; scalar_bytes has converted the value for exactly these dtypes.
bool fillable(aclDataType d) {
  uint64_t bits;
  return pointwise::scalar_bytes(d, 0.0, 0, true, &bits);
}

// ---- ConstantOfShape ----

struct ConstantArgs {
  const int64_t* shape;  // the shape input, checked against out_shape in the kernel
  Shape out_shape;
  uint8_t* out;
  int64_t n;
  size_t es;
  uint64_t pattern;
};

void constant_kernel(arun::Block blk, const ConstantArgs& p) {
  if (!p.out_shape.empty()) {
    auto req = blk.map(p.shape, p.out_shape.size());
    for (size_t d = 0; d < p.out_shape.size(); ++d) {
      if (req[d] < 0) {
        blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH,
                 ("ConstantOfShape: shape[" + std::to_string(d) + "] is " + std::to_string(req[d])).c_str());
      }
      if (req[d] != p.out_shape[d]) {
        blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                 ("ConstantOfShape: the shape input asks for " + shape_text(Shape(req.begin(), req.end())) +
                  ", the output description says " + shape_text(p.out_shape))
                     .c_str());
      }
    }
  }
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  fill_elements(blk.map(p.out, static_cast<size_t>(p.n) * p.es).data(), p.es, p.pattern, r.first, r.last);
}

Status run_constant_of_shape(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& shape = call.inputs[0];
  const Tensor& y = call.outputs[0];
  if (shape.dtype != ACL_INT64)
    return call.input_error(std::string("shape must be int64, got ") + dtype_name(shape.dtype));
  if (shape.rank() != 1) return call.input_error("shape must be 1-D, got " + shape_text(shape.shape));
  if (shape.shape[0] != y.rank()) {
    return call.output_error("shape input has " + std::to_string(shape.shape[0]) +
                             " entries, the output description has rank " + std::to_string(y.rank()));
  }
  // `value`: a one-element tensor in ONNX, an int or float here (the importer converts it); default 0.0f.
  double fv = 0.0;
  int64_t iv = 0;
  bool from_int = false;
  if (const AttrValue* v = call.attrs != nullptr ? call.attrs->find("value") : nullptr) {
    if (auto* i = std::get_if<int64_t>(v)) {
      iv = *i;
      from_int = true;
    } else if (auto* b = std::get_if<bool>(v)) {
      iv = *b ? 1 : 0;
      from_int = true;
    } else if (auto* f = std::get_if<float>(v)) {
      fv = *f;
    } else {
      return call.attr_error("attribute 'value' must be an int or a float");
    }
  }
  if (!fillable(y.dtype)) return call.dtype_error(std::string("no kernel for output dtype ") + dtype_name(y.dtype));
  ConstantArgs p{ptr<int64_t>(shape), y.shape, ptr<uint8_t>(y), y.count(), aclDataTypeSize(y.dtype), 0};
  if (!pointwise::scalar_bytes(y.dtype, fv, iv, from_int, &p.pattern)) {
    return call.attr_error("value " + std::to_string(fv) + " is not representable as " + dtype_name(y.dtype));
  }
  return launch_op(call, call.blocks_for(y.count(), 1 << 16), constant_kernel, std::move(p));
}

// ---- Range ----

template <class T>
struct RangeArgs {
  const T* start;
  const T* limit;
  const T* delta;
  T* out;
  int64_t n;
};

// The element count ONNX's shape inference gives: ceil((limit - start) / delta) in double, the
// difference taken in T (exactly, for integers), at least 0. False with a reason when undefined.
template <class T>
bool range_count(T start, T limit, T delta, int64_t* n, std::string* why) {
  if (delta == T(0)) {
    *why = "delta is 0";
    return false;
  }
  double diff;
  if constexpr (std::is_integral_v<T>) {
    diff = static_cast<double>(static_cast<__int128>(limit) - static_cast<__int128>(start));
  } else {
    diff = static_cast<double>(static_cast<T>(limit - start));
  }
  const double q = std::ceil(diff / static_cast<double>(delta));
  if (std::isnan(q) || q >= 9.2233720368547758e18) {
    *why = "start " + std::to_string(start) + ", limit " + std::to_string(limit) + " and delta " +
           std::to_string(delta) + " give no finite element count";
    return false;
  }
  *n = q < 0 ? 0 : static_cast<int64_t>(q);
  return true;
}

template <class T>
void range_kernel(arun::Block blk, const RangeArgs<T>& p) {
  const T start = *blk.map(p.start, 1).data();
  const T limit = *blk.map(p.limit, 1).data();
  const T delta = *blk.map(p.delta, 1).data();
  int64_t n = 0;
  std::string why;
  if (!range_count(start, limit, delta, &n, &why)) blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, ("Range: " + why).c_str());
  if (n != p.n) {
    blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
             ("Range: start " + std::to_string(start) + ", limit " + std::to_string(limit) + ", delta " +
              std::to_string(delta) + " give " + std::to_string(n) + " elements, the output description says " +
              std::to_string(p.n))
                 .c_str());
  }
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  T* out = blk.map(p.out, p.n).data();
  for (size_t i = r.first; i < r.last; ++i) {
    if constexpr (std::is_integral_v<T>) {
      // The value lies within [start, limit) by the count above, so modular arithmetic gives it
      // exactly even where i * delta alone would overflow int64.
      out[i] = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(start)) +
                              static_cast<uint64_t>(i) * static_cast<uint64_t>(static_cast<int64_t>(delta)));
    } else {
      out[i] = start + static_cast<T>(i) * delta;  // output[i] = start + i * delta, in T
    }
  }
}

Status run_range(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(3, 3));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1, 2}));
  static const char* const names[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    if (call.inputs[i].count() != 1) {
      return call.input_error(std::string(names[i]) + " must be a scalar, got shape " +
                              shape_text(call.inputs[i].shape));
    }
  }
  const aclDataType dt = call.inputs[0].dtype;
  const Tensor& y = call.outputs[0];
  if (y.rank() != 1) return call.output_error("the output must be 1-D, the description says " + shape_text(y.shape));
  ARUN_RETURN_IF_ERROR(call.expect_output(0, dt, y.shape));
  Status st;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    RangeArgs<T> p{ptr<T>(call.inputs[0]), ptr<T>(call.inputs[1]), ptr<T>(call.inputs[2]), ptr<T>(y), y.count()};
    st = launch_op(call, call.blocks_for(y.count(), 1 << 16), range_kernel<T>, p);
  };
  switch (dt) {
    case ACL_FLOAT:
      go(float{});
      break;
    case ACL_DOUBLE:
      go(double{});
      break;
    case ACL_INT16:
      go(int16_t{});
      break;
    case ACL_INT32:
      go(int32_t{});
      break;
    case ACL_INT64:
      go(int64_t{});
      break;
    default:
      return call.dtype_error(std::string("no kernel for ") + dtype_name(dt) +
                              " (float32, float64, int16, int32, int64)");
  }
  return st;
}

// ---- EyeLike ----

// ONNX TensorProto.DataType codes EyeLike's `dtype` may name.
bool eye_dtype(int64_t onnx, aclDataType* out) {
  switch (onnx) {
    case 1:
      *out = ACL_FLOAT;
      return true;
    case 2:
      *out = ACL_UINT8;
      return true;
    case 3:
      *out = ACL_INT8;
      return true;
    case 4:
      *out = ACL_UINT16;
      return true;
    case 5:
      *out = ACL_INT16;
      return true;
    case 6:
      *out = ACL_INT32;
      return true;
    case 7:
      *out = ACL_INT64;
      return true;
    case 9:
      *out = ACL_BOOL;
      return true;
    case 10:
      *out = ACL_FLOAT16;
      return true;
    case 11:
      *out = ACL_DOUBLE;
      return true;
    case 12:
      *out = ACL_UINT32;
      return true;
    case 13:
      *out = ACL_UINT64;
      return true;
    default:
      return false;
  }
}

struct EyeArgs {
  uint8_t* out;
  int64_t rows, cols, k;
  size_t es;
  uint64_t one;
};

void eye_kernel(arun::Block blk, const EyeArgs& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.rows));
  if (r.size() == 0) return;
  uint8_t* out = blk.map(p.out, static_cast<size_t>(p.rows * p.cols) * p.es).data();
  std::memset(out + r.first * p.cols * p.es, 0, r.size() * p.cols * p.es);
  for (size_t i = r.first; i < r.last; ++i) {
    const int64_t j = static_cast<int64_t>(i) + p.k;
    if (j >= 0 && j < p.cols) std::memcpy(out + (i * p.cols + j) * p.es, &p.one, p.es);
  }
}

Status run_eye_like(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  int64_t k = 0;
  ARUN_RETURN_IF_ERROR(call.attr_int("k", 0, &k));
  aclDataType dt = x.dtype;
  if (call.has_attr("dtype")) {
    int64_t code = 0;
    ARUN_RETURN_IF_ERROR(call.attr_int("dtype", 0, &code));
    if (!eye_dtype(code, &dt)) {
      return call.attr_error("dtype = " + std::to_string(code) +
                             " is not one EyeLike produces (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13)");
    }
  }
  if (x.rank() != 2) return call.input_error("input must be 2-D, got " + shape_text(x.shape));
  if (!fillable(dt)) return call.dtype_error(std::string("no kernel for ") + dtype_name(dt));
  ARUN_RETURN_IF_ERROR(call.expect_output(0, dt, x.shape));
  if (x.count() == 0) return Status::Ok();
  // A diagonal outside the matrix leaves it all zeros; clamping keeps i + k from overflowing.
  k = std::clamp<int64_t>(k, -x.shape[0], x.shape[1]);
  EyeArgs p{ptr<uint8_t>(call.outputs[0]), x.shape[0], x.shape[1], k, aclDataTypeSize(dt), 0};
  pointwise::scalar_bytes(dt, 1.0, 1, true, &p.one);
  return launch_op(call, call.blocks_for(x.count(), 1 << 16), eye_kernel, p);
}

}  // namespace
}  // namespace arun::ops::pw_creation

namespace arun::ops {

void register_creation(std::vector<OpDef>& defs) {
  using namespace pw_creation;
  defs.push_back({"Shape", &run_shape, {"start", "end"}});
  defs.push_back({"Size", &run_size, {}});
  defs.push_back({"ConstantOfShape", &run_constant_of_shape, {"value"}});
  defs.push_back({"Range", &run_range, {}});
  defs.push_back({"EyeLike", &run_eye_like, {"dtype", "k"}});
}

}  // namespace arun::ops
