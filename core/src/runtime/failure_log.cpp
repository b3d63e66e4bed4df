#include "runtime/failure_log.hpp"

#include "runtime/process_hooks.hpp"

namespace arun {

FailureLog::FailureLog() {
  ProcessHooks::install_failure_listener();
}

void FailureLog::record(const TaskFailure& failure) {
  std::lock_guard lock(mu_);
  last_[failure.device_id] = failure;
}

bool FailureLog::last(int32_t device_id, TaskFailure* out) const {
  std::lock_guard lock(mu_);
  auto it = last_.find(device_id);
  if (it == last_.end()) return false;
  *out = it->second;
  return true;
}

}  // namespace arun
