// WorkExecutor: what a unit does with one Work item — copies, 2-D copies, memsets and kernels —
// shared by the unit threads and by execute_now().
//
// Every device-side range is translated before any byte moves: a MemRef with a device goes
// through that device's map() (this device's memory directly, a peer's through its Device
// interface), a host MemRef is used as is. A range that is not inside one live allocation is a
// fault, reported as a status, never touched: copies and memsets fail with
// ACL_ERROR_RT_COPY_DATA (507052); a kernel's map() returns nullptr and the launch fails with
// ACL_ERROR_RT_AICORE_EXCEPTION (507015). A "host" pointer that actually lies in this device's
// address space is treated as a fault as well rather than letting the unit thread crash on it.
//
// Kernels run their blocks one after another on the calling thread; the first fault aborts the
// remaining blocks (as an AI Core exception aborts the kernel) and is the launch's status.
#pragma once

#include "arun/plugin/device.hpp"
#include "device_clock.hpp"
#include "device_memory.hpp"
#include "host_log.hpp"

namespace arun::ascend {

class WorkExecutor {
 public:
  WorkExecutor(plugin::Device* self, const DeviceMemory& memory, const DeviceClock& clock, const HostLog& log)
      : self_(self), memory_(memory), clock_(clock), log_(log) {}

  // Runs `work` on the calling thread; result.unit is left 0 (the caller fills it in).
  plugin::WorkResult run(const plugin::Work& work) const noexcept;

  // Translates one side of a copy covering `bytes`, or nullptr if it is not valid memory.
  void* resolve(const plugin::MemRef& ref, uint64_t bytes) const;

 private:
  int copy(const plugin::Work& work) const;
  int copy_2d(const plugin::Work& work) const;
  int memset(const plugin::Work& work) const;
  int kernel(const plugin::Work& work) const;
  int copy_fault(const char* what, const plugin::MemRef& ref, uint64_t bytes) const;

  plugin::Device* self_;
  const DeviceMemory& memory_;
  const DeviceClock& clock_;
  const HostLog& log_;
};

}  // namespace arun::ascend
