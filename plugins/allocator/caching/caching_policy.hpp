// CachingPolicy (`caching`): a stream-ordered caching allocator in the manner of PyTorch's device
// caching allocator.
//
// Memory comes from the device in chunks and is handed out as blocks carved from them; a freed block
// stays cached for the next allocation instead of going back to the device, so steady-state
// allocate/free pairs never touch the device. Requests up to `small_size` come from a small pool
// (chunks of `small_chunk`), larger ones up to `large_chunk` from a large pool (chunks of
// `large_chunk`), and bigger ones from a huge pool (chunks of the request rounded up to
// `large_round`). Huge chunks serve only huge requests: were they split for ordinary blocks, the
// next big request (a logits tensor of a longer sequence) would find every huge chunk partly taken
// and need a new one, and the reserve would grow step by step. Blocks are rounded up to
// `round` bytes; a block larger than needed is split, and free neighbours inside a chunk are merged
// again. Blocks above `max_split` are never split (so big blocks are not whittled away by small
// requests) and serve only requests that waste at most `large_round` of them.
//
// Stream order. Every free block belongs to a stream: reusing it on that stream is safe at once
// (stream order puts the new work after the old), reusing it on another stream is safe only once
// the stream that freed it has completed the work submitted before the free. So a block freed on
// stream S goes back to S's cache immediately and is also remembered with a mark in S's order; once
// the mark is reached it moves to the shared cache (stream 0) any stream may take from. aclrtFree
// (stream 0) is ordered against every stream: the block is pending until the device has completed
// everything submitted before the free, unless nothing was in flight.
//
// Giving memory back: whole free chunks are returned to the device when the cache holds more than
// `release_threshold` bytes (0: keep everything), when the policy's reserve would exceed
// `gc_threshold` × `memory_limit`, by trim(), before an allocation fails with out-of-memory, and
// (`reclaim_on_miss`) when a large or huge request finds no cached block that fits: whole free
// chunks of those pools are then given back before a new one is taken, so a reserve shaped for
// yesterday's sizes does not pile up under today's.
//
// Expandable segments (`expandable_segments`, off by default; PyTorch's option of that name). With
// a chunk source that offers growable ranges (plugin::VirtualRanges), every request above
// `small_size` is served from one reserved device range (1 1/8 of the device) that grows by mapping
// physical memory at its end, in steps of `large_round` (at least the range's granularity). A miss
// first extends the free block at the end of the range, if the requesting stream may use it, so a
// free tail plus the new pages is one contiguous block: nothing is stranded in chunk tails, and a
// block is never more than one step larger than needed. Freed mappings at the end are unmapped by
// trim, release_threshold, gc_threshold and before an out-of-memory. Small requests keep their
// chunks. One range serves all streams: each block still belongs to a stream's cache as above.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/intrusive/set.hpp>

#include "arun/plugin/allocator.hpp"

namespace arun::caching {

struct CachingOptions {
  uint64_t round = 512;
  uint64_t small_size = 1ull << 20;
  uint64_t small_chunk = 2ull << 20;
  uint64_t large_chunk = 20ull << 20;
  uint64_t large_round = 2ull << 20;
  uint64_t max_split = 0;            // 0: split any block
  uint64_t release_threshold = 0;    // 0: never return cached memory on free
  double gc_threshold = 0;           // 0: off; needs memory_limit
  uint64_t memory_limit = 0;         // 0: no limit beyond the device's
  bool reclaim_on_miss = true;       // a large request no cached block fits returns whole free large chunks first
  bool expandable_segments = false;  // large blocks from one growable range (needs ChunkSource::virtual_ranges)

  // Checks ranges and dependencies; false with a reason in *why.
  bool validate(std::string* why) const;
  std::string describe() const;
};

class CachingPolicy final : public plugin::AllocatorPolicy {
 public:
  CachingPolicy(plugin::ChunkSource* source, plugin::StreamOrder* order, const CachingOptions& options);
  ~CachingPolicy() override;

  const char* name() const override { return "caching"; }
  std::string describe() const override { return options_.describe(); }
  Status allocate(const plugin::AllocRequest& request, plugin::Allocation* out) override;
  void deallocate(plugin::DevAddr addr, plugin::StreamId stream) override;
  void record_use(plugin::DevAddr addr, plugin::StreamId stream) override;
  void stream_retired(plugin::StreamId stream) override;
  uint64_t trim(uint64_t keep_bytes) override;
  plugin::AllocatorStats stats() const override;
  void visit(plugin::BlockVisitor visitor, void* context) const override;
  // Expandable segments were asked for and the chunk source can grow ranges.
  bool expandable() const { return ranges_ != nullptr; }

 private:
  struct Segment;
  struct Block {
    plugin::DevAddr addr = 0;
    uint64_t size = 0;
    Segment* segment = nullptr;
    Block* prev = nullptr;  // address-order neighbours inside the segment
    Block* next = nullptr;
    bool allocated = false;
    bool pending = false;                           // freed by aclrtFree while work was in flight: in no cache yet
    bool migrating = false;                         // being moved to the shared cache (not mergeable meanwhile)
    plugin::StreamId stream = 0;                    // the cache it belongs to (0: shared), or the stream it is live on
    uint64_t mark = 0;                              // free in a stream's cache: others may take it once this is reached
    std::vector<plugin::StreamId> uses;             // other streams it was used on (record_use)
    boost::intrusive::set_member_hook<> free_hook;  // linked while the block is in a free set
  };
  enum class Pool : uint8_t { Small, Large, Huge };
  struct Segment {
    plugin::Chunk chunk;
    Pool pool = Pool::Large;
    Block* first = nullptr;   // nullptr: an expandable segment with nothing mapped
    bool expandable = false;  // chunk.size is what is mapped, from chunk.base
  };
  // Free blocks ordered by (stream, size, address): the best fit on a stream is a lower_bound.
  // Intrusive: a block is its own node, so caching and taking a block allocate nothing.
  struct BySize {
    bool operator()(const Block& a, const Block& b) const;
  };
  using FreeSet = boost::intrusive::set<
      Block, boost::intrusive::member_hook<Block, boost::intrusive::set_member_hook<>, &Block::free_hook>,
      boost::intrusive::compare<BySize>>;
  struct Pending {  // a block freed by aclrtFree, waiting for the device to catch up
    Block* block;
    uint64_t mark;
  };

  uint64_t rounded(uint64_t bytes) const;
  Pool pool_for(uint64_t rounded_bytes) const {
    return rounded_bytes <= options_.small_size                    ? Pool::Small
           : rounded_bytes <= options_.large_chunk || expandable() ? Pool::Large
                                                                   : Pool::Huge;
  }
  FreeSet& free_set(Pool p) { return p == Pool::Small ? small_free_ : p == Pool::Large ? large_free_ : huge_free_; }
  Block* find_free(uint64_t size, Pool pool, plugin::StreamId stream);
  Block* find_in(FreeSet& set, uint64_t size, plugin::StreamId stream);
  Status grow(uint64_t size, Pool pool, plugin::PageKind page, plugin::StreamId stream, Block** out);
  // Expandable segments: maps more of the range at its end for a block of `size`.
  Status grow_expandable(uint64_t size, plugin::StreamId stream, Block** out);
  Block* segment_tail() const;  // the last block of the expandable segment, or nullptr
  // Unmaps mappings at the end of the range that lie in a free block no stream still uses.
  template <class Enough>
  uint64_t shrink_expandable(Enough enough);
  void split(Block* block, uint64_t size);
  void insert_free(Block* block);  // merges with free neighbours of the same cache
  void remove_free(Block* block);
  Block* merge(Block* into, Block* other);  // `other` follows `into`; returns `into`
  void process_pending();
  // Moves free blocks of stream caches whose marks are reached (or, with `stream`, all of that
  // stream's free blocks whose marks are reached) into the shared cache.
  void migrate_reached(plugin::StreamId only_stream = 0);
  bool reusable_by_all(const Block* b) const;
  // Returns whole free segments to the device, largest first, until `enough` says stop.
  // With `shrink_range`, the expandable segment's free end is unmapped first.
  template <class Enough>
  uint64_t release_free_segments(Enough enough, bool large_only = false, bool shrink_range = true);
  void release_segment(Segment* segment);
  bool would_exceed_limit(uint64_t more) const;

  plugin::ChunkSource* source_;
  plugin::StreamOrder* order_;  // queried only: it never blocks
  const CachingOptions options_;
  std::unordered_map<plugin::DevAddr, Block*> live_;  // allocated blocks by address
  std::map<plugin::DevAddr, std::unique_ptr<Segment>> segments_;
  FreeSet small_free_, large_free_, huge_free_;
  std::deque<Pending> pending_;
  plugin::AllocatorStats stats_;
  // Expandable segments: the range source (nullptr: off), the growth step, the segment (in
  // segments_; created at the first large miss) and its mappings in address order.
  plugin::VirtualRanges* ranges_ = nullptr;
  uint64_t step_ = 0;
  Segment* expandable_ = nullptr;
  uint64_t range_bytes_ = 0;
  struct Extent {
    plugin::DevAddr addr;
    uint64_t size, footprint;
  };
  std::vector<Extent> extents_;
};

}  // namespace arun::caching
