// Spec 2.5: event management.
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

constexpr uint32_t kKnownEventFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                                      ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

Status check_event_flags(uint32_t flag, bool ex) {
  if (flag & ~kKnownEventFlags)
    return rt_param_invalid("unknown event flag bits " + std::to_string(flag & ~kKnownEventFlags));
  if ((flag & ACL_EVENT_EXTERNAL) && flag != ACL_EVENT_EXTERNAL) {
    return rt_param_invalid("ACL_EVENT_EXTERNAL must be used alone");
  }
  if (flag & ACL_EVENT_IPC) {
    if (!ex) return rt_param_invalid("ACL_EVENT_IPC is only valid with aclrtCreateEventExWithFlag");
    if (flag != ACL_EVENT_IPC) return rt_param_invalid("ACL_EVENT_IPC must be used alone");
  }
  return Status::Ok();
}

Status event_is_null() {
  return invalid_param("event is NULL");
}

}  // namespace

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  return api_call("aclrtCreateEvent", [&] {
    if (event == nullptr) return event_is_null();
    return rt::create_default_event(event);
  });
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  return api_call("aclrtCreateEventWithFlag", [&] {
    if (event == nullptr) return event_is_null();
    ARUN_RETURN_IF_ERROR(check_event_flags(flag, false));
    return rt::create_event(flag, event);
  });
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return api_call("aclrtCreateEventExWithFlag", [&] {
    if (event == nullptr) return event_is_null();
    ARUN_RETURN_IF_ERROR(check_event_flags(flag, true));
    return rt::create_event_ex(flag, event);
  });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return api_call("aclrtDestroyEvent", [&] {
    if (event == nullptr) return event_is_null();
    return rt::destroy_event(event);
  });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return api_call("aclrtRecordEvent", [&] {
    if (event == nullptr) return event_is_null();
    return rt::record_event(event, stream);
  });
}

aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag) {
  return api_call("aclrtRecordEventWithFlag", [&] {
    if (event == nullptr) return event_is_null();
    if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL) {
      return invalid_param("flag " + std::to_string(flag) + " is neither ACL_EVENT_RECORD_DEFAULT nor _EXTERNAL");
    }
    return rt::record_event_with_flag(event, stream, flag);
  });
}

// Every check, the NULL event included, is the runtime core's (107000, not 100000).
aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout) {
  return api_call("aclrtStreamWaitEventWithTimeout", [&] {
    if (timeout < 0) return rt_param_invalid("timeout " + std::to_string(timeout) + " is negative");
    if (event == nullptr) return rt_param_invalid("event is NULL");
    return rt::stream_wait_event_with_timeout(stream, event, timeout);
  });
}

aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout, uint32_t flag) {
  return api_call("aclrtStreamWaitEventWithFlag", [&] {
    if (event == nullptr) return invalid_param("event is NULL");
    if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL) {
      return invalid_param("flag " + std::to_string(flag) + " is neither ACL_EVENT_WAIT_DEFAULT nor _EXTERNAL");
    }
    if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout != 0) {
      return invalid_param("ACL_EVENT_WAIT_EXTERNAL takes no timeout (timeout must be 0)");
    }
    return rt::stream_wait_event_with_flag(stream, event, timeout, flag);
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  return api_call("aclrtResetEvent", [&] {
    if (event == nullptr) return event_is_null();
    return rt::reset_event(event, stream);
  });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  return api_call("aclrtQueryEvent", [&] {
    if (status == nullptr) return invalid_param("status is NULL");
    if (event == nullptr) return event_is_null();
    return rt::query_event(event, status);
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  return api_call("aclrtQueryEventStatus", [&] {
    if (status == nullptr) return invalid_param("status is NULL");
    if (event == nullptr) return event_is_null();
    return rt::query_event_recorded(event, status);
  });
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  return api_call("aclrtQueryEventWaitStatus", [&] {
    if (status == nullptr) return invalid_param("status is NULL");
    if (event == nullptr) return event_is_null();
    return rt::query_event_wait(event, status);
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return api_call("aclrtSynchronizeEvent", [&] {
    if (event == nullptr) return event_is_null();
    return rt::synchronize_event(event, -1);
  });
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  return api_call("aclrtSynchronizeEventWithTimeout", [&] {
    if (timeout < -1) return rt_param_invalid("timeout " + std::to_string(timeout) + " ms is below -1");
    if (event == nullptr) return event_is_null();
    return rt::synchronize_event(event, timeout);
  });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  return api_call("aclrtEventElapsedTime", [&] {
    if (ms == nullptr) return invalid_param("ms is NULL");
    if (startEvent == nullptr) return event_is_null();
    // A NULL endEvent is the core's to report: a stale startEvent is reported first.
    return rt::event_elapsed_ms(startEvent, endEvent, ms);
  });
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  return api_call("aclrtEventGetTimestamp", [&] {
    if (timestamp == nullptr) return invalid_param("timestamp is NULL");
    if (event == nullptr) return event_is_null();
    return rt::event_timestamp_us(event, timestamp);
  });
}

}  // extern "C"
