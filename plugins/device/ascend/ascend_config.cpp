#include "ascend_config.hpp"

#include <algorithm>

namespace arun::ascend {

using plugin::OptionSpec;
using plugin::OptionType;

const OptionSpec kOptionSpecs[kOptionSpecCount] = {
    {"device_count", OptionType::Integer, 1, 16, "2", "number of simulated NPUs (device ids 0 .. n-1)"},
    {"soc_name", OptionType::String, 0, 0, "\"Ascend910B3\"", "SoC name the devices report (aclrtGetSocName)"},
    {"memory", OptionType::Bytes, 64.0 * (1 << 20), 1024.0 * (1ull << 30), "\"16GiB\"",
     "device memory per NPU; reserved as address space, host pages are committed only when touched"},
    {"ai_cores", OptionType::Integer, 1, 64, "20", "AI cores per NPU: the compute units kernels run on"},
    {"vector_cores", OptionType::Integer, 0, 128, "40", "vector cores per NPU (reported, not scheduled separately)"},
    {"copy_engines", OptionType::Integer, 1, 16, "4",
     "copy (DMA) engines per NPU: the units copies and memsets run on"},
    {"l2_cache", OptionType::Bytes, 0, 4.0 * (1ull << 30), "\"192MiB\"", "L2 cache size the devices report"},
    {"unit_spin_ns", OptionType::Integer, 0, 1000000, "5000",
     "nanoseconds an idle worker polls for work before it parks on a futex (0 = park at once); at most one "
     "worker polls at a time, and the window adapts up to 16 times this (200 us at most) while work keeps "
     "coming soon after the device went idle"},
    {"executor_threads", OptionType::Integer, 0, 256, "0",
     "worker threads that run the AI cores' and copy engines' work, shared by the plugin's devices (0 = the "
     "CPUs the process may use); the pool grows, up to one per unit, only while work is held up by blocked "
     "workers"},
};

AscendConfig AscendConfig::from_options(const plugin::OptionValues& o) {
  AscendConfig c;
  // The core has range-checked every value; the clamps only keep a hand-built OptionValues sane.
  auto clamp_u32 = [](int64_t v, int64_t lo, int64_t hi) { return static_cast<uint32_t>(std::clamp(v, lo, hi)); };
  c.device_count = clamp_u32(o.get_int("device_count", c.device_count), 1, 16);
  c.soc_name = o.get_string("soc_name", c.soc_name);
  c.memory_bytes = static_cast<uint64_t>(
      std::max<int64_t>(o.get_int("memory", static_cast<int64_t>(c.memory_bytes)), int64_t{64} << 20));
  c.ai_cores = clamp_u32(o.get_int("ai_cores", c.ai_cores), 1, 64);
  c.vector_cores = clamp_u32(o.get_int("vector_cores", c.vector_cores), 0, 128);
  c.copy_engines = clamp_u32(o.get_int("copy_engines", c.copy_engines), 1, 16);
  c.l2_bytes = static_cast<uint64_t>(std::max<int64_t>(o.get_int("l2_cache", static_cast<int64_t>(c.l2_bytes)), 0));
  c.executor_threads = clamp_u32(o.get_int("executor_threads", c.executor_threads), 0, 256);
  c.unit_spin_ns = static_cast<uint64_t>(std::clamp<int64_t>(o.get_int("unit_spin_ns", c.unit_spin_ns), 0, 1000000));
  return c;
}

}  // namespace arun::ascend
