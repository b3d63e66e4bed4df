// The device-plugin interface: what a backend owns (memory, execution units, a clock) and how the
// core drives it. The core owns streams, events, dependencies and the choice of what runs next;
// a device only executes the work the core hands to one of its units and reports completion.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "arun/core/status.hpp"
#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::plugin {

class Device;

// A device address as the user sees it. It is never dereferenceable on the host: the device
// translates it with map() when a copy engine or a kernel touches the memory.
using DevAddr = uint64_t;

enum class UnitKind : uint32_t { Compute = 0, Copy = 1 };
inline constexpr uint32_t kUnitKindCount = 2;

// Page class asked for by aclrtMalloc's policy (the device may round sizes to the page size).
enum class PageKind : uint32_t { Normal = 0, Huge = 1, Huge1G = 2 };

struct DeviceProperties {
  std::string soc_name;        // e.g. "Ascend910B3"
  uint64_t memory_bytes = 0;   // total device memory the user can allocate
  uint32_t compute_units = 0;  // AI cores
  uint32_t vector_units = 0;   // vector cores (reported, not separately scheduled)
  uint32_t copy_units = 0;     // copy (DMA) engines
  uint64_t l2_bytes = 0;
  uint32_t page_bytes = 4096;  // normal page size
  uint32_t huge_page_bytes = 2u << 20;
};

struct MemoryUsage {
  uint64_t total = 0;
  uint64_t free = 0;          // total minus what live allocations occupy (after rounding)
  uint64_t largest_free = 0;  // largest contiguous free range
  uint64_t allocations = 0;
};

// One side of a copy or the target of a memset: a host pointer (device == nullptr) or an address
// in some device's address space (that device may be a peer of the one executing the work).
struct MemRef {
  uint64_t addr = 0;
  Device* device = nullptr;
};

// Execution context a kernel body receives, one per block.
class KernelContext {
 public:
  virtual uint32_t block_idx() const = 0;
  virtual uint32_t block_dim() const = 0;
  // Host view of [addr, addr+bytes) of device memory; nullptr (and the launch is marked faulted
  // with ACL_ERROR_RT_AICORE_EXCEPTION) if the range is not inside one live allocation.
  virtual void* map(DevAddr addr, uint64_t bytes) = 0;
  // Reports a fault with an ACL code (e.g. 507015); the launch fails with that code.
  virtual void fault(int code, const char* message) = 0;

 protected:
  ~KernelContext() = default;
};

using KernelFn = void (*)(KernelContext& ctx, void* args);

enum class WorkKind : uint32_t {
  Copy,    // bytes from src to dst
  Copy2D,  // height rows of width bytes, row starts spitch / dpitch apart
  Memset,  // bytes at dst set to (value & 0xff)
  Kernel,  // fn(ctx, args) for block 0 .. block_dim-1
};

struct Work;

struct WorkResult {
  int status = 0;         // 0 or an ACL code (507015, 507052, ...)
  uint64_t start_ns = 0;  // device clock
  uint64_t end_ns = 0;
  uint32_t unit = 0;
  // Minor 10: for a failure, what went wrong (the kernel's fault message, the copy's bad range);
  // owned by the device and valid during the completion call. nullptr: nothing to add.
  const char* message = nullptr;
};

// Called by the device on its unit thread when work finishes; the core may call launch() again
// from inside it (for the same or another unit).
using CompletionFn = void (*)(Work* work, const WorkResult& result);

struct Work {
  WorkKind kind = WorkKind::Copy;
  MemRef dst;
  MemRef src;
  uint64_t bytes = 0;  // Copy, Memset
  uint64_t width = 0;  // Copy2D
  uint64_t height = 0;
  uint64_t dpitch = 0;
  uint64_t spitch = 0;
  int32_t value = 0;  // Memset
  KernelFn kernel = nullptr;
  void* args = nullptr;
  uint32_t block_dim = 1;
  CompletionFn on_complete = nullptr;
  // Set by the core to ask for the work to stop early (aclrtStreamStop / aclrtStreamAbort). A device
  // polls it where stopping is safe (between kernel blocks, between copy chunks) and completes the
  // work with ACL_ERROR_RT_DEVICE_TASK_ABORT; it may also ignore it and run to the end.
  const std::atomic<bool>* cancel = nullptr;
  // Kernel: the most compute units that may run this launch's blocks at once, the unit it was
  // given included (aclrtSetDeviceResLimit / aclrtSetStreamResLimit); 0 = no limit. Plugin ABI
  // minor 5: devices built against an older minor never read it.
  uint32_t max_compute_units = 0;
  // Kernel, written by the device before on_complete (ABI minor 9): the compute units other than
  // the one it was given that ran some of its blocks (bit u = unit u, u < 64), which the profiler
  // shows on their tracks too. Devices built against an older minor leave it 0.
  uint64_t helper_units = 0;
};

// Physical device memory for virtual memory management (ABI minor 6, optional). The core owns
// the virtual ranges and maps physical memory into them; a device that supports it provides the
// physical memory as a shareable object (a memfd), so that mapping one allocation twice aliases
// and another process can map it too.
class PhysicalMemorySource {
 public:
  // Takes `bytes` (a non-zero multiple of the host page size) of the device's memory and returns a
  // file descriptor of an object of that size backing it (the caller owns the descriptor) and an
  // id for release. Errc::rt_memory_allocation when the memory does not fit.
  virtual Status create_physical(uint64_t bytes, PageKind page, int* fd, uint64_t* id) = 0;
  // Gives the memory of `id` back to the device (after the last user of the object is gone).
  virtual void release_physical(uint64_t id) = 0;
  // Shares device memory with another process (aclrtIpcMemGetExportKey): a descriptor of an
  // object holding [addr, addr + bytes) of one live allocation at `*offset` (the caller owns the
  // descriptor). Errc::rt_param_invalid when the range is not inside one live allocation;
  // Errc::rt_feature_not_support when the device's memory cannot be shared.
  virtual Status export_range(DevAddr addr, uint64_t bytes, int* fd, uint64_t* offset) = 0;

 protected:
  ~PhysicalMemorySource() = default;
};

class Device {
 public:
  virtual ~Device() = default;

  virtual const DeviceProperties& properties() const = 0;

  // Brings the device up (unit threads, clock) on first use; close() stops it. Memory survives
  // neither: close() releases every allocation.
  virtual Status open() = 0;
  virtual void close() = 0;

  // Device memory. allocate() fails with Errc::rt_memory_allocation when the request does not fit.
  virtual Status allocate(uint64_t bytes, PageKind page, DevAddr* out) = 0;
  virtual Status release(DevAddr addr) = 0;
  virtual MemoryUsage memory_usage() const = 0;
  // True if addr lies in this device's address space (live or not).
  virtual bool owns(DevAddr addr) const = 0;
  // The live allocation containing addr: its base and usable size. False if none.
  virtual bool find_allocation(DevAddr addr, DevAddr* base, uint64_t* size) const = 0;
  // Host view of a range inside one live allocation, or nullptr.
  virtual void* map(DevAddr addr, uint64_t bytes) = 0;

  // Device clock in nanoseconds since the device booted (opened).
  virtual uint64_t now_ns() const = 0;

  // Execution units. launch() returns at once; the unit runs the work and calls
  // work->on_complete. A unit runs one work item at a time; the core never launches onto a busy unit.
  virtual uint32_t unit_count(UnitKind kind) const = 0;
  virtual void launch(UnitKind kind, uint32_t unit, Work* work) = 0;

  // Runs the work on the calling thread (synchronous aclrtMemcpy / aclrtMemset, and the core's
  // direct submission of tiny copies and memsets to an idle stream, which may poll Work::cancel as
  // a unit does). Returns the status the work would have completed with; WorkResult::message is
  // not set (it would need per-thread storage in the plugin).
  virtual WorkResult execute_now(Work* work) = 0;

  // ABI minor 6: the device's physical memory for virtual memory management, or nullptr when it
  // has none (aclrtMallocPhysical then answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT). Appended last so
  // that devices built against an older minor keep their layout; the core never calls it on them.
  virtual PhysicalMemorySource* physical_memory() { return nullptr; }
};

// What a device plugin's factory returns: a set of devices of one backend.
class DevicePlugin : public PluginObject {
 public:
  virtual uint32_t device_count() const = 0;
  virtual Device* device(uint32_t index) = 0;
};

}  // namespace arun::plugin
