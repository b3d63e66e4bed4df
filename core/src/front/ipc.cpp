#include "arun/runtime/ipc.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "arun/runtime/devices.hpp"
#include "base/status_helpers.hpp"
#include "front/stream_access.hpp"
#include "runtime/ipc_broker.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {
namespace {

// This process's imports by key: address and count (importing a key again returns the same
// address; aclrtIpcMemClose undoes one import). Guarded by g_imports_mu.
struct Import {
  uint64_t addr = 0;
  uint64_t count = 0;
  const Runtime* runtime = nullptr;  // imports die with the runtime that mapped them
};
std::mutex g_imports_mu;
std::map<std::string, Import> g_imports;

}  // namespace

Status ipc_export_key(void* ptr, uint64_t size, bool pid_check, char* key, size_t len) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  DeviceSlot* slot = rt->device_owning(ptr);
  if (slot == nullptr) return param_invalid("devPtr is not device memory of this process");
  plugin::PhysicalMemorySource* source =
      rt->device_abi_minor(slot->id()) >= 6 ? slot->device()->physical_memory() : nullptr;
  if (source == nullptr) {
    return Status(Errc::rt_feature_not_support,
                  "device " + std::to_string(slot->id()) + " (" + slot->backend() + ") cannot share memory");
  }
  const auto addr = reinterpret_cast<uint64_t>(ptr);
  // Checked now (the range is one live block the program holds) and again at every import.
  const PointerInfo p = rt->classify(ptr, size);
  if (!p.in_allocation || p.base != addr) {
    return param_invalid("[devPtr, +" + std::to_string(size) + ") is not a live allocation starting at devPtr");
  }
  auto export_now = [slot, addr, size](IpcBroker::Grant* g) {
    Runtime* r = Runtime::instance();
    if (r == nullptr || !r->classify(reinterpret_cast<void*>(addr), size).in_allocation) {
      return param_invalid("the exported memory was freed");
    }
    g->size = size;
    // A block of the allocator's growable range (expandable segments): the range's own memfd.
    if (r->virtual_memory().pool_device(addr) >= 0)
      return r->virtual_memory().share_pool(addr, size, &g->fd, &g->offset);
    return slot->device()->physical_memory()->export_range(addr, size, &g->fd, &g->offset);
  };
  std::string name;
  ARUN_RETURN_IF_ERROR(IpcBroker::instance().export_key(export_now, pid_check, &name, addr));
  std::snprintf(key, len, "%s", name.c_str());
  return Status::Ok();
}

Status ipc_set_import_pid(const char* key, const int32_t* pids, size_t count) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return IpcBroker::instance().allow_key(key, pids, count);
}

Status ipc_import_key(const char* key, void** out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  int32_t device = 0;
  ARUN_RETURN_IF_ERROR(current_device(&device));
  std::string name(key, strnlen(key, 65));
  {
    std::lock_guard lock(g_imports_mu);
    auto it = g_imports.find(name);
    if (it != g_imports.end() && it->second.runtime == rt) {
      ++it->second.count;
      *out = reinterpret_cast<void*>(it->second.addr);
      return Status::Ok();
    }
  }
  IpcBroker::Grant g;
  ARUN_RETURN_IF_ERROR(IpcBroker::import_key(name, &g));
  uint64_t addr = 0;
  Status st = rt->virtual_memory().map_shared(g.fd, g.offset, g.size, 0, device, &addr);
  ::close(g.fd);
  ARUN_RETURN_IF_ERROR(st);
  std::lock_guard lock(g_imports_mu);
  g_imports[name] = Import{addr, 1, rt};
  *out = reinterpret_cast<void*>(addr);
  return Status::Ok();
}

Status ipc_close(const char* key) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  std::string name(key, strnlen(key, 65));
  {
    std::unique_lock lock(g_imports_mu);
    auto it = g_imports.find(name);
    if (it != g_imports.end()) {
      const Import imp = it->second;
      if (imp.count > 1 && imp.runtime == rt) {
        --it->second.count;
        return Status::Ok();
      }
      g_imports.erase(it);
      lock.unlock();
      // An import of an earlier runtime was unmapped by its aclFinalize.
      if (imp.runtime == rt) ARUN_RETURN_IF_ERROR(rt->virtual_memory().unmap_shared(imp.addr));
      return Status::Ok();
    }
  }
  if (IpcBroker::instance().withdraw_key(name)) return Status::Ok();
  return param_invalid("\"" + name + "\" is neither imported nor exported by this process");
}

Status vmm_export(aclrtDrvMemHandle handle, bool pid_check, uint64_t* shareable) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  const auto local = reinterpret_cast<uint64_t>(handle);
  aclrtPhysicalMemProp prop{};
  ARUN_RETURN_IF_ERROR(rt->virtual_memory().properties(local, &prop));
  if (prop.location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
    return param_invalid("only device physical memory can be exported (this is host memory)");
  }
  if (IpcBroker::instance().handle_exported(local)) return param_invalid("the handle is already exported");
  auto share_now = [local](IpcBroker::Grant* g) {
    Runtime* r = Runtime::instance();
    if (r == nullptr) return param_invalid("the exporting runtime is finalized");
    g->offset = 0;
    return r->virtual_memory().share_physical(local, &g->fd, &g->size, &g->prop);
  };
  return IpcBroker::instance().export_handle(local, share_now, pid_check, shareable);
}

Status vmm_set_pids(uint64_t shareable, const int32_t* pids, size_t count) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  return IpcBroker::instance().allow_handle(shareable, pids, count);
}

Status vmm_import(uint64_t shareable, int32_t device, aclrtDrvMemHandle* handle) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  if (device < 0 || static_cast<uint32_t>(device) >= rt->device_count()) {
    return Status(Errc::rt_invalid_device_id, "deviceId " + std::to_string(device) + " is not a device");
  }
  if (IpcBroker::handle_pid(shareable) == ::getpid()) {
    return param_invalid("the shareable handle was exported by this process (import in another process)");
  }
  IpcBroker::Grant g;
  Status st = IpcBroker::import_handle(shareable, &g);
  // The spec's code for a handle import refused for any reason is 107000 (ours; CANN's driver
  // has its own), the reason is in the message.
  if (!st.ok()) return Status(Errc::rt_param_invalid, st.message());
  // The importer's handle: the same memory, on the importing device.
  g.prop.location.id = static_cast<uint32_t>(device);
  VirtualMemory::PhysicalOrigin origin;
  origin.device = device;
  uint64_t local = 0;
  ARUN_RETURN_IF_ERROR(rt->virtual_memory().add_physical(g.fd, g.size, g.prop, std::move(origin), &local));
  *handle = reinterpret_cast<aclrtDrvMemHandle>(local);
  return Status::Ok();
}

Status ipc_set_attr(const char* key, uint64_t attr) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  const std::string name(key, strnlen(key, 65));
  if (!IpcBroker::instance().key_exported(name)) {
    return param_invalid("\"" + name + "\" is not IPC memory this process exports");
  }
  if (attr != ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO) {
    return Status(static_cast<Errc>(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED),
                  "access link " + std::to_string(attr) + " is not available: the simulated chip has one path (SIO)");
  }
  return Status::Ok();
}

}  // namespace arun::rt
