// The base of the policies that take streams in turn (round_robin, wrr).
#pragma once

#include <map>
#include <unordered_map>

#include "sched/scheduler_policy.hpp"

namespace arun {

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

}  // namespace arun
