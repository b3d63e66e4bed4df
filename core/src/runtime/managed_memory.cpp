#include "runtime/managed_memory.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace arun {

ManagedMemory& ManagedMemory::instance() {
  static ManagedMemory managed;
  return managed;
}

Status ManagedMemory::allocate(uint64_t size, void** out) {
  if (size > kWindowSize) {
    return Status(Errc::rt_memory_allocation,
                  "managed memory of " + std::to_string(size) + " bytes exceeds the 3 TiB window");
  }
  const uint64_t bytes = (size + kPage - 1) / kPage * kPage;
  std::lock_guard lock(mu_);
  if (!reserved_) {
    void* p = mmap(reinterpret_cast<void*>(kWindowBase), kWindowSize, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED || p != reinterpret_cast<void*>(kWindowBase)) {
      const int err = errno;
      if (p != MAP_FAILED) munmap(p, kWindowSize);
      return Status(Errc::rt_memory_allocation,
                    std::string("cannot reserve the managed-memory window at 0x90000000000: ") + std::strerror(err));
    }
    reserved_ = true;
  }
  // First fit over the gaps between live allocations.
  uint64_t at = kWindowBase;
  for (const auto& [base, a] : live_) {
    if (base - at >= bytes) break;
    at = base + a.size;
  }
  if (kWindowBase + kWindowSize - at < bytes) {
    return Status(Errc::rt_memory_allocation,
                  "the managed-memory window (3 TiB) has no free range of " + std::to_string(bytes) + " bytes left");
  }
  if (mprotect(reinterpret_cast<void*>(at), bytes, PROT_READ | PROT_WRITE) != 0) {
    return Status(Errc::rt_memory_allocation,
                  std::string("cannot make managed memory accessible: ") + std::strerror(errno));
  }
  Allocation& a = live_[at];
  a.base = at;
  a.size = bytes;
  *out = reinterpret_cast<void*>(at);
  return Status::Ok();
}

bool ManagedMemory::free(const void* ptr) {
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  std::lock_guard lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end()) return false;
  // Back to a reserved, unbacked range: the pages are returned and a later use faults.
  void* p = mmap(reinterpret_cast<void*>(addr), it->second.size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  (void)p;
  live_.erase(it);
  return true;
}

void ManagedMemory::release_all() {
  std::lock_guard lock(mu_);
  for (const auto& [base, a] : live_) {
    (void)mmap(reinterpret_cast<void*>(base), a.size, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  }
  live_.clear();
}

ManagedMemory::Allocation* ManagedMemory::find_locked(uint64_t addr, uint64_t bytes) {
  return const_cast<Allocation*>(static_cast<const ManagedMemory*>(this)->find_locked(addr, bytes));
}

const ManagedMemory::Allocation* ManagedMemory::find_locked(uint64_t addr, uint64_t bytes) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return nullptr;
  --it;
  const uint64_t offset = addr - it->first;
  if (offset >= it->second.size || bytes > it->second.size - offset || bytes == 0) return nullptr;
  return &it->second;
}

bool ManagedMemory::contains(uint64_t addr, uint64_t bytes) const {
  if (!in_window(addr, bytes)) return false;
  std::lock_guard lock(mu_);
  return find_locked(addr, bytes) != nullptr;
}

}  // namespace arun
