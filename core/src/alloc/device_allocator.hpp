// DeviceAllocator: the core's side of device-memory allocation for one open device.
//
// It sits between the C API and the allocator policy: it serialises calls into the policy (one
// mutex), is the policy's ChunkSource (the device plugin's raw memory), and records every block the
// program holds — requested size, usable size, where it was allocated — which gives the exact
// `requested` statistic, the leak report at close, and an out-of-memory message that explains the
// failure (request, device free/total, what the policy reserved and handed out, largest free block,
// fragmentation, the policy and its options, and what to try).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "alloc/alloc_trace.hpp"
#include "arun/core/status.hpp"
#include "arun/plugin/allocator.hpp"

namespace arun {

class Stream;
class VirtualMemory;

// Which allocator policy each device gets: the built-in `direct`, or one from an allocator plugin.
struct AllocatorChoice {
  std::string name = "direct";
  std::string source = "default";                   // "config", "ASCEND_RUN_ALLOC", "default"
  std::string options;                              // as the policy describes them, for reports
  std::shared_ptr<plugin::AllocatorPlugin> plugin;  // null: direct; holds the plugin library
  std::shared_ptr<AllocTrace> trace;                // ASCEND_RUN_ALLOC_TRACE, or null
  bool report_at_close = false;                     // print the allocator report when the device closes
};

class DeviceAllocator final : private plugin::ChunkSource, private plugin::StreamOrder, private plugin::VirtualRanges {
 public:
  // A block the program holds.
  struct Block {
    plugin::DevAddr addr = 0;
    uint64_t requested = 0;
    uint64_t size = 0;
    const void* site = nullptr;  // return address of the allocating API call, or nullptr
    plugin::StreamId stream = 0;
    uint64_t trace_id = 0;        // the block's id in the allocation trace (0: not traced)
    bool used_elsewhere = false;  // arunMemRecordStream named another stream
  };

  // A device's allocator with the chosen policy; fails if the plugin cannot build one. With `vmm`
  // and the device's `physical` memory, policies may grow ranges (plugin::VirtualRanges) there.
  static Status create(int32_t device_id, plugin::Device* device, const AllocatorChoice& choice,
                       std::shared_ptr<DeviceAllocator>* out, VirtualMemory* vmm = nullptr,
                       plugin::PhysicalMemorySource* physical = nullptr);
  DeviceAllocator(int32_t device_id, plugin::Device* device);  // the built-in direct policy
  ~DeviceAllocator();

  // `stream` (a Stream::uid, 0 = none) is the stream the block will be used on (arunMallocAsync).
  Status allocate(uint64_t bytes, plugin::PageKind page, const void* site, plugin::DevAddr* out,
                  plugin::StreamId stream = 0);
  // `addr` must be the start of a block the program holds; Errc::rt_memory_free otherwise.
  // `stream` 0: aclrtFree, ordered after every stream; else only that stream used it (arunFreeAsync).
  Status free(plugin::DevAddr addr, plugin::StreamId stream = 0);
  // The block at `addr` is also used on `stream` (arunMemRecordStream).
  Status record_use(plugin::DevAddr addr, plugin::StreamId stream);
  // The program's block whose requested bytes contain [addr, addr + bytes).
  bool find(plugin::DevAddr addr, uint64_t bytes, Block* out) const;

  // Streams of this device, for stream-ordered reuse.
  void stream_added(const std::shared_ptr<Stream>& stream);
  void stream_retired(uint64_t uid);

  // Cached memory back to the device until at most `keep_bytes` stay reserved; the bytes released.
  uint64_t trim(uint64_t keep_bytes);
  // Every block of the policy (live, cached, pending), as its visit() walks them.
  std::vector<plugin::BlockInfo> snapshot() const;
  plugin::AllocatorStats stats() const;
  std::vector<Block> blocks() const;  // every block the program still holds, by address
  const char* policy_name() const;
  std::string policy_options() const;
  // The statistics as a readable table (arunMemReport, [runtime] memory_report).
  std::string report() const;

 private:
  // plugin::ChunkSource
  Status acquire(uint64_t bytes, plugin::PageKind page, plugin::Chunk* out) override;
  void release(const plugin::Chunk& chunk) override;
  plugin::MemoryUsage device_usage() const override;
  plugin::VirtualRanges* virtual_ranges() override;

  // plugin::VirtualRanges: pool ranges in the runtime's VirtualMemory over the device's physical
  // memory. A range counts as one chunk for find(), so its blocks are found like any.
  uint64_t granularity() const override;
  Status reserve(uint64_t bytes, plugin::DevAddr* base) override;
  Status map(plugin::DevAddr addr, uint64_t bytes, uint64_t* footprint) override;
  void unmap(plugin::DevAddr addr) override;
  void release_range(plugin::DevAddr base) override;

  // plugin::StreamOrder
  uint64_t mark(plugin::StreamId stream) override;
  bool reached(plugin::StreamId stream, uint64_t mark) override;

  std::string oom_message(uint64_t bytes, const Status& why) const;  // with mu_ held

  const int32_t device_id_;
  plugin::Device* const device_;
  VirtualMemory* vmm_ = nullptr;  // both set, or virtual_ranges() is nullptr
  plugin::PhysicalMemorySource* physical_ = nullptr;
  mutable std::mutex mu_;
  std::shared_ptr<plugin::AllocatorPlugin> plugin_;  // declared first: the policy's code lives in its library
  std::unique_ptr<plugin::AllocatorPolicy> policy_;
  std::shared_ptr<AllocTrace> trace_;
  // The program's blocks by start address, and per chunk the starts of the blocks in it: exact
  // lookups (free) are one hash probe, and a containment query (find) is a search among the few
  // chunks and then among one chunk's blocks. A set, not a sorted vector: an expandable range is
  // one chunk holding every block, where a vector's insert moves tens of kilobytes per call.
  std::unordered_map<plugin::DevAddr, Block> blocks_;
  struct ChunkBlocks {
    uint64_t size = 0;
    std::set<plugin::DevAddr> starts;
  };
  std::map<plugin::DevAddr, ChunkBlocks> chunks_;
  ChunkBlocks* chunk_of(plugin::DevAddr addr);
  const ChunkBlocks* chunk_of(plugin::DevAddr addr) const;
  plugin::Gauge requested_;
  // Blocks freed in stream order (arunFreeAsync) whose stream has not reached the free yet: work
  // queued on that stream before the free may still use them, so find() accepts them until then.
  struct Retiring {
    Block block;
    plugin::StreamId stream = 0;  // the stream it was freed on
    uint64_t mark = 0;
  };
  std::multimap<plugin::DevAddr, Retiring> retiring_;
  std::deque<std::multimap<plugin::DevAddr, Retiring>::iterator> retiring_order_;  // oldest first
  void prune_retiring();
  // Stream order state, guarded by mu_.
  std::map<plugin::StreamId, std::weak_ptr<Stream>> streams_;
  struct DeviceMark {
    std::vector<std::pair<std::weak_ptr<Stream>, uint64_t>> positions;
  };
  std::map<uint64_t, DeviceMark> device_marks_;  // mark(0) snapshots not yet reached
  uint64_t next_device_mark_ = 1;
};

// "12.0 MiB" style sizes for messages and reports.
std::string human_bytes(uint64_t bytes);

// The report table of one device's statistics; `live_blocks` are the blocks the program holds.
std::string format_memory_report(int32_t device, const char* policy, const plugin::AllocatorStats& stats,
                                 uint64_t live_blocks);

}  // namespace arun
