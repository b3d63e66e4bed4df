#include "sched/priority_policy.hpp"

#include <algorithm>

#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun {

namespace {
uint32_t level_of(const Task* t) {
  return std::min(t->stream->priority(), kPriorityLevels - 1);
}
}  // namespace

void PriorityPolicy::ready(Task* task) {
  // The clock is read only when aging is on: it is the one per-task cost aging adds.
  task->ready_ns = aging_ns_ != 0 ? now_ns() : 0;
  Levels& k = kinds_[kind_index(task->unit_kind)];
  uint32_t level = level_of(task);
  k.queue[level].push_back(task);
  k.nonempty |= 1u << level;
}

Task* PriorityPolicy::pick(plugin::UnitKind kind) {
  Levels& k = kinds_[static_cast<uint32_t>(kind)];
  if (k.nonempty == 0) return nullptr;
  auto level = static_cast<uint32_t>(__builtin_ctz(k.nonempty));
  if (aging_ns_ != 0 && (k.nonempty & ~(1u << level)) != 0) {
    // Each level is FIFO, so its front is its oldest task; the oldest front overall is the one
    // that has waited longest. If it is overdue it goes first, whatever its level.
    uint32_t oldest = level;
    for (uint32_t bits = k.nonempty; bits != 0; bits &= bits - 1) {
      auto l = static_cast<uint32_t>(__builtin_ctz(bits));
      if (k.queue[l].front()->ready_ns < k.queue[oldest].front()->ready_ns) oldest = l;
    }
    if (oldest != level && now_ns() - k.queue[oldest].front()->ready_ns >= aging_ns_) level = oldest;
  }
  auto& q = k.queue[level];
  Task* task = q.front();
  q.pop_front();
  if (q.empty()) k.nonempty &= ~(1u << level);
  return task;
}

bool PriorityPolicy::discard(Stream& stream) {
  for (auto& k : kinds_) {
    for (uint32_t l = 0; l < kPriorityLevels; ++l) {
      auto& q = k.queue[l];
      auto it = std::find_if(q.begin(), q.end(), [&](Task* t) { return t->stream == &stream; });
      if (it == q.end()) continue;
      q.erase(it);
      if (q.empty()) k.nonempty &= ~(1u << l);
      return true;
    }
  }
  return false;
}

}  // namespace arun
