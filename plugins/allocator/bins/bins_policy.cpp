#include "bins_policy.hpp"

#include <algorithm>
#include <cstdio>

#include "arun/plugin/size_text.hpp"

namespace arun::bins {

using plugin::DevAddr;
using plugin::StreamId;

namespace {

constexpr uint64_t kMinClass = 512;


}  // namespace

bool BinsOptions::validate(std::string* why) const {
  if (max_bin < kMinClass) return *why = "max_bin must be at least 512", false;
  if (slab < kMinClass) return *why = "slab must be at least 512", false;
  return true;
}

std::string BinsOptions::describe() const {
  return "max_bin = " + plugin::size_text(max_bin) + ", slab = " + plugin::size_text(slab) +
         ", release_threshold = " + plugin::size_text(release_threshold);
}

uint64_t BinsPolicy::class_size(uint64_t bytes, uint64_t max_bin) {
  if (bytes > max_bin) return 0;
  if (bytes <= kMinClass) return kMinClass;
  // Four classes per power of two: p, 1.25p, 1.5p, 1.75p, then 2p.
  uint64_t p = kMinClass;
  while (p * 2 < bytes) p *= 2;
  const uint64_t step = p / 4;
  const uint64_t size = (bytes + step - 1) / step * step;
  return size > max_bin ? max_bin : size;
}

BinsPolicy::BinsPolicy(plugin::ChunkSource* source, plugin::StreamOrder* order, const BinsOptions& options)
    : source_(source), order_(order), options_(options) {}

BinsPolicy::~BinsPolicy() {
  for (auto& [base, slab] : slabs_) source_->release(slab.chunk);
  for (auto& [addr, live] : live_)
    if (live.slab == nullptr) source_->release(live.chunk);
  for (auto& p : pending_)
    if (p.live.slab == nullptr) source_->release(p.live.chunk);
}

Status BinsPolicy::new_slab(uint64_t block, plugin::PageKind page) {
  const uint64_t bytes = std::max(options_.slab, block * 8) / block * block;
  plugin::Chunk c;
  Status st = source_->acquire(bytes, page, &c);
  if (!st.ok() && release_empty_slabs(0) > 0) st = source_->acquire(bytes, page, &c);
  if (!st.ok()) return st;
  Slab& s = slabs_[c.base];
  s.chunk = c;
  s.block = block;
  auto& list = free_[block];
  // Handed out from the low end first (the list is used as a stack).
  for (uint64_t off = (c.size / block) * block; off >= block; off -= block) list.push_back(c.base + off - block);
  stats_.cached_free += (c.size / block) * block;
  ++stats_.chunk_acquires;
  stats_.reserved.add(c.footprint);
  return Status::Ok();
}

Status BinsPolicy::allocate(const plugin::AllocRequest& request, plugin::Allocation* out) {
  if (request.alignment > kMinClass) {
    return Status(Errc::invalid_param, "alignment " + std::to_string(request.alignment) + " is above 512");
  }
  if (!pending_.empty()) process_pending();
  const uint64_t block = class_size(request.bytes, options_.max_bin);
  Live live;
  DevAddr addr = 0;
  if (block == 0) {
    // Large: a chunk of its own.
    Status st = source_->acquire(request.bytes, request.page, &live.chunk);
    if (!st.ok() && release_empty_slabs(0) > 0) st = source_->acquire(request.bytes, request.page, &live.chunk);
    if (!st.ok()) {
      ++stats_.ooms;
      return st;
    }
    ++stats_.chunk_acquires;
    stats_.reserved.add(live.chunk.footprint);
    live.size = live.chunk.size;
    addr = live.chunk.base;
  } else {
    auto& list = free_[block];
    if (list.empty()) {
      Status st = new_slab(block, plugin::PageKind::Normal);
      if (!st.ok()) {
        ++stats_.ooms;
        return st;
      }
    } else {
      ++stats_.cache_hits;
    }
    addr = list.back();
    list.pop_back();
    stats_.cached_free -= block;
    auto it = std::prev(slabs_.upper_bound(addr));
    live.slab = &it->second;
    ++live.slab->used;
    live.size = block;
  }
  live_[addr] = live;
  ++stats_.allocations;
  stats_.allocated.add(live.size);
  stats_.active.add(live.size);
  out->addr = addr;
  out->size = live.size;
  return Status::Ok();
}

void BinsPolicy::release_block(DevAddr addr, const Live& live) {
  stats_.active.sub(live.size);
  if (live.slab == nullptr) {
    source_->release(live.chunk);
    ++stats_.chunk_releases;
    stats_.reserved.sub(live.chunk.footprint);
    return;
  }
  --live.slab->used;
  free_[live.slab->block].push_back(addr);
  stats_.cached_free += live.size;
}

void BinsPolicy::deallocate(DevAddr addr, StreamId stream) {
  auto it = live_.find(addr);
  if (it == live_.end()) return;  // the core passes only addresses it handed out
  const Live live = it->second;
  live_.erase(it);
  ++stats_.frees;
  stats_.allocated.sub(live.size);
  const StreamId order_stream = live.other_streams ? 0 : stream;
  const uint64_t mark = order_->mark(order_stream);
  if (order_->reached(order_stream, mark)) {
    release_block(addr, live);
  } else {
    pending_.push_back({addr, live, order_stream, mark});
  }
  stats_.pending_frees = pending_.size();
  if (options_.release_threshold != 0 && stats_.cached_free > options_.release_threshold) {
    release_empty_slabs(options_.release_threshold);
  }
}

void BinsPolicy::record_use(DevAddr addr, StreamId) {
  auto it = live_.find(addr);
  if (it != live_.end()) it->second.other_streams = true;
}

void BinsPolicy::process_pending() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (order_->reached(it->stream, it->mark)) {
      release_block(it->addr, it->live);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  stats_.pending_frees = pending_.size();
}

uint64_t BinsPolicy::release_empty_slabs(uint64_t keep_bytes) {
  uint64_t released = 0;
  for (auto it = slabs_.begin(); it != slabs_.end() && stats_.cached_free > keep_bytes;) {
    Slab& s = it->second;
    if (s.used != 0) {
      ++it;
      continue;
    }
    auto& list = free_[s.block];
    const DevAddr lo = s.chunk.base, hi = s.chunk.base + s.chunk.size;
    list.erase(std::remove_if(list.begin(), list.end(), [&](DevAddr a) { return a >= lo && a < hi; }), list.end());
    stats_.cached_free -= (s.chunk.size / s.block) * s.block;
    stats_.reserved.sub(s.chunk.footprint);
    ++stats_.chunk_releases;
    released += s.chunk.footprint;
    source_->release(s.chunk);
    it = slabs_.erase(it);
  }
  return released;
}

uint64_t BinsPolicy::trim(uint64_t keep_bytes) {
  if (!pending_.empty()) process_pending();
  (void)keep_bytes;  // bins keep nothing but whole free slabs: all of them go
  return release_empty_slabs(0);
}

plugin::AllocatorStats BinsPolicy::stats() const {
  plugin::AllocatorStats s = stats_;
  s.largest_free = 0;
  for (const auto& [block, list] : free_)
    if (!list.empty()) s.largest_free = block;
  return s;
}

void BinsPolicy::visit(plugin::BlockVisitor visitor, void* context) const {
  for (const auto& [addr, live] : live_) {
    const DevAddr chunk = live.slab != nullptr ? live.slab->chunk.base : live.chunk.base;
    visitor(context, plugin::BlockInfo{addr, live.size, chunk, plugin::BlockInfo::State::Live, 0});
  }
  for (const auto& [block, list] : free_) {
    for (DevAddr a : list) {
      auto it = std::prev(slabs_.upper_bound(a));
      visitor(context, plugin::BlockInfo{a, block, it->first, plugin::BlockInfo::State::Free, 0});
    }
  }
  for (const auto& p : pending_) {
    const DevAddr chunk = p.live.slab != nullptr ? p.live.slab->chunk.base : p.live.chunk.base;
    visitor(context, plugin::BlockInfo{p.addr, p.live.size, chunk, plugin::BlockInfo::State::Pending, p.stream});
  }
}

}  // namespace arun::bins
