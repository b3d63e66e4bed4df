// LeakReport: what the program never released, gathered while aclrtResetDevice or aclFinalize tear
// things down, and written as one readable report (the source article's second pitfall: memory and
// handles that outlive their use because nothing frees them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arun {

struct LeakReport {
  struct Memory {
    int32_t device = -1;  // -1: pinned host memory (aclrtMallocHost)
    uint64_t addr = 0;
    uint64_t bytes = 0;
    const void* site = nullptr;
  };
  struct Handle {
    int32_t device = 0;
    int32_t id = 0;  // stream id; unused for events and contexts
  };
  std::vector<Memory> memory;
  std::vector<Handle> streams, events, contexts;
  std::vector<int32_t> devices_left_set;  // aclrtSetDevice without a matching aclrtResetDevice

  bool empty() const {
    return memory.empty() && streams.empty() && events.empty() && contexts.empty() && devices_left_set.empty();
  }
  // `when` names the call ("aclFinalize"); with call_sites, each block's allocating function and
  // library are resolved (dladdr) and listed.
  std::string format(const std::string& when, bool call_sites) const;
};

}  // namespace arun
