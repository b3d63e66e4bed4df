// Spec part 2, 4.10: host registration V2 and managed (unified) memory. Arguments are checked in
// the spec's order; the runtime's part (contexts, registrations, the managed window and its
// allocations, devices) is arun/runtime/managed_memory.hpp.
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "api_call.hpp"
#include "arun/runtime/managed_memory.hpp"

using namespace arun;
using namespace arun::api;

namespace {

constexpr uint32_t kHostRegBits =
    ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;

rt::ManagedLocation location_of(const aclrtMemManagedLocation& l) {
  return rt::ManagedLocation{static_cast<int>(raw(l.type)), l.id};
}

Status check_attribute(int attribute) {
  if (attribute < ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY ||
      attribute > ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID) {
    return rt_param_invalid("attribute " + std::to_string(attribute) +
                            " is not an aclrtMemManagedRangeAttribute (1..8)");
  }
  return Status::Ok();
}

Status check_data_size(int attribute, size_t data_size) {
  const size_t need = rt::managed_attribute_size(attribute);
  if (need == 0) {
    if (data_size == 0 || data_size % 4 != 0) {
      return rt_param_invalid("dataSize " + std::to_string(data_size) +
                              " must be a non-zero multiple of 4 for ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY");
    }
  } else if (data_size != need) {
    return rt_param_invalid("dataSize " + std::to_string(data_size) + " must be " + std::to_string(need) +
                            " for attribute " + std::to_string(attribute));
  }
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtHostRegisterV2(void* ptr, uint64_t size, uint32_t flag) {
  return api_call("aclrtHostRegisterV2", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (flag == 0 || (flag & ~kHostRegBits) != 0) {
      return rt_param_invalid("flag " + std::to_string(flag) +
                              " is not a non-empty OR of ACL_HOST_REG_MAPPED, _IOMEMORY, _READONLY, _PINNED");
    }
    return rt::host_register_v2(ptr, size, flag);
  });
}

aclError aclrtHostGetDevicePointer(void* pHost, void** pDevice, uint32_t flag) {
  return api_call("aclrtHostGetDevicePointer", [&] {
    if (pHost == nullptr) return invalid_param("pHost is NULL");
    if (pDevice == nullptr) return invalid_param("pDevice is NULL");
    if (flag != 0) return invalid_param("flag " + std::to_string(flag) + " must be 0");
    return rt::host_device_pointer(pHost, pDevice);
  });
}

aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType, aclrtHostMemMapCapability* capabilities) {
  return api_call("aclrtHostMemMapCapabilities", [&] {
    if (capabilities == nullptr) return invalid_param("capabilities is NULL");
    ARUN_RETURN_IF_ERROR(rt::check_map_device(deviceId));
    const int hac = raw(hacType);
    if (hac < ACL_RT_HAC_TYPE_STARS || hac > ACL_RT_HAC_TYPE_CCU) {
      return rt_param_invalid("hacType " + std::to_string(hac) + " is not an aclrtHacType (0..9)");
    }
    *capabilities = rt::host_mem_map_supported(hac) ? ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
    return Status::Ok();
  });
}

aclError aclrtMemAllocManaged(void** ptr, uint64_t size, uint32_t flag) {
  return api_call("aclrtMemAllocManaged", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (flag != ACL_RT_MEM_ATTACH_GLOBAL) {
      return invalid_param("flag " + std::to_string(flag) + " must be ACL_RT_MEM_ATTACH_GLOBAL");
    }
    if (size == 0) return rt_param_invalid("size is 0");
    return rt::managed_alloc(ptr, size);
  });
}

aclError aclrtMemManagedAdvise(const void* const ptr, uint64_t size, aclrtMemManagedAdviseType advise,
                               aclrtMemManagedLocation location) {
  return api_call("aclrtMemManagedAdvise", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (size == 0) return invalid_param("size is 0");
    const int a = raw(advise);
    if (a < ACL_MEM_ADVISE_SET_READ_MOSTLY || a > ACL_MEM_ADVISE_UNSET_ACCESSED_BY) {
      return rt_param_invalid("advise " + std::to_string(a) + " is not an aclrtMemManagedAdviseType (0..5)");
    }
    return rt::managed_advise(ptr, size, a, location_of(location));
  });
}

aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void* ptr, size_t size, void* data,
                                size_t dataSize) {
  return api_call("aclrtMemManagedGetAttr", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (data == nullptr) return invalid_param("data is NULL");
    if (size == 0) return invalid_param("size is 0");
    const int attr = raw(attribute);
    ARUN_RETURN_IF_ERROR(check_attribute(attr));
    ARUN_RETURN_IF_ERROR(check_data_size(attr, dataSize));
    return rt::managed_attribute(attr, ptr, size, data, dataSize);
  });
}

aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute* attributes, size_t numAttributes, const void* ptr,
                                 size_t size, void** data, size_t* dataSizes) {
  return api_call("aclrtMemManagedGetAttrs", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (attributes == nullptr) return invalid_param("attributes is NULL");
    if (data == nullptr) return invalid_param("data is NULL");
    if (dataSizes == nullptr) return invalid_param("dataSizes is NULL");
    if (size == 0) return invalid_param("size is 0");
    // Every attribute first: nothing is written when one is out of range.
    for (size_t i = 0; i < numAttributes; ++i) ARUN_RETURN_IF_ERROR(check_attribute(raw(attributes[i])));
    for (size_t i = 0; i < numAttributes; ++i) {
      const int attr = raw(attributes[i]);
      if (data[i] == nullptr) return invalid_param("data[" + std::to_string(i) + "] is NULL");
      ARUN_RETURN_IF_ERROR(check_data_size(attr, dataSizes[i]));
      ARUN_RETURN_IF_ERROR(rt::managed_attribute(attr, ptr, size, data[i], dataSizes[i]));
    }
    return Status::Ok();
  });
}

aclError aclrtMemManagedPrefetchAsync(const void* ptr, size_t size, aclrtMemManagedLocation location, uint32_t flags,
                                      aclrtStream stream) {
  return api_call("aclrtMemManagedPrefetchAsync", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (flags != 0) return invalid_param("flags " + std::to_string(flags) + " must be 0");
    const rt::ManagedLocation where = location_of(location);
    ARUN_RETURN_IF_ERROR(rt::check_managed_location(where));
    ARUN_RETURN_IF_ERROR(rt::check_managed_range(ptr, size, true));
    const rt::ManagedRange range{ptr, size, where};
    return rt::managed_prefetch(&range, 1, stream);
  });
}

aclError aclrtMemManagedPrefetchBatchAsync(const void** ptrs, size_t* sizes, size_t count,
                                           aclrtMemManagedLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                           size_t numPrefetchLocs, uint64_t flags, aclrtStream stream) {
  return api_call("aclrtMemManagedPrefetchBatchAsync", [&] {
    if (ptrs == nullptr || sizes == nullptr || prefetchLocs == nullptr || prefetchLocIdxs == nullptr) {
      return invalid_param("ptrs, sizes, prefetchLocs and prefetchLocIdxs must not be NULL");
    }
    if (count == 0) return invalid_param("count is 0");
    if (numPrefetchLocs == 0) return invalid_param("numPrefetchLocs is 0");
    if (flags != 0) return invalid_param("flags " + std::to_string(flags) + " must be 0");
    if (numPrefetchLocs > count) {
      return invalid_param("numPrefetchLocs " + std::to_string(numPrefetchLocs) + " exceeds count " +
                           std::to_string(count));
    }
    if (prefetchLocIdxs[0] != 0) return rt_param_invalid("prefetchLocIdxs[0] must be 0");
    for (size_t k = 1; k < numPrefetchLocs; ++k) {
      if (prefetchLocIdxs[k] <= prefetchLocIdxs[k - 1] || prefetchLocIdxs[k] >= count) {
        return rt_param_invalid("prefetchLocIdxs must be strictly increasing and below count (index " +
                                std::to_string(k) + ")");
      }
    }
    std::vector<rt::ManagedRange> ranges(count);
    size_t run = 0;
    for (size_t i = 0; i < count; ++i) {
      while (run + 1 < numPrefetchLocs && prefetchLocIdxs[run + 1] <= i) ++run;
      if (ptrs[i] == nullptr) return rt_param_invalid("ptrs[" + std::to_string(i) + "] is NULL");
      if (sizes[i] == 0 || sizes[i] % (2u << 20) != 0) {
        return rt_param_invalid("sizes[" + std::to_string(i) + "] is 0 or not a multiple of 2 MiB");
      }
      ranges[i] = rt::ManagedRange{ptrs[i], sizes[i], location_of(prefetchLocs[run])};
      ARUN_RETURN_IF_ERROR(rt::check_managed_location(ranges[i].location));
    }
    for (const auto& r : ranges) ARUN_RETURN_IF_ERROR(rt::check_managed_range(r.ptr, r.size, true));
    return rt::managed_prefetch(ranges.data(), ranges.size(), stream);
  });
}

}  // extern "C"
