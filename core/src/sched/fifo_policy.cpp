#include "sched/fifo_policy.hpp"

#include <algorithm>

#include "runtime/task.hpp"

namespace arun {

void FifoPolicy::ready(Task* task) {
  ready_[static_cast<uint32_t>(task->unit_kind)].push_back(task);
}

Task* FifoPolicy::pick(plugin::UnitKind kind) {
  auto& queue = ready_[static_cast<uint32_t>(kind)];
  if (queue.empty()) return nullptr;
  Task* task = queue.front();
  queue.pop_front();
  return task;
}

bool FifoPolicy::discard(Stream& stream) {
  for (auto& queue : ready_) {
    auto it = std::find_if(queue.begin(), queue.end(), [&](Task* t) { return t->stream == &stream; });
    if (it != queue.end()) {
      queue.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace arun
