// Spec 2.4: stream management.
#include <cstring>
#include <new>
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

constexpr uint32_t kLowestPriority = 7;

Status create(aclrtStream* stream, uint32_t priority, uint32_t flags) {
  if (stream == nullptr) return invalid_param("stream is NULL");
  if (priority > kLowestPriority) {
    // CANN clamps an out-of-range priority to the lowest one rather than failing.
    if (rt::log_enabled(plugin::LogLevel::Info)) {
      rt::log(plugin::LogLevel::Info, "aclrtCreateStreamWithConfig: priority " + std::to_string(priority) +
                                          " is outside [0, " + std::to_string(kLowestPriority) + "]; using " +
                                          std::to_string(kLowestPriority));
    }
    priority = kLowestPriority;
  }
  return rt::create_stream(priority, flags, stream);
}

Status destroy(aclrtStream stream, bool force) {
  if (stream == nullptr) return invalid_param("stream is NULL");
  return rt::destroy_stream(stream, force);
}

Status synchronize(aclrtStream stream, int32_t timeout) {
  if (timeout < -1) return rt_param_invalid("timeout " + std::to_string(timeout) + " ms is below -1");
  return rt::synchronize_stream(stream, timeout);
}

// A C caller may pass any int as the selector; reading it as an int keeps values outside the
// enum's range defined behaviour (they are then reported as invalid).
int selector_of(const aclrtStreamAttr& attr) {
  int v = 0;
  std::memcpy(&v, &attr, sizeof v);
  return v;
}

}  // namespace

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  return api_call("aclrtCreateStream", [&] { return create(stream, 0, 0); });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  return api_call("aclrtCreateStreamWithConfig", [&] { return create(stream, priority, flag); });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return api_call("aclrtDestroyStream", [&] { return destroy(stream, false); });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  return api_call("aclrtDestroyStreamForce", [&] { return destroy(stream, true); });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return api_call("aclrtSynchronizeStream", [&] { return synchronize(stream, -1); });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return api_call("aclrtSynchronizeStreamWithTimeout", [&] { return synchronize(stream, timeout); });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return api_call("aclrtStreamQuery", [&] {
    if (status == nullptr) return invalid_param("status is NULL");
    return rt::query_stream(stream, status);
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return api_call("aclrtStreamWaitEvent", [&] {
    if (event == nullptr) return invalid_param("event is NULL");
    return rt::stream_wait_event(stream, event);
  });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  return api_call("aclrtSetStreamFailureMode", [&] { return rt::set_stream_failure_mode(stream, mode); });
}

aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue* value) {
  static_assert(sizeof(aclrtStreamAttr) == sizeof(int));
  const int selector = selector_of(stmAttrType);
  if (selector == ACL_STREAM_ATTR_FAILURE_MODE && value != nullptr) {
    return aclrtSetStreamFailureMode(stream, value->failureMode);
  }
  return api_call("aclrtSetStreamAttribute", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    return rt::set_stream_attribute(stream, selector, *value);
  });
}

aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue* value) {
  return api_call("aclrtGetStreamAttribute", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    return rt::get_stream_attribute(stream, selector_of(stmAttrType), value);
  });
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t* priority) {
  return api_call("aclrtStreamGetPriority", [&] {
    if (priority == nullptr) return invalid_param("priority is NULL");
    rt::StreamInfo info;
    ARUN_RETURN_IF_ERROR(rt::describe_stream(stream, &info));
    *priority = info.priority;
    return Status::Ok();
  });
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t* flags) {
  return api_call("aclrtStreamGetFlags", [&] {
    if (flags == nullptr) return invalid_param("flags is NULL");
    rt::StreamInfo info;
    ARUN_RETURN_IF_ERROR(rt::describe_stream(stream, &info));
    *flags = info.flags;
    return Status::Ok();
  });
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t* streamId) {
  return api_call("aclrtStreamGetId", [&] {
    if (streamId == nullptr) return invalid_param("streamId is NULL");
    rt::StreamInfo info;
    ARUN_RETURN_IF_ERROR(rt::describe_stream(stream, &info));
    *streamId = info.id;
    return Status::Ok();
  });
}

aclError aclrtStreamAbort(aclrtStream stream) {
  return api_call("aclrtStreamAbort", [&] {
    if (stream == nullptr) return rt_param_invalid("stream is NULL (the default stream cannot be aborted)");
    return rt::abort_stream(stream);
  });
}

aclError aclrtStreamStop(aclrtStream stream) {
  return api_call("aclrtStreamStop", [&] {
    if (stream == nullptr) return rt_param_invalid("stream is NULL (the default stream cannot be stopped)");
    return rt::stop_stream(stream);
  });
}

aclrtStreamConfigHandle* aclrtCreateStreamConfigHandle(void) {
  // Zeroed: what aclrtCreateStream gives (priority 0, no flags). No runtime needed, as in CANN.
  return new (std::nothrow) aclrtStreamConfigHandle{nullptr, 0, 0, 0};
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle* handle) {
  return api_call_no_runtime("aclrtDestroyStreamConfigHandle", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    delete handle;
    return Status::Ok();
  });
}

aclError aclrtCreateStreamV2(aclrtStream* stream, const aclrtStreamConfigHandle* handle) {
  return api_call("aclrtCreateStreamV2", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    // The work area (WORK_ADDR_PTR / WORK_SIZE) is a hint for the device's task memory; the
    // simulated devices allocate their own, so it is accepted and not used.
    return create(stream, handle->priority, static_cast<uint32_t>(handle->flag));
  });
}

aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle* handle, aclrtStreamConfigAttr attr, const void* attrValue,
                                 size_t valueSize) {
  return api_call_no_runtime("aclrtSetStreamConfigOpt", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (attrValue == nullptr) return invalid_param("attrValue is NULL");
    auto expect = [&](size_t size, const char* type) {
      return valueSize == size ? Status::Ok()
                               : invalid_param("valueSize " + std::to_string(valueSize) + " does not match " + type);
    };
    switch (raw(attr)) {
      case ACL_RT_STREAM_WORK_ADDR_PTR:
        ARUN_RETURN_IF_ERROR(expect(sizeof(void*), "sizeof(void*)"));
        handle->workptr = *static_cast<void* const*>(attrValue);
        return Status::Ok();
      case ACL_RT_STREAM_WORK_SIZE:
        ARUN_RETURN_IF_ERROR(expect(sizeof(size_t), "sizeof(size_t)"));
        handle->workSize = *static_cast<const size_t*>(attrValue);
        return Status::Ok();
      case ACL_RT_STREAM_FLAG:
        ARUN_RETURN_IF_ERROR(expect(sizeof(size_t), "sizeof(size_t)"));
        handle->flag = *static_cast<const size_t*>(attrValue);
        return Status::Ok();
      case ACL_RT_STREAM_PRIORITY: {
        ARUN_RETURN_IF_ERROR(expect(sizeof(uint32_t), "sizeof(uint32_t)"));
        uint32_t p = *static_cast<const uint32_t*>(attrValue);
        if (p > kLowestPriority) return invalid_param("priority " + std::to_string(p) + " is outside [0, 7]");
        handle->priority = p;
        return Status::Ok();
      }
    }
    return invalid_param("unknown stream config attribute " + std::to_string(raw(attr)));
  });
}

aclError aclrtRegStreamStateCallback(const char* regName, aclrtStreamStateCallback callback, void* args) {
  // Process-scope: a program may register before aclInit.
  return api_call_no_runtime("aclrtRegStreamStateCallback", [&] {
    if (regName == nullptr) return invalid_param("regName is NULL");
    return rt::register_stream_state_callback(regName, callback, args);
  });
}

// The default stream cannot take part: every stream argument is checked for NULL here.
aclError aclrtSwitchStream(void* leftValue, aclrtCondition cond, void* rightValue, aclrtCompareDataType dataType,
                           aclrtStream trueStream, aclrtStream falseStream, aclrtStream stream) {
  return api_call("aclrtSwitchStream", [&] {
    if (leftValue == nullptr || rightValue == nullptr) return invalid_param("leftValue or rightValue is NULL");
    if (trueStream == nullptr || stream == nullptr) return invalid_param("trueStream or stream is NULL");
    if (falseStream != nullptr) return invalid_param("falseStream is reserved and must be NULL");
    if (raw(cond) < ACL_RT_EQUAL || raw(cond) > ACL_RT_LESS_OR_EQUAL) {
      return rt_param_invalid("cond " + std::to_string(raw(cond)) + " is not an aclrtCondition");
    }
    if (raw(dataType) != ACL_RT_SWITCH_INT32 && raw(dataType) != ACL_RT_SWITCH_INT64) {
      return rt_param_invalid("dataType " + std::to_string(raw(dataType)) + " is not an aclrtCompareDataType");
    }
    return rt::switch_stream(leftValue, static_cast<uint32_t>(raw(cond)), rightValue,
                             static_cast<uint32_t>(raw(dataType)), trueStream, stream);
  });
}

aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream) {
  return api_call("aclrtActiveStream", [&] {
    if (activeStream == nullptr || stream == nullptr) return invalid_param("activeStream or stream is NULL");
    return rt::active_stream(activeStream, stream);
  });
}

}  // extern "C"
