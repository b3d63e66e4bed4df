#include "direct_policy.hpp"

namespace arun {

Status DirectPolicy::allocate(const plugin::AllocRequest& request, plugin::Allocation* out) {
  plugin::Chunk chunk;
  Status st = source_->acquire(request.bytes, request.page, &chunk);
  if (!st.ok()) {
    ++stats_.ooms;
    return st;
  }
  chunks_[chunk.base] = chunk;
  ++stats_.chunk_acquires;
  ++stats_.allocations;
  stats_.allocated.add(chunk.size);
  stats_.active.add(chunk.size);
  stats_.reserved.add(chunk.size);
  out->addr = chunk.base;
  out->size = chunk.size;
  return Status::Ok();
}

void DirectPolicy::deallocate(plugin::DevAddr addr, plugin::StreamId) {
  auto it = chunks_.find(addr);
  if (it == chunks_.end()) return;  // the core only passes addresses it handed out
  const plugin::Chunk chunk = it->second;
  chunks_.erase(it);
  source_->release(chunk);
  ++stats_.chunk_releases;
  ++stats_.frees;
  stats_.allocated.sub(chunk.size);
  stats_.active.sub(chunk.size);
  stats_.reserved.sub(chunk.size);
}

void DirectPolicy::visit(plugin::BlockVisitor visitor, void* context) const {
  for (const auto& [base, chunk] : chunks_) {
    visitor(context, plugin::BlockInfo{base, chunk.size, base, plugin::BlockInfo::State::Live, 0});
  }
}

}  // namespace arun
