// The built-in scheduling policies other than fifo (fifo_policy.hpp). Each is described, with
// when to pick it, in DEVELOPERS.md ("Scheduling policies"). All of them treat compute and copy
// units separately: a copy never waits behind a kernel for a unit, whatever the priorities.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

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

// Base of the policies that rotate over streams: streams keep the order in which they joined
// the device; each kind keeps its ready heads keyed by that order.
class RotatingPolicy : public SchedulerPolicy {
 public:
  void stream_added(Stream& stream) override;
  void stream_removed(Stream& stream) override;
  void ready(Task* task) override;
  bool discard(Stream& stream) override;

 protected:
  uint64_t order_of(Stream* stream);
  std::unordered_map<Stream*, uint64_t> order_;
  uint64_t next_order_ = 1;
  std::map<uint64_t, Task*> ready_[plugin::kUnitKindCount];
  uint64_t cursor_[plugin::kUnitKindCount] = {};  // order of the stream picked last
  // The ready task of the first stream after the cursor (wrapping), or end().
  std::map<uint64_t, Task*>::iterator next_after_cursor(uint32_t kind);
};

// One task per stream in turn, ignoring priority.
class RoundRobinPolicy final : public RotatingPolicy {
 public:
  const char* name() const override { return "round_robin"; }
  Task* pick(plugin::UnitKind kind) override;
};

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
