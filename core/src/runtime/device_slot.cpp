#include "runtime/device_slot.hpp"

#include <cstdio>

#include "base/logging.hpp"

namespace arun {

DeviceSlot::DeviceSlot(int32_t id, plugin::Device* device, std::shared_ptr<plugin::DevicePlugin> owner,
                       std::string backend, PolicyFactory policy, uint32_t queue_depth)
    : id_(id),
      device_(device),
      owner_(std::move(owner)),
      backend_(std::move(backend)),
      policy_(std::move(policy)),
      queue_depth_(queue_depth) {}

Status DeviceSlot::acquire() {
  std::lock_guard lock(open_mu_);
  if (users_ == 0) {
    Status st = device_->open();
    if (!st.ok()) {
      return Status(st.code() == Errc::ok ? Errc::rt_dev_setup_error : st.code(),
                    "device " + std::to_string(id_) + " (" + backend_ + ") failed to open: " + st.message());
    }
    auto policy = policy_();
    if (!policy) {
      device_->close();
      return Status(Errc::rt_dev_setup_error, "device " + std::to_string(id_) + " (" + backend_ +
                                                  "): the scheduling policy could not be created");
    }
    scheduler_ = std::make_unique<Scheduler>(device_, std::move(policy), id_, queue_depth_);
    scheduler_->set_failure_messages(abi_minor_ >= 10);
    std::shared_ptr<DeviceAllocator> allocator;
    Status made = allocator_choice_
                      ? DeviceAllocator::create(id_, device_, *allocator_choice_, &allocator, vmm_, physical_)
                      : DeviceAllocator::create(id_, device_, AllocatorChoice{}, &allocator, vmm_, physical_);
    if (!made.ok()) {
      scheduler_.reset();
      device_->close();
      return made;
    }
    std::lock_guard alock(allocator_mu_);
    allocator_ = std::move(allocator);
    log().debug("device {} ({}) opened, scheduler policy {}", id_, backend_, scheduler_->policy().name());
  }
  ++users_;
  return Status::Ok();
}

void DeviceSlot::release(LeakReport* leaks) {
  std::lock_guard lock(open_mu_);
  if (users_ == 0) return;
  if (--users_ == 0) {
    scheduler_->wait_all(-1);
    scheduler_->quiesce();
    // Closing the device frees every block; what the program still held is a leak.
    std::shared_ptr<DeviceAllocator> allocator;
    {
      std::lock_guard alock(allocator_mu_);
      allocator = std::move(allocator_);
    }
    if (leaks != nullptr) {
      for (const auto& b : allocator->blocks()) leaks->memory.push_back({id_, b.addr, b.requested, b.site});
    }
    // The report goes to stderr whatever the log level: the user asked for it.
    if (allocator_choice_ && allocator_choice_->report_at_close) std::fputs(allocator->report().c_str(), stderr);
    allocator.reset();
    // Close the device before the scheduler goes: closing joins the unit threads, and a unit may
    // still be inside the scheduler's completion path (waking waiters) after the last task counted
    // as complete.
    device_->close();
    scheduler_.reset();
    for (auto& limit : res_limit) limit.store(0, std::memory_order_relaxed);
    log().debug("device {} ({}) closed", id_, backend_);
  }
}

bool DeviceSlot::is_open() const {
  std::lock_guard lock(open_mu_);
  return users_ > 0;
}

}  // namespace arun
