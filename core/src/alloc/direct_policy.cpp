#include "alloc/direct_policy.hpp"

namespace arun {

Status DirectPolicy::allocate(const plugin::AllocRequest& request, plugin::Allocation* out) {
  if (!pending_.empty()) release_reached();
  plugin::Chunk chunk;
  Status st = source_->acquire(request.bytes, request.page, &chunk);
  if (!st.ok()) {
    ++stats_.ooms;
    return st;
  }
  chunks_[chunk.base] = Live{chunk, request.stream, false};
  ++stats_.chunk_acquires;
  ++stats_.allocations;
  stats_.allocated.add(chunk.size);
  stats_.active.add(chunk.size);
  stats_.reserved.add(chunk.footprint);
  out->addr = chunk.base;
  out->size = chunk.size;
  return Status::Ok();
}

void DirectPolicy::deallocate(plugin::DevAddr addr, plugin::StreamId stream) {
  auto it = chunks_.find(addr);
  if (it == chunks_.end()) return;  // the core only passes addresses it handed out
  const plugin::Chunk chunk = it->second.chunk;
  if (it->second.shared) stream = 0;
  chunks_.erase(it);
  ++stats_.frees;
  stats_.allocated.sub(chunk.size);
  const uint64_t mark = order_->mark(stream);
  if (order_->reached(stream, mark)) {
    release(chunk);
  } else {
    pending_.push_back({chunk, stream, mark});  // still "active": work in flight may use it
  }
  stats_.pending_frees = pending_.size();
  if (!pending_.empty()) release_reached();
}

void DirectPolicy::record_use(plugin::DevAddr addr, plugin::StreamId stream) {
  auto it = chunks_.find(addr);
  if (it != chunks_.end() && stream != it->second.stream) it->second.shared = true;
}

void DirectPolicy::release(const plugin::Chunk& chunk) {
  source_->release(chunk);
  ++stats_.chunk_releases;
  stats_.active.sub(chunk.size);
  stats_.reserved.sub(chunk.footprint);
}

uint64_t DirectPolicy::release_reached() {
  uint64_t released = 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (order_->reached(it->stream, it->mark)) {
      released += it->chunk.footprint;
      release(it->chunk);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  stats_.pending_frees = pending_.size();
  return released;
}

uint64_t DirectPolicy::trim(uint64_t) {
  return release_reached();
}

void DirectPolicy::visit(plugin::BlockVisitor visitor, void* context) const {
  for (const auto& [base, live] : chunks_) {
    visitor(context, plugin::BlockInfo{base, live.chunk.size, base, plugin::BlockInfo::State::Live, live.stream});
  }
  for (const Pending& p : pending_) {
    visitor(context,
            plugin::BlockInfo{p.chunk.base, p.chunk.size, p.chunk.base, plugin::BlockInfo::State::Pending, p.stream});
  }
}

}  // namespace arun
