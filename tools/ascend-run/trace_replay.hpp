// Replaying an allocation trace (ASCEND_RUN_ALLOC_TRACE) through the public API, so the same request
// sequence can be run under each allocator policy and their time and memory compared.
//
// The replay makes the trace's calls in order: aclrtMalloc / aclrtFree for stream 0, and
// arunMallocAsync / arunFreeAsync / arunMemRecordStream on a stream of its own for each stream of the
// trace (created when first named, destroyed at its `x` line). Each allocation and each recorded use
// is followed by a 64-byte memset of the block on its stream, so the streams have work in flight and
// stream-ordered reuse is exercised as in the recorded program; the program's kernels and copies
// themselves are not in the trace; the host's synchronisations are, and are replayed. Before an aclrtFree (stream 0)
// the replay synchronises the device, as the program must have made sure no queued work still used the block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace replay {

struct Event {
  char op = 0;  // 'a' allocate, 'f' free, 'u' use on another stream, 'x' stream destroyed, 's' synchronize
  int32_t device = 0;
  uint64_t stream = 0;
  uint64_t bytes = 0;  // 'a'
  uint32_t page = 0;   // 'a': 0 normal, 1 huge, 2 huge 1G
  uint64_t id = 0;     // 'a', 'f', 'u'
};

struct Trace {
  std::vector<Event> events;
  uint64_t allocations = 0;
  int32_t max_device = -1;
};

// Reads a trace file; false with "FILE:LINE: reason" in *error for anything malformed.
bool load(const std::string& path, Trace* out, std::string* error);

struct Result {
  uint64_t calls = 0;           // allocation, free and record-use calls made
  double call_seconds = 0;      // time spent inside those calls
  double wall_seconds = 0;      // the whole replay, memsets and final synchronisation included
  uint64_t peak_requested = 0;  // over the devices of the trace
  uint64_t peak_reserved = 0;
  uint64_t chunk_acquires = 0;
  uint64_t ooms = 0;  // allocations that failed (the replay goes on without the block)
  std::string policy;
};

// Replays `trace` on the initialised runtime. The trace's devices must exist and must not be open
// yet (the peaks are the device's since it opened); they are reset at the end. False with the
// reason in *error when an API call other than an allocation fails.
bool run(const Trace& trace, Result* out, std::string* error);

}  // namespace replay
