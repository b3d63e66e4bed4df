// Test doubles for allocator policies: a chunk source of address ranges with a capacity (no memory
// behind them) and a stream order whose progress the test moves by hand.
#pragma once

#include <gtest/gtest.h>

#include <map>

#include "arun/plugin/allocator.hpp"

namespace arun::testing {

using arun::Errc;
using arun::Status;
using arun::plugin::Chunk;
using arun::plugin::DevAddr;
using arun::plugin::MemoryUsage;
using arun::plugin::PageKind;
using arun::plugin::StreamId;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

// Hands out address ranges from a bump pointer (2 MiB aligned, never reused) up to a capacity.
// With `ranges`, also growable ranges (VirtualRanges): mapped bytes count against the capacity and
// appear in `live` under their range's base.
class FakeSource final : public arun::plugin::ChunkSource, public arun::plugin::VirtualRanges {
 public:
  explicit FakeSource(uint64_t capacity, bool ranges = false) : capacity_(capacity), ranges_(ranges) {}
  arun::plugin::VirtualRanges* virtual_ranges() override { return ranges_ ? this : nullptr; }
  uint64_t granularity() const override { return 2 * MiB; }
  Status reserve(uint64_t bytes, DevAddr* base) override {
    ++reserves;
    EXPECT_EQ(0u, bytes % granularity());
    *base = next_;
    next_ += bytes;
    reserved[*base] = bytes;
    return Status::Ok();
  }
  Status map(DevAddr addr, uint64_t bytes, uint64_t* footprint) override {
    ++maps;
    auto r = range_of(addr);
    EXPECT_NE(reserved.end(), r) << "mapped outside a reserved range";
    EXPECT_EQ(0u, (addr - r->first) % granularity());
    EXPECT_EQ(0u, bytes % granularity());
    EXPECT_LE(addr + bytes, r->first + r->second) << "runs past the range";
    auto next = mappings.lower_bound(addr);
    if (next != mappings.end()) {
      EXPECT_LE(addr + bytes, next->first) << "maps over a mapping";
    }
    if (used_ + bytes > capacity_) return Status(Errc::rt_memory_allocation, "fake device full");
    mappings[addr] = bytes;
    used_ += bytes;
    live[r->first] += bytes;
    *footprint = bytes;
    return Status::Ok();
  }
  void unmap(DevAddr addr) override {
    ++unmaps;
    auto m = mappings.find(addr);
    ASSERT_NE(mappings.end(), m) << "unmapped what was not mapped there";
    const DevAddr base = range_of(addr)->first;
    used_ -= m->second;
    if ((live[base] -= m->second) == 0) live.erase(base);
    mappings.erase(m);
  }
  void release_range(DevAddr base) override {
    const uint64_t size = reserved.at(base);
    for (auto m = mappings.lower_bound(base); m != mappings.end() && m->first < base + size;) {
      used_ -= m->second;
      m = mappings.erase(m);
    }
    live.erase(base);
    reserved.erase(base);
  }
  Status acquire(uint64_t bytes, PageKind, Chunk* out) override {
    ++acquires;
    if (used_ + bytes > capacity_) return Status(Errc::rt_memory_allocation, "fake device full");
    out->base = next_;
    out->size = bytes;
    out->footprint = bytes;
    next_ += (bytes + 2 * MiB - 1) / (2 * MiB) * (2 * MiB);
    used_ += bytes;
    live[out->base] = bytes;
    return Status::Ok();
  }
  void release(const Chunk& c) override {
    ++releases;
    EXPECT_EQ(1u, live.erase(c.base)) << "released a chunk twice or one never given";
    used_ -= c.size;
  }
  MemoryUsage device_usage() const override { return {capacity_, capacity_ - used_, capacity_ - used_, live.size()}; }
  uint64_t used() const { return used_; }

  std::map<DevAddr, uint64_t> live;
  int acquires = 0, releases = 0;
  std::map<DevAddr, uint64_t> reserved, mappings;  // growable ranges and what is mapped in them
  int reserves = 0, maps = 0, unmaps = 0;

 private:
  std::map<DevAddr, uint64_t>::iterator range_of(DevAddr addr) {
    auto r = reserved.upper_bound(addr);
    return r == reserved.begin() || addr >= std::prev(r)->first + std::prev(r)->second ? reserved.end() : std::prev(r);
  }
  uint64_t capacity_;
  bool ranges_;
  uint64_t used_ = 0;
  DevAddr next_ = 1ull << 40;
};

// Per-stream submitted / completed positions the test moves by hand; stream 0 means all streams.
class ManualOrder final : public arun::plugin::StreamOrder {
 public:
  uint64_t mark(StreamId s) override {
    if (s != 0) return submitted[s];
    // A device-wide mark: remember every stream's position under a new id.
    std::map<StreamId, uint64_t> snap;
    for (auto& [id, pos] : submitted)
      if (completed[id] < pos) snap[id] = pos;
    if (snap.empty()) return 0;
    device_marks[++next_id] = snap;
    return next_id;
  }
  bool reached(StreamId s, uint64_t m) override {
    if (m == 0) return true;
    if (s != 0) return completed[s] >= m;
    for (auto& [id, pos] : device_marks[m])
      if (completed[id] < pos) return false;
    return true;
  }
  void submit(StreamId s) { ++submitted[s]; }               // work that uses memory is in flight on s
  void finish(StreamId s) { completed[s] = submitted[s]; }  // s has completed it
  void finish_all() {
    for (auto& [id, pos] : submitted) completed[id] = pos;
  }

  std::map<StreamId, uint64_t> submitted, completed;
  std::map<uint64_t, std::map<StreamId, uint64_t>> device_marks;
  uint64_t next_id = 0;
};

}  // namespace arun::testing
