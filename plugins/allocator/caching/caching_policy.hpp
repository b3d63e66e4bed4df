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
// everything submitted before the free, unless nothing was in flight. A block freed on S after
// other streams used it (record_use) is pending until S and each of those streams reached its
// mark of the free (a stream that never touched it does not hold it up).
//
// Giving memory back: whole free chunks are returned to the device when the cache holds more than
// `release_threshold` bytes (0: keep everything), when the policy's reserve would exceed
// `gc_threshold` × `memory_limit`, by trim(), before an allocation fails with out-of-memory, and
// (`reclaim_on_miss`) when a large or huge request finds no cached block that fits: whole free
// chunks of those pools are then given back before a new one is taken, so a reserve shaped for
// yesterday's sizes does not pile up under today's.
//
// Expandable segments (`expandable_segments`, off by default; PyTorch's option of that name). With
// a chunk source that offers growable ranges (plugin::VirtualRanges), requests are served from two
// reserved device ranges (1 1/8 of the device each: one for the small pool, one for everything
// above `small_size`) in which physical memory is mapped and unmapped page by page (pages of
// `large_round`, at least the range's granularity). Blocks tile the whole range; a block is mapped
// or not. A miss first unmaps the whole pages inside free blocks no stream's work can still use
// (anywhere in either range: a block freed on one stream and used on another is reclaimed as soon
// as both are reached, even though it sits where the range has grown past it), then maps the pages
// it lacks into the unmapped run that needs the fewest new pages, extending the free block before
// that run when the requesting stream may use it. So the physical memory held is the pages under
// blocks in use or not yet reusable, plus at most a page per free block edge: nothing is stranded
// in chunk tails or behind another stream's free. Trim, release_threshold, gc_threshold and an
// out-of-memory retry unmap free pages the same way.
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
    bool pending = false;                // freed while other streams' work was in flight: in no cache yet
    bool migrating = false;              // being moved to the shared cache (not mergeable meanwhile)
    bool mapped = true;                  // false: unmapped pages of an expandable range (never in a free set)
    plugin::StreamId stream = 0;         // the cache it belongs to (0: shared), or the stream it is live on
    uint64_t mark = 0;                   // free in a stream's cache: others may take it once this is reached
    std::vector<plugin::StreamId> uses;  // other streams it was used on (record_use)
    boost::intrusive::set_member_hook<> free_hook;  // linked while the block is in a free set
  };
  enum class Pool : uint8_t { Small, Large, Huge };
  struct Segment {
    plugin::Chunk chunk;
    Pool pool = Pool::Large;
    Block* first = nullptr;
    bool expandable = false;  // a range: chunk.size / footprint are what is mapped in it
  };
  // Free blocks ordered by (stream, size, address): the best fit on a stream is a lower_bound.
  // Intrusive: a block is its own node, so caching and taking a block allocate nothing.
  struct BySize {
    bool operator()(const Block& a, const Block& b) const;
  };
  using FreeSet = boost::intrusive::set<
      Block, boost::intrusive::member_hook<Block, boost::intrusive::set_member_hook<>, &Block::free_hook>,
      boost::intrusive::compare<BySize>>;
  // A block nobody may reuse yet: freed by aclrtFree while work was in flight (the device-wide
  // mark), or on a stream after other streams used it (a mark on each of them, so a third stream
  // lagging behind does not hold it).
  struct Pending {
    Block* block;
    std::vector<std::pair<plugin::StreamId, uint64_t>> marks;
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
  // Expandable segments: one growable range per pool (Small, and Large for everything above it).
  struct Expandable {
    Segment* segment = nullptr;                  // in segments_; reserved at the pool's first miss
    std::map<plugin::DevAddr, Block*> unmapped;  // its unmapped blocks (never two adjacent)
  };
  Expandable& expandable_for(Pool pool) { return expandable_[pool == Pool::Small ? 0 : 1]; }
  // Maps the pages a block of `size` lacks, where the fewest are needed.
  Status grow_expandable(uint64_t size, Pool pool, plugin::StreamId stream, Block** out);
  Status reserve_range(Expandable& x, Pool pool);
  // Maps the first `bytes` (whole pages) of the unmapped block `u`, which becomes a free mapped
  // block (in no free set); the rest of `u` stays unmapped.
  Status map_pages(Expandable& x, Block* u, uint64_t bytes);
  // Unmaps the whole pages inside the free block `b` (one no stream still uses); its partial pages
  // at either end stay mapped as free blocks. Returns the device memory given back.
  uint64_t unmap_pages(Expandable& x, Block* b);
  void insert_unmapped(Expandable& x, Block* b);  // merges with unmapped neighbours
  Block* split_off(Block* b, uint64_t keep);      // [b + keep, end) becomes a new block after b, same state
  bool reclaimable(const Block* b) const {
    return b->mapped && b->free_hook.is_linked() && !b->migrating && reusable_by_all(b);
  }
  // Unmaps free pages in both ranges (largest free blocks first, all but `keep`'s) until `enough` says stop.
  template <class Enough>
  uint64_t shrink_expandable(Enough enough, const Block* keep = nullptr);
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
  uint64_t stream_cached_ = 0;  // free blocks in a stream's cache (stream != 0)
  plugin::AllocatorStats stats_;
  // Expandable segments: the range source (nullptr: off), the page (growth step), the two ranges
  // and the device footprint of each mapped page.
  plugin::VirtualRanges* ranges_ = nullptr;
  uint64_t step_ = 0;
  uint64_t range_bytes_ = 0;
  Expandable expandable_[2];
  std::unordered_map<plugin::DevAddr, uint64_t> page_footprint_;
};

}  // namespace arun::caching
