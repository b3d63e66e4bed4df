// ONNX models holding the elementwise LayerNorm and GELU spellings that model/src/fuse_transformer.cpp
// fuses, with knobs for the variants it must and must not fuse. Shared by the import tests
// (fuse_transformer_test.cpp) and the fused-vs-unfused run tests (fuse_transformer_run_test.cpp).
// The graph input x and output y are float32; a float16 pattern sits between two Casts.
#pragma once

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onnx_proto.hpp"

namespace onnx_test {

// float -> IEEE half, round to nearest even (_Float16 is not on every compiler this builds with).
inline uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t e = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (e == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u : 0u));
  const int exp = static_cast<int>(e) - 127 + 15;
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  int shift = 13;
  uint32_t h_exp = static_cast<uint32_t>(exp) << 10;
  if (exp <= 0) {  // a subnormal half
    if (exp < -10) return sign;
    mant |= 0x800000u;
    shift = 14 - exp;
    h_exp = 0;
  }
  uint32_t h = h_exp | (mant >> shift);
  const uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1u) != 0)) ++h;  // a carry rounds into the exponent
  return static_cast<uint16_t>(sign | h);
}

inline void add_const(onnx::GraphProto* g, const std::string& name, int type, const std::vector<int64_t>& dims,
                      const std::vector<float>& v) {
  TensorProto* t = add_init(g, name, type, dims);
  if (type == TensorProto::FLOAT16) {
    std::string raw;
    for (float f : v) {
      const uint16_t h = to_half(f);
      char b[2];
      std::memcpy(b, &h, 2);
      raw.append(b, 2);
    }
    t->set_raw_data(raw);
  } else {
    for (float f : v) t->add_float_data(f);
  }
}

inline void add_scalar_input(onnx::GraphProto* g, const std::string& name, int type) {
  add_value(g->mutable_input(), name, {}, type);
  g->mutable_input()->rbegin()->mutable_type()->mutable_tensor_type()->mutable_shape();  // rank 0, not unknown
}

// Deterministic values in [-1, 1).
inline std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

struct PatternSpec {
  int type = TensorProto::FLOAT;  // of the pattern's tensors
  std::vector<int64_t> dims = {2, 3, 8};
  int64_t opset = 13;
  // An intermediate (by name) also read by a Neg whose output is graph output "extra", or itself a
  // graph output.
  std::string extra_reader, extra_output;
};

struct LayerNormSpec : PatternSpec {
  int64_t axis = -1;  // ReduceMean's axes (both)
  bool mul = true, add = true;
  float eps = 1e-5f, exponent = 2.0f;
  bool eps_input = false, exponent_input = false;  // graph inputs instead of constants
  // Pow's exponent type (0: the pattern's); ONNX allows a float32 exponent for a float16 base
  // from opset 12, which the Pow kernel refuses at run time (it wants one type).
  int exponent_type = 0;
};

// Shared frame: x (float32) [-> Cast] -> body -> [Cast ->] y; returns the body's input name.
class PatternModel {
 public:
  PatternModel(const PatternSpec& s, const std::string& name) : s_(s), m_(new_model(s.opset)) {
    g_ = m_.mutable_graph();
    g_->set_name(name);
    add_value(g_->mutable_input(), "x", s.dims);
    if (half()) add_int(add_node(g_, "Cast", {"x"}, "xh"), "to", TensorProto::FLOAT16);
  }
  bool half() const { return s_.type == TensorProto::FLOAT16; }
  onnx::GraphProto* g() { return g_; }
  std::string in() const { return half() ? "xh" : "x"; }
  std::string out() const { return half() ? "yh" : "y"; }
  onnx::ModelProto finish(const std::vector<int64_t>& extra_dims) {
    if (half()) add_int(add_node(g_, "Cast", {"yh"}, "y"), "to", TensorProto::FLOAT);
    add_value(g_->mutable_output(), "y", s_.dims);
    if (!s_.extra_reader.empty()) {
      add_node(g_, "Neg", {s_.extra_reader}, "extra");
      add_value(g_->mutable_output(), "extra", extra_dims, s_.type);
    }
    if (!s_.extra_output.empty()) add_value(g_->mutable_output(), s_.extra_output, extra_dims, s_.type);
    return m_;
  }

 private:
  PatternSpec s_;
  onnx::ModelProto m_;
  onnx::GraphProto* g_;
};

// ReduceMean -> Sub -> Pow -> ReduceMean -> Add eps -> Sqrt -> Div [-> Mul gamma] [-> Add beta].
// Intermediates: mean, c, sq, var, ve, std, normed, scaled.
inline onnx::ModelProto layer_norm_model(const LayerNormSpec& s) {
  PatternModel pm(s, "layer_norm");
  onnx::GraphProto* g = pm.g();
  const int64_t len = s.dims.back();
  auto mean_of = [&](const std::string& in, const std::string& out) {
    add_ints(add_node(g, "ReduceMean", {in}, out), "axes", {s.axis});
  };
  mean_of(pm.in(), "mean");
  add_node(g, "Sub", {pm.in(), "mean"}, "c");
  const int exponent_type = s.exponent_type != 0 ? s.exponent_type : s.type;
  if (s.exponent_input) {
    add_scalar_input(g, "two", exponent_type);
  } else {
    add_const(g, "two", exponent_type, {}, {s.exponent});
  }
  add_node(g, "Pow", {"c", "two"}, "sq");
  mean_of("sq", "var");
  if (s.eps_input) {
    add_scalar_input(g, "eps", s.type);
  } else {
    add_const(g, "eps", s.type, {}, {s.eps});
  }
  add_node(g, "Add", {"var", "eps"}, "ve");
  add_node(g, "Sqrt", {"ve"}, "std");
  std::string y = "normed";
  const bool last_is_div = !s.mul && !s.add;
  add_node(g, "Div", {"c", "std"}, last_is_div ? pm.out() : y);
  if (s.mul) {
    std::vector<float> gamma = values(static_cast<size_t>(len), 3);
    for (float& v : gamma) v = 1.0f + 0.5f * v;
    add_const(g, "gamma", s.type, {len}, gamma);
    add_node(g, "Mul", {"gamma", y}, s.add ? "scaled" : pm.out());  // gamma first: either order fuses
    y = "scaled";
  }
  if (s.add) {
    add_const(g, "beta", s.type, {len}, values(static_cast<size_t>(len), 5));
    add_node(g, "Add", {y, "beta"}, pm.out());
  }
  std::vector<int64_t> extra = s.dims;
  const std::string& e = !s.extra_reader.empty() ? s.extra_reader : s.extra_output;
  if (e == "mean" || e == "var" || e == "ve" || e == "std")
    extra[static_cast<size_t>(s.axis < 0 ? extra.size() - 1 : s.axis)] = 1;
  return pm.finish(extra);
}

struct GeluSpec : PatternSpec {
  enum Form { HalfFirst, HalfOnErf, HalfLast } form = HalfFirst;
  bool mul_by_inverse = false;  // x * (1 / root) instead of x / root
  bool swap = false;            // the Muls' and the Add's operands in the other order
  double half = 0.5, root = std::sqrt(2.0);
  // The tanh form: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + coeff * x^3))), x^3 as Pow(x, 3) or
  // Mul(Mul(x, x), x). mul_by_inverse and root do not apply.
  bool tanh = false, cube_by_mul = false;
  double coeff = 0.044715;
};

// x * 0.5 * (1 + erf(x / sqrt(2))) or the tanh form. Intermediates: s, e, a, and h (HalfFirst: x * 0.5),
// q (HalfOnErf: a * 0.5) or p (HalfLast: x * a).
inline onnx::ModelProto gelu_model(const GeluSpec& s) {
  PatternModel pm(s, "gelu");
  onnx::GraphProto* g = pm.g();
  const std::string x = pm.in(), y = pm.out();
  auto mul = [&](const std::string& a, const std::string& b, const std::string& out) {
    add_node(g, "Mul", s.swap ? std::vector<std::string>{b, a} : std::vector<std::string>{a, b}, out);
  };
  add_const(g, "half", s.type, {}, {static_cast<float>(s.half)});
  add_const(g, "one", s.type, {}, {1.0f});
  if (s.tanh) {
    // Intermediates: x3 (and x2), w = coeff * x3, v = x + w, s = sqrt(2 / pi) * v.
    if (s.cube_by_mul) {
      mul(x, x, "x2");
      mul("x2", x, "x3");
    } else {
      add_const(g, "three", s.type, {}, {3.0f});
      add_node(g, "Pow", {x, "three"}, "x3");
    }
    add_const(g, "coeff", s.type, {}, {static_cast<float>(s.coeff)});
    mul("coeff", "x3", "w");
    add_node(g, "Add", s.swap ? std::vector<std::string>{"w", x} : std::vector<std::string>{x, "w"}, "v");
    add_const(g, "k", s.type, {}, {static_cast<float>(std::sqrt(2.0 / 3.14159265358979323846))});
    mul("v", "k", "s");
    add_node(g, "Tanh", {"s"}, "e");
  } else if (s.mul_by_inverse) {
    add_const(g, "root", s.type, {}, {static_cast<float>(1.0 / s.root)});
    mul(x, "root", "s");
    add_node(g, "Erf", {"s"}, "e");
  } else {
    add_const(g, "root", s.type, {}, {static_cast<float>(s.root)});
    add_node(g, "Div", {x, "root"}, "s");
    add_node(g, "Erf", {"s"}, "e");
  }
  add_node(g, "Add", s.swap ? std::vector<std::string>{"one", "e"} : std::vector<std::string>{"e", "one"}, "a");
  switch (s.form) {
    case GeluSpec::HalfFirst:
      mul(x, "half", "h");
      mul("h", "a", y);
      break;
    case GeluSpec::HalfOnErf:
      mul("a", "half", "q");
      mul(x, "q", y);
      break;
    case GeluSpec::HalfLast:
      mul(x, "a", "p");
      mul("p", "half", y);
      break;
  }
  return pm.finish(s.dims);
}

}  // namespace onnx_test
