#include "base/logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <atomic>

namespace arun {

spdlog::level::level_enum to_spdlog(plugin::LogLevel level) {
  switch (level) {
    case plugin::LogLevel::Debug:
      return spdlog::level::debug;
    case plugin::LogLevel::Info:
      return spdlog::level::info;
    case plugin::LogLevel::Warning:
      return spdlog::level::warn;
    case plugin::LogLevel::Error:
      return spdlog::level::err;
    case plugin::LogLevel::Off:
      return spdlog::level::off;
  }
  return spdlog::level::warn;
}

namespace {

std::atomic<plugin::LogLevel> g_level{plugin::LogLevel::Warning};

}  // namespace

spdlog::logger& log() {
  // Created once and never destroyed: logging may happen from static destructors and unit threads.
  static spdlog::logger* logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto* l = new spdlog::logger("ascend-run", std::move(sink));
    l->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [ascend-run] [%^%l%$] %v");
    l->set_level(to_spdlog(g_level.load()));
    l->flush_on(spdlog::level::warn);
    return l;
  }();
  return *logger;
}

void set_log_level(plugin::LogLevel level) {
  g_level.store(level);
  log().set_level(to_spdlog(level));
}

plugin::LogLevel log_level() {
  return g_level.load();
}

const char* log_level_name(plugin::LogLevel level) {
  switch (level) {
    case plugin::LogLevel::Debug:
      return "debug";
    case plugin::LogLevel::Info:
      return "info";
    case plugin::LogLevel::Warning:
      return "warning";
    case plugin::LogLevel::Error:
      return "error";
    case plugin::LogLevel::Off:
      return "off";
  }
  return "?";
}

}  // namespace arun
