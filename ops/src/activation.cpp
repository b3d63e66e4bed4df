// Unary float kernels (float32 and float16): Relu, LeakyRelu, Gelu (exact or tanh), Sigmoid, Tanh,
// Erf, Sqrt, Exp, Log (Neg and Abs: pointwise.cpp). Computed in float, one contiguous share of the tensor per block.
#include "kernel_common.hpp"
#include "unary_math.hpp"

namespace arun::ops {
namespace {

template <Unary K>
Status run_unary_as(const OpCall& call, Unary kind, float alpha) {
  const Tensor& x = call.inputs[0];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, x.dtype, x.shape));
  const int64_t n = x.count();
  if (n == 0) return Status::Ok();
  Status st;
  const bool ok = dispatch_float(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    UnaryParams<T> p{ptr<T>(x), ptr<T>(call.outputs[0]), n, kind, alpha};
    st = launch_op(call, call.blocks_for(n, 1 << 14), unary_kernel<T, K>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(x.dtype) + " (float32, float16)");
  return st;
}

template <Unary K>
Status run_unary(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_inputs(1, 1));
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  float alpha = 0.0f;
  if constexpr (K == Unary::LeakyRelu) ARUN_RETURN_IF_ERROR(call.attr_float("alpha", 0.01f, &alpha));
  if constexpr (K == Unary::Gelu) {
    std::string approx;
    ARUN_RETURN_IF_ERROR(call.attr_string("approximate", "none", &approx));
    if (approx == "tanh") return run_unary_as<Unary::GeluTanh>(call, Unary::GeluTanh, alpha);
    if (approx != "none") return call.attr_error("approximate must be \"none\" or \"tanh\", got \"" + approx + "\"");
  }
  return run_unary_as<K>(call, K, alpha);
}

}  // namespace

void register_activation(std::vector<OpDef>& defs) {
  defs.push_back({"Relu", &run_unary<Unary::Relu>, {}});
  defs.push_back({"LeakyRelu", &run_unary<Unary::LeakyRelu>, {"alpha"}});
  defs.push_back({"Gelu", &run_unary<Unary::Gelu>, {"approximate"}});
  defs.push_back({"Sigmoid", &run_unary<Unary::Sigmoid>, {}});
  defs.push_back({"Tanh", &run_unary<Unary::Tanh>, {}});
  defs.push_back({"Erf", &run_unary<Unary::Erf>, {}});
  defs.push_back({"Sqrt", &run_unary<Unary::Sqrt>, {}});
  defs.push_back({"Exp", &run_unary<Unary::Exp>, {}});
  defs.push_back({"Log", &run_unary<Unary::Log>, {}});
  // Neg and Abs (floats and integers) are registered by pointwise.cpp.
}

}  // namespace arun::ops
