// BinsPolicy (`bins`): size-class bins over slabs, the structural opposite of the caching policy.
//
// Requests up to `max_bin` are rounded up to one of four size classes per power of two (512 B,
// 640 B, 768 B, 896 B, 1 KiB, 1.25 KiB, ...), so a block wastes at most 25% of itself. Each class
// takes slabs of `slab` bytes (or 8 blocks, if its blocks are larger) from the device and cuts them
// into equal blocks kept on a free list: allocation and free are O(1), nothing is ever split or
// merged, and blocks of one class never fragment another's. Larger requests get a device chunk of
// their own, as under `direct`. A slab whose blocks are all free goes back to the device on trim(),
// or at once when the cached free memory exceeds `release_threshold`.
//
// Pick it for many small allocations of few distinct sizes; pick `caching` for large or
// widely varying sizes, where fixed classes waste more and slabs cannot be reused across classes.
//
// Stream order as for the other policies: a block freed while work that may use it is still in
// flight (aclrtFree: on any stream; arunFreeAsync: on its stream) waits on a pending list until the
// stream order says that work is done.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "arun/plugin/allocator.hpp"

namespace arun::bins {

struct BinsOptions {
  uint64_t max_bin = 4ull << 20;   // largest size served from bins
  uint64_t slab = 2ull << 20;      // bytes a class takes from the device at a time
  uint64_t release_threshold = 0;  // 0: keep empty slabs until trim()
  bool validate(std::string* why) const;
  std::string describe() const;
};

class BinsPolicy final : public plugin::AllocatorPolicy {
 public:
  BinsPolicy(plugin::ChunkSource* source, plugin::StreamOrder* order, const BinsOptions& options);
  ~BinsPolicy() override;

  const char* name() const override { return "bins"; }
  std::string describe() const override { return options_.describe(); }
  Status allocate(const plugin::AllocRequest& request, plugin::Allocation* out) override;
  void deallocate(plugin::DevAddr addr, plugin::StreamId stream) override;
  void record_use(plugin::DevAddr addr, plugin::StreamId stream) override;
  uint64_t trim(uint64_t keep_bytes) override;
  plugin::AllocatorStats stats() const override;
  void visit(plugin::BlockVisitor visitor, void* context) const override;

  // The size class a request of `bytes` is served from (its block size); 0 if above max_bin.
  static uint64_t class_size(uint64_t bytes, uint64_t max_bin);

 private:
  struct Slab {
    plugin::Chunk chunk;
    uint64_t block = 0;   // block size of its class
    uint32_t used = 0;    // blocks handed out or pending
  };
  struct Live {
    Slab* slab = nullptr;  // null: a large block with its own chunk
    plugin::Chunk chunk;   // large blocks only
    uint64_t size = 0;
    bool other_streams = false;  // record_use named a stream other than the one it is freed on
  };
  struct Pending {
    plugin::DevAddr addr;
    Live live;
    plugin::StreamId stream;
    uint64_t mark;
  };

  Status new_slab(uint64_t block, plugin::PageKind page);
  void release_block(plugin::DevAddr addr, const Live& live);  // back to its free list or device
  void process_pending();
  uint64_t release_empty_slabs(uint64_t keep_bytes);

  plugin::ChunkSource* source_;
  plugin::StreamOrder* order_;
  const BinsOptions options_;
  std::map<uint64_t, std::vector<plugin::DevAddr>> free_;  // class size -> free blocks
  std::map<plugin::DevAddr, Slab> slabs_;                  // by chunk base
  std::unordered_map<plugin::DevAddr, Live> live_;
  std::deque<Pending> pending_;
  plugin::AllocatorStats stats_;
};

}  // namespace arun::bins
