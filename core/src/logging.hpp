// Logging: one spdlog logger for the runtime; plugins reach it through HostServices.
#pragma once

#include <spdlog/spdlog.h>

#include "arun/plugin/plugin_abi.hpp"

namespace arun {

spdlog::logger& log();
void set_log_level(plugin::LogLevel level);
plugin::LogLevel log_level();
const char* log_level_name(plugin::LogLevel level);

// The HostServices every plugin receives: forwards to the runtime logger, tagged with the source.
plugin::HostServices* host_services();

}  // namespace arun
