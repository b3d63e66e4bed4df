// Spec 2.8: exception reporting — the hooks called when a device task fails, the accessors of the
// exception info they receive, aclrtGetErrorVerbose and aclrtGetThreadLastTaskId. (The last-error
// functions live with the other thread-state functions in acl_init.cpp.)
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

// The type behind aclrtExceptionInfo: users only see it through the accessors.
struct rtExceptionInfo {
  uint32_t task_id;
  uint32_t stream_id;
  uint32_t thread_id;
  uint32_t device_id;
  uint32_t error_code;
};

namespace {

constexpr uint32_t kNoInfo = 0xFFFFFFFFu;

std::mutex g_mu;
aclrtExceptionInfoCallback g_legacy_hook = nullptr;  // aclrtSetExceptionInfoCallback: last call wins
std::vector<aclrtExceptionInfoCallback> g_hooks;     // aclrtExceptionInfoCallbackRegister
std::map<int32_t, TaskFailure> g_last_failure;       // per device, for aclrtGetErrorVerbose

// Runs on the thread that completed the failed task, with no runtime lock held.
void on_task_failure(const TaskFailure& f) {
  log().debug("task {} on stream {} of device {} (submitted by thread {}) failed with error {}", f.task_id, f.stream_id,
              f.device_id, f.thread_id, f.code);
  aclrtExceptionInfoCallback legacy;
  std::vector<aclrtExceptionInfoCallback> hooks;
  {
    std::lock_guard lock(g_mu);
    g_last_failure[f.device_id] = f;
    legacy = g_legacy_hook;
    hooks = g_hooks;
  }
  rtExceptionInfo info{f.task_id, static_cast<uint32_t>(f.stream_id), f.thread_id, static_cast<uint32_t>(f.device_id),
                       static_cast<uint32_t>(f.code)};
  if (legacy != nullptr) legacy(&info);
  for (auto hook : hooks) hook(&info);
}

const bool g_listener_installed = [] {
  Scheduler::set_failure_listener(&on_task_failure);
  return true;
}();

aclrtErrorType error_type_of(int code) {
  switch (code) {
    case ACL_ERROR_RT_AICORE_TIMEOUT:
    case ACL_ERROR_RT_AICORE_EXCEPTION:
    case ACL_ERROR_RT_AICORE_TRAP_EXCEPTION:
    case ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW:
    case ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW:
      return ACL_RT_ERROR_AICORE;
    default:
      return ACL_RT_ERROR_OTHERS;
  }
}

}  // namespace

extern "C" {

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtSetExceptionInfoCallback", [&] {
    (void)g_listener_installed;
    std::lock_guard lock(g_mu);
    g_legacy_hook = callback;
    return Status::Ok();
  });
}

aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtExceptionInfoCallbackRegister", [&] {
    if (callback == nullptr) return invalid_param("callback is NULL");
    std::lock_guard lock(g_mu);
    if (std::find(g_hooks.begin(), g_hooks.end(), callback) != g_hooks.end()) {
      return rt_param_invalid("this callback is already registered");
    }
    g_hooks.push_back(callback);
    return Status::Ok();
  });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
  return api_call_no_runtime("aclrtExceptionInfoCallbackUnregister", [&] {
    if (callback == nullptr) return invalid_param("callback is NULL");
    std::lock_guard lock(g_mu);
    auto it = std::find(g_hooks.begin(), g_hooks.end(), callback);
    if (it == g_hooks.end()) return rt_param_invalid("this callback is not registered");
    g_hooks.erase(it);
    return Status::Ok();
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
  return api_call("aclrtGetErrorVerbose", [&](Runtime& rt) {
    if (errorInfo == nullptr) return invalid_param("errorInfo is NULL");
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    *errorInfo = aclrtErrorInfo{};
    std::lock_guard lock(g_mu);
    auto it = g_last_failure.find(deviceId);
    if (it == g_last_failure.end()) {
      errorInfo->errorType = ACL_RT_NO_ERROR;
      return Status::Ok();
    }
    errorInfo->errorType = error_type_of(it->second.code);
    errorInfo->tryRepair = 0;  // the model has no repairable faults
    if (errorInfo->errorType == ACL_RT_ERROR_AICORE) {
      errorInfo->hasDetail = 1;
      errorInfo->detail.aicoreErrType = ACL_RT_AICORE_ERROR_SW;  // faults come from the kernel's own code
    }
    return Status::Ok();
  });
}

aclError aclrtGetThreadLastTaskId(uint32_t* taskId) {
  return api_call("aclrtGetThreadLastTaskId", [&](Runtime&) {
    if (taskId == nullptr) return invalid_param("taskId is NULL");
    *taskId = Runtime::thread_last_task_id();
    return Status::Ok();
  });
}

}  // extern "C"
