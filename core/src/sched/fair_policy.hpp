// The fair policy (CFS-like virtual run time per stream).
#pragma once

#include <unordered_map>
#include <vector>

#include "sched/scheduler_policy.hpp"

namespace arun {

// Completely fair: each stream accumulates virtual run time, its measured task time divided by a
// weight that grows 1.25x per priority level (level 7 = 1024, as CFS's nice 0). The ready task of
// the stream with the least virtual time runs next. A stream that wakes up or joins starts no
// lower than the least virtual time of the device, so idling earns no credit.
class FairPolicy final : public SchedulerPolicy {
 public:
  const char* name() const override { return "fair"; }
  void stream_added(Stream& stream) override;
  void stream_removed(Stream& stream) override;
  void ready(Task* task) override;
  Task* pick(plugin::UnitKind kind) override;
  bool discard(Stream& stream) override;
  void finished(Task& task, uint64_t run_ns) override;

  static uint32_t weight_of(uint32_t priority);
  uint64_t vruntime(Stream& stream) const;  // for tests

 private:
  struct State {
    uint64_t vruntime = 0;
    uint32_t weight = 1024;
  };
  State& state(Stream* stream);
  std::unordered_map<Stream*, State> streams_;
  uint64_t min_vruntime_ = 0;  // never decreases
  std::vector<Task*> ready_[plugin::kUnitKindCount];
  uint64_t ready_seq_ = 0;
};

}  // namespace arun
