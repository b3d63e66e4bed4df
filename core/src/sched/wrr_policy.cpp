#include "sched/wrr_policy.hpp"

#include <algorithm>

#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun {

namespace {
uint32_t level_of(const Task* t) {
  return std::min(t->stream->priority(), kPriorityLevels - 1);
}
}  // namespace

Task* WrrPolicy::pick(plugin::UnitKind kind) {
  auto k = static_cast<uint32_t>(kind);
  auto& r = ready_[k];
  if (r.empty()) return nullptr;
  auto it = credits_[k] > 0 ? r.find(cursor_[k]) : r.end();
  if (it != r.end()) {
    --credits_[k];  // the turn goes on
  } else {
    it = next_after_cursor(k);  // the turn passes; unused credits are lost
    cursor_[k] = it->first;
    credits_[k] = std::max(weights_[level_of(it->second)], 1u) - 1;
  }
  Task* task = it->second;
  r.erase(it);
  return task;
}

}  // namespace arun
