// Front door: observing the device tasks a piece of host code submits (see front_door.hpp for the
// conventions). The model executor uses it for aclprofModelSubscribe: every task a node's operator
// submits (kernels, copies, fills) reports to the subscription's observer under the node's cookie,
// whatever op library code submitted it.
//
// This is the one launch attribute that travels in a thread-local, on purpose: an operator may
// submit through several front-door calls (launch_kernel, memcpy_async, memset_async), and the
// observer must see all of them without each call growing a parameter.
#pragma once

#include <cstdint>
#include <memory>

namespace arun::rt {

class TaskObserver : public std::enable_shared_from_this<TaskObserver> {
 public:
  virtual ~TaskObserver() = default;
  // A task carrying `cookie` was accepted by its stream (called on the submitting thread).
  virtual void task_submitted(uint64_t cookie) = 0;
  // That task is over: it ran (`ran`, device times converted to the steady clock, ns, on the
  // completing thread, before the completion is published) or was dropped unrun (times 0). Called
  // exactly once per task_submitted, with no runtime lock held; must not block.
  virtual void task_finished(uint64_t cookie, bool ran, uint64_t start_ns, uint64_t end_ns) = 0;
};

// While it lives, every task the constructing thread submits carries (observer, cookie). Scopes
// nest; `observer` nullptr observes nothing.
class TaskObserverScope {
 public:
  TaskObserverScope(TaskObserver* observer, uint64_t cookie);
  ~TaskObserverScope();
  TaskObserverScope(const TaskObserverScope&) = delete;
  TaskObserverScope& operator=(const TaskObserverScope&) = delete;

 private:
  TaskObserver* saved_observer_;
  uint64_t saved_cookie_;
};

// The calling thread's current observer (nullptr: none) and its cookie.
TaskObserver* current_task_observer(uint64_t* cookie);

}  // namespace arun::rt
