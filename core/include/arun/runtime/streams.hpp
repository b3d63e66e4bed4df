// Front door: streams and events (see front_door.hpp for the conventions).
//
// Streams and events are passed as their ACL handles. A NULL stream is the current context's default
// stream; a NULL event is invalid_param ("event is NULL"); an unknown or destroyed handle is
// rt_invalid_handle; a stream of another context than the calling thread's is rt_stream_context.
// Stream handles are resolved in the calling thread's current context (rt_context_null without one).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// ---- contract used by model/ (the executor); the streams helper implements these and adds the rest
// A stream of the current context; `priority` already clamped by the caller (0..7). Runs the
// aclrtRegStreamStateCallback hooks (ACL_RT_STREAM_STATE_CREATE_POST).
Status create_stream(uint32_t priority, uint32_t flags, aclrtStream* out);
// Drains (force: drops) the stream's work and destroys it, after running the stream-state hooks
// (ACL_RT_STREAM_STATE_DESTROY_PRE). The default stream is rt_param_invalid.
Status destroy_stream(aclrtStream stream, bool force);
// Waits for everything queued on `stream` (nullptr: the current context's default stream).
// `timeout_ms` >= -1 (-1: forever). rt_stream_sync_timeout, rt_stream_abort, or the code of a task
// of the stream that failed.
Status synchronize_stream(aclrtStream stream, int32_t timeout_ms);
// An event as aclrtCreateEventWithFlag makes it (`flags`: ACL_EVENT_*, checked by the caller).
Status create_event(uint32_t flags, aclrtEvent* out);
// rt_invalid_handle for an unknown event; pending records and waits keep it alive until they finish.
Status destroy_event(aclrtEvent event);
// Enqueues a record of `event` on `stream`. rt_stream_context if they belong to different contexts.
Status record_event(aclrtEvent event, aclrtStream stream);
// Makes `stream` wait for the event's latest record. An event created without ACL_EVENT_SYNC is
// rt_param_invalid; rt_stream_context if they belong to different contexts.
Status stream_wait_event(aclrtStream stream, aclrtEvent event);
// Waits for the event's latest record (none: returns at once). `timeout_ms` >= -1 (-1: forever);
// rt_event_sync_timeout when it passes.
Status synchronize_event(aclrtEvent event, int32_t timeout_ms);

// ---- streams
// What aclrtStreamGetPriority / aclrtStreamGetFlags / aclrtStreamGetId report.
struct StreamInfo {
  uint32_t priority = 0;
  uint32_t flags = 0;
  int32_t id = 0;
};
Status describe_stream(aclrtStream stream, StreamInfo* out);
// ACL_STREAM_STATUS_COMPLETE when nothing of the stream is queued or running.
Status query_stream(aclrtStream stream, aclrtStreamStatus* status);
// aclrtSetStreamFailureMode: rt_param_invalid for a mode other than ACL_CONTINUE_ON_FAILURE /
// ACL_STOP_ON_FAILURE (checked after the stream) and for a second call on the same stream.
Status set_stream_failure_mode(aclrtStream stream, uint64_t mode);
// aclrtSetStreamAttribute for every attribute but ACL_STREAM_ATTR_FAILURE_MODE (`selector`: the
// aclrtStreamAttr as an int). rt_param_invalid for an unknown selector or an on/off value above 1;
// ACL_STREAM_ATTR_PRIORITY is rt_feature_not_support (fixed at creation).
Status set_stream_attribute(aclrtStream stream, int selector, const aclrtStreamAttrValue& value);
// aclrtGetStreamAttribute: zeroes *value, then fills the selected member; rt_param_invalid for an
// unknown selector.
Status get_stream_attribute(aclrtStream stream, int selector, aclrtStreamAttrValue* value);
// aclrtStreamAbort: halts the running task where the device can, drops the queue, and returns once
// nothing of the stream runs. A NULL stream is rt_param_invalid.
Status abort_stream(aclrtStream stream);
// aclrtStreamStop: asks the running task to halt; queued tasks stay. NULL or the default stream is
// rt_param_invalid.
Status stop_stream(aclrtStream stream);

// ---- events
// aclrtCreateEvent: waitable and timed (ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE), not resettable.
Status create_default_event(aclrtEvent* out);
// aclrtCreateEventExWithFlag (`flags` checked by the caller): refused by reset and the queries that
// aclrtCreateEventExWithFlag events do not support.
Status create_event_ex(uint32_t flags, aclrtEvent* out);
// aclrtResetEvent: rt_param_invalid for an Ex event or one not created by aclrtCreateEventWithFlag
// with ACL_EVENT_SYNC (checked before the stream).
Status reset_event(aclrtEvent event, aclrtStream stream);
// aclrtQueryEvent (Ex events are rt_param_invalid); never recorded counts as complete.
Status query_event(aclrtEvent event, aclrtEventStatus* status);
// aclrtQueryEventStatus; never recorded (or reset): NOT_READY, but COMPLETE for
// aclrtCreateEventExWithFlag events (spec part 2, R2).
Status query_event_recorded(aclrtEvent event, aclrtEventRecordedStatus* status);
// aclrtRecordEventWithFlag (`flag` 0 or 1, checked by the caller). The first call fixes the event's
// record flag. ACL_EVENT_RECORD_DEFAULT is record_event. ACL_EVENT_RECORD_EXTERNAL:
// rt_feature_not_support unless an Ex event created with exactly ACL_EVENT_SYNC; then
// rt_param_invalid (flag differs from the fixed one); then the stream's errors; then
// rt_stream_not_captured, always, because this runtime has no stream capture.
Status record_event_with_flag(aclrtEvent event, aclrtStream stream, uint32_t flag);
// aclrtStreamWaitEventWithTimeout: rt_param_invalid (timeout < 0, checked first; NULL event;
// device-only event), rt_invalid_handle, rt_feature_not_support (event without ACL_EVENT_SYNC),
// the stream's errors. `timeout_s` 0 waits forever; a wait still blocked after `timeout_s` seconds
// fails with ACL_ERROR_RT_TASK_TIMEOUT (reported by the stream's next synchronize) and the stream
// goes on.
Status stream_wait_event_with_timeout(aclrtStream stream, aclrtEvent event, int32_t timeout_s);
// aclrtStreamWaitEventWithFlag (`event` non-NULL, `flag` 0 or 1, EXTERNAL with timeout 0: checked
// by the caller): rt_invalid_handle; the first call fixes the event's wait flag; EXTERNAL:
// rt_feature_not_support unless an Ex event created with exactly ACL_EVENT_SYNC; rt_param_invalid
// (flag differs from the fixed one); DEFAULT: as stream_wait_event_with_timeout with an unsigned
// timeout (UINT32_MAX: the default, no timeout); EXTERNAL: the stream's errors, then
// rt_stream_not_captured, always (no stream capture in this runtime).
Status stream_wait_event_with_flag(aclrtStream stream, aclrtEvent event, uint32_t timeout_s, uint32_t flag);
// aclrtSwitchStream / aclrtActiveStream (NULLs, falseStream, cond and dataType checked by the
// caller): the stream's errors (rt_context_null, rt_invalid_handle, rt_stream_context), the other
// stream's rt_invalid_handle, then rt_stream_model unless both streams are bound to the same model
// runtime instance that is being built (and `stream` not ended). Records a control task into it:
// when an execution reaches it, it starts the other stream's tasks (a switch: if
// *left `cond` *right, read as `type` then, and the rest of `stream` is skipped).
Status switch_stream(const void* left, uint32_t cond, const void* right, uint32_t type, aclrtStream true_stream,
                     aclrtStream stream);
Status active_stream(aclrtStream active_stream, aclrtStream stream);
// aclrtQueryEventWaitStatus (Ex events are rt_param_invalid): NOT_READY while waits are pending.
Status query_event_wait(aclrtEvent event, aclrtEventWaitStatus* status);
// aclrtEventElapsedTime: milliseconds between the completions of two recorded events of one device.
// rt_param_invalid across devices; rt_event_timestamp_invalid (no ACL_EVENT_TIME_LINE, never
// recorded), rt_event_not_complete, rt_event_timestamp_reversal.
Status event_elapsed_ms(aclrtEvent start, aclrtEvent end, float* ms);
// aclrtEventGetTimestamp: device time of the latest record's completion in microseconds; the same
// errors as event_elapsed_ms.
Status event_timestamp_us(aclrtEvent event, uint64_t* us);

}  // namespace arun::rt
