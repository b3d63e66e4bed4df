// Comparisons Equal, Less, Greater, LessOrEqual, GreaterOrEqual (NumPy broadcasting, two inputs of
// one numeric dtype, Equal also bool; output bool) and the bool logic ops Not, And, Or, Xor.
// float16 compares as float; NaN compares unequal and unordered (every comparison but none is false).
// Bool inputs read any non-zero byte as true; outputs are 0 / 1.
#include "pointwise_common.hpp"

namespace arun::ops::pw_logic {
namespace {

using pointwise::dispatch_reals;
using pointwise::kRealList;

enum class Cmp { Eq, Lt, Gt, Le, Ge };
enum class Logic { And, Or, Xor, Eq };

template <class T>
struct CompareArgs {
  const T* a;
  const T* b;
  uint8_t* out;
  int64_t na, nb, n;
  StridedWalk walk;
};

template <class T, Cmp K>
void compare_kernel(arun::Block blk, const CompareArgs<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  using C = Compute<T>;
  const T* a = blk.map(p.a, p.na).data();
  const T* b = blk.map(p.b, p.nb).data();
  uint8_t* o = blk.map(p.out, p.n).data();
  pointwise::binary_rows(p.walk, r.first, r.last, a, b, o, [](T xs, T ys) -> uint8_t {
    const auto x = C::load(xs);
    const auto y = C::load(ys);
    if constexpr (K == Cmp::Eq) return x == y;
    if constexpr (K == Cmp::Lt) return x < y;
    if constexpr (K == Cmp::Gt) return x > y;
    if constexpr (K == Cmp::Le) return x <= y;
    return x >= y;
  });
}

template <Logic K>
void logic_kernel(arun::Block blk, const CompareArgs<uint8_t>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const uint8_t* a = blk.map(p.a, p.na).data();
  const uint8_t* b = blk.map(p.b, p.nb).data();
  uint8_t* o = blk.map(p.out, p.n).data();
  pointwise::binary_rows(p.walk, r.first, r.last, a, b, o, [](uint8_t xs, uint8_t ys) -> uint8_t {
    const bool x = xs != 0, y = ys != 0;
    if constexpr (K == Logic::And) return x && y;
    if constexpr (K == Logic::Or) return x || y;
    if constexpr (K == Logic::Xor) return x != y;
    return x == y;
  });
}

template <class T>
CompareArgs<T> compare_args(const OpCall& call, const Shape& out) {
  const Tensor& a = call.inputs[0];
  const Tensor& b = call.inputs[1];
  return CompareArgs<T>{ptr<T>(a),
                        ptr<T>(b),
                        ptr<uint8_t>(call.outputs[0]),
                        a.count(),
                        b.count(),
                        numel(out),
                        pointwise::make_walk(out, a.shape, &b.shape)};
}

template <Logic K>
Status launch_logic(const OpCall& call, const Shape& out) {
  if (numel(out) == 0) return Status::Ok();
  return launch_op(call, call.blocks_for(numel(out), 1 << 14), logic_kernel<K>, compare_args<uint8_t>(call, out));
}

template <Cmp K>
Status run_compare(const OpCall& call) {
  Shape out;
  ARUN_RETURN_IF_ERROR(binary_geometry(call, ACL_BOOL, &out));
  const aclDataType dt = call.inputs[0].dtype;
  if constexpr (K == Cmp::Eq) {
    if (dt == ACL_BOOL) return launch_logic<Logic::Eq>(call, out);
  }
  Status st;
  const bool ok = dispatch_reals(dt, [&](auto tag) {
    using T = decltype(tag);
    if (numel(out) == 0) return;
    st = launch_op(call, call.blocks_for(numel(out), 1 << 14), compare_kernel<T, K>, compare_args<T>(call, out));
  });
  if (!ok) {
    return call.dtype_error(std::string("no kernel for ") + dtype_name(dt) + " (" + kRealList +
                            (K == Cmp::Eq ? ", bool)" : ")"));
  }
  return st;
}

template <Logic K>
Status run_logic(const OpCall& call) {
  Shape out;
  ARUN_RETURN_IF_ERROR(binary_geometry(call, ACL_BOOL, &out));
  if (call.inputs[0].dtype != ACL_BOOL) {
    return call.dtype_error(std::string("takes bool inputs, got ") + dtype_name(call.inputs[0].dtype));
  }
  return launch_logic<K>(call, out);
}

struct NotArgs {
  const uint8_t* in;
  uint8_t* out;
  int64_t n;
};

void not_kernel(arun::Block blk, const NotArgs& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n));
  if (r.size() == 0) return;
  const uint8_t* in = blk.map(p.in, p.n).data();
  uint8_t* out = blk.map(p.out, p.n).data();
  for (size_t i = r.first; i < r.last; ++i) out[i] = in[i] == 0;
}

Status run_not(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  const Tensor& x = call.inputs[0];
  if (x.dtype != ACL_BOOL) return call.dtype_error(std::string("takes a bool input, got ") + dtype_name(x.dtype));
  ARUN_RETURN_IF_ERROR(call.expect_output(0, ACL_BOOL, x.shape));
  if (x.count() == 0) return Status::Ok();
  return launch_op(call, call.blocks_for(x.count(), 1 << 14), not_kernel,
                   NotArgs{ptr<uint8_t>(x), ptr<uint8_t>(call.outputs[0]), x.count()});
}

}  // namespace
}  // namespace arun::ops::pw_logic

namespace arun::ops {

void register_compare_logic(std::vector<OpDef>& defs) {
  using namespace pw_logic;
  defs.push_back({"Equal", &run_compare<Cmp::Eq>, {}});
  defs.push_back({"Less", &run_compare<Cmp::Lt>, {}});
  defs.push_back({"Greater", &run_compare<Cmp::Gt>, {}});
  defs.push_back({"LessOrEqual", &run_compare<Cmp::Le>, {}});
  defs.push_back({"GreaterOrEqual", &run_compare<Cmp::Ge>, {}});
  defs.push_back({"Not", &run_not, {}});
  defs.push_back({"And", &run_logic<Logic::And>, {}});
  defs.push_back({"Or", &run_logic<Logic::Or>, {}});
  defs.push_back({"Xor", &run_logic<Logic::Xor>, {}});
}

}  // namespace arun::ops
