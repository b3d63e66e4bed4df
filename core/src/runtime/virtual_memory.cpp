#include "runtime/virtual_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>

#include "base/status_helpers.hpp"

namespace arun {
namespace {

uint64_t page_size() {
  static const uint64_t page = [] {
    long v = ::sysconf(_SC_PAGESIZE);
    return v > 0 ? static_cast<uint64_t>(v) : uint64_t{4096};
  }();
  return page;
}

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Handles are never reused, not even by a later runtime (aclFinalize + aclInit): a stale one is
// an unknown handle, never someone else's memory.
std::atomic<uint64_t> g_next_handle{0x5a0000000010ull};
// Reservations alive in the process: every copy classifies its host pointers and every device
// translation of an address not its own asks here, so with none the answer needs no lock.
std::atomic<int64_t> g_reservations{0};

// An inaccessible anonymous range with no commit charge.
void* map_hole(void* at, uint64_t bytes, bool fixed) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  if (fixed) flags |= MAP_FIXED;
  return ::mmap(at, bytes, PROT_NONE, flags, -1, 0);
}

// `bytes` of holes starting at a multiple of `alignment`: over-maps, then trims both sides.
void* map_aligned_hole(uint64_t bytes, uint64_t alignment) {
  const uint64_t total = bytes + alignment;
  void* p = map_hole(nullptr, total, false);
  if (p == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uint64_t>(p);
  const uint64_t aligned = align_up(start, alignment);
  if (aligned > start) ::munmap(p, aligned - start);
  const uint64_t end = aligned + bytes;
  if (start + total > end) ::munmap(reinterpret_cast<void*>(end), start + total - end);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

VirtualMemory::Physical::~Physical() {
  if (fd >= 0) ::close(fd);
  if (origin.source != nullptr) origin.source->release_physical(origin.source_id);
  if (origin.on_release) origin.on_release();
}

Status VirtualMemory::reserve(uint64_t size, uint64_t expect, uint64_t alignment, uint64_t* out) {
  if (size > (uint64_t{1} << 46))
    return Status(Errc::rt_memory_allocation, "cannot reserve " + std::to_string(size) + " bytes: larger than 64 TiB");
  const uint64_t span = align_up(size, page_size());
  void* user = nullptr;
  if (expect != 0) {
    // MAP_FIXED_NOREPLACE: the address or nothing (an older kernel may place it elsewhere: undone).
    user = ::mmap(reinterpret_cast<void*>(expect), span, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (user == MAP_FAILED || reinterpret_cast<uint64_t>(user) != expect) {
      const int err = errno;
      if (user != MAP_FAILED) ::munmap(user, span);
      return param_invalid("the requested address " + hex(expect) + " (+" + std::to_string(size) +
                           " bytes) is not available: " + (user == MAP_FAILED ? std::strerror(err) : "taken"));
    }
  } else {
    user = map_aligned_hole(span, std::max(alignment, page_size()));
    if (user == nullptr) {
      const int err = errno;
      return Status(Errc::rt_memory_allocation,
                    "cannot reserve " + std::to_string(size) + " bytes of address space: " + std::strerror(err));
    }
  }
  void* shadow = map_hole(nullptr, span, false);
  if (shadow == MAP_FAILED) {
    const int err = errno;
    ::munmap(user, span);
    return Status(Errc::rt_memory_allocation,
                  "cannot reserve " + std::to_string(size) + " bytes of address space: " + std::strerror(err));
  }
  std::unique_lock lock(mu_);
  Reservation& r = reservations_[reinterpret_cast<uint64_t>(user)];
  g_reservations.fetch_add(1, std::memory_order_relaxed);
  r.size = size;
  r.span = span;
  r.shadow = static_cast<unsigned char*>(shadow);
  *out = reinterpret_cast<uint64_t>(user);
  return Status::Ok();
}

Status VirtualMemory::release(uint64_t base) {
  std::unique_lock lock(mu_);
  auto it = reservations_.find(base);
  if (it == reservations_.end()) {
    const Reservation* in = find_reservation(base);
    return param_invalid(hex(base) + (in ? " is inside a reservation but not its start" : " is not a reservation"));
  }
  if (it->second.pool_device >= 0) {
    return param_invalid(hex(base) + " is the device allocator's memory: aclrtFree its blocks instead");
  }
  if (it->second.internal) return param_invalid(hex(base) + " is imported memory: aclrtIpcMemClose releases it");
  if (!it->second.mappings.empty()) {
    return param_invalid("the reservation at " + hex(base) + " still has " +
                         std::to_string(it->second.mappings.size()) + " mapping(s); aclrtUnmapMem them first");
  }
  ::munmap(it->second.shadow, it->second.span);
  ::munmap(reinterpret_cast<void*>(base), it->second.span);
  reservations_.erase(it);
  g_reservations.fetch_sub(1, std::memory_order_relaxed);
  return Status::Ok();
}

Status VirtualMemory::add_physical(int fd, uint64_t size, const aclrtPhysicalMemProp& prop, PhysicalOrigin origin,
                                   uint64_t* handle) {
  auto phys = std::make_shared<Physical>();
  phys->fd = fd;
  phys->size = size;
  phys->prop = prop;
  phys->origin = std::move(origin);
  phys->handle = g_next_handle.fetch_add(16);
  *handle = phys->handle;
  std::unique_lock lock(mu_);
  handles_.emplace(phys->handle, std::move(phys));
  return Status::Ok();
}

Status VirtualMemory::free_physical(uint64_t handle) {
  std::shared_ptr<Physical> last;  // destroyed after the lock is released
  std::unique_lock lock(mu_);
  auto it = handles_.find(handle);
  if (it == handles_.end()) {
    return Status(Errc::rt_invalid_handle,
                  "physical memory handle " + hex(handle) + " is not live (never allocated, or already freed)");
  }
  if (--it->second->user_refs == 0) {
    last = std::move(it->second);
    handles_.erase(it);
  }
  lock.unlock();
  return Status::Ok();
}

Status VirtualMemory::properties(uint64_t handle, aclrtPhysicalMemProp* prop) const {
  std::shared_lock lock(mu_);
  auto it = handles_.find(handle);
  if (it == handles_.end())
    return Status(Errc::rt_invalid_handle, "physical memory handle " + hex(handle) + " is not live");
  *prop = it->second->prop;
  return Status::Ok();
}

VirtualMemory::Reservation* VirtualMemory::find_reservation(uint64_t addr) {
  return const_cast<Reservation*>(std::as_const(*this).find_reservation(addr));
}

const VirtualMemory::Reservation* VirtualMemory::find_reservation(uint64_t addr) const {
  auto it = reservations_.upper_bound(addr);
  if (it == reservations_.begin()) return nullptr;
  --it;
  return addr - it->first < it->second.size ? &it->second : nullptr;
}

Status VirtualMemory::map(uint64_t addr, uint64_t size, uint64_t handle, bool access) {
  std::unique_lock lock(mu_);
  auto h = handles_.find(handle);
  if (h == handles_.end()) {
    return Status(Errc::rt_invalid_handle,
                  "physical memory handle " + hex(handle) + " is not live (never allocated, or already freed)");
  }
  Physical& phys = *h->second;
  if (size != phys.size) {
    return param_invalid("size " + std::to_string(size) + " differs from the physical allocation's " +
                         std::to_string(phys.size) + " bytes (a mapping maps a whole allocation)");
  }
  Reservation* r = find_reservation(addr);
  if (r == nullptr || r->internal) {
    return param_invalid(hex(addr) + " is not inside a reserved range (aclrtReserveMemAddress)");
  }
  auto base_it = reservations_.upper_bound(addr);
  const uint64_t base = std::prev(base_it)->first;
  const uint64_t offset = addr - base;
  if (offset % page_size() != 0) return param_invalid(hex(addr) + " is not page-aligned");
  if (size > r->size - offset) {
    return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) + ") runs past the end of the reservation at " +
                         hex(base) + " (" + std::to_string(r->size) + " bytes)");
  }
  // Overlap: the mapping before addr must end at or before it, the next must start at or after the end.
  auto next = r->mappings.lower_bound(addr);
  if (next != r->mappings.end() && next->first < addr + size) {
    return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) + ") overlaps the mapping at " +
                         hex(next->first));
  }
  if (next != r->mappings.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size > addr) {
      return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) + ") overlaps the mapping at " +
                           hex(prev->first));
    }
  }
  for (const auto& [a, m] : r->mappings) {
    if (m.phys->origin.device != phys.origin.device) {
      return param_invalid(
          "the reservation at " + hex(base) + " already maps memory of " +
          (m.phys->origin.device < 0 ? std::string("the host") : "device " + std::to_string(m.phys->origin.device)) +
          "; one reservation cannot map physical memory of two devices");
    }
  }
  void* at = r->shadow + offset;
  if (::mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, phys.fd, 0) == MAP_FAILED) {
    const int err = errno;
    map_hole(at, size, true);
    return Status(Errc::rt_memory_allocation, std::string("cannot map physical memory: ") + std::strerror(err));
  }
  Mapping m;
  m.size = size;
  m.handle = handle;
  m.phys = h->second;
  if (access) {
    if (phys.origin.device >= 0) m.device_access = uint64_t{1} << phys.origin.device;
    m.host_access = phys.origin.device < 0;
  }
  if (m.host_access && ::mmap(reinterpret_cast<void*>(addr), size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                              phys.fd, 0) == MAP_FAILED) {
    const int err = errno;
    map_hole(at, size, true);
    map_hole(reinterpret_cast<void*>(addr), size, true);
    return Status(Errc::rt_memory_allocation, std::string("cannot map physical memory: ") + std::strerror(err));
  }
  ++phys.mappings;
  r->mappings.emplace(addr, std::move(m));
  return Status::Ok();
}

template <class Qualifies>
Status VirtualMemory::unmap_mapping(uint64_t addr, Qualifies qualifies, const char* none) {
  std::shared_ptr<Physical> last;  // destroyed after the lock is released
  std::unique_lock lock(mu_);
  Reservation* r = find_reservation(addr);
  if (r != nullptr && !qualifies(*r)) r = nullptr;
  auto it = r ? r->mappings.find(addr) : decltype(r->mappings.end()){};
  if (r == nullptr || it == r->mappings.end()) {
    return param_invalid(std::string(none) + hex(addr) + (r ? " (a mapping is unmapped whole, from its start)" : ""));
  }
  const uint64_t base = std::prev(reservations_.upper_bound(addr))->first;
  unsigned char* at = r->shadow + (addr - base);
  if (r->pool_device >= 0) {
    // An allocator range: a hole again (the allocator unmaps only pages no block the program holds
    // lies in), and the pages go back to the host; mapped again later they read as zero.
    map_hole(at, it->second.size, true);
    (void)::fallocate(r->pool_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(addr - base),
                      static_cast<off_t>(it->second.size));
  } else {
    // The program's: the shadow gets scratch pages, not a hole, so a copy or kernel still running
    // on the range (which the program must not do) writes into nothing instead of crashing a unit
    // thread. Devices no longer reach the range either way (no mapping, no access). The user range
    // is a hole again (host access ends).
    ::mmap(at, it->second.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (it->second.host_access) map_hole(reinterpret_cast<void*>(addr), it->second.size, true);
  }
  --it->second.phys->mappings;
  last = std::move(it->second.phys);
  r->mappings.erase(it);
  lock.unlock();
  return Status::Ok();
}

Status VirtualMemory::unmap(uint64_t addr) {
  return unmap_mapping(
      addr, [](const Reservation& r) { return !r.internal; }, "no mapping starts at ");
}

Status VirtualMemory::retain(uint64_t addr, uint64_t* handle) {
  std::unique_lock lock(mu_);
  Reservation* r = find_reservation(addr);
  if (r == nullptr || r->internal || r->mappings.count(addr) == 0)
    return param_invalid("no mapping starts at " + hex(addr));
  const Mapping& m = r->mappings.at(addr);
  // A handle the program had freed while mapped comes back to life with this one reference.
  auto [it, fresh] = handles_.emplace(m.handle, m.phys);
  if (fresh) {
    it->second->user_refs = 1;
  } else {
    ++it->second->user_refs;
  }
  *handle = m.handle;
  return Status::Ok();
}

std::vector<std::map<uint64_t, VirtualMemory::Mapping>::iterator> VirtualMemory::tiling(Reservation& r, uint64_t addr,
                                                                                        uint64_t size) {
  std::vector<std::map<uint64_t, Mapping>::iterator> out;
  uint64_t at = addr;
  for (auto it = r.mappings.find(addr); it != r.mappings.end() && it->first == at && at - addr < size; ++it) {
    out.push_back(it);
    at += it->second.size;
  }
  if (at - addr != size) out.clear();
  return out;
}

Status VirtualMemory::set_access(uint64_t addr, uint64_t size, const std::vector<int32_t>& grants) {
  std::unique_lock lock(mu_);
  Reservation* r = find_reservation(addr);
  if (r != nullptr && r->internal) r = nullptr;
  auto tiles = r ? tiling(*r, addr, size) : decltype(tiling(*r, addr, size)){};
  if (tiles.empty()) {
    return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) +
                         ") is not exactly a mapped range (whole mappings, from a mapping's start)");
  }
  const uint64_t base = std::prev(reservations_.upper_bound(addr))->first;
  for (auto it : tiles) {
    Mapping& m = it->second;
    for (int32_t who : grants) {
      if (who >= 0) {
        m.device_access |= uint64_t{1} << who;
      } else if (!m.host_access) {
        if (::mmap(reinterpret_cast<void*>(it->first), m.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                   m.phys->fd, 0) == MAP_FAILED) {
          const int err = errno;
          map_hole(reinterpret_cast<void*>(it->first), m.size, true);
          return Status(Errc::rt_memory_allocation, std::string("cannot give the host access: ") + std::strerror(err));
        }
        m.host_access = true;
      }
    }
  }
  (void)base;
  return Status::Ok();
}

Status VirtualMemory::get_access(uint64_t addr, int32_t who, uint64_t* flags) const {
  std::shared_lock lock(mu_);
  const Reservation* r = find_reservation(addr);
  auto it = r ? r->mappings.find(addr) : decltype(r->mappings.end()){};
  if (r == nullptr || it == r->mappings.end()) return param_invalid("no mapping starts at " + hex(addr));
  const bool rw = who < 0 ? it->second.host_access : (it->second.device_access >> who) & 1;
  *flags = rw ? ACL_RT_MEM_ACCESS_FLAGS_READWRITE : ACL_RT_MEM_ACCESS_FLAGS_NONE;
  return Status::Ok();
}

void* VirtualMemory::device_view(int32_t device, uint64_t addr, uint64_t bytes) const {
  if (device < 0 || device >= 64 || g_reservations.load(std::memory_order_relaxed) == 0) return nullptr;
  std::shared_lock lock(mu_);
  if (reservations_.empty()) return nullptr;
  auto rit = reservations_.upper_bound(addr);
  if (rit == reservations_.begin()) return nullptr;
  --rit;
  const Reservation& r = rit->second;
  const uint64_t offset = addr - rit->first;
  if (offset >= r.size || bytes > r.size - offset) return nullptr;
  const uint64_t end = addr + (bytes == 0 ? 1 : bytes);
  // The mapping containing addr, then contiguous ones until end; each must grant access.
  auto it = r.mappings.upper_bound(addr);
  if (it == r.mappings.begin()) return nullptr;
  --it;
  uint64_t at = it->first;
  for (; it != r.mappings.end() && it->first == at && at < end; ++it) {
    if (((it->second.device_access >> device) & 1) == 0) return nullptr;
    at += it->second.size;
  }
  if (at < end || at <= addr) return nullptr;
  return r.shadow + offset;
}

bool VirtualMemory::lookup(uint64_t addr, uint64_t bytes, Lookup* out) const {
  if (g_reservations.load(std::memory_order_relaxed) == 0) return false;
  std::shared_lock lock(mu_);
  if (reservations_.empty()) return false;
  const Reservation* r = find_reservation(addr);
  if (r == nullptr) return false;
  *out = Lookup{};
  auto it = r->mappings.upper_bound(addr);
  if (it == r->mappings.begin()) return true;
  --it;
  if (addr - it->first >= it->second.size) return true;
  out->device = it->second.phys->origin.device;
  out->host = it->second.host_access;
  out->base = it->first;
  out->size = it->second.size;
  const uint64_t end = addr + (bytes == 0 ? 1 : bytes);
  uint64_t at = it->first;
  for (; it != r->mappings.end() && it->first == at && at < end; ++it) at += it->second.size;
  out->whole = at >= end;
  return true;
}

Status VirtualMemory::map_shared(int fd, uint64_t fd_offset, uint64_t size, uint64_t skip, int32_t device,
                                 uint64_t* addr) {
  if (device < 0 || device >= 64) return param_invalid("device " + std::to_string(device) + " cannot map memory");
  // The object is mapped from the page holding fd_offset; the reservation covers exactly the
  // shared bytes and what precedes them on that page, the mapping only the shared bytes.
  const uint64_t page = page_size();
  const uint64_t map_offset = fd_offset / page * page;
  const uint64_t lead = fd_offset - map_offset;
  if (size == 0 || skip > size || size > (uint64_t{1} << 46)) return param_invalid("bad shared range");
  const uint64_t span = align_up(lead + size, page);
  void* user = map_aligned_hole(span, page);
  if (user == nullptr) {
    return Status(Errc::rt_memory_allocation, std::string("cannot reserve address space: ") + std::strerror(errno));
  }
  void* shadow = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(map_offset));
  if (shadow == MAP_FAILED) {
    const int err = errno;
    ::munmap(user, span);
    return Status(Errc::rt_memory_allocation, std::string("cannot map shared memory: ") + std::strerror(err));
  }
  const uint64_t base = reinterpret_cast<uint64_t>(user);
  std::unique_lock lock(mu_);
  Reservation& r = reservations_[base];
  g_reservations.fetch_add(1, std::memory_order_relaxed);
  r.size = lead + size;
  r.span = span;
  r.shadow = static_cast<unsigned char*>(shadow);
  r.internal = true;
  Mapping m;
  m.size = size;
  m.phys = std::make_shared<Physical>();  // the mapping holds the object; nothing to give back
  m.phys->size = size;
  m.phys->origin.device = device;
  m.phys->mappings = 1;
  m.fd_offset = fd_offset;
  m.device_access = uint64_t{1} << device;
  r.mappings.emplace(base + lead, std::move(m));
  *addr = base + lead + skip;
  return Status::Ok();
}

Status VirtualMemory::unmap_shared(uint64_t addr) {
  std::shared_ptr<Physical> last;
  std::unique_lock lock(mu_);
  const Reservation* r = find_reservation(addr);
  if (r == nullptr || !r->internal || r->pool_device >= 0) return param_invalid(hex(addr) + " is not imported memory");
  auto it = std::prev(reservations_.upper_bound(addr));
  ::munmap(it->second.shadow, it->second.span);
  ::munmap(reinterpret_cast<void*>(it->first), it->second.span);
  for (auto& [a, m] : it->second.mappings) last = std::move(m.phys);
  reservations_.erase(it);
  g_reservations.fetch_sub(1, std::memory_order_relaxed);
  lock.unlock();
  return Status::Ok();
}

Status VirtualMemory::share_physical(uint64_t handle, int* fd, uint64_t* size, aclrtPhysicalMemProp* prop) const {
  std::shared_lock lock(mu_);
  auto it = handles_.find(handle);
  if (it == handles_.end())
    return Status(Errc::rt_invalid_handle, "physical memory handle " + hex(handle) + " is not live");
  const int f = ::fcntl(it->second->fd, F_DUPFD_CLOEXEC, 0);
  if (f < 0) return Status(Errc::rt_internal_error, std::string("cannot share the memory: ") + std::strerror(errno));
  *fd = f;
  *size = it->second->size;
  *prop = it->second->prop;
  return Status::Ok();
}

Status VirtualMemory::reserve_pool(uint64_t size, uint64_t alignment, int32_t device, uint64_t* out) {
  if (device < 0 || device >= 64) return param_invalid("device " + std::to_string(device) + " cannot map memory");
  const int fd = ::memfd_create("arun-pool", MFD_CLOEXEC);  // sparse: pages exist only where touched
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(align_up(size, page_size()))) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return Status(Errc::rt_memory_allocation, std::string("cannot create the allocator range: ") + std::strerror(err));
  }
  uint64_t base = 0;
  Status st = reserve(size, 0, alignment, &base);
  if (!st.ok()) {
    ::close(fd);
    return st;
  }
  std::unique_lock lock(mu_);
  Reservation& r = reservations_.at(base);
  r.internal = true;
  r.pool_device = device;
  r.pool_fd = fd;
  *out = base;
  return Status::Ok();
}

Status VirtualMemory::map_pool(uint64_t addr, int fd, uint64_t size, PhysicalOrigin origin) {
  if (fd >= 0) ::close(fd);                  // the pool's own memfd holds the pages
  auto phys = std::make_shared<Physical>();  // gives the device memory back if anything fails
  phys->size = size;
  phys->origin = std::move(origin);
  phys->user_refs = 0;
  std::unique_lock lock(mu_);
  Reservation* r = find_reservation(addr);
  if (r == nullptr || r->pool_device < 0 || r->pool_device != phys->origin.device) {
    return param_invalid(hex(addr) + " is not inside an allocator range of device " +
                         std::to_string(phys->origin.device));
  }
  const uint64_t base = std::prev(reservations_.upper_bound(addr))->first;
  const uint64_t offset = addr - base;
  if (size == 0 || offset % page_size() != 0 || size % page_size() != 0 || size > r->size - offset) {
    return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) + ") is not page-aligned inside the range");
  }
  auto next = r->mappings.lower_bound(addr);
  const bool overlaps = (next != r->mappings.end() && next->first < addr + size) ||
                        (next != r->mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > addr);
  if (overlaps) return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) + ") is mapped already");
  void* at = r->shadow + offset;
  if (::mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->pool_fd, static_cast<off_t>(offset)) ==
      MAP_FAILED) {
    const int err = errno;
    map_hole(at, size, true);
    return Status(Errc::rt_memory_allocation, std::string("cannot map physical memory: ") + std::strerror(err));
  }
  Mapping m;
  m.size = size;
  m.fd_offset = offset;
  m.device_access = uint64_t{1} << phys->origin.device;
  phys->mappings = 1;
  m.phys = std::move(phys);
  r->mappings.emplace(addr, std::move(m));
  return Status::Ok();
}

Status VirtualMemory::unmap_pool(uint64_t addr) {
  return unmap_mapping(
      addr, [](const Reservation& r) { return r.pool_device >= 0; }, "no allocator mapping starts at ");
}

void VirtualMemory::release_pool(uint64_t base) {
  std::vector<std::shared_ptr<Physical>> dead;  // destroyed after the lock is released
  std::unique_lock lock(mu_);
  auto it = reservations_.find(base);
  if (it == reservations_.end() || it->second.pool_device < 0) return;  // cleared at teardown already
  for (auto& [a, m] : it->second.mappings) dead.push_back(std::move(m.phys));
  ::munmap(it->second.shadow, it->second.span);
  ::munmap(reinterpret_cast<void*>(base), it->second.span);
  ::close(it->second.pool_fd);
  reservations_.erase(it);
  g_reservations.fetch_sub(1, std::memory_order_relaxed);
  lock.unlock();
}

Status VirtualMemory::share_pool(uint64_t addr, uint64_t size, int* fd, uint64_t* offset) const {
  std::shared_lock lock(mu_);
  const Reservation* r = find_reservation(addr);
  if (r == nullptr || r->pool_device < 0) return param_invalid(hex(addr) + " is not in an allocator range");
  const uint64_t base = std::prev(reservations_.upper_bound(addr))->first;
  // Mapped from the mapping holding addr through contiguous ones to the end of the range asked for.
  auto it = r->mappings.upper_bound(addr);
  uint64_t at = 0;
  if (it != r->mappings.begin()) {
    --it;
    for (at = it->first; it != r->mappings.end() && it->first == at && at < addr + size; ++it) at += it->second.size;
  }
  if (at < addr + size) return param_invalid("[" + hex(addr) + ", +" + std::to_string(size) + ") is not mapped");
  const int f = ::fcntl(r->pool_fd, F_DUPFD_CLOEXEC, 0);
  if (f < 0) return Status(Errc::rt_internal_error, std::string("cannot share the memory: ") + std::strerror(errno));
  *fd = f;
  *offset = addr - base;
  return Status::Ok();
}

int32_t VirtualMemory::pool_device(uint64_t addr) const {
  if (g_reservations.load(std::memory_order_relaxed) == 0) return -1;
  std::shared_lock lock(mu_);
  const Reservation* r = find_reservation(addr);
  return r != nullptr ? r->pool_device : -1;
}

void VirtualMemory::clear() {
  std::vector<std::shared_ptr<Physical>> dead;  // destroyed after the lock is released
  std::unique_lock lock(mu_);
  for (auto& [base, r] : reservations_) {
    for (auto& [a, m] : r.mappings) dead.push_back(std::move(m.phys));
    if (r.pool_fd >= 0) ::close(r.pool_fd);
    ::munmap(r.shadow, r.span);
    ::munmap(reinterpret_cast<void*>(base), r.span);
  }
  g_reservations.fetch_sub(static_cast<int64_t>(reservations_.size()), std::memory_order_relaxed);
  reservations_.clear();
  for (auto& [h, p] : handles_) dead.push_back(std::move(p));
  handles_.clear();
  lock.unlock();
}

}  // namespace arun
