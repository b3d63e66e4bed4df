// SchedulerPolicy: decides which ready task a free execution unit runs next.
// The scheduler keeps order within each stream and resolves event dependencies itself; a policy
// only ever sees stream heads that are ready to run (at most one task per stream at a time) and
// is called with the scheduler mutex held, so it needs no locking of its own. Nothing is
// preempted: once picked, a task runs to completion. Calls never block and must not fail: a policy
// that returns nullptr from pick() while it holds a ready task of that kind stalls the device.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "arun/plugin/device.hpp"

namespace arun {

class Stream;
struct Task;

// Policies keep one ready queue per unit kind, indexed by the kind's value.
inline uint32_t kind_index(plugin::UnitKind kind) {
  return static_cast<uint32_t>(kind);
}

// Stream priorities as CANN numbers them: 0 is the most urgent, 7 the least.
inline constexpr uint32_t kPriorityLevels = 8;

// Host monotonic time in ns. Policies read the clock through a pointer so that tests can drive time.
using PolicyClock = uint64_t (*)();
inline uint64_t steady_now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

class SchedulerPolicy {
 public:
  virtual ~SchedulerPolicy() = default;
  virtual const char* name() const = 0;

  // A stream joined or left the device (stream.priority() is fixed for its lifetime). A removed
  // stream may still have a running task, which is reported to finished() later.
  virtual void stream_added(Stream& stream) {}
  virtual void stream_removed(Stream& stream) {}

  // `task` is the head of its stream and may run now.
  virtual void ready(Task* task) = 0;
  // The next task for a free unit of `kind`, removed from the policy, or nullptr if none.
  virtual Task* pick(plugin::UnitKind kind) = 0;
  // Removes the ready task of `stream`, if the policy holds one (stream destroyed or aborted).
  virtual bool discard(Stream& stream) = 0;

  virtual void started(Task& task) {}
  // `run_ns`: the task's execution time as the device measured it.
  virtual void finished(Task& task, uint64_t run_ns) {}

  void set_clock(PolicyClock clock) { clock_ = clock; }

 protected:
  uint64_t now_ns() const { return clock_(); }

 private:
  PolicyClock clock_ = &steady_now_ns;
};

}  // namespace arun
