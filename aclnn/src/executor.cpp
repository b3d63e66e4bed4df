// Executors (aclnn-api.md 2.5 and 3): building a plan in phase 1, running it in phase 2, the
// repeatable mode and address refresh, and the strided copy kernel that moves views in and out of
// the workspace (with dtype conversion, a scale, and the rounding DivMod needs).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "acl/acl.h"
#include "aclnn_internal.hpp"
#include "arun/kernel.hpp"
#include "arun/runtime/front_door.hpp"
#include "arun/runtime/launch.hpp"

namespace arun::aclnn {
namespace {

constexpr uint64_t kAlign = 512;  // workspace buffers start on 512-byte boundaries, as CANN's do

// ---- element loads and stores in the host representation of Value
template <class T>
T read_as(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void write_as(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Float -> integer: truncation toward zero, NaN -> 0, saturation at the type's range (spec 5.26).
template <class I>
I float_to_int(double f, bool nonfinite_zero) {
  if (std::isnan(f) || (nonfinite_zero && std::isinf(f))) return 0;
  if (f <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (f >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(f);
}

void store(unsigned char* p, aclDataType d, const Value& v, bool nonfinite_zero) {
  auto integer = [&](auto tag) {
    using I = decltype(tag);
    // Integer -> integer wraps (two's complement), as the spec's Cast says.
    write_as<I>(p, v.is_float ? float_to_int<I>(v.f, nonfinite_zero) : static_cast<I>(v.i));
  };
  switch (d) {
    case ACL_FLOAT:
      write_as<float>(p, static_cast<float>(v.as_double()));
      break;
    case ACL_DOUBLE:
      write_as<double>(p, v.as_double());
      break;
    case ACL_FLOAT16:
      write_as<uint16_t>(p, ops::float_to_half(static_cast<float>(v.as_double())));
      break;
    case ACL_BF16:
      write_as<uint16_t>(p, arun::float_to_bf16(static_cast<float>(v.as_double())));
      break;
    case ACL_INT8:
      integer(int8_t{});
      break;
    case ACL_UINT8:
      integer(uint8_t{});
      break;
    case ACL_INT16:
      integer(int16_t{});
      break;
    case ACL_UINT16:
      integer(uint16_t{});
      break;
    case ACL_INT32:
      integer(int32_t{});
      break;
    case ACL_UINT32:
      integer(uint32_t{});
      break;
    case ACL_INT64:
      integer(int64_t{});
      break;
    case ACL_UINT64:
      integer(uint64_t{});
      break;
    case ACL_BOOL:
      *p = v.is_float ? (v.f != 0.0) : (v.i != 0);
      break;
    default:
      break;
  }
}

// One copy, resolved to addresses: element e of the `dims` walk reads src + soff(e) and writes
// dst + doff(e) (element offsets under per-dimension strides; a constant source reads nothing).
struct CopyParams {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t sstride[kMaxRank] = {};
  int64_t dstride[kMaxRank] = {};
  int64_t n = 0;
  const unsigned char* src = nullptr;  // element 0 of the source view
  size_t src_bytes = 0;                // the span the source view can touch from there
  unsigned char* dst = nullptr;
  size_t dst_bytes = 0;
  aclDataType sdt = ACL_DT_UNDEFINED, ddt = ACL_DT_UNDEFINED;
  bool constant = false;
  Value cval;
  bool scaled = false;
  Value scale;
  bool relu = false;
  bool absolute = false;
  Round round = Round::None;
  bool nonfinite_zero = false;
};

void copy_kernel(arun::Block blk, const CopyParams& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const size_t ses = aclDataTypeSize(p.sdt), des = aclDataTypeSize(p.ddt);
  const unsigned char* src = p.constant ? nullptr : blk.map(p.src, p.src_bytes).data();
  unsigned char* dst = blk.map(p.dst, p.dst_bytes).data();
  int64_t idx[kMaxRank] = {};
  int64_t linear = static_cast<int64_t>(r.first), soff = 0, doff = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    idx[d] = linear % p.dims[d];
    linear /= p.dims[d];
    soff += idx[d] * p.sstride[d];
    doff += idx[d] * p.dstride[d];
  }
  for (size_t e = r.first; e < r.last; ++e) {
    Value v = p.constant ? p.cval : load_value(src + soff * ses, p.sdt);
    if (p.scaled) {
      if (v.is_float || p.scale.is_float) {
        v.f = v.as_double() * p.scale.as_double();
        v.is_float = true;
      } else {
        v.i = static_cast<int64_t>(static_cast<uint64_t>(v.i) * static_cast<uint64_t>(p.scale.i));
      }
    }
    if (p.relu) {
      if (v.is_float) {
        v.f = v.f < 0 ? 0.0 : v.f;
      } else {
        v.i = std::max<int64_t>(v.i, 0);
      }
    }
    if (p.absolute) {
      if (v.is_float) {
        v.f = std::fabs(v.f);
      } else {
        v.i = static_cast<int64_t>(v.i < 0 ? 0 - static_cast<uint64_t>(v.i) : static_cast<uint64_t>(v.i));
      }
    }
    if (v.is_float && p.round == Round::Trunc) v.f = std::trunc(v.f);
    if (v.is_float && p.round == Round::Floor) v.f = std::floor(v.f);
    store(dst + doff * des, p.ddt, v, p.nonfinite_zero);
    for (int d = p.rank - 1; d >= 0; --d) {
      soff += p.sstride[d];
      doff += p.dstride[d];
      if (++idx[d] < p.dims[d]) break;
      soff -= p.sstride[d] * p.dims[d];
      doff -= p.dstride[d] * p.dims[d];
      idx[d] = 0;
    }
  }
}

// Bytes a view spans from its first element (0 for an empty view).
size_t span_bytes(const ops::Shape& dims, const int64_t* strides, size_t es) {
  int64_t last = 0;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0) return 0;
    last += (dims[k] - 1) * strides[k];
  }
  return static_cast<size_t>(last + 1) * es;
}

struct Phase2 {
  const aclOpExecutor& ex;
  unsigned char* ws;
  aclrtStream stream;
  rt::LaunchTarget target;

  template <class F, class... Args>
  Status launch(uint32_t blocks, F&& kernel, Args&&... args) {
    using Pack = arun::detail::KernelPack<std::decay_t<F>, std::decay_t<Args>...>;
    Pack* pack = new (std::nothrow)
        Pack{std::forward<F>(kernel), std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    if (pack == nullptr) return error(kInner, "out of host memory");
    rt::LaunchAttrs attrs;
    attrs.op_name = ex.op.c_str();
    attrs.args_bytes = static_cast<uint32_t>(sizeof(Pack));
    return rt::launch_kernel(stream, blocks, &Pack::run, pack, &Pack::destroy, attrs);
  }

  uint32_t blocks_for(int64_t n) const {
    ops::OpCall call;
    call.cores = target.cores;
    call.host_cpus = target.host_cpus;
    return call.blocks_for(n, 1 << 14);
  }

  Status copy(const CopyStep& c) {
    CopyParams p;
    p.n = ops::numel(c.shape);
    if (p.n == 0) return Status::Ok();
    p.rank = static_cast<int>(c.shape.size());
    std::copy(c.shape.begin(), c.shape.end(), p.dims);
    p.sdt = c.src_dtype;
    p.ddt = c.dst_dtype;
    p.constant = c.src_const;
    p.cval = c.constant;
    p.scaled = c.scaled;
    p.scale = c.scale;
    p.relu = c.relu;
    p.absolute = c.absolute;
    p.round = c.round;
    p.nonfinite_zero = c.nonfinite_zero;
    const size_t ses = aclDataTypeSize(c.src_dtype), des = aclDataTypeSize(c.dst_dtype);
    if (!c.src_const) {
      // Source strides broadcast to the walk: aligned on the right, 0 where the source has size 1.
      ops::Shape sdims(c.shape.size(), 1);
      const size_t lead = c.shape.size() - c.src_shape.size();
      const unsigned char* base;
      std::vector<int64_t> own;
      if (c.src_tensor >= 0) {
        const aclTensor& t = ex.tensors[static_cast<size_t>(c.src_tensor)].desc;
        own = t.strides;
        base = static_cast<const unsigned char*>(t.data) + t.offset * static_cast<int64_t>(ses);
      } else {
        own = ops::Shape(c.src_shape.size(), 1);
        for (size_t k = c.src_shape.size(); k-- > 1;) own[k - 1] = own[k] * c.src_shape[k];
        base = ws + c.src_ws;
      }
      for (size_t k = 0; k < c.src_shape.size(); ++k) {
        p.sstride[lead + k] = c.src_shape[k] == 1 ? 0 : own[k];
        sdims[lead + k] = c.src_shape[k];
      }
      p.src = base;
      p.src_bytes = span_bytes(sdims, p.sstride, ses);
    }
    if (c.dst_tensor >= 0) {
      const aclTensor& t = ex.tensors[static_cast<size_t>(c.dst_tensor)].desc;
      std::copy(t.strides.begin(), t.strides.end(), p.dstride);
      p.dst = static_cast<unsigned char*>(t.data) + t.offset * static_cast<int64_t>(des);
    } else {
      int64_t s = 1;
      for (size_t k = c.shape.size(); k-- > 0;) {
        p.dstride[k] = s;
        s *= c.shape[k];
      }
      p.dst = ws + c.dst_ws;
    }
    p.dst_bytes = span_bytes(c.shape, p.dstride, des);
    return launch(blocks_for(p.n), copy_kernel, p);
  }

  ops::Tensor operand(const Operand& o) const {
    ops::Tensor t;
    t.dtype = o.dtype;
    t.shape = o.shape;
    t.bytes = static_cast<size_t>(ops::numel(o.shape)) * aclDataTypeSize(o.dtype);
    if (o.tensor >= 0) {
      const aclTensor& u = ex.tensors[static_cast<size_t>(o.tensor)].desc;
      t.data = static_cast<unsigned char*>(u.data) + u.offset * static_cast<int64_t>(aclDataTypeSize(u.dtype));
      t.format = u.format;  // the user's tensor as described (profiling: op_summary's formats)
    } else {
      t.data = ws + o.ws_offset;
    }
    return t;
  }

  Status kernel(const KernelStep& k) {
    ops::OpCall call;
    call.op = k.type;
    for (const Operand& o : k.inputs) call.inputs.push_back(operand(o));
    call.outputs.push_back(operand(k.output));
    for (const Operand& o : k.extra_outputs) call.outputs.push_back(operand(o));
    call.attrs = &k.attrs;
    call.stream = stream;
    call.cores = target.cores;
    call.host_cpus = target.host_cpus;
    return ops::execute(call);
  }
};

aclnnStatus set_addr(const char* function, aclOpExecutor* executor, size_t first, size_t limit, size_t index,
                     aclTensor* tensor, void* addr) {
  // CANN updates the tensor before it looks at the executor; so do we.
  if (tensor == nullptr) return finish(function, error(kInnerNullptr, "tensor is NULL"));
  if (!live(tensor, Kind::Tensor)) return finish(function, invalid("tensor is not a live aclTensor"));
  tensor->data = addr;
  if (executor == nullptr) return finish(function, error(kInnerNullptr, "executor is NULL"));
  if (!live(executor, Kind::Executor)) return finish(function, error(kInner, "not a live aclOpExecutor"));
  if (index >= limit) {
    return finish(function, invalid("index " + std::to_string(index) + " is out of range (the operator has " +
                                    std::to_string(limit) + ")"));
  }
  TensorArg& arg = executor->tensors[first + index];
  if (!arg.present) return finish(function, invalid("argument " + std::to_string(index) + " was NULL at phase 1"));
  arg.desc.data = addr;
  return 0;
}

aclnnStatus set_dynamic_addr(const char* function, aclOpExecutor* executor, aclTensorList* tensors, size_t irIndex,
                             size_t relativeIndex, void* addr, bool input) {
  if (tensors == nullptr) return finish(function, error(kInnerNullptr, "tensors is NULL"));
  if (!live(tensors, Kind::TensorList)) return finish(function, invalid("tensors is not a live aclTensorList"));
  if (relativeIndex >= tensors->values.size()) {
    return finish(function, invalid("relativeIndex " + std::to_string(relativeIndex) + " is not below the list size " +
                                    std::to_string(tensors->values.size())));
  }
  if (executor == nullptr) return finish(function, error(kInnerNullptr, "executor is NULL"));
  if (!live(executor, Kind::Executor)) return finish(function, error(kInner, "not a live aclOpExecutor"));
  // Only Cat and Sum take a tensor list, as their one (irIndex 0) dynamic input.
  if (!input || executor->dynamic_inputs.empty() || irIndex != 0) {
    return finish(function, invalid("the executor of " + executor->op + " has no tensor-list " +
                                    (input ? "input" : "output") + " at irIndex " + std::to_string(irIndex)));
  }
  if (relativeIndex >= executor->dynamic_inputs.size()) {
    return finish(function,
                  invalid("relativeIndex " + std::to_string(relativeIndex) + " is beyond the list of " +
                          std::to_string(executor->dynamic_inputs.size()) + " the executor was planned with"));
  }
  // CANN updates the list's tensor as well as the executor.
  if (aclTensor* t = tensors->values[relativeIndex]; t != nullptr && live(t, Kind::Tensor)) t->data = addr;
  const int ti = executor->dynamic_inputs[relativeIndex];
  if (ti >= 0) executor->tensors[static_cast<size_t>(ti)].desc.data = addr;
  return 0;
}

}  // namespace

PlanBuilder::PlanBuilder(std::string op) {
  exec_.op = std::move(op);
}

int PlanBuilder::add_input(const aclTensor* t) {
  TensorArg a;
  a.present = t != nullptr;
  if (t != nullptr) a.desc = *t;
  exec_.tensors.push_back(std::move(a));
  ++exec_.num_inputs;
  return static_cast<int>(exec_.tensors.size() - 1);
}

int PlanBuilder::add_output(const aclTensor* t) {
  TensorArg a;
  a.present = t != nullptr;
  if (t != nullptr) a.desc = *t;
  exec_.tensors.push_back(std::move(a));
  return static_cast<int>(exec_.tensors.size() - 1);
}

uint64_t PlanBuilder::reserve(aclDataType dtype, const ops::Shape& shape) {
  const uint64_t at = exec_.workspace;
  const uint64_t bytes = static_cast<uint64_t>(ops::numel(shape)) * aclDataTypeSize(dtype);
  exec_.workspace += (bytes + kAlign - 1) / kAlign * kAlign;
  return at;
}

Status PlanBuilder::publish(uint64_t* workspaceSize, aclOpExecutor** executor) {
  auto* ex = new (std::nothrow) aclOpExecutor(std::move(exec_));
  if (ex == nullptr) return error(561101, "cannot allocate the executor");
  try {
    track(ex, Kind::Executor);
  } catch (...) {
    delete ex;
    throw;
  }
  *workspaceSize = ex->workspace;
  *executor = ex;
  return Status::Ok();
}

aclnnStatus run_phase2(const char* function, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream) {
  try {
    if (executor == nullptr) return finish(function, null_error("executor"));
    // A consumed (or foreign) executor is not in the registry: that is the reuse error.
    if (!live(executor, Kind::Executor)) {
      return finish(function, invalid("executor is not live: a non-repeatable executor runs once (phase 2 frees "
                                      "it); call aclSetAclOpExecutorRepeatable after phase 1 to run it again"));
    }
    // A non-repeatable executor is freed by this call, whatever happens.
    struct Release {
      aclOpExecutor* ex;
      ~Release() {
        if (ex != nullptr && untrack(ex, Kind::Executor)) delete ex;
      }
    } release{executor->repeatable ? nullptr : executor};
    if (workspaceSize > 0 && workspace == nullptr) {
      return finish(function, null_error("workspace"));
    }
    if (workspaceSize < executor->workspace) {
      return finish(function, invalid("workspaceSize " + std::to_string(workspaceSize) + " is smaller than the " +
                                      std::to_string(executor->workspace) + " bytes phase 1 asked for"));
    }
    Phase2 run{*executor, static_cast<unsigned char*>(workspace), stream, {}};
    Status st = rt::launch_target(stream, &run.target);
    for (size_t i = 0; st.ok() && i < executor->steps.size(); ++i) {
      const Step& s = executor->steps[i];
      st = s.is_copy ? run.copy(s.copy) : run.kernel(s.kernel);
    }
    if (!st.ok()) {
      // The op library's argument codes (1000xx) would mean a plan we built wrongly: report them as
      // aclnn's inner error; runtime codes pass through as the spec's table says.
      const int code = st.value();
      if (code >= 100000 && code < 200000) return finish(function, error(kInner, st.message()));
      return finish(function, st);
    }
    return 0;
  } catch (...) {
    return finish_exception(function);
  }
}

Value load_value(const void* ptr, aclDataType d) {
  const auto* p = static_cast<const unsigned char*>(ptr);
  Value v;
  switch (d) {
    case ACL_FLOAT:
      v.is_float = true;
      v.f = read_as<float>(p);
      break;
    case ACL_DOUBLE:
      v.is_float = true;
      v.f = read_as<double>(p);
      break;
    case ACL_FLOAT16:
      v.is_float = true;
      v.f = ops::half_to_float(read_as<uint16_t>(p));
      break;
    case ACL_BF16:
      v.is_float = true;
      v.f = arun::bf16_to_float(read_as<uint16_t>(p));
      break;
    case ACL_INT8:
      v.i = read_as<int8_t>(p);
      break;
    case ACL_UINT8:
      v.i = read_as<uint8_t>(p);
      break;
    case ACL_INT16:
      v.i = read_as<int16_t>(p);
      break;
    case ACL_UINT16:
      v.i = read_as<uint16_t>(p);
      break;
    case ACL_INT32:
      v.i = read_as<int32_t>(p);
      break;
    case ACL_UINT32:
      v.i = read_as<uint32_t>(p);
      break;
    case ACL_INT64:
      v.i = read_as<int64_t>(p);
      break;
    case ACL_UINT64:
      v.i = static_cast<int64_t>(read_as<uint64_t>(p));
      break;
    case ACL_BOOL:
      v.i = *p != 0;
      break;
    default:
      break;
  }
  return v;
}

}  // namespace arun::aclnn

using namespace arun;
using namespace arun::aclnn;

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (executor == nullptr) return finish("aclSetAclOpExecutorRepeatable", error(kInnerNullptr, "executor is NULL"));
  if (!live(executor, Kind::Executor)) {
    return finish("aclSetAclOpExecutorRepeatable", error(kInner, "not a live aclOpExecutor"));
  }
  executor->repeatable = true;
  return 0;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (executor == nullptr) return finish("aclDestroyAclOpExecutor", error(kInnerNullptr, "executor is NULL"));
  if (!untrack(executor, Kind::Executor)) {
    return finish("aclDestroyAclOpExecutor", error(kInner, "not a live aclOpExecutor"));
  }
  delete executor;
  return 0;
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  const size_t n = executor != nullptr && live(executor, Kind::Executor) ? executor->num_inputs : 0;
  return set_addr("aclSetInputTensorAddr", executor, 0, n, index, tensor, addr);
}
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  const bool ok = executor != nullptr && live(executor, Kind::Executor);
  const size_t first = ok ? executor->num_inputs : 0;
  const size_t n = ok ? executor->tensors.size() - executor->num_inputs : 0;
  return set_addr("aclSetOutputTensorAddr", executor, first, n, index, tensor, addr);
}
aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  const size_t n = executor != nullptr && live(executor, Kind::Executor) ? executor->tensors.size() : 0;
  return set_addr("aclSetTensorAddr", executor, 0, n, index, tensor, addr);
}
aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex, const size_t relativeIndex,
                                         aclTensorList* tensors, void* addr) {
  return set_dynamic_addr("aclSetDynamicInputTensorAddr", executor, tensors, irIndex, relativeIndex, addr, true);
}
aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex, const size_t relativeIndex,
                                          aclTensorList* tensors, void* addr) {
  return set_dynamic_addr("aclSetDynamicOutputTensorAddr", executor, tensors, irIndex, relativeIndex, addr, false);
}
aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex, const size_t relativeIndex,
                                    aclTensorList* tensors, void* addr) {
  return set_dynamic_addr("aclSetDynamicTensorAddr", executor, tensors, irIndex, relativeIndex, addr, true);
}

aclnnStatus AclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  return aclSetInputTensorAddr(executor, index, tensor, addr);
}
aclnnStatus AclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  return aclSetOutputTensorAddr(executor, index, tensor, addr);
}
aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex, const size_t relativeIndex,
                                         aclTensorList* tensors, void* addr) {
  return aclSetDynamicInputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}
aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex, const size_t relativeIndex,
                                          aclTensorList* tensors, void* addr) {
  return aclSetDynamicOutputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}
aclnnStatus AclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor, void* addr) {
  return aclSetTensorAddr(executor, index, tensor, addr);
}
aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex, const size_t relativeIndex,
                                    aclTensorList* tensors, void* addr) {
  return aclSetDynamicTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

}  // extern "C"
