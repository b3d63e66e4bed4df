// Host ranges registered with aclrtHostRegister: runtime-scoped (owned by Runtime, cleared at
// aclFinalize). Ranges never overlap; a range is unregistered by its start address.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace arun {

class HostRegistrations {
 public:
  // False when [base, base + size) overlaps a registered range.
  bool add(uintptr_t base, uint64_t size);
  // False when `base` is not the start of a registered range.
  bool remove(uintptr_t base);
  void clear();

 private:
  std::mutex mu_;
  std::map<uintptr_t, uint64_t> ranges_;  // start -> size
};

}  // namespace arun
