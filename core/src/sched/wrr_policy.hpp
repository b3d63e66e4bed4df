// The wrr (weighted round robin) policy.
#pragma once

#include <array>

#include "sched/rotating_policy.hpp"

namespace arun {

// Weighted round robin: in its turn a stream runs up to `weight` tasks back to back (as long as
// it has one ready when a unit frees) before the turn passes on. The weight comes from the
// stream's priority level through `weights` (one entry per level 0..7).
class WrrPolicy final : public RotatingPolicy {
 public:
  explicit WrrPolicy(std::array<uint32_t, kPriorityLevels> weights) : weights_(weights) {}
  const char* name() const override { return "wrr"; }
  Task* pick(plugin::UnitKind kind) override;
  static std::array<uint32_t, kPriorityLevels> default_weights() { return {8, 7, 6, 5, 4, 3, 2, 1}; }

 private:
  std::array<uint32_t, kPriorityLevels> weights_;
  uint32_t credits_[plugin::kUnitKindCount] = {};  // tasks the cursor's stream may still run in its turn
};

}  // namespace arun
