#include "runtime/memory_registry.hpp"

#include <cstdlib>

#include "runtime/stream.hpp"

namespace arun {

void MemoryRegistry::add(void* base, uint64_t size, const void* site) {
  std::lock_guard lock(mu_);
  ranges_[reinterpret_cast<uintptr_t>(base)] = Entry{size, site};
}

bool MemoryRegistry::remove(void* base, uint64_t* size) {
  std::lock_guard lock(mu_);
  auto it = ranges_.find(reinterpret_cast<uintptr_t>(base));
  if (it == ranges_.end()) return false;
  if (size) *size = it->second.size;
  ranges_.erase(it);
  return true;
}

bool MemoryRegistry::find(const void* ptr, uint64_t bytes, void** base, uint64_t* size) const {
  std::lock_guard lock(mu_);
  auto p = reinterpret_cast<uintptr_t>(ptr);
  auto it = ranges_.upper_bound(p);
  if (it == ranges_.begin()) return false;
  --it;
  if (p < it->first || p + bytes > it->first + it->second.size || p + bytes < p) return false;
  if (base) *base = reinterpret_cast<void*>(it->first);
  if (size) *size = it->second.size;
  return true;
}

bool MemoryRegistry::reached(Retired& r) {
  while (!r.positions.empty()) {
    auto s = r.positions.back().stream.lock();
    if (s && s->completed() < r.positions.back().submitted) return false;
    r.positions.pop_back();
  }
  return true;
}

void MemoryRegistry::retire(void* base, std::vector<StreamPosition> positions) {
  {
    std::lock_guard lock(mu_);
    retired_.push_back({base, std::move(positions)});
  }
  release_retired();
}

void MemoryRegistry::release_retired(bool all) {
  std::vector<void*> done;
  {
    std::lock_guard lock(mu_);
    std::erase_if(retired_, [&](Retired& r) {
      if (!all && !reached(r)) return false;
      done.push_back(r.base);
      return true;
    });
  }
  for (void* p : done) std::free(p);
}

uint64_t MemoryRegistry::retired_count() const {
  std::lock_guard lock(mu_);
  return retired_.size();
}

uint64_t MemoryRegistry::count() const {
  std::lock_guard lock(mu_);
  return ranges_.size();
}

uint64_t MemoryRegistry::bytes() const {
  std::lock_guard lock(mu_);
  uint64_t n = 0;
  for (auto& [b, e] : ranges_) n += e.size;
  return n;
}

}  // namespace arun
