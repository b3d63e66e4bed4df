// SchedulerPolicy: decides which ready task a free execution unit runs next.
// The scheduler keeps order within each stream and resolves event dependencies itself; a policy
// only ever sees stream heads that are ready to run (at most one task per stream at a time) and
// is called with the scheduler mutex held, so it needs no locking of its own. Nothing is
// preempted: once picked, a task runs to completion.
#pragma once

#include <string>

#include "arun/plugin/device.hpp"

namespace arun {

class Stream;
struct Task;

class SchedulerPolicy {
 public:
  virtual ~SchedulerPolicy() = default;
  virtual const char* name() const = 0;

  virtual void stream_added(Stream& stream) {}
  virtual void stream_removed(Stream& stream) {}

  // `task` is the head of its stream and may run now.
  virtual void ready(Task* task) = 0;
  // The next task for a free unit of `kind`, removed from the policy, or nullptr if none.
  virtual Task* pick(plugin::UnitKind kind) = 0;
  // Removes the ready task of `stream`, if the policy holds one (stream destroyed or aborted).
  virtual bool discard(Stream& stream) = 0;

  virtual void started(Task& task) {}
  virtual void finished(Task& task, uint64_t run_ns) {}
};

}  // namespace arun
