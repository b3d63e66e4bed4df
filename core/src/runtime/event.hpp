// Event and EventRecord. Each aclrtRecordEvent creates a new EventRecord (the capture of the
// stream's position); waits capture the record current at the time they are enqueued, so
// re-recording an event never changes what an earlier wait waits for.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace arun {

namespace san {
struct Clock;
}

class Context;
class IpcEventShare;
class Stream;

struct EventRecord {
  // All fields are guarded by the scheduler mutex of the event's device, except `done`, which host
  // threads poll without it.
  std::atomic<bool> done{false};
  std::atomic<bool> watched{false};  // a host thread waits for it: its completion must wake them
  uint64_t device_ns = 0;            // device clock when the captured work had completed
  uint64_t prof_id = 0;              // profiling: links the record to its waits (0: not profiled)
  std::vector<Stream*> blocked;      // streams whose head waits for this record
  // Stream sanitizer: the recording stream's vector clock (guarded by the sanitizer's mutex).
  std::shared_ptr<const san::Clock> san_clock;
};

class Event {
 public:
  // Internal flag bits, above the ACL_EVENT_* bits.
  static constexpr uint32_t kCreatedPlain = 0x80000000u;  // aclrtCreateEvent: waitable, timed, not resettable
  static constexpr uint32_t kCreatedEx = 0x40000000u;     // aclrtCreateEventExWithFlag

  Event(Context* context, uint32_t flags) : context_(context), flags_(flags) {}
  Context* context() const { return context_; }
  uint32_t flags() const { return flags_; }
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }

  // Guarded by the device's scheduler mutex.
  std::shared_ptr<EventRecord> latest;  // null: never recorded (or reset): queries report complete
  uint32_t pending_waits = 0;           // enqueued wait tasks not yet satisfied
  // The record flag (ACL_EVENT_RECORD_*) the first aclrtRecordEventWithFlag fixed; -1: none yet.
  std::atomic<int32_t> record_flag{-1};
  // The same for the wait flag (ACL_EVENT_WAIT_*) of aclrtStreamWaitEventWithFlag.
  std::atomic<int32_t> wait_flag{-1};
  // IPC events (runtime/ipc_event.hpp): the shared page of an ACL_EVENT_IPC event, or of an event
  // opened from another process's handle (ipc->imported()). Set before the handle is handed out.
  std::shared_ptr<IpcEventShare> ipc;

 private:
  Context* context_;
  uint32_t flags_;
  void* handle_ = nullptr;
};

}  // namespace arun
