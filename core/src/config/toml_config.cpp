// Reading the runtime configuration file: the TOML format (every section, strictly validated), and
// load_config_file, which reads a file and hands a ".json" one to the acl.json reader (acl_json.cpp).
// Plugin option tables are kept raw here and validated against the plugin's schema later
// (option_schema.cpp). Nothing here throws past the public functions: TOML++ exceptions are caught
// and turned into Status values, because these functions sit under the C API.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "config/config_detail.hpp"

namespace arun {
namespace {

namespace fs = std::filesystem;
using namespace config_detail;
using plugin::LogLevel;
using plugin::PluginKind;

// ---------------------------------------------------------------------------------------------
// Enumerations

constexpr std::string_view kLogLevelNames = "debug, info, warning, error, off";
constexpr std::string_view kKindNames = "device, allocator, profiler, scheduler, collective";

std::optional<LogLevel> log_level_from_name(std::string_view s) {
  if (s == "debug") return LogLevel::Debug;
  if (s == "info") return LogLevel::Info;
  if (s == "warning") return LogLevel::Warning;
  if (s == "error") return LogLevel::Error;
  if (s == "off") return LogLevel::Off;
  return std::nullopt;
}

std::optional<PluginKind> kind_from_name(std::string_view s) {
  if (s == "device") return PluginKind::Device;
  if (s == "allocator") return PluginKind::Allocator;
  if (s == "profiler") return PluginKind::Profiler;
  if (s == "scheduler") return PluginKind::Scheduler;
  if (s == "collective") return PluginKind::Collective;
  return std::nullopt;
}

bool valid_plugin_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Paths

std::string absolute_base(const std::string& base_dir) {
  std::error_code ec;
  fs::path base = base_dir.empty() ? fs::current_path(ec) : fs::absolute(fs::path(base_dir), ec);
  if (ec) base = fs::path(base_dir);
  return base.lexically_normal().string();
}

std::string resolve_path(const std::string& base, const std::string& p) {
  fs::path path(p);
  if (path.is_relative()) path = fs::path(base) / path;
  std::string s = path.lexically_normal().string();
  // "dir/" normalises to "dir/"; drop the trailing separator so paths compare and print alike.
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Typed readers for the fixed part of the format

Status read_string(const std::string& origin, const toml::node& node, const std::string& path, std::string* out,
                   bool allow_empty = true) {
  auto* s = node.as_string();
  if (!s) return wrong_type(origin, node, path, "a string");
  if (!allow_empty && s->get().empty())
    return error_at(Errc::file_attr_invalid, origin, node.source(), path, "must not be empty");
  *out = s->get();
  return Status::Ok();
}

Status read_bool(const std::string& origin, const toml::node& node, const std::string& path, bool* out) {
  auto* b = node.as_boolean();
  if (!b) return wrong_type(origin, node, path, "a boolean (true or false)");
  *out = b->get();
  return Status::Ok();
}

Status read_string_list(const std::string& origin, const toml::node& node, const std::string& path,
                        std::vector<std::string>* out) {
  auto* arr = node.as_array();
  if (!arr) return wrong_type(origin, node, path, "an array of strings");
  std::vector<std::string> items;
  for (size_t i = 0; i < arr->size(); ++i) {
    const toml::node& el = *arr->get(i);
    std::string item_path = path + "[" + std::to_string(i) + "]";
    std::string value;
    ARUN_RETURN_IF_ERROR(read_string(origin, el, item_path, &value, /*allow_empty=*/false));
    items.push_back(std::move(value));
  }
  *out = std::move(items);
  return Status::Ok();
}

Status read_table(const std::string& origin, const toml::node& node, const std::string& path, const toml::table** out) {
  auto* t = node.as_table();
  if (!t) return wrong_type(origin, node, path, "a table");
  *out = t;
  return Status::Ok();
}

Status read_integer(const std::string& origin, const toml::node& node, const std::string& path, int64_t min,
                    int64_t max, int64_t* out) {
  auto* i = node.as_integer();
  if (!i) return wrong_type(origin, node, path, "an integer");
  if (i->get() < min || i->get() > max) {
    return error_at(
        Errc::file_attr_invalid, origin, node.source(), path,
        std::to_string(i->get()) + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  *out = i->get();
  return Status::Ok();
}

// A per-thread profiling buffer: bytes as an integer or "4MiB"; at least 64 records' worth and at
// most 256 MiB (each thread that records gets rings of this size; they commit lazily, but a larger
// value is more likely a typo than a plan).
Status read_profiler_bytes(const std::string& origin, const toml::node& node, const std::string& path, uint64_t* out) {
  uint64_t bytes = 0;
  if (auto* i = node.as_integer()) {
    bytes = i->get() < 0 ? 0 : static_cast<uint64_t>(i->get());
  } else if (auto* s = node.as_string()) {
    if (!parse_byte_size(s->get(), &bytes)) {
      return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                      "\"" + s->get() + "\" is not a byte size (e.g. 4MiB, 65536)");
    }
  } else {
    return wrong_type(origin, node, path, "a byte size (an integer or a string such as \"4MiB\")");
  }
  constexpr uint64_t kMin = 64 * 96, kMax = 256ull << 20;
  if (bytes < kMin || bytes > kMax) {
    return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                    std::to_string(bytes) + " bytes is outside [6KiB (64 records), 256MiB]");
  }
  *out = bytes;
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Sections

Status parse_runtime(const std::string& origin, const std::string& base, const toml::table& t, RuntimeConfig* cfg) {
  for (auto&& [key, node] : t) {
    std::string path = child_path("runtime", key.str());
    if (key == "log_level") {
      std::string name;
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &name));
      auto level = log_level_from_name(name);
      if (!level) {
        return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                        quote(name) + " is not a log level (valid: " + std::string(kLogLevelNames) + ")");
      }
      cfg->log_level = level;
    } else if (key == "plugin_search_paths") {
      std::vector<std::string> dirs;
      ARUN_RETURN_IF_ERROR(read_string_list(origin, node, path, &dirs));
      cfg->plugin_search_paths.clear();
      for (auto& d : dirs) cfg->plugin_search_paths.push_back(resolve_path(base, d));
    } else if (key == "allow_insecure_plugins") {
      ARUN_RETURN_IF_ERROR(read_bool(origin, node, path, &cfg->allow_insecure_plugins));
    } else if (key == "leak_report") {
      std::string mode;
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &mode));
      if (mode == "off") {
        cfg->leak_report = LeakReportMode::Off;
      } else if (mode == "warn") {
        cfg->leak_report = LeakReportMode::Warn;
      } else if (mode == "error") {
        cfg->leak_report = LeakReportMode::Error;
      } else {
        return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                        quote(mode) + " is not a leak report mode (valid: off, warn, error)");
      }
    } else if (key == "leak_call_sites") {
      ARUN_RETURN_IF_ERROR(read_bool(origin, node, path, &cfg->leak_call_sites));
    } else if (key == "memory_report") {
      ARUN_RETURN_IF_ERROR(read_bool(origin, node, path, &cfg->memory_report));
    } else if (key == "stream_sanitizer") {
      std::string mode;
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &mode));
      if (mode != "off" && mode != "report" && mode != "abort") {
        return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                        quote(mode) + " is not a stream sanitizer mode (valid: off, report, abort)");
      }
      cfg->stream_sanitizer = mode;
    } else if (key == "finalize_timeout_ms") {
      ARUN_RETURN_IF_ERROR(read_integer(origin, node, path, 0, INT32_MAX, &cfg->finalize_timeout_ms));
    } else {
      return unknown_key(
          origin, key, path,
          "log_level, plugin_search_paths, allow_insecure_plugins, leak_report, leak_call_sites, memory_report, "
          "finalize_timeout_ms, stream_sanitizer");
    }
  }
  return Status::Ok();
}

Status parse_plugin_entry(const std::string& origin, const std::string& base, toml::table& t, size_t index,
                          PluginEntry* entry) {
  const std::string self = "plugin[" + std::to_string(index) + "]";
  bool have_kind = false;
  bool have_name = false;
  for (auto&& [key, node] : t) {
    std::string path = child_path(self, key.str());
    if (key == "kind") {
      std::string name;
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &name));
      auto kind = kind_from_name(name);
      if (!kind) {
        return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                        quote(name) + " is not a plugin kind (valid: " + std::string(kKindNames) + ")");
      }
      entry->kind = *kind;
      have_kind = true;
    } else if (key == "name") {
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &entry->name));
      if (!valid_plugin_name(entry->name)) {
        return error_at(
            Errc::file_attr_invalid, origin, node.source(), path,
            quote(entry->name) + " is not a valid plugin name (use lowercase letters a-z, digits 0-9 and '_')");
      }
      have_name = true;
    } else if (key == "path") {
      std::string p;
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &p, /*allow_empty=*/false));
      entry->path = resolve_path(base, p);
    } else if (key == "options") {
      const toml::table* opts = nullptr;
      ARUN_RETURN_IF_ERROR(read_table(origin, node, path, &opts));
      (void)opts;
    } else {
      return unknown_key(origin, key, path, "kind, name, path, options");
    }
  }
  if (!have_kind) {
    return error_at(Errc::file_missing_attr, origin, t.source(), self,
                    "missing required key \"kind\" (one of: " + std::string(kKindNames) + ")");
  }
  if (!have_name) return error_at(Errc::file_missing_attr, origin, t.source(), self, "missing required key \"name\"");
  // Move (not copy) the options table out of the parsed document: TOML++ keeps source positions on
  // moves only, and validate_plugin_options uses them in its messages.
  if (auto* opts = t.get_as<toml::table>("options")) entry->options = std::move(*opts);
  entry->origin = origin + ": " + self;
  return Status::Ok();
}

Status parse_plugins(const std::string& origin, const std::string& base, toml::node& node, RuntimeConfig* cfg) {
  auto* arr = node.as_array();
  if (!arr) {
    return wrong_type(origin, node, "plugin", "an array of tables (write each entry as [[plugin]])");
  }
  struct Seen {
    size_t index;
    toml::source_region where;
  };
  // Keyed by "<kind>/<name>": one lookup per entry, so a long plugin list stays linear.
  std::unordered_map<std::string, Seen> seen;
  std::vector<PluginEntry> entries;
  for (size_t i = 0; i < arr->size(); ++i) {
    toml::node& el = *arr->get(i);
    const std::string self = "plugin[" + std::to_string(i) + "]";
    auto* t = el.as_table();
    if (!t) return wrong_type(origin, el, self, "a table");
    toml::source_region where = t->source();
    PluginEntry entry;
    ARUN_RETURN_IF_ERROR(parse_plugin_entry(origin, base, *t, i, &entry));
    auto [it, inserted] =
        seen.try_emplace(std::string(plugin::kind_name(entry.kind)) + "/" + entry.name, Seen{i, where});
    if (!inserted) {
      const Seen& s = it->second;
      std::string reason = std::string("duplicate ") + plugin::kind_name(entry.kind) + " plugin " + quote(entry.name) +
                           " (already listed as plugin[" + std::to_string(s.index) + "]";
      if (s.where.begin.line != 0) reason += " at line " + std::to_string(s.where.begin.line);
      reason += ")";
      return error_at(Errc::file_attr_invalid, origin, where, self, reason);
    }
    entries.push_back(std::move(entry));
  }
  cfg->plugins = std::move(entries);
  return Status::Ok();
}

// [scheduler] and [allocator]: `policy` plus free-form policy options.
Status parse_policy_section(const std::string& origin, const std::string& section, toml::table& t, std::string* policy,
                            std::string* policy_at, toml::table* options) {
  toml::table rest;
  if (auto* node = t.get("policy")) {
    ARUN_RETURN_IF_ERROR(read_string(origin, *node, section + ".policy", policy, /*allow_empty=*/false));
    // Kept for the messages about the policy that come later (an unknown name, options it refuses).
    const toml::source_region& where = node->source();
    if (where.begin.line != 0)
      *policy_at = ":" + std::to_string(where.begin.line) + ":" + std::to_string(where.begin.column);
  }
  // Moved, not copied, to keep source positions for the policy's own validation messages.
  for (auto&& [key, node] : t) {
    if (key == "policy") continue;
    node.visit([&rest, &key = key](auto& concrete) { rest.insert(key, std::move(concrete)); });
  }
  *options = std::move(rest);
  return Status::Ok();
}

Status parse_profiler(const std::string& origin, const toml::table& t, RuntimeConfig* cfg) {
  for (auto&& [key, node] : t) {
    std::string path = child_path("profiler", key.str());
    if (key == "enabled") {
      ARUN_RETURN_IF_ERROR(read_bool(origin, node, path, &cfg->profiler_enabled));
    } else if (key == "sinks" || key == "default_sinks" || key == "aclprof_sinks") {
      std::vector<std::string> sinks;
      ARUN_RETURN_IF_ERROR(read_string_list(origin, node, path, &sinks));
      std::unordered_set<std::string_view> seen;  // linear in the list's length
      for (size_t i = 0; i < sinks.size(); ++i) {
        if (!seen.insert(sinks[i]).second) {
          const toml::node& el = *node.as_array()->get(i);
          return error_at(Errc::file_attr_invalid, origin, el.source(), path + "[" + std::to_string(i) + "]",
                          "duplicate sink " + quote(sinks[i]));
        }
      }
      (key == "sinks"           ? cfg->profiler_sinks
       : key == "default_sinks" ? cfg->profiler_default_sinks
                                : cfg->profiler_aclprof_sinks) = std::move(sinks);
    } else if (key == "output_dir") {
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &cfg->profiler_output_dir, /*allow_empty=*/false));
    } else if (key == "buffer_size") {
      ARUN_RETURN_IF_ERROR(read_profiler_bytes(origin, node, path, &cfg->profiler_buffer_bytes));
    } else if (key == "start_after_ms" || key == "duration_ms") {
      int64_t v = 0;
      ARUN_RETURN_IF_ERROR(read_integer(origin, node, path, 0, int64_t{1} << 40, &v));
      (key == "start_after_ms" ? cfg->profiler_start_after_ms : cfg->profiler_duration_ms) = static_cast<uint64_t>(v);
    } else {
      return unknown_key(
          origin, key, path,
          "enabled, sinks, default_sinks, aclprof_sinks, output_dir, buffer_size, start_after_ms, duration_ms");
    }
  }
  return Status::Ok();
}

Status parse_document(toml::table& doc, const std::string& origin, const std::string& base, RuntimeConfig* cfg) {
  // Check the top level first, so a misspelt section is reported before anything inside others.
  for (auto&& [key, node] : doc) {
    if (key != "runtime" && key != "plugin" && key != "scheduler" && key != "allocator" && key != "profiler")
      return unknown_key(origin, key, std::string(key.str()), "runtime, plugin, scheduler, allocator, profiler");
  }
  if (auto* node = doc.get("runtime")) {
    const toml::table* t = nullptr;
    ARUN_RETURN_IF_ERROR(read_table(origin, *node, "runtime", &t));
    ARUN_RETURN_IF_ERROR(parse_runtime(origin, base, *t, cfg));
  }
  if (auto* node = doc.get("plugin")) ARUN_RETURN_IF_ERROR(parse_plugins(origin, base, *node, cfg));
  if (auto* node = doc.get("scheduler")) {
    const toml::table* t = nullptr;
    ARUN_RETURN_IF_ERROR(read_table(origin, *node, "scheduler", &t));
    ARUN_RETURN_IF_ERROR(parse_policy_section(origin, "scheduler", *node->as_table(), &cfg->scheduler_policy,
                                              &cfg->scheduler_policy_at, &cfg->scheduler_options));
  }
  if (auto* node = doc.get("allocator")) {
    const toml::table* t = nullptr;
    ARUN_RETURN_IF_ERROR(read_table(origin, *node, "allocator", &t));
    ARUN_RETURN_IF_ERROR(parse_policy_section(origin, "allocator", *node->as_table(), &cfg->allocator_policy,
                                              &cfg->allocator_policy_at, &cfg->allocator_options));
  }
  if (auto* node = doc.get("profiler")) {
    const toml::table* t = nullptr;
    ARUN_RETURN_IF_ERROR(read_table(origin, *node, "profiler", &t));
    ARUN_RETURN_IF_ERROR(parse_profiler(origin, *t, cfg));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Nesting limit

// TOML++ limits the nesting of arrays and inline tables but not of dotted keys or table headers, and
// it builds (and destroys) the document recursively: `a.a.a...= 1` with 100 000 parts overflows the
// stack. check_nesting scans the text first, without recursion and in one pass, and refuses a key or
// header whose depth exceeds kMaxNesting. The depth of a key is the number of its dotted parts plus
// those of the table header above it and of the keys whose inline tables (or arrays) enclose it.
// Strings (basic, literal, multi-line) and comments are skipped, so dots inside them do not count.
constexpr int kMaxNesting = 32;

class NestingScan {
 public:
  NestingScan(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  Status run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        advance(1);
        continue;
      }
      if (c == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') advance(1);
        continue;
      }
      if (c == '"' || c == '\'') {
        const size_t line = line_, col = col_;
        skip_string();
        ARUN_RETURN_IF_ERROR(atom(line, col));
        continue;
      }
      if (is_bare(c)) {
        const size_t line = line_, col = col_;
        while (i_ < text_.size() && is_bare(text_[i_])) advance(1);
        ARUN_RETURN_IF_ERROR(atom(line, col));
        continue;
      }
      punct(c);
    }
    return Status::Ok();
  }

 private:
  struct Open {
    char bracket;  // '{' or '['
    int depth;     // the depth this bracket adds to the keys inside it
  };

  static bool is_bare(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '+';
  }

  void advance(size_t n) {
    i_ += n;
    col_ += n;
  }
  void newline() {
    ++i_;
    ++line_;
    col_ = 1;
    line_start_ = true;
    end_run();
    if (open_.empty()) key_position_ = true;
  }

  // The depth a key run starts from: its header's and its enclosing inline tables' (and arrays').
  int base() const {
    if (in_header_) return 0;
    int d = header_depth_;
    for (const Open& o : open_) d += o.depth;
    return d;
  }

  Status too_deep(size_t line, size_t col) const {
    return Status(Errc::file_attr_invalid, origin_ + ":" + std::to_string(line) + ":" + std::to_string(col) +
                                               ": key nested deeper than " + std::to_string(kMaxNesting) +
                                               " levels (dotted keys, table headers and inline tables count)");
  }

  Status atom(size_t line, size_t col) {
    line_start_ = false;
    if (after_dot_ && run_ > 0) {
      ++run_;
    } else {
      run_ = 1;
      run_line_ = line;
      run_col_ = col;
      run_is_key_ = key_position_ || in_header_;
    }
    after_dot_ = false;
    // A key's run counts on top of its tables; a value's dotted run (a float, a time) never
    // legitimately comes near the limit, so it is held to the limit alone.
    const int depth = run_is_key_ ? base() + run_ : run_;
    if (depth > kMaxNesting) {
      return in_header_ ? too_deep(header_line_, header_col_) : too_deep(run_line_, run_col_);
    }
    return Status::Ok();
  }

  void end_run() {
    run_ = 0;
    after_dot_ = false;
  }

  // Anything the scan does not model is left to the parser, which reports it with its own position.
  void punct(char c) {
    const bool at_line_start = line_start_;
    line_start_ = false;
    if (c == '.') {
      after_dot_ = true;
      advance(1);
      return;
    }
    const int last_run = run_;
    end_run();
    if (c == '[' && at_line_start && open_.empty()) {
      in_header_ = true;
      header_line_ = line_;
      header_col_ = col_;
      advance(1);
      if (i_ < text_.size() && text_[i_] == '[') advance(1);
      return;
    }
    if (c == ']' && in_header_) {
      in_header_ = false;
      header_depth_ = last_run;
      key_position_ = false;
      advance(1);
      if (i_ < text_.size() && text_[i_] == ']') advance(1);
      return;
    }
    if (c == '=') {
      if (run_is_key_) last_key_ = last_run;
      key_position_ = false;
    } else if (c == '{') {
      open_.push_back({'{', std::max(last_key_, 1)});
      key_position_ = true;
    } else if (c == '[') {
      open_.push_back({'[', 1});
      key_position_ = false;
    } else if (c == '}' || c == ']') {
      if (!open_.empty()) open_.pop_back();
      key_position_ = false;
    } else if (c == ',') {
      key_position_ = !open_.empty() && open_.back().bracket == '{';
    } else {
      key_position_ = false;
    }
    advance(1);
  }

  // Skips a basic, literal or multi-line string starting at i_, keeping line and column.
  void skip_string() {
    const char q = text_[i_];
    const std::string_view triple = q == '"' ? std::string_view("\"\"\"") : std::string_view("'''");
    const bool multi = text_.substr(i_, 3) == triple;
    advance(multi ? 3 : 1);
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\\' && q == '"' && i_ + 1 < text_.size()) {
        if (text_[i_ + 1] == '\n') {
          advance(1);
          newline();
          line_start_ = false;
        } else {
          advance(2);
        }
        continue;
      }
      if (c == '\n') {
        if (!multi) return;  // unterminated: the parser reports it
        newline();
        line_start_ = false;
        continue;
      }
      if (c == q) {
        if (!multi) {
          advance(1);
          return;
        }
        if (text_.substr(i_, 3) == triple) {
          advance(3);
          while (i_ < text_.size() && text_[i_] == q) advance(1);  // up to two quotes may end the content
          return;
        }
      }
      advance(1);
    }
  }

  std::string_view text_;
  const std::string& origin_;
  size_t i_ = 0, line_ = 1, col_ = 1;
  bool line_start_ = true;
  bool key_position_ = true;  // a run that starts here is a key
  bool in_header_ = false;
  size_t header_line_ = 0, header_col_ = 0;
  int header_depth_ = 0;
  int run_ = 0;  // parts of the current dotted run
  bool after_dot_ = false;
  bool run_is_key_ = false;
  size_t run_line_ = 0, run_col_ = 0;
  int last_key_ = 0;  // parts of the last key before '='
  std::vector<Open> open_;
};

Status check_nesting(std::string_view text, const std::string& origin) {
  return NestingScan(text, origin).run();
}

// ---------------------------------------------------------------------------------------------
// Files

Status read_file_text(const std::string& path, std::string* out) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return Status(Errc::invalid_file, path + ": cannot open config file: " +
                                          (ec ? ec.message() : std::string("no such file or directory")));
  }
  if (fs::is_directory(st)) return Status(Errc::invalid_file, path + ": cannot open config file: is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    return Status(Errc::invalid_file, path + ": cannot open config file: " + (err ? std::strerror(err) : "unreadable"));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status(Errc::invalid_file, path + ": cannot read config file");
  *out = std::move(ss).str();
  return Status::Ok();
}

bool ends_with_json(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".json";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public functions

Status parse_config_toml(std::string_view text, const std::string& origin, const std::string& base_dir,
                         RuntimeConfig* out) {
  if (!out) return Status(Errc::invalid_param, "parse_config_toml: out is null");
  try {
    ARUN_RETURN_IF_ERROR(check_nesting(text, origin));
    toml::table doc;
    try {
      doc = toml::parse(text, std::string_view(origin));
    } catch (const toml::parse_error& e) {
      return error_at(Errc::parse_file, origin, e.source(), "", "TOML syntax error: " + std::string(e.description()));
    }
    RuntimeConfig cfg;
    cfg.source_kind = out->source_kind;
    cfg.source_path = out->source_path;
    ARUN_RETURN_IF_ERROR(parse_document(doc, origin, absolute_base(base_dir), &cfg));
    *out = std::move(cfg);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status(Errc::internal_error, origin + ": unexpected error while reading the configuration: " + e.what());
  }
}

Status load_config_file(const std::string& path, RuntimeConfig* out) {
  if (!out) return Status(Errc::invalid_param, "load_config_file: out is null");
  if (path.empty()) return Status(Errc::invalid_file, "no config file path given");
  try {
    std::string text;
    ARUN_RETURN_IF_ERROR(read_file_text(path, &text));
    std::error_code ec;
    fs::path abs = fs::absolute(fs::path(path), ec);
    if (ec) abs = fs::path(path);
    abs = abs.lexically_normal();

    RuntimeConfig cfg;
    cfg.source_kind = out->source_kind;
    cfg.source_path = abs.string();
    if (ends_with_json(path)) {
      ARUN_RETURN_IF_ERROR(parse_acl_json(text, path, &cfg));
    } else {
      ARUN_RETURN_IF_ERROR(parse_config_toml(text, path, abs.parent_path().string(), &cfg));
      cfg.source_path = abs.string();
    }
    *out = std::move(cfg);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status(Errc::internal_error, path + ": unexpected error while reading the configuration: " + e.what());
  }
}

std::optional<plugin::LogLevel> log_level_from_env() {
  const char* v = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  if (!v || v[0] < '0' || v[0] > '4' || v[1] != '\0') return std::nullopt;
  return static_cast<plugin::LogLevel>(v[0] - '0');
}

}  // namespace arun
