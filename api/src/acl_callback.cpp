// Spec 2.7: host callbacks (aclrtLaunchCallback + aclrtSubscribeReport / aclrtProcessReport) and
// host functions (aclrtLaunchHostFunc + aclrtSubscribeHostFunc / aclrtProcessHostFunc).
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

Status check_process_timeout(int32_t timeout) {
  if (timeout == 0 || timeout < -1) {
    return invalid_param("timeout " + std::to_string(timeout) + " ms is invalid (use -1 to wait forever, or > 0)");
  }
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream stream) {
  return api_call("aclrtLaunchCallback", [&] {
    if (fn == nullptr) return invalid_param("fn is NULL");
    auto type = raw(blockType);
    if (type != ACL_CALLBACK_NO_BLOCK && type != ACL_CALLBACK_BLOCK) {
      return invalid_param("blockType " + std::to_string(type) + " is not ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK");
    }
    return rt::launch_host_call(rt::HostCallApi::Report, stream, fn, userData, type == ACL_CALLBACK_BLOCK);
  });
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return api_call("aclrtSubscribeReport",
                  [&] { return rt::subscribe_host_calls(rt::HostCallApi::Report, threadId, stream); });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return api_call("aclrtUnSubscribeReport",
                  [&] { return rt::unsubscribe_host_calls(rt::HostCallApi::Report, threadId, stream); });
}

aclError aclrtProcessReport(int32_t timeout) {
  return api_call("aclrtProcessReport", [&] {
    ARUN_RETURN_IF_ERROR(check_process_timeout(timeout));
    return rt::process_host_call(rt::HostCallApi::Report, timeout);
  });
}

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  return api_call("aclrtLaunchHostFunc", [&] {
    if (fn == nullptr) return rt_param_invalid("fn is NULL");
    return rt::launch_host_call(rt::HostCallApi::HostFunc, stream, fn, args, true);
  });
}

aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
  return api_call("aclrtSubscribeHostFunc", [&] {
    if (exeStream == nullptr) return invalid_param("exeStream is NULL");
    return rt::subscribe_host_calls(rt::HostCallApi::HostFunc, hostFuncThreadId, exeStream);
  });
}

aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
  return api_call("aclrtUnSubscribeHostFunc", [&] {
    if (exeStream == nullptr) return invalid_param("exeStream is NULL");
    return rt::unsubscribe_host_calls(rt::HostCallApi::HostFunc, hostFuncThreadId, exeStream);
  });
}

aclError aclrtProcessHostFunc(int32_t timeout) {
  return api_call("aclrtProcessHostFunc", [&] {
    ARUN_RETURN_IF_ERROR(check_process_timeout(timeout));
    return rt::process_host_call(rt::HostCallApi::HostFunc, timeout);
  });
}

}  // extern "C"
