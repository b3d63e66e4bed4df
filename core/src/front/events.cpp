// Front door implementation: events (arun/runtime/streams.hpp).
#include <string>

#include "arun/runtime/streams.hpp"
#include "front/ipc_events.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/event.hpp"
#include "runtime/ipc_event.hpp"
#include "sanitizer/stream_sanitizer.hpp"
#include "sched/scheduler.hpp"

namespace arun::rt {

using detail::find_event;
using detail::find_stream;
using detail::live_runtime;

namespace {

// The internal creation bits are the core's: a caller's flags never carry them.
constexpr uint32_t kInternalEventBits = Event::kCreatedPlain | Event::kCreatedEx;

Status create(uint32_t flags, aclrtEvent* out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return rt->create_event(flags, out);
}

Status find(aclrtEvent event, std::shared_ptr<Event>* out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return find_event(rt, event, out);
}

// A query of an event whose record an open capture holds is refused (spec part 2, R2 and 4.12).
Status find_queryable(aclrtEvent event, std::shared_ptr<Event>* out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  ARUN_RETURN_IF_ERROR(find_event(rt, event, out));
  return rt->graphs().check_event(**out);
}

Status reject_ex(const Event& e, const char* what) {
  if (e.flags() & Event::kCreatedEx) {
    return Status(Errc::rt_param_invalid,
                  std::string("events from aclrtCreateEventExWithFlag cannot be used with ") + what);
  }
  return Status::Ok();
}

// Whether the event's latest record has completed (never recorded counts as complete).
bool latest_done(const Event& e) {
  auto record = e.context()->slot()->scheduler()->latest_record(e);
  if (!record) return true;
  if (!record->done.load(std::memory_order_acquire)) return false;
  if (san::on()) [[unlikely]]
    san::synced_record(*record);  // a query that says "complete" orders like a synchronize
  return true;
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

Status create_event(uint32_t flags, aclrtEvent* out) {
  return create(flags & ~kInternalEventBits, out);
}

Status create_default_event(aclrtEvent* out) {
  return create(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | Event::kCreatedPlain, out);
}

Status create_event_ex(uint32_t flags, aclrtEvent* out) {
  ARUN_RETURN_IF_ERROR(create((flags & ~kInternalEventBits) | Event::kCreatedEx, out));
  if (!(flags & ACL_EVENT_IPC)) return Status::Ok();
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  return detail::ipc_event_created(rt, *out);
}

Status destroy_event(aclrtEvent event) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  if (event == nullptr) return Status(Errc::invalid_param, "event is NULL");
  std::shared_ptr<Event> e;
  if (find_event(rt, event, &e).ok() && e->ipc) detail::ipc_event_destroyed(*e);
  return rt->destroy_event(event);
}

Status record_event(aclrtEvent event, aclrtStream stream) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  ARUN_RETURN_IF_ERROR(detail::ipc_record(e, stream, true));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  ARUN_RETURN_IF_ERROR(rt->record_event(e, *s));
  return detail::ipc_record(e, stream, false);
}

Status stream_wait_event(aclrtStream stream, aclrtEvent event) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  if (detail::ipc_imported(*e)) return detail::ipc_stream_wait(e, stream, -1);
  if ((e->flags() & (ACL_EVENT_SYNC | Event::kCreatedPlain | ACL_EVENT_IPC)) == 0) {
    return Status(Errc::rt_param_invalid, "the event was created without ACL_EVENT_SYNC and cannot be waited on");
  }
  return rt->wait_event(*s, e);
}

Status reset_event(aclrtEvent event, aclrtStream stream) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  ARUN_RETURN_IF_ERROR(reject_ex(*e, "aclrtResetEvent"));
  if ((e->flags() & Event::kCreatedPlain) || !(e->flags() & ACL_EVENT_SYNC)) {
    return Status(Errc::rt_param_invalid,
                  "only events created by aclrtCreateEventWithFlag with ACL_EVENT_SYNC can be reset");
  }
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  return rt->reset_event(e, *s);
}

Status synchronize_event(aclrtEvent event, int32_t timeout_ms) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  if (detail::ipc_imported(*e)) return detail::ipc_synchronize(*e, timeout_ms);
  return rt->synchronize_event(*e, timeout_ms);
}

Status query_event(aclrtEvent event, aclrtEventStatus* status) {
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_queryable(event, &e));
  ARUN_RETURN_IF_ERROR(reject_ex(*e, "aclrtQueryEvent"));
  *status = latest_done(*e) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  return Status::Ok();
}

Status query_event_recorded(aclrtEvent event, aclrtEventRecordedStatus* status) {
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_queryable(event, &e));
  if (detail::ipc_imported(*e)) {
    const bool done = e->ipc->reached(e->ipc->recorded());
    *status = done ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return Status::Ok();
  }
  auto record = e->context()->slot()->scheduler()->latest_record(*e);
  bool complete = false;
  if (record) {
    complete = record->done.load(std::memory_order_acquire);
    if (complete && san::on()) [[unlikely]]
      san::synced_record(*record);  // a query that says "complete" orders like a synchronize
  } else {
    // Spec part 2, R2: without a record, only aclrtCreateEventExWithFlag events report COMPLETE.
    complete = (e->flags() & Event::kCreatedEx) != 0;
  }
  *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return Status::Ok();
}

Status record_event_with_flag(aclrtEvent event, aclrtStream stream, uint32_t flag) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  // The first call fixes the event's record flag, whether or not it succeeds.
  int32_t fixed = -1;
  e->record_flag.compare_exchange_strong(fixed, static_cast<int32_t>(flag));
  if (fixed == -1) fixed = static_cast<int32_t>(flag);
  if (flag == ACL_EVENT_RECORD_EXTERNAL) {
    const uint32_t user_flags = e->flags() & ~(Event::kCreatedEx | Event::kCreatedPlain);
    if (!(e->flags() & Event::kCreatedEx) || user_flags != ACL_EVENT_SYNC) {
      return Status(Errc::rt_feature_not_support,
                    "ACL_EVENT_RECORD_EXTERNAL needs an event from aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)");
    }
  }
  if (static_cast<uint32_t>(fixed) != flag) {
    return Status(Errc::rt_param_invalid, "the event's record flag was fixed to " + std::to_string(fixed) +
                                              " by its first aclrtRecordEventWithFlag");
  }
  if (flag == ACL_EVENT_RECORD_DEFAULT) {
    ARUN_RETURN_IF_ERROR(detail::ipc_record(e, stream, true));
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
    ARUN_RETURN_IF_ERROR(rt->record_event(e, *s));
    return detail::ipc_record(e, stream, false);
  }
  // ACL_EVENT_RECORD_EXTERNAL is only valid while the stream is captured into a graph; this
  // runtime has no stream capture (aclmdlRICaptureBegin is not provided), so no stream ever is.
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  return Status(static_cast<Errc>(ACL_ERROR_RT_STREAM_NOT_CAPTURED),
                "ACL_EVENT_RECORD_EXTERNAL needs a stream that is being captured; this one is not");
}

namespace {

// The checks aclrtStreamWaitEventWithTimeout and a default-flag aclrtStreamWaitEventWithFlag share
// after the event was found; `timeout_s` 0 waits forever.
Status timed_wait(Runtime* rt, aclrtStream stream, const std::shared_ptr<Event>& e, uint64_t timeout_s) {
  if (e->flags() & ACL_EVENT_DEVICE_USE_ONLY) {
    return Status(Errc::rt_param_invalid, "a device-only event cannot be waited on from the host API");
  }
  if ((e->flags() & (ACL_EVENT_SYNC | Event::kCreatedPlain | ACL_EVENT_IPC)) == 0) {
    return Status(Errc::rt_feature_not_support, "the event was created without ACL_EVENT_SYNC and cannot be waited on");
  }
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  if (detail::ipc_imported(*e)) {
    return detail::ipc_stream_wait(e, stream, timeout_s == 0 ? -1 : static_cast<int64_t>(timeout_s) * 1'000'000'000);
  }
  // A wait still blocked after timeout_s seconds fails with ACL_ERROR_RT_TASK_TIMEOUT, which the
  // stream's next synchronize reports; the stream then goes on with its next task.
  return rt->wait_event(*s, e, timeout_s == 0 ? -1 : static_cast<int64_t>(timeout_s) * 1'000'000'000);
}

}  // namespace

Status stream_wait_event_with_timeout(aclrtStream stream, aclrtEvent event, int32_t timeout_s) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  if (timeout_s < 0) return Status(Errc::rt_param_invalid, "timeout " + std::to_string(timeout_s) + " is negative");
  if (event == nullptr) return Status(Errc::rt_param_invalid, "event is NULL");
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  return timed_wait(rt, stream, e, static_cast<uint64_t>(timeout_s));
}

Status stream_wait_event_with_flag(aclrtStream stream, aclrtEvent event, uint32_t timeout_s, uint32_t flag) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find_event(rt, event, &e));
  // The first call fixes the event's wait flag (independently of its record flag), whether or not
  // it succeeds.
  int32_t fixed = -1;
  e->wait_flag.compare_exchange_strong(fixed, static_cast<int32_t>(flag));
  if (fixed == -1) fixed = static_cast<int32_t>(flag);
  if (flag == ACL_EVENT_WAIT_EXTERNAL) {
    const uint32_t user_flags = e->flags() & ~(Event::kCreatedEx | Event::kCreatedPlain);
    if (!(e->flags() & Event::kCreatedEx) || user_flags != ACL_EVENT_SYNC) {
      return Status(Errc::rt_feature_not_support,
                    "ACL_EVENT_WAIT_EXTERNAL needs an event from aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)");
    }
  }
  if (static_cast<uint32_t>(fixed) != flag) {
    return Status(Errc::rt_param_invalid, "the event's wait flag was fixed to " + std::to_string(fixed) +
                                              " by its first aclrtStreamWaitEventWithFlag");
  }
  if (flag == ACL_EVENT_WAIT_DEFAULT) {
    // UINT32_MAX asks for the runtime's default wait timeout, which is none.
    return timed_wait(rt, stream, e, timeout_s == UINT32_MAX ? 0 : timeout_s);
  }
  // ACL_EVENT_WAIT_EXTERNAL belongs in a graph capture, which this runtime does not provide.
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  return Status(static_cast<Errc>(ACL_ERROR_RT_STREAM_NOT_CAPTURED),
                "ACL_EVENT_WAIT_EXTERNAL needs a stream that is being captured; this one is not");
}

Status query_event_wait(aclrtEvent event, aclrtEventWaitStatus* status) {
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find(event, &e));
  ARUN_RETURN_IF_ERROR(reject_ex(*e, "aclrtQueryEventWaitStatus"));
  bool pending = e->context()->slot()->scheduler()->waits_pending(*e);
  *status = pending ? ACL_EVENT_WAIT_STATUS_NOT_READY : ACL_EVENT_WAIT_STATUS_COMPLETE;
  return Status::Ok();
}

Status event_elapsed_ms(aclrtEvent start_event, aclrtEvent end_event, float* ms) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(live_runtime(&rt));
  std::shared_ptr<Event> start, end;
  ARUN_RETURN_IF_ERROR(find_event(rt, start_event, &start));
  ARUN_RETURN_IF_ERROR(find_event(rt, end_event, &end));
  if (start->context()->slot() != end->context()->slot()) {
    return Status(Errc::rt_param_invalid, "the two events belong to different devices");
  }
  uint64_t t0 = 0, t1 = 0;
  ARUN_RETURN_IF_ERROR(completed_timestamp(*start, &t0));
  ARUN_RETURN_IF_ERROR(completed_timestamp(*end, &t1));
  if (t1 < t0) return Status(Errc::rt_event_timestamp_reversal, "the end event completed before the start event");
  *ms = static_cast<float>(double(t1 - t0) / 1e6);
  return Status::Ok();
}

Status event_timestamp_us(aclrtEvent event, uint64_t* us) {
  std::shared_ptr<Event> e;
  ARUN_RETURN_IF_ERROR(find(event, &e));
  uint64_t ns = 0;
  ARUN_RETURN_IF_ERROR(completed_timestamp(*e, &ns));
  *us = ns / 1000;  // microseconds since the device booted
  return Status::Ok();
}

}  // namespace arun::rt
