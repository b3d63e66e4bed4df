// Unit tests of the size-class bins policy (plugins/allocator/bins) through the AllocatorPolicy
// interface, with the fake chunk source and manual stream order of fake_memory.hpp.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "bins_policy.hpp"
#include "fake_memory.hpp"

namespace {

using arun::Errc;
using arun::Status;
using arun::bins::BinsOptions;
using arun::bins::BinsPolicy;
using arun::plugin::AllocRequest;
using arun::plugin::Allocation;
using arun::plugin::DevAddr;
using arun::plugin::StreamId;
using arun::testing::FakeSource;
using arun::testing::KiB;
using arun::testing::ManualOrder;
using arun::testing::MiB;

struct Bins {
  explicit Bins(BinsOptions o = {}, uint64_t capacity = 1024 * MiB) : source(capacity), policy(&source, &order, o) {}
  DevAddr alloc(uint64_t bytes, uint64_t* size = nullptr) {
    AllocRequest r;
    r.bytes = bytes;
    r.alignment = 64;
    Allocation a;
    Status st = policy.allocate(r, &a);
    EXPECT_TRUE(st.ok()) << st.message();
    if (size != nullptr) *size = a.size;
    return a.addr;
  }
  FakeSource source;
  ManualOrder order;
  BinsPolicy policy;
};

TEST(BinsPolicy, ClassesWasteAtMostAQuarter) {
  EXPECT_EQ(512u, BinsPolicy::class_size(1, 4 * MiB));
  EXPECT_EQ(512u, BinsPolicy::class_size(512, 4 * MiB));
  EXPECT_EQ(640u, BinsPolicy::class_size(513, 4 * MiB));
  EXPECT_EQ(1024u, BinsPolicy::class_size(1000, 4 * MiB));
  EXPECT_EQ(1280u, BinsPolicy::class_size(1025, 4 * MiB));
  EXPECT_EQ(0u, BinsPolicy::class_size(4 * MiB + 1, 4 * MiB)) << "above max_bin: no class";
  for (uint64_t b = 1; b <= 4 * MiB; b = b * 3 / 2 + 1) {
    const uint64_t c = BinsPolicy::class_size(b, 4 * MiB);
    ASSERT_GE(c, b);
    ASSERT_LE(double(c), std::max(512.0, 1.25 * double(b)) + 1) << b;
    ASSERT_EQ(0u, c % 128) << "classes keep 128-byte alignment at least";
  }
}

TEST(BinsPolicy, OneSlabServesAClassAndFreesAreReusedAtOnce) {
  Bins b;
  uint64_t size = 0;
  DevAddr a = b.alloc(700, &size);
  EXPECT_EQ(768u, size);
  DevAddr c = b.alloc(760);
  EXPECT_EQ(a + 768, c) << "same class, next block of the slab";
  EXPECT_EQ(1, b.source.acquires);
  b.policy.deallocate(a, 0);
  EXPECT_EQ(a, b.alloc(700)) << "nothing in flight: reused at once";
  DevAddr other = b.alloc(5000);  // another class: its own slab
  EXPECT_EQ(2, b.source.acquires);
  EXPECT_NE(0u, other);
  const auto s = b.policy.stats();
  EXPECT_EQ(2u, s.cache_hits);
  EXPECT_EQ(768u * 2 + 5120, s.allocated.current);
}

TEST(BinsPolicy, LargeRequestsGetTheirOwnChunk) {
  Bins b;
  DevAddr a = b.alloc(5 * MiB);
  EXPECT_EQ(1, b.source.acquires);
  b.policy.deallocate(a, 0);
  EXPECT_EQ(1, b.source.releases);
  EXPECT_EQ(0u, b.source.used());
}

TEST(BinsPolicy, FreedBlocksWaitForTheirStream) {
  Bins b;
  DevAddr a = b.alloc(1000);
  b.order.submit(3);
  b.policy.deallocate(a, 3);
  EXPECT_NE(a, b.alloc(1000)) << "stream 3's work may still use it";
  EXPECT_EQ(1u, b.policy.stats().pending_frees);
  b.order.finish(3);
  EXPECT_EQ(a, b.alloc(1000));
}

TEST(BinsPolicy, TrimReturnsEmptySlabsOnly) {
  Bins b;
  std::vector<DevAddr> v;
  for (int i = 0; i < 10; ++i) v.push_back(b.alloc(64 * KiB));
  DevAddr keep = b.alloc(100 * KiB);  // another class, stays live
  for (DevAddr a : v) b.policy.deallocate(a, 0);
  EXPECT_EQ(2 * MiB, b.policy.trim(0));
  EXPECT_EQ(1u, b.source.live.size());
  b.policy.deallocate(keep, 0);
  b.policy.trim(0);
  EXPECT_EQ(0u, b.source.used());
}

TEST(BinsPolicy, RandomizedBlocksNeverOverlap) {
  Bins b(BinsOptions{}, 4096 * MiB);
  std::mt19937_64 rng(99);
  std::map<DevAddr, uint64_t> live;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 100 < 55) {
      const uint64_t bytes = 1 + rng() % (uint64_t(1) << (rng() % 23 + 1));
      uint64_t size = 0;
      DevAddr a = b.alloc(bytes, &size);
      ASSERT_EQ(0u, a % 128);
      auto next = live.lower_bound(a);
      if (next != live.end()) {
        ASSERT_LE(a + size, next->first);
      }
      if (next != live.begin()) {
        ASSERT_LE(std::prev(next)->first + std::prev(next)->second, a);
      }
      live[a] = size;
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      b.policy.deallocate(it->first, 0);
      live.erase(it);
    }
  }
  const auto s = b.policy.stats();
  uint64_t bytes = 0;
  for (auto& [a, size] : live) bytes += size;
  EXPECT_EQ(bytes, s.allocated.current);
  EXPECT_EQ(s.reserved.current, b.source.used());
  for (auto& [a, size] : live) b.policy.deallocate(a, 0);
  b.policy.trim(0);
  EXPECT_EQ(0u, b.source.used());
}

}  // namespace
