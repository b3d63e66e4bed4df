#include "address_space.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "align.hpp"

namespace arun::ascend {

namespace {

// Maps `bytes` at an address that is a multiple of `alignment`: over-maps by `alignment` and
// unmaps the slack on both sides, so only the aligned window stays mapped.
void* map_aligned(uint64_t bytes, uint64_t alignment, int prot, int flags) {
  const uint64_t total = bytes + alignment;
  void* p = ::mmap(nullptr, total, prot, flags, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uint64_t start = reinterpret_cast<uint64_t>(p);
  const uint64_t aligned = align_up(start, alignment);
  if (aligned > start) ::munmap(p, aligned - start);
  const uint64_t end = aligned + bytes;
  if (start + total > end) ::munmap(reinterpret_cast<void*>(end), start + total - end);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

uint64_t AddressSpace::host_page_size() {
  static const uint64_t page = [] {
    long v = ::sysconf(_SC_PAGESIZE);
    return v > 0 ? static_cast<uint64_t>(v) : uint64_t{4096};
  }();
  return page;
}

Status AddressSpace::reserve(uint64_t bytes, uint64_t alignment) {
  if (reserved()) return Status(Errc::rt_internal_error, "address space already reserved");
  if (bytes == 0) return Status(Errc::rt_param_invalid, "address space of 0 bytes");
  if (alignment < host_page_size()) alignment = host_page_size();

  bytes = align_up(bytes, host_page_size());
  void* device_map = map_aligned(bytes, alignment, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
  if (device_map == nullptr) {
    int err = errno;
    return Status(Errc::rt_memory_allocation,
                  "cannot reserve " + std::to_string(bytes) + " bytes of device address space: " + std::strerror(err));
  }
  // The backing's address comes from an aligned hole; the memfd is mapped over it.
  const int fd = ::memfd_create("arun-device-memory", MFD_CLOEXEC);
  void* backing = nullptr;
  if (fd >= 0 && ::ftruncate(fd, static_cast<off_t>(bytes)) == 0) {
    backing = map_aligned(bytes, alignment, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
    if (backing != nullptr &&
        ::mmap(backing, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED) {
      ::munmap(backing, bytes);
      backing = nullptr;
    }
  }
  if (backing == nullptr) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    ::munmap(device_map, bytes);
    return Status(Errc::rt_memory_allocation,
                  "cannot reserve " + std::to_string(bytes) + " bytes of device backing memory: " + std::strerror(err));
  }
  device_base_ = reinterpret_cast<uint64_t>(device_map);
  backing_ = static_cast<unsigned char*>(backing);
  size_ = bytes;
  fd_ = fd;
  return Status::Ok();
}

void AddressSpace::discard(uint64_t offset, uint64_t bytes) const {
  if (bytes == 0 || backing_ == nullptr) return;
  const uint64_t page = host_page_size();
  const uint64_t begin = align_up(reinterpret_cast<uint64_t>(backing_) + offset, page);
  const uint64_t end = align_down(reinterpret_cast<uint64_t>(backing_) + offset + bytes, page);
  // MADV_REMOVE frees the object's pages (MADV_DONTNEED would only drop this mapping of them).
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_REMOVE);
}

void AddressSpace::commit(uint64_t offset, uint64_t bytes) const {
  if (bytes == 0 || backing_ == nullptr) return;
    // HBM is physically present: an allocation is usable at full speed from the start, so fault its
    // pages in now (at aclrtMalloc, as a real allocator maps them) instead of on first access.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  const uint64_t page = host_page_size();
  const uint64_t begin = align_down(reinterpret_cast<uint64_t>(backing_) + offset, page);
  const uint64_t end = align_up(reinterpret_cast<uint64_t>(backing_) + offset + bytes, page);
  // Best effort: on kernels without MADV_POPULATE_WRITE the pages fault in on first use instead.
  (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

AddressSpace::~AddressSpace() {
  if (backing_ != nullptr) ::munmap(backing_, size_);
  if (device_base_ != 0) ::munmap(reinterpret_cast<void*>(device_base_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace arun::ascend
