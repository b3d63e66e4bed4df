// Front door: host registration V2 and managed (unified) memory, spec part 2, 4.10 (see
// front_door.hpp for the conventions). The caller checks NULL pointers, flag words and the ranges
// the spec states ahead of the runtime's checks; these check what needs the runtime: contexts,
// devices, registrations, the managed window and its allocations.
//
// Managed memory is host memory in the process-wide window [0x90000000000, +3 TiB) that every
// device may reach (kernels map it, copies use it in place); ordinary device memory stays
// unreachable from the host. Advice and prefetches are recorded per 2 MiB page.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// aclrtHostRegisterV2 (`flag` non-zero, only ACL_HOST_REG_* bits: checked by the caller). Errors:
// ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED (overlap),
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT (IOMEMORY / READONLY).
Status host_register_v2(void* ptr, uint64_t size, uint32_t flag);
// aclrtHostGetDevicePointer: the device alias of `host`. ACL_ERROR_RT_PARAM_INVALID unless `host`
// lies in a mapped registration.
Status host_device_pointer(void* host, void** device);
// aclrtHostMemMapCapabilities (`hac` 0..9 and `out` checked by the caller after the device):
// ACL_ERROR_RT_INVALID_DEVICEID.
Status check_map_device(uint32_t device);
bool host_mem_map_supported(int hac);

// aclrtMemAllocManaged (`size` > 0). ACL_ERROR_RT_MEMORY_ALLOCATION when the window is exhausted.
Status managed_alloc(void** out, uint64_t size);
// True when `ptr` is the start of a managed allocation (which aclrtFree then releases).
bool managed_free(const void* ptr);

struct ManagedLocation {
  int type = 0;  // aclrtMemManagedLocationType value
  int32_t id = 0;
};
// ACL_ERROR_RT_PARAM_INVALID: a DEVICE location whose id is not a device, or `type` not one of
// DEVICE, HOST, HOST_NUMA, HOST_NUMA_CURRENT.
Status check_managed_location(const ManagedLocation& location);
// ACL_ERROR_RT_PARAM_INVALID unless [ptr, ptr + size) lies in the window, inside one managed
// allocation, and (when `aligned`) starts and ends on 2 MiB boundaries.
Status check_managed_range(const void* ptr, uint64_t size, bool aligned);
// aclrtMemManagedAdvise (`advise` 0..5; range and location not yet checked).
Status managed_advise(const void* ptr, uint64_t size, int advise, const ManagedLocation& location);
// Bytes an attribute needs (0: any non-zero multiple of 4, ACCESSED_BY); attribute 1..8.
size_t managed_attribute_size(int attribute);
// aclrtMemManagedGetAttr (attribute 1..8 and data_size checked by the caller; range not yet).
Status managed_attribute(int attribute, const void* ptr, size_t size, void* data, size_t data_size);
// aclrtMemManagedPrefetchAsync / BatchAsync (ranges, locations checked): one task on `stream`
// that migrates range i to locations[i]. The request is recorded now (LAST_PREFETCH_*), the
// residence when the task runs. Errors: ACL_ERROR_RT_INTERNAL_ERROR (NULL stream, no context), the
// stream's.
struct ManagedRange {
  const void* ptr;
  uint64_t size;
  ManagedLocation location;
};
Status managed_prefetch(const ManagedRange* ranges, size_t count, aclrtStream stream);

}  // namespace arun::rt
