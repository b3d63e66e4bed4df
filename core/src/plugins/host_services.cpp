#include "plugins/host_services.hpp"

#include <atomic>

#include "base/logging.hpp"

namespace arun {
namespace {

std::atomic<MemoryLiveCheck> g_live_check{nullptr};
std::atomic<HostMappedCheck> g_mapped_check{nullptr};
std::atomic<VmmMapCheck> g_vmm_check{nullptr};

class RuntimeHostServices final : public plugin::HostServices {
 public:
  void log(plugin::LogLevel level, std::string_view source, std::string_view message) override {
    arun::log().log(to_spdlog(level), "[{}] {}", source, message);
  }
  bool log_enabled(plugin::LogLevel level) const override {
    return level != plugin::LogLevel::Off && level >= log_level();
  }
  bool memory_live(const plugin::Device* device, uint64_t addr, uint64_t bytes) override {
    MemoryLiveCheck check = g_live_check.load(std::memory_order_acquire);
    return check == nullptr || check(device, addr, bytes);
  }
  bool host_mapped(uint64_t addr, uint64_t bytes) override {
    HostMappedCheck check = g_mapped_check.load(std::memory_order_acquire);
    return check != nullptr && check(addr, bytes);
  }
  void* vmm_map(const plugin::Device* device, uint64_t addr, uint64_t bytes) override {
    VmmMapCheck check = g_vmm_check.load(std::memory_order_acquire);
    return check != nullptr ? check(device, addr, bytes) : nullptr;
  }
};

}  // namespace

plugin::HostServices* host_services() {
  static RuntimeHostServices services;
  return &services;
}

void set_host_mapped_check(HostMappedCheck check) {
  g_mapped_check.store(check, std::memory_order_release);
}

void set_vmm_map_check(VmmMapCheck check) {
  g_vmm_check.store(check, std::memory_order_release);
}

void set_memory_live_check(MemoryLiveCheck check) {
  g_live_check.store(check, std::memory_order_release);
}

}  // namespace arun
