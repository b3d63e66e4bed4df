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

aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtExceptionInfoCallbackRegister", [&] {
    if (callback == nullptr) return invalid_param("callback is NULL");
    return rt::register_exception_callback(callback);
  });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtExceptionInfoCallbackUnregister", [&] {
    if (callback == nullptr) return invalid_param("callback is NULL");
    return rt::unregister_exception_callback(callback);
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
