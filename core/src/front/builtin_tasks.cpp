// Front door implementation: built-in device tasks (arun/runtime/builtin_tasks.hpp).
//
// Both tasks are kernel launches through launch_kernel (so they are ordinary stream work: ordered,
// profiled under their own name, stopped by an abort, and subject to the stream's overflow switch)
// whose bodies touch device memory only through block_map.
#include "arun/runtime/builtin_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "arun/core/float16.hpp"
#include "arun/runtime/kernel_binaries.hpp"
#include "arun/runtime/launch.hpp"
#include "base/status_helpers.hpp"
#include "front/graph_kernels.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/graph.hpp"
#include "runtime/kernel_binaries.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"

namespace arun::rt {

using detail::find_stream;

namespace {

// An enum field as its integer: callers may store any value, and loading one outside the enum's
// range as the enum type is undefined behaviour.
template <class E>
int64_t raw(const E& e) {
  std::underlying_type_t<E> v;
  std::memcpy(&v, &e, sizeof v);
  return static_cast<int64_t>(v);
}

// `ptr` must be memory of the device `slot` (the stream's).
Status check_device_memory(Runtime* rt, DeviceSlot* slot, const void* ptr, const char* name) {
  if (rt->device_owning(ptr) != slot) {
    return param_invalid(std::string(name) + " " + hex(ptr) + " is not device memory of the stream's device " +
                         std::to_string(slot->id()));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- reduce

uint32_t element_size(int64_t type) {
  switch (type) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_INT8:
    case ACL_UINT8:
      return 1;
    case ACL_INT64:
    case ACL_UINT64:
      return 8;
    default:
      return 0;
  }
}

struct ReduceTask {
  void* dst;
  const void* src;
  uint64_t elements;
  int64_t kind;
  int64_t type;
};

template <class T>
T apply(int64_t kind, T a, T b) {
  switch (kind) {
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM:
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;  // wraps like the hardware, without signed overflow
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      } else {
        return a + b;
      }
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX:
      return b > a ? b : a;
    case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN:
      return b < a ? b : a;
    default:  // EQUAL: our choice, a plain copy
      return b;
  }
}

template <class T>
void reduce_ints(int64_t kind, T* d, const T* s, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) d[i] = apply<T>(kind, d[i], s[i]);
}

// Floats are reduced in float; a result that is not finite is an overflow (the device's status, when
// the stream's switch is on).
template <class Load, class Store>
void reduce_floats(arunBlock* block, int64_t kind, uint16_t* d, const uint16_t* s, uint64_t n, Load load, Store store) {
  bool overflow = false;
  for (uint64_t i = 0; i < n; ++i) {
    const float r = apply<float>(kind, load(d[i]), load(s[i]));
    overflow |= !std::isfinite(r);
    d[i] = store(r);
  }
  if (overflow) block_report_overflow(block);
}

void run_reduce(arunBlock* block, void* p) {
  const auto& t = *static_cast<const ReduceTask*>(p);
  const uint64_t blocks = block_count(block);
  const uint64_t chunk = (t.elements + blocks - 1) / blocks;
  const uint64_t first = std::min<uint64_t>(t.elements, chunk * block_index(block));
  const uint64_t n = std::min<uint64_t>(t.elements, first + chunk) - first;
  if (n == 0) return;
  const uint32_t es = element_size(t.type);
  const auto offset = first * es;
  void* d = block_map(block, static_cast<char*>(t.dst) + offset, n * es);
  if (d == nullptr) return;  // the launch has been faulted
  const void* s = block_map(block, static_cast<const char*>(t.src) + offset, n * es);
  if (s == nullptr) return;
  switch (t.type) {
    case ACL_FLOAT: {
      auto* df = static_cast<float*>(d);
      const auto* sf = static_cast<const float*>(s);
      bool overflow = false;
      for (uint64_t i = 0; i < n; ++i) {
        df[i] = apply<float>(t.kind, df[i], sf[i]);
        overflow |= !std::isfinite(df[i]);
      }
      if (overflow) block_report_overflow(block);
      break;
    }
    case ACL_FLOAT16:
      reduce_floats(block, t.kind, static_cast<uint16_t*>(d), static_cast<const uint16_t*>(s), n, half_to_float,
                    float_to_half);
      break;
    case ACL_BF16:
      reduce_floats(block, t.kind, static_cast<uint16_t*>(d), static_cast<const uint16_t*>(s), n, bf16_to_float,
                    float_to_bf16);
      break;
    case ACL_INT8:
      reduce_ints(t.kind, static_cast<int8_t*>(d), static_cast<const int8_t*>(s), n);
      break;
    case ACL_INT16:
      reduce_ints(t.kind, static_cast<int16_t*>(d), static_cast<const int16_t*>(s), n);
      break;
    case ACL_INT32:
      reduce_ints(t.kind, static_cast<int32_t*>(d), static_cast<const int32_t*>(s), n);
      break;
    default:
      break;  // refused at submission
  }
}

// ---------------------------------------------------------------- random numbers

// A parameter decoded at submission (immediate) or read by the task (isAddr 1).
struct Param {
  bool is_addr = false;
  uint8_t size = 0;
  uint64_t bits = 0;  // immediate value (little-endian) or the device address
};

struct RandomTask {
  int64_t type;
  int32_t func;
  Param seed;
  Param num;
  Param p0;  // ratio / min / mean
  Param p1;  // max / stddev
  void* result;
  void* counter;
};

bool is_float_type(int64_t type) {
  return type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16;
}
bool is_signed_type(int64_t type) {
  return type == ACL_INT32 || type == ACL_INT64;
}

// A parameter's raw bytes as the value of `type`: integers sign- or zero-extended from `size` bytes,
// floats decoded from their storage format.
double as_float(int64_t type, uint64_t bits) {
  switch (type) {
    case ACL_FLOAT: {
      float f;
      const uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    case ACL_FLOAT16:
      return half_to_float(static_cast<uint16_t>(bits));
    case ACL_BF16:
      return bf16_to_float(static_cast<uint16_t>(bits));
    default:
      return 0;
  }
}
uint64_t extend(int64_t type, uint64_t bits, uint8_t size) {
  if (size == 0) return 0;  // a parameter the distribution does not have
  if (size >= 8) return bits;
  const uint64_t mask = (uint64_t{1} << (8 * size)) - 1;
  bits &= mask;
  if (is_signed_type(type) && (bits >> (8 * size - 1)) != 0) bits |= ~mask;
  return bits;
}

Status check_param(const aclrtRandomParaInfo& p, const char* name, uint32_t max_size, Param* out) {
  if (p.isAddr > 1)
    return param_invalid(std::string(name) + ".isAddr is " + std::to_string(p.isAddr) + "; it must be 0 or 1");
  if (p.size == 0 || p.size > max_size) {
    return param_invalid(std::string(name) + ".size is " + std::to_string(p.size) + "; it must be 1.." +
                         std::to_string(max_size));
  }
  for (uint8_t r : p.rsv) {
    if (r != 0) return param_invalid(std::string(name) + ".rsv is not zero");
  }
  out->is_addr = p.isAddr == 1;
  out->size = p.size;
  out->bits = 0;
  const size_t n = out->is_addr ? 8 : p.size;
  for (size_t i = 0; i < n; ++i) out->bits |= static_cast<uint64_t>(p.valueOrAddr[i]) << (8 * i);
  if (out->is_addr && out->bits == 0) return param_invalid(std::string(name) + " has isAddr 1 and a NULL address");
  return Status::Ok();
}

// The value of a parameter when the task runs; false after faulting the launch.
bool read_param(arunBlock* block, const Param& p, uint64_t* out) {
  if (!p.is_addr) {
    *out = p.bits;
    return true;
  }
  const auto* bytes =
      static_cast<const unsigned char*>(block_map(block, reinterpret_cast<const void*>(p.bits), p.size));
  if (bytes == nullptr) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < p.size; ++i) v |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  *out = v;
  return true;
}

// Checks the distribution's parameters; a message when they are unusable.
const char* bad_distribution(int32_t func, int64_t type, uint64_t p0, uint64_t p1, uint8_t s0, uint8_t s1) {
  const uint64_t a = extend(type, p0, s0);
  const uint64_t b = extend(type, p1, s1);
  switch (func) {
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK: {
      const double r = as_float(type, a);
      return r >= 0 && r <= 1 ? nullptr : "the dropout ratio is not in [0, 1]";
    }
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
      if (is_float_type(type)) {
        const double lo = as_float(type, a), hi = as_float(type, b);
        return std::isfinite(lo) && std::isfinite(hi) && lo < hi ? nullptr
                                                                 : "uniform min must be below max (both finite)";
      }
      if (is_signed_type(type))
        return static_cast<int64_t>(a) < static_cast<int64_t>(b) ? nullptr : "uniform min must be below max";
      return a < b ? nullptr : "uniform min must be below max";
    default: {
      const double mean = as_float(type, a), sd = as_float(type, b);
      return std::isfinite(mean) && std::isfinite(sd) && sd >= 0 ? nullptr
                                                                 : "normal mean and stddev must be finite, stddev >= 0";
    }
  }
}

// 32-bit words of the Philox stream from a 128-bit counter, consumed in order.
class WordStream {
 public:
  WordStream(uint64_t seed, uint64_t ctr_lo, uint64_t ctr_hi) {
    key_[0] = static_cast<uint32_t>(seed);
    key_[1] = static_cast<uint32_t>(seed >> 32);
    lo_ = ctr_lo;
    hi_ = ctr_hi;
  }
  uint32_t next() {
    if (used_ == 4) {
      const uint32_t c[4] = {static_cast<uint32_t>(lo_), static_cast<uint32_t>(lo_ >> 32), static_cast<uint32_t>(hi_),
                             static_cast<uint32_t>(hi_ >> 32)};
      philox4x32_10(c, key_, block_);
      if (++lo_ == 0) ++hi_;  // the counter advances by one per block of four words
      used_ = 0;
    }
    return block_[used_++];
  }
  uint64_t next64() {
    const uint64_t lo = next();
    return lo | static_cast<uint64_t>(next()) << 32;
  }
  // The counter after this task: every block that was started counts as consumed.
  uint64_t counter_lo() const { return lo_; }
  uint64_t counter_hi() const { return hi_; }

 private:
  uint32_t key_[2];
  uint64_t lo_, hi_;
  uint32_t block_[4] = {};
  int used_ = 4;
};

double unit_open_right(uint32_t w) {  // [0, 1)
  return w * 0x1p-32;
}

// A standard normal pair by Box-Muller from two words.
void normal_pair(WordStream& ws, double* z0, double* z1) {
  const double u1 = (ws.next() + 1.0) * 0x1p-32;  // (0, 1]
  const double u2 = ws.next() * 0x1p-32;
  const double r = std::sqrt(-2.0 * std::log(u1));
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  *z0 = r * std::cos(kTwoPi * u2);
  *z1 = r * std::sin(kTwoPi * u2);
}

void store_float(int64_t type, void* out, uint64_t i, double v) {
  switch (type) {
    case ACL_FLOAT:
      static_cast<float*>(out)[i] = static_cast<float>(v);
      break;
    case ACL_FLOAT16:
      static_cast<uint16_t*>(out)[i] = float_to_half(static_cast<float>(v));
      break;
    default:
      static_cast<uint16_t*>(out)[i] = float_to_bf16(static_cast<float>(v));
      break;
  }
}

void run_random(arunBlock* block, void* p) {
  const auto& t = *static_cast<const RandomTask*>(p);
  uint64_t seed = 0, count = 0, p0 = 0, p1 = 0;
  if (!read_param(block, t.seed, &seed) || !read_param(block, t.num, &count)) return;
  if (t.func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK && !read_param(block, t.p1, &p1)) return;
  if (!read_param(block, t.p0, &p0)) return;
  if (const char* why = bad_distribution(t.func, t.type, p0, p1, t.p0.size, t.p1.size)) {
    block_fault(block, ACL_ERROR_RT_PARAM_INVALID, why);
    return;
  }
  p0 = extend(t.type, p0, t.p0.size);
  p1 = extend(t.type, p1, t.p1.size);
  auto* ctr = static_cast<uint64_t*>(block_map(block, t.counter, 16));
  if (ctr == nullptr) return;
  uint64_t ctr_lo, ctr_hi;
  std::memcpy(&ctr_lo, ctr, 8);
  std::memcpy(&ctr_hi, reinterpret_cast<const char*>(ctr) + 8, 8);
  WordStream ws(seed, ctr_lo, ctr_hi);
  if (count != 0) {
    const uint32_t es = t.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ? 0 : element_size(t.type);
    const uint64_t bytes = es == 0 ? (count + 7) / 8 : (count > UINT64_MAX / es ? UINT64_MAX : count * es);
    void* out = block_map(block, t.result, bytes);  // refuses a range outside one allocation
    if (out == nullptr) return;
    switch (t.func) {
      case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK: {
        const double ratio = as_float(t.type, p0);
        auto* bits = static_cast<uint8_t*>(out);
        std::memset(bits, 0, bytes);
        for (uint64_t i = 0; i < count; ++i) {
          if (unit_open_right(ws.next()) >= ratio) bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
        }
        break;
      }
      case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
        if (is_float_type(t.type)) {
          const double lo = as_float(t.type, p0), hi = as_float(t.type, p1);
          for (uint64_t i = 0; i < count; ++i) {
            const float u = static_cast<float>(ws.next() >> 8) * 0x1p-24f;  // 24 bits: exact in float
            double v = lo + (hi - lo) * u;
            if (v >= hi) v = std::nextafter(hi, lo);
            store_float(t.type, out, i, v);
          }
        } else {
          // min + floor(w * range / 2^bits): 32-bit types from one word, 64-bit ones from two.
          const uint64_t range = p1 - p0;
          for (uint64_t i = 0; i < count; ++i) {
            if (es == 4) {
              const uint64_t v = p0 + ((static_cast<uint64_t>(ws.next()) * range) >> 32);
              static_cast<uint32_t*>(out)[i] = static_cast<uint32_t>(v);
            } else {
              const unsigned __int128 prod = static_cast<unsigned __int128>(ws.next64()) * range;
              static_cast<uint64_t*>(out)[i] = p0 + static_cast<uint64_t>(prod >> 64);
            }
          }
        }
        break;
      default: {  // NORMAL, TRUNCATED_NORMAL
        const double mean = as_float(t.type, p0), sd = as_float(t.type, p1);
        const bool truncated = t.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
        uint64_t i = 0;
        while (i < count) {
          double z[2];
          normal_pair(ws, &z[0], &z[1]);
          for (double zi : z) {
            if (i == count) break;
            if (truncated && std::fabs(zi) > 2.0) continue;  // re-drawn outside mean +- 2 stddev
            store_float(t.type, out, i++, mean + sd * zi);
          }
        }
        break;
      }
    }
  }
  const uint64_t next_lo = ws.counter_lo(), next_hi = ws.counter_hi();
  std::memcpy(ctr, &next_lo, 8);
  std::memcpy(reinterpret_cast<char*>(ctr) + 8, &next_hi, 8);
}

template <class T>
void delete_as(void* p) {
  delete static_cast<T*>(p);
}

}  // namespace

// ---------------------------------------------------------------- Philox4x32-10

void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// ---------------------------------------------------------------- entry points

Status reduce_async(void* dst, const void* src, uint64_t count, int64_t kind, int64_t type, aclrtStream stream) {
  if (count == 0) return param_invalid("count is 0");
  if (kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
    return param_invalid("kind " + std::to_string(kind) + " is not a reduce kind (10 SUM, 11 MAX, 12 MIN, 13 EQUAL)");
  }
  if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > (uint64_t{4} << 30)) {
    return param_invalid("a SUM reduce covers at most 4 GiB; count is " + std::to_string(count));
  }
  if (type == ACL_INT4 || type == ACL_UINT8 || type == ACL_UINT16 || type == ACL_UINT32) {
    return Status(Errc::rt_feature_not_support,
                  "the simulated device (an A2-class part) reduces int8, int16, int32, float16, float32 and bfloat16 "
                  "only; data type " +
                      std::to_string(type) + " is not supported");
  }
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  const uint32_t es = element_size(type);
  if (count % es != 0) {
    return param_invalid("count " + std::to_string(count) + " is not a multiple of the element size " +
                         std::to_string(es));
  }
  DeviceSlot* slot = s->context()->slot();
  ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, dst, "dst"));
  ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, src, "src"));
  const uint64_t elements = count / es;
  // About 64 KiB per block, at most one block per AI core.
  const uint64_t cores = std::max<uint32_t>(1, slot->device()->properties().compute_units);
  const auto blocks = static_cast<uint32_t>(std::clamp<uint64_t>((count + 65535) / 65536, 1, cores));
  auto* task = new ReduceTask{dst, src, elements, kind, type};
  LaunchAttrs attrs;
  attrs.op_name = "ReduceAsync";
  attrs.args_bytes = sizeof(ReduceTask);
  return launch_kernel(stream, blocks, &run_reduce, task, &delete_as<ReduceTask>, attrs);
}

Status random_num_async(const aclrtRandomNumTaskInfo* info, aclrtStream stream) {
  const int64_t type = raw(info->dataType);
  const auto func = static_cast<int32_t>(raw(info->randomNumFuncParaInfo.funcType));
  if (func < ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK || func > ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS) {
    return param_invalid("funcType " + std::to_string(func) + " is not a random-number function (0..3)");
  }
  if (func != ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS && !is_float_type(type)) {
    return param_invalid("data type " + std::to_string(type) +
                         " is not allowed for this funcType: dropout and normal distributions produce "
                         "ACL_FLOAT, ACL_FLOAT16 or ACL_BF16");
  }
  if (info->randomResultAddr == nullptr) return param_invalid("randomResultAddr is NULL");
  if (info->randomCounterAddr == nullptr) return param_invalid("randomCounterAddr is NULL");
  for (uint8_t r : info->rsv) {
    if (r != 0) return param_invalid("taskInfo->rsv is not zero");
  }
  RandomTask task{};
  task.type = type;
  task.func = func;
  ARUN_RETURN_IF_ERROR(check_param(info->randomSeed, "randomSeed", 8, &task.seed));
  ARUN_RETURN_IF_ERROR(check_param(info->randomNum, "randomNum", 8, &task.num));
  const uint32_t es = element_size(type);
  const auto& params = info->randomNumFuncParaInfo.paramInfo;
  switch (func) {
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK:
      ARUN_RETURN_IF_ERROR(check_param(params.dropoutBitmaskInfo.dropoutRation, "dropoutRation", es, &task.p0));
      break;
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
      ARUN_RETURN_IF_ERROR(check_param(params.uniformDisInfo.min, "min", es, &task.p0));
      ARUN_RETURN_IF_ERROR(check_param(params.uniformDisInfo.max, "max", es, &task.p1));
      break;
    default:
      ARUN_RETURN_IF_ERROR(check_param(params.normalDisInfo.mean, "mean", es, &task.p0));
      ARUN_RETURN_IF_ERROR(check_param(params.normalDisInfo.stddev, "stddev", es, &task.p1));
      break;
  }
  // Immediate distribution parameters are checked now; those read from device memory when the task
  // runs (a bad one faults it with ACL_ERROR_RT_PARAM_INVALID).
  const bool immediate = !task.p0.is_addr && (func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK || !task.p1.is_addr);
  if (immediate) {
    if (const char* why = bad_distribution(func, type, task.p0.bits, task.p1.bits, task.p0.size, task.p1.size)) {
      return param_invalid(why);
    }
  }
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  DeviceSlot* slot = s->context()->slot();
  ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, info->randomResultAddr, "randomResultAddr"));
  ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, info->randomCounterAddr, "randomCounterAddr"));
  // The simulated device needs no parameter block: it reads each parameter where it is. A caller's
  // block must still be device memory of the stream's device.
  if (info->randomParaAddr != nullptr) {
    ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, info->randomParaAddr, "randomParaAddr"));
  }
  for (const Param* p : {&task.seed, &task.num, &task.p0, &task.p1}) {
    if (p->is_addr) {
      ARUN_RETURN_IF_ERROR(
          check_device_memory(rt, slot, reinterpret_cast<const void*>(p->bits), "a parameter address"));
    }
  }
  task.result = info->randomResultAddr;
  task.counter = info->randomCounterAddr;
  LaunchAttrs attrs;
  attrs.op_name = "RandomNumAsync";
  attrs.args_bytes = sizeof(RandomTask);
  return launch_kernel(stream, 1, &run_random, new RandomTask(task), &delete_as<RandomTask>, attrs);
}

// ---------------------------------------------------------------- task update

namespace {

// One aclrtTaskUpdateAsync: a one-block kernel on execStream that reads the new values from device
// memory when it runs and swaps the target node's template, so executions started after it use
// them. Read-only while it runs (a model may record it and run it on every execution).
struct UpdateTask {
  GraphTable* table;
  std::weak_ptr<Graph> graph;
  int32_t node;
  uint32_t task_id;
  int64_t id;  // ACL_RT_UPDATE_*
  const void* src;
  const void* entry_addr;
  const void* blocks_addr;
  aclrtBinHandle binary;
};

// Decodes the applied fields of an aclrtRandomNumTaskInfo (randomParaAddr, randomResultAddr,
// randomCounterAddr, randomSeed, randomNum) into `task`, checked as aclrtRandomNumAsync does.
Status patch_random(const aclrtRandomNumTaskInfo& info, DeviceSlot* slot, RandomTask* task) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return Status(Errc::uninitialized, "the runtime is gone");
  if (info.randomResultAddr == nullptr) return param_invalid("the new randomResultAddr is NULL");
  if (info.randomCounterAddr == nullptr) return param_invalid("the new randomCounterAddr is NULL");
  Param seed, num;
  ARUN_RETURN_IF_ERROR(check_param(info.randomSeed, "randomSeed", 8, &seed));
  ARUN_RETURN_IF_ERROR(check_param(info.randomNum, "randomNum", 8, &num));
  ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, info.randomResultAddr, "randomResultAddr"));
  ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, info.randomCounterAddr, "randomCounterAddr"));
  if (info.randomParaAddr != nullptr) {
    ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, info.randomParaAddr, "randomParaAddr"));
  }
  for (const Param* p : {&seed, &num}) {
    if (p->is_addr) {
      ARUN_RETURN_IF_ERROR(
          check_device_memory(rt, slot, reinterpret_cast<const void*>(p->bits), "a parameter address"));
    }
  }
  task->seed = seed;
  task->num = num;
  task->result = info.randomResultAddr;
  task->counter = info.randomCounterAddr;
  return Status::Ok();
}

void run_update(arunBlock* block, void* p) {
  const auto& u = *static_cast<const UpdateTask*>(p);
  GraphTable::NodeMaker make;
  aclrtRandomNumTaskInfo info{};
  uint64_t entry = 0, blocks = 0;
  if (u.id == ACL_RT_UPDATE_RANDOM_TASK) {
    const void* src = block_map(block, u.src, sizeof info, false);
    if (src == nullptr) return;
    std::memcpy(&info, src, sizeof info);
    make = [&](const GraphNode& n, std::unique_ptr<Task>* out, std::unique_ptr<KernelLaunchInfo>*) {
      auto next = std::make_unique<RandomTask>(*static_cast<const RandomTask*>(n.task->user_args));
      std::shared_ptr<Graph> g = u.graph.lock();
      ARUN_RETURN_IF_ERROR(patch_random(info, g->context()->slot(), next.get()));
      *out = copy_node_template(*n.task);
      (*out)->user_args = next.release();
      (*out)->free_user_args = &delete_as<RandomTask>;
      return Status::Ok();
    };
  } else {
    const void* e = block_map(block, u.entry_addr, sizeof entry, false);
    const void* b = e == nullptr ? nullptr : block_map(block, u.blocks_addr, sizeof blocks, false);
    if (b == nullptr) return;
    std::memcpy(&entry, e, sizeof entry);
    std::memcpy(&blocks, b, sizeof blocks);
    if (blocks == 0 || blocks > UINT32_MAX) {
      const std::string why = "aclrtTaskUpdateAsync: the new block count " + std::to_string(blocks) + " is not 1.." +
                              std::to_string(UINT32_MAX);
      block_fault(block, ACL_ERROR_RT_PARAM_INVALID, why.c_str());
      return;
    }
    make = [&](const GraphNode& n, std::unique_ptr<Task>* out, std::unique_ptr<KernelLaunchInfo>* kernel) {
      aclrtFuncHandle func = nullptr;
      ARUN_RETURN_IF_ERROR(binary_get_function_by_entry(u.binary, entry, &func));
      const KernelLaunchInfo& old = *n.kernel;
      GraphKernelBlock args;
      ARUN_RETURN_IF_ERROR(graph_kernel_block(func, old.args, old.args_size, old.host_args != 0,
                                              old.attrs.empty() ? nullptr : &old.cfg, &args));
      *out = copy_node_template(*n.task);
      (*out)->user_kernel = args.trampoline;
      (*out)->user_args = args.block;
      (*out)->free_user_args = args.free;
      (*out)->user_args_bytes = args.args_bytes;
      (*out)->block_dim = static_cast<uint32_t>(blocks);
      *kernel = copy_kernel_info(old);
      (*kernel)->function = func;
      (*kernel)->args = args.args_view;
      (*kernel)->blocks = static_cast<uint32_t>(blocks);
      return Status::Ok();
    };
  }
  Status st = u.table->replace_template(u.graph, u.node, make);
  if (!st.ok()) {
    const std::string why = "aclrtTaskUpdateAsync of task " + std::to_string(u.task_id) + ": " + st.message();
    block_fault(block, static_cast<aclError>(st.code()), why.c_str());
  }
}

}  // namespace

Status task_update_async(aclrtStream task_stream, uint32_t task_id, const aclrtTaskUpdateInfo* info,
                         aclrtStream exec_stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> target, exec;
  const int64_t id = raw(info->id);
  auto update = std::make_unique<UpdateTask>();
  update->id = id;
  update->task_id = task_id;
  GraphTable::NodeInspector inspect;
  switch (id) {
    case ACL_RT_UPDATE_RANDOM_TASK: {
      if (task_stream == nullptr) return param_invalid("taskStream is NULL");
      const auto& a = info->val.randomTaskAttr;
      if (a.srcAddr == nullptr) return param_invalid("randomTaskAttr.srcAddr is NULL");
      if (a.size != sizeof(aclrtRandomNumTaskInfo)) {
        return param_invalid(
            "randomTaskAttr.size is " + std::to_string(a.size) +
            "; it must be sizeof(aclrtRandomNumTaskInfo) = " + std::to_string(sizeof(aclrtRandomNumTaskInfo)));
      }
      ARUN_RETURN_IF_ERROR(find_stream(&rt, task_stream, &target));
      ARUN_RETURN_IF_ERROR(find_stream(&rt, exec_stream, &exec));
      update->src = a.srcAddr;
      inspect = [&](const GraphNode& n) {
        if (n.task->task_kind != TaskKind::Work || n.task->user_kernel != &run_random) {
          return param_invalid("task " + std::to_string(task_id) + " of stream " + std::to_string(target->id()) +
                               " is not a random-number task (aclrtRandomNumAsync)");
        }
        return Status::Ok();
      };
      break;
    }
    case ACL_RT_UPDATE_AIC_AIV_TASK: {
      if (task_stream == nullptr) return param_invalid("taskStream is NULL");
      if (exec_stream == nullptr) return param_invalid("execStream is NULL");
      const auto& a = info->val.aicAivTaskAttr;
      if (a.funcEntryAddr == nullptr) return param_invalid("aicAivTaskAttr.funcEntryAddr is NULL");
      if (a.blockDimAddr == nullptr) return param_invalid("aicAivTaskAttr.blockDimAddr is NULL");
      if (a.binHandle == nullptr) return param_invalid("aicAivTaskAttr.binHandle is NULL");
      ARUN_RETURN_IF_ERROR(find_stream(&rt, task_stream, &target));
      ARUN_RETURN_IF_ERROR(find_stream(&rt, exec_stream, &exec));
      update->entry_addr = a.funcEntryAddr;
      update->blocks_addr = a.blockDimAddr;
      update->binary = a.binHandle;
      inspect = [&](const GraphNode& n) {
        // The new function takes the task's argument block: only kernel-binary launches have a
        // declared layout to check it against.
        if (n.task->task_kind != TaskKind::Work || n.task->kind != plugin::WorkKind::Kernel || !n.kernel) {
          return param_invalid("task " + std::to_string(task_id) + " of stream " + std::to_string(target->id()) +
                               " is not a kernel launched from a kernel binary (aclrtLaunchKernel*)");
        }
        return Status::Ok();
      };
      break;
    }
    default:
      return param_invalid("info->id is " + std::to_string(id) +
                           "; it must be ACL_RT_UPDATE_RANDOM_TASK (1) or ACL_RT_UPDATE_AIC_AIV_TASK (2)");
  }
  update->table = &rt->graphs();
  ARUN_RETURN_IF_ERROR(rt->graphs().find_bound_task(*target, task_id, inspect, &update->graph, &update->node));
  // The task reads these when it runs; they must be memory of the device it runs on.
  DeviceSlot* slot = exec->context()->slot();
  if (id == ACL_RT_UPDATE_RANDOM_TASK) {
    ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, update->src, "randomTaskAttr.srcAddr"));
  } else {
    if (!rt->kernel_binaries().find_binary(update->binary)) {
      return Status(Errc::rt_invalid_handle,
                    "aicAivTaskAttr.binHandle " + hex(update->binary) + " is not a loaded kernel binary");
    }
    ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, update->entry_addr, "aicAivTaskAttr.funcEntryAddr"));
    ARUN_RETURN_IF_ERROR(check_device_memory(rt, slot, update->blocks_addr, "aicAivTaskAttr.blockDimAddr"));
  }
  LaunchAttrs attrs;
  attrs.op_name = "TaskUpdateAsync";
  attrs.args_bytes = sizeof(UpdateTask);
  return launch_kernel(exec_stream, 1, &run_update, update.release(), &delete_as<UpdateTask>, attrs);
}

}  // namespace arun::rt
