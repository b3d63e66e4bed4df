// DeviceSlot: one device as the runtime numbers it (device ids run across all device plugins in
// config order). Opens the device on first use and closes it when the last context on it goes.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "alloc/device_allocator.hpp"
#include "alloc/leak_report.hpp"
#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"
#include "runtime/context.hpp"
#include "sched/scheduler.hpp"

namespace arun {

// Makes the scheduling policy of a device when it opens (one instance per open).
using PolicyFactory = std::function<std::unique_ptr<SchedulerPolicy>()>;

class DeviceSlot {
 public:
  DeviceSlot(int32_t id, plugin::Device* device, std::shared_ptr<plugin::DevicePlugin> owner, std::string backend,
             PolicyFactory policy, uint32_t queue_depth);

  int32_t id() const { return id_; }
  plugin::Device* device() const { return device_; }
  const std::string& backend() const { return backend_; }

  // Opens the device (first user) and counts a user; release() undoes one acquire. The release that
  // closes the device adds the memory the program still held to `leaks` (when given).
  Status acquire();
  void release(LeakReport* leaks = nullptr);
  bool is_open() const;
  Scheduler* scheduler() const { return scheduler_.get(); }  // non-null while open
  // The allocator, for a caller that holds the device open (a context on it). Others use
  // with_allocator(), which holds the device open around f(DeviceAllocator*) (nullptr when closed).
  DeviceAllocator* allocator() const { return allocator_.get(); }
  template <class F>
  auto with_allocator(F&& f) const {
    std::shared_ptr<DeviceAllocator> a;
    {
      std::lock_guard lock(allocator_mu_);  // never held across device work: callbacks may free memory
      a = allocator_;
    }
    return f(a.get());
  }

  int32_t next_stream_id() { return stream_ids_.fetch_add(1); }
  // The allocator policy the device gets when it opens (set once, before first use).
  void set_allocator_choice(std::shared_ptr<const AllocatorChoice> choice) { allocator_choice_ = std::move(choice); }
  // Where the allocator may grow ranges (expandable segments): the runtime's virtual memory and
  // the device's physical memory (nullptr: the device has none). Set once, before first use.
  // The device plugin's ABI minor: what the scheduler may read from its results.
  void set_abi_minor(uint16_t minor) { abi_minor_ = minor; }
  void set_virtual_memory(VirtualMemory* vmm, plugin::PhysicalMemorySource* physical) {
    vmm_ = vmm;
    physical_ = physical;
  }

  // Peer access (aclrtDeviceEnablePeerAccess): the devices whose memory this one's copy engines may
  // reach. remove_peer is false when `peer` was not enabled.
  void add_peer(int32_t peer) {
    std::lock_guard lock(mu);
    peers_.insert(peer);
  }
  bool remove_peer(int32_t peer) {
    std::lock_guard lock(mu);
    return peers_.erase(peer) != 0;
  }
  bool has_peer(int32_t peer) {
    std::lock_guard lock(mu);
    return peers_.count(peer) != 0;
  }

  // Default-context bookkeeping, guarded by mu.
  std::mutex mu;
  int set_count = 0;  // aclrtSetDevice references
  std::shared_ptr<Context> default_context;
  int overflow_mode = 1;  // aclrtFloatOverflowMode; INFNAN (IEEE) by default
  // The process-level overflow status of this device (spec part 2, 4.8): non-zero once a task of a
  // stream with the overflow switch on reported an overflow / Inf / NaN; cleared by the reset tasks.
  std::atomic<uint32_t> overflow_status{0};
  // aclrtSetDeviceResLimit: process-level core limits per aclrtDevResLimitType (cube, vector);
  // 0 = none (the hardware count). Dropped when the device closes.
  std::atomic<uint32_t> res_limit[2] = {0, 0};

 private:
  int32_t id_;
  std::set<int32_t> peers_;  // guarded by mu
  plugin::Device* device_;
  std::shared_ptr<plugin::DevicePlugin> owner_;  // keeps the plugin (and its library) alive
  std::string backend_;
  PolicyFactory policy_;
  uint32_t queue_depth_;
  uint16_t abi_minor_ = 0;
  mutable std::mutex open_mu_;
  int users_ = 0;
  std::unique_ptr<Scheduler> scheduler_;
  std::shared_ptr<const AllocatorChoice> allocator_choice_;
  mutable std::mutex allocator_mu_;
  std::shared_ptr<DeviceAllocator> allocator_;
  VirtualMemory* vmm_ = nullptr;
  plugin::PhysicalMemorySource* physical_ = nullptr;
  std::atomic<int32_t> stream_ids_{0};
};

}  // namespace arun
