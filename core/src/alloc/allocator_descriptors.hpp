// User allocator descriptors (aclrtAllocatorCreateDesc .. aclrtAllocatorDestroyDesc).
//
// Process-scope, not runtime-scoped: the spec lets a program create and fill descriptors before
// aclInit and keep them across aclFinalize, so the registry lives as long as the process. Live
// descriptors are tracked in a set, so a destroyed or foreign descriptor pointer is
// ACL_ERROR_INVALID_PARAM, never a dereference. A registration on a stream copies the fields, so a
// descriptor may be destroyed afterwards.
#pragma once

#include <mutex>
#include <unordered_set>

#include "acl/acl_rt_allocator.h"
#include "arun/core/status.hpp"

namespace arun {

struct AllocatorDescriptor {
  aclrtAllocator object = nullptr;
  aclrtAllocatorAllocFunc alloc = nullptr;
  aclrtAllocatorFreeFunc free = nullptr;
  aclrtAllocatorAllocAdviseFunc advise = nullptr;
  aclrtAllocatorGetAddrFromBlockFunc get_addr = nullptr;
};

class AllocatorDescriptors {
 public:
  static AllocatorDescriptors& instance();

  // A new empty descriptor; nullptr when out of host memory.
  AllocatorDescriptor* create() noexcept;
  // Errors: invalid_param (NULL, not live).
  Status destroy(void* desc);
  // Runs f(AllocatorDescriptor&) -> Status on a live descriptor, under the registry lock. Errors:
  // invalid_param (NULL, not live).
  template <class F>
  Status with(void* desc, F&& f) {
    if (desc == nullptr) return Status(Errc::invalid_param, "allocatorDesc is NULL");
    std::lock_guard lock(mu_);
    auto it = live_.find(static_cast<AllocatorDescriptor*>(desc));
    if (it == live_.end()) {
      return Status(Errc::invalid_param, "allocatorDesc is not a live descriptor from aclrtAllocatorCreateDesc");
    }
    return f(**it);
  }

 private:
  std::mutex mu_;
  std::unordered_set<AllocatorDescriptor*> live_;
};

}  // namespace arun
