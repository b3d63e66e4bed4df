// The plugin entry: the exported descriptor and the factory that builds the simulated NPUs.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "arun/plugin/device.hpp"
#include "arun/plugin/plugin_abi.hpp"
#include "ascend_config.hpp"
#include "ascend_device.hpp"

#ifndef ARUN_ASCEND_BUILD_ID
#define ARUN_ASCEND_BUILD_ID __DATE__ " " __TIME__
#endif

namespace arun::ascend {
namespace {

// The set of simulated devices one plugin instance owns.
class AscendPlugin final : public plugin::DevicePlugin {
 public:
  uint32_t device_count() const override { return static_cast<uint32_t>(devices_.size()); }
  plugin::Device* device(uint32_t index) override { return index < devices_.size() ? devices_[index].get() : nullptr; }
  // Declared before the devices, so that it outlives them (they hold the pool, which logs through it).
  std::unique_ptr<HostLog> log_;
  std::vector<std::unique_ptr<AscendDevice>> devices_;
};

void write_error(char* error, size_t error_size, const std::string& text) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", text.c_str());
}

plugin::PluginObject* create_ascend(plugin::HostServices* host, const plugin::OptionValues* options, char* error,
                                    size_t error_size) {
  try {
    const AscendConfig config = options != nullptr ? AscendConfig::from_options(*options) : AscendConfig{};
    auto result = std::make_unique<AscendPlugin>();
    result->log_ = std::make_unique<HostLog>(host, "ascend");
    // One pool of workers for every device of the instance: a process runs as many worker threads
    // as it has CPUs, however many devices and units it simulates.
    auto pool =
        std::make_shared<UnitPool>(*result->log_, config.executor_threads,
                                   config.device_count * (config.ai_cores + config.copy_engines), config.unit_spin_ns);
    for (uint32_t i = 0; i < config.device_count; ++i) {
      auto dev = std::make_unique<AscendDevice>(i, config, host, pool);
      Status s = dev->init();
      if (!s.ok()) {
        write_error(error, error_size, "ascend device " + std::to_string(i) + ": " + s.message());
        return nullptr;
      }
      result->devices_.push_back(std::move(dev));
    }
    HostLog(host, "ascend")
        .info("simulated " + std::to_string(config.device_count) + " x " + config.soc_name + ", " +
              std::to_string(config.memory_bytes >> 20) + " MiB, " + std::to_string(config.ai_cores) + " AI cores, " +
              std::to_string(config.copy_engines) + " copy engines each");
    return result.release();
  } catch (const std::exception& e) {
    write_error(error, error_size, std::string("ascend plugin: ") + e.what());
  } catch (...) {
    write_error(error, error_size, "ascend plugin: unknown failure");
  }
  return nullptr;
}

}  // namespace

extern const plugin::PluginDescriptor kAscendDescriptor;
const plugin::PluginDescriptor kAscendDescriptor{
    ARUN_PLUGIN_HEADER,
    plugin::PluginKind::Device,
    "ascend",
    "0.1.0",
    ARUN_ASCEND_BUILD_ID,
    "Simulated Ascend NPU: reserved device address space, AI cores and copy engines run by a shared worker pool, "
    "device clock",
    kOptionSpecs,
    kOptionSpecCount,
    &create_ascend,
};

}  // namespace arun::ascend

ARUN_DECLARE_PLUGIN(arun::ascend::kAscendDescriptor)
