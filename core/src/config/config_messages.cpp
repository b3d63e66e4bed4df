// The configuration readers' message helpers (config_detail.hpp says the layout).
#include <cstdio>
#include <sstream>

#include "config/config_detail.hpp"

namespace arun::config_detail {

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
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
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

Status unknown_key(const std::string& origin, const toml::key& key, const std::string& path, std::string_view valid) {
  std::string reason = "unknown key (valid: ";
  reason += valid;
  reason += ')';
  return error_at(Errc::file_attr_invalid, origin, key.source(), path, reason);
}

std::string child_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

}  // namespace arun::config_detail
