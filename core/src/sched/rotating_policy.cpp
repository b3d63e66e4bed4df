#include "sched/rotating_policy.hpp"

#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun {

void RotatingPolicy::stream_added(Stream& stream) {
  order_of(&stream);
}

void RotatingPolicy::stream_removed(Stream& stream) {
  order_.erase(&stream);
}

uint64_t RotatingPolicy::order_of(Stream* stream) {
  // Streams created before the policy saw them (or re-added) get their order on first use.
  auto [it, inserted] = order_.try_emplace(stream, next_order_);
  if (inserted) ++next_order_;
  return it->second;
}

void RotatingPolicy::ready(Task* task) {
  ready_[kind_index(task->unit_kind)].emplace(order_of(task->stream), task);
}

bool RotatingPolicy::discard(Stream& stream) {
  auto found = order_.find(&stream);
  if (found == order_.end()) return false;
  for (auto& r : ready_) {
    if (r.erase(found->second) != 0) return true;
  }
  return false;
}

std::map<uint64_t, Task*>::iterator RotatingPolicy::next_after_cursor(uint32_t kind) {
  auto& r = ready_[kind];
  auto it = r.upper_bound(cursor_[kind]);
  return it != r.end() ? it : r.begin();
}

}  // namespace arun
