#include "sched/policies.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun {

namespace {
uint32_t kind_index(const Task* t) {
  return static_cast<uint32_t>(t->unit_kind);
}
uint32_t level_of(const Task* t) {
  return std::min(t->stream->priority(), kPriorityLevels - 1);
}
}  // namespace

// ---- priority ----

void PriorityPolicy::ready(Task* task) {
  // The clock is read only when aging is on: it is the one per-task cost aging adds.
  task->ready_ns = aging_ns_ != 0 ? now_ns() : 0;
  Levels& k = kinds_[kind_index(task)];
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

// ---- round_robin / wrr ----

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
  ready_[kind_index(task)].emplace(order_of(task->stream), task);
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

Task* RoundRobinPolicy::pick(plugin::UnitKind kind) {
  auto k = static_cast<uint32_t>(kind);
  if (ready_[k].empty()) return nullptr;
  auto it = next_after_cursor(k);
  cursor_[k] = it->first;
  Task* task = it->second;
  ready_[k].erase(it);
  return task;
}

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

// ---- fair ----

uint32_t FairPolicy::weight_of(uint32_t priority) {
  static const auto table = [] {
    std::array<uint32_t, kPriorityLevels> w{};
    for (uint32_t p = 0; p < kPriorityLevels; ++p)
      w[p] = static_cast<uint32_t>(std::lround(1024 * std::pow(1.25, 7 - p)));
    return w;
  }();
  return table[std::min(priority, kPriorityLevels - 1)];
}

FairPolicy::State& FairPolicy::state(Stream* stream) {
  auto [it, inserted] = streams_.try_emplace(stream);
  if (inserted) {
    it->second.weight = weight_of(stream->priority());
    it->second.vruntime = min_vruntime_;
  }
  return it->second;
}

void FairPolicy::stream_added(Stream& stream) {
  state(&stream);
}

void FairPolicy::stream_removed(Stream& stream) {
  streams_.erase(&stream);
}

uint64_t FairPolicy::vruntime(Stream& stream) const {
  auto it = streams_.find(&stream);
  return it == streams_.end() ? 0 : it->second.vruntime;
}

void FairPolicy::ready(Task* task) {
  State& s = state(task->stream);
  s.vruntime = std::max(s.vruntime, min_vruntime_);
  task->ready_seq = ++ready_seq_;
  ready_[kind_index(task)].push_back(task);
}

Task* FairPolicy::pick(plugin::UnitKind kind) {
  auto& r = ready_[static_cast<uint32_t>(kind)];
  if (r.empty()) return nullptr;
  // Linear in the ready streams: a stream contributes at most one entry, and keeping an ordered
  // index would cost more than the scan for the stream counts a device has.
  size_t best = 0;
  uint64_t best_vr = state(r[0]->stream).vruntime;
  for (size_t i = 1; i < r.size(); ++i) {
    uint64_t vr = state(r[i]->stream).vruntime;
    if (vr < best_vr || (vr == best_vr && r[i]->ready_seq < r[best]->ready_seq)) {
      best = i;
      best_vr = vr;
    }
  }
  Task* task = r[best];
  r[best] = r.back();
  r.pop_back();
  min_vruntime_ = std::max(min_vruntime_, best_vr);
  return task;
}

bool FairPolicy::discard(Stream& stream) {
  for (auto& r : ready_) {
    auto it = std::find_if(r.begin(), r.end(), [&](Task* t) { return t->stream == &stream; });
    if (it == r.end()) continue;
    *it = r.back();
    r.pop_back();
    return true;
  }
  return false;
}

void FairPolicy::finished(Task& task, uint64_t run_ns) {
  auto it = streams_.find(task.stream);
  if (it == streams_.end()) return;  // removed while its last task ran
  // Fixed point (2^10 per ns at weight 1024) keeps sub-ns-per-weight charges from rounding to 0.
  it->second.vruntime += std::max<uint64_t>(run_ns, 1) * (1024ull << 10) / it->second.weight;
}

}  // namespace arun
