// PluginPolicy: runs a scheduler plugin's SchedulingPolicy behind the core's SchedulerPolicy.
#pragma once

#include <memory>
#include <string>

#include "arun/plugin/scheduler.hpp"
#include "sched/scheduler_policy.hpp"

namespace arun {

class PluginPolicy final : public SchedulerPolicy {
 public:
  // `owner` keeps the plugin (and its library) loaded while the policy exists.
  PluginPolicy(std::string name, std::shared_ptr<plugin::SchedulerPlugin> owner,
               std::unique_ptr<plugin::SchedulingPolicy> policy)
      : name_(std::move(name)), owner_(std::move(owner)), policy_(std::move(policy)) {}
  ~PluginPolicy() override { policy_.reset(); }  // before the library may go

  const char* name() const override { return name_.c_str(); }
  void stream_added(Stream& stream) override;
  void stream_removed(Stream& stream) override;
  void ready(Task* task) override;
  Task* pick(plugin::UnitKind kind) override;
  bool discard(Stream& stream) override;
  void started(Task& task) override;
  void finished(Task& task, uint64_t run_ns) override;

 private:
  static plugin::ReadyTask view(Task& task);
  std::string name_;
  std::shared_ptr<plugin::SchedulerPlugin> owner_;
  std::unique_ptr<plugin::SchedulingPolicy> policy_;
};

}  // namespace arun
