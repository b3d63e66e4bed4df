#include "arun/runtime/managed_memory.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "arun/runtime/devices.hpp"
#include "arun/runtime/launch.hpp"
#include "base/status_helpers.hpp"
#include "runtime/managed_memory.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {
namespace {

using Location = ManagedMemory::Location;

// aclrtMemManagedLocationType / aclrtMemManagedAdviseType / aclrtMemManagedRangeAttribute values.
enum : int { kInvalid = 0, kDevice = 1, kHost = 2, kHostNuma = 3, kHostNumaCurrent = 4 };
enum : int { kSetReadMostly = 0, kUnsetReadMostly, kSetPreferred, kUnsetPreferred, kSetAccessedBy, kUnsetAccessedBy };
enum : int {
  kAttrReadMostly = 1,
  kAttrPreferred,
  kAttrAccessedBy,
  kAttrPreferredType,
  kAttrPreferredId,
  kAttrLastPrefetch,
  kAttrLastPrefetchType,
  kAttrLastPrefetchId,
};

// HOST_NUMA_CURRENT becomes the NUMA node of the calling thread.
Location resolve(const ManagedLocation& l) {
  if (l.type != kHostNumaCurrent) return Location{l.type, l.type == kHost ? 0 : l.id};
  unsigned cpu = 0, node = 0;
  if (syscall(SYS_getcpu, &cpu, &node, nullptr) != 0) node = 0;
  return Location{kHostNuma, static_cast<int32_t>(node)};
}

// The id an accessor / location is reported as: a device or NUMA id, -1 for the host.
int32_t reported_id(const Location& l) {
  return l.type == kHost ? -1 : l.id;
}

}  // namespace

// ---------------------------------------------------------------- host registration V2

Status host_register_v2(void* ptr, uint64_t size, uint32_t flag) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)");
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  if (rt->host_registrations().find(base, 1, 0) || (size > 1 && rt->host_registrations().find(base + size - 1, 1, 0))) {
    return Status(Errc::host_memory_already_registered, "the host range is already registered");
  }
  if (flag & (ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY)) {
    return Status(Errc::rt_feature_not_support,
                  "ACL_HOST_REG_IOMEMORY and ACL_HOST_REG_READONLY are reserved and not supported");
  }
  if (!rt->host_registrations().add(base, size, flag)) {
    return Status(Errc::host_memory_already_registered, "the host range overlaps a registered range");
  }
  return Status::Ok();
}

Status host_device_pointer(void* host, void** device) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)");
  if (!rt->host_registrations().find(reinterpret_cast<uintptr_t>(host), 1, HostRegistrations::kMapped)) {
    return param_invalid(
        "pHost is not inside a host range registered as mapped (aclrtHostRegister, or "
        "aclrtHostRegisterV2 with ACL_HOST_REG_MAPPED)");
  }
  // The simulated device reaches host memory directly: the alias is the host address itself.
  *device = host;
  return Status::Ok();
}

Status check_map_device(uint32_t device) {
  uint32_t count = 0;
  ARUN_RETURN_IF_ERROR(device_count(&count));
  if (device >= count) {
    return Status(Errc::rt_invalid_device_id,
                  "deviceId " + std::to_string(device) + " is not in [0, " + std::to_string(count) + ")");
  }
  return Status::Ok();
}

bool host_mem_map_supported(int hac) {
  // The engines that reach host memory on the simulated device: the task scheduler, AI cores and
  // vector cores (kernels) and the SDMA copy engines.
  return hac == ACL_RT_HAC_TYPE_STARS || hac == ACL_RT_HAC_TYPE_AIC || hac == ACL_RT_HAC_TYPE_AIV ||
         hac == ACL_RT_HAC_TYPE_SDMA;
}

// ---------------------------------------------------------------- managed memory

Status managed_alloc(void** out, uint64_t size) {
  return ManagedMemory::instance().allocate(size, out);
}

bool managed_free(const void* ptr) {
  return ManagedMemory::instance().free(ptr);
}

Status check_managed_location(const ManagedLocation& l) {
  if (l.type == kDevice) {
    uint32_t count = 0;
    ARUN_RETURN_IF_ERROR(device_count(&count));
    if (l.id < 0 || static_cast<uint32_t>(l.id) >= count) {
      return param_invalid("location id " + std::to_string(l.id) + " is not a device (there are " +
                           std::to_string(count) + ")");
    }
    return Status::Ok();
  }
  if (l.type == kHost || l.type == kHostNumaCurrent) return Status::Ok();
  if (l.type == kHostNuma) {
    if (l.id < 0) return param_invalid("HOST_NUMA location id " + std::to_string(l.id) + " is negative");
    return Status::Ok();
  }
  return param_invalid("location type " + std::to_string(l.type) +
                       " is not DEVICE (1), HOST (2), HOST_NUMA (3) or HOST_NUMA_CURRENT (4)");
}

Status check_managed_range(const void* ptr, uint64_t size, bool aligned) {
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  ManagedMemory& m = ManagedMemory::instance();
  if (!m.in_window(addr, size)) {
    char base[32];
    std::snprintf(base, sizeof base, "%#llx", static_cast<unsigned long long>(m.base()));
    return param_invalid(m.base() == 0
                             ? std::string("no managed memory was allocated")
                             : std::string("the range is outside the managed-memory window [") + base + ", +3 TiB)");
  }
  if (aligned && (addr % ManagedMemory::kPage != 0 || size % ManagedMemory::kPage != 0)) {
    return param_invalid("ptr and size must be multiples of 2 MiB");
  }
  if (!m.contains(addr, size)) {
    return param_invalid("the range is not inside one allocation of aclrtMemAllocManaged");
  }
  return Status::Ok();
}

Status managed_advise(const void* ptr, uint64_t size, int advise, const ManagedLocation& location) {
  const bool uses_location = advise == kSetPreferred || advise == kSetAccessedBy || advise == kUnsetAccessedBy ||
                             (advise == kUnsetReadMostly && location.type != kInvalid);
  if (location.type == kDevice || uses_location) ARUN_RETURN_IF_ERROR(check_managed_location(location));
  ARUN_RETURN_IF_ERROR(check_managed_range(ptr, size, true));
  const Location where = uses_location ? resolve(location) : Location{kHost, 0};
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  ManagedMemory& m = ManagedMemory::instance();
  if (advise == kSetPreferred) {
    bool conflict = false;
    m.for_pages(addr, size, [&](ManagedMemory::Page& p) {
      conflict = conflict || (!p.read_mostly && p.resident.type != kInvalid && !(p.resident == where));
    });
    if (conflict) {
      return param_invalid(
          "the range is already populated elsewhere than the preferred location (set "
          "ACL_MEM_ADVISE_SET_READ_MOSTLY first, or prefetch it there)");
    }
  }
  m.for_pages(addr, size, [&](ManagedMemory::Page& p) {
    switch (advise) {
      case kSetReadMostly:
        p.read_mostly = true;
        break;
      case kUnsetReadMostly:
        p.read_mostly = false;
        p.resident = where;  // the one copy that survives
        break;
      case kSetPreferred:
        p.preferred = where;
        p.resident = where;  // pre-populated there
        break;
      case kUnsetPreferred:
        p.preferred = Location{};
        break;
      case kSetAccessedBy:
        p.accessed_by.insert(reported_id(where));
        break;
      case kUnsetAccessedBy:
        p.accessed_by.erase(reported_id(where));
        break;
    }
  });
  return Status::Ok();
}

size_t managed_attribute_size(int attribute) {
  return attribute == kAttrAccessedBy ? 0 : sizeof(int32_t);
}

Status managed_attribute(int attribute, const void* ptr, size_t size, void* data, size_t data_size) {
  ARUN_RETURN_IF_ERROR(check_managed_range(ptr, size, false));
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  bool first = true;
  bool all_read_mostly = true;
  bool pref_mixed = false, prefetch_mixed = false;
  Location pref, prefetch;
  std::set<int32_t> accessors;
  ManagedMemory::instance().for_pages(addr, size, [&](ManagedMemory::Page& p) {
    all_read_mostly = all_read_mostly && p.read_mostly;
    if (first) {
      pref = p.preferred;
      prefetch = p.last_prefetch;
      accessors = p.accessed_by;
      first = false;
      return;
    }
    pref_mixed = pref_mixed || !(p.preferred == pref);
    prefetch_mixed = prefetch_mixed || !(p.last_prefetch == prefetch);
    std::set<int32_t> both;
    for (int32_t a : accessors) {
      if (p.accessed_by.count(a) != 0) both.insert(a);
    }
    accessors.swap(both);
  });
  // A location as one int32: a device or NUMA id, -1 for the host, -2 when mixed or none.
  const auto as_id = [](const Location& l, bool mixed) -> int32_t {
    if (mixed || l.type == kInvalid) return -2;
    return reported_id(l);
  };
  int32_t value = 0;
  switch (attribute) {
    case kAttrReadMostly:
      value = all_read_mostly ? 1 : 0;
      break;
    case kAttrPreferred:
    case kAttrPreferredId:
      value = as_id(pref, pref_mixed);
      break;
    case kAttrPreferredType:
      value = pref_mixed ? kInvalid : pref.type;
      break;
    case kAttrLastPrefetch:
    case kAttrLastPrefetchId:
      value = as_id(prefetch, prefetch_mixed);
      break;
    case kAttrLastPrefetchType:
      value = prefetch_mixed ? kInvalid : prefetch.type;
      break;
    case kAttrAccessedBy: {
      auto* out = static_cast<int32_t*>(data);
      const size_t slots = data_size / sizeof(int32_t);
      size_t i = 0;
      for (int32_t a : accessors) {
        if (i == slots) break;  // extra ids are dropped
        out[i++] = a;
      }
      for (; i < slots; ++i) out[i] = -2;
      return Status::Ok();
    }
    default:
      return param_invalid("attribute " + std::to_string(attribute) + " is not in 1..8");
  }
  std::memcpy(data, &value, sizeof value);
  return Status::Ok();
}

namespace {

struct PrefetchArgs {
  std::vector<ManagedRange> ranges;
  std::vector<Location> where;
};

// The prefetch task: the device maps every range (a range freed meanwhile faults the task), then
// the pages live at their destination.
void prefetch_kernel(arunBlock* block, void* p) {
  auto* args = static_cast<PrefetchArgs*>(p);
  for (size_t i = 0; i < args->ranges.size(); ++i) {
    const ManagedRange& r = args->ranges[i];
    if (block_map(block, r.ptr, r.size) == nullptr) return;  // faulted
    const Location where = args->where[i];
    ManagedMemory::instance().for_pages(reinterpret_cast<uint64_t>(r.ptr), r.size,
                                        [&](ManagedMemory::Page& page) { page.resident = where; });
  }
}

void free_prefetch(void* p) {
  delete static_cast<PrefetchArgs*>(p);
}

}  // namespace

Status managed_prefetch(const ManagedRange* ranges, size_t count, aclrtStream stream) {
  if (stream == nullptr) {
    int32_t device = 0;
    if (!current_device(&device).ok()) {
      return Status(Errc::rt_internal_error, "stream is NULL and the thread has no context with a default stream");
    }
  }
  auto* args = new (std::nothrow) PrefetchArgs;
  if (args == nullptr) return Status(Errc::rt_memory_allocation, "out of host memory");
  args->ranges.assign(ranges, ranges + count);
  for (size_t i = 0; i < count; ++i) {
    const Location where = resolve(ranges[i].location);
    args->where.push_back(where);
    // The request is what LAST_PREFETCH_LOCATION reports, whether or not it has run yet.
    ManagedMemory::instance().for_pages(reinterpret_cast<uint64_t>(ranges[i].ptr), ranges[i].size,
                                        [&](ManagedMemory::Page& page) { page.last_prefetch = where; });
  }
  LaunchAttrs attrs;
  attrs.op_name = "MemManagedPrefetch";
  return launch_kernel(stream, 1, &prefetch_kernel, args, &free_prefetch, attrs);
}

}  // namespace arun::rt
