// The null device: a deliberately plain, complete device plugin. It is the core's unit-test device,
// the conformance suite's second backend, and the template for a new backend (README.md). It
// shares no code with plugins/device/ascend:
//  - device memory is host memory from aligned_alloc, tracked in a map; device addresses are the
//    host addresses (no fault model), but map()/find_allocation()/release() still reject any
//    range that is not inside one live allocation, and copies through such ranges fail with
//    507052 exactly as on the simulated NPU;
//  - every unit is a thread with a one-slot mailbox guarded by a mutex and a condition variable;
//  - unit counts come from the options, so a test can serialise compute with compute_units = 1.
// Options: device_count (1), compute_units (1), copy_units (1), memory (Bytes, "64MiB").
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arun/plugin/device.hpp"
#include "arun/plugin/plugin_abi.hpp"

namespace arun::null_device {
namespace {

using plugin::DevAddr;
using plugin::MemRef;
using plugin::UnitKind;
using plugin::Work;
using plugin::WorkKind;
using plugin::WorkResult;

constexpr int kCopyData = static_cast<int>(Errc::rt_copy_data);
constexpr int kAicore = static_cast<int>(Errc::rt_aicore_exception);
constexpr int kTaskAbort = static_cast<int>(Errc::rt_device_task_abort);
constexpr uint64_t kAlignment = 512;

class NullDevice;

// One unit: a thread waiting on a condition variable for its single mailbox slot.
class NullUnit {
 public:
  NullUnit(NullDevice& device, uint32_t index) : device_(device), index_(index), thread_([this] { loop(); }) {}
  ~NullUnit() { stop(); }
  // Joins the thread. close() stops every unit before destroying any: a unit thread may still be
  // posting to a sibling (the tail of a completion) after the last task counted as complete.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  void post(Work* work) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(work);  // the core never overfills it; a deque just makes that harmless
    }
    cv_.notify_one();
  }

 private:
  void loop();

  NullDevice& device_;
  const uint32_t index_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Work*> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

class NullKernelContext final : public plugin::KernelContext {
 public:
  NullKernelContext(plugin::Device& device, uint32_t dim) : device_(device), dim_(dim) {}
  uint32_t block_idx() const override { return idx_; }
  uint32_t block_dim() const override { return dim_; }
  void* map(DevAddr addr, uint64_t bytes) override {
    void* p = device_.map(addr, bytes);
    if (p == nullptr) fault(kAicore, "null: kernel touched memory outside any live allocation");
    return p;
  }
  void fault(int code, const char* message) override {
    if (status_ != 0) return;
    status_ = code != 0 ? code : kAicore;
    message_ = "block " + std::to_string(idx_) + ": " + (message != nullptr ? message : "kernel fault");
  }
  uint32_t idx_ = 0;
  int status_ = 0;
  std::string message_;

 private:
  plugin::Device& device_;
  uint32_t dim_;
};

class NullDevice final : public plugin::Device {
 public:
  NullDevice(uint32_t compute, uint32_t copy, uint64_t memory, plugin::HostServices* host) : host_(host) {
    props_.soc_name = "NullDevice";
    props_.memory_bytes = memory;
    props_.compute_units = compute;
    props_.vector_units = 0;
    props_.copy_units = copy;
    props_.l2_bytes = 0;
  }
  ~NullDevice() override {
    close();
    release_all();
  }

  const plugin::DeviceProperties& properties() const override { return props_; }

  Status open() override {
    std::lock_guard lock(lifecycle_);
    if (open_) return Status::Ok();
    try {
      if (epoch_ns_ == 0) epoch_ns_ = steady_ns();
      for (uint32_t i = 0; i < props_.compute_units; ++i) units_[0].push_back(std::make_unique<NullUnit>(*this, i));
      for (uint32_t i = 0; i < props_.copy_units; ++i) units_[1].push_back(std::make_unique<NullUnit>(*this, i));
    } catch (const std::exception& e) {
      units_[0].clear();
      units_[1].clear();
      return Status(Errc::rt_dev_setup_error, std::string("null: cannot start units: ") + e.what());
    }
    open_ = true;
    return Status::Ok();
  }

  void close() override {
    std::lock_guard lock(lifecycle_);
    if (!open_) return;
    open_ = false;
    for (auto& kind : units_) {
      for (auto& unit : kind) unit->stop();
    }
    units_[0].clear();
    units_[1].clear();
    release_all();
  }

  Status allocate(uint64_t bytes, plugin::PageKind, DevAddr* out) override {
    if (out == nullptr || bytes == 0) return Status(Errc::rt_param_invalid, "null: bad allocate arguments");
    std::lock_guard lock(mem_mutex_);
    const uint64_t occupied = (bytes + 32 + kAlignment - 1) / kAlignment * kAlignment;
    if (bytes > props_.memory_bytes || occupied > props_.memory_bytes - used_) {
      return Status(Errc::rt_memory_allocation, "null: out of memory: requested " + std::to_string(bytes) +
                                                    " bytes, free " + std::to_string(props_.memory_bytes - used_));
    }
    void* p = std::aligned_alloc(kAlignment, occupied);
    if (p == nullptr) return Status(Errc::rt_memory_allocation, "null: host allocation failed");
    const auto addr = reinterpret_cast<DevAddr>(p);
    live_[addr] = Block{bytes, occupied};
    used_ += occupied;
    *out = addr;
    return Status::Ok();
  }

  Status release(DevAddr addr) override {
    std::lock_guard lock(mem_mutex_);
    auto it = live_.find(addr);
    if (it == live_.end()) return Status(Errc::rt_memory_free, "null: address is not the base of a live allocation");
    used_ -= it->second.occupied;
    std::free(reinterpret_cast<void*>(addr));
    live_.erase(it);
    return Status::Ok();
  }

  plugin::MemoryUsage memory_usage() const override {
    std::lock_guard lock(mem_mutex_);
    plugin::MemoryUsage u;
    u.total = props_.memory_bytes;
    u.free = props_.memory_bytes - used_;
    u.largest_free = u.free;  // host memory: no fragmentation model
    u.allocations = live_.size();
    return u;
  }

  bool owns(DevAddr addr) const override {
    std::lock_guard lock(mem_mutex_);
    return find_locked(addr) != live_.end();
  }

  bool find_allocation(DevAddr addr, DevAddr* base, uint64_t* size) const override {
    std::lock_guard lock(mem_mutex_);
    auto it = find_locked(addr);
    if (it == live_.end()) return false;
    if (base != nullptr) *base = it->first;
    if (size != nullptr) *size = it->second.requested;
    return true;
  }

  void* map(DevAddr addr, uint64_t bytes) override {
    {
      std::lock_guard lock(mem_mutex_);
      auto it = find_locked(addr);
      if (it == live_.end() || bytes > it->second.requested - (addr - it->first)) {
        // Mapped host registrations and managed memory: host memory device code uses in place.
        if (host_ != nullptr && host_->host_mapped(addr, bytes)) return reinterpret_cast<void*>(addr);
        return nullptr;
      }
    }
    // Blocks an allocator policy carved out of this allocation are checked by the core.
    if (host_ != nullptr && !host_->memory_live(this, addr, bytes)) return nullptr;
    return reinterpret_cast<void*>(addr);
  }

  uint64_t now_ns() const override {
    const uint64_t epoch = epoch_ns_;
    return epoch == 0 ? 0 : steady_ns() - epoch;
  }

  uint32_t unit_count(UnitKind kind) const override {
    return kind == UnitKind::Compute ? props_.compute_units : props_.copy_units;
  }

  void launch(UnitKind kind, uint32_t unit, Work* work) override {
    if (work == nullptr) return;
    const auto k = static_cast<uint32_t>(kind);
    if (!open_ || k > 1 || unit >= units_[k].size()) {
      WorkResult r;
      r.status = !open_ ? static_cast<int>(Errc::rt_dev_setup_error) : static_cast<int>(Errc::rt_param_invalid);
      r.start_ns = r.end_ns = now_ns();
      if (work->on_complete != nullptr) work->on_complete(work, r);
      return;
    }
    units_[k][unit]->post(work);
  }

  // Without a failure message (no thread_local in a plugin: see the ascend device's execute_now).
  WorkResult execute_now(Work* work) override { return execute(work, nullptr); }

  // execute_now, with a failure's explanation into *why (WorkResult::message must outlive it).
  WorkResult execute(Work* work, std::string* why) {
    WorkResult r;
    r.start_ns = now_ns();
    r.status = work == nullptr ? static_cast<int>(Errc::rt_param_invalid) : run(*work, why);
    r.end_ns = std::max(now_ns(), r.start_ns);
    return r;
  }

 private:
  struct Block {
    uint64_t requested;
    uint64_t occupied;
  };

  static uint64_t steady_ns() {
    return static_cast<uint64_t>(
               std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
                   .count()) +
           1;
  }

  std::map<DevAddr, Block>::const_iterator find_locked(DevAddr addr) const {
    auto it = live_.upper_bound(addr);
    if (it == live_.begin()) return live_.end();
    --it;
    return addr - it->first < it->second.requested ? it : live_.end();
  }

  void release_all() {
    std::lock_guard lock(mem_mutex_);
    for (auto& [addr, block] : live_) std::free(reinterpret_cast<void*>(addr));
    live_.clear();
    used_ = 0;
  }

  void* resolve(const MemRef& ref, uint64_t bytes) {
    if (ref.device == nullptr) return reinterpret_cast<void*>(static_cast<uintptr_t>(ref.addr));
    return ref.device->map(ref.addr, bytes);
  }

  int run(const Work& w, std::string* why) {
    try {
      switch (w.kind) {
        case WorkKind::Copy: {
          if (w.bytes == 0) return 0;
          void* d = resolve(w.dst, w.bytes);
          const void* s = resolve(w.src, w.bytes);
          if (d == nullptr || s == nullptr) return kCopyData;
          std::memmove(d, s, w.bytes);
          return 0;
        }
        case WorkKind::Copy2D: {
          if (w.width == 0 || w.height == 0) return 0;
          auto* d = static_cast<unsigned char*>(resolve(w.dst, (w.height - 1) * w.dpitch + w.width));
          auto* s = static_cast<const unsigned char*>(resolve(w.src, (w.height - 1) * w.spitch + w.width));
          if (d == nullptr || s == nullptr) return kCopyData;
          for (uint64_t r = 0; r < w.height; ++r) std::memmove(d + r * w.dpitch, s + r * w.spitch, w.width);
          return 0;
        }
        case WorkKind::Memset: {
          if (w.bytes == 0) return 0;
          void* d = resolve(w.dst, w.bytes);
          if (d == nullptr) return kCopyData;
          std::memset(d, w.value & 0xff, w.bytes);
          return 0;
        }
        case WorkKind::Kernel: {
          if (w.kernel == nullptr) return static_cast<int>(Errc::rt_param_invalid);
          NullKernelContext ctx(*this, w.block_dim);
          for (uint32_t b = 0; b < w.block_dim && ctx.status_ == 0; ++b) {
            if (w.cancel != nullptr && w.cancel->load(std::memory_order_relaxed)) return kTaskAbort;
            ctx.idx_ = b;
            try {
              w.kernel(ctx, w.args);
            } catch (...) {
              ctx.fault(kAicore, "null: kernel threw");
            }
          }
          if (ctx.status_ != 0 && why != nullptr) *why = std::move(ctx.message_);
          return ctx.status_;
        }
      }
    } catch (...) {
      return kAicore;
    }
    return static_cast<int>(Errc::rt_param_invalid);
  }

  friend class NullUnit;

  plugin::HostServices* host_;
  plugin::DeviceProperties props_;
  std::mutex lifecycle_;
  std::atomic<bool> open_{false};
  std::atomic<uint64_t> epoch_ns_{0};
  std::vector<std::unique_ptr<NullUnit>> units_[2];
  mutable std::mutex mem_mutex_;
  std::map<DevAddr, Block> live_;
  uint64_t used_ = 0;
};

void NullUnit::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to run
    Work* w = queue_.front();
    queue_.erase(queue_.begin());
    lock.unlock();
    std::string why;
    WorkResult r = device_.execute(w, &why);
    r.unit = index_;
    if (!why.empty()) r.message = why.c_str();
    if (w->on_complete != nullptr) w->on_complete(w, r);  // may post to this unit again
    lock.lock();
  }
}

class NullPlugin final : public plugin::DevicePlugin {
 public:
  uint32_t device_count() const override { return static_cast<uint32_t>(devices_.size()); }
  plugin::Device* device(uint32_t index) override { return index < devices_.size() ? devices_[index].get() : nullptr; }
  std::vector<std::unique_ptr<NullDevice>> devices_;
};

plugin::PluginObject* create_null(plugin::HostServices* host, const plugin::OptionValues* options, char* error,
                                  size_t error_size) {
  try {
    const plugin::OptionValues empty;
    const plugin::OptionValues& o = options != nullptr ? *options : empty;
    auto result = std::make_unique<NullPlugin>();
    const int64_t count = std::clamp<int64_t>(o.get_int("device_count", 1), 1, 16);
    const auto compute = static_cast<uint32_t>(std::clamp<int64_t>(o.get_int("compute_units", 1), 1, 64));
    const auto copy = static_cast<uint32_t>(std::clamp<int64_t>(o.get_int("copy_units", 1), 1, 16));
    const auto memory = static_cast<uint64_t>(std::max<int64_t>(o.get_int("memory", int64_t{64} << 20), 4096));
    for (int64_t i = 0; i < count; ++i)
      result->devices_.push_back(std::make_unique<NullDevice>(compute, copy, memory, host));
    if (host != nullptr && host->log_enabled(plugin::LogLevel::Debug))
      host->log(plugin::LogLevel::Debug, "null", std::to_string(count) + " null device(s)");
    return result.release();
  } catch (const std::exception& e) {
    if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "null device: %s", e.what());
  } catch (...) {
    if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "null device: unknown failure");
  }
  return nullptr;
}

const plugin::OptionSpec kNullOptions[] = {
    {"device_count", plugin::OptionType::Integer, 1, 16, "1", "number of null devices"},
    {"compute_units", plugin::OptionType::Integer, 1, 64, "1", "compute units per device (1 serialises kernels)"},
    {"copy_units", plugin::OptionType::Integer, 1, 16, "1", "copy units per device"},
    {"memory", plugin::OptionType::Bytes, 4096, 64.0 * (1ull << 30), "\"64MiB\"",
     "device memory per device (host memory, allocated on demand)"},
};

}  // namespace

extern const plugin::PluginDescriptor kNullDescriptor;
const plugin::PluginDescriptor kNullDescriptor{
    ARUN_PLUGIN_HEADER,
    plugin::PluginKind::Device,
    "null",
    "0.1.0",
    "test",
    "Null device: the minimal backend (host memory, one thread per unit); tests and template",
    kNullOptions,
    static_cast<uint32_t>(sizeof(kNullOptions) / sizeof(kNullOptions[0])),
    &create_null,
};

}  // namespace arun::null_device

ARUN_DECLARE_PLUGIN(arun::null_device::kNullDescriptor)
