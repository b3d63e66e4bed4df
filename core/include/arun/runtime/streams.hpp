// Front door: streams and events (see front_door.hpp for the conventions).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// ---- contract used by model/ (the executor); the streams helper implements these and adds the rest
// A stream of the current context; `priority` already clamped by the caller (0..7).
Status create_stream(uint32_t priority, uint32_t flags, aclrtStream* out);
Status destroy_stream(aclrtStream stream, bool force);
// Waits for everything queued on `stream` (nullptr: the current context's default stream).
Status synchronize_stream(aclrtStream stream, int32_t timeout_ms);
// An event as aclrtCreateEventWithFlag makes it (`flags`: ACL_EVENT_*).
Status create_event(uint32_t flags, aclrtEvent* out);
Status destroy_event(aclrtEvent event);
Status record_event(aclrtEvent event, aclrtStream stream);
Status stream_wait_event(aclrtStream stream, aclrtEvent event);
Status synchronize_event(aclrtEvent event, int32_t timeout_ms);

}  // namespace arun::rt
