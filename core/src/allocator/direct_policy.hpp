// DirectPolicy (`direct`): every allocation is its own chunk from the device and every free returns
// it at once. Nothing is cached, so reserved == allocated at all times; it is the baseline the
// caching policies are measured against, and the policy under which the device's own memory checks
// see exactly the blocks the program holds.
#pragma once

#include <map>

#include "arun/plugin/allocator.hpp"

namespace arun {

class DirectPolicy final : public plugin::AllocatorPolicy {
 public:
  explicit DirectPolicy(plugin::ChunkSource* source) : source_(source) {}

  const char* name() const override { return "direct"; }
  std::string describe() const override { return "(no options)"; }
  Status allocate(const plugin::AllocRequest& request, plugin::Allocation* out) override;
  void deallocate(plugin::DevAddr addr, plugin::StreamId stream) override;
  uint64_t trim(uint64_t) override { return 0; }  // holds nothing beyond what is in use
  plugin::AllocatorStats stats() const override { return stats_; }
  void visit(plugin::BlockVisitor visitor, void* context) const override;

 private:
  plugin::ChunkSource* source_;
  std::map<plugin::DevAddr, plugin::Chunk> chunks_;  // live blocks, each a whole chunk
  plugin::AllocatorStats stats_;
};

}  // namespace arun
