#include "runtime/host_registrations.hpp"

#include <iterator>

namespace arun {

bool HostRegistrations::add(uintptr_t base, uint64_t size, uint32_t flags) {
  std::lock_guard lock(mu_);
  auto next = ranges_.lower_bound(base);
  bool overlaps = (next != ranges_.end() && next->first - base < size) ||
                  (next != ranges_.begin() && std::prev(next)->first + std::prev(next)->second.size > base);
  if (overlaps) return false;
  ranges_[base] = Range{size, flags};
  return true;
}

bool HostRegistrations::remove(uintptr_t base) {
  std::lock_guard lock(mu_);
  return ranges_.erase(base) != 0;
}

bool HostRegistrations::find(uintptr_t addr, uint64_t bytes, uint32_t flags, uintptr_t* base, uint64_t* size) const {
  std::lock_guard lock(mu_);
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return false;
  --it;
  const uint64_t offset = addr - it->first;
  if (offset >= it->second.size || bytes > it->second.size - offset) return false;
  if ((it->second.flags & flags) != flags) return false;
  if (base != nullptr) *base = it->first;
  if (size != nullptr) *size = it->second.size;
  return true;
}

void HostRegistrations::clear() {
  std::lock_guard lock(mu_);
  ranges_.clear();
}

}  // namespace arun
