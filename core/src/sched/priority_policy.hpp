// The priority policy (the default): strict levels, FIFO within a level, optional aging.
#pragma once

#include <array>
#include <deque>

#include "sched/scheduler_policy.hpp"

namespace arun {

// Strict priority levels 0 (most urgent) .. 7, FIFO within a level. With aging_ns > 0, a task
// that has been ready for aging_ns or longer goes before every task that has not, oldest first:
// that bounds how long a low-priority task waits behind a stream of urgent ones.
class PriorityPolicy final : public SchedulerPolicy {
 public:
  explicit PriorityPolicy(uint64_t aging_ns = 0) : aging_ns_(aging_ns) {}
  const char* name() const override { return "priority"; }
  void ready(Task* task) override;
  Task* pick(plugin::UnitKind kind) override;
  bool discard(Stream& stream) override;

 private:
  struct Levels {
    std::array<std::deque<Task*>, kPriorityLevels> queue;
    uint32_t nonempty = 0;  // bit L set: queue[L] holds a task
  };
  uint64_t aging_ns_;
  Levels kinds_[plugin::kUnitKindCount];
};

}  // namespace arun
