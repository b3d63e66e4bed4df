#include "runtime/host_registrations.hpp"

#include <iterator>

namespace arun {

bool HostRegistrations::add(uintptr_t base, uint64_t size) {
  std::lock_guard lock(mu_);
  auto next = ranges_.lower_bound(base);
  bool overlaps = (next != ranges_.end() && next->first < base + size) ||
                  (next != ranges_.begin() && std::prev(next)->first + std::prev(next)->second > base);
  if (overlaps) return false;
  ranges_[base] = size;
  return true;
}

bool HostRegistrations::remove(uintptr_t base) {
  std::lock_guard lock(mu_);
  return ranges_.erase(base) != 0;
}

void HostRegistrations::clear() {
  std::lock_guard lock(mu_);
  ranges_.clear();
}

}  // namespace arun
