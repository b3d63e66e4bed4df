#include "runtime_errors.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cli {
namespace {

// Mirrors the runtime's log routing: ASCEND_SLOG_PRINT_TO_STDOUT=1 sends it to stdout,
// ASCEND_PROCESS_LOG_PATH to a file, ASCEND_GLOBAL_LOG_LEVEL 4 turns it off; else stderr.
bool init_failure_already_on_stderr() {
  const char* to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  const char* dir = std::getenv("ASCEND_PROCESS_LOG_PATH");
  const char* level = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  if (to_stdout != nullptr && std::strcmp(to_stdout, "1") == 0) return false;
  if (dir != nullptr && dir[0] != '\0') return false;
  return level == nullptr || std::strcmp(level, "4") != 0;
}

}  // namespace

void report_init_failure(const std::string& who, aclError rc) {
  if (init_failure_already_on_stderr()) {
    std::fprintf(stderr, "ascend-run %s: the runtime cannot start (error %d, above)\n", who.c_str(), rc);
    return;
  }
  const char* msg = aclGetRecentErrMsg();
  std::fprintf(stderr, "ascend-run %s: the runtime cannot start (error %d): %s\n", who.c_str(), rc,
               msg != nullptr ? msg : "no message");
}

}  // namespace cli
