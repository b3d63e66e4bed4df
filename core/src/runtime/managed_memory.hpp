// Managed (unified) memory, spec part 2, 4.10: one process-wide window
// [0x90000000000, +3 TiB) reserved PROT_NONE at the first aclrtMemAllocManaged (where that range is
// taken, as by a sanitizer's shadow memory, the window goes where the OS puts it, with a
// warning: programs must not rely on the address, only on the window being one range). An allocation is
// a run of 2 MiB pages of that window made read/write (MAP_NORESERVE: the OS backs a page at first
// touch). It is host memory the devices may reach: HostServices::host_mapped answers yes for it,
// so kernels map it and copies read and write it directly, while ordinary device memory stays
// unreachable from the host. Placement is a model: advice and prefetches are recorded per 2 MiB
// page and reported by aclrtMemManagedGetAttr(s); nothing moves, since host and simulated devices
// share the same physical memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "arun/core/status.hpp"

namespace arun {

class ManagedMemory {
 public:
  static constexpr uint64_t kPreferredBase = 0x90000000000ull;  // CANN's window
  static constexpr uint64_t kWindowSize = 3ull << 40;           // 3 TiB
  static constexpr uint64_t kMinWindowSize = 16ull << 30;       // the least a fallback window may be
  static constexpr uint64_t kPage = 2ull << 20;                 // 2 MiB

  // A location as aclrtMemManagedLocation: type (aclrtMemManagedLocationType value) and id.
  struct Location {
    int type = 0;  // ACL_MEM_LOCATIONTYPE_INVALID: none
    int32_t id = 0;
    bool operator==(const Location& o) const { return type == o.type && (type == 0 || id == o.id); }
  };
  struct Page {
    bool read_mostly = false;
    Location preferred;
    std::set<int32_t> accessed_by;  // device ids; -1: the host
    Location last_prefetch;         // requested
    Location resident;              // where a completed prefetch or a preferred location put it
  };

  static ManagedMemory& instance();

  // Reserves `size` (> 0) bytes rounded up to 2 MiB. rt_memory_allocation when the window is
  // exhausted or cannot be reserved.
  Status allocate(uint64_t size, void** out);
  // True (and frees it) when `ptr` is the start of a managed allocation.
  bool free(const void* ptr);
  // Frees every allocation (aclFinalize).
  void release_all();

  // The window's base once reserved (0 before the first allocation: no address is in the window).
  uint64_t base() const { return base_.load(std::memory_order_acquire); }
  bool in_window(uint64_t addr, uint64_t bytes) const {
    const uint64_t b = base();
    const uint64_t n = size_.load(std::memory_order_relaxed);
    return b != 0 && addr >= b && addr - b < n && bytes <= n - (addr - b);
  }
  // Is [addr, addr + bytes) inside one live allocation?
  bool contains(uint64_t addr, uint64_t bytes) const;

  // Runs f(Page&) for every page overlapping [addr, addr + bytes) (inside one allocation: false
  // otherwise, and f is not called).
  template <class F>
  bool for_pages(uint64_t addr, uint64_t bytes, F&& f) {
    std::lock_guard lock(mu_);
    Allocation* a = find_locked(addr, bytes);
    if (a == nullptr) return false;
    const uint64_t first = (addr - a->base) / kPage;
    const uint64_t last = (addr - a->base + bytes - 1) / kPage;
    for (uint64_t p = first; p <= last; ++p) f(a->pages[p]);
    return true;
  }

 private:
  struct Allocation {
    uint64_t base = 0, size = 0;
    std::map<uint64_t, Page> pages;  // by index; made when first advised, prefetched or queried
  };
  Allocation* find_locked(uint64_t addr, uint64_t bytes);
  const Allocation* find_locked(uint64_t addr, uint64_t bytes) const;

  mutable std::mutex mu_;
  Status reserve_locked();

  std::atomic<uint64_t> base_{0};  // stored after size_ (release), read first (acquire)
  std::atomic<uint64_t> size_{0};
  std::map<uint64_t, Allocation> live_;  // base -> allocation
};

}  // namespace arun
