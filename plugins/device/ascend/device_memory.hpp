// DeviceMemory: the allocator of one simulated device, over an AddressSpace.
//
// Rounding follows aclrtMalloc on A2/A3 parts:
//  - Normal pages: the request is rounded up to 32 bytes and 32 bytes of tail padding are added;
//    blocks start on a 512-byte boundary (stronger than the 64 bytes ACL promises) and occupy a
//    multiple of 512 bytes, so every free range stays 512-aligned.
//  - Huge (2 MiB) pages for requests over 1 MiB: padded as above, then rounded up to 2 MiB and
//    placed 2 MiB-aligned. Requests of at most 1 MiB get normal pages (as HUGE_FIRST does). If no
//    2 MiB-aligned hole is left the request falls back to normal pages, as HUGE_FIRST does when
//    the huge-page pool runs out.
//  - Huge1G: rounded up to 32 bytes without tail padding, then to 1 GiB, placed 1 GiB-aligned.
//
// What the user sees of an allocation is the size it asked for: find_allocation() reports that
// size, and map() accepts only ranges inside [base, base + requested). The rounding and padding
// are occupied (memory_usage() counts them) but not addressable, so an overrun by a kernel or a
// copy is a fault even where the real part would silently write into padding.
//
// Thread safe: allocate/release take the lock exclusively; map/find/usage take it shared.
#pragma once

#include <cstdint>
#include <map>
#include <shared_mutex>
#include <string>

#include "address_space.hpp"
#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"
#include "range_allocator.hpp"

namespace arun::ascend {

// Also the device's physical memory for virtual memory management (plugin ABI minor 6): a
// physical allocation takes its capacity from the same range allocator (so aclrtGetMemInfo counts
// it) but is never addressable through the device range; its pages are a memfd, which the core
// maps into reserved virtual ranges (and another process may map too).
class DeviceMemory final : public plugin::PhysicalMemorySource {
 public:
  static constexpr uint64_t kSizeGranule = 32;      // aclrtMalloc rounds to 32 bytes ...
  static constexpr uint64_t kTailPadding = 32;      // ... and adds 32 bytes
  static constexpr uint64_t kBlockAlignment = 512;  // start alignment of every block
  static constexpr uint64_t kHugePage = 2ull << 20;
  static constexpr uint64_t kHugeThreshold = 1ull << 20;  // huge pages only above this size
  static constexpr uint64_t kHuge1GPage = 1ull << 30;

  // `label` prefixes messages ("device 0").
  explicit DeviceMemory(std::string label);

  // Reserves the address space; capacity is `bytes` rounded down to kBlockAlignment.
  Status init(uint64_t bytes);

  Status allocate(uint64_t bytes, plugin::PageKind page, plugin::DevAddr* out);
  Status release(plugin::DevAddr addr);
  // Releases every allocation and returns all backing pages to the OS.
  void release_all();

  plugin::MemoryUsage usage() const;
  bool owns(plugin::DevAddr addr) const { return space_.contains(addr); }
  bool find_allocation(plugin::DevAddr addr, plugin::DevAddr* base, uint64_t* size) const;
  // Host view of [addr, addr+bytes) if it lies inside one live allocation's requested size;
  // bytes == 0 maps a single address that lies inside one.
  void* map(plugin::DevAddr addr, uint64_t bytes) const;

  uint64_t capacity() const { return allocator_.capacity(); }

  Status create_physical(uint64_t bytes, plugin::PageKind page, int* fd, uint64_t* id) override;
  void release_physical(uint64_t id) override;
  Status export_range(plugin::DevAddr addr, uint64_t bytes, int* fd, uint64_t* offset) override;

  // How many bytes a request occupies and at what alignment, for the page class actually used.
  struct Placement {
    uint64_t occupied = 0;
    uint64_t alignment = 0;
    plugin::PageKind page = plugin::PageKind::Normal;
  };
  static bool placement_for(uint64_t bytes, plugin::PageKind page, Placement* out);

 private:
  struct Allocation {
    uint64_t occupied;
    uint64_t requested;
    plugin::PageKind page;
  };
  // The live allocation whose requested range contains offset, or end().
  std::map<uint64_t, Allocation>::const_iterator find_live(uint64_t offset) const;

  std::string label_;
  AddressSpace space_;
  mutable std::shared_mutex mutex_;
  RangeAllocator allocator_;
  std::map<uint64_t, Allocation> live_;    // by offset
  std::map<uint64_t, uint64_t> physical_;  // physical allocations: offset -> occupied bytes
};

}  // namespace arun::ascend
