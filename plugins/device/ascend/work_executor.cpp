#include "work_executor.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

namespace arun::ascend {

using plugin::MemRef;
using plugin::Work;
using plugin::WorkKind;
using plugin::WorkResult;

namespace {

constexpr int kCopyFault = static_cast<int>(Errc::rt_copy_data);
constexpr int kAicoreFault = static_cast<int>(Errc::rt_aicore_exception);

constexpr int kTaskAbort = static_cast<int>(Errc::rt_device_task_abort);

// What one block of a kernel sees. Faults go to the launch, where the first one wins: later ones
// are usually consequences of it, so only the first is logged.
class BlockContext final : public plugin::KernelContext {
 public:
  BlockContext(const WorkExecutor& executor, BlockBoard::Launch& launch, uint32_t block, const HostLog& log)
      : executor_(executor), launch_(launch), block_(block), log_(log) {}

  uint32_t block_idx() const override { return block_; }
  uint32_t block_dim() const override { return launch_.block_dim; }

  void* map(plugin::DevAddr addr, uint64_t bytes) override {
    void* p = executor_.map_checked(addr, bytes);
    if (p == nullptr) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "AI Core exception: block %u accessed [0x%" PRIx64 ", +%" PRIu64
                    ") outside any live allocation of this device",
                    block_, addr, bytes);
      fault(kAicoreFault, buf);
    }
    return p;
  }

  void fault(int code, const char* message) override {
    if (code == 0) code = kAicoreFault;  // a fault that claims success is still a fault
    int expected = 0;
    if (launch_.status.compare_exchange_strong(expected, code, std::memory_order_relaxed)) {
      // Only the block that set the status writes the message; the owner reads it after every
      // block has finished (withdraw() synchronises with the helpers).
      const char* text = message != nullptr ? message : "kernel fault";
      log_.error(text);
      launch_.message = "block " + std::to_string(block_) + ": " + text;
    }
  }

 private:
  const WorkExecutor& executor_;
  BlockBoard::Launch& launch_;
  const uint32_t block_;
  const HostLog& log_;
};

// rows * pitch + width without overflow; false if it does not fit in 64 bits.
bool extent_2d(uint64_t width, uint64_t height, uint64_t pitch, uint64_t* out) {
  if (height == 0 || width == 0) {
    *out = 0;
    return true;
  }
  const uint64_t rows = height - 1;
  if (pitch != 0 && rows > (UINT64_MAX - width) / pitch) return false;
  *out = rows * pitch + width;
  return true;
}

}  // namespace

void* WorkExecutor::map_checked(plugin::DevAddr addr, uint64_t bytes) const {
  if (!memory_.owns(addr) && host_ != nullptr) {
    // Mapped virtual ranges (aclrtMapMem): the core answers, checking this device's access.
    if (void* v = host_->vmm_map(self_, addr, bytes)) return v;
    // Mapped host registrations and managed memory: host memory device code uses in place.
    if (host_->host_mapped(addr, bytes)) return reinterpret_cast<void*>(static_cast<uintptr_t>(addr));
  }
  void* p = memory_.map(addr, bytes);
  if (p != nullptr && host_ != nullptr && !host_->memory_live(self_, addr, bytes)) return nullptr;
  return p;
}

void* WorkExecutor::resolve(const MemRef& ref, uint64_t bytes) const {
  if (ref.device == nullptr) {
    // A device address labelled as host memory would crash the unit thread on PROT_NONE pages.
    if (memory_.owns(ref.addr)) return nullptr;
    return reinterpret_cast<void*>(static_cast<uintptr_t>(ref.addr));
  }
  if (ref.device == self_) return map_checked(ref.addr, bytes);
  return ref.device->map(ref.addr, bytes);  // a peer device
}

int WorkExecutor::copy_fault(const char* what, const MemRef& ref, uint64_t bytes, std::string* why) const {
  char buf[200];
  std::snprintf(
      buf, sizeof buf, "copy data failed: %s [0x%" PRIx64 ", +%" PRIu64 ") %s", what, ref.addr, bytes,
      ref.device == nullptr ? "is device memory passed as a host pointer" : "is not inside one live allocation");
  log_.error(buf);
  *why = buf;
  return kCopyFault;
}

int WorkExecutor::copy(const Work& w, std::string* why) const {
  if (w.bytes == 0) return 0;
  void* dst = resolve(w.dst, w.bytes);
  if (dst == nullptr) return copy_fault("destination", w.dst, w.bytes, why);
  const void* src = resolve(w.src, w.bytes);
  if (src == nullptr) return copy_fault("source", w.src, w.bytes, why);
  std::memmove(dst, src, w.bytes);  // overlapping device-to-device ranges are allowed
  return 0;
}

int WorkExecutor::copy_2d(const Work& w, std::string* why) const {
  if (w.width == 0 || w.height == 0) return 0;
  uint64_t dst_extent = 0;
  uint64_t src_extent = 0;
  if (!extent_2d(w.width, w.height, w.dpitch, &dst_extent))
    return copy_fault("2-D destination", w.dst, UINT64_MAX, why);
  if (!extent_2d(w.width, w.height, w.spitch, &src_extent)) return copy_fault("2-D source", w.src, UINT64_MAX, why);
  auto* dst = static_cast<unsigned char*>(resolve(w.dst, dst_extent));
  if (dst == nullptr) return copy_fault("2-D destination", w.dst, dst_extent, why);
  auto* src = static_cast<const unsigned char*>(resolve(w.src, src_extent));
  if (src == nullptr) return copy_fault("2-D source", w.src, src_extent, why);
  for (uint64_t row = 0; row < w.height; ++row) std::memmove(dst + row * w.dpitch, src + row * w.spitch, w.width);
  return 0;
}

int WorkExecutor::memset(const Work& w, std::string* why) const {
  if (w.bytes == 0) return 0;
  void* dst = resolve(w.dst, w.bytes);
  if (dst == nullptr) return copy_fault("memset target", w.dst, w.bytes, why);
  std::memset(dst, w.value & 0xff, w.bytes);
  return 0;
}

bool WorkExecutor::run_block(BlockBoard::Launch& launch, uint32_t block) const {
  const plugin::Work& w = *launch.work;
  BlockContext ctx(*this, launch, block, log_);
  if (w.cancel != nullptr && w.cancel->load(std::memory_order_relaxed)) {
    // A halt on request is not a fault: it is the status, but it is not logged as an error.
    int expected = 0;
    if (launch.status.compare_exchange_strong(expected, kTaskAbort, std::memory_order_relaxed)) {
      log_.debug("kernel stopped on request before block " + std::to_string(block));
    }
    return false;
  }
  try {
    w.kernel(ctx, w.args);
  } catch (const std::exception& e) {
    ctx.fault(kAicoreFault, (std::string("AI Core exception: kernel threw: ") + e.what()).c_str());
  } catch (...) {
    ctx.fault(kAicoreFault, "AI Core exception: kernel threw an exception");
  }
  return launch.status.load(std::memory_order_relaxed) == 0;
}

int WorkExecutor::kernel(const Work& w, uint64_t* helper_cores, std::string* why) const {
  if (w.kernel == nullptr) {
    *why = "kernel launch without a kernel function";
    log_.error(*why);
    return static_cast<int>(Errc::rt_param_invalid);
  }
  if (w.block_dim == 0) return 0;
  BlockBoard::Launch launch;
  launch.work = &w;
  launch.block_dim = w.block_dim;
  launch.max_cores = w.max_compute_units;
  const bool spread = w.block_dim > 1 && w.max_compute_units != 1;
  if (spread) board_.publish(launch);
  run_blocks(launch, [] { return false; });
  // Blocks a helper runs write memory that the completion publishes: withdraw() synchronises with
  // every helper's leave() through the board mutex.
  if (spread) board_.withdraw(launch);
  if (helper_cores != nullptr) *helper_cores = launch.helper_cores.load(std::memory_order_relaxed);
  const int status = launch.status.load(std::memory_order_relaxed);
  if (status != 0 && status != kTaskAbort) *why = std::move(launch.message);
  return status;
}

WorkResult WorkExecutor::run(const Work& work, uint64_t* helper_cores, std::string* message) const noexcept {
  WorkResult r;
  std::string why;
  r.start_ns = clock_.now_ns();
  try {
    switch (work.kind) {
      case WorkKind::Copy:
        r.status = copy(work, &why);
        break;
      case WorkKind::Copy2D:
        r.status = copy_2d(work, &why);
        break;
      case WorkKind::Memset:
        r.status = memset(work, &why);
        break;
      case WorkKind::Kernel:
        r.status = kernel(work, helper_cores, &why);
        break;
      default:
        log_.error("unknown work kind " + std::to_string(static_cast<uint32_t>(work.kind)));
        r.status = static_cast<int>(Errc::rt_param_invalid);
    }
  } catch (...) {
    // Only the log sink or a peer's map() could throw here; neither may take the unit down.
    r.status = static_cast<int>(Errc::rt_internal_error);
  }
  r.end_ns = clock_.now_ns();
  if (r.end_ns < r.start_ns) r.end_ns = r.start_ns;
  if (message != nullptr && r.status != 0) {
    try {
      *message = std::move(why);
    } catch (...) {
    }
  }
  return r;
}

}  // namespace arun::ascend
