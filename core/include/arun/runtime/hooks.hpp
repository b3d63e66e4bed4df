// Front door: host calls on streams (spec 2.7), stream-state and exception hooks, and failure
// reports (spec 2.8). See front_door.hpp for the conventions.
//
// The stream-state and exception hooks are process-scope: the spec lets a program register them
// before aclInit, and they stay registered across aclFinalize / aclInit. Everything else here needs a
// live runtime.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

// The type behind aclrtExceptionInfo (a C ABI shape): the core fills it for the exception hooks and
// programs read it through the aclrtGet*FromExceptionInfo accessors.
struct rtExceptionInfo {
  uint32_t task_id;
  uint32_t stream_id;
  uint32_t thread_id;
  uint32_t device_id;
  uint32_t error_code;
  // Spec part 2, 4.7: the failed task's argument block when it is a kernel launch (has_args 1).
  uint32_t has_args;
  const void* args;
  uint32_t args_bytes;
};

namespace arun::rt {

// ---- host calls (aclrtLaunchCallback / aclrtSubscribeReport / aclrtProcessReport and the host
// function counterparts aclrtLaunchHostFunc / aclrtSubscribeHostFunc / aclrtProcessHostFunc)
enum class HostCallApi : uint8_t { Report, HostFunc };
// Enqueues fn(user) on `stream`; a blocking call holds the stream until fn returns. A report stream
// nobody subscribed is rt_stream_no_cb_reg (host functions without a subscriber run on the runtime's
// worker).
Status launch_host_call(HostCallApi api, aclrtStream stream, void (*fn)(void*), void* user, bool blocking);
// Makes thread `thread` (a pthread_t as uint64) serve `stream`'s calls of `api`; the errors of
// aclrtSubscribeReport / aclrtSubscribeHostFunc.
Status subscribe_host_calls(HostCallApi api, uint64_t thread, aclrtStream stream);
Status unsubscribe_host_calls(HostCallApi api, uint64_t thread, aclrtStream stream);
// Runs one call of the streams the calling thread serves, waiting up to `timeout_ms` (-1: forever,
// else > 0; checked by the caller). rt_thread_subscribe if it serves none, rt_report_timeout.
Status process_host_call(HostCallApi api, int32_t timeout_ms);

// ---- stream-state hooks (aclrtRegStreamStateCallback), process-scope
// Registers `callback` under `name` (callback NULL: removes the name). A name already registered is
// rt_param_invalid.
Status register_stream_state_callback(const char* name, aclrtStreamStateCallback callback, void* args);

// ---- exception hooks, process-scope; they run on the thread that completed the failed task
// aclrtSetExceptionInfoCallback: the one legacy hook (NULL clears it; the last call wins).
Status set_exception_callback(aclrtExceptionInfoCallback callback);
// aclrtExceptionInfoCallbackRegister / Unregister (callback not NULL): registering a pointer twice
// keeps one registration; unregistering one that is not registered does nothing (spec part 2, 4.7).
Status register_exception_callback(aclrtExceptionInfoCallback callback);
Status unregister_exception_callback(aclrtExceptionInfoCallback callback);

// ---- exception info (spec part 2, 4.7); `info` is not NULL (the caller returns 0xFFFFFFFF)
// aclrtGetArgsFromExceptionInfo: the kernel's argument block. A task without one: false.
bool exception_info_args(const rtExceptionInfo* info, void** args, uint32_t* bytes);
// aclrtGetFuncHandleFromExceptionInfo: rt_param_invalid, since no failed task carries a binary and
// kernel name (ascend-run kernels are host functions; aclrtBinaryLoad* does not exist yet).
Status exception_info_function(const rtExceptionInfo* info, aclrtFuncHandle* func);
// aclrtBinarySetExceptionCallback (arguments non-NULL): the per-binary exception hook. No binary
// handle can be live yet, so every handle is rt_invalid_handle; the table that keeps the callback
// per binary is ProcessHooks::set_binary_exception_callback, for the binary family to call.
Status set_binary_exception_callback(aclrtBinHandle binary, aclrtOpExceptionCallback callback, void* user);

// ---- failure reports
// aclrtGetErrorVerbose: the latest task failure of device `device_id` since aclInit (errorType
// ACL_RT_NO_ERROR if none). An unknown device is the runtime's device-id error.
Status last_device_error(int32_t device_id, aclrtErrorInfo* out);
// Id of the last task the calling thread submitted to a stream it created (aclrtGetThreadLastTaskId).
uint32_t thread_last_task_id();

}  // namespace arun::rt
