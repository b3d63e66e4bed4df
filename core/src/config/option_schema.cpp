// Plugin option schemas: validating a [plugin.options] (or [allocator] / [scheduler]) table against
// the OptionSpec table a plugin's descriptor declares, filling the defaults; and byte sizes
// ("16GiB", "512 MiB", "1.5GB"), the one value syntax options and the [profiler] section share.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>

#include "config/config.hpp"
#include "config/config_detail.hpp"

namespace arun {
namespace {

using namespace config_detail;
using plugin::OptionSpec;
using plugin::OptionType;

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
    case OptionType::Integer:
      return "integer";
    case OptionType::Float:
      return "float";
    case OptionType::Boolean:
      return "boolean";
    case OptionType::String:
      return "string";
    case OptionType::Bytes:
      return "bytes";
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
        return describe_value(node) + " is out of range [" + format_number(spec.min) + ", " + format_number(spec.max) +
               "]";
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
    if (origin.size() > p.size() + 2 && origin.compare(0, p.size(), p) == 0 && origin.compare(p.size(), 2, ": ") == 0) {
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
  if (prefix.empty())
    path = "options." + std::string(key);
  else if (names_options(prefix))
    path = prefix + "." + std::string(key);
  else
    path = prefix + ".options." + std::string(key);
  return error_at(Errc::file_attr_invalid, file, where, path, reason);
}

}  // namespace

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
        return option_error(origin, where, key.str(), "unknown option (valid: " + schema_key_list(specs, count) + ")");
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
  if (unit.empty() || unit == "b")
    mult = 1;
  else if (unit == "kib")
    mult = kKiB;
  else if (unit == "mib")
    mult = kMiB;
  else if (unit == "gib")
    mult = kGiB;
  else if (unit == "tib")
    mult = kTiB;
  else if (unit == "kb")
    mult = 1000ull;
  else if (unit == "mb")
    mult = 1000ull * 1000;
  else if (unit == "gb")
    mult = 1000ull * 1000 * 1000;
  else if (unit == "tb")
    mult = 1000ull * 1000 * 1000 * 1000;
  else
    return false;
  // A fraction of a byte is meaningless; with a larger unit the result is rounded down to whole bytes.
  if (has_frac && mult == 1) return false;

  unsigned __int128 total = whole * mult + frac * mult / frac_scale;
  if (total > std::numeric_limits<uint64_t>::max()) return false;
  if (out) *out = static_cast<uint64_t>(total);
  return true;
}

}  // namespace arun
