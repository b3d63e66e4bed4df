// HostLog: the plugin's view of the core's log sink. Plugins may not own a logger of their own
// (spdlog registries do not cross shared objects), so every message goes through HostServices.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::ascend {

class HostLog {
 public:
  HostLog() = default;
  HostLog(plugin::HostServices* host, std::string source) : host_(host), source_(std::move(source)) {}

  bool enabled(plugin::LogLevel level) const { return host_ != nullptr && host_->log_enabled(level); }

  // Never throws: a failing sink must not take a unit thread down with it.
  void write(plugin::LogLevel level, std::string_view message) const noexcept {
    if (host_ == nullptr) return;
    try {
      if (host_->log_enabled(level)) host_->log(level, source_, message);
    } catch (...) {
    }
  }
  void debug(std::string_view m) const noexcept { write(plugin::LogLevel::Debug, m); }
  void info(std::string_view m) const noexcept { write(plugin::LogLevel::Info, m); }
  void warning(std::string_view m) const noexcept { write(plugin::LogLevel::Warning, m); }
  void error(std::string_view m) const noexcept { write(plugin::LogLevel::Error, m); }

 private:
  plugin::HostServices* host_ = nullptr;
  std::string source_;
};

}  // namespace arun::ascend
