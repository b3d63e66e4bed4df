// DirectPolicy (`direct`): every allocation is its own chunk from the device, and every free gives
// it back. Nothing is cached; it is the baseline the caching policies are measured against, and the
// policy under which the device's own memory checks see exactly the blocks the program holds.
//
// A free is stream-ordered all the same: a chunk that work still in flight may use (submitted
// before the free) is handed back only once that work has completed, so the device cannot give
// the same range to a new allocation while a kernel still writes the old one. Such chunks are
// released at the next allocator call after the work is done.
#pragma once

#include <deque>
#include <map>

#include "arun/plugin/allocator.hpp"

namespace arun {

class DirectPolicy final : public plugin::AllocatorPolicy {
 public:
  DirectPolicy(plugin::ChunkSource* source, plugin::StreamOrder* order) : source_(source), order_(order) {}

  const char* name() const override { return "direct"; }
  std::string describe() const override { return "(no options)"; }
  Status allocate(const plugin::AllocRequest& request, plugin::Allocation* out) override;
  void deallocate(plugin::DevAddr addr, plugin::StreamId stream) override;
  void record_use(plugin::DevAddr addr, plugin::StreamId stream) override;
  uint64_t trim(uint64_t) override;  // releases freed chunks whose work has completed
  plugin::AllocatorStats stats() const override { return stats_; }
  void visit(plugin::BlockVisitor visitor, void* context) const override;

 private:
  struct Pending {
    plugin::Chunk chunk;
    plugin::StreamId stream;
    uint64_t mark;
  };
  uint64_t release_reached();
  void release(const plugin::Chunk& chunk);

  plugin::ChunkSource* source_;
  plugin::StreamOrder* order_;
  struct Live {
    plugin::Chunk chunk;
    plugin::StreamId stream = 0;  // allocated for this stream
    bool shared = false;          // used on another stream too: its free waits for every stream
  };
  std::map<plugin::DevAddr, Live> chunks_;  // live blocks, each a whole chunk
  std::deque<Pending> pending_;             // freed, waiting for in-flight work
  plugin::AllocatorStats stats_;
};

}  // namespace arun
