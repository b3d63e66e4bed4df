// libFuzzer target: the TOML configuration reader (aclInit(path), ASCEND_RUN_CONFIG, ascend-run
// info) and the scheduler / allocator option strings it hands on. Any input must give a Status,
// never a crash, a hang, deep recursion or a large allocation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "sched/policy_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arun::RuntimeConfig cfg;
  arun::Status st = arun::parse_config_toml(text, "fuzz.toml", "/nonexistent-base", &cfg);
  (void)st;
  // The same bytes as an ASCEND_RUN_SCHED / arunSetSchedulerPolicy string.
  arun::PolicySpec spec;
  (void)arun::parse_policy_spec(text.substr(0, 4096), "fuzz", &spec);
  // And as a byte size ("16GiB").
  uint64_t bytes = 0;
  (void)arun::parse_byte_size(text.substr(0, 256), &bytes);
  return 0;
}
