// Front door implementation: stream-state and exception hooks, failure reports
// (arun/runtime/hooks.hpp, spec 2.8).
#include <cstdio>
#include <string>

#include "arun/runtime/hooks.hpp"
#include "front/stream_access.hpp"
#include "runtime/process_hooks.hpp"

namespace arun::rt {

using detail::live_runtime;

namespace {

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

Status register_stream_state_callback(const char* name, aclrtStreamStateCallback callback, void* args) {
  return ProcessHooks::instance().register_stream_state(name, callback, args);
}

Status set_exception_callback(aclrtExceptionInfoCallback callback) {
  ProcessHooks::instance().set_legacy_exception_callback(callback);
  return Status::Ok();
}

Status register_exception_callback(aclrtExceptionInfoCallback callback) {
  return ProcessHooks::instance().add_exception_callback(callback);
}

Status unregister_exception_callback(aclrtExceptionInfoCallback callback) {
  return ProcessHooks::instance().remove_exception_callback(callback);
}

bool exception_info_args(const rtExceptionInfo* info, void** args, uint32_t* bytes) {
  if (info->has_args == 0) return false;
  *args = const_cast<void*>(info->args);
  *bytes = info->args_bytes;
  return true;
}

Status exception_info_function(const rtExceptionInfo* info, aclrtFuncHandle* func) {
  (void)func;
  return Status(Errc::rt_param_invalid,
                info->has_args != 0 ? "the failed kernel was not loaded from a kernel binary (it is a host-compiled "
                                      "ascend-run kernel), so it has no aclrtFuncHandle"
                                    : "the failed task is not a kernel: it has no binary or kernel name");
}

Status set_binary_exception_callback(aclrtBinHandle binary, aclrtOpExceptionCallback callback, void* user) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  // The binary table belongs to the binary family (aclrtBinaryLoad*), which ascend-run does not
  // provide yet: no handle is live, so each one is dead or forged (R4). Once binaries exist, a live
  // one gets ProcessHooks::set_binary_exception_callback(binary, callback, user).
  (void)callback;
  (void)user;
  char text[32];
  std::snprintf(text, sizeof text, "%p", binary);
  return Status(Errc::rt_invalid_handle, std::string("binHandle ") + text +
                                             " is not a live kernel binary (ascend-run provides no "
                                             "aclrtBinaryLoad yet, so none exists)");
}

Status last_device_error(int32_t device_id, aclrtErrorInfo* out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  ARUN_RETURN_IF_ERROR(rt->check_device_id(device_id));
  *out = aclrtErrorInfo{};
  TaskFailure failure;
  if (!rt->failures().last(device_id, &failure)) {
    out->errorType = ACL_RT_NO_ERROR;
    return Status::Ok();
  }
  out->errorType = error_type_of(failure.code);
  out->tryRepair = 0;  // the model has no repairable faults
  if (out->errorType == ACL_RT_ERROR_AICORE) {
    out->hasDetail = 1;
    out->detail.aicoreErrType = ACL_RT_AICORE_ERROR_SW;  // faults come from the kernel's own code
  }
  return Status::Ok();
}

uint32_t thread_last_task_id() {
  return Runtime::thread_last_task_id();
}

}  // namespace arun::rt
