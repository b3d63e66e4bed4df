// The front door's entry bookkeeping: whether a runtime is live, and each thread's last error and
// pending messages (aclrtGetLastError, aclGetRecentErrMsg), recorded when an API call fails.
#pragma once

#include <atomic>
#include <string>

#include "acl/acl_base.h"
#include "arun/core/status.hpp"
#include "arun/plugin/plugin_descriptor.hpp"

namespace arun {
class Runtime;  // core-private: the front door only tells whether one is live

namespace rt {
namespace detail {
// The live runtime (nullptr before aclInit and after aclFinalize); Runtime::instance() reads it.
// Here, not behind a call, because every API call asks first.
extern std::atomic<Runtime*> g_runtime;
}  // namespace detail

// True between a successful aclInit and the matching aclFinalize.
inline bool initialized() {
  return detail::g_runtime.load(std::memory_order_acquire) != nullptr;
}

// Records a failure of the API function `function` as the calling thread's last error and as a
// pending message (logged at info level); returns its code.
aclError record_failure(const char* function, const Status& status);
// The thread's last error; `clear` resets it to ACL_SUCCESS (aclrtGetLastError vs PeekAtLastError).
aclError last_error(bool clear);
// Pending messages of the thread, newest first, joined by '\n'; reading consumes them (nullptr when
// none). The pointer stays valid until the thread's next call of this function.
const char* take_recent_messages();

// Writes a line to the runtime's log (spdlog; ASCEND_GLOBAL_LOG_LEVEL / [runtime] log_level).
void log(plugin::LogLevel level, const std::string& message);
bool log_enabled(plugin::LogLevel level);

}  // namespace rt
}  // namespace arun
