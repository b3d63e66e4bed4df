// FailureLog: the latest task failure of each device (aclrtGetErrorVerbose). Owned by Runtime, so
// aclFinalize forgets it; ProcessHooks' failure listener fills it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "sched/scheduler.hpp"

namespace arun {

class FailureLog {
 public:
  // Installs the core's failure listener (ProcessHooks) before any device of the runtime runs.
  FailureLog();

  void record(const TaskFailure& failure);
  // The latest failure of device `device_id`; false if it had none.
  bool last(int32_t device_id, TaskFailure* out) const;

 private:
  mutable std::mutex mu_;
  std::map<int32_t, TaskFailure> last_;  // per device
};

}  // namespace arun
