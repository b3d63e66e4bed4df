#include "device_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>

#include "align.hpp"

namespace arun::ascend {

using plugin::DevAddr;
using plugin::PageKind;

namespace {

const char* page_name(PageKind page) {
  switch (page) {
    case PageKind::Normal:
      return "normal";
    case PageKind::Huge:
      return "huge (2 MiB)";
    case PageKind::Huge1G:
      return "huge (1 GiB)";
  }
  return "unknown";
}

}  // namespace

DeviceMemory::DeviceMemory(std::string label) : label_(std::move(label)), allocator_(0) {}

Status DeviceMemory::init(uint64_t bytes) {
  const uint64_t capacity = align_down(bytes, kBlockAlignment);
  if (capacity == 0) return Status(Errc::rt_param_invalid, label_ + ": device memory size must be at least 512 bytes");
  // 1 GiB alignment of the range makes every page class's offset alignment an address alignment.
  ARUN_RETURN_IF_ERROR(space_.reserve(capacity, kHuge1GPage));
  std::unique_lock lock(mutex_);
  allocator_ = RangeAllocator(capacity);
  live_.clear();
  return Status::Ok();
}

bool DeviceMemory::placement_for(uint64_t bytes, PageKind page, Placement* out) {
  // Reject sizes whose rounding would overflow; no device is anywhere near this big.
  if (bytes == 0 || bytes > (uint64_t{1} << 62)) return false;
  const uint64_t rounded = align_up(bytes, kSizeGranule);
  switch (page) {
    case PageKind::Huge1G:
      *out = {align_up(rounded, kHuge1GPage), kHuge1GPage, PageKind::Huge1G};
      return true;
    case PageKind::Huge:
      if (bytes > kHugeThreshold) {
        *out = {align_up(rounded + kTailPadding, kHugePage), kHugePage, PageKind::Huge};
        return true;
      }
      [[fallthrough]];
    case PageKind::Normal:
      *out = {align_up(rounded + kTailPadding, kBlockAlignment), kBlockAlignment, PageKind::Normal};
      return true;
  }
  return false;
}

Status DeviceMemory::allocate(uint64_t bytes, PageKind page, DevAddr* out) {
  if (out == nullptr) return Status(Errc::rt_param_invalid, label_ + ": allocate() without an output pointer");
  *out = 0;
  if (bytes == 0) return Status(Errc::rt_param_invalid, label_ + ": cannot allocate 0 bytes");
  if (!space_.reserved()) return Status(Errc::rt_dev_setup_error, label_ + ": device memory is not initialised");

  Placement placement;
  const bool representable = placement_for(bytes, page, &placement);

  std::unique_lock lock(mutex_);
  std::optional<uint64_t> offset;
  if (representable && placement.occupied <= allocator_.capacity()) {
    offset = allocator_.allocate(placement.occupied, placement.alignment);
    if (!offset && placement.page == PageKind::Huge) {
      // HUGE_FIRST falls back to normal pages when no huge page is left.
      Placement normal;
      placement_for(bytes, PageKind::Normal, &normal);
      offset = allocator_.allocate(normal.occupied, normal.alignment);
      if (offset) placement = normal;
    }
  }
  if (!offset) {
    return Status(Errc::rt_memory_allocation,
                  label_ + ": out of device memory: requested " + std::to_string(bytes) + " bytes (" + page_name(page) +
                      " pages, " +
                      (representable ? std::to_string(placement.occupied) + " bytes after rounding"
                                     : std::string("too large to round")) +
                      "), free " + std::to_string(allocator_.free_bytes()) + " of " +
                      std::to_string(allocator_.capacity()) + " bytes, largest free block " +
                      std::to_string(allocator_.largest_free()) + " bytes, " + std::to_string(live_.size()) +
                      " live allocations");
  }
  live_.emplace(*offset, Allocation{placement.occupied, bytes, placement.page});
  *out = space_.device_addr(*offset);
  lock.unlock();
  // Up to 1 GiB is committed at once; larger blocks fault in on first touch, so that tests can
  // model a big HBM without as much host RAM.
  if (bytes <= (uint64_t(1) << 30)) space_.commit(*offset, bytes);
  return Status::Ok();
}

Status DeviceMemory::release(DevAddr addr) {
  if (!space_.contains(addr)) {
    return Status(
        Errc::rt_memory_free, label_ + ": cannot free address 0x" + [&] {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(addr));
          return std::string(buf);
        }() + ": it is not device memory of this device");
  }
  const uint64_t offset = space_.offset_of(addr);
  std::unique_lock lock(mutex_);
  auto it = live_.find(offset);
  if (it == live_.end()) {
    char buf[160];
    auto containing = find_live(offset);
    if (containing != live_.end()) {
      std::snprintf(buf, sizeof buf, "0x%llx is inside the allocation at 0x%llx, not its base",
                    static_cast<unsigned long long>(addr),
                    static_cast<unsigned long long>(space_.device_addr(containing->first)));
    } else {
      std::snprintf(buf, sizeof buf, "0x%llx is not the base of a live allocation (already freed?)",
                    static_cast<unsigned long long>(addr));
    }
    return Status(Errc::rt_memory_free, label_ + ": cannot free " + buf);
  }
  const uint64_t occupied = it->second.occupied;
  live_.erase(it);
  const RangeAllocator::Range merged = allocator_.release(offset, occupied);
  // Hand back every page the freed block touches that is now entirely free; pages shared with a
  // live neighbour stay (dropping them would zero the neighbour's bytes).
  const uint64_t page = AddressSpace::host_page_size();
  const uint64_t lo = std::max(merged.offset, align_down(offset, page));
  const uint64_t hi = std::min(merged.offset + merged.size, align_up(offset + occupied, page));
  space_.discard(lo, hi - lo);
  return Status::Ok();
}

Status DeviceMemory::create_physical(uint64_t bytes, PageKind page, int* fd, uint64_t* id) {
  if (fd == nullptr || id == nullptr || bytes == 0 || bytes % AddressSpace::host_page_size() != 0) {
    return Status(Errc::rt_param_invalid, label_ + ": physical allocation of " + std::to_string(bytes) +
                                              " bytes is not a non-zero multiple of the page size");
  }
  const uint64_t alignment = page == PageKind::Huge1G ? kHuge1GPage
                             : page == PageKind::Huge ? kHugePage
                                                      : kBlockAlignment;
  if (bytes > allocator_.capacity()) {
    return Status(Errc::rt_memory_allocation, label_ + ": physical allocation of " + std::to_string(bytes) +
                                                  " bytes exceeds the device memory (" +
                                                  std::to_string(allocator_.capacity()) + " bytes)");
  }
  // The object first: nothing to undo in the allocator when the host is out of descriptors.
  const int f = ::memfd_create("arun-physical", MFD_CLOEXEC);
  if (f < 0) {
    const int err = errno;
    return Status(Errc::rt_memory_allocation, label_ + ": memfd_create: " + std::strerror(err));
  }
  if (::ftruncate(f, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(f);
    return Status(Errc::rt_memory_allocation, label_ + ": cannot size physical memory: " + std::strerror(err));
  }
  std::unique_lock lock(mutex_);
  std::optional<uint64_t> offset = allocator_.allocate(align_up(bytes, alignment), alignment);
  if (!offset) {
    ::close(f);
    return Status(Errc::rt_memory_allocation,
                  label_ + ": out of device memory: physical allocation of " + std::to_string(bytes) + " bytes, free " +
                      std::to_string(allocator_.free_bytes()) + " bytes, largest free block " +
                      std::to_string(allocator_.largest_free()) + " bytes");
  }
  physical_.emplace(*offset, align_up(bytes, alignment));
  *fd = f;
  *id = *offset;
  return Status::Ok();
}

void DeviceMemory::release_physical(uint64_t id) {
  std::unique_lock lock(mutex_);
  auto it = physical_.find(id);
  if (it == physical_.end()) return;  // already dropped by release_all (the device closed)
  allocator_.release(it->first, it->second);
  physical_.erase(it);
}

Status DeviceMemory::export_range(DevAddr addr, uint64_t bytes, int* fd, uint64_t* offset) {
  if (map(addr, bytes) == nullptr || bytes == 0) {
    return Status(Errc::rt_param_invalid, label_ + ": the range is not inside one live allocation");
  }
  const int f = ::fcntl(space_.fd(), F_DUPFD_CLOEXEC, 0);
  if (f < 0) {
    const int err = errno;
    return Status(Errc::rt_internal_error, label_ + ": cannot share device memory: " + std::strerror(err));
  }
  *fd = f;
  *offset = space_.offset_of(addr);
  return Status::Ok();
}

void DeviceMemory::release_all() {
  std::unique_lock lock(mutex_);
  live_.clear();
  physical_.clear();
  allocator_.reset();
  space_.discard(0, space_.size());
}

plugin::MemoryUsage DeviceMemory::usage() const {
  std::shared_lock lock(mutex_);
  plugin::MemoryUsage u;
  u.total = allocator_.capacity();
  u.free = allocator_.free_bytes();
  u.largest_free = allocator_.largest_free();
  u.allocations = live_.size();
  return u;
}

std::map<uint64_t, DeviceMemory::Allocation>::const_iterator DeviceMemory::find_live(uint64_t offset) const {
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) return live_.end();
  --it;
  if (offset - it->first < it->second.requested) return it;
  return live_.end();
}

bool DeviceMemory::find_allocation(DevAddr addr, DevAddr* base, uint64_t* size) const {
  if (!space_.contains(addr)) return false;
  std::shared_lock lock(mutex_);
  auto it = find_live(space_.offset_of(addr));
  if (it == live_.end()) return false;
  if (base != nullptr) *base = space_.device_addr(it->first);
  if (size != nullptr) *size = it->second.requested;
  return true;
}

void* DeviceMemory::map(DevAddr addr, uint64_t bytes) const {
  if (!space_.contains(addr)) return nullptr;
  const uint64_t offset = space_.offset_of(addr);
  std::shared_lock lock(mutex_);
  auto it = find_live(offset);
  if (it == live_.end()) return nullptr;
  const uint64_t remaining = it->second.requested - (offset - it->first);
  if (bytes > remaining) return nullptr;
  return space_.translate(offset);
}

}  // namespace arun::ascend
