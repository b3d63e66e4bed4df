// DeviceAllocator: the core's side of device-memory allocation for one open device.
//
// It sits between the C API and the allocator policy: it serialises calls into the policy (one
// mutex), is the policy's ChunkSource (the device plugin's raw memory), and records every block the
// program holds — requested size, usable size, where it was allocated — which gives the exact
// `requested` statistic, the leak report at close, and an out-of-memory message that explains the
// failure (request, device free/total, what the policy reserved and handed out, largest free block,
// fragmentation, the policy and its options, and what to try).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arun/core/status.hpp"
#include "arun/plugin/allocator.hpp"

namespace arun {

class DeviceAllocator final : private plugin::ChunkSource {
 public:
  // A block the program holds.
  struct Block {
    plugin::DevAddr addr = 0;
    uint64_t requested = 0;
    uint64_t size = 0;
    const void* site = nullptr;  // return address of the allocating API call, or nullptr
  };

  // Uses the built-in `direct` policy.
  DeviceAllocator(int32_t device_id, plugin::Device* device);
  ~DeviceAllocator();

  Status allocate(uint64_t bytes, plugin::PageKind page, const void* site, plugin::DevAddr* out);
  // `addr` must be the start of a block the program holds; Errc::rt_memory_free otherwise.
  Status free(plugin::DevAddr addr);
  // The program's block that contains [addr, addr + bytes).
  bool find(plugin::DevAddr addr, uint64_t bytes, Block* out) const;

  plugin::AllocatorStats stats() const;
  std::vector<Block> blocks() const;  // every block the program still holds, by address
  const char* policy_name() const;
  std::string policy_options() const;

 private:
  // plugin::ChunkSource
  Status acquire(uint64_t bytes, plugin::PageKind page, plugin::Chunk* out) override;
  void release(const plugin::Chunk& chunk) override;
  plugin::MemoryUsage device_usage() const override;

  std::string oom_message(uint64_t bytes, const Status& why) const;  // with mu_ held

  const int32_t device_id_;
  plugin::Device* const device_;
  mutable std::mutex mu_;
  std::unique_ptr<plugin::AllocatorPolicy> policy_;
  std::map<plugin::DevAddr, Block> blocks_;
  plugin::Gauge requested_;
};

// "12.0 MiB" style sizes for messages and reports.
std::string human_bytes(uint64_t bytes);

}  // namespace arun
