// Spec part 2, 4.14 (IPC memory keys) and the shareable handles of 4.13: device memory shared
// across processes. Arguments are checked in the spec's order; the runtime's part (exports,
// allow-lists, the exchange with the exporting process) is arun/runtime/ipc.hpp.
#include <string>

#include "acl/acl_rt.h"
#include "api_call.hpp"
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

}  // extern "C"
