// The allocator-policy interface: how device memory handed to the program (aclrtMalloc) is carved
// out of what the device plugin provides.
//
// The core owns the boundary: it validates arguments, records every live block the program holds
// (for copy and kernel checks, the leak report and the OOM message), and serialises calls into a
// policy with one mutex per device, so a policy needs no locking of its own. A policy owns the
// strategy: which chunks to take from the device (ChunkSource), how to split them, what to cache,
// and when memory freed on one stream may be reused on another (StreamOrder).
//
// A policy is built into the core (`direct`) or comes from a plugin of kind Allocator, whose factory
// returns an AllocatorPlugin; the core asks it for one policy per device.
#pragma once

#include <cstdint>
#include <string>

#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"
#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::plugin {

// A stream as allocators see it: a process-wide id that is never reused, so a policy can key
// per-stream state by it without confusing a destroyed stream with a new one. 0 means "no stream":
// memory allocated or freed by the stream-less aclrtMalloc / aclrtFree, ordered against every stream.
using StreamId = uint64_t;

// A contiguous range of device memory obtained from the device in one piece.
struct Chunk {
  DevAddr base = 0;
  uint64_t size = 0;       // usable bytes from base
  uint64_t footprint = 0;  // device memory it occupies (>= size: the device rounds and pads)
};

// Growable device address ranges (plugin ABI minor 7, optional; ChunkSource::virtual_ranges).
// A policy reserves a range of device addresses that holds no memory, then maps the device's
// physical memory at page-aligned addresses inside it and unmaps it again, so one range can grow
// and shrink at its end (expandable segments). Memory mapped here is ordinary device memory to the
// rest of the runtime: the blocks a policy hands out from it are freed, copied and checked like any.
class VirtualRanges {
 public:
  // Page size: every address and size given to map() is a multiple of it.
  virtual uint64_t granularity() const = 0;
  // A range of `bytes` (a multiple of granularity()) with nothing mapped; its base is aligned to
  // granularity(). Errc::rt_memory_allocation when no address space is left.
  virtual Status reserve(uint64_t bytes, DevAddr* base) = 0;
  // Maps `bytes` of fresh physical memory at `addr` inside a reserved range, where nothing is
  // mapped; *footprint is the device memory it occupies. Errc::rt_memory_allocation (with the
  // device's reason) when the device has no room.
  virtual Status map(DevAddr addr, uint64_t bytes, uint64_t* footprint) = 0;
  // Unmaps the mapping map() made at `addr` (whole) and gives its memory back to the device.
  virtual void unmap(DevAddr addr) = 0;
  // Unmaps what is still mapped in the range reserved at `base` and releases it.
  virtual void release_range(DevAddr base) = 0;

 protected:
  ~VirtualRanges() = default;
};

// Raw device memory, as the device plugin provides it. acquire() fails with
// Errc::rt_memory_allocation when the device has no room; the message says why.
class ChunkSource {
 public:
  virtual Status acquire(uint64_t bytes, PageKind page, Chunk* out) = 0;
  virtual void release(const Chunk& chunk) = 0;
  virtual MemoryUsage device_usage() const = 0;
  // ABI minor 7: growable ranges over the device's physical memory, or nullptr when the device
  // has none (no physical-memory support). Appended last so the earlier entries keep their slots.
  virtual VirtualRanges* virtual_ranges() { return nullptr; }

 protected:
  ~ChunkSource() = default;
};

// Stream-ordered reuse. mark(s) is a point in stream s's order that is reached once everything
// submitted to s so far has completed (for s == 0: everything submitted to any stream of the device).
// Queries never block: a policy must not wait for device work while the core's allocator lock is
// held (a host callback in that work may itself be freeing memory).
class StreamOrder {
 public:
  virtual uint64_t mark(StreamId stream) = 0;
  virtual bool reached(StreamId stream, uint64_t mark) = 0;

 protected:
  ~StreamOrder() = default;
};

// A byte or count gauge: the current value, its peak, and the total ever added.
struct Gauge {
  uint64_t current = 0;
  uint64_t peak = 0;
  uint64_t total = 0;

  void add(uint64_t v) {
    current += v;
    total += v;
    if (current > peak) peak = current;
  }
  void sub(uint64_t v) { current = v > current ? 0 : current - v; }
};

// What every policy reports. `requested` is what the program asked for; `allocated` is what it was
// handed (after rounding); `active` adds blocks freed but not yet reusable (waiting on a stream);
// `reserved` is what the policy holds from the device (chunk footprints).
struct AllocatorStats {
  Gauge requested, allocated, active, reserved;
  uint64_t cached_free = 0;       // free bytes inside reserved chunks
  uint64_t largest_free = 0;      // largest block that could be handed out without a new chunk
  uint64_t allocations = 0, frees = 0;
  uint64_t chunk_acquires = 0, chunk_releases = 0;
  uint64_t cache_hits = 0;        // allocations served without acquiring a chunk
  uint64_t ooms = 0;
  uint64_t pending_frees = 0;     // blocks freed but not yet reusable (their streams have not caught up)

  // 1 - largest free / total free over the reserved chunks (0 when nothing is free).
  double fragmentation() const {
    return cached_free == 0 ? 0.0 : 1.0 - double(largest_free) / double(cached_free);
  }
};

struct AllocRequest {
  uint64_t bytes = 0;     // as the program asked (> 0)
  uint64_t alignment = 0;  // power of two; the block's address is a multiple of it
  PageKind page = PageKind::Normal;
  bool page_fallback = true;  // HUGE_FIRST: a normal-page chunk will do when huge pages are short
  StreamId stream = 0;
};

struct Allocation {
  DevAddr addr = 0;
  uint64_t size = 0;  // usable bytes at addr (>= request.bytes)
};

// One block of a policy, for snapshots. `state`: live (the program holds it), free (cached), or
// pending (freed, not reusable until its stream reaches `mark`).
struct BlockInfo {
  enum class State : uint32_t { Live, Free, Pending };
  DevAddr addr = 0;
  uint64_t size = 0;
  DevAddr chunk = 0;
  State state = State::Live;
  StreamId stream = 0;
};
using BlockVisitor = void (*)(void* context, const BlockInfo& block);

class AllocatorPolicy {
 public:
  virtual ~AllocatorPolicy() = default;
  virtual const char* name() const = 0;
  // The options in force, one "key = value" per line (for the OOM message and reports).
  virtual std::string describe() const = 0;

  virtual Status allocate(const AllocRequest& request, Allocation* out) = 0;
  // `addr` is exactly what allocate() returned and is not used again by the program; `stream` is
  // the stream the program freed it on (0: aclrtFree, ordered after all streams).
  virtual void deallocate(DevAddr addr, StreamId stream) = 0;
  // The program used the block on another stream than it was allocated on.
  virtual void record_use(DevAddr addr, StreamId stream) { (void)addr, (void)stream; }
  // A stream is gone; per-stream state may be merged or dropped.
  virtual void stream_retired(StreamId stream) { (void)stream; }
  // Returns cached memory to the device until at most `keep_bytes` stay reserved; the bytes released.
  virtual uint64_t trim(uint64_t keep_bytes) = 0;  // called by arunMemTrim; returns footprint bytes

  virtual AllocatorStats stats() const = 0;
  virtual void visit(BlockVisitor visitor, void* context) const = 0;
};

// What an allocator plugin's factory returns.
class AllocatorPlugin : public PluginObject {
 public:
  // A policy for one device. The source and the order outlive the policy.
  virtual AllocatorPolicy* create(ChunkSource* source, StreamOrder* order, char* error, size_t error_size) = 0;
};

}  // namespace arun::plugin
