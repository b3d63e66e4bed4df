// Unit tests of the caching allocator policy (plugins/allocator/caching), driven through the
// AllocatorPolicy interface with a fake chunk source (address ranges with a capacity, no memory
// behind them) and a stream order whose progress the test sets by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "caching_policy.hpp"
#include "fake_memory.hpp"

namespace {

using arun::Errc;
using arun::Status;
using arun::caching::CachingOptions;
using arun::caching::CachingPolicy;
using arun::plugin::Allocation;
using arun::plugin::AllocRequest;
using arun::plugin::BlockInfo;
using arun::plugin::Chunk;
using arun::plugin::DevAddr;
using arun::plugin::MemoryUsage;
using arun::plugin::PageKind;
using arun::plugin::StreamId;
using arun::testing::FakeSource;
using arun::testing::KiB;
using arun::testing::ManualOrder;
using arun::testing::MiB;

struct Fixture {
  explicit Fixture(CachingOptions o = {}, uint64_t capacity = 1024 * MiB)
      : source(capacity, o.expandable_segments), policy(&source, &order, o) {}
  DevAddr alloc(uint64_t bytes, StreamId stream = 0) {
    AllocRequest r;
    r.bytes = bytes;
    r.alignment = 64;
    r.stream = stream;
    Allocation a;
    Status st = policy.allocate(r, &a);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_GE(a.size, bytes);
    return a.addr;
  }
  Status try_alloc(uint64_t bytes, DevAddr* out, StreamId stream = 0) {
    AllocRequest r;
    r.bytes = bytes;
    r.alignment = 64;
    r.stream = stream;
    Allocation a;
    Status st = policy.allocate(r, &a);
    *out = a.addr;
    return st;
  }
  std::vector<BlockInfo> blocks() const {
    std::vector<BlockInfo> v;
    policy.visit([](void* c, const BlockInfo& b) { static_cast<std::vector<BlockInfo>*>(c)->push_back(b); }, &v);
    return v;
  }
  // Blocks tile each chunk exactly, in address order, with no gaps or overlaps.
  void check_tiling() const {
    std::map<DevAddr, uint64_t> covered;
    for (const BlockInfo& b : blocks()) covered[b.chunk] += b.size;
    for (auto& [base, size] : source.live) EXPECT_EQ(size, covered[base]) << "chunk " << base;
    EXPECT_EQ(covered.size(), source.live.size());
    DevAddr prev_end = 0, prev_chunk = 0;
    for (const BlockInfo& b : blocks()) {
      if (source.reserved.count(b.chunk) != 0) {
        // An expandable range: blocks lie in mapped pages (the sums above say they fill them);
        // the unmapped runs between them are not blocks.
        EXPECT_LE(b.chunk == prev_chunk ? prev_end : b.chunk, b.addr) << "overlap";
        EXPECT_TRUE(mapped(b.addr, b.size)) << "a block at " << b.addr << " lies in unmapped pages";
      } else if (b.chunk == prev_chunk) {
        EXPECT_EQ(prev_end, b.addr) << "gap or overlap";
      } else {
        EXPECT_EQ(b.chunk, b.addr) << "a chunk's first block starts at its base";
      }
      prev_chunk = b.chunk;
      prev_end = b.addr + b.size;
    }
    // The gauges agree with the blocks.
    uint64_t free_bytes = 0, live_bytes = 0, pending_bytes = 0, chunk_bytes = 0;
    for (const BlockInfo& b : blocks()) {
      (b.state == BlockInfo::State::Free   ? free_bytes
       : b.state == BlockInfo::State::Live ? live_bytes
                                           : pending_bytes) += b.size;
    }
    for (auto& [base, size] : source.live) chunk_bytes += size;
    const auto st = policy.stats();
    EXPECT_EQ(free_bytes, st.cached_free);
    EXPECT_EQ(live_bytes, st.allocated.current);
    EXPECT_EQ(live_bytes + pending_bytes, st.active.current);
    EXPECT_EQ(chunk_bytes, st.reserved.current);
  }

  // [addr, +size) lies in contiguous mappings of a range.
  bool mapped(DevAddr addr, uint64_t size) const {
    auto m = source.mappings.upper_bound(addr);
    if (m == source.mappings.begin()) return false;
    --m;
    DevAddr end = m->first;
    for (; m != source.mappings.end() && m->first == end && end < addr + size; ++m) end += m->second;
    return end >= addr + size;
  }

  FakeSource source;
  ManualOrder order;
  CachingPolicy policy;
};

TEST(CachingOptions, ValidationNamesTheProblem) {
  CachingOptions o;
  std::string why;
  EXPECT_TRUE(o.validate(&why));
  o.gc_threshold = 0.8;
  EXPECT_FALSE(o.validate(&why));
  EXPECT_NE(std::string::npos, why.find("gc_threshold needs memory_limit")) << why;
  o.memory_limit = 256 * MiB;
  EXPECT_TRUE(o.validate(&why));
  o = {};
  o.round = 768;
  EXPECT_FALSE(o.validate(&why));
  EXPECT_NE(std::string::npos, why.find("power of two"));
  o = {};
  o.max_split = 4 * MiB;  // below large_chunk
  EXPECT_FALSE(o.validate(&why));
  EXPECT_NE(std::string::npos, why.find("max_split"));
  o = {};
  o.small_chunk = 512 * KiB;  // below small_size
  EXPECT_FALSE(o.validate(&why));
  o = {};
  o.large_chunk = 1 * MiB;  // not above small_size
  EXPECT_FALSE(o.validate(&why));
}

TEST(CachingPolicy, SmallRequestsShareAChunkAndAreRounded) {
  Fixture f;
  DevAddr a = f.alloc(100);
  DevAddr b = f.alloc(700);
  DevAddr c = f.alloc(512);
  EXPECT_EQ(1, f.source.acquires) << "one 2 MiB small chunk serves all three";
  EXPECT_EQ(a + 512, b);
  EXPECT_EQ(b + 1024, c) << "700 B rounds to 1024";
  EXPECT_EQ(0u, a % 512);
  const auto s = f.policy.stats();
  EXPECT_EQ(2 * MiB, s.reserved.current);
  EXPECT_EQ(2048u, s.allocated.current);
  EXPECT_EQ(3u, s.allocations);
  EXPECT_EQ(2u, s.cache_hits) << "the second and third came from the cached remainder";
  f.check_tiling();
}

TEST(CachingPolicy, FreedBlocksMergeBackIntoTheChunk) {
  Fixture f;
  DevAddr a = f.alloc(1000), b = f.alloc(2000), c = f.alloc(3000);
  f.policy.deallocate(b, 0);
  f.policy.deallocate(a, 0);
  f.policy.deallocate(c, 0);
  auto blocks = f.blocks();
  ASSERT_EQ(1u, blocks.size()) << "all three and the remainder merged into one free block";
  EXPECT_EQ(2 * MiB, blocks[0].size);
  EXPECT_EQ(BlockInfo::State::Free, blocks[0].state);
  const auto s = f.policy.stats();
  EXPECT_EQ(2 * MiB, s.cached_free);
  EXPECT_EQ(2 * MiB, s.largest_free);
  EXPECT_DOUBLE_EQ(0.0, s.fragmentation());
  // Reused without touching the device.
  f.alloc(5000);
  EXPECT_EQ(1, f.source.acquires);
}

TEST(CachingPolicy, LargeRequestsGetLargeChunksOrTheirOwnRoundedChunk) {
  Fixture f;
  f.alloc(3 * MiB);
  EXPECT_EQ(20 * MiB, f.policy.stats().reserved.current) << "requests up to large_chunk share a 20 MiB chunk";
  f.alloc(30 * MiB + 1);
  EXPECT_EQ(20 * MiB + 32 * MiB, f.policy.stats().reserved.current) << "bigger ones: rounded up to 2 MiB";
  f.check_tiling();
}

TEST(CachingPolicy, MaxSplitKeepsBigBlocksWhole) {
  CachingOptions o;
  o.max_split = 40 * MiB;
  o.reclaim_on_miss = false;  // else the miss below would give the free 64 MiB chunk back
  Fixture f(o);
  DevAddr big = f.alloc(64 * MiB);
  f.policy.deallocate(big, 0);
  // A smaller large request may not carve the 64 MiB block: it gets a chunk of its own.
  DevAddr mid = f.alloc(8 * MiB);
  EXPECT_NE(big, mid);
  EXPECT_EQ(2, f.source.acquires);
  // A request within large_round of it takes it whole.
  DevAddr again = f.alloc(63 * MiB);
  EXPECT_EQ(big, again);
  EXPECT_EQ(2, f.source.acquires);
  f.check_tiling();
}

// Chunks taken for requests above large_chunk serve only such requests: an ordinary large block
// never takes a piece of them, so they come back whole when the big block is freed.
TEST(CachingPolicy, HugeChunksServeOnlyHugeRequests) {
  CachingOptions o;
  o.reclaim_on_miss = false;
  Fixture f(o);
  DevAddr big = f.alloc(64 * MiB);
  f.policy.deallocate(big, 0);
  DevAddr mid = f.alloc(8 * MiB);
  EXPECT_TRUE(mid + 8 * MiB <= big || big + 64 * MiB <= mid) << "an 8 MiB block was cut from the huge chunk";
  EXPECT_EQ(2, f.source.acquires);
  DevAddr smaller_huge = f.alloc(40 * MiB);  // a huge request may split a huge block
  EXPECT_EQ(big, smaller_huge);
  EXPECT_EQ(2, f.source.acquires);
  f.check_tiling();
}

// reclaim_on_miss: a large request that no cached block fits first returns whole free large and
// huge chunks to the device, so the reserve follows the sizes in use instead of accumulating.
TEST(CachingPolicy, ReclaimOnMissReturnsWholeFreeChunksBeforeTakingAnother) {
  for (bool reclaim : {true, false}) {
    CachingOptions o;
    o.reclaim_on_miss = reclaim;
    Fixture f(o);
    DevAddr a = f.alloc(30 * MiB);  // a huge chunk of its own (30 MiB)
    DevAddr small = f.alloc(4096);  // a small chunk, never reclaimed by a large miss
    f.policy.deallocate(a, 0);
    f.alloc(50 * MiB);  // fits no cached block
    EXPECT_EQ(3, f.source.acquires) << reclaim;
    EXPECT_EQ(reclaim ? 1 : 0, f.source.releases) << "the free 30 MiB chunk " << (reclaim ? "goes" : "stays");
    const arun::plugin::AllocatorStats st = f.policy.stats();
    EXPECT_EQ((reclaim ? 50 : 80) * MiB + 2 * MiB, st.reserved.current) << reclaim;
    f.policy.deallocate(small, 0);
    f.check_tiling();
  }
}

TEST(CachingPolicy, SameStreamReusesAtOnceOtherStreamsWaitForTheMark) {
  Fixture f;
  const StreamId s1 = 11, s2 = 22;
  DevAddr a = f.alloc(4096, s1);
  f.order.submit(s1);  // a kernel on s1 uses `a` and has not finished
  f.policy.deallocate(a, s1);
  DevAddr on_s2 = f.alloc(4096, s2);
  EXPECT_NE(a, on_s2) << "s2 must not get memory s1's unfinished work still uses";
  DevAddr on_s1 = f.alloc(4096, s1);
  EXPECT_EQ(a, on_s1) << "s1 may: its new work is ordered after the old";
  f.policy.deallocate(on_s1, s1);
  f.order.finish(s1);
  // Once s1 caught up the block is everyone's (it moves when the cache misses for s2).
  f.alloc(2 * MiB - 8192 - 4096, s2);  // use up the rest of the chunk s2 got
  DevAddr later = f.alloc(4096, s2);
  EXPECT_EQ(a, later);
  f.check_tiling();
}

TEST(CachingPolicy, AFreeWithoutAStreamWaitsForTheWholeDevice) {
  Fixture f;
  const StreamId s1 = 1, s2 = 2;
  DevAddr a = f.alloc(8192);
  f.order.submit(s1);
  f.order.submit(s2);
  f.policy.deallocate(a, 0);  // aclrtFree: any stream may have used it
  EXPECT_EQ(1u, f.policy.stats().pending_frees);
  EXPECT_NE(a, f.alloc(8192, s1));
  f.order.finish(s1);
  EXPECT_NE(a, f.alloc(8192, s1)) << "s2 has not caught up yet";
  f.order.finish(s2);
  EXPECT_EQ(a, f.alloc(8192, s1));
  EXPECT_EQ(0u, f.policy.stats().pending_frees);
}

TEST(CachingPolicy, UseOnAnotherStreamDelaysReuse) {
  Fixture f;
  const StreamId s1 = 1, s2 = 2;
  DevAddr a = f.alloc(4096, s1);
  f.policy.record_use(a, s2);
  f.order.submit(s2);
  f.policy.deallocate(a, s1);
  EXPECT_NE(a, f.alloc(4096, s1)) << "s2 still uses it, so even s1 must wait";
  f.order.finish_all();
  f.alloc(2 * MiB - 4096 - 4096, s1);
  EXPECT_EQ(a, f.alloc(4096, s1));
}

TEST(CachingPolicy, ACrossStreamFreeWaitsOnlyForTheStreamsThatUsedIt) {
  Fixture f;
  const StreamId s1 = 1, s2 = 2, s3 = 3;
  const DevAddr a = f.alloc(4096, s1);
  f.policy.record_use(a, s2);
  f.order.submit(s1);
  f.order.submit(s2);
  f.order.submit(s3);  // unrelated work, still running when the block could be reused
  f.policy.deallocate(a, s1);
  EXPECT_EQ(1u, f.policy.stats().pending_frees);
  f.order.finish(s1);
  EXPECT_NE(a, f.alloc(4096, s3)) << "s2 has not caught up";
  f.order.finish(s2);
  EXPECT_EQ(a, f.alloc(4096, s3)) << "s3's own work never touched it";
  EXPECT_EQ(0u, f.policy.stats().pending_frees);
  f.check_tiling();
}

TEST(CachingPolicy, RetiredStreamsDoNotStrandTheirCache) {
  Fixture f;
  const StreamId s1 = 1, s2 = 2;
  DevAddr a = f.alloc(1 * MiB, s1);
  f.order.submit(s1);
  f.policy.deallocate(a, s1);
  f.order.finish(s1);
  f.policy.stream_retired(s1);
  EXPECT_EQ(a, f.alloc(1 * MiB, s2)) << "s1's cache went to the shared cache";
  EXPECT_EQ(1, f.source.acquires);
}

TEST(CachingPolicy, ReleaseThresholdGivesWholeChunksBack) {
  CachingOptions o;
  o.release_threshold = 4 * MiB;
  Fixture f(o);
  std::vector<DevAddr> v;
  for (int i = 0; i < 4; ++i) v.push_back(f.alloc(20 * MiB));
  EXPECT_EQ(4, f.source.acquires);
  for (DevAddr a : v) f.policy.deallocate(a, 0);
  EXPECT_LE(f.policy.stats().cached_free, 4 * MiB);
  EXPECT_EQ(4, f.source.releases);
  EXPECT_EQ(0u, f.source.used());
}

TEST(CachingPolicy, GcThresholdKeepsTheReserveUnderItsFraction) {
  CachingOptions o;
  o.gc_threshold = 0.5;
  o.memory_limit = 100 * MiB;
  Fixture f(o);
  DevAddr a = f.alloc(20 * MiB), b = f.alloc(20 * MiB);
  f.policy.deallocate(a, 0);
  f.policy.deallocate(b, 0);
  EXPECT_EQ(40 * MiB, f.policy.stats().reserved.current);
  // 40 cached + 30 new would pass 50: cached chunks go first. (30 MiB fits neither cached chunk.)
  f.alloc(30 * MiB);
  EXPECT_LE(f.policy.stats().reserved.current, 50 * MiB);
  EXPECT_GE(f.source.releases, 1);
}

TEST(CachingPolicy, MemoryLimitIsAnOomWithAReason) {
  CachingOptions o;
  o.memory_limit = 50 * MiB;
  Fixture f(o);
  f.alloc(40 * MiB);
  DevAddr out = 0;
  Status st = f.try_alloc(20 * MiB, &out);
  EXPECT_EQ(Errc::rt_memory_allocation, st.code());
  EXPECT_NE(std::string::npos, st.message().find("memory_limit")) << st.message();
  EXPECT_EQ(1u, f.policy.stats().ooms);
  // A tight chunk still fits under the limit where a 20 MiB one would not.
  EXPECT_TRUE(f.try_alloc(9 * MiB, &out).ok());
}

TEST(CachingPolicy, ADeviceOomFirstReturnsTheCacheAndRetries) {
  Fixture f(CachingOptions{}, 64 * MiB);
  std::vector<DevAddr> v;
  for (int i = 0; i < 3; ++i) v.push_back(f.alloc(20 * MiB));
  for (DevAddr a : v) f.policy.deallocate(a, 0);  // 60 MiB cached in 20 MiB chunks
  DevAddr big = 0;
  Status st = f.try_alloc(40 * MiB, &big);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(3, f.source.releases) << "the cached chunks went back so the 40 MiB chunk fits";
  EXPECT_EQ(1u, f.source.live.size());
  EXPECT_EQ(Errc::rt_memory_allocation, f.try_alloc(30 * MiB, &big).code()) << "and a real OOM is still one";
}

TEST(CachingPolicy, TrimKeepsWhatItIsToldAndOnlyFreeChunks) {
  Fixture f;
  DevAddr keep = f.alloc(20 * MiB);
  DevAddr a = f.alloc(20 * MiB), b = f.alloc(20 * MiB);
  f.policy.deallocate(a, 0);
  f.policy.deallocate(b, 0);
  EXPECT_EQ(40 * MiB, f.policy.trim(0));
  EXPECT_EQ(20 * MiB, f.policy.stats().reserved.current) << "the live block's chunk stays";
  f.policy.deallocate(keep, 0);
  EXPECT_EQ(0u, f.policy.trim(20 * MiB));
  EXPECT_EQ(20 * MiB, f.policy.trim(0));
}

TEST(CachingPolicy, PendingMemoryIsNeverReturnedToTheDevice) {
  Fixture f;
  DevAddr a = f.alloc(20 * MiB, 5);
  f.order.submit(5);
  f.policy.deallocate(a, 5);
  EXPECT_EQ(0u, f.policy.trim(0)) << "stream 5's work may still use the chunk";
  f.order.finish(5);
  EXPECT_EQ(20 * MiB, f.policy.trim(0));
}

// Random allocate/free on a few streams against a reference model: live blocks never overlap, are
// aligned, keep their contents' ownership (no block is handed out twice), and the chunks stay tiled.
void randomized_against_a_reference_model(bool expandable) {
  CachingOptions o;
  o.max_split = 64 * MiB;
  o.release_threshold = 256 * MiB;
  o.expandable_segments = expandable;
  Fixture f(o, 2048 * MiB);
  ASSERT_EQ(expandable, f.policy.expandable());
  std::mt19937_64 rng(20261203);
  struct Live {
    uint64_t size;
    StreamId stream;
  };
  std::map<DevAddr, Live> live;  // the model
  for (int step = 0; step < 20000; ++step) {
    const int op = int(rng() % 100);
    if (op < 55 || live.empty()) {
      // Sizes log-uniform from 1 B to 64 MiB, on stream 0..3.
      const uint64_t bytes = 1 + (rng() % (uint64_t(1) << (rng() % 26 + 1)));
      const StreamId s = rng() % 4;
      DevAddr a = 0;
      Status st = f.try_alloc(bytes, &a, s);
      if (!st.ok()) {
        EXPECT_EQ(Errc::rt_memory_allocation, st.code());
        continue;
      }
      ASSERT_EQ(0u, a % 512) << "alignment";
      auto next = live.lower_bound(a);
      if (next != live.end()) {
        ASSERT_LE(a + bytes, next->first) << "overlaps the next live block";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.size, a) << "overlaps the previous live block";
      }
      live[a] = {bytes, s};
      if (s != 0 && rng() % 2) f.order.submit(s);  // some work on s uses it
    } else if (op < 95) {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      const StreamId on = rng() % 3 == 0 ? 0 : it->second.stream;
      f.policy.deallocate(it->first, on);
      live.erase(it);
    } else {
      f.order.finish(rng() % 4);
    }
    if (step % 1000 == 0) f.check_tiling();
  }
  const auto s = f.policy.stats();
  uint64_t model_bytes = 0;
  for (auto& [a, l] : live) model_bytes += l.size;
  EXPECT_GE(s.allocated.current, model_bytes);
  EXPECT_LE(s.allocated.current, s.reserved.current);
  EXPECT_EQ(s.reserved.current, f.source.used());
  EXPECT_GT(s.cache_hits, s.chunk_acquires) << "most allocations should come from the cache";
  f.check_tiling();
  for (auto& [a, l] : live) f.policy.deallocate(a, 0);
  f.order.finish_all();
  f.policy.trim(0);
  EXPECT_EQ(0u, f.source.used()) << "everything can be given back";
  if (expandable) {
    EXPECT_TRUE(f.source.live.empty()) << "no chunk and no mapping is left";
    EXPECT_TRUE(f.source.mappings.empty());
    EXPECT_GT(f.source.unmaps, 0);
  }
}

TEST(CachingPolicy, RandomizedAgainstAReferenceModel) {
  randomized_against_a_reference_model(false);
}

TEST(CachingPolicy, RandomizedAgainstAReferenceModelWithExpandableSegments) {
  randomized_against_a_reference_model(true);
}

// ---------------------------------------------------------------- expandable segments

CachingOptions expandable() {
  CachingOptions o;
  o.expandable_segments = true;
  return o;
}

TEST(CachingExpandable, OffOrWithoutRangesItUsesChunks) {
  Fixture off;
  EXPECT_FALSE(off.policy.expandable());
  arun::testing::FakeSource no_ranges(1024 * MiB, /*ranges=*/false);
  ManualOrder order;
  CachingPolicy p(&no_ranges, &order, expandable());
  EXPECT_FALSE(p.expandable()) << "a chunk source without ranges: ordinary chunks";
  AllocRequest r;
  r.bytes = 30 * MiB;
  r.alignment = 64;
  Allocation a;
  ASSERT_TRUE(p.allocate(r, &a).ok());
  EXPECT_EQ(1, no_ranges.acquires);
  EXPECT_NE(std::string::npos, p.describe().find("expandable_segments = true"));
}

TEST(CachingExpandable, LargeRequestsShareOneRangeSmallOnesHaveTheirOwn) {
  Fixture f(expandable());
  const DevAddr s1 = f.alloc(1000);
  EXPECT_EQ(1, f.source.reserves) << "the small pool's range";
  EXPECT_EQ(2 * MiB, f.policy.stats().reserved.current) << "one page mapped";
  const DevAddr a = f.alloc(3 * MiB);
  const DevAddr b = f.alloc(100 * MiB);  // above large_chunk: a huge chunk of its own without the option
  EXPECT_EQ(a + 3 * MiB, b) << "one contiguous range";
  EXPECT_EQ(2, f.source.reserves);
  EXPECT_EQ(0, f.source.acquires) << "no chunk at all";
  for (auto& [base, bytes] : f.source.reserved) {
    EXPECT_EQ(0u, bytes % (2 * MiB)) << "ranges in whole pages";
    EXPECT_GE(bytes, 1024 * MiB) << "1 1/8 of the device";
  }
  // 3 MiB + 100 MiB need 104 MiB of 2 MiB pages; the 1 MiB left at the end is a free block.
  EXPECT_EQ(2 * MiB + 104 * MiB, f.policy.stats().reserved.current);
  const DevAddr s2 = f.alloc(1 * MiB);
  EXPECT_EQ(s1 + 1024, s2) << "the small page has room";
  const DevAddr s3 = f.alloc(1 * MiB);
  EXPECT_EQ(b + 100 * MiB, s3) << "the small page is full: the free end of the large range before a new page";
  EXPECT_EQ(2 * MiB + 104 * MiB, f.policy.stats().reserved.current);
  f.check_tiling();
}

TEST(CachingExpandable, AFreeTailGrowsInPlace) {
  Fixture f(expandable());
  const DevAddr a = f.alloc(30 * MiB);
  EXPECT_EQ(15, f.source.maps) << "one mapping per page";
  f.policy.deallocate(a, 0);
  const DevAddr b = f.alloc(50 * MiB);
  EXPECT_EQ(a, b) << "the free 30 MiB at the end and 20 MiB of new pages are one block";
  EXPECT_EQ(25, f.source.maps) << "only the missing pages were mapped";
  EXPECT_EQ(0, f.source.unmaps) << "the block being extended keeps its pages";
  EXPECT_EQ(50 * MiB, f.policy.stats().reserved.current);
  f.check_tiling();
}

TEST(CachingExpandable, AFreedTailIsReusedBeforeMappingMore) {
  Fixture f(expandable());
  const DevAddr a = f.alloc(10 * MiB);
  const DevAddr b = f.alloc(10 * MiB);
  EXPECT_EQ(a + 10 * MiB, b);
  f.policy.deallocate(b, 0);
  EXPECT_EQ(b, f.alloc(6 * MiB)) << "the freed tail is cached";
  EXPECT_EQ(10, f.source.maps);
  const DevAddr c = f.alloc(8 * MiB);  // 4 MiB free at the end: extended by 4 MiB
  EXPECT_EQ(b + 6 * MiB, c);
  EXPECT_EQ(12, f.source.maps);
  EXPECT_EQ(24 * MiB, f.policy.stats().reserved.current);
  f.check_tiling();
}

TEST(CachingExpandable, AFreeTailOfAnotherStreamIsNotExtended) {
  Fixture f(expandable());
  const DevAddr a = f.alloc(10 * MiB, 1);
  f.order.submit(1);
  f.policy.deallocate(a, 1);  // stream 1 may reuse it at once, others only after stream 1 caught up
  const DevAddr b = f.alloc(16 * MiB, 2);
  EXPECT_EQ(a + 10 * MiB, b) << "stream 2 gets new pages after it";
  EXPECT_EQ(a, f.alloc(10 * MiB, 1)) << "stream 1 still reuses its block";
  f.check_tiling();
}

TEST(CachingExpandable, TrimUnmapsTheFreeEndOnly) {
  Fixture f(expandable());
  const DevAddr a = f.alloc(10 * MiB);
  const DevAddr b = f.alloc(20 * MiB, 1);
  f.order.submit(1);
  f.policy.deallocate(b, 1);
  EXPECT_EQ(0u, f.policy.trim(0)) << "stream 1's work may still use the end";
  EXPECT_EQ(30 * MiB, f.source.used());
  f.order.finish(1);
  EXPECT_EQ(20 * MiB, f.policy.trim(0)) << "the end's pages are unmapped";
  EXPECT_EQ(10, f.source.unmaps);
  EXPECT_EQ(10 * MiB, f.policy.stats().reserved.current);
  EXPECT_EQ(10 * MiB, f.source.used());
  f.check_tiling();
  f.policy.deallocate(a, 0);
  EXPECT_EQ(10 * MiB, f.policy.trim(0));
  EXPECT_EQ(0u, f.source.used());
  EXPECT_EQ(0u, f.policy.stats().reserved.current);
  f.check_tiling();
  EXPECT_EQ(a, f.alloc(12 * MiB)) << "the range grows again from its start";
  EXPECT_EQ(1, f.source.reserves) << "the range itself stays reserved";
  f.check_tiling();
}

// The pattern that grew the range before pages were unmapped anywhere: a block freed on one stream
// after another used it cannot be reused until both caught up, so the other stream maps new pages
// beside it; once both caught up, its pages must be what the next miss reuses.
TEST(CachingExpandable, ReserveStaysBoundedUnderCrossStreamFrees) {
  Fixture f(expandable(), 4096 * MiB);
  std::mt19937_64 rng(19);
  const StreamId compute = 1, comm = 2;
  uint64_t most_live = 0;
  for (int step = 0; step < 300; ++step) {
    const uint64_t x = (3 + rng() % 38) * MiB + rng() % MiB, y = (3 + rng() % 38) * MiB + rng() % MiB;
    const DevAddr a = f.alloc(x, compute);
    f.policy.record_use(a, comm);
    f.order.submit(compute);
    f.order.submit(comm);
    f.policy.deallocate(a, compute);  // pending: comm's work may still read it
    const DevAddr b = f.alloc(y, comm);
    f.order.submit(comm);
    most_live = std::max(most_live, x + y);
    f.policy.deallocate(b, comm);
    f.order.finish_all();  // both caught up: a and b are anybody's now
    if (step % 50 == 0) f.check_tiling();
  }
  const auto st = f.policy.stats();
  // Two live blocks at most, each on at most one page more than it needs.
  EXPECT_LE(st.reserved.peak, most_live + 4 * MiB) << "peak reserved " << st.reserved.peak / MiB << " MiB";
  EXPECT_GT(f.source.unmaps, 0) << "free pages were reused by unmapping them";
  EXPECT_LE(f.source.reserves, 1) << "no more than the large range";
  f.check_tiling();
}

TEST(CachingExpandable, PagesStillUsedByTheFreeingStreamStayMapped) {
  Fixture f(expandable());
  const DevAddr a = f.alloc(20 * MiB, 1);
  f.order.submit(1);
  f.policy.deallocate(a, 1);  // stream 1's queued work may still use it
  const DevAddr b = f.alloc(30 * MiB, 2);
  EXPECT_EQ(50 * MiB, f.source.used()) << "a's pages may not be taken from under stream 1";
  EXPECT_EQ(0, f.source.unmaps);
  f.policy.deallocate(b, 2);
  f.order.finish(1);
  EXPECT_EQ(a, f.alloc(60 * MiB, 2)) << "once stream 1 caught up, a and b are one free block that grows";
  EXPECT_EQ(60 * MiB, f.source.used());
  f.check_tiling();
}

TEST(CachingExpandable, TrimKeepsAMappingThatStillHoldsALiveBlock) {
  Fixture f(expandable());
  const DevAddr a = f.alloc(3 * MiB);  // one 4 MiB mapping: a, and 1 MiB free after it
  EXPECT_EQ(4 * MiB, f.source.used());
  f.policy.trim(0);
  EXPECT_EQ(4 * MiB, f.source.used()) << "a live block lies in that mapping";
  f.policy.deallocate(a, 0);
  f.policy.trim(0);
  EXPECT_EQ(0u, f.source.used());
}

TEST(CachingExpandable, ReleaseThresholdUnmapsOnFree) {
  CachingOptions o = expandable();
  o.release_threshold = 8 * MiB;
  Fixture f(o);
  const DevAddr a = f.alloc(4 * MiB);
  const DevAddr b = f.alloc(32 * MiB);
  f.policy.deallocate(b, 0);
  EXPECT_EQ(4 * MiB, f.source.used()) << "32 MiB cached is above the threshold: unmapped at the free";
  f.policy.deallocate(a, 0);
  EXPECT_EQ(4 * MiB, f.source.used()) << "4 MiB cached is under it: kept";
  f.check_tiling();
}

TEST(CachingExpandable, OutOfPhysicalMemoryIsAClearOom) {
  Fixture f(expandable(), 64 * MiB);
  const DevAddr a = f.alloc(40 * MiB);
  DevAddr b = 0;
  Status st = f.try_alloc(30 * MiB, &b);
  EXPECT_EQ(Errc::rt_memory_allocation, st.code());
  EXPECT_NE(std::string::npos, st.message().find("growing the expandable segment by 30MiB (40MiB mapped)"))
      << st.message();
  EXPECT_NE(std::string::npos, st.message().find("fake device full")) << st.message();
  EXPECT_EQ(1u, f.policy.stats().ooms);
  st = f.try_alloc(40 * MiB, &b);  // beyond even the range (1 1/8 of the device)
  EXPECT_EQ(Errc::rt_memory_allocation, st.code());
  EXPECT_NE(std::string::npos, st.message().find("would pass its range of 72MiB")) << st.message();
  // Free pages of the small range are unmapped before the device is declared full.
  const DevAddr small = f.alloc(1000);
  f.policy.deallocate(small, 0);
  EXPECT_EQ(42 * MiB, f.source.used());
  f.policy.deallocate(a, 0);
  const int unmaps = f.source.unmaps;  // the failed growth unmapped what it had mapped
  EXPECT_EQ(a, f.alloc(64 * MiB)) << "the free 40 MiB grew by 24 MiB once the small page went back";
  EXPECT_EQ(64 * MiB, f.source.used());
  EXPECT_EQ(unmaps + 1, f.source.unmaps);
  f.check_tiling();
}

TEST(CachingExpandable, MemoryLimitCountsMappedPages) {
  CachingOptions o = expandable();
  o.memory_limit = 32 * MiB;
  Fixture f(o);
  f.alloc(20 * MiB);
  DevAddr b = 0;
  Status st = f.try_alloc(20 * MiB, &b);
  EXPECT_EQ(Errc::rt_memory_allocation, st.code());
  EXPECT_NE(std::string::npos, st.message().find("memory_limit")) << st.message();
}

}  // namespace
