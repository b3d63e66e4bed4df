// Scheduler::Batch: what a critical section of the scheduler collects for after it (private to
// core/src/sched: scheduler.cpp and device_waits.cpp).
#pragma once

#include <memory>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "sched/scheduler.hpp"

namespace arun {

// Work collected inside the critical section and carried out after it.
struct Scheduler::Batch {
  struct Launch {
    plugin::UnitKind kind;
    uint32_t unit;
    Task* task;
  };
  boost::container::small_vector<Launch, 4> launches;
  boost::container::small_vector<Task*, 4> retired;
  boost::container::small_vector<Stream*, 4> resumed;
  std::shared_ptr<Stream> dropped;  // a detached stream whose last task completed
  // Replayed node tasks dropped unrun that an observer still expects to hear of: (observer,
  // cookie, how many), told after the lock (TaskObserver::task_finished must not run under it).
  struct Unobserved {
    std::shared_ptr<rt::TaskObserver> observer;
    uint64_t cookie;
    uint32_t count;
  };
  std::vector<Unobserved> unobserved;
  // Instances whose recycled marker held a reference: released after the lock (it may be the last).
  boost::container::small_vector<std::shared_ptr<Replay>, 1> released;
  bool progressed = false;
  bool room = false;  // a stream with blocked submitters got room (or stopped accepting)
};

}  // namespace arun
