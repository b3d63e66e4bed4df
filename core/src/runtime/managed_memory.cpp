#include "runtime/managed_memory.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/logging.hpp"

namespace arun {

ManagedMemory& ManagedMemory::instance() {
  static ManagedMemory managed;
  return managed;
}

Status ManagedMemory::reserve_locked() {
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void* p = mmap(reinterpret_cast<void*>(kPreferredBase), kWindowSize, PROT_NONE, kFlags | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == reinterpret_cast<void*>(kPreferredBase)) {
    size_.store(kWindowSize, std::memory_order_relaxed);
    base_.store(kPreferredBase, std::memory_order_release);
    return Status::Ok();
  }
  const int fixed_err = p == MAP_FAILED ? errno : EEXIST;
  if (p != MAP_FAILED) munmap(p, kWindowSize);  // an old kernel took the address as a hint
  // CANN's range is taken: anywhere, 2 MiB aligned (one page more, trimmed at both ends). A
  // sanitizer's shadow can leave no 3 TiB hole at all (ThreadSanitizer's): then a smaller window.
  for (uint64_t size = kWindowSize; size >= kMinWindowSize; size /= 2) {
    p = mmap(nullptr, size + kPage, PROT_NONE, kFlags, -1, 0);
    if (p == MAP_FAILED) continue;
    const auto raw = reinterpret_cast<uint64_t>(p);
    const uint64_t aligned = (raw + kPage - 1) / kPage * kPage;
    if (aligned > raw) munmap(p, aligned - raw);
    if (raw + kPage > aligned) munmap(reinterpret_cast<void*>(aligned + size), raw + kPage - aligned);
    char at[32];
    std::snprintf(at, sizeof at, "%#llx", static_cast<unsigned long long>(aligned));
    log().warn("the managed-memory window cannot be at 0x90000000000 ({}); it is at {}, {} GiB",
               std::strerror(fixed_err), at, size >> 30);
    size_.store(size, std::memory_order_relaxed);
    base_.store(aligned, std::memory_order_release);
    return Status::Ok();
  }
  return Status(Errc::rt_memory_allocation,
                std::string("cannot reserve a managed-memory window: ") + std::strerror(errno));
}

Status ManagedMemory::allocate(uint64_t size, void** out) {
  if (size > kWindowSize) {
    return Status(Errc::rt_memory_allocation,
                  "managed memory of " + std::to_string(size) + " bytes exceeds the 3 TiB window");
  }
  const uint64_t bytes = (size + kPage - 1) / kPage * kPage;
  std::lock_guard lock(mu_);
  if (base() == 0) ARUN_RETURN_IF_ERROR(reserve_locked());
  const uint64_t window = base(), window_size = size_.load(std::memory_order_relaxed);
  // First fit over the gaps between live allocations.
  uint64_t at = window;
  for (const auto& [base, a] : live_) {
    if (base - at >= bytes) break;
    at = base + a.size;
  }
  if (window + window_size - at < bytes) {
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
