// Spec 2.8: exception reporting — the hooks called when a device task fails, the accessors of the
// exception info they receive, aclrtGetErrorVerbose and aclrtGetThreadLastTaskId. (The last-error
// functions live with the other thread-state functions in acl_init.cpp.) The hooks are kept by the
// core (process-scope: they may be registered before aclInit), which fills the rtExceptionInfo
// (arun/runtime/hooks.hpp) they receive.
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {
constexpr uint32_t kNoInfo = 0xFFFFFFFFu;
}  // namespace

extern "C" {

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtSetExceptionInfoCallback", [&] { return rt::set_exception_callback(callback); });
}

// Spec part 2, 4.7: a NULL callback is caught by the runtime layer (107000, not 100000).
aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtExceptionInfoCallbackRegister", [&] {
    if (callback == nullptr) return rt_param_invalid("callback is NULL");
    return rt::register_exception_callback(callback);
  });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtExceptionInfoCallbackUnregister", [&] {
    if (callback == nullptr) return rt_param_invalid("callback is NULL");
    return rt::unregister_exception_callback(callback);
  });
}

// Spec part 2, 4.7 and R5: a NULL info is (aclError)0xFFFFFFFF and leaves the last error alone, as
// does a task without an argument block; NULL outputs are ACL_ERROR_INVALID_PARAM.
aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo* info, void** devArgsPtr, uint32_t* devArgsLen) {
  if (info == nullptr) return static_cast<aclError>(kNoInfo);
  if (devArgsPtr == nullptr || devArgsLen == nullptr) {
    return api_call_no_runtime("aclrtGetArgsFromExceptionInfo", [&] {
      return invalid_param(devArgsPtr == nullptr ? "devArgsPtr is NULL" : "devArgsLen is NULL");
    });
  }
  if (!rt::exception_info_args(info, devArgsPtr, devArgsLen)) return static_cast<aclError>(kNoInfo);
  return ACL_SUCCESS;
}

aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo* info, aclrtFuncHandle* func) {
  if (info == nullptr) return static_cast<aclError>(kNoInfo);
  return api_call_no_runtime("aclrtGetFuncHandleFromExceptionInfo", [&] {
    if (func == nullptr) return invalid_param("func is NULL");
    return rt::exception_info_function(info, func);
  });
}

aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle, aclrtOpExceptionCallback callback, void* userData) {
  return api_call("aclrtBinarySetExceptionCallback", [&] {
    if (binHandle == nullptr) return invalid_param("binHandle is NULL");
    if (callback == nullptr) return invalid_param("callback is NULL");
    return rt::set_binary_exception_callback(binHandle, callback, userData);
  });
}

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->task_id : kNoInfo;
}
uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->stream_id : kNoInfo;
}
uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->thread_id : kNoInfo;
}
uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->device_id : kNoInfo;
}
uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->error_code : kNoInfo;
}

aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo* errorInfo) {
  return api_call("aclrtGetErrorVerbose", [&] {
    if (errorInfo == nullptr) return invalid_param("errorInfo is NULL");
    return rt::last_device_error(deviceId, errorInfo);
  });
}

aclError aclrtGetThreadLastTaskId(uint32_t* taskId) {
  return api_call("aclrtGetThreadLastTaskId", [&] {
    if (taskId == nullptr) return invalid_param("taskId is NULL");
    *taskId = rt::thread_last_task_id();
    return Status::Ok();
  });
}

}  // extern "C"
