#include "sched/round_robin_policy.hpp"

#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun {

Task* RoundRobinPolicy::pick(plugin::UnitKind kind) {
  auto k = static_cast<uint32_t>(kind);
  if (ready_[k].empty()) return nullptr;
  auto it = next_after_cursor(k);
  cursor_[k] = it->first;
  Task* task = it->second;
  ready_[k].erase(it);
  return task;
}

}  // namespace arun
