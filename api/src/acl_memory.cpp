// Spec 2.6: memory management and copies. The arguments are checked here in the spec's order; the
// core (arun/runtime/memory.hpp) does the rest, including what needs to know the memory.
#include <cstring>
#include <string>

#include "api_call.hpp"
#include "arun/arun_ext.h"

using namespace arun;
using namespace arun::api;

namespace {

Status check_malloc_args(void** devPtr, size_t size) {
  if (devPtr == nullptr) return invalid_param("devPtr is NULL");
  if (size == 0) return invalid_param("size is 0");
  return Status::Ok();
}

Status check_copy_args(void* dst, size_t destMax, const void* src, size_t count) {
  if (dst == nullptr || src == nullptr) return invalid_param("dst or src is NULL");
  if (count > destMax) {
    return rt_param_invalid("count " + std::to_string(count) + " exceeds destMax " + std::to_string(destMax));
  }
  return Status::Ok();
}

Status check_copy_2d_args(const rt::Copy2D& c, int k) {
  if (c.dst == nullptr || c.src == nullptr) return invalid_param("dst or src is NULL");
  if (c.width > c.spitch || c.width > c.dpitch) {
    return invalid_param("width " + std::to_string(c.width) + " exceeds spitch " + std::to_string(c.spitch) +
                         " or dpitch " + std::to_string(c.dpitch));
  }
  if (k != ACL_MEMCPY_HOST_TO_DEVICE && k != ACL_MEMCPY_DEVICE_TO_HOST && k != ACL_MEMCPY_DEVICE_TO_DEVICE &&
      k != ACL_MEMCPY_DEFAULT) {
    return invalid_param(std::string("2-D copies do not support kind ") + std::to_string(k));
  }
  return Status::Ok();
}

Status check_memset_args(void* devPtr, size_t maxCount, size_t count) {
  if (devPtr == nullptr) return invalid_param("devPtr is NULL");
  if (count > maxCount) {
    return rt_param_invalid("count " + std::to_string(count) + " exceeds maxCount " + std::to_string(maxCount));
  }
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMalloc", [&] {
    ARUN_RETURN_IF_ERROR(check_malloc_args(devPtr, size));
    return rt::device_malloc(devPtr, size, raw(policy), site);
  });
}

aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMallocCached", [&] {
    const auto p = raw(policy);
    if (p != ACL_MEM_MALLOC_HUGE_FIRST && p != ACL_MEM_MALLOC_HUGE_ONLY && p != ACL_MEM_MALLOC_NORMAL_ONLY &&
        p != ACL_MEM_MALLOC_HUGE1G_ONLY) {
      return invalid_param("policy " + std::to_string(p) +
                           " is not accepted by aclrtMallocCached (HUGE_FIRST, HUGE_ONLY, NORMAL_ONLY, HUGE1G_ONLY)");
    }
    ARUN_RETURN_IF_ERROR(check_malloc_args(devPtr, size));
    return rt::device_malloc(devPtr, size, p, site);
  });
}

aclError aclrtFree(void* devPtr) {
  return api_call("aclrtFree", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    return rt::device_free(devPtr);
  });
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMallocAlign32", [&] {
    ARUN_RETURN_IF_ERROR(check_malloc_args(devPtr, size));
    return rt::device_malloc_align32(devPtr, size, raw(policy), site);
  });
}

aclError aclrtMallocWithCfg(void** devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig* cfg) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMallocWithCfg", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    if (cfg != nullptr && cfg->numAttrs != 0 && cfg->attrs == nullptr) {
      return invalid_param("cfg->attrs is NULL with cfg->numAttrs " + std::to_string(cfg->numAttrs));
    }
    if (size == 0) return invalid_param("size is 0");
    return rt::device_malloc_with_cfg(devPtr, size, raw(policy), cfg, site);
  });
}

aclError aclrtFreeWithDevSync(void* devPtr) {
  return api_call("aclrtFreeWithDevSync", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    return rt::device_free_with_sync(devPtr);
  });
}

aclError aclrtMallocForTaskScheduler(void** devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig* cfg) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMallocForTaskScheduler", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    if (cfg != nullptr && cfg->numAttrs != 0 && cfg->attrs == nullptr) {
      return invalid_param("cfg->attrs is NULL with cfg->numAttrs " + std::to_string(cfg->numAttrs));
    }
    if (size == 0) return invalid_param("size is 0");
    return rt::device_malloc_for_task_scheduler(devPtr, size, raw(policy), cfg, site);
  });
}

aclError aclrtMallocHostWithCfg(void** ptr, uint64_t size, aclrtMallocConfig* cfg) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMallocHostWithCfg", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    if (size == 0) return invalid_param("size is 0");
    return rt::host_malloc_with_cfg(ptr, size, cfg, site);
  });
}

aclError aclrtFreeHostWithDevSync(void* hostPtr) {
  return api_call("aclrtFreeHostWithDevSync", [&] {
    if (hostPtr == nullptr) return invalid_param("hostPtr is NULL");
    return rt::host_free_with_sync(hostPtr);
  });
}

// The stream is resolved before the pointer arguments are looked at: the core checks them.
aclError arunMallocAsync(void** devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtStream stream) {
  const void* site = __builtin_return_address(0);
  return api_call("arunMallocAsync", [&] { return rt::device_malloc_async(devPtr, size, raw(policy), site, stream); });
}

aclError arunFreeAsync(void* devPtr, aclrtStream stream) {
  return api_call("arunFreeAsync", [&] { return rt::device_free_async(devPtr, stream); });
}

aclError arunMemRecordStream(void* devPtr, aclrtStream stream) {
  return api_call("arunMemRecordStream", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    return rt::record_stream_use(devPtr, stream);
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  const void* site = __builtin_return_address(0);
  return api_call("aclrtMallocHost", [&] {
    if (hostPtr == nullptr) return invalid_param("hostPtr is NULL");
    if (size == 0) return invalid_param("size is 0");
    return rt::host_malloc(hostPtr, size, site);
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return api_call("aclrtFreeHost", [&] {
    if (hostPtr == nullptr) return invalid_param("hostPtr is NULL");
    return rt::host_free(hostPtr);
  });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return api_call("aclrtMemcpy", [&] {
    if (count == 0) return Status::Ok();
    ARUN_RETURN_IF_ERROR(check_copy_args(dst, destMax, src, count));
    return rt::memcpy_sync(dst, destMax, src, count, raw(kind));
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  return api_call("aclrtMemcpyAsync", [&] {
    if (count == 0) return Status::Ok();
    ARUN_RETURN_IF_ERROR(check_copy_args(dst, destMax, src, count));
    return rt::memcpy_async(dst, src, count, raw(kind), stream);
  });
}

aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                       aclrtMemcpyKind kind) {
  return api_call("aclrtMemcpy2d", [&] {
    if (width == 0 || height == 0) return Status::Ok();
    const rt::Copy2D copy{dst, dpitch, src, spitch, width, height};
    ARUN_RETURN_IF_ERROR(check_copy_2d_args(copy, raw(kind)));
    return rt::memcpy_2d_sync(copy, raw(kind));
  });
}

aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                            aclrtMemcpyKind kind, aclrtStream stream) {
  return api_call("aclrtMemcpy2dAsync", [&] {
    if (width == 0 || height == 0) return Status::Ok();
    if (width > 5000000) return invalid_param("width " + std::to_string(width) + " exceeds 5000000");
    if (height > 5242880) return invalid_param("height " + std::to_string(height) + " exceeds 5242880");
    const rt::Copy2D copy{dst, dpitch, src, spitch, width, height};
    ARUN_RETURN_IF_ERROR(check_copy_2d_args(copy, raw(kind)));
    return rt::memcpy_2d_async(copy, raw(kind), stream);
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return api_call("aclrtMemset", [&] {
    if (devPtr != nullptr && count == 0) return Status::Ok();
    ARUN_RETURN_IF_ERROR(check_memset_args(devPtr, maxCount, count));
    return rt::memset_sync(devPtr, value, count);
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  return api_call("aclrtMemsetAsync", [&] {
    if (devPtr != nullptr && count == 0) return Status::Ok();
    ARUN_RETURN_IF_ERROR(check_memset_args(devPtr, maxCount, count));
    return rt::memset_async(devPtr, value, count, stream);
  });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  return api_call("aclrtGetMemInfo", [&] {
    if (free == nullptr || total == nullptr) return invalid_param("free or total is NULL");
    rt::MemInfo info;
    ARUN_RETURN_IF_ERROR(rt::mem_info(raw(attr), &info));
    *free = info.free;
    *total = info.total;
    return Status::Ok();
  });
}

aclError aclrtPointerGetAttributes(const void* ptr, aclrtPtrAttributes* attributes) {
  return api_call("aclrtPointerGetAttributes", [&] {
    if (ptr == nullptr || attributes == nullptr) return invalid_param("ptr or attributes is NULL");
    std::memset(attributes, 0, sizeof(*attributes));
    rt::PointerAttributes a;
    ARUN_RETURN_IF_ERROR(rt::pointer_attributes(ptr, &a));
    switch (a.location) {
      case rt::PointerAttributes::Location::Device:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = a.device;
        break;
      case rt::PointerAttributes::Location::Host:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        break;
      case rt::PointerAttributes::Location::Unregistered:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        break;
    }
    attributes->pageSize = static_cast<uint32_t>(a.page_size);
    return Status::Ok();
  });
}

aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr) {
  return api_call("aclrtHostRegister", [&] {
    if (ptr == nullptr || devPtr == nullptr) return invalid_param("ptr or devPtr is NULL");
    if (size == 0) return invalid_param("size is 0");
    if (raw(type) != ACL_HOST_REGISTER_MAPPED) {
      return Status(Errc::rt_feature_not_support, "only ACL_HOST_REGISTER_MAPPED is implemented");
    }
    return rt::host_register(ptr, size, devPtr);
  });
}

aclError aclrtHostUnregister(void* ptr) {
  return api_call("aclrtHostUnregister", [&] {
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    return rt::host_unregister(ptr);
  });
}

}  // extern "C"
