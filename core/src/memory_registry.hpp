// MemoryRegistry: the host allocations the runtime made (aclrtMallocHost), so copies can tell
// pinned host memory from pageable memory and aclrtFreeHost can reject foreign pointers.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace arun {

class MemoryRegistry {
 public:
  void add(void* base, uint64_t size);
  // Removes the allocation that starts at `base`; false if there is none.
  bool remove(void* base, uint64_t* size = nullptr);
  // The allocation containing [ptr, ptr+bytes); false if none.
  bool find(const void* ptr, uint64_t bytes, void** base = nullptr, uint64_t* size = nullptr) const;
  uint64_t count() const;
  uint64_t bytes() const;
  // Calls fn(base, size) for every allocation and forgets them all.
  template <class Fn>
  void drain(Fn fn) {
    std::map<uintptr_t, uint64_t> all;
    {
      std::lock_guard lock(mu_);
      all.swap(ranges_);
    }
    for (auto& [b, s] : all) fn(reinterpret_cast<void*>(b), s);
  }

 private:
  mutable std::mutex mu_;
  std::map<uintptr_t, uint64_t> ranges_;  // base -> size
};

}  // namespace arun
