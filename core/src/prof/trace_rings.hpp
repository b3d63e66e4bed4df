// TraceRings: the per-thread record buffers behind prof::emit, and the string table.
//
// Each thread that emits gets single-producer rings of fixed capacity: one of Records and one of
// compact API spans, each made at the thread's first entry of its kind; only the collector
// consumes them. A thread keeps its rings while it lives (it may write again in a later session);
// when it exits they are retired, and the next drain delivers what is left in them and unmaps
// them. So the memory held is at most two rings per live thread that has emitted (plus retired
// rings until the next drain: the collector's tick, a session's stop, or aclFinalize).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arun/plugin/profiler.hpp"

namespace arun::prof {

class TraceRings {
 public:
  // Bytes per ring for rings created from now on (each holds the largest power of two of entries
  // that fits, at least 64).
  static void set_buffer_bytes(uint64_t bytes);
  // Moves every buffered entry to `out` as Records (appended, each ring's in order) and adds the
  // records dropped since the last drain to `dropped`, as one Dropped record per ring in `out`.
  static void drain(std::vector<plugin::Record>* out, uint64_t* dropped);
  // Throws away whatever is buffered (records of an earlier session) and resets drop counts.
  static void discard();
  // Rings allocated now (tests: retired rings go away at the next drain).
  static size_t ring_count();
};

// The process-wide string table prof::intern fills.
const plugin::StringTable& strings();

}  // namespace arun::prof
