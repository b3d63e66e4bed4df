#include "runtime/process_hooks.hpp"

#include <algorithm>

#include "arun/runtime/hooks.hpp"
#include "base/logging.hpp"
#include "runtime/runtime.hpp"
#include "sched/scheduler.hpp"

namespace arun {

ProcessHooks& ProcessHooks::instance() {
  // Never destroyed: device threads may report a failure while the process exits.
  static ProcessHooks* hooks = new ProcessHooks();
  return *hooks;
}

void ProcessHooks::install_failure_listener() {
  Scheduler::set_failure_listener(&ProcessHooks::on_task_failure);
}

Status ProcessHooks::register_stream_state(const std::string& name, aclrtStreamStateCallback callback, void* args) {
  std::lock_guard lock(mu_);
  if (callback == nullptr) {
    stream_state_.erase(name);
    return Status::Ok();
  }
  if (!stream_state_.emplace(name, StreamStateHook{callback, args}).second) {
    return Status(Errc::rt_param_invalid, "a stream state callback named \"" + name + "\" is already registered");
  }
  return Status::Ok();
}

void ProcessHooks::notify_stream_state(aclrtStream stream, aclrtStreamState state) const {
  std::map<std::string, StreamStateHook> hooks;
  {
    std::lock_guard lock(mu_);
    if (stream_state_.empty()) return;
    hooks = stream_state_;
  }
  for (auto& [name, hook] : hooks) hook.callback(stream, state, hook.args);
}

void ProcessHooks::set_legacy_exception_callback(aclrtExceptionInfoCallback callback) {
  std::lock_guard lock(mu_);
  legacy_exception_ = callback;
}

Status ProcessHooks::add_exception_callback(aclrtExceptionInfoCallback callback) {
  std::lock_guard lock(mu_);
  // Callbacks are identified by their pointer: a second registration keeps the first one.
  if (std::find(exception_callbacks_.begin(), exception_callbacks_.end(), callback) == exception_callbacks_.end()) {
    exception_callbacks_.push_back(callback);
  }
  return Status::Ok();
}

Status ProcessHooks::remove_exception_callback(aclrtExceptionInfoCallback callback) {
  std::lock_guard lock(mu_);
  auto it = std::find(exception_callbacks_.begin(), exception_callbacks_.end(), callback);
  if (it != exception_callbacks_.end()) exception_callbacks_.erase(it);  // not registered: nothing to do
  return Status::Ok();
}

void ProcessHooks::set_binary_exception_callback(const void* binary, aclrtOpExceptionCallback callback, void* user) {
  std::lock_guard lock(mu_);
  binary_exception_[binary] = BinaryHook{callback, user};
}

void ProcessHooks::drop_binary_exception_callback(const void* binary) {
  std::lock_guard lock(mu_);
  binary_exception_.erase(binary);
}

void ProcessHooks::on_task_failure(const TaskFailure& f) {
  log().debug("task {} on stream {} of device {} (submitted by thread {}) failed with error {}", f.task_id, f.stream_id,
              f.device_id, f.thread_id, f.code);
  // The runtime outlives its devices' completions (aclFinalize drains them before deleting it).
  if (Runtime* rt = Runtime::instance()) rt->failures().record(f);
  auto& self = instance();
  aclrtExceptionInfoCallback legacy;
  std::vector<aclrtExceptionInfoCallback> hooks;
  BinaryHook binary_hook{};
  {
    std::lock_guard lock(self.mu_);
    legacy = self.legacy_exception_;
    hooks = self.exception_callbacks_;
    if (f.binary != nullptr) {
      auto it = self.binary_exception_.find(f.binary);
      if (it != self.binary_exception_.end()) binary_hook = it->second;
    }
  }
  rtExceptionInfo info{f.task_id,
                       static_cast<uint32_t>(f.stream_id),
                       f.thread_id,
                       static_cast<uint32_t>(f.device_id),
                       static_cast<uint32_t>(f.code),
                       f.kernel ? 1u : 0u,
                       f.args,
                       f.args_bytes};
  if (legacy != nullptr) legacy(&info);
  for (auto hook : hooks) hook(&info);
  // The binary's own hook runs after the process-wide ones (spec part 2, 4.7).
  if (binary_hook.callback != nullptr) binary_hook.callback(&info, binary_hook.user);
}

}  // namespace arun
