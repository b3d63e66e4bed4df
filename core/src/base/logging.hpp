// Logging: one spdlog logger for the runtime; plugins reach it through HostServices.
#pragma once

#include <spdlog/spdlog.h>

#include "arun/plugin/plugin_abi.hpp"

namespace arun {

spdlog::logger& log();
void set_log_level(plugin::LogLevel level);
plugin::LogLevel log_level();
const char* log_level_name(plugin::LogLevel level);

// Maps the plugins' log levels to spdlog's (host_services.cpp forwards plugin messages).
spdlog::level::level_enum to_spdlog(plugin::LogLevel level);

}  // namespace arun
