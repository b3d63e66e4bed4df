// ascend-run extension: device-memory statistics for C++ programs (not part of CANN).
//
// A thin layer over arunGetMemStats / arunMemReport (arun/arun_ext.h) with value types:
//
//   arun::MemoryStats s;
//   if (arun::memory_stats(0, &s) == ACL_SUCCESS && s.overhead() > 1.5) {
//     std::fputs(arun::memory_report(0).c_str(), stderr);
//   }
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arun/arun_ext.h"

namespace arun {

// A byte gauge: the value now, its highest value, and everything ever added to it.
struct MemoryGauge {
  uint64_t current = 0;
  uint64_t peak = 0;
  uint64_t total = 0;
};

struct MemoryStats {
  std::string policy;   // the allocator policy of the device
  MemoryGauge requested;  // what the program asked for
  MemoryGauge allocated;  // what it was handed (after the policy's rounding)
  MemoryGauge active;     // allocated, plus freed blocks still waiting for their streams
  MemoryGauge reserved;   // what the policy holds from the device
  uint64_t cached_free = 0, largest_free = 0;
  uint64_t allocations = 0, frees = 0, live_blocks = 0;
  uint64_t chunk_acquires = 0, chunk_releases = 0, cache_hits = 0, ooms = 0, pending_frees = 0;
  double fragmentation = 0;  // 1 - largest free block / cached free memory

  // Peak reserved over peak requested: what the policy cost on top of what the program needed.
  double overhead() const { return requested.peak == 0 ? 0.0 : double(reserved.peak) / double(requested.peak); }
};

// The statistics of device `device`; the codes are arunGetMemStats's.
inline aclError memory_stats(int32_t device, MemoryStats* out) {
  arunMemStats s{};
  const aclError rc = arunGetMemStats(device, &s);
  if (rc != ACL_SUCCESS) return rc;
  auto gauge = [](const arunMemGauge& g) { return MemoryGauge{g.current, g.peak, g.total}; };
  out->policy = s.policy;
  out->requested = gauge(s.requested);
  out->allocated = gauge(s.allocated);
  out->active = gauge(s.active);
  out->reserved = gauge(s.reserved);
  out->cached_free = s.cachedFree;
  out->largest_free = s.largestFree;
  out->allocations = s.allocations;
  out->frees = s.frees;
  out->live_blocks = s.liveBlocks;
  out->chunk_acquires = s.chunkAcquires;
  out->chunk_releases = s.chunkReleases;
  out->cache_hits = s.cacheHits;
  out->ooms = s.ooms;
  out->pending_frees = s.pendingFrees;
  out->fragmentation = s.fragmentation;
  return ACL_SUCCESS;
}

// The readable table of arunMemReport; empty when the device id is bad or the runtime is not up.
inline std::string memory_report(int32_t device) {
  const char* text = arunMemReport(device);
  return text != nullptr ? std::string(text) : std::string();
}

// Every block of the device's allocator (arunMemSnapshot); empty on error.
inline std::vector<arunMemBlock> memory_snapshot(int32_t device) {
  size_t count = 0;
  if (arunMemSnapshot(device, nullptr, 0, &count) != ACL_SUCCESS) return {};
  std::vector<arunMemBlock> blocks(count + 16);  // room for blocks made meanwhile by other threads
  if (arunMemSnapshot(device, blocks.data(), blocks.size(), &count) != ACL_SUCCESS) return {};
  blocks.resize(count < blocks.size() ? count : blocks.size());
  return blocks;
}

}  // namespace arun
