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
// Kernels: the calling unit owns the launch and runs blocks; with more than one block it publishes
// the launch on the BlockBoard so idle workers run blocks too, on behalf of free AI cores. The first fault of any block
// ends the launch (blocks not yet started are skipped, as an AI Core exception aborts the kernel) and is its status. A
// stop request (Work::cancel) is honoured between blocks with ACL_ERROR_RT_DEVICE_TASK_ABORT.
#pragma once

#include "arun/plugin/device.hpp"
#include "block_board.hpp"
#include "device_clock.hpp"
#include "device_memory.hpp"
#include "host_log.hpp"

namespace arun::ascend {

class WorkExecutor {
 public:
  WorkExecutor(plugin::Device* self, const DeviceMemory& memory, const DeviceClock& clock, const HostLog& log,
               BlockBoard& board, plugin::HostServices* host)
      : self_(self), memory_(memory), clock_(clock), log_(log), board_(board), host_(host) {}

  // Runs `work` on the calling thread; result.unit is left 0 (the caller fills it in). For a kernel,
  // `*helper_cores` gets the AI cores other than the caller's that ran blocks (bit u = core u). A
  // failure's explanation goes to `*message` (result.message stays null: the caller owns the text).
  plugin::WorkResult run(const plugin::Work& work, uint64_t* helper_cores = nullptr,
                         std::string* message = nullptr) const noexcept;

  // Runs blocks of `launch` until none is left, the launch fails, or leave() says the calling unit
  // has work of its own (checked after each block).
  template <class Leave>
  void run_blocks(BlockBoard::Launch& launch, Leave leave) const {
    uint32_t block = 0;
    while (board_.claim(launch, &block)) {
      if (!run_block(launch, block) || leave()) return;
    }
  }

  // Translates one side of a copy covering `bytes`, or nullptr if it is not valid memory.
  void* resolve(const plugin::MemRef& ref, uint64_t bytes) const;
  // Host view of this device's [addr, addr + bytes): inside one live allocation, and inside a block
  // the program holds (HostServices::memory_live), or nullptr.
  void* map_checked(plugin::DevAddr addr, uint64_t bytes) const;

 private:
  // Each returns 0 or an ACL code, and on failure writes why to *why.
  int copy(const plugin::Work& work, std::string* why) const;
  int copy_2d(const plugin::Work& work, std::string* why) const;
  int memset(const plugin::Work& work, std::string* why) const;
  int kernel(const plugin::Work& work, uint64_t* helper_cores, std::string* why) const;
  bool run_block(BlockBoard::Launch& launch, uint32_t block) const;  // false once the launch failed
  int copy_fault(const char* what, const plugin::MemRef& ref, uint64_t bytes, std::string* why) const;

  plugin::Device* self_;
  const DeviceMemory& memory_;
  const DeviceClock& clock_;
  const HostLog& log_;
  BlockBoard& board_;
  plugin::HostServices* host_;
};

}  // namespace arun::ascend
