// IPC events inside the core's front door (design: runtime/ipc_event.hpp). front/events.cpp calls
// these where an event of ACL_EVENT_IPC, or one opened from another process, behaves differently.
#pragma once

#include <cstdint>
#include <memory>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "runtime/event.hpp"

namespace arun {
class Runtime;
}

namespace arun::rt::detail {

// aclrtCreateEventExWithFlag(ACL_EVENT_IPC): gives the new event its shared page.
Status ipc_event_created(Runtime* rt, aclrtEvent handle);
// Before the local record of an IPC event on `stream` (`before`): refuses an imported event and a
// capturing stream (107000). Runtime::record_event numbers an exported event's record and its task
// publishes the completion; nothing is left to do after it.
Status ipc_record(const std::shared_ptr<Event>& e, aclrtStream stream, bool before);
// A stream wait on an imported event: a TaskKind::IpcWait marker (no execution unit); timeout_ns
// < 0: none.
Status ipc_stream_wait(const std::shared_ptr<Event>& e, aclrtStream stream, int64_t timeout_ns);
// A host wait on an imported event; timeout_ms < 0: none.
Status ipc_synchronize(const Event& e, int32_t timeout_ms);
// aclrtDestroyEvent of an exported event: withdraws the export and tells importers.
void ipc_event_destroyed(Event& e);

// Whether `e` was opened from another process's handle.
bool ipc_imported(const Event& e);

}  // namespace arun::rt::detail
