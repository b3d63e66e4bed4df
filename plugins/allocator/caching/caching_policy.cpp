#include "caching_policy.hpp"

#include <algorithm>
#include <cstdio>

#include "arun/plugin/size_text.hpp"

namespace arun::caching {

using plugin::DevAddr;
using plugin::StreamId;

namespace {

uint64_t round_up(uint64_t v, uint64_t to) {
  return to == 0 ? v : (v + to - 1) / to * to;
}
bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

bool CachingOptions::validate(std::string* why) const {
  if (!is_pow2(round)) return *why = "round must be a power of two", false;
  if (small_size % round != 0) return *why = "small_size must be a multiple of round", false;
  if (small_chunk < small_size) return *why = "small_chunk must be at least small_size", false;
  if (large_chunk <= small_size) return *why = "large_chunk must be larger than small_size", false;
  if (large_round % round != 0) return *why = "large_round must be a multiple of round", false;
  if (max_split != 0 && max_split < large_chunk) {
    return *why = "max_split must be 0 (no limit) or at least large_chunk (" + plugin::size_text(large_chunk) + ")",
           false;
  }
  if (gc_threshold > 0 && memory_limit == 0) {
    return *why = "gc_threshold needs memory_limit: the threshold is a fraction of it", false;
  }
  return true;
}

std::string CachingOptions::describe() const {
  char gc[32];
  std::snprintf(gc, sizeof gc, "%g", gc_threshold);
  return "round = " + plugin::size_text(round) + ", small_size = " + plugin::size_text(small_size) +
         ", small_chunk = " + plugin::size_text(small_chunk) + ", large_chunk = " + plugin::size_text(large_chunk) +
         ", large_round = " + plugin::size_text(large_round) + ", max_split = " + plugin::size_text(max_split) +
         ", release_threshold = " + plugin::size_text(release_threshold) + ", gc_threshold = " + gc +
         ", memory_limit = " + plugin::size_text(memory_limit) +
         ", reclaim_on_miss = " + (reclaim_on_miss ? "true" : "false") +
         ", expandable_segments = " + (expandable_segments ? "true" : "false");
}

bool CachingPolicy::BySize::operator()(const Block& a, const Block& b) const {
  if (a.stream != b.stream) return a.stream < b.stream;
  if (a.size != b.size) return a.size < b.size;
  return a.addr < b.addr;
}

CachingPolicy::CachingPolicy(plugin::ChunkSource* source, plugin::StreamOrder* order, const CachingOptions& options)
    : source_(source), order_(order), options_(options) {
  if (options_.expandable_segments) ranges_ = source_->virtual_ranges();
  if (ranges_ != nullptr) {
    const uint64_t g = std::max<uint64_t>(ranges_->granularity(), 1);
    step_ = round_up(std::max(options_.large_round, g), g);
  }
}

CachingPolicy::~CachingPolicy() {
  // The free sets link the blocks: unlink them before the blocks go.
  for (FreeSet* set : {&small_free_, &large_free_, &huge_free_}) set->clear();
  // The device takes back everything it gave; only our bookkeeping goes here.
  for (auto& [base, seg] : segments_) {
    for (Block* b = seg->first; b != nullptr;) {
      Block* next = b->next;
      delete b;
      b = next;
    }
    if (seg->expandable) {
      ranges_->release_range(base);
    } else {
      source_->release(seg->chunk);
    }
  }
}

uint64_t CachingPolicy::rounded(uint64_t bytes) const {
  return round_up(std::max<uint64_t>(bytes, 1), options_.round);
}

CachingPolicy::Block* CachingPolicy::find_in(FreeSet& set, uint64_t size, StreamId stream) {
  Block key;
  key.stream = stream;
  key.size = size;
  key.addr = 0;
  for (auto it = set.lower_bound(key); it != set.end() && it->stream == stream; ++it) {
    Block* b = &*it;
    if (options_.max_split != 0 && b->size > options_.max_split) {
      // An oversize block is never split: it fits only a request that wastes little of it.
      if (size < options_.max_split || b->size - size > options_.large_round) continue;
    }
    return b;
  }
  return nullptr;
}

CachingPolicy::Block* CachingPolicy::find_free(uint64_t size, Pool pool, StreamId stream) {
  FreeSet& set = free_set(pool);
  if (Block* b = find_in(set, size, stream)) return b;
  if (stream != 0) return find_in(set, size, 0);
  return nullptr;
}

bool CachingPolicy::would_exceed_limit(uint64_t more) const {
  const uint64_t limit = options_.memory_limit;  // compared with footprints; `more` is a request size
  return limit != 0 && stats_.reserved.current + more > limit;
}

bool CachingPolicy::reusable_by_all(const Block* b) const {
  return !b->allocated && !b->pending && (b->stream == 0 || order_->reached(b->stream, b->mark));
}

template <class Enough>
uint64_t CachingPolicy::release_free_segments(Enough enough, bool large_only, bool shrink_range) {
  uint64_t released = 0;
  if (shrink_range && expandable()) released += shrink_expandable(enough);
  // Candidates: segments that are one free block no stream's work can still be using.
  std::vector<Segment*> whole;
  for (auto& [base, seg] : segments_) {
    if (seg->expandable) continue;
    Block* b = seg->first;
    if (b->next == nullptr && reusable_by_all(b) && !(large_only && seg->pool == Pool::Small)) {
      whole.push_back(seg.get());
    }
  }
  std::sort(whole.begin(), whole.end(),
            [](const Segment* a, const Segment* b) { return a->chunk.size > b->chunk.size; });
  for (Segment* seg : whole) {
    if (enough()) break;
    released += seg->chunk.footprint;  // what the reserve drops by
    release_segment(seg);
  }
  return released;
}

void CachingPolicy::release_segment(Segment* seg) {
  Block* b = seg->first;
  remove_free(b);
  stats_.reserved.sub(seg->chunk.footprint);
  ++stats_.chunk_releases;
  source_->release(seg->chunk);
  delete b;
  segments_.erase(seg->chunk.base);
}

CachingPolicy::Block* CachingPolicy::split_off(Block* b, uint64_t keep) {
  auto* r = new Block();
  r->addr = b->addr + keep;
  r->size = b->size - keep;
  r->segment = b->segment;
  r->stream = b->stream;
  r->mark = b->mark;
  r->mapped = b->mapped;
  r->prev = b;
  r->next = b->next;
  if (b->next != nullptr) b->next->prev = r;
  b->next = r;
  b->size = keep;
  return r;
}

void CachingPolicy::insert_unmapped(Expandable& x, Block* b) {
  if (Block* n = b->next; n != nullptr && !n->mapped) {
    x.unmapped.erase(n->addr);
    b->size += n->size;
    b->next = n->next;
    if (n->next != nullptr) n->next->prev = b;
    delete n;
  }
  if (Block* p = b->prev; p != nullptr && !p->mapped) {
    x.unmapped.erase(p->addr);
    p->size += b->size;
    p->next = b->next;
    if (b->next != nullptr) b->next->prev = p;
    delete b;
    b = p;
  }
  x.unmapped[b->addr] = b;
}

Status CachingPolicy::map_pages(Expandable& x, Block* u, uint64_t bytes) {
  // One mapping per page, so that any page can be unmapped again on its own.
  uint64_t footprint = 0;
  for (uint64_t off = 0; off < bytes; off += step_) {
    uint64_t fp = 0;
    Status st = ranges_->map(u->addr + off, step_, &fp);
    if (!st.ok()) {
      for (uint64_t undo = 0; undo < off; undo += step_) {
        ranges_->unmap(u->addr + undo);
        page_footprint_.erase(u->addr + undo);
      }
      return st;
    }
    page_footprint_[u->addr + off] = fp;
    footprint += fp;
  }
  x.unmapped.erase(u->addr);
  if (bytes < u->size) {
    Block* rest = split_off(u, bytes);  // still unmapped
    x.unmapped[rest->addr] = rest;
  }
  u->mapped = true;
  u->stream = 0;
  u->mark = 0;
  x.segment->chunk.size += bytes;
  x.segment->chunk.footprint += footprint;
  stats_.reserved.add(footprint);
  ++stats_.chunk_acquires;
  return Status::Ok();
}

uint64_t CachingPolicy::unmap_pages(Expandable& x, Block* b) {
  const plugin::DevAddr base = x.segment->chunk.base;
  const plugin::DevAddr lo = base + round_up(b->addr - base, step_);
  const plugin::DevAddr hi = base + (b->addr + b->size - base) / step_ * step_;
  if (hi <= lo) return 0;  // no whole page inside
  remove_free(b);
  Block* mid = lo > b->addr ? split_off(b, lo - b->addr) : b;
  Block* tail = hi < mid->addr + mid->size ? split_off(mid, hi - mid->addr) : nullptr;
  mid->mapped = false;  // before the edges go back: they must not merge with it
  mid->stream = 0;
  mid->mark = 0;
  uint64_t footprint = 0;
  for (plugin::DevAddr p = lo; p < hi; p += step_) {
    ranges_->unmap(p);
    auto it = page_footprint_.find(p);
    footprint += it->second;
    page_footprint_.erase(it);
  }
  x.segment->chunk.size -= hi - lo;
  x.segment->chunk.footprint -= footprint;
  stats_.reserved.sub(footprint);
  ++stats_.chunk_releases;
  if (mid != b) insert_free(b);  // the partial page before: stays mapped and cached
  if (tail != nullptr) insert_free(tail);
  insert_unmapped(x, mid);
  return footprint;
}

template <class Enough>
uint64_t CachingPolicy::shrink_expandable(Enough enough, const Block* keep) {
  // Candidates from the shared caches' free sets, largest first (fewest unmap calls), only blocks
  // that can hold a whole page: no walk over every block of the ranges. Unmapping one never
  // deletes another: its edges go back beside blocks that are not free shared ones (those would
  // have merged with it).
  std::vector<Block*> candidates;
  for (FreeSet* set : {&small_free_, &large_free_}) {
    Block key;
    key.stream = 0;
    key.size = step_;
    key.addr = 0;
    const auto from = set->lower_bound(key);
    key.stream = 1;
    key.size = 0;
    for (auto it = set->lower_bound(key); it != from;) {
      Block* b = &*--it;
      if (b != keep && b->segment->expandable && reclaimable(b)) candidates.push_back(b);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Block* a, const Block* b) { return a->size > b->size; });
  uint64_t released = 0;
  for (Block* b : candidates) {
    if (enough()) break;
    released += unmap_pages(expandable_for(b->segment->pool), b);
  }
  return released;
}

Status CachingPolicy::reserve_range(Expandable& x, Pool pool) {
  if (range_bytes_ == 0) {
    // As PyTorch: address space for 1 1/8 of the device, so a range never runs out before the
    // device's memory does.
    range_bytes_ = round_up(std::max<uint64_t>(source_->device_usage().total / 8 * 9, step_), step_);
  }
  plugin::DevAddr base = 0;
  Status st = ranges_->reserve(range_bytes_, &base);
  if (!st.ok()) return Status(st.code(), "cannot reserve the expandable segment's range: " + st.message());
  auto seg = std::make_unique<Segment>();
  seg->chunk = {base, 0, 0};
  seg->pool = pool;
  seg->expandable = true;
  auto* u = new Block();  // the whole range, unmapped
  u->addr = base;
  u->size = range_bytes_;
  u->segment = seg.get();
  u->mapped = false;
  seg->first = u;
  x.segment = seg.get();
  x.unmapped[base] = u;
  segments_[base] = std::move(seg);
  return Status::Ok();
}

Status CachingPolicy::grow_expandable(uint64_t size, Pool pool, StreamId stream, Block** out) {
  Expandable& x = expandable_for(pool);
  if (x.segment == nullptr) ARUN_RETURN_IF_ERROR(reserve_range(x, pool));
  for (int attempt = 0;; ++attempt) {
    // The unmapped run needing the fewest new pages (then the tightest, then the lowest): a free
    // block before it that this stream may use counts towards the block.
    Block* best = nullptr;
    bool best_extends = false;
    uint64_t best_need = UINT64_MAX, best_left = UINT64_MAX;
    for (const auto& [addr, u] : x.unmapped) {
      Block* p = u->prev;
      const bool extends = p != nullptr && p->mapped && p->free_hook.is_linked() && !p->migrating && p->size < size &&
                           (p->stream == 0 || p->stream == stream);
      const uint64_t need = round_up(size - (extends ? p->size : 0), step_);
      if (need > u->size) continue;
      if (need < best_need || (need == best_need && u->size - need < best_left)) {
        best = u;
        best_extends = extends;
        best_need = need;
        best_left = u->size - need;
      }
    }
    const uint64_t mapped = x.segment->chunk.size;
    if (best == nullptr) {
      // Only when the device itself is (nearly) full: the range is 1 1/8 of it.
      return Status(Errc::rt_memory_allocation, "growing the expandable segment by " +
                                                    plugin::size_text(round_up(size, step_)) + " (" +
                                                    plugin::size_text(mapped) + " mapped) would pass its range of " +
                                                    plugin::size_text(range_bytes_));
    }
    if (attempt == 0) {
      // The pages come first from free pages nothing uses any more, wherever they lie (not the
      // block being extended): the reserve then stays what blocks in use, or awaiting their
      // streams, occupy. Unmapping may merge into `best`, which survives it.
      uint64_t target = stats_.reserved.current > best_need ? stats_.reserved.current - best_need : 0;
      if (options_.gc_threshold > 0) {  // and under gc_threshold x memory_limit with the new pages
        const auto budget = uint64_t(options_.gc_threshold * double(options_.memory_limit));
        target = std::min(target, budget > best_need ? budget - best_need : 0);
      }
      shrink_expandable([&] { return stats_.reserved.current <= target; }, best->prev);
    }
    if (would_exceed_limit(best_need)) {
      release_free_segments([&] { return !would_exceed_limit(best_need); });
      if (would_exceed_limit(best_need)) {
        return Status(Errc::rt_memory_allocation, "memory_limit " + plugin::size_text(options_.memory_limit) +
                                                      " reached (" + plugin::size_text(stats_.reserved.current) +
                                                      " reserved)");
      }
      if (attempt == 0) continue;  // pages may have been unmapped: choose again
    }
    Status st = map_pages(x, best, best_need);
    if (!st.ok()) {
      // The device is full: give back every cached chunk and free page, then try once more.
      if (attempt == 0 && release_free_segments([] { return false; }) != 0) continue;
      return Status(st.code(), "growing the expandable segment by " + plugin::size_text(best_need) + " (" +
                                   plugin::size_text(mapped) + " mapped): " + st.message());
    }
    Block* b = best;
    if (best_extends) {
      Block* p = b->prev;
      remove_free(p);  // out of the size-ordered set before its size changes
      p->size += b->size;
      p->next = b->next;
      if (b->next != nullptr) b->next->prev = p;
      delete b;
      b = p;
    }
    *out = b;
    return Status::Ok();
  }
}

Status CachingPolicy::grow(uint64_t size, Pool pool, plugin::PageKind page, StreamId stream, Block** out) {
  const bool small = pool == Pool::Small;
  // Before asking the device: blocks other streams freed may have become reusable.
  migrate_reached();
  if (Block* b = find_free(size, pool, 0)) {
    remove_free(b);
    ++stats_.cache_hits;
    *out = b;
    return Status::Ok();
  }
  if (expandable() && small) {
    // Mapped memory before new pages: a free large block this stream may use (one its own work
    // freed, still waiting for the stream to catch up, is the common case) serves a small request.
    if (Block* b = find_free(size, Pool::Large, stream)) {
      remove_free(b);
      ++stats_.cache_hits;
      *out = b;
      return Status::Ok();
    }
  }
  if (expandable()) return grow_expandable(size, pool, stream, out);
  uint64_t chunk = small                 ? options_.small_chunk
                   : pool == Pool::Large ? options_.large_chunk
                                         : round_up(size, options_.large_round);
  // Garbage collection: keep the reserve under gc_threshold x memory_limit by dropping cached chunks.
  if (options_.gc_threshold > 0) {
    const double budget = options_.gc_threshold * double(options_.memory_limit);
    release_free_segments([&] { return double(stats_.reserved.current + chunk) <= budget; });
  }
  if (!small && options_.reclaim_on_miss) {
    // No cached block fits: whole free large chunks only add to the reserve while they wait for a
    // request they fit. Giving them back keeps the reserve close to what is in use when sizes drift.
    release_free_segments([] { return false; }, /*large_only=*/true);
  }
  if (would_exceed_limit(chunk)) {
    release_free_segments([&] { return !would_exceed_limit(chunk); });
    if (would_exceed_limit(chunk) && !small && chunk > size) {
      chunk = round_up(size, options_.round);  // a tight chunk may still fit under the limit
    }
    if (would_exceed_limit(chunk)) {
      return Status(Errc::rt_memory_allocation, "memory_limit " + plugin::size_text(options_.memory_limit) +
                                                    " reached (" + plugin::size_text(stats_.reserved.current) +
                                                    " reserved)");
    }
  }
  plugin::Chunk c;
  Status st = source_->acquire(chunk, small ? plugin::PageKind::Normal : page, &c);
  if (!st.ok()) {
    // The device is full: give back every cached chunk and try once more, tightly sized.
    const uint64_t freed = release_free_segments([] { return false; });
    const uint64_t tight = round_up(size, options_.round);
    if (freed == 0 && tight == chunk) return st;
    st = source_->acquire(tight, small ? plugin::PageKind::Normal : page, &c);
    if (!st.ok()) return st;
  }
  auto seg = std::make_unique<Segment>();
  seg->chunk = c;
  seg->pool = pool;
  auto* b = new Block();
  b->addr = c.base;
  b->size = c.size;
  b->segment = seg.get();
  seg->first = b;
  segments_[c.base] = std::move(seg);
  ++stats_.chunk_acquires;
  stats_.reserved.add(c.footprint);
  *out = b;
  return Status::Ok();
}

void CachingPolicy::split(Block* b, uint64_t size) {
  const uint64_t rest = b->size - size;
  // Small blocks split down to `round`; large and huge ones only when the remainder could serve a
  // request of their pool, so the pools are not filled with slivers.
  // In the expandable segment any remainder is worth keeping apart: it merges back with its
  // neighbours, and at the end of the range it is the start of the next grown block.
  const Pool pool = b->segment->pool;
  const bool worth = pool == Pool::Small || b->segment->expandable ? rest >= options_.round
                     : pool == Pool::Large                         ? rest > options_.small_size
                                                                   : rest > options_.large_chunk;
  if (!worth || (options_.max_split != 0 && b->size > options_.max_split)) return;
  auto* r = new Block();
  r->addr = b->addr + size;
  r->size = rest;
  r->segment = b->segment;
  r->prev = b;
  r->next = b->next;
  if (b->next != nullptr) b->next->prev = r;
  b->next = r;
  b->size = size;
  r->stream = b->stream;  // the remainder stays in the cache the block came from
  r->mark = b->mark;
  r->mapped = b->mapped;
  insert_free(r);
}

// The free sets and cached_free change together, here and in insert_free only.
void CachingPolicy::remove_free(Block* b) {
  if (!b->free_hook.is_linked()) return;
  FreeSet& set = free_set(b->segment->pool);
  set.erase(set.iterator_to(*b));
  stats_.cached_free -= b->size;
  if (b->stream != 0) --stream_cached_;
}

CachingPolicy::Block* CachingPolicy::merge(Block* into, Block* other) {
  remove_free(other);
  into->size += other->size;
  into->mark = std::max(into->mark, other->mark);  // same stream: the later mark covers both
  into->next = other->next;
  if (other->next != nullptr) other->next->prev = into;
  delete other;
  return into;
}

void CachingPolicy::insert_free(Block* b) {
  auto mergeable = [&](const Block* n) {
    return n != nullptr && n->mapped && !n->allocated && !n->pending && !n->migrating && n->stream == b->stream;
  };
  if (mergeable(b->next)) merge(b, b->next);
  if (mergeable(b->prev)) {
    Block* p = b->prev;
    remove_free(p);
    b = merge(p, b);
  }
  if (free_set(b->segment->pool).insert(*b).second) {
    stats_.cached_free += b->size;
    if (b->stream != 0) ++stream_cached_;
  }
}

void CachingPolicy::process_pending() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto& marks = it->marks;
    while (!marks.empty() && order_->reached(marks.back().first, marks.back().second)) marks.pop_back();
    if (!marks.empty()) {
      ++it;
      continue;
    }
    Block* b = it->block;  // pending blocks are in no cache and never merged: the pointer is valid
    it = pending_.erase(it);
    b->pending = false;
    b->stream = 0;
    b->mark = 0;
    stats_.active.sub(b->size);
    insert_free(b);
  }
  stats_.pending_frees = pending_.size();
}

void CachingPolicy::migrate_reached(StreamId only_stream) {
  if (stream_cached_ == 0) return;  // every free block is in the shared cache already (a walk saved per miss)
  // Two phases, so that merging while re-inserting never deletes a block still to be visited.
  std::vector<Block*> moving;
  for (FreeSet* set : {&small_free_, &large_free_, &huge_free_}) {
    for (Block& b : *set) {
      if (b.stream == 0 || (only_stream != 0 && b.stream != only_stream)) continue;
      if (order_->reached(b.stream, b.mark)) moving.push_back(&b);
    }
  }
  for (Block* b : moving) {
    remove_free(b);
    b->migrating = true;
    b->stream = 0;
    b->mark = 0;
  }
  for (Block* b : moving) {
    b->migrating = false;
    insert_free(b);
  }
}

Status CachingPolicy::allocate(const plugin::AllocRequest& request, plugin::Allocation* out) {
  if (request.alignment > options_.round) {
    return Status(Errc::invalid_param, "alignment " + std::to_string(request.alignment) +
                                           " is larger than the caching allocator's round (" +
                                           plugin::size_text(options_.round) + ")");
  }
  if (request.bytes > UINT64_MAX - options_.large_round) {  // rounding it would wrap around
    return Status(Errc::rt_memory_allocation,
                  "a request of " + std::to_string(request.bytes) + " bytes cannot be rounded");
  }
  if (!pending_.empty()) process_pending();
  const uint64_t size = rounded(request.bytes);
  const Pool pool = pool_for(size);
  Block* b = find_free(size, pool, request.stream);
  if (b != nullptr) {
    remove_free(b);
    ++stats_.cache_hits;
  } else {
    Status st = grow(size, pool, request.page, request.stream, &b);
    if (!st.ok()) {
      ++stats_.ooms;
      return st;
    }
  }
  b->allocated = true;
  split(b, size);  // the remainder goes back into the cache the block came from
  b->stream = request.stream;
  b->mark = 0;
  b->uses.clear();
  live_[b->addr] = b;
  ++stats_.allocations;
  stats_.allocated.add(b->size);
  stats_.active.add(b->size);
  out->addr = b->addr;
  out->size = b->size;
  return Status::Ok();
}

void CachingPolicy::deallocate(DevAddr addr, StreamId stream) {
  auto it = live_.find(addr);
  if (it == live_.end()) return;  // the core passes only addresses it handed out
  Block* b = it->second;
  live_.erase(it);
  ++stats_.frees;
  stats_.allocated.sub(b->size);
  b->allocated = false;
  // Which streams' work must complete before another stream may reuse the block: the free's
  // stream and each other stream that used it (every stream for aclrtFree), each to its position now.
  std::vector<std::pair<StreamId, uint64_t>> marks;
  auto wait_for = [&](StreamId s) {
    if (const uint64_t m = order_->mark(s); !order_->reached(s, m)) marks.emplace_back(s, m);
  };
  wait_for(stream);
  if (stream != 0) {
    for (StreamId u : b->uses) {
      if (u != stream && std::none_of(marks.begin(), marks.end(), [&](const auto& m) { return m.first == u; })) {
        wait_for(u);
      }
    }
  }
  if (marks.empty()) {
    b->stream = 0;  // nothing in flight used it: every stream may take it
    b->mark = 0;
    stats_.active.sub(b->size);
    insert_free(b);
  } else if (stream != 0 && marks.size() == 1 && marks[0].first == stream) {
    b->stream =
        stream;  // only its own stream's work may still use it: reusable at once there, by others after the mark
    b->mark = marks[0].second;
    stats_.active.sub(b->size);
    insert_free(b);
  } else {
    b->pending = true;  // other streams' work may still use it: nobody reuses it until they caught up
    pending_.push_back({b, std::move(marks)});
  }
  stats_.pending_frees = pending_.size();
  if (options_.release_threshold != 0 && stats_.cached_free > options_.release_threshold) {
    release_free_segments([&] { return stats_.cached_free <= options_.release_threshold; });
  }
}

void CachingPolicy::record_use(DevAddr addr, StreamId stream) {
  auto it = live_.find(addr);
  if (it == live_.end() || stream == it->second->stream) return;
  auto& uses = it->second->uses;
  if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
}

void CachingPolicy::stream_retired(StreamId stream) {
  // A retired stream has finished (or dropped) its work: its cached blocks join the shared cache
  // instead of being stranded in a cache nobody allocates from any more.
  migrate_reached(stream);
}

uint64_t CachingPolicy::trim(uint64_t keep_bytes) {
  if (!pending_.empty()) process_pending();
  migrate_reached();
  return release_free_segments([&] { return stats_.reserved.current <= keep_bytes; });
}

plugin::AllocatorStats CachingPolicy::stats() const {
  plugin::AllocatorStats s = stats_;
  uint64_t largest = 0;
  for (const FreeSet* set : {&small_free_, &large_free_, &huge_free_})
    for (const Block& b : *set) largest = std::max(largest, b.size);
  s.largest_free = largest;
  return s;
}

void CachingPolicy::visit(plugin::BlockVisitor visitor, void* context) const {
  for (const auto& [base, seg] : segments_) {
    for (const Block* b = seg->first; b != nullptr; b = b->next) {
      if (!b->mapped) continue;  // address space only
      const auto state = b->allocated ? plugin::BlockInfo::State::Live
                         : b->pending ? plugin::BlockInfo::State::Pending
                                      : plugin::BlockInfo::State::Free;
      visitor(context, plugin::BlockInfo{b->addr, b->size, base, state, b->stream});
    }
  }
}

}  // namespace arun::caching
