// AscendDevice: one simulated Ascend NPU — memory (DeviceMemory over a reserved AddressSpace),
// `ai_cores` compute units and `copy_engines` copy units (logical ExecutionUnits, run by a
// UnitPool shared by the plugin instance's devices), and a clock.
//
// Lifecycle: the address space is reserved by init() (the factory calls it), so device addresses
// are stable for the object's lifetime. open() creates the units, attaches the device to the pool
// (the first device starts the workers) and starts the clock; close() waits until the work already
// posted has run, detaches (the last device stops the workers) and releases every allocation. Both
// are idempotent. Memory may be allocated while closed, but close() wipes it.
//
// launch() contract: the device must be open and `unit` in range. A launch that breaks it cannot
// run; it completes at once, on the caller's thread, with 507033 (device not open) or 107000 (no
// such unit), and is logged.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arun/plugin/device.hpp"
#include "ascend_config.hpp"
#include "block_board.hpp"
#include "device_clock.hpp"
#include "device_memory.hpp"
#include "execution_unit.hpp"
#include "host_log.hpp"
#include "unit_pool.hpp"
#include "work_executor.hpp"

namespace arun::ascend {

class AscendDevice final : public plugin::Device {
 public:
  // `pool`: the workers shared with the plugin instance's other devices; nullptr gives the device
  // a pool of its own (sized by config.executor_threads).
  AscendDevice(uint32_t index, const AscendConfig& config, plugin::HostServices* host,
               std::shared_ptr<UnitPool> pool = nullptr);
  ~AscendDevice() override;

  // Reserves the address space; the device is unusable if this fails.
  Status init();

  const plugin::DeviceProperties& properties() const override { return properties_; }
  Status open() override;
  void close() override;

  Status allocate(uint64_t bytes, plugin::PageKind page, plugin::DevAddr* out) override;
  Status release(plugin::DevAddr addr) override;
  plugin::MemoryUsage memory_usage() const override;
  bool owns(plugin::DevAddr addr) const override;
  bool find_allocation(plugin::DevAddr addr, plugin::DevAddr* base, uint64_t* size) const override;
  void* map(plugin::DevAddr addr, uint64_t bytes) override;
  plugin::PhysicalMemorySource* physical_memory() override { return &memory_; }

  uint64_t now_ns() const override { return clock_.now_ns(); }

  uint32_t unit_count(plugin::UnitKind kind) const override;
  void launch(plugin::UnitKind kind, uint32_t unit, plugin::Work* work) override;
  plugin::WorkResult execute_now(plugin::Work* work) override;

  uint32_t index() const { return index_; }
  bool is_open() const { return open_.load(std::memory_order_acquire); }
  // The unit object behind (kind, unit), or nullptr; for tests and diagnostics.
  const ExecutionUnit* unit(plugin::UnitKind kind, uint32_t unit) const;
  const UnitPool& pool() const { return *pool_; }
  UnitPool& pool() { return *pool_; }

 private:
  void fail_launch(plugin::Work* work, int status, const std::string& why);

  const uint32_t index_;
  const AscendConfig config_;
  plugin::DeviceProperties properties_;
  HostLog log_;
  DeviceClock clock_;
  DeviceMemory memory_;
  BlockBoard board_;
  WorkExecutor executor_;
  std::shared_ptr<UnitPool> pool_;
  std::atomic<uint64_t> inflight_{0};  // posted to a unit, completion not yet returned

  std::mutex lifecycle_mutex_;
  std::atomic<bool> open_{false};
  std::vector<std::unique_ptr<ExecutionUnit>> units_[plugin::kUnitKindCount];
};

}  // namespace arun::ascend
