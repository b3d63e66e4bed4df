// Front door: virtual memory management, spec part 2, 4.13 (see front_door.hpp for the
// conventions). The caller checks NULL pointers, flag words and the physical-memory properties
// (aclrtPhysicalMemProp's fields, which it turns into a page kind); these check what needs the
// runtime: devices, reservations, physical handles and mappings.
//
// Reserved ranges are valid for every device. Physical device memory comes from the device plugin
// (plugin::PhysicalMemorySource, ABI minor 6; a device without it answers
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT), host memory from the runtime; both are memfds that mappings
// alias. A device reaches a mapped range only where it has access (aclrtMapMem gives the
// allocation's device access, aclrtMemSetAccess adds others).
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclrtReserveMemAddress (`size` > 0, `flags` checked by the caller). ACL_ERROR_RT_PARAM_INVALID:
// `alignment` != 0, `expect` outside [16 TiB, 24 TiB), misaligned or taken;
// ACL_ERROR_RT_MEMORY_ALLOCATION: no address space left.
Status reserve_mem_address(void** out, uint64_t size, uint64_t alignment, void* expect);
// aclrtReleaseMemAddress: ACL_ERROR_RT_PARAM_INVALID unless `ptr` starts a reservation with no
// mapping left.
Status release_mem_address(void* ptr);

// The page class a (checked) property set asks for: 0 normal, 1 huge (2 MiB), 2 huge (1 GiB).
struct PhysicalKind {
  int page = 0;
  uint64_t minimum = 0;  // granularity
  uint64_t recommended = 0;
};
// The runtime's checks of a property set whose fields the caller has checked:
// ACL_ERROR_RT_INVALID_DEVICEID (a DEVICE location that is no device).
Status check_physical_location(const aclrtPhysicalMemProp& prop);
// aclrtMallocPhysical. ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_PARAM_INVALID (size not a
// multiple of kind.minimum), ACL_ERROR_RT_FEATURE_NOT_SUPPORT (HOST_NUMA; a device without physical
// memory), ACL_ERROR_RT_MEMORY_ALLOCATION.
Status malloc_physical(aclrtDrvMemHandle* handle, uint64_t size, const aclrtPhysicalMemProp& prop,
                       const PhysicalKind& kind);
// aclrtFreePhysical: ACL_ERROR_RT_INVALID_HANDLE for a handle with no reference left.
Status free_physical(aclrtDrvMemHandle handle);
// aclrtMemGetAllocationPropertiesFromHandle: ACL_ERROR_RT_INVALID_HANDLE.
Status physical_properties(aclrtDrvMemHandle handle, aclrtPhysicalMemProp* prop);

// aclrtMapMem (`access`) / aclrtMemMapNoAccess (`offset` 0 and `flags` checked by the caller).
// ACL_ERROR_RT_INVALID_HANDLE; ACL_ERROR_RT_PARAM_INVALID: size differs from the allocation's,
// range not inside one reservation, overlapping a mapping, another device's memory in the same
// reservation.
Status map_mem(void* ptr, uint64_t size, aclrtDrvMemHandle handle, bool access);
// aclrtUnmapMem: ACL_ERROR_RT_PARAM_INVALID unless a mapping starts at `ptr`.
Status unmap_mem(void* ptr);
// aclrtMemRetainAllocationHandle: ACL_ERROR_RT_PARAM_INVALID unless a mapping starts at `ptr`.
Status retain_allocation_handle(void* ptr, aclrtDrvMemHandle* handle);
// aclrtMemSetAccess (all of it: the spec has no ACL-level check).
Status mem_set_access(void* ptr, size_t size, const aclrtMemAccessDesc* desc, size_t count);
// aclrtMemGetAccess (pointers checked by the caller).
Status mem_get_access(void* ptr, const aclrtMemLocation& location, uint64_t* flags);

}  // namespace arun::rt
