// The stream-order sanitizer (issue 25): finds two accesses to the same memory, at least one a
// write, that nothing orders. Happens-before is kept with vector clocks, one component per stream
// and per host thread, as ThreadSanitizer does for threads:
//   - a stream's tasks are ordered by the stream; a task's clock is fixed when it reaches the head of
//     its stream (every task it depends on has completed by then), joined with the clock of the
//     host thread that submitted it, snapshotted at submission;
//   - an event record keeps its stream's clock, a wait joins it (notifies and value writes alike);
//   - aclrtSynchronizeStream / Device / Event and a query that says "complete" join the stream's
//     (device's, record's) clock into the calling thread's (each host thread has its own clock;
//     host_state in the .cpp states how threads are assumed to order each other);
//   - arunSyncRelease / arunSyncAcquire: ordering through device-side flags (HCCL's sync points);
//   - a host call runs with its task's clock.
// Accesses are recorded per address space (a device's memory, or host memory) in an interval
// list; each new access is compared with the recorded ones it overlaps. Since a task becomes ready
// only after everything ordered before it has completed, a new access is never ordered *before* a
// recorded one, so "recorded happens-before new" is the only test. Everything here is off unless
// on() (one relaxed load); all state is behind one mutex, taken after a scheduler mutex, never
// before one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "arun/runtime/stream_sanitizer.hpp"

namespace arun {
struct Task;
class Stream;
struct EventRecord;
}  // namespace arun

namespace arun::san {

enum class Mode : uint8_t { Off = 0, Report = 1, Abort = 2 };

// Parses "off" / "report" / "abort"; false for anything else.
bool parse_mode(const std::string& text, Mode* out);
const char* mode_name(Mode mode);

inline bool on() {
  return rt::stream_sanitizer_on();
}

// Runtime lifetime: aclInit turns the mode on (fresh state), aclFinalize off (logs the summary).
void enable(Mode mode);
void disable();

struct TaskState;  // what the sanitizer keeps on a Task (Task::san)
struct Clock;      // a vector clock (EventRecord::san_clock)

// ---- scheduler hooks (called only when the task has Task::san, or on())
// A kernel launch's name (an operator's type), before it is submitted.
void name_task(Task* task, const char* op_name);
void on_submit(Task* task);          // Scheduler::prepare: submitting thread's clock, call site, pinned pages
void on_ready(Task* task);           // a work task / host call reached the head of its stream
void on_retire(Task* task);          // a marker (event, notify, value) retired from its stream
void on_dispatch(Task* task);        // handed to a device unit (pinned pages the device writes open)
void on_complete(Task* task);        // completed (before it is published): pinned pages released
void task_destroyed(TaskState* st);  // ~Task

// ---- accesses
// A kernel block of `task` mapped [addr, addr + bytes) of `space` (a plugin::Device*, nullptr = host).
// `mapped`: the device granted the view (false: it faults the launch; only the free check runs).
void kernel_access(Task* task, const void* space, uint64_t addr, uint64_t bytes, bool write, bool mapped);
// The calling host thread (or the host call it runs) accessed a range synchronously: aclrtMemcpy,
// aclrtMemset. `what` names the call.
struct HostRange {
  const void* space = nullptr;
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool write = false;
};
void host_access(const char* what, const HostRange* ranges, int count);
// Frees: aclrtFree / aclrtFreeHost (no stream: every unordered access is "free while in use"),
// arunFreeAsync(ptr, stream): accesses of `stream` and of the streams recorded for the block are
// ordered by the allocator; others stay recorded, and a later access that races with one of them is
// "reuse through the allocator's cache".
void freed(const char* what, const void* space, uint64_t addr, uint64_t bytes, const Stream* stream);
void record_stream(const void* space, uint64_t addr, const Stream* stream);

// ---- ordering through memory the runtime cannot see (arunSyncRelease / arunSyncAcquire)
// `task`: the running kernel's (its stream publishes / is ordered), nullptr: the calling thread.
// Release joins the publisher's clock into what (object, value) holds; acquire joins everything
// published under `object` with a value <= `value` and consumes it (one acquirer per object).
void sync_release(Task* task, const void* object, uint64_t value);
void sync_acquire(Task* task, const void* object, uint64_t value);

// ---- host synchronisation (after the wait succeeded)
void synced_stream(const Stream& stream);
void synced_device(int32_t device_id);
void synced_record(const EventRecord& record);

// A host call's thread runs with its task's clock while the call runs.
class HostCallScope {
 public:
  explicit HostCallScope(const std::shared_ptr<TaskState>& st);
  ~HostCallScope();
  HostCallScope(const HostCallScope&) = delete;
  HostCallScope& operator=(const HostCallScope&) = delete;

 private:
  TaskState* saved_;
};

// A runtime call that touches pinned memory itself (a synchronous copy): a fault inside it is that
// call's, already checked through host_access.
class RuntimeAccessScope {
 public:
  RuntimeAccessScope();
  ~RuntimeAccessScope();
  RuntimeAccessScope(const RuntimeAccessScope&) = delete;
  RuntimeAccessScope& operator=(const RuntimeAccessScope&) = delete;
};

// Pinned memory sizes are rounded to whole pages while the sanitizer is on, so its pages can be
// protected without touching neighbouring heap data.
uint64_t pinned_size(uint64_t bytes);

}  // namespace arun::san
