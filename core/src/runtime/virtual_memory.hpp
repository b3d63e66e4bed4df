// VirtualMemory: the runtime's table of virtual memory management (spec part 2, 4.13):
// reservations, physical allocations and the mappings between them.
//
// A reservation is two host ranges of one size: the *user range*, PROT_NONE, whose addresses the
// program gets (a host dereference faults, as for any device address), and the *shadow*, through
// which devices reach the memory (HostServices::vmm_map). Mapping a physical allocation maps its
// memfd with MAP_FIXED | MAP_SHARED into the shadow at the mapping's offset, so two mappings of one
// allocation alias, and unmapping puts an anonymous hole back. Host access
// (aclrtMemSetAccess with a HOST location, or a host-located allocation) maps the memfd into the
// user range as well.
//
// Physical allocations are reference counted: the creator, each retain and each import hold a
// *user* reference (aclrtFreePhysical drops one), each mapping holds one too; the memory goes back
// to its device when both counts are 0. Handles are never-reused ids.
//
// Thread safe: one shared_mutex; lookups (devices translating addresses) take it shared.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"

namespace arun {

class VirtualMemory {
 public:
  VirtualMemory() = default;
  ~VirtualMemory() { clear(); }
  VirtualMemory(const VirtualMemory&) = delete;
  VirtualMemory& operator=(const VirtualMemory&) = delete;

  // Where a physical allocation's memory comes from: a device (which gets it back on release) or
  // the host (source == nullptr).
  struct PhysicalOrigin {
    int32_t device = -1;  // runtime device id; -1 for host memory
    plugin::PhysicalMemorySource* source = nullptr;
    uint64_t source_id = 0;
    // Called once when the memory is released (the device slot's hold); may be empty.
    std::function<void()> on_release;
  };

  // aclrtReserveMemAddress: `expect` 0 = anywhere; otherwise exactly there (rt_param_invalid if the
  // address is taken). `alignment` is the start alignment of a range the runtime picks.
  Status reserve(uint64_t size, uint64_t expect, uint64_t alignment, uint64_t* out);
  Status release(uint64_t base);

  // Takes ownership of `fd` (closed on failure too). The new handle holds one user reference.
  Status add_physical(int fd, uint64_t size, const aclrtPhysicalMemProp& prop, PhysicalOrigin origin, uint64_t* handle);
  Status free_physical(uint64_t handle);
  Status properties(uint64_t handle, aclrtPhysicalMemProp* prop) const;

  // aclrtMapMem (`access`: read/write for the allocation's device, or the host for a host
  // allocation) / aclrtMemMapNoAccess.
  Status map(uint64_t addr, uint64_t size, uint64_t handle, bool access);
  Status unmap(uint64_t addr);
  // aclrtMemRetainAllocationHandle: the handle mapped at `addr` (a mapping's start), one more user
  // reference.
  Status retain(uint64_t addr, uint64_t* handle);

  // One grant of aclrtMemSetAccess: device id (>= 0) or the host (-1), read/write.
  Status set_access(uint64_t addr, uint64_t size, const std::vector<int32_t>& grants);
  // aclrtMemGetAccess: ACL_RT_MEM_ACCESS_FLAGS_* of the mapping starting at `addr` for `who`.
  Status get_access(uint64_t addr, int32_t who, uint64_t* flags) const;

  // Devices' view: host pointer to [addr, addr + bytes) (bytes 0: one address) when the range lies
  // in contiguous mappings of one reservation that all grant `device` access; else nullptr.
  void* device_view(int32_t device, uint64_t addr, uint64_t bytes) const;

  // For classifying pointers: does `addr` lie in a reservation? Then `device` is the device of the
  // physical memory mapped at addr (-1: none or host memory), `host` whether the host may access
  // it, and `base`/`size` the mapping (0 if unmapped); `whole` says [addr, addr+bytes) lies in
  // contiguous mappings.
  struct Lookup {
    int32_t device = -1;
    bool host = false;
    uint64_t base = 0, size = 0;
    bool whole = false;
  };
  bool lookup(uint64_t addr, uint64_t bytes, Lookup* out) const;

  // Memory of another process (IPC imports): maps [fd_offset, fd_offset + size) of `fd` (not
  // taken) in a reservation of its own, with read/write access for `device`, and returns the
  // address of the byte at fd_offset + skip. The program cannot release or unmap it; unmap_shared
  // does, given any address inside.
  Status map_shared(int fd, uint64_t fd_offset, uint64_t size, uint64_t skip, int32_t device, uint64_t* addr);
  Status unmap_shared(uint64_t addr);
  // A duplicate of a live physical allocation's descriptor (the caller closes it), with its
  // properties and size (aclrtMemExportToShareableHandle).
  Status share_physical(uint64_t handle, int* fd, uint64_t* size, aclrtPhysicalMemProp* prop) const;

  // Ranges an allocator policy grows (plugin::VirtualRanges, the caching policy's expandable
  // segments): reserved for `device`'s allocator and not the program's to map, unmap or release.
  // The range is backed by one memfd of its size, at the same offsets, so that any block in it can
  // be shared with another process as one (descriptor, offset) like the device's own memory
  // (share_pool). map_pool maps [addr, +size) of it with `origin.device`'s access; `origin` is the
  // device memory the pages count against (its `fd`, which the pool does not need, is closed at
  // once); unmap_pool unmaps the mapping starting at `addr` and drops its pages; release_pool
  // unmaps the rest too.
  Status reserve_pool(uint64_t size, uint64_t alignment, int32_t device, uint64_t* out);
  Status map_pool(uint64_t addr, int fd, uint64_t size, PhysicalOrigin origin);
  Status unmap_pool(uint64_t addr);
  void release_pool(uint64_t base);
  // The device whose allocator owns the pool range holding `addr`, or -1 (no lock when no range
  // is reserved at all).
  int32_t pool_device(uint64_t addr) const;
  // A duplicate of the pool's descriptor (the caller closes it) and the offset of `addr` in it,
  // when [addr, +size) lies in mapped pages of one pool range.
  Status share_pool(uint64_t addr, uint64_t size, int* fd, uint64_t* offset) const;

  // Unmaps and releases everything (runtime teardown).
  void clear();

 private:
  // Released (fd closed, memory back to its device) when the last holder — the handle table
  // while user references remain, each mapping — lets go. Destroyed outside the lock: giving a
  // device back may close it, which waits for unit threads that may be translating addresses.
  struct Physical {
    ~Physical();
    uint64_t handle = 0;
    int fd = -1;
    uint64_t size = 0;
    aclrtPhysicalMemProp prop{};
    PhysicalOrigin origin;
    uint64_t user_refs = 1;
    uint64_t mappings = 0;
  };
  struct Mapping {
    uint64_t size = 0;
    uint64_t handle = 0;
    std::shared_ptr<Physical> phys;
    uint64_t fd_offset = 0;      // where the mapping starts in the object (IPC imports)
    uint64_t device_access = 0;  // bit per device id
    bool host_access = false;
  };
  struct Reservation {
    uint64_t size = 0;  // bytes the program asked for
    uint64_t span = 0;  // bytes mapped (size rounded up to the host page)
    unsigned char* shadow = nullptr;
    bool internal = false;                 // made by map_shared or reserve_pool: not the program's
    int32_t pool_device = -1;              // reserve_pool: the device whose allocator grows it
    int pool_fd = -1;                      // reserve_pool: the memfd behind the whole range
    std::map<uint64_t, Mapping> mappings;  // by address
  };

  // The reservation containing addr, or nullptr.
  Reservation* find_reservation(uint64_t addr);
  const Reservation* find_reservation(uint64_t addr) const;
  // unmap and unmap_pool: the mapping starting at `addr` in a reservation `qualifies` accepts, else
  // rt_param_invalid with `none` + the address.
  template <class Qualifies>
  Status unmap_mapping(uint64_t addr, Qualifies qualifies, const char* none);
  // The mappings that exactly tile [addr, addr+size) in `r`, or empty.
  std::vector<std::map<uint64_t, Mapping>::iterator> tiling(Reservation& r, uint64_t addr, uint64_t size);

  mutable std::shared_mutex mu_;
  std::map<uint64_t, Reservation> reservations_;           // by user-range start
  std::map<uint64_t, std::shared_ptr<Physical>> handles_;  // live user handles
};

}  // namespace arun
