// Host ranges registered with aclrtHostRegister / aclrtHostRegisterV2: runtime-scoped (owned by
// Runtime, cleared at aclFinalize). Ranges never overlap; a range is unregistered by its start
// address. Each keeps its ACL_HOST_REG_* flags: MAPPED ranges are reachable by device code (the
// alias is the host address itself), PINNED ones count as page-locked for async copies.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace arun {

class HostRegistrations {
 public:
  static constexpr uint32_t kMapped = 0x2;         // ACL_HOST_REG_MAPPED
  static constexpr uint32_t kPinned = 0x10000000;  // ACL_HOST_REG_PINNED

  // False when [base, base + size) overlaps a registered range.
  bool add(uintptr_t base, uint64_t size, uint32_t flags = kMapped);
  // False when `base` is not the start of a registered range.
  bool remove(uintptr_t base);
  // True when [addr, addr + bytes) lies inside one registered range having every bit of `flags`;
  // its start and size go to *base / *size (when not NULL).
  bool find(uintptr_t addr, uint64_t bytes, uint32_t flags, uintptr_t* base = nullptr, uint64_t* size = nullptr) const;
  void clear();

 private:
  struct Range {
    uint64_t size;
    uint32_t flags;
  };
  mutable std::mutex mu_;
  std::map<uintptr_t, Range> ranges_;  // start -> size, flags
};

}  // namespace arun
