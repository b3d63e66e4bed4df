#include "alloc/allocator_descriptors.hpp"

#include <new>

namespace arun {

AllocatorDescriptors& AllocatorDescriptors::instance() {
  static AllocatorDescriptors registry;
  return registry;
}

AllocatorDescriptor* AllocatorDescriptors::create() noexcept {
  auto* d = new (std::nothrow) AllocatorDescriptor();
  if (d == nullptr) return nullptr;
  try {
    std::lock_guard lock(mu_);
    live_.insert(d);
  } catch (...) {
    delete d;
    return nullptr;
  }
  return d;
}

Status AllocatorDescriptors::destroy(void* desc) {
  if (desc == nullptr) return Status(Errc::invalid_param, "allocatorDesc is NULL");
  std::lock_guard lock(mu_);
  if (live_.erase(static_cast<AllocatorDescriptor*>(desc)) == 0) {
    return Status(Errc::invalid_param, "allocatorDesc is not a live descriptor (destroyed already?)");
  }
  delete static_cast<AllocatorDescriptor*>(desc);
  return Status::Ok();
}

}  // namespace arun
