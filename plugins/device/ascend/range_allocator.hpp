// RangeAllocator: best-fit placement of aligned ranges in [0, capacity), with the free ranges kept
// in an address-ordered map so that a release coalesces with both neighbours in O(log n).
//
// It only manages offsets; it knows nothing about pages, users or threads (the caller locks).
// A second index orders the free ranges by size, so best fit is a lower_bound, and an aligned
// request walks upward from there to the first range that still fits after aligning its start.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace arun::ascend {

class RangeAllocator {
 public:
  struct Range {
    uint64_t offset = 0;
    uint64_t size = 0;
  };

  explicit RangeAllocator(uint64_t capacity);

  // Places `size` bytes (size > 0) at an offset that is a multiple of `alignment` (a power of
  // two). The smallest free range that can hold it is used; what is left on either side of the
  // placement stays free. Returns nullopt if no free range can hold it.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment);

  // Returns [offset, offset+size) to the free set. The caller guarantees that the range was
  // returned by allocate() with the same size and is not released twice. Returns the free range
  // the released one became part of after coalescing with its neighbours.
  Range release(uint64_t offset, uint64_t size);

  // Forgets every allocation: the whole capacity is one free range again.
  void reset();

  uint64_t capacity() const { return capacity_; }
  uint64_t free_bytes() const { return free_bytes_; }
  uint64_t largest_free() const;
  std::size_t free_range_count() const { return by_offset_.size(); }

 private:
  void insert_free(uint64_t offset, uint64_t size);
  void erase_free(std::map<uint64_t, uint64_t>::iterator it);

  uint64_t capacity_;
  uint64_t free_bytes_ = 0;
  std::map<uint64_t, uint64_t> by_offset_;           // offset -> size
  std::set<std::pair<uint64_t, uint64_t>> by_size_;  // (size, offset)
};

}  // namespace arun::ascend
