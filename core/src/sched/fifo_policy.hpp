// FifoPolicy: the oldest ready task first, across all streams, ignoring priority.
#pragma once

#include <deque>

#include "sched/scheduler_policy.hpp"

namespace arun {

class FifoPolicy final : public SchedulerPolicy {
 public:
  const char* name() const override { return "fifo"; }
  void ready(Task* task) override;
  Task* pick(plugin::UnitKind kind) override;
  bool discard(Stream& stream) override;

 private:
  std::deque<Task*> ready_[plugin::kUnitKindCount];
};

}  // namespace arun
