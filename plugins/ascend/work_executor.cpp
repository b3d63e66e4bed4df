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

// The per-block context a kernel body sees. It records only the first fault: later ones are
// usually consequences of it.
class BlockContext final : public plugin::KernelContext {
 public:
  BlockContext(const DeviceMemory& memory, uint32_t block_dim, const HostLog& log)
      : memory_(memory), block_dim_(block_dim), log_(log) {}

  uint32_t block_idx() const override { return block_idx_; }
  uint32_t block_dim() const override { return block_dim_; }

  void* map(plugin::DevAddr addr, uint64_t bytes) override {
    void* p = memory_.map(addr, bytes);
    if (p == nullptr) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "AI Core exception: block %u accessed [0x%" PRIx64 ", +%" PRIu64
                    ") outside any live allocation of this device",
                    block_idx_, addr, bytes);
      fault(kAicoreFault, buf);
    }
    return p;
  }

  void fault(int code, const char* message) override {
    if (code == 0) code = kAicoreFault;  // a fault that claims success is still a fault
    if (status_ == 0) {
      status_ = code;
      log_.error(message != nullptr ? message : "kernel fault");
    }
  }

  void set_block(uint32_t idx) { block_idx_ = idx; }
  int status() const { return status_; }

 private:
  const DeviceMemory& memory_;
  uint32_t block_dim_;
  uint32_t block_idx_ = 0;
  int status_ = 0;
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

void* WorkExecutor::resolve(const MemRef& ref, uint64_t bytes) const {
  if (ref.device == nullptr) {
    // A device address labelled as host memory would crash the unit thread on PROT_NONE pages.
    if (memory_.owns(ref.addr)) return nullptr;
    return reinterpret_cast<void*>(static_cast<uintptr_t>(ref.addr));
  }
  if (ref.device == self_) return memory_.map(ref.addr, bytes);
  return ref.device->map(ref.addr, bytes);  // a peer device
}

int WorkExecutor::copy_fault(const char* what, const MemRef& ref, uint64_t bytes) const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "copy data failed: %s [0x%" PRIx64 ", +%" PRIu64 ") %s", what, ref.addr, bytes,
                ref.device == nullptr ? "is device memory passed as a host pointer"
                                      : "is not inside one live allocation");
  log_.error(buf);
  return kCopyFault;
}

int WorkExecutor::copy(const Work& w) const {
  if (w.bytes == 0) return 0;
  void* dst = resolve(w.dst, w.bytes);
  if (dst == nullptr) return copy_fault("destination", w.dst, w.bytes);
  const void* src = resolve(w.src, w.bytes);
  if (src == nullptr) return copy_fault("source", w.src, w.bytes);
  std::memmove(dst, src, w.bytes);  // overlapping device-to-device ranges are allowed
  return 0;
}

int WorkExecutor::copy_2d(const Work& w) const {
  if (w.width == 0 || w.height == 0) return 0;
  uint64_t dst_extent = 0;
  uint64_t src_extent = 0;
  if (!extent_2d(w.width, w.height, w.dpitch, &dst_extent)) return copy_fault("2-D destination", w.dst, UINT64_MAX);
  if (!extent_2d(w.width, w.height, w.spitch, &src_extent)) return copy_fault("2-D source", w.src, UINT64_MAX);
  auto* dst = static_cast<unsigned char*>(resolve(w.dst, dst_extent));
  if (dst == nullptr) return copy_fault("2-D destination", w.dst, dst_extent);
  auto* src = static_cast<const unsigned char*>(resolve(w.src, src_extent));
  if (src == nullptr) return copy_fault("2-D source", w.src, src_extent);
  for (uint64_t row = 0; row < w.height; ++row) std::memmove(dst + row * w.dpitch, src + row * w.spitch, w.width);
  return 0;
}

int WorkExecutor::memset(const Work& w) const {
  if (w.bytes == 0) return 0;
  void* dst = resolve(w.dst, w.bytes);
  if (dst == nullptr) return copy_fault("memset target", w.dst, w.bytes);
  std::memset(dst, w.value & 0xff, w.bytes);
  return 0;
}

int WorkExecutor::kernel(const Work& w) const {
  if (w.kernel == nullptr) {
    log_.error("kernel launch without a kernel function");
    return static_cast<int>(Errc::rt_param_invalid);
  }
  BlockContext ctx(memory_, w.block_dim, log_);
  for (uint32_t b = 0; b < w.block_dim && ctx.status() == 0; ++b) {
    ctx.set_block(b);
    try {
      w.kernel(ctx, w.args);
    } catch (const std::exception& e) {
      ctx.fault(kAicoreFault, (std::string("AI Core exception: kernel threw: ") + e.what()).c_str());
    } catch (...) {
      ctx.fault(kAicoreFault, "AI Core exception: kernel threw an exception");
    }
  }
  return ctx.status();
}

WorkResult WorkExecutor::run(const Work& work) const noexcept {
  WorkResult r;
  r.start_ns = clock_.now_ns();
  try {
    switch (work.kind) {
      case WorkKind::Copy: r.status = copy(work); break;
      case WorkKind::Copy2D: r.status = copy_2d(work); break;
      case WorkKind::Memset: r.status = memset(work); break;
      case WorkKind::Kernel: r.status = kernel(work); break;
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
  return r;
}

}  // namespace arun::ascend
