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

// aclrtReserveMemAddressNoUCMemory (pointers and `size` > 0 checked by the caller).
// ACL_ERROR_RT_PARAM_INVALID: `size` not a multiple of 1 GiB, `alignment` or `flags` != 0, `expect`
// outside [40 TiB, 224 TiB), not 1 GiB aligned or unavailable (x86-64 hosts stop at 128 TiB).
Status reserve_mem_address_no_uc(void** out, uint64_t size, uint64_t alignment, void* expect, uint64_t flags);
// aclrtMemGetAddressRange (`ptr` not NULL, one output at least): the allocation containing `ptr`
// (aclrtMalloc blocks, aclrtMallocHost / registered host memory, VMM mappings).
// ACL_ERROR_RT_PARAM_INVALID when there is none.
Status mem_get_address_range(void* ptr, void** base, size_t* size);
// aclrtMemP2PMap (arguments checked by the caller): [ptr, ptr+size) must be device memory of
// another device whose memory `dst` has peer access to; nothing to pre-map in the model.
// ACL_ERROR_RT_INVALID_DEVICEID; ACL_ERROR_RT_PARAM_INVALID (not such memory, no peer access).
Status mem_p2p_map(void* ptr, uint64_t size, int32_t dst);
// aclrtMemMapSelectedLink: checks that `dst` starts a reservation and `src` a mapping of `size`
// bytes (ACL_ERROR_RT_PARAM_INVALID), then ACL_ERROR_RT_FEATURE_NOT_SUPPORT: the simulated chip has
// no selectable die-to-die links.
Status mem_map_selected_link(void* dst, uint64_t size, void* src);
// aclrtMemMapSetLink: ACL_ERROR_RT_INVALID_HANDLE for a handle that is not live, then
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT (no link selection on the simulated chip).
Status mem_map_set_link(aclrtDrvMemHandle handle);

}  // namespace arun::rt
