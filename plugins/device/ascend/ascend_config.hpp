// AscendConfig: the shape of the simulated part, as the plugin's options describe it.
//
// kOptionSpecs is the schema the plugin descriptor exports; the core validates the TOML table
// against it and fills in defaults, so from_options() only reads (Bytes arrive as byte counts).
// The defaults describe an Ascend 910B3: 20 AI cores (Cube), 40 vector cores, 192 MiB L2.
#pragma once

#include <cstdint>
#include <string>

#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::ascend {

struct AscendConfig {
  uint32_t device_count = 2;
  std::string soc_name = "Ascend910B3";
  uint64_t memory_bytes = 16ull << 30;
  uint32_t ai_cores = 20;
  uint32_t vector_cores = 40;
  uint32_t copy_engines = 4;
  uint64_t l2_bytes = 192ull << 20;
  uint64_t unit_spin_ns = 5000;   // how long an idle worker polls for work before it parks
  uint32_t executor_threads = 0;  // worker threads of the unit pool (0: the CPUs the process may use)

  static AscendConfig from_options(const plugin::OptionValues& options);
};

// A constant count keeps the exported descriptor constant-initialised.
inline constexpr uint32_t kOptionSpecCount = 9;
extern const plugin::OptionSpec kOptionSpecs[kOptionSpecCount];

}  // namespace arun::ascend
