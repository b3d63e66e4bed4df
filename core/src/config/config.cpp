// Runtime configuration: parsing and validation of the TOML file (and of a CANN acl.json).
//
// Messages follow one layout so that editors and people can jump to the spot:
//   <file>:<line>:<column>: <key path>: <reason>
// The position is left out where TOML++ has none (values built in memory, copied tables).
// Key paths index arrays from 0, as TOML++'s own path syntax does: plugin[0] is the first [[plugin]].
// Nothing here throws past the public functions: TOML++ and nlohmann_json exceptions are caught and
// turned into Status values, because these functions sit under the C API.
#include "config/config.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace arun {
namespace {

namespace fs = std::filesystem;
using plugin::LogLevel;
using plugin::OptionSpec;
using plugin::OptionType;
using plugin::PluginKind;

// ---------------------------------------------------------------------------------------------
// Message helpers

std::string position_prefix(const std::string& origin, const toml::source_region& where) {
  std::string s = origin;
  if (where.begin.line != 0) {
    s += ':';
    s += std::to_string(where.begin.line);
    s += ':';
    s += std::to_string(where.begin.column);
  }
  return s;
}

Status error_at(Errc code, const std::string& origin, const toml::source_region& where, std::string_view key,
                std::string_view reason) {
  std::string msg = position_prefix(origin, where);
  msg += ": ";
  if (!key.empty()) {
    msg += key;
    msg += ": ";
  }
  msg += reason;
  return Status(code, std::move(msg));
}

const char* type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// A short rendering of a TOML value for messages: strings quoted, scalars as written.
std::string describe_value(const toml::node& node) {
  if (auto* s = node.as_string()) return quote(s->get());
  if (auto* i = node.as_integer()) return std::to_string(i->get());
  if (auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (auto* f = node.as_floating_point()) {
    std::ostringstream os;
    os << f->get();
    return os.str();
  }
  return std::string("a ") + type_name(node.type());
}

Status wrong_type(const std::string& origin, const toml::node& node, std::string_view key, std::string_view expected) {
  std::string reason = "expected ";
  reason += expected;
  reason += ", got ";
  reason += type_name(node.type());
  return error_at(Errc::file_attr_invalid, origin, node.source(), key, reason);
}

Status unknown_key(const std::string& origin, const toml::key& key, const std::string& path,
                   std::string_view valid) {
  std::string reason = "unknown key (valid: ";
  reason += valid;
  reason += ')';
  return error_at(Errc::file_attr_invalid, origin, key.source(), path, reason);
}

std::string child_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

// ---------------------------------------------------------------------------------------------
// Enumerations

constexpr std::string_view kLogLevelNames = "debug, info, warning, error, off";
constexpr std::string_view kKindNames = "device, allocator, profiler, scheduler";

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
  return std::nullopt;
}

// Local spelling of plugin::kind_name: that one is defined elsewhere in the core, and the parser
// must not depend on the loader's translation unit.
const char* kind_string(PluginKind k) {
  switch (k) {
    case PluginKind::Device: return "device";
    case PluginKind::Allocator: return "allocator";
    case PluginKind::Profiler: return "profiler";
    case PluginKind::Scheduler: return "scheduler";
  }
  return "unknown";
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

Status read_table(const std::string& origin, const toml::node& node, const std::string& path,
                  const toml::table** out) {
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
    return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                    std::to_string(i->get()) + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  *out = i->get();
  return Status::Ok();
}

// A per-thread profiling buffer: bytes as an integer or "4MiB"; at least 64 records' worth.
Status read_profiler_bytes(const std::string& origin, const toml::node& node, const std::string& path,
                           uint64_t* out) {
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
  constexpr uint64_t kMin = 64 * 96, kMax = 1ull << 32;
  if (bytes < kMin || bytes > kMax) {
    return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                    std::to_string(bytes) + " bytes is outside [6KiB (64 records), 4GiB]");
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
    } else {
      return unknown_key(origin, key, path, "log_level, plugin_search_paths, leak_report, leak_call_sites, memory_report");
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
        return error_at(Errc::file_attr_invalid, origin, node.source(), path,
                        quote(entry->name) +
                            " is not a valid plugin name (use lowercase letters a-z, digits 0-9 and '_')");
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
    PluginKind kind;
    std::string name;
    size_t index;
    toml::source_region where;
  };
  std::vector<Seen> seen;
  std::vector<PluginEntry> entries;
  for (size_t i = 0; i < arr->size(); ++i) {
    toml::node& el = *arr->get(i);
    const std::string self = "plugin[" + std::to_string(i) + "]";
    auto* t = el.as_table();
    if (!t) return wrong_type(origin, el, self, "a table");
    toml::source_region where = t->source();
    PluginEntry entry;
    ARUN_RETURN_IF_ERROR(parse_plugin_entry(origin, base, *t, i, &entry));
    for (const Seen& s : seen) {
      if (s.kind == entry.kind && s.name == entry.name) {
        std::string reason = std::string("duplicate ") + kind_string(entry.kind) + " plugin " + quote(entry.name) +
                             " (already listed as plugin[" + std::to_string(s.index) + "]";
        if (s.where.begin.line != 0) reason += " at line " + std::to_string(s.where.begin.line);
        reason += ")";
        return error_at(Errc::file_attr_invalid, origin, where, self, reason);
      }
    }
    seen.push_back({entry.kind, entry.name, i, where});
    entries.push_back(std::move(entry));
  }
  cfg->plugins = std::move(entries);
  return Status::Ok();
}

// [scheduler] and [allocator]: `policy` plus free-form policy options.
Status parse_policy_section(const std::string& origin, const std::string& section, toml::table& t,
                            std::string* policy, toml::table* options) {
  toml::table rest;
  if (auto* node = t.get("policy"))
    ARUN_RETURN_IF_ERROR(read_string(origin, *node, section + ".policy", policy, /*allow_empty=*/false));
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
    } else if (key == "sinks") {
      std::vector<std::string> sinks;
      ARUN_RETURN_IF_ERROR(read_string_list(origin, node, path, &sinks));
      for (size_t i = 0; i < sinks.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (sinks[i] == sinks[j]) {
            const toml::node& el = *node.as_array()->get(i);
            return error_at(Errc::file_attr_invalid, origin, el.source(), path + "[" + std::to_string(i) + "]",
                            "duplicate sink " + quote(sinks[i]));
          }
        }
      }
      cfg->profiler_sinks = std::move(sinks);
    } else if (key == "output_dir") {
      ARUN_RETURN_IF_ERROR(read_string(origin, node, path, &cfg->profiler_output_dir, /*allow_empty=*/false));
    } else if (key == "buffer_size") {
      ARUN_RETURN_IF_ERROR(read_profiler_bytes(origin, node, path, &cfg->profiler_buffer_bytes));
    } else if (key == "start_after_ms" || key == "duration_ms") {
      int64_t v = 0;
      ARUN_RETURN_IF_ERROR(read_integer(origin, node, path, 0, int64_t{1} << 40, &v));
      (key == "start_after_ms" ? cfg->profiler_start_after_ms : cfg->profiler_duration_ms) = static_cast<uint64_t>(v);
    } else {
      return unknown_key(origin, key, path, "enabled, sinks, output_dir, buffer_size, start_after_ms, duration_ms");
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
                                              &cfg->scheduler_options));
  }
  if (auto* node = doc.get("allocator")) {
    const toml::table* t = nullptr;
    ARUN_RETURN_IF_ERROR(read_table(origin, *node, "allocator", &t));
    ARUN_RETURN_IF_ERROR(parse_policy_section(origin, "allocator", *node->as_table(), &cfg->allocator_policy,
                                              &cfg->allocator_options));
  }
  if (auto* node = doc.get("profiler")) {
    const toml::table* t = nullptr;
    ARUN_RETURN_IF_ERROR(read_table(origin, *node, "profiler", &t));
    ARUN_RETURN_IF_ERROR(parse_profiler(origin, *t, cfg));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// CANN acl.json

// Top-level keys CANN's aclInit understands (dump, profiling, error-message mode, default device,
// op-cache ageing, AI Core stack size, printf FIFO sizes, aclGraph event mode, op debugging).
// None of them configures anything ascend-run does, so each is acknowledged with a notice.
constexpr std::string_view kCannKeys[] = {
    "dump",           "profiler",         "err_msg_mode",
    "defaultDevice",  "max_opqueue_num",  "StackSize",
    "stack_size",     "printf_fifo_size", "simd_printf_fifo_size_per_core",
    "acl_graph",      "op_debug_config",
};

std::string cann_key_list() {
  std::string s;
  for (auto k : kCannKeys) {
    if (!s.empty()) s += ", ";
    s += k;
  }
  return s;
}

// nlohmann_json gives no positions for keys; find where `"key"` followed by ':' first appears so the
// message can still point at it. Returns "" when not found (escaped spellings, for instance).
std::string json_key_position(std::string_view text, const std::string& key) {
  std::string needle = "\"" + key + "\"";
  size_t from = 0;
  while ((from = text.find(needle, from)) != std::string_view::npos) {
    size_t after = from + needle.size();
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\r' ||
                                   text[after] == '\n'))
      ++after;
    if (after < text.size() && text[after] == ':') {
      size_t line = 1, col = 1;
      for (size_t i = 0; i < from; ++i) {
        if (text[i] == '\n') {
          ++line;
          col = 1;
        } else {
          ++col;
        }
      }
      return ":" + std::to_string(line) + ":" + std::to_string(col);
    }
    from = after;
  }
  return {};
}

Status parse_acl_json(std::string_view text, const std::string& origin, RuntimeConfig* cfg) {
  // An empty file configures nothing, like "{}" (aclInit treats an empty configuration as defaults).
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    cfg->from_acl_json = true;
    return Status::Ok();
  }
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " tag; keep "parse error at line L, column C: ...".
    if (auto close = what.find("] "); what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      what.erase(0, close + 2);
    return Status(Errc::parse_file, origin + ": invalid JSON: " + what);
  }
  if (!doc.is_object()) {
    std::string found = doc.type_name();
    found = (found == "array" || found == "object" ? "an " : "a ") + found;
    return Status(Errc::parse_file,
                  origin + ": an acl.json file must hold a JSON object ({...}); this one holds " + found);
  }
  std::vector<std::string> notices;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& key = it.key();
    bool known = false;
    for (auto k : kCannKeys) known = known || key == k;
    if (!known) {
      return Status(Errc::file_attr_invalid,
                    origin + json_key_position(text, key) + ": " + key + ": " + quote(key) +
                        " is not an acl.json option (CANN options: " + cann_key_list() +
                        "); ascend-run's own settings go in a TOML configuration file");
    }
    notices.push_back(origin + ": key " + quote(key) + " is a CANN option ascend-run does not use; ignored");
  }
  for (auto& n : notices) cfg->notices.push_back(std::move(n));
  cfg->from_acl_json = true;
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Byte sizes and option values

constexpr uint64_t kKiB = 1ull << 10, kMiB = 1ull << 20, kGiB = 1ull << 30, kTiB = 1ull << 40;

std::string format_bytes(uint64_t v) {
  struct Unit {
    uint64_t size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{kTiB, "TiB"}, {kGiB, "GiB"}, {kMiB, "MiB"}, {kKiB, "KiB"}};
  for (const Unit& u : kUnits) {
    if (v >= u.size) {
      char buf[64];
      if (v % u.size == 0) {
        std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v / u.size), u.name);
      } else {
        std::snprintf(buf, sizeof buf, "%.2f %s", static_cast<double>(v) / static_cast<double>(u.size), u.name);
      }
      return buf;
    }
  }
  return std::to_string(v) + " B";
}

// A schema bound (double) as a byte count, clamped to [0, UINT64_MAX].
uint64_t bound_to_bytes(double d) {
  if (!(d > 0)) return 0;
  if (d >= 18446744073709551615.0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(d);
}

std::string format_number(double d) {
  char buf[64];
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
    std::snprintf(buf, sizeof buf, "%.0f", d);
  } else {
    std::snprintf(buf, sizeof buf, "%g", d);
  }
  return buf;
}

const char* option_type_name(OptionType t) {
  switch (t) {
    case OptionType::Integer: return "integer";
    case OptionType::Float: return "float";
    case OptionType::Boolean: return "boolean";
    case OptionType::String: return "string";
    case OptionType::Bytes: return "bytes";
  }
  return "unknown";
}

std::string schema_key_list(const OptionSpec* specs, uint32_t count) {
  std::string s;
  for (uint32_t i = 0; i < count; ++i) {
    if (!s.empty()) s += ", ";
    s += specs[i].key;
    s += " (";
    s += option_type_name(specs[i].type);
    s += ')';
  }
  return s.empty() ? "none: this plugin takes no options" : s;
}

// Converts one TOML value to the schema's type and checks its range. On failure returns the reason
// (no position, no key); on success stores the value.
std::optional<std::string> convert_option(const OptionSpec& spec, const toml::node& node, plugin::OptionValue* out) {
  auto type_error = [&](std::string_view expected) {
    return "expected " + std::string(expected) + ", got " + type_name(node.type());
  };
  switch (spec.type) {
    case OptionType::Integer: {
      auto* i = node.as_integer();
      if (!i) return type_error("an integer");
      int64_t v = i->get();
      if (!(static_cast<double>(v) >= spec.min && static_cast<double>(v) <= spec.max)) {
        return std::to_string(v) + " is out of range [" + format_number(spec.min) + ", " + format_number(spec.max) +
               "]";
      }
      *out = v;
      return std::nullopt;
    }
    case OptionType::Float: {
      double v = 0;
      if (auto* f = node.as_floating_point()) {
        v = f->get();
      } else if (auto* i = node.as_integer()) {
        v = static_cast<double>(i->get());
      } else {
        return type_error("a number");
      }
      if (!(v >= spec.min && v <= spec.max)) {
        return describe_value(node) + " is out of range [" + format_number(spec.min) + ", " +
               format_number(spec.max) + "]";
      }
      *out = v;
      return std::nullopt;
    }
    case OptionType::Boolean: {
      auto* b = node.as_boolean();
      if (!b) return type_error("a boolean (true or false)");
      *out = b->get();
      return std::nullopt;
    }
    case OptionType::String: {
      auto* s = node.as_string();
      if (!s) return type_error("a string");
      *out = s->get();
      return std::nullopt;
    }
    case OptionType::Bytes: {
      uint64_t bytes = 0;
      if (auto* i = node.as_integer()) {
        if (i->get() < 0) return std::to_string(i->get()) + " is negative; a byte size must be 0 or more";
        bytes = static_cast<uint64_t>(i->get());
      } else if (auto* s = node.as_string()) {
        if (!parse_byte_size(s->get(), &bytes)) {
          return quote(s->get()) +
                 " is not a byte size (write a whole number of bytes, or a number with a unit: "
                 "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, e.g. \"16GiB\", \"512 MiB\", \"1.5GB\")";
        }
      } else {
        return type_error("a byte size (an integer, or a string such as \"16GiB\")");
      }
      uint64_t lo = bound_to_bytes(spec.min), hi = bound_to_bytes(spec.max);
      if (bytes < lo || bytes > hi || bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        std::string given = format_bytes(bytes);
        if (given != std::to_string(bytes) + " B") given += " (" + std::to_string(bytes) + " bytes)";
        return given + " is out of range [" + format_bytes(lo) + ", " + format_bytes(hi) + "]";
      }
      *out = static_cast<int64_t>(bytes);
      return std::nullopt;
    }
  }
  return std::string("unsupported option type");
}

// Splits the "<file>: <key path>" origin PluginEntry uses so messages can put the position after
// the file name. Falls back to the whole origin as the file part.
void split_origin(const std::string& origin, const toml::source_region& where, std::string* file,
                  std::string* key_prefix) {
  *file = origin;
  key_prefix->clear();
  if (where.path) {
    const std::string& p = *where.path;
    if (origin.size() > p.size() + 2 && origin.compare(0, p.size(), p) == 0 &&
        origin.compare(p.size(), 2, ": ") == 0) {
      *file = p;
      *key_prefix = origin.substr(p.size() + 2);
      return;
    }
  }
  // No source path to match (a copied table): key paths never contain ": ", so split at the last one.
  if (auto pos = origin.rfind(": "); pos != std::string::npos && pos > 0) {
    *file = origin.substr(0, pos);
    *key_prefix = origin.substr(pos + 2);
  }
}

Status option_error(const std::string& origin, const toml::source_region& where, std::string_view key,
                    const std::string& reason) {
  std::string file, prefix;
  split_origin(origin, where, &file, &prefix);
  // Callers pass either the entry's origin ("f.toml: plugin[0]") or that plus ".options"; name the
  // options table once either way.
  auto names_options = [](const std::string& p) {
    return p == "options" || (p.size() > 8 && p.compare(p.size() - 8, 8, ".options") == 0);
  };
  std::string path;
  if (prefix.empty()) path = "options." + std::string(key);
  else if (names_options(prefix)) path = prefix + "." + std::string(key);
  else path = prefix + ".options." + std::string(key);
  return error_at(Errc::file_attr_invalid, file, where, path, reason);
}

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
    return Status(Errc::invalid_file,
                  path + ": cannot open config file: " + (err ? std::strerror(err) : "unreadable"));
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
    toml::table doc;
    try {
      doc = toml::parse(text, std::string_view(origin));
    } catch (const toml::parse_error& e) {
      return error_at(Errc::parse_file, origin, e.source(), "",
                      "TOML syntax error: " + std::string(e.description()));
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

Status validate_plugin_options(const toml::table& table, const plugin::OptionSpec* specs, uint32_t count,
                               const std::string& origin, plugin::OptionValues* out) {
  if (!out) return Status(Errc::invalid_param, "validate_plugin_options: out is null");
  if (count != 0 && !specs) return Status(Errc::invalid_param, "validate_plugin_options: specs is null");
  try {
    plugin::OptionValues values;
    for (auto&& [key, node] : table) {
      const OptionSpec* spec = nullptr;
      for (uint32_t i = 0; i < count; ++i) {
        if (specs[i].key && key == specs[i].key) spec = &specs[i];
      }
      if (!spec) {
        toml::source_region where = key.source();
        if (!where.path) where.path = node.source().path;
        return option_error(origin, where, key.str(),
                            "unknown option (valid: " + schema_key_list(specs, count) + ")");
      }
      plugin::OptionValue v;
      if (auto reason = convert_option(*spec, node, &v)) return option_error(origin, node.source(), key.str(), *reason);
      values.set(std::string(key.str()), std::move(v));
    }
    for (uint32_t i = 0; i < count; ++i) {
      const OptionSpec& spec = specs[i];
      if (!spec.key || values.has(spec.key)) continue;
      if (!spec.default_value || !*spec.default_value) continue;  // no default: left absent
      std::string doc_text = std::string("v = ") + spec.default_value;
      std::string reason;
      try {
        toml::table doc = toml::parse(doc_text);
        plugin::OptionValue v;
        if (auto r = convert_option(spec, *doc.get("v"), &v)) {
          reason = *r;
        } else {
          values.set(spec.key, std::move(v));
          continue;
        }
      } catch (const toml::parse_error& e) {
        reason = "not a TOML value: " + std::string(e.description());
      }
      return Status(Errc::internal_error, origin + ": option " + spec.key + ": the plugin's default " +
                                              spec.default_value + " is invalid: " + reason);
    }
    *out = std::move(values);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status(Errc::internal_error, origin + ": unexpected error while validating options: " + e.what());
  }
}

bool parse_byte_size(std::string_view text, uint64_t* out) {
  auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  size_t b = 0, e = text.size();
  while (b < e && is_space(text[b])) ++b;
  while (e > b && is_space(text[e - 1])) --e;
  std::string_view s = text.substr(b, e - b);

  // Number: digits, optionally '.' and more digits. No sign, no exponent.
  size_t i = 0;
  unsigned __int128 whole = 0;
  size_t int_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    whole = whole * 10 + static_cast<unsigned>(s[i] - '0');
    if (whole > std::numeric_limits<uint64_t>::max()) return false;
    ++i;
    ++int_digits;
  }
  if (int_digits == 0) return false;
  unsigned __int128 frac = 0, frac_scale = 1;
  bool has_frac = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t frac_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      // Digits past the 18th cannot change a result of at most 2^64 bytes by a whole byte; ignore them.
      if (frac_digits < 18) {
        frac = frac * 10 + static_cast<unsigned>(s[i] - '0');
        frac_scale *= 10;
      }
      ++i;
      ++frac_digits;
    }
    if (frac_digits == 0) return false;
    has_frac = true;
  }
  while (i < s.size() && is_space(s[i])) ++i;

  std::string unit;
  for (; i < s.size(); ++i) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  uint64_t mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "kib") mult = kKiB;
  else if (unit == "mib") mult = kMiB;
  else if (unit == "gib") mult = kGiB;
  else if (unit == "tib") mult = kTiB;
  else if (unit == "kb") mult = 1000ull;
  else if (unit == "mb") mult = 1000ull * 1000;
  else if (unit == "gb") mult = 1000ull * 1000 * 1000;
  else if (unit == "tb") mult = 1000ull * 1000 * 1000 * 1000;
  else return false;
  // A fraction of a byte is meaningless; with a larger unit the result is rounded down to whole bytes.
  if (has_frac && mult == 1) return false;

  unsigned __int128 total = whole * mult + frac * mult / frac_scale;
  if (total > std::numeric_limits<uint64_t>::max()) return false;
  if (out) *out = static_cast<uint64_t>(total);
  return true;
}

std::optional<plugin::LogLevel> log_level_from_env() {
  const char* v = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  if (!v || v[0] < '0' || v[0] > '4' || v[1] != '\0') return std::nullopt;
  return static_cast<plugin::LogLevel>(v[0] - '0');
}

}  // namespace arun
