// AddressSpace: one device's memory as two host mappings of the same size.
//
//  - the *device range* is reserved with PROT_NONE: its addresses are the device addresses handed
//    to the user, so a host dereference of a device pointer faults with SIGSEGV, as on real
//    hardware, and addresses of different devices never collide;
//  - the *backing* is a shared read/write mapping of a memfd the device itself uses (copy
//    engines, kernels) through translate(). Pages are committed on first touch and handed back
//    to the OS by discard(), so a 16 GiB device costs only what is actually in use. A memfd,
//    not anonymous memory, so that another process can map a range of it (IPC memory,
//    aclrtIpcMemGetExportKey): fd() and the offset of a device address are all it needs.
//
// Both mappings start at a multiple of `alignment` to `alignment` so that an offset aligned to a page class is a
// device address aligned to it as well. Thread safe: the mappings never move while it lives.
#pragma once

#include <cstdint>

#include "arun/core/status.hpp"

namespace arun::ascend {

class AddressSpace {
 public:
  AddressSpace() = default;
  ~AddressSpace();
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  // Reserves both ranges; fails with rt_memory_allocation and the errno text.
  Status reserve(uint64_t bytes, uint64_t alignment);

  bool reserved() const { return device_base_ != 0; }
  uint64_t size() const { return size_; }
  uint64_t device_base() const { return device_base_; }

  bool contains(uint64_t device_addr) const {
    return device_addr >= device_base_ && device_addr - device_base_ < size_;
  }
  uint64_t offset_of(uint64_t device_addr) const { return device_addr - device_base_; }
  uint64_t device_addr(uint64_t offset) const { return device_base_ + offset; }
  // Host view of the byte at `offset` in the backing (no bounds check: callers check first).
  void* translate(uint64_t offset) const { return backing_ + offset; }

  // Returns the backing pages that lie entirely inside [offset, offset+bytes) to the OS; they
  // read as zero when touched again.
  void discard(uint64_t offset, uint64_t bytes) const;
  // Commits the backing pages of [offset, offset+bytes) (best effort).
  void commit(uint64_t offset, uint64_t bytes) const;

  static uint64_t host_page_size();
  // The backing object (owned; -1 before reserve()).
  int fd() const { return fd_; }

 private:
  uint64_t device_base_ = 0;
  unsigned char* backing_ = nullptr;
  uint64_t size_ = 0;  // bytes mapped in each range (the request rounded up to host pages)
  int fd_ = -1;
};

}  // namespace arun::ascend
