// TraceRings: the per-thread record buffers behind prof::emit, and the string table.
//
// Each thread that emits gets a single-producer ring of fixed capacity; only the collector
// consumes it. A thread keeps its ring while it lives (it may write again in a later session);
// when it exits the ring is retired, and the next drain delivers what is left in it and unmaps it.
// So the memory held is one ring per live thread that has emitted (plus retired rings until the
// next drain: the collector's tick, a session's stop, or aclFinalize).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arun/plugin/profiler.hpp"

namespace arun::prof {

class TraceRings {
 public:
  // Records per ring for rings created from now on (rounded down to a power of two, at least 64).
  static void set_capacity(uint64_t records);
  // Moves every buffered record to `out` (appended, each thread's records in order) and adds the
  // records dropped since the last drain to `dropped`, as one Dropped record per thread in `out`.
  static void drain(std::vector<plugin::Record>* out, uint64_t* dropped);
  // Throws away whatever is buffered (records of an earlier session) and resets drop counts.
  static void discard();
  // Rings allocated now (tests: retired rings go away at the next drain).
  static size_t ring_count();
};

// The process-wide string table prof::intern fills.
const plugin::StringTable& strings();

}  // namespace arun::prof
