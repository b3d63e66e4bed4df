// Front door: each thread's last error and pending messages, and the runtime's log for the layers
// above the core.
#include <deque>
#include <string>

#include "arun/runtime/call.hpp"
#include "base/logging.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {
namespace {

struct ThreadErrors {
  aclError last = ACL_SUCCESS;
  std::deque<std::string> pending;  // oldest first
  std::string returned;             // storage behind the pointer take_recent_messages returned
};

ThreadErrors& errors() {
  thread_local ThreadErrors e;
  return e;
}

// aclGetRecentErrMsg reports the recent failures; older ones are dropped beyond this many.
constexpr size_t kMaxPendingMessages = 32;

}  // namespace

aclError record_failure(const char* function, const Status& status) {
  auto& e = errors();
  e.last = status.value();
  std::string message = std::string(function) + ": " + status.message() + " [" + std::to_string(status.value()) + "]";
  arun::log().info("{}", message);
  e.pending.push_back(std::move(message));
  if (e.pending.size() > kMaxPendingMessages) e.pending.pop_front();
  return status.value();
}

aclError last_error(bool clear) {
  auto& e = errors();
  aclError code = e.last;
  if (clear) e.last = ACL_SUCCESS;
  return code;
}

const char* take_recent_messages() {
  auto& e = errors();
  if (e.pending.empty()) return nullptr;
  e.returned.clear();
  for (auto it = e.pending.rbegin(); it != e.pending.rend(); ++it) {
    if (!e.returned.empty()) e.returned += '\n';
    e.returned += *it;
  }
  e.pending.clear();
  return e.returned.c_str();
}

void log(plugin::LogLevel level, const std::string& message) {
  arun::log().log(to_spdlog(level), "{}", message);
}

bool log_enabled(plugin::LogLevel level) {
  return arun::log().should_log(to_spdlog(level));
}

}  // namespace arun::rt
