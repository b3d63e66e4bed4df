// Spec part 2, 4.13: virtual memory management, and aclrtDeviceGetBareTgid (4.14). Arguments are
// checked in the spec's order; the runtime's part (devices, reservations, physical handles,
// mappings) is arun/runtime/virtual_memory.hpp.
#include <unistd.h>

#include <string>

#include "acl/acl_rt.h"
#include "api_call.hpp"
#include "arun/runtime/virtual_memory.hpp"

using namespace arun;
using namespace arun::api;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * 1024;
constexpr uint64_t kGiB = kMiB * 1024;

// The fields of a property set (every error here is ACL_ERROR_INVALID_PARAM) and the page class
// it asks for. Granularity (our choice; CANN asks the driver): MINIMUM 4 KiB / 2 MiB / 1 GiB for
// normal / huge / 1 GiB kinds, RECOMMENDED 2 MiB / 2 MiB / 1 GiB.
Status check_prop(const aclrtPhysicalMemProp& prop, rt::PhysicalKind* kind) {
  if (raw(prop.handleType) != ACL_MEM_HANDLE_TYPE_NONE) {
    return invalid_param("prop->handleType " + std::to_string(raw(prop.handleType)) +
                         " must be ACL_MEM_HANDLE_TYPE_NONE");
  }
  if (raw(prop.allocationType) != ACL_MEM_ALLOCATION_TYPE_PINNED) {
    return invalid_param("prop->allocationType " + std::to_string(raw(prop.allocationType)) +
                         " must be ACL_MEM_ALLOCATION_TYPE_PINNED");
  }
  const int type = raw(prop.location.type);
  const bool device = type == ACL_MEM_LOCATION_TYPE_DEVICE;
  if (!device && type != ACL_MEM_LOCATION_TYPE_HOST && type != ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
    return invalid_param("prop->location.type " + std::to_string(type) + " must be DEVICE, HOST or HOST_NUMA");
  }
  int page = -1;     // 0 normal, 1 huge, 2 huge 1G
  bool any = false;  // valid for either location
  bool dev_only = false;
  switch (raw(prop.memAttr)) {
    case ACL_MEM_NORMAL:
    case ACL_MEM_P2P_NORMAL:
      page = 0, any = true;
      break;
    case ACL_MEM_HUGE:
    case ACL_MEM_P2P_HUGE:
      page = 1, any = true;
      break;
    case ACL_MEM_HUGE1G:
    case ACL_MEM_P2P_HUGE1G:
    case ACL_HBM_MEM_HUGE1G:
      page = 2, dev_only = true;
      break;
    case ACL_HBM_MEM_NORMAL:
      page = 0, dev_only = true;
      break;
    case ACL_HBM_MEM_HUGE:
      page = 1, dev_only = true;
      break;
    case ACL_DDR_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_NORMAL:
      page = 0;
      break;
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_P2P_HUGE:
      page = 1;
      break;
    default:
      return invalid_param("prop->memAttr " + std::to_string(raw(prop.memAttr)) +
                           " is not accepted for physical memory (ACL_DDR_MEM, ACL_HBM_MEM and "
                           "ACL_HBM_MEM_P2P_* are not)");
  }
  const bool host_only = !any && !dev_only;  // the DDR kinds
  if (device && host_only) {
    return invalid_param("prop->memAttr " + std::to_string(raw(prop.memAttr)) +
                         " (a DDR kind) is for host locations, not DEVICE");
  }
  if (!device && dev_only) {
    return invalid_param("prop->memAttr " + std::to_string(raw(prop.memAttr)) +
                         " (an HBM or 1 GiB kind) is for DEVICE locations only");
  }
  kind->page = page;
  kind->minimum = page == 0 ? 4 * kKiB : page == 1 ? 2 * kMiB : kGiB;
  kind->recommended = page == 2 ? kGiB : 2 * kMiB;
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment, void* expectPtr, uint64_t flags) {
  return api_call("aclrtReserveMemAddress", [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (flags > 1) return invalid_param("flags " + std::to_string(flags) + " must be 0 or 1");
    return rt::reserve_mem_address(virPtr, size, alignment, expectPtr);
  });
}

aclError aclrtReleaseMemAddress(void* virPtr) {
  return api_call("aclrtReleaseMemAddress", [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    return rt::release_mem_address(virPtr);
  });
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size, const aclrtPhysicalMemProp* prop, uint64_t flags) {
  return api_call("aclrtMallocPhysical", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (prop == nullptr) return invalid_param("prop is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (flags != 0) return invalid_param("flags " + std::to_string(flags) + " must be 0");
    rt::PhysicalKind kind;
    ARUN_RETURN_IF_ERROR(check_prop(*prop, &kind));
    return rt::malloc_physical(handle, size, *prop, kind);
  });
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
  return api_call("aclrtFreePhysical", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    return rt::free_physical(handle);
  });
}

static aclError map_call(const char* name, void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                         uint64_t flags, bool access) {
  return api_call(name, [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (flags != 0) return invalid_param("flags " + std::to_string(flags) + " must be 0");
    if (offset != 0) return rt_param_invalid("offset " + std::to_string(offset) + " must be 0");
    return rt::map_mem(virPtr, size, handle, access);
  });
}

aclError aclrtMapMem(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags) {
  return map_call("aclrtMapMem", virPtr, size, offset, handle, flags, true);
}

aclError aclrtMemMapNoAccess(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags) {
  return map_call("aclrtMemMapNoAccess", virPtr, size, offset, handle, flags, false);
}

aclError aclrtUnmapMem(void* virPtr) {
  return api_call("aclrtUnmapMem", [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    return rt::unmap_mem(virPtr);
  });
}

aclError aclrtMemSetAccess(void* virPtr, size_t size, aclrtMemAccessDesc* desc, size_t count) {
  // No ACL-level check: NULLs and a zero count are the runtime's 107000.
  return api_call("aclrtMemSetAccess", [&] { return rt::mem_set_access(virPtr, size, desc, count); });
}

aclError aclrtMemGetAccess(void* virPtr, aclrtMemLocation* location, uint64_t* flag) {
  return api_call("aclrtMemGetAccess", [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    if (location == nullptr) return invalid_param("location is NULL");
    if (flag == nullptr) return invalid_param("flag is NULL");
    return rt::mem_get_access(virPtr, *location, flag);
  });
}

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp* prop, aclrtMemGranularityOptions option,
                                          size_t* granularity) {
  return api_call("aclrtMemGetAllocationGranularity", [&] {
    if (prop == nullptr) return invalid_param("prop is NULL");
    if (granularity == nullptr) return invalid_param("granularity is NULL");
    rt::PhysicalKind kind;
    ARUN_RETURN_IF_ERROR(check_prop(*prop, &kind));
    const int opt = raw(option);
    if (opt != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && opt != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
      return rt_param_invalid("option " + std::to_string(opt) + " is not MINIMUM (0) or RECOMMENDED (1)");
    }
    ARUN_RETURN_IF_ERROR(rt::check_physical_location(*prop));
    *granularity = opt == ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM ? kind.minimum : kind.recommended;
    return Status::Ok();
  });
}

aclError aclrtMemRetainAllocationHandle(void* virPtr, aclrtDrvMemHandle* handle) {
  return api_call("aclrtMemRetainAllocationHandle", [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    return rt::retain_allocation_handle(virPtr, handle);
  });
}

aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp* prop) {
  return api_call("aclrtMemGetAllocationPropertiesFromHandle", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (prop == nullptr) return invalid_param("prop is NULL");
    return rt::physical_properties(handle, prop);
  });
}

aclError aclrtDeviceGetBareTgid(int32_t* pid) {
  return api_call("aclrtDeviceGetBareTgid", [&] {
    if (pid == nullptr) return invalid_param("pid is NULL");
    // Not in a container of its own here: the host's pid is getpid().
    *pid = static_cast<int32_t>(::getpid());
    return Status::Ok();
  });
}

aclError aclrtReserveMemAddressNoUCMemory(void** virPtr, size_t size, size_t alignment, void* expectPtr,
                                          uint64_t flags) {
  return api_call("aclrtReserveMemAddressNoUCMemory", [&] {
    if (virPtr == nullptr) return invalid_param("virPtr is NULL");
    if (expectPtr == nullptr) return invalid_param("expectPtr is NULL (it is mandatory here)");
    if (size == 0) return invalid_param("size is 0");
    return rt::reserve_mem_address_no_uc(virPtr, size, alignment, expectPtr, flags);
  });
}

aclError aclrtMemGetAddressRange(void* ptr, void** pbase, size_t* psize) {
  return api_call("aclrtMemGetAddressRange", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (pbase == nullptr && psize == nullptr) return rt_param_invalid("pbase and psize are both NULL");
    return rt::mem_get_address_range(ptr, pbase, psize);
  });
}

aclError aclrtMemP2PMap(void* devPtr, size_t size, int32_t dstDevId, uint64_t flags) {
  return api_call("aclrtMemP2PMap", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (flags != 0) return invalid_param("flags " + std::to_string(flags) + " must be 0");
    return rt::mem_p2p_map(devPtr, size, dstDevId);
  });
}

aclError aclrtMemMapSelectedLink(void* virPtrDst, size_t size, void* virPtrSrc, uint32_t linkIdx) {
  return api_call("aclrtMemMapSelectedLink", [&] {
    if (virPtrDst == nullptr) return invalid_param("virPtrDst is NULL");
    if (virPtrSrc == nullptr) return invalid_param("virPtrSrc is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (linkIdx > ACL_RT_MEM_LINK_IDX_1) return invalid_param("linkIdx " + std::to_string(linkIdx) + " is not 0 or 1");
    return rt::mem_map_selected_link(virPtrDst, size, virPtrSrc);
  });
}

aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink) {
  return api_call("aclrtMemMapSetLink", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (raw(adviceLink) > ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH) {
      return rt_param_invalid("adviceLink " + std::to_string(raw(adviceLink)) + " is not a link type (0..3)");
    }
    return rt::mem_map_set_link(handle);
  });
}

}  // extern "C"
