// float16 conversion and stride helpers shared by the kernel families.
#include "kernel_common.hpp"

namespace arun::ops {

Shape contiguous_strides(const Shape& shape) {
  Shape s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

void broadcast_strides(const Shape& in, const Shape& out, int64_t* strides) {
  const size_t lead = out.size() - in.size();
  const Shape cs = contiguous_strides(in);
  for (size_t d = 0; d < out.size(); ++d) {
    if (d < lead) {
      strides[d] = 0;
    } else {
      const size_t k = d - lead;
      strides[d] = in[k] == 1 && out[d] != 1 ? 0 : cs[k];
    }
  }
}

std::string op_detail_text(const OpCall& call) {
  const char sep = plugin::kOpDetailSeparator;
  std::string out = call.trace != nullptr ? call.trace->node_name : call.op;
  out += sep;
  if (call.trace != nullptr) out += call.trace->model_name;
  // msprof's syntax: dims joined by ',', tensors by ';' (a scalar is an empty entry).
  const auto side = [&](const std::vector<Tensor>& ts) {
    std::string shapes, dtypes, formats;
    bool first = true;
    for (const Tensor& t : ts) {
      if (!t.present()) continue;
      if (!first) {
        shapes += ';';
        dtypes += ';';
        formats += ';';
      }
      first = false;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        if (d > 0) shapes += ',';
        shapes += std::to_string(t.shape[d]);
      }
      dtypes += msprof_dtype_name(t.dtype);
      formats += msprof_format_name(t.format);
    }
    out += sep + shapes + sep + dtypes + sep + formats;
  };
  side(call.inputs);
  side(call.outputs);
  return out;
}

namespace {

template <class T>
void check_finite_kernel(Block b, const T* data, size_t n) {
  const IndexRange r = b.range(n);
  if (r.size() == 0) return;
  auto v = b.map(data + r.first, r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    if (!b.check_finite(static_cast<double>(Compute<T>::load(v.data()[i])))) return;
  }
}

}  // namespace

Status check_outputs_finite(const OpCall& call) {
  uint32_t on = 0;
  if (!rt::stream_overflow_switch(call.stream, &on).ok() || on == 0) return Status::Ok();
  for (const Tensor& t : call.outputs) {
    if (t.data == nullptr || t.count() <= 0) continue;
    const auto n = static_cast<size_t>(t.count());
    const uint32_t blocks = call.blocks_for(t.count(), int64_t{1} << 16);
    Status st = Status::Ok();
    switch (t.dtype) {
      case ACL_FLOAT:
        st = launch_op(call, blocks, check_finite_kernel<float>, ptr<const float>(t), n);
        break;
      case ACL_FLOAT16:
        st = launch_op(call, blocks, check_finite_kernel<Half>, ptr<const Half>(t), n);
        break;
      case ACL_DOUBLE:
        st = launch_op(call, blocks, check_finite_kernel<double>, ptr<const double>(t), n);
        break;
      default:
        break;  // integers cannot hold Inf or NaN
    }
    ARUN_RETURN_IF_ERROR(st);
  }
  return Status::Ok();
}

Status binary_geometry(const OpCall& call, aclDataType out_dtype, Shape* out) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1}));
  const Tensor& a = call.inputs[0];
  const Tensor& b = call.inputs[1];
  if (!broadcast_shapes(a.shape, b.shape, out)) {
    return call.input_error("shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not broadcast");
  }
  if (out->size() > static_cast<size_t>(kMaxRank)) {
    return call.input_error("rank " + std::to_string(out->size()) + " exceeds " + std::to_string(kMaxRank));
  }
  return call.expect_output(0, out_dtype, *out);
}

}  // namespace arun::ops
