// Spec part 2, 4.14 (IPC memory keys) and the shareable handles of 4.13: device memory shared
// across processes. Arguments are checked in the spec's order; the runtime's part (exports,
// allow-lists, the exchange with the exporting process) is arun/runtime/ipc.hpp.
#include <cstring>
#include <string>

#include "acl/acl_rt.h"
#include "api_call.hpp"
#include "arun/runtime/devices.hpp"
#include "arun/runtime/ipc.hpp"

using namespace arun;
using namespace arun::api;

namespace {
constexpr size_t kKeyLen = 65;  // the documented key buffer size
}  // namespace

extern "C" {

aclError aclrtIpcMemGetExportKey(void* devPtr, size_t size, char* key, size_t len, uint64_t flags) {
  return api_call("aclrtIpcMemGetExportKey", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    if (key == nullptr) return invalid_param("key is NULL");
    if (size == 0) return rt_param_invalid("size is 0");
    if (len == 0) return rt_param_invalid("len is 0");
    if (len < kKeyLen) return rt_param_invalid("len " + std::to_string(len) + " is below 65, the key's size");
    if (flags > 1) return rt_param_invalid("flags " + std::to_string(flags) + " must be 0 or 1");
    return rt::ipc_export_key(devPtr, size, flags == ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, key, len);
  });
}

aclError aclrtIpcMemSetImportPid(const char* key, int32_t* pid, size_t num) {
  return api_call("aclrtIpcMemSetImportPid", [&] {
    if (key == nullptr) return invalid_param("key is NULL");
    if (pid == nullptr) return invalid_param("pid is NULL");
    if (num == 0) return rt_param_invalid("num is 0");
    return rt::ipc_set_import_pid(key, pid, num);
  });
}

aclError aclrtIpcMemImportByKey(void** devPtr, const char* key, uint64_t flags) {
  return api_call("aclrtIpcMemImportByKey", [&] {
    if (devPtr == nullptr) return invalid_param("devPtr is NULL");
    if (key == nullptr) return invalid_param("key is NULL");
    if (flags > 1) return rt_param_invalid("flags " + std::to_string(flags) + " must be 0 or 1");
    // ENABLE_PEER_ACCESS needs nothing here: the import is mapped for the current device.
    return rt::ipc_import_key(key, devPtr);
  });
}

aclError aclrtIpcMemClose(const char* key) {
  return api_call("aclrtIpcMemClose", [&] {
    if (key == nullptr) return invalid_param("key is NULL");
    return rt::ipc_close(key);
  });
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags,
                                         uint64_t* shareableHandle) {
  return api_call("aclrtMemExportToShareableHandle", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (shareableHandle == nullptr) return invalid_param("shareableHandle is NULL");
    if (raw(handleType) != ACL_MEM_HANDLE_TYPE_NONE) {
      return invalid_param("handleType " + std::to_string(raw(handleType)) + " must be ACL_MEM_HANDLE_TYPE_NONE");
    }
    if (flags > 1) return rt_param_invalid("flags " + std::to_string(flags) + " must be 0 or 1");
    return rt::vmm_export(handle, flags == ACL_RT_VMM_EXPORT_FLAG_DEFAULT, shareableHandle);
  });
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t* pid, size_t pidNum) {
  return api_call("aclrtMemSetPidToShareableHandle", [&] {
    if (pid == nullptr) return invalid_param("pid is NULL");
    if (pidNum == 0) return invalid_param("pidNum is 0");
    return rt::vmm_set_pids(shareableHandle, pid, pidNum);
  });
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle* handle) {
  return api_call("aclrtMemImportFromShareableHandle", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    return rt::vmm_import(shareableHandle, deviceId, handle);
  });
}

aclError aclrtIpcMemSetAttr(const char* key, aclrtIpcMemAttrType type, uint64_t attr) {
  return api_call("aclrtIpcMemSetAttr", [&] {
    // No ACL-level checks in CANN: every refusal is the runtime's (107000).
    if (key == nullptr) return rt_param_invalid("key is NULL");
    if (raw(type) != ACL_RT_IPC_MEM_ATTR_ACCESS_LINK) {
      return rt_param_invalid("type " + std::to_string(raw(type)) + " is not ACL_RT_IPC_MEM_ATTR_ACCESS_LINK");
    }
    if (attr > ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH) {
      return rt_param_invalid("attr " + std::to_string(attr) + " is not an access link (0..3)");
    }
    return rt::ipc_set_attr(key, attr);
  });
}

aclError aclrtIpcMemImportPidInterServer(const char* key, aclrtServerPid* serverPids, size_t num) {
  return api_call("aclrtIpcMemImportPidInterServer", [&] {
    if (key == nullptr) return rt_param_invalid("key is NULL");
    if (serverPids == nullptr) return rt_param_invalid("serverPids is NULL");
    if (num == 0) return rt_param_invalid("num is 0");
    for (size_t i = 0; i < num; ++i) {
      if (serverPids[i].pid == nullptr) return rt_param_invalid("serverPids[" + std::to_string(i) + "].pid is NULL");
      if (serverPids[i].num != 1) {
        return rt_param_invalid("serverPids[" + std::to_string(i) + "].num is " + std::to_string(serverPids[i].num) +
                                " (must be 1)");
      }
    }
    return Status(Errc::rt_feature_not_support,
                  "inter-server allow-lists need an A3 super-node; the simulated device is one server");
  });
}

aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle* handle) {
  return api_call("aclrtIpcGetEventHandle", [&] {
    if (event == nullptr) return invalid_param("event is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    return rt::ipc_get_event_handle(event, handle);
  });
}

aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent* event) {
  return api_call("aclrtIpcOpenEventHandle", [&] {
    if (event == nullptr) return invalid_param("event is NULL");
    return rt::ipc_open_event_handle(handle, event);
  });
}

namespace {
Status check_share_type(aclrtMemSharedHandleType type) {
  const auto t = raw(type);
  if (t != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && t != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC) {
    return rt_param_invalid("shareType " + std::to_string(t) + " is neither DEFAULT (1) nor FABRIC (2)");
  }
  return Status::Ok();
}
// FABRIC handles exist on A3 parts only (SoC names Ascend910_93xx; the ascend plugin's `soc_name`
// option selects one). With one simulated server they are the DEFAULT handle in a 128-byte
// aclrtMemFabricHandle: a tag, then the uint64_t, then zeros; the memory itself travels as for DEFAULT.
constexpr char kFabricTag[8] = {'a', 'r', 'u', 'n', 'F', 'A', 'B', '1'};
Status fabric_supported() {
  const char* soc = rt::soc_name();
  if (soc != nullptr && std::strncmp(soc, "Ascend910_93", 12) == 0) return Status::Ok();
  return Status(Errc::rt_feature_not_support,
                std::string("FABRIC shareable handles need an A3 chip (Ascend910_93xx); ") + "the simulated chip is " +
                    (soc != nullptr ? soc : "unknown"));
}
void fabric_encode(uint64_t shareable, void* out) {
  aclrtMemFabricHandle h{};
  std::memcpy(h.data, kFabricTag, sizeof kFabricTag);
  std::memcpy(h.data + sizeof kFabricTag, &shareable, sizeof shareable);
  std::memcpy(out, &h, sizeof h);
}
// The DEFAULT handle inside a FABRIC one; or the reason it is not one.
Status fabric_decode(const void* in, uint64_t* shareable) {
  ARUN_RETURN_IF_ERROR(fabric_supported());
  aclrtMemFabricHandle h;
  std::memcpy(&h, in, sizeof h);
  if (std::memcmp(h.data, kFabricTag, sizeof kFabricTag) != 0) {
    return rt_param_invalid("the FABRIC handle is not one aclrtMemExportToShareableHandleV2 wrote");
  }
  std::memcpy(shareable, h.data + sizeof kFabricTag, sizeof *shareable);
  return Status::Ok();
}
// The uint64_t a DEFAULT handle points to, or the one inside a FABRIC handle.
Status shareable_of(const void* handle, aclrtMemSharedHandleType type, uint64_t* shareable) {
  if (raw(type) == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC) return fabric_decode(handle, shareable);
  std::memcpy(shareable, handle, sizeof *shareable);
  return Status::Ok();
}
}  // namespace

aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags, aclrtMemSharedHandleType shareType,
                                           void* shareableHandle) {
  return api_call("aclrtMemExportToShareableHandleV2", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (shareableHandle == nullptr) return invalid_param("shareableHandle is NULL");
    ARUN_RETURN_IF_ERROR(check_share_type(shareType));
    if (flags > 1) return rt_param_invalid("flags " + std::to_string(flags) + " must be 0 or 1");
    if (raw(shareType) == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC) {
      ARUN_RETURN_IF_ERROR(fabric_supported());
      uint64_t shareable = 0;
      ARUN_RETURN_IF_ERROR(rt::vmm_export(handle, flags == ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable));
      fabric_encode(shareable, shareableHandle);
      return Status::Ok();
    }
    return rt::vmm_export(handle, flags == ACL_RT_VMM_EXPORT_FLAG_DEFAULT, static_cast<uint64_t*>(shareableHandle));
  });
}

aclError aclrtMemImportFromShareableHandleV2(void* shareableHandle, aclrtMemSharedHandleType shareType, uint64_t flags,
                                             aclrtDrvMemHandle* handle) {
  return api_call("aclrtMemImportFromShareableHandleV2", [&] {
    if (shareableHandle == nullptr) return invalid_param("shareableHandle is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (flags != 0) return invalid_param("flags " + std::to_string(flags) + " must be 0");
    ARUN_RETURN_IF_ERROR(check_share_type(shareType));
    int32_t device = 0;
    ARUN_RETURN_IF_ERROR(rt::current_device(&device));
    uint64_t shareable = 0;
    ARUN_RETURN_IF_ERROR(shareable_of(shareableHandle, shareType, &shareable));
    return rt::vmm_import(shareable, device, handle);
  });
}

aclError aclrtMemSetPidToShareableHandleV2(void* shareableHandle, aclrtMemSharedHandleType shareType, int32_t* pid,
                                           size_t pidNum) {
  return api_call("aclrtMemSetPidToShareableHandleV2", [&] {
    if (shareableHandle == nullptr) return invalid_param("shareableHandle is NULL");
    if (pid == nullptr) return invalid_param("pid is NULL");
    if (pidNum == 0) return invalid_param("pidNum is 0");
    ARUN_RETURN_IF_ERROR(check_share_type(shareType));
    uint64_t shareable = 0;
    ARUN_RETURN_IF_ERROR(shareable_of(shareableHandle, shareType, &shareable));
    return rt::vmm_set_pids(shareable, pid, pidNum);
  });
}

}  // extern "C"
