// float16 conversion and stride helpers shared by the kernel families.
#include "kernel_common.hpp"

namespace arun::ops {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal: shift the mantissa up until its leading one becomes the implicit bit.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | static_cast<uint32_t>(112 - e) << 23 | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);  // inf / NaN
  if (abs >= 0x477ff000u) return sign | 0x7c00u;                                      // rounds past 65504
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): add the implicit bit, shift, round to nearest even.
    if (abs < 0x33000000u) return sign;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);
    uint32_t v = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (v & 1u))) ++v;
    return sign | static_cast<uint16_t>(v);
  }
  // Normal: rebias the exponent, round the 13 dropped bits to nearest even (a carry may bump it).
  uint32_t v = ((abs >> 23) - 112) << 10 | ((abs >> 13) & 0x3ffu);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (v & 1u))) ++v;
  return sign | static_cast<uint16_t>(v);
}

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

}  // namespace arun::ops
