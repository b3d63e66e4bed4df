// MemoryRegistry: the host allocations the runtime made (aclrtMallocHost), so copies can tell
// pinned host memory from pageable memory and aclrtFreeHost can reject foreign pointers. It also
// holds the blocks aclrtFreeHost retired while queued work may still use them (stream-ordered free).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace arun {

class Stream;

class MemoryRegistry {
 public:
  // Where a stream stood when a block was freed: the block is released once the stream has
  // completed `submitted` tasks (or is gone: a retired stream has completed or dropped its work).
  struct StreamPosition {
    std::weak_ptr<const Stream> stream;
    uint64_t submitted = 0;
  };

  ~MemoryRegistry() { release_retired(/*all=*/true); }
  // `site`: where the program allocated it (for the leak report), or nullptr.
  void add(void* base, uint64_t size, const void* site = nullptr);
  // Removes the allocation that starts at `base`; false if there is none.
  bool remove(void* base, uint64_t* size = nullptr);
  // The allocation containing [ptr, ptr+bytes); false if none.
  bool find(const void* ptr, uint64_t bytes, void** base = nullptr, uint64_t* size = nullptr) const;
  // aclrtFreeHost of a block already removed from the registry: std::free'd at once when `positions`
  // is empty, else kept until every position is reached. Releases what has been reached meanwhile.
  void retire(void* base, std::vector<StreamPosition> positions);
  // std::free's the retired blocks whose positions are all reached (every one with `all`, once no
  // work is left that could use them: aclFinalize after the streams are drained).
  void release_retired(bool all = false);
  uint64_t retired_count() const;
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
  struct Retired {
    void* base;
    std::vector<StreamPosition> positions;
  };
  static bool reached(Retired& r);
  mutable std::mutex mu_;
  std::map<uintptr_t, Entry> ranges_;  // base -> size, site
  std::vector<Retired> retired_;       // guarded by mu_
};

}  // namespace arun
