#include "sched/fair_policy.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun {

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
  ready_[kind_index(task->unit_kind)].push_back(task);
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
