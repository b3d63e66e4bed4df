#include "arun/runtime/virtual_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "base/status_helpers.hpp"
#include "front/stream_access.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/runtime.hpp"
#include "runtime/virtual_memory.hpp"

namespace arun::rt {
namespace {

constexpr uint64_t kTiB = uint64_t{1} << 40;
constexpr uint64_t kGiB = uint64_t{1} << 30;
// CANN's window for a requested reservation start.
constexpr uint64_t kWindowBegin = 16 * kTiB;
constexpr uint64_t kWindowEnd = 24 * kTiB;

Status check_device(Runtime& rt, int64_t id, const char* what) {
  if (id < 0 || id >= static_cast<int64_t>(rt.device_count())) {
    return Status(Errc::rt_invalid_device_id, std::string(what) + " " + std::to_string(id) +
                                                  " is not a device (there are " + std::to_string(rt.device_count()) +
                                                  ")");
  }
  if (id >= 64) return param_invalid(std::string(what) + " " + std::to_string(id) + ": at most 64 devices map memory");
  return Status::Ok();
}

uint64_t handle_id(aclrtDrvMemHandle h) {
  return reinterpret_cast<uint64_t>(h);
}

uint64_t next_pow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

Status reserve_mem_address(void** out, uint64_t size, uint64_t alignment, void* expect) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  if (alignment != 0) return param_invalid("alignment " + std::to_string(alignment) + " must be 0 (reserved)");
  const auto want = reinterpret_cast<uint64_t>(expect);
  const uint64_t align = size < kGiB ? std::max<uint64_t>(next_pow2(size), 2u << 20) : kGiB;
  if (want != 0) {
    if (want < kWindowBegin || want >= kWindowEnd || size > kWindowEnd - want) {
      return param_invalid("expectPtr must lie in [16 TiB, 24 TiB) with the whole range, got " + std::to_string(want));
    }
    const uint64_t need = size < kGiB ? next_pow2(size) : kGiB;
    if (want % need != 0) {
      return param_invalid("expectPtr " + std::to_string(want) + " is not aligned to " + std::to_string(need) +
                           " bytes (the power of two >= size below 1 GiB, else 1 GiB)");
    }
  }
  uint64_t base = 0;
  ARUN_RETURN_IF_ERROR(rt->virtual_memory().reserve(size, want, align, &base));
  *out = reinterpret_cast<void*>(base);
  return Status::Ok();
}

Status release_mem_address(void* ptr) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return rt->virtual_memory().release(reinterpret_cast<uint64_t>(ptr));
}

Status check_physical_location(const aclrtPhysicalMemProp& prop) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  if (prop.location.type == ACL_MEM_LOCATION_TYPE_DEVICE) return check_device(*rt, prop.location.id, "location.id");
  return Status::Ok();
}

Status malloc_physical(aclrtDrvMemHandle* handle, uint64_t size, const aclrtPhysicalMemProp& prop,
                       const PhysicalKind& kind) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  ARUN_RETURN_IF_ERROR(check_physical_location(prop));
  if (size % kind.minimum != 0) {
    return param_invalid("size " + std::to_string(size) + " is not a multiple of the minimum granularity " +
                         std::to_string(kind.minimum) + " (aclrtMemGetAllocationGranularity)");
  }
  if (prop.location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
    return Status(Errc::rt_feature_not_support, "physical memory on a host NUMA node is not supported here");
  }
  VirtualMemory::PhysicalOrigin origin;
  int fd = -1;
  if (prop.location.type == ACL_MEM_LOCATION_TYPE_DEVICE) {
    const auto id = static_cast<int32_t>(prop.location.id);
    DeviceSlot* slot = rt->device(id);
    plugin::PhysicalMemorySource* source = rt->device_abi_minor(id) >= 6 ? slot->device()->physical_memory() : nullptr;
    if (source == nullptr) {
      return Status(Errc::rt_feature_not_support, "device " + std::to_string(id) + " (" + slot->backend() +
                                                      ") has no physical memory for virtual memory management");
    }
    // The memory lives on the device: it stays open while the allocation does.
    ARUN_RETURN_IF_ERROR(slot->acquire());
    uint64_t source_id = 0;
    Status st = source->create_physical(size, static_cast<plugin::PageKind>(kind.page), &fd, &source_id);
    if (!st.ok()) {
      slot->release();
      return st;
    }
    origin.device = id;
    origin.source = source;
    origin.source_id = source_id;
    origin.on_release = [slot] { slot->release(); };
  } else {
    // A memfd of any size is only a number until touched: refuse what the host could never hold.
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && size / static_cast<uint64_t>(page) > static_cast<uint64_t>(pages)) {
      return Status(Errc::rt_memory_allocation,
                    "host physical memory of " + std::to_string(size) + " bytes exceeds the host's memory");
    }
    fd = ::memfd_create("arun-host-physical", MFD_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      const int err = errno;
      if (fd >= 0) ::close(fd);
      return Status(Errc::rt_memory_allocation, "cannot allocate " + std::to_string(size) +
                                                    " bytes of host physical memory: " + std::strerror(err));
    }
  }
  uint64_t h = 0;
  ARUN_RETURN_IF_ERROR(rt->virtual_memory().add_physical(fd, size, prop, std::move(origin), &h));
  *handle = reinterpret_cast<aclrtDrvMemHandle>(h);
  return Status::Ok();
}

Status free_physical(aclrtDrvMemHandle handle) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return rt->virtual_memory().free_physical(handle_id(handle));
}

Status physical_properties(aclrtDrvMemHandle handle, aclrtPhysicalMemProp* prop) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return rt->virtual_memory().properties(handle_id(handle), prop);
}

Status map_mem(void* ptr, uint64_t size, aclrtDrvMemHandle handle, bool access) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return rt->virtual_memory().map(reinterpret_cast<uint64_t>(ptr), size, handle_id(handle), access);
}

Status unmap_mem(void* ptr) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return rt->virtual_memory().unmap(reinterpret_cast<uint64_t>(ptr));
}

Status retain_allocation_handle(void* ptr, aclrtDrvMemHandle* handle) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  uint64_t h = 0;
  ARUN_RETURN_IF_ERROR(rt->virtual_memory().retain(reinterpret_cast<uint64_t>(ptr), &h));
  *handle = reinterpret_cast<aclrtDrvMemHandle>(h);
  return Status::Ok();
}

Status mem_set_access(void* ptr, size_t size, const aclrtMemAccessDesc* desc, size_t count) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  if (ptr == nullptr) return param_invalid("virPtr is NULL");
  if (desc == nullptr) return param_invalid("desc is NULL");
  if (count == 0) return param_invalid("count is 0");
  if (size == 0) return param_invalid("size is 0");
  // Bounded by the devices and the host: more descriptors than that repeat someone.
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE) {
      return param_invalid("desc[" + std::to_string(i) + "].flags " + std::to_string(static_cast<int>(desc[i].flags)) +
                           " is not ACL_RT_MEM_ACCESS_FLAGS_READWRITE (the only one accepted)");
    }
    const int type = static_cast<int>(desc[i].location.type);
    if (type != ACL_MEM_LOCATION_TYPE_HOST && type != ACL_MEM_LOCATION_TYPE_DEVICE) {
      return param_invalid("desc[" + std::to_string(i) + "].location.type " + std::to_string(type) +
                           " is not HOST or DEVICE");
    }
  }
  VirtualMemory::Lookup v;
  if (!rt->virtual_memory().lookup(reinterpret_cast<uint64_t>(ptr), size, &v) ||
      v.base != reinterpret_cast<uint64_t>(ptr) || !v.whole) {
    return param_invalid("[virPtr, +" + std::to_string(size) + ") is not a mapped range");
  }
  std::vector<int32_t> grants;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.type == ACL_MEM_LOCATION_TYPE_HOST) {
      grants.push_back(-1);
      continue;
    }
    ARUN_RETURN_IF_ERROR(check_device(*rt, desc[i].location.id, "location.id"));
    grants.push_back(static_cast<int32_t>(desc[i].location.id));
  }
  return rt->virtual_memory().set_access(reinterpret_cast<uint64_t>(ptr), size, grants);
}

Status mem_get_access(void* ptr, const aclrtMemLocation& location, uint64_t* flags) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  const int type = static_cast<int>(location.type);
  if (type != ACL_MEM_LOCATION_TYPE_HOST && type != ACL_MEM_LOCATION_TYPE_DEVICE) {
    return param_invalid("location.type " + std::to_string(type) + " is not HOST or DEVICE");
  }
  int32_t who = -1;
  if (type == ACL_MEM_LOCATION_TYPE_DEVICE) {
    ARUN_RETURN_IF_ERROR(check_device(*rt, location.id, "location.id"));
    who = static_cast<int32_t>(location.id);
  }
  return rt->virtual_memory().get_access(reinterpret_cast<uint64_t>(ptr), who, flags);
}

Status reserve_mem_address_no_uc(void** out, uint64_t size, uint64_t alignment, void* expect, uint64_t flags) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  if (size % kGiB != 0) return param_invalid("size " + std::to_string(size) + " is not a multiple of 1 GiB");
  if (alignment != 0) return param_invalid("alignment " + std::to_string(alignment) + " must be 0 (reserved)");
  if (flags != 0) return param_invalid("flags " + std::to_string(flags) + " must be 0");
  const auto want = reinterpret_cast<uint64_t>(expect);
  constexpr uint64_t kNoUcBegin = 40 * kTiB, kNoUcEnd = 224 * kTiB;
  if (want < kNoUcBegin || want >= kNoUcEnd || size > kNoUcEnd - want || want % kGiB != 0) {
    return param_invalid("expectPtr must be 1 GiB aligned with the whole range in [40 TiB, 224 TiB), got " +
                         std::to_string(want));
  }
  uint64_t base = 0;
  Status st = rt->virtual_memory().reserve(size, want, kGiB, &base);
  // Above the host's address space (128 TiB on 4-level x86-64) the address is simply unavailable.
  if (!st.ok()) return param_invalid("the requested range is unavailable: " + st.message());
  *out = reinterpret_cast<void*>(base);
  return Status::Ok();
}

Status mem_get_address_range(void* ptr, void** base, size_t* size) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  uint64_t b = 0, n = 0;
  VirtualMemory::Lookup v;
  // An allocator's expandable range is a reservation too, but its pages are not what the program
  // allocated: its blocks answer as aclrtMalloc blocks.
  if (rt->virtual_memory().pool_device(addr) < 0 && rt->virtual_memory().lookup(addr, 1, &v)) {
    b = v.base;
    n = v.size;
  } else {
    const PointerInfo p = rt->classify(ptr, 1);
    if (p.in_allocation) {
      b = p.base;
      n = p.size;
    }
  }
  if (n == 0) return param_invalid("the address is not inside a runtime allocation");
  if (base != nullptr) *base = reinterpret_cast<void*>(b);
  if (size != nullptr) *size = n;
  return Status::Ok();
}

Status mem_p2p_map(void* ptr, uint64_t size, int32_t dst) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  ARUN_RETURN_IF_ERROR(check_device(*rt, dst, "dstDevId"));
  const PointerInfo p = rt->classify(ptr, size);
  if (p.kind != PointerInfo::Kind::Device || !p.in_allocation || p.slot == nullptr) {
    return param_invalid("[devPtr, +" + std::to_string(size) + ") is not inside one device allocation");
  }
  if (p.slot->id() == dst) return param_invalid("the memory belongs to dstDevId itself");
  if (!rt->device(dst)->has_peer(p.slot->id())) {
    return param_invalid("device " + std::to_string(dst) + " has no peer access to device " +
                         std::to_string(p.slot->id()) + " (aclrtDeviceEnablePeerAccess)");
  }
  return Status::Ok();  // the model has no page tables: a peer's access needs nothing more
}

Status mem_map_selected_link(void* dst, uint64_t size, void* src) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  VirtualMemory::Lookup d, s;
  const auto daddr = reinterpret_cast<uint64_t>(dst), saddr = reinterpret_cast<uint64_t>(src);
  if (!rt->virtual_memory().lookup(daddr, size, &d)) return param_invalid("virPtrDst is not a reserved range");
  if (!rt->virtual_memory().lookup(saddr, size, &s) || s.base != saddr || s.size != size) {
    return param_invalid("virPtrSrc is not the start of a mapping of size bytes");
  }
  return Status(Errc::rt_feature_not_support, "the simulated chip has no selectable die-to-die links");
}

Status mem_map_set_link(aclrtDrvMemHandle handle) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  aclrtPhysicalMemProp prop{};
  ARUN_RETURN_IF_ERROR(rt->virtual_memory().properties(handle_id(handle), &prop));
  return Status(Errc::rt_feature_not_support, "the simulated chip has no link selection for mapped memory");
}

}  // namespace arun::rt
