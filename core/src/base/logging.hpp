// Logging: one spdlog logger for the runtime; plugins reach it through HostServices.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

#include "arun/plugin/plugin_descriptor.hpp"

namespace arun {

spdlog::logger& log();

// Where log lines go, chosen from CANN's variables: ASCEND_SLOG_PRINT_TO_STDOUT=1 prints them to
// stdout; otherwise ASCEND_PROCESS_LOG_PATH=DIR writes them to DIR/debug/plog/plog-<pid>_<time>.log
// (CANN's layout; the folders are created); otherwise stderr (CANN's default is a file under
// $HOME/ascend/log; a simulator's messages belong in the terminal that runs it). aclInit applies
// the variables; a folder that cannot be written keeps stderr, with a warning.
struct LogOutput {
  enum class Kind { Stderr, Stdout, File } kind = Kind::Stderr;
  std::string path;   // File: the log file
  std::string error;  // why the requested output could not be used
};
LogOutput apply_log_output_env();
void set_log_level(plugin::LogLevel level);
plugin::LogLevel log_level();
const char* log_level_name(plugin::LogLevel level);

// Maps the plugins' log levels to spdlog's (host_services.cpp forwards plugin messages).
spdlog::level::level_enum to_spdlog(plugin::LogLevel level);

}  // namespace arun
