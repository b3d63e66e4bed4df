// The round_robin policy.
#pragma once

#include "sched/rotating_policy.hpp"

namespace arun {

// One task per stream in turn, ignoring priority.
class RoundRobinPolicy final : public RotatingPolicy {
 public:
  const char* name() const override { return "round_robin"; }
  Task* pick(plugin::UnitKind kind) override;
};

}  // namespace arun
