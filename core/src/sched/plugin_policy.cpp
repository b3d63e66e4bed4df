#include "sched/plugin_policy.hpp"

#include "runtime/stream.hpp"
#include "runtime/task.hpp"
#include "sched/fair_policy.hpp"

namespace arun {

plugin::ReadyTask PluginPolicy::view(Task& task) {
  return {&task, task.stream->id(), task.stream->priority(), task.unit_kind, task.seq};
}

void PluginPolicy::stream_added(Stream& stream) {
  policy_->stream_added({stream.id(), stream.priority(), FairPolicy::weight_of(stream.priority())});
}

void PluginPolicy::stream_removed(Stream& stream) {
  policy_->stream_removed(stream.id());
}

void PluginPolicy::ready(Task* task) {
  policy_->ready(view(*task));
}

Task* PluginPolicy::pick(plugin::UnitKind kind) {
  plugin::ReadyTask out{};
  if (!policy_->pick(kind, &out)) return nullptr;
  return static_cast<Task*>(out.token);
}

bool PluginPolicy::discard(Stream& stream) {
  return policy_->discard(stream.id());
}

void PluginPolicy::started(Task& task) {
  policy_->started(view(task));
}

void PluginPolicy::finished(Task& task, uint64_t run_ns) {
  policy_->finished(view(task), run_ns);
}

}  // namespace arun
