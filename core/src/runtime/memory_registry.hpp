// MemoryRegistry: the host allocations the runtime made (aclrtMallocHost), so copies can tell
// pinned host memory from pageable memory and aclrtFreeHost can reject foreign pointers.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace arun {

class MemoryRegistry {
 public:
  // `site`: where the program allocated it (for the leak report), or nullptr.
  void add(void* base, uint64_t size, const void* site = nullptr);
  // Removes the allocation that starts at `base`; false if there is none.
  bool remove(void* base, uint64_t* size = nullptr);
  // The allocation containing [ptr, ptr+bytes); false if none.
  bool find(const void* ptr, uint64_t bytes, void** base = nullptr, uint64_t* size = nullptr) const;
  uint64_t count() const;
  uint64_t bytes() const;
  // Calls fn(base, size, site) for every allocation and forgets them all.
  template <class Fn>
  void drain(Fn fn) {
    std::map<uintptr_t, Entry> all;
    {
      std::lock_guard lock(mu_);
      all.swap(ranges_);
    }
    for (auto& [b, e] : all) fn(reinterpret_cast<void*>(b), e.size, e.site);
  }

 private:
  struct Entry {
    uint64_t size;
    const void* site;
  };
  mutable std::mutex mu_;
  std::map<uintptr_t, Entry> ranges_;  // base -> size, site
};

}  // namespace arun
