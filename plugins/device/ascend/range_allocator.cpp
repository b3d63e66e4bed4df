#include "range_allocator.hpp"

#include <cassert>

#include "align.hpp"

namespace arun::ascend {

RangeAllocator::RangeAllocator(uint64_t capacity) : capacity_(capacity) {
  reset();
}

void RangeAllocator::reset() {
  by_offset_.clear();
  by_size_.clear();
  free_bytes_ = 0;
  if (capacity_ > 0) insert_free(0, capacity_);
}

uint64_t RangeAllocator::largest_free() const {
  return by_size_.empty() ? 0 : by_size_.rbegin()->first;
}

void RangeAllocator::insert_free(uint64_t offset, uint64_t size) {
  by_offset_.emplace(offset, size);
  by_size_.emplace(size, offset);
  free_bytes_ += size;
}

void RangeAllocator::erase_free(std::map<uint64_t, uint64_t>::iterator it) {
  by_size_.erase({it->second, it->first});
  free_bytes_ -= it->second;
  by_offset_.erase(it);
}

std::optional<uint64_t> RangeAllocator::allocate(uint64_t size, uint64_t alignment) {
  if (size == 0 || size > free_bytes_ || alignment == 0 || (alignment & (alignment - 1)) != 0) return std::nullopt;
  for (auto it = by_size_.lower_bound({size, 0}); it != by_size_.end(); ++it) {
    const uint64_t range_offset = it->second;
    const uint64_t range_size = it->first;
    const uint64_t placed = align_up(range_offset, alignment);
    const uint64_t lead = placed - range_offset;
    if (placed < range_offset || lead > range_size || range_size - lead < size) continue;  // misfit after aligning
    const uint64_t tail = range_size - lead - size;
    erase_free(by_offset_.find(range_offset));
    if (lead > 0) insert_free(range_offset, lead);
    if (tail > 0) insert_free(placed + size, tail);
    return placed;
  }
  return std::nullopt;
}

RangeAllocator::Range RangeAllocator::release(uint64_t offset, uint64_t size) {
  assert(size > 0 && offset + size <= capacity_);
  Range merged{offset, size};
  auto next = by_offset_.lower_bound(offset);
  if (next != by_offset_.begin()) {
    auto prev = std::prev(next);
    assert(prev->first + prev->second <= offset);  // no overlap with a free range: not a double free
    if (prev->first + prev->second == offset) {
      merged.offset = prev->first;
      merged.size += prev->second;
      erase_free(prev);
    }
  }
  if (next != by_offset_.end()) {
    assert(offset + size <= next->first);
    if (offset + size == next->first) {
      merged.size += next->second;
      erase_free(next);
    }
  }
  insert_free(merged.offset, merged.size);
  return merged;
}

}  // namespace arun::ascend
