// Runtime configuration: the TOML file aclInit reads (or a CANN acl.json), parsed and validated.
// Validation is strict: unknown keys, wrong types and out-of-range values are errors naming the
// file and the key. Plugin option tables are validated later, against the schema the plugin's
// descriptor declares (validate_plugin_options), once the plugin is loaded.
// One job per file: toml_config.cpp (the TOML format, load_config_file), acl_json.cpp (CANN
// acl.json), option_schema.cpp (plugin option schemas, byte sizes), default_config.cpp (which file
// aclInit reads, and what it takes from the installed default config), setting.cpp (override >
// environment > config > default); config_detail.hpp holds what they share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "arun/core/status.hpp"
#include "arun/plugin/plugin_descriptor.hpp"

namespace arun {

// One [[plugin]] entry.
struct PluginEntry {
  plugin::PluginKind kind = plugin::PluginKind::Device;
  std::string name;     // e.g. "ascend"
  std::string path;     // explicit library path (absolute, or relative to the config file's folder); empty = search
  toml::table options;  // the raw [plugin.options] table, validated against the plugin's schema at load
  std::string origin;   // "file.toml: plugin[2]" for messages
};

// What aclrtResetDevice and aclFinalize do about resources the program never released.
enum class LeakReportMode { Off, Warn, Error };

struct RuntimeConfig {
  std::string source_path;  // file the config came from; empty = none (no default config installed)
  std::string source_kind;  // "argument", "ASCEND_RUN_CONFIG", "installed default", "built-in defaults"
  // True when source_path was a CANN acl.json: it configures nothing ascend-run uses, so the runtime
  // takes plugins (and everything else) from the installed default TOML.
  bool from_acl_json = false;
  // [runtime]
  std::optional<plugin::LogLevel> log_level;     // unset = keep the environment / default level
  std::vector<std::string> plugin_search_paths;  // absolute paths, in search order, before the built-in plugin folder
  // Load plugin files (and folders) that are writable by group or others or owned by another user
  // than root or the current one; off by default (plugin_loader refuses them), for development trees.
  bool allow_insecure_plugins = false;
  LeakReportMode leak_report = LeakReportMode::Warn;
  bool memory_report = false;    // print each device's allocator report when it closes
  bool leak_call_sites = false;  // record where each device / pinned allocation was made, for the report
  // How long aclFinalize waits for the work still queued (a blocked host function) before it gives
  // up with an error, in ms; 0 = without a bound.
  int64_t finalize_timeout_ms = 30000;
  // The stream-order sanitizer (issue 25): "off", "report" or "abort"; ASCEND_RUN_STREAM_SANITIZER
  // overrides it.
  std::string stream_sanitizer = "off";
  // [[plugin]]
  std::vector<PluginEntry> plugins;
  // [scheduler]
  std::string scheduler_policy = "priority";
  std::string scheduler_policy_at;  // ":<line>:<column>" of `policy` in the file, for messages ("" if none)
  toml::table scheduler_options;    // the other keys of [scheduler], validated by resolve_scheduler
  // [allocator]
  std::string allocator_policy = "direct";
  std::string allocator_policy_at;  // as scheduler_policy_at
  toml::table allocator_options;
  // [profiler]
  bool profiler_enabled = false;
  std::vector<std::string> profiler_sinks;  // empty: profiler_default_sinks
  // The sinks an enabled profiler uses when `sinks` is empty. The core names no sink: the installed
  // default config sets it (default_config.hpp), and a configuration that leaves it out takes that.
  std::vector<std::string> profiler_default_sinks;
  // The sinks aclprofStart uses when `sinks` is empty (those of them that are installed); from the
  // installed default config like default_sinks.
  std::vector<std::string> profiler_aclprof_sinks;
  std::string profiler_output_dir = "ascend-run-profile";
  uint64_t profiler_buffer_bytes = 4ull << 20;  // per thread; 32768 records (rounded down to a power of two)
  uint64_t profiler_start_after_ms = 0;         // capture window: begin this long after aclInit
  uint64_t profiler_duration_ms = 0;            // ... and collect this long (0: until aclFinalize)
  // Notes collected while parsing (e.g. ignored CANN-only acl.json keys), logged once each by the runtime.
  std::vector<std::string> notices;
};

// Parses and validates a config file. A path ending in ".json" is read as a CANN acl.json.
// Errors: Errc::invalid_file (missing / unreadable), Errc::parse_file (syntax),
// Errc::file_attr_invalid (unknown key, wrong type, out-of-range value), Errc::file_missing_attr.
Status load_config_file(const std::string& path, RuntimeConfig* out);

// Parses TOML text; `origin` names it in messages. `base_dir` resolves relative paths.
Status parse_config_toml(std::string_view text, const std::string& origin, const std::string& base_dir,
                         RuntimeConfig* out);

// Validates `table` against a plugin's option schema and fills defaults.
// Errors (Errc::file_attr_invalid) name `origin`, the key and the reason; the message lists the valid keys.
Status validate_plugin_options(const toml::table& table, const plugin::OptionSpec* specs, uint32_t count,
                               const std::string& origin, plugin::OptionValues* out);

// Parses "16GiB", "512 MiB", "4096", "1.5GB" into bytes. False if malformed.
bool parse_byte_size(std::string_view text, uint64_t* out);

// Log level from ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 4 off); nullopt if unset or malformed.
std::optional<plugin::LogLevel> log_level_from_env();

}  // namespace arun
