// Reductions (ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp: axes, keepdims, noop_with_empty_axes) and TopK.
//
// Reductions: float32 and float16 accumulate in double so long rows keep float32 accuracy;
// ReduceMax / Min / Sum / Prod also take int32 and int64 (accumulated in int64, sums and products
// wrapping), ReduceMax / Min int8 and uint8 too. Max / Min skip NaN as they always have here (aclnn relies on it).
// ReduceSum's axes are an attribute before opset 13 and an input from 13 (with noop_with_empty_axes); the others' axes
// stay attributes through opset 17. Axes given as an input live in device memory, so the kernel reads them, builds the
// reduction and checks the output description against it. Without an `opset` attribute (aclopExecuteV2 / aclnn callers)
// either form is accepted.
//
// TopK: k attribute before opset 10, K input from 10 (read by the kernel, checked against the
// output descriptions); largest / smallest, ties to the lower index, NaN larger than any number
// (as ONNX Runtime orders them). Output is always sorted (sorted=0 allows any order).
#include <algorithm>
#include <limits>

#include "kernel_common.hpp"

namespace arun::ops {
namespace {

// A small int64 input read by the kernel.
struct AxesInput {
  const int64_t* data = nullptr;
  int64_t len = 0;
};

std::vector<int64_t> read_axes(const Block& blk, const AxesInput& in) {
  if (in.len == 0) return {};
  auto s = blk.map(in.data, static_cast<size_t>(in.len));
  return std::vector<int64_t>(s.data(), s.data() + in.len);
}

enum class Reduce { Mean, Sum, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

// Which input dims an output element covers: the kept dims walk the outputs, the reduced dims one
// output's inputs.
struct ReducePlan {
  StridedWalk kept, red;
  int64_t n_out = 1, reduced_count = 1;
  Shape out;
};

bool reduce_plan(const Shape& in, const std::vector<int64_t>& axes, bool keepdims, bool noop, ReducePlan* p,
                 std::string* why) {
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> reduce(in.size(), axes.empty() && !noop);
  for (int64_t a : axes) {
    int64_t ax = 0;
    if (!normalize_axis(a, rank, &ax)) {
      *why = "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank);
      return false;
    }
    if (reduce[ax]) {
      *why = "axis " + std::to_string(a) + " is given twice";
      return false;
    }
    reduce[ax] = true;
  }
  *p = ReducePlan{};
  const Shape strides = contiguous_strides(in);
  for (size_t d = 0; d < in.size(); ++d) {
    if (reduce[d]) {
      if (keepdims) p->out.push_back(1);
      p->red.dims[p->red.rank] = in[d];
      p->red.stride[0][p->red.rank++] = strides[d];
      p->reduced_count *= in[d];
    } else {
      p->out.push_back(in[d]);
      p->kept.dims[p->kept.rank] = in[d];
      p->kept.stride[0][p->kept.rank++] = strides[d];
      p->n_out *= in[d];
    }
  }
  return true;
}

bool empty_has_no_value(Reduce k) {
  return k == Reduce::Max || k == Reduce::Min || k == Reduce::Mean;
}

template <class T>
struct ReduceParams {
  const T* in;
  T* out;
  int64_t n;
  Reduce kind;
  ReducePlan plan;  // host-built, unless `axes` is read by the kernel
  AxesInput axes;
  Shape in_shape, out_shape;
  bool keepdims, noop;
  std::string op;
};

template <class T>
void reduce_kernel(arun::Block blk, const ReduceParams<T>& p) {
  ReducePlan kplan;
  const ReducePlan* plan = &p.plan;
  if (p.axes.data != nullptr) {
    const std::vector<int64_t> axes = read_axes(blk, p.axes);
    std::string why;
    if (!reduce_plan(p.in_shape, axes, p.keepdims, p.noop, &kplan, &why)) {
      blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, (p.op + ": " + why).c_str());
    }
    if (kplan.out != p.out_shape) {
      blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
               (p.op + ": axes " + shape_text(axes) + " give output " + shape_text(kplan.out) +
                ", the output description says " + shape_text(p.out_shape))
                   .c_str());
    }
    if (kplan.reduced_count == 0 && kplan.n_out > 0 && empty_has_no_value(p.kind)) {
      blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH, (p.op + ": reducing an empty axis has no value").c_str());
    }
    plan = &kplan;
  }
  const IndexRange r = blk.range(static_cast<size_t>(plan->n_out));
  if (r.size() == 0) return;
  using C = Compute<T>;
  constexpr bool kInt = std::is_integral_v<T>;
  using A = std::conditional_t<kInt, int64_t, double>;
  const T* in = plan->reduced_count > 0 ? blk.map(p.in, static_cast<size_t>(p.n)).data() : nullptr;
  T* out = blk.map(p.out, static_cast<size_t>(plan->n_out)).data();
  StridedWalk::Cursor kc = plan->kept.at(static_cast<int64_t>(r.first));
  const int64_t cnt = plan->reduced_count;
  for (size_t o = r.first; o < r.last; ++o) {
    const T* base = in != nullptr ? in + kc.off[0] : nullptr;
    StridedWalk::Cursor rc = plan->red.at(0);
    A acc{};
    switch (p.kind) {
      case Reduce::Max:
        acc = kInt ? A(std::numeric_limits<int64_t>::min()) : -std::numeric_limits<A>::infinity();
        break;
      case Reduce::Min:
        acc = kInt ? A(std::numeric_limits<int64_t>::max()) : std::numeric_limits<A>::infinity();
        break;
      case Reduce::Prod:
        acc = 1;
        break;
      default:
        acc = 0;
    }
    A shift = 0;  // LogSumExp: the row maximum, so that exp cannot overflow
    if constexpr (!kInt) {
      if (p.kind == Reduce::LogSumExp) {
        shift = -std::numeric_limits<double>::infinity();
        StridedWalk::Cursor mc = plan->red.at(0);
        for (int64_t j = 0; j < cnt; ++j) {
          const double v = static_cast<double>(C::load(base[mc.off[0]]));
          if (std::isnan(v) || v > shift) shift = v;
          if (std::isnan(v)) break;
          plan->red.next(mc);
        }
        if (std::isinf(shift)) shift = 0;  // all -inf (or +inf): the plain sum gives the answer
      }
    }
    for (int64_t j = 0; j < cnt; ++j) {
      const A v = static_cast<A>(C::load(base[rc.off[0]]));
      switch (p.kind) {
        case Reduce::Max:
          acc = std::max(acc, v);
          break;
        case Reduce::Min:
          acc = std::min(acc, v);
          break;
        case Reduce::Prod:
          if constexpr (kInt)
            acc = static_cast<A>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v));
          else
            acc *= v;
          break;
        case Reduce::L1:
          acc += v < 0 ? -v : v;
          break;
        case Reduce::L2:
        case Reduce::SumSquare:
          acc += v * v;
          break;
        case Reduce::LogSumExp:
          if constexpr (!kInt) acc += std::exp(v - shift);
          break;
        default:
          if constexpr (kInt)
            acc = static_cast<A>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v));
          else
            acc += v;
      }
      plan->red.next(rc);
    }
    if constexpr (!kInt) {
      switch (p.kind) {
        case Reduce::Mean:
          acc /= double(cnt);
          break;
        case Reduce::L2:
          acc = std::sqrt(acc);
          break;
        case Reduce::LogSum:
          acc = std::log(acc);
          break;
        case Reduce::LogSumExp:
          acc = std::log(acc) + shift;
          break;
        default:
          break;
      }
      out[o] = C::store(static_cast<typename C::type>(acc));
    } else {
      out[o] = static_cast<T>(acc);
    }
    plan->kept.next(kc);
  }
}

template <class F>
bool dispatch_reduce(aclDataType dtype, bool ints, bool bytes, F&& f) {
  return dispatch_float(dtype, f) || (ints && dispatch_dtypes<int32_t, int64_t>(dtype, f)) ||
         (bytes && dispatch_dtypes<int8_t, uint8_t>(dtype, f));
}

template <Reduce K>
Status run_reduce(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 2));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  const Tensor& y = call.outputs[0];
  if (x.rank() > kMaxRank) return call.input_error("rank exceeds " + std::to_string(kMaxRank));
  int64_t keepdims = 1, noop = 0, opset = -1;  // -1: not told, either form of axes
  ARUN_RETURN_IF_ERROR(call.attr_int("keepdims", 1, &keepdims));
  ARUN_RETURN_IF_ERROR(call.attr_int("noop_with_empty_axes", 0, &noop));
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", -1, &opset));
  const bool has_input = call.inputs.size() == 2 && call.inputs[1].present();
  // ReduceSum took axes as an input from opset 13; the others only from 18 (beyond our 17).
  const bool input_form = opset >= 0 && K == Reduce::Sum && opset >= 13;
  if (opset >= 0 && input_form && call.has_attr("axes")) {
    return call.attr_error("opset " + std::to_string(opset) + " takes axes as an input, not an attribute");
  }
  if (opset >= 0 && !input_form && has_input) {
    return call.input_error("opset " + std::to_string(opset) + " takes axes as an attribute, not an input");
  }
  if (has_input && call.has_attr("axes")) return call.attr_error("axes given both as an attribute and as an input");
  constexpr bool kInts = K == Reduce::Max || K == Reduce::Min || K == Reduce::Sum || K == Reduce::Prod;
  ReduceParams<Half> tmpl{};  // the type-independent fields, copied into the typed params below
  tmpl.n = x.count();
  tmpl.kind = K;
  tmpl.keepdims = keepdims != 0;
  tmpl.noop = noop != 0;
  tmpl.op = call.op;
  int64_t work = 0;
  // An empty axes input is known on the host (it has no data to read): the attribute path below
  // with no axes (all of them, or none with noop_with_empty_axes).
  const bool kernel_axes = has_input && call.inputs[1].count() > 0;
  if (has_input && !kernel_axes && call.inputs[1].dtype != ACL_INT64) {
    return call.input_error(std::string("axes must be int64, got ") + dtype_name(call.inputs[1].dtype));
  }
  if (kernel_axes) {
    const Tensor& a = call.inputs[1];
    if (a.dtype != ACL_INT64) return call.input_error(std::string("axes must be int64, got ") + dtype_name(a.dtype));
    if (a.rank() != 1 || a.count() > x.rank()) {
      return call.input_error("axes must be 1-D with at most " + std::to_string(x.rank()) + " entries, got " +
                              shape_text(a.shape));
    }
    const int64_t want = keepdims ? x.rank() : a.count() > 0 ? x.rank() - a.count() : noop ? x.rank() : 0;
    if (y.dtype != x.dtype || y.rank() != want) {
      return call.output_error("output description " + shape_text(y.shape) + " " + dtype_name(y.dtype) +
                               " cannot be input " + shape_text(x.shape) + " " + dtype_name(x.dtype) +
                               " reduced over " + std::to_string(a.count()) + " axes");
    }
    tmpl.axes = {ptr<const int64_t>(a), a.count()};
    tmpl.in_shape = x.shape;
    tmpl.out_shape = y.shape;
    work = x.count();
  } else {
    std::vector<int64_t> axes;
    if (!has_input) ARUN_RETURN_IF_ERROR(call.attr_ints("axes", {}, &axes));
    std::string why;
    if (!reduce_plan(x.shape, axes, keepdims != 0, noop != 0, &tmpl.plan, &why)) return call.attr_error(why);
    ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, tmpl.plan.out));
    if (tmpl.plan.n_out == 0) return Status::Ok();
    if (tmpl.plan.reduced_count == 0 && empty_has_no_value(K)) {
      return call.input_error("reducing an empty axis has no value");
    }
    work = x.count();
  }
  Status st;
  constexpr bool kBytes = K == Reduce::Max || K == Reduce::Min;  // ONNX 12+: int8 / uint8 too
  const bool ok = dispatch_reduce(x.dtype, kInts, kBytes, [&](auto tag) {
    using T = decltype(tag);
    ReduceParams<T> p{ptr<T>(x),     ptr<T>(y),      tmpl.n,        K,         tmpl.plan, tmpl.axes,
                      tmpl.in_shape, tmpl.out_shape, tmpl.keepdims, tmpl.noop, tmpl.op};
    // Blocks over outputs: with kernel-read axes the output count is the description's.
    st = launch_op(call, call.blocks_for(std::max<int64_t>(work, 1), 1 << 14), reduce_kernel<T>, std::move(p));
  });
  if (!ok) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) +
                            (kBytes  ? " (float32, float16, int8, uint8, int32, int64)"
                             : kInts ? " (float32, float16, int32, int64)"
                                     : " (float32, float16)"));
  }
  return st;
}

// ---- TopK ----

template <class T>
struct TopKParams {
  const T* in;
  T* values;
  int64_t* indices;
  int64_t outer, dim, inner, k;
  bool largest;
  const int64_t* k_dev;  // the K input (opset 10+), or nullptr
};

template <class T>
void topk_kernel(arun::Block blk, const TopKParams<T>& p) {
  if (p.k_dev != nullptr) {
    const int64_t k = blk.map(p.k_dev, 1)[0];
    if (k < 0 || k > p.dim) {
      blk.fail(ACL_ERROR_OP_INPUT_NOT_MATCH,
               ("TopK: K = " + std::to_string(k) + " is outside [0, " + std::to_string(p.dim) + "]").c_str());
    }
    if (k != p.k) {
      blk.fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, ("TopK: K = " + std::to_string(k) + ", the output descriptions have " +
                                               std::to_string(p.k) + " along the axis")
                                                  .c_str());
    }
  }
  const IndexRange r = blk.range(static_cast<size_t>(p.outer * p.inner));
  if (r.size() == 0 || p.k == 0) return;
  using C = Compute<T>;
  using V = typename C::type;
  const T* in = blk.map(p.in, static_cast<size_t>(p.outer * p.dim * p.inner)).data();
  T* values = blk.map(p.values, static_cast<size_t>(p.outer * p.k * p.inner)).data();
  int64_t* indices = blk.map(p.indices, static_cast<size_t>(p.outer * p.k * p.inner)).data();
  std::vector<std::pair<V, int64_t>> row(static_cast<size_t>(p.dim));
  // NaN ranks above every number (largest first: NaN first; smallest first: NaN last); ties go to
  // the lower index.
  const auto nan = [](V v) {
    if constexpr (std::is_floating_point_v<V>)
      return std::isnan(v);
    else
      return false;
  };
  const auto before = [&](const std::pair<V, int64_t>& a, const std::pair<V, int64_t>& b) {
    const bool na = nan(a.first), nb = nan(b.first);
    if (na || nb) {
      if (na && nb) return a.second < b.second;
      return p.largest ? na : nb;
    }
    if (a.first != b.first) return p.largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  };
  for (size_t line = r.first; line < r.last; ++line) {
    const int64_t o = static_cast<int64_t>(line) / p.inner, i = static_cast<int64_t>(line) % p.inner;
    const T* src = in + o * p.dim * p.inner + i;
    for (int64_t j = 0; j < p.dim; ++j) row[j] = {C::load(src[j * p.inner]), j};
    std::partial_sort(row.begin(), row.begin() + p.k, row.end(), before);
    for (int64_t j = 0; j < p.k; ++j) {
      const int64_t at = (o * p.k + j) * p.inner + i;
      values[at] = C::store(row[j].first);
      indices[at] = row[j].second;
    }
  }
}

Status run_topk(const OpCall& call) {
  int64_t opset = 17;
  ARUN_RETURN_IF_ERROR(call.attr_int("opset", 17, &opset));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(2));
  const bool k_input = opset >= 10;  // K became an input at opset 10
  if (k_input) {
    ARUN_RETURN_IF_ERROR(call.expect_inputs(2, 2));
    if (call.has_attr("k")) return call.attr_error("opset " + std::to_string(opset) + " takes K as an input");
    const Tensor& kt = call.inputs[1];
    if (kt.dtype != ACL_INT64 || kt.count() != 1 || kt.rank() > 1) {
      return call.input_error("K must be one int64 element, got " + shape_text(kt.shape) + " " + dtype_name(kt.dtype));
    }
  } else {
    ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
    if (!call.has_attr("k")) return call.attr_error("attribute 'k' is required before opset 10");
  }
  const Tensor& x = call.inputs[0];
  if (x.rank() == 0) return call.input_error("input must have at least one dimension");
  int64_t axis_attr = -1, axis = 0, largest = 1, sorted = 1;
  ARUN_RETURN_IF_ERROR(call.attr_int("axis", -1, &axis_attr));
  ARUN_RETURN_IF_ERROR(call.attr_int("largest", 1, &largest));
  ARUN_RETURN_IF_ERROR(call.attr_int("sorted", 1, &sorted));
  if (!normalize_axis(axis_attr, x.rank(), &axis)) {
    return call.attr_error("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                           std::to_string(x.rank()));
  }
  int64_t k = 0;
  if (k_input) {
    // K is in device memory: the output descriptions say what it must be; the kernel checks.
    if (call.outputs[0].rank() != x.rank()) {
      return call.output_error("output 0 has rank " + std::to_string(call.outputs[0].rank()) + ", the input " +
                               std::to_string(x.rank()));
    }
    k = call.outputs[0].shape[axis];
  } else {
    ARUN_RETURN_IF_ERROR(call.attr_int("k", 0, &k));
  }
  if (k < 0 || k > x.shape[axis]) {
    const std::string why = "k = " + std::to_string(k) + " is outside [0, " + std::to_string(x.shape[axis]) + "]";
    return k_input ? call.output_error("the output descriptions' " + why) : call.attr_error(why);
  }
  Shape out = x.shape;
  out[axis] = k;
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, out));
  ARUN_RETURN_IF_ERROR(call.expect_output(1, ACL_INT64, out));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape[d];
  if (numel(out) == 0 && !k_input) return Status::Ok();
  Status st;
  const bool ok = dispatch_numeric(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    TopKParams<T> p{ptr<T>(x),
                    ptr<T>(call.outputs[0]),
                    ptr<int64_t>(call.outputs[1]),
                    outer,
                    x.shape[axis],
                    inner,
                    k,
                    largest != 0,
                    k_input ? ptr<const int64_t>(call.inputs[1]) : nullptr};
    st = launch_op(call, call.blocks_for(x.count(), 1 << 12), topk_kernel<T>, p);
  });
  if (!ok) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) +
                            " (float32, float16, float64, int32, int64)");
  }
  return st;
}

}  // namespace

void register_reduce(std::vector<OpDef>& defs) {
  const std::vector<std::string> attrs{"axes", "keepdims", "noop_with_empty_axes", "opset"};
  defs.push_back({"ReduceMean", &run_reduce<Reduce::Mean>, attrs});
  defs.push_back({"ReduceSum", &run_reduce<Reduce::Sum>, attrs});
  defs.push_back({"ReduceMax", &run_reduce<Reduce::Max>, attrs});
  defs.push_back({"ReduceMin", &run_reduce<Reduce::Min>, attrs});
  defs.push_back({"ReduceProd", &run_reduce<Reduce::Prod>, attrs});
  defs.push_back({"ReduceL1", &run_reduce<Reduce::L1>, attrs});
  defs.push_back({"ReduceL2", &run_reduce<Reduce::L2>, attrs});
  defs.push_back({"ReduceSumSquare", &run_reduce<Reduce::SumSquare>, attrs});
  defs.push_back({"ReduceLogSum", &run_reduce<Reduce::LogSum>, attrs});
  defs.push_back({"ReduceLogSumExp", &run_reduce<Reduce::LogSumExp>, attrs});
  defs.push_back({"TopK", &run_topk, {"axis", "largest", "sorted", "k", "opset"}});
}

}  // namespace arun::ops
