#include "ascend_device.hpp"

#include <chrono>
#include <exception>
#include <thread>

namespace arun::ascend {

using plugin::UnitKind;
using plugin::Work;
using plugin::WorkResult;

AscendDevice::AscendDevice(uint32_t index, const AscendConfig& config, plugin::HostServices* host,
                           std::shared_ptr<UnitPool> pool)
    : index_(index),
      config_(config),
      log_(host, "ascend"),
      memory_("ascend device " + std::to_string(index)),
      executor_(this, memory_, clock_, log_, board_, host),
      pool_(pool != nullptr ? std::move(pool)
                            : std::make_shared<UnitPool>(log_, config.executor_threads,
                                                         config.ai_cores + config.copy_engines, config.unit_spin_ns)) {
  properties_.soc_name = config.soc_name;
  properties_.memory_bytes = config.memory_bytes / DeviceMemory::kBlockAlignment * DeviceMemory::kBlockAlignment;
  properties_.compute_units = config.ai_cores;
  properties_.vector_units = config.vector_cores;
  properties_.copy_units = config.copy_engines;
  properties_.l2_bytes = config.l2_bytes;
  properties_.page_bytes = 4096;
  properties_.huge_page_bytes = static_cast<uint32_t>(DeviceMemory::kHugePage);
}

AscendDevice::~AscendDevice() {
  close();
}

Status AscendDevice::init() {
  try {
    return memory_.init(config_.memory_bytes);
  } catch (const std::exception& e) {
    return Status(Errc::rt_dev_setup_error, std::string("ascend device init failed: ") + e.what());
  }
}

Status AscendDevice::open() {
  try {
    std::lock_guard lock(lifecycle_mutex_);
    if (open_.load(std::memory_order_relaxed)) return Status::Ok();
    clock_.start();
    const uint32_t counts[plugin::kUnitKindCount] = {config_.ai_cores, config_.copy_engines};
    const char* tags[plugin::kUnitKindCount] = {"aic", "dma"};
    for (uint32_t k = 0; k < plugin::kUnitKindCount; ++k) {
      units_[k].clear();
      for (uint32_t u = 0; u < counts[k]; ++u) {
        units_[k].push_back(std::make_unique<ExecutionUnit>(
            executor_, log_, *pool_, u, "npu" + std::to_string(index_) + "-" + tags[k] + std::to_string(u), inflight_));
      }
    }
    std::vector<ExecutionUnit*> cores;
    for (auto& unit : units_[static_cast<uint32_t>(UnitKind::Compute)]) cores.push_back(unit.get());
    board_.attach(std::move(cores), pool_.get(), pool_->progress_counter());
    Status s = pool_->attach(&board_, counts[0] + counts[1]);
    if (!s.ok()) {
      board_.detach();
      for (auto& list : units_) list.clear();
      return s;
    }
    open_.store(true, std::memory_order_release);
    log_.debug("device " + std::to_string(index_) + " opened: " + std::to_string(counts[0]) + " AI cores, " +
               std::to_string(counts[1]) + " copy engines on " + std::to_string(pool_->workers()) + " worker threads");
    return Status::Ok();
  } catch (const std::exception& e) {
    board_.detach();
    for (auto& list : units_) list.clear();
    return Status(Errc::rt_dev_setup_error, "device " + std::to_string(index_) + " failed to open: " + e.what());
  }
}

void AscendDevice::close() {
  try {
    std::lock_guard lock(lifecycle_mutex_);
    if (!open_.load(std::memory_order_relaxed)) return;
    // Launches from completions that run while the units drain now fail instead of posting; the
    // unit objects stay alive until their work has run, so such a launch never sees a freed unit.
    open_.store(false, std::memory_order_release);
    if (pool_->on_worker_thread()) {
      // A completion closed the device: its own work cannot finish while we wait here.
      log_.error("device " + std::to_string(index_) + ": close() called from a completion; units not drained");
      return;
    }
    while (inflight_.load(std::memory_order_acquire) != 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
    pool_->detach(&board_, config_.ai_cores + config_.copy_engines);
    board_.detach();
    for (auto& list : units_) list.clear();
    memory_.release_all();
    log_.debug("device " + std::to_string(index_) + " closed");
  } catch (...) {
    log_.error("device " + std::to_string(index_) + ": unexpected failure while closing");
  }
}

Status AscendDevice::allocate(uint64_t bytes, plugin::PageKind page, plugin::DevAddr* out) {
  try {
    return memory_.allocate(bytes, page, out);
  } catch (const std::bad_alloc&) {
    return Status(Errc::rt_memory_allocation, "host memory exhausted while allocating device memory");
  } catch (...) {
    return Status(Errc::rt_internal_error, "allocate failed unexpectedly");
  }
}

Status AscendDevice::release(plugin::DevAddr addr) {
  try {
    return memory_.release(addr);
  } catch (...) {
    return Status(Errc::rt_internal_error, "release failed unexpectedly");
  }
}

plugin::MemoryUsage AscendDevice::memory_usage() const {
  return memory_.usage();
}
bool AscendDevice::owns(plugin::DevAddr addr) const {
  return memory_.owns(addr);
}
bool AscendDevice::find_allocation(plugin::DevAddr addr, plugin::DevAddr* base, uint64_t* size) const {
  return memory_.find_allocation(addr, base, size);
}
void* AscendDevice::map(plugin::DevAddr addr, uint64_t bytes) {
  return executor_.map_checked(addr, bytes);
}

uint32_t AscendDevice::unit_count(UnitKind kind) const {
  switch (kind) {
    case UnitKind::Compute:
      return config_.ai_cores;
    case UnitKind::Copy:
      return config_.copy_engines;
  }
  return 0;
}

const ExecutionUnit* AscendDevice::unit(UnitKind kind, uint32_t unit) const {
  const auto k = static_cast<uint32_t>(kind);
  if (k >= plugin::kUnitKindCount || unit >= units_[k].size()) return nullptr;
  return units_[k][unit].get();
}

void AscendDevice::fail_launch(Work* work, int status, const std::string& why) {
  log_.error("device " + std::to_string(index_) + ": " + why);
  if (work != nullptr && work->on_complete != nullptr) {
    WorkResult r;
    r.status = status;
    r.start_ns = r.end_ns = clock_.now_ns();
    work->on_complete(work, r);
  }
}

void AscendDevice::launch(UnitKind kind, uint32_t unit, Work* work) {
  try {
    const auto k = static_cast<uint32_t>(kind);
    if (work == nullptr) {
      log_.error("device " + std::to_string(index_) + ": launch without work");
      return;
    }
    // No lock on this path: the core only launches between open() and close().
    if (!open_.load(std::memory_order_acquire)) {
      fail_launch(work, static_cast<int>(Errc::rt_dev_setup_error), "launch on a device that is not open");
      return;
    }
    if (k >= plugin::kUnitKindCount || unit >= units_[k].size()) {
      fail_launch(
          work, static_cast<int>(Errc::rt_param_invalid),
          "launch on unit " + std::to_string(unit) + " of kind " + std::to_string(k) + ", which does not exist");
      return;
    }
    units_[k][unit]->post(work);
  } catch (...) {
    log_.error("device " + std::to_string(index_) + ": launch failed unexpectedly");
  }
}

WorkResult AscendDevice::execute_now(Work* work) {
  if (work == nullptr) {
    WorkResult r;
    r.status = static_cast<int>(Errc::rt_param_invalid);
    return r;
  }
  // No failure message here: it would need storage per calling thread, and a thread_local in a
  // plugin (a dlopen'ed module) crashes LeakSanitizer's exit-time scan once the module is closed.
  return executor_.run(*work);
}

}  // namespace arun::ascend
