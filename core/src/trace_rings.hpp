// TraceRings: the per-thread record buffers behind prof::emit, and the string table.
//
// Each thread that emits gets a single-producer ring of fixed capacity; only the collector
// consumes it. Rings are never freed while the process runs (a writer may still hold one when a
// session stops), and a ring whose thread exited is handed to the next new thread, so the memory
// held is bounded by the most threads that were ever alive at once.
#pragma once

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
};

// The process-wide string table prof::intern fills.
const plugin::StringTable& strings();

}  // namespace arun::prof
