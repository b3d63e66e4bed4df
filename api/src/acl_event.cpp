// Spec 2.5: event management.
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

constexpr uint32_t kKnownEventFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                                      ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

Status check_event_flags(uint32_t flag, bool ex) {
  if (flag & ~kKnownEventFlags) return rt_param_invalid("unknown event flag bits " + std::to_string(flag & ~kKnownEventFlags));
  if ((flag & ACL_EVENT_EXTERNAL) && flag != ACL_EVENT_EXTERNAL) {
    return rt_param_invalid("ACL_EVENT_EXTERNAL must be used alone");
  }
  if (flag & ACL_EVENT_IPC) {
    if (!ex) return rt_param_invalid("ACL_EVENT_IPC is only valid with aclrtCreateEventExWithFlag");
    if (flag != ACL_EVENT_IPC) return rt_param_invalid("ACL_EVENT_IPC must be used alone");
    return Status(Errc::rt_feature_not_support, "IPC events are not supported (there is one process per device model)");
  }
  return Status::Ok();
}

Status create(Runtime& rt, aclrtEvent* event, uint32_t flags) {
  if (event == nullptr) return invalid_param("event is NULL");
  return rt.create_event(flags, event);
}

Status find(Runtime& rt, aclrtEvent event, std::shared_ptr<Event>* out) {
  if (event == nullptr) return invalid_param("event is NULL");
  return rt.resolve_event(event, out);
}

Status reject_ex(const Event& e, const char* what) {
  if (e.flags() & Event::kCreatedEx) {
    return rt_param_invalid(std::string("events from aclrtCreateEventExWithFlag cannot be used with ") + what);
  }
  return Status::Ok();
}

// Completion and timestamp of the event's latest record, for elapsed-time and timestamp queries.
Status completed_timestamp(const Event& e, uint64_t* ns) {
  if ((e.flags() & (ACL_EVENT_TIME_LINE | Event::kCreatedPlain)) == 0) {
    return Status(Errc::rt_event_timestamp_invalid, "the event was created without ACL_EVENT_TIME_LINE");
  }
  auto record = e.context()->slot()->scheduler()->latest_record(e);
  if (!record) return Status(Errc::rt_event_timestamp_invalid, "the event has not been recorded");
  if (!record->done.load(std::memory_order_acquire)) {
    return Status(Errc::rt_event_not_complete, "the event's recorded work has not completed");
  }
  *ns = record->device_ns;
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtCreateEvent(aclrtEvent *event) {
  return api_call("aclrtCreateEvent", [&](Runtime& rt) {
    return create(rt, event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | Event::kCreatedPlain);
  });
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
  return api_call("aclrtCreateEventWithFlag", [&](Runtime& rt) {
    if (event == nullptr) return invalid_param("event is NULL");
    ARUN_RETURN_IF_ERROR(check_event_flags(flag, false));
    return create(rt, event, flag);
  });
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag) {
  return api_call("aclrtCreateEventExWithFlag", [&](Runtime& rt) {
    if (event == nullptr) return invalid_param("event is NULL");
    ARUN_RETURN_IF_ERROR(check_event_flags(flag, true));
    return create(rt, event, flag | Event::kCreatedEx);
  });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return api_call("aclrtDestroyEvent", [&](Runtime& rt) {
    if (event == nullptr) return invalid_param("event is NULL");
    return rt.destroy_event(event);
  });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return api_call("aclrtRecordEvent", [&](Runtime& rt) {
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    return rt.record_event(e, *s);
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  return api_call("aclrtResetEvent", [&](Runtime& rt) {
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    ARUN_RETURN_IF_ERROR(reject_ex(*e, "aclrtResetEvent"));
    if ((e->flags() & Event::kCreatedPlain) || !(e->flags() & ACL_EVENT_SYNC)) {
      return rt_param_invalid("only events created by aclrtCreateEventWithFlag with ACL_EVENT_SYNC can be reset");
    }
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    return rt.reset_event(e, *s);
  });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status) {
  return api_call("aclrtQueryEvent", [&](Runtime& rt) {
    if (status == nullptr) return invalid_param("status is NULL");
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    ARUN_RETURN_IF_ERROR(reject_ex(*e, "aclrtQueryEvent"));
    auto record = e->context()->slot()->scheduler()->latest_record(*e);
    bool done = !record || record->done.load(std::memory_order_acquire);
    *status = done ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return Status::Ok();
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
  return api_call("aclrtQueryEventStatus", [&](Runtime& rt) {
    if (status == nullptr) return invalid_param("status is NULL");
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    auto record = e->context()->slot()->scheduler()->latest_record(*e);
    bool done = !record || record->done.load(std::memory_order_acquire);
    *status = done ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return Status::Ok();
  });
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status) {
  return api_call("aclrtQueryEventWaitStatus", [&](Runtime& rt) {
    if (status == nullptr) return invalid_param("status is NULL");
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    ARUN_RETURN_IF_ERROR(reject_ex(*e, "aclrtQueryEventWaitStatus"));
    bool pending = e->context()->slot()->scheduler()->waits_pending(*e);
    *status = pending ? ACL_EVENT_WAIT_STATUS_NOT_READY : ACL_EVENT_WAIT_STATUS_COMPLETE;
    return Status::Ok();
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return api_call("aclrtSynchronizeEvent", [&](Runtime& rt) {
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    return rt.synchronize_event(*e, -1);
  });
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  return api_call("aclrtSynchronizeEventWithTimeout", [&](Runtime& rt) {
    if (timeout < -1) return rt_param_invalid("timeout " + std::to_string(timeout) + " ms is below -1");
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    return rt.synchronize_event(*e, timeout);
  });
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  return api_call("aclrtEventElapsedTime", [&](Runtime& rt) {
    if (ms == nullptr) return invalid_param("ms is NULL");
    std::shared_ptr<Event> start, end;
    ARUN_RETURN_IF_ERROR(find(rt, startEvent, &start));
    ARUN_RETURN_IF_ERROR(find(rt, endEvent, &end));
    if (start->context()->slot() != end->context()->slot()) {
      return rt_param_invalid("the two events belong to different devices");
    }
    uint64_t t0 = 0, t1 = 0;
    ARUN_RETURN_IF_ERROR(completed_timestamp(*start, &t0));
    ARUN_RETURN_IF_ERROR(completed_timestamp(*end, &t1));
    if (t1 < t0) return Status(Errc::rt_event_timestamp_reversal, "the end event completed before the start event");
    *ms = static_cast<float>(double(t1 - t0) / 1e6);
    return Status::Ok();
  });
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp) {
  return api_call("aclrtEventGetTimestamp", [&](Runtime& rt) {
    if (timestamp == nullptr) return invalid_param("timestamp is NULL");
    std::shared_ptr<Event> e;
    ARUN_RETURN_IF_ERROR(find(rt, event, &e));
    uint64_t ns = 0;
    ARUN_RETURN_IF_ERROR(completed_timestamp(*e, &ns));
    *timestamp = ns / 1000;  // microseconds since the device booted
    return Status::Ok();
  });
}

}  // extern "C"
