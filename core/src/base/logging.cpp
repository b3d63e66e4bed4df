#include "base/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>

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

// The logger writes through one distributing sink whose target apply_log_output_env() swaps.
std::shared_ptr<spdlog::sinks::dist_sink_mt>& output_sink() {
  static auto* sink = new std::shared_ptr<spdlog::sinks::dist_sink_mt>(std::make_shared<spdlog::sinks::dist_sink_mt>(
      std::vector<spdlog::sink_ptr>{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()}));
  return *sink;
}

spdlog::logger& log() {
  // Created once and never destroyed: logging may happen from static destructors and unit threads.
  static spdlog::logger* logger = [] {
    auto* l = new spdlog::logger("ascend-run", output_sink());
    l->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [ascend-run] [%^%l%$] %v");
    l->set_level(to_spdlog(g_level.load()));
    l->flush_on(spdlog::level::warn);
    return l;
  }();
  return *logger;
}

namespace {

// CANN's layout for a process's host log: <root>/debug/plog/plog-<pid>_<yyyymmddhhmmssmmm>.log.
std::string plog_file_name(const std::string& root) {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t secs = system_clock::to_time_t(now);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  char name[96];
  std::snprintf(name, sizeof name, "plog-%d_%s%03lld.log", static_cast<int>(getpid()), stamp,
                static_cast<long long>(ms));
  return root + "/debug/plog/" + name;
}

}  // namespace

LogOutput apply_log_output_env() {
  static std::mutex mu;
  static LogOutput current;  // what the sink writes to now
  std::lock_guard<std::mutex> lock(mu);
  LogOutput want;
  const char* to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  const char* dir = std::getenv("ASCEND_PROCESS_LOG_PATH");
  if (to_stdout != nullptr && std::strcmp(to_stdout, "1") == 0) {
    want.kind = LogOutput::Kind::Stdout;
  } else if (dir != nullptr && dir[0] != '\0') {
    want.kind = LogOutput::Kind::File;
    want.path = dir;  // the root; the file name is fixed when the file is opened
  }
  const bool same_file = want.kind == LogOutput::Kind::File && current.kind == LogOutput::Kind::File &&
                         current.path.rfind(want.path + "/debug/plog/", 0) == 0;
  if (want.kind == current.kind && (want.kind != LogOutput::Kind::File || same_file)) return current;

  spdlog::sink_ptr sink;
  switch (want.kind) {
    case LogOutput::Kind::Stdout:
      sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
      break;
    case LogOutput::Kind::File: {
      const std::string file = plog_file_name(want.path);
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
      try {
        if (ec) throw spdlog::spdlog_ex(ec.message());
        sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file);
        want.path = file;
      } catch (const spdlog::spdlog_ex& e) {
        // The log must not take the program down: stay on stderr and say why, once.
        sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        want = LogOutput{};
        want.error = "ASCEND_PROCESS_LOG_PATH=" + std::string(dir) + ": cannot write the log there (" + e.what() +
                     "); logging to stderr";
      }
      break;
    }
    case LogOutput::Kind::Stderr:
      sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
      break;
  }
  log().flush();
  output_sink()->set_sinks({sink});
  if (!want.error.empty()) log().warn("{}", want.error);
  current = want;
  return current;
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
