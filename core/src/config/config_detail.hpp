// What the configuration readers share (core-private): the message layout and the TOML value
// helpers used by toml_config.cpp and option_schema.cpp, and the acl.json reader toml_config.cpp
// dispatches to.
//
// Messages follow one layout so that editors and people can jump to the spot:
//   <file>:<line>:<column>: <key path>: <reason>
// The position is left out where TOML++ has none (values built in memory, copied tables).
// Key paths index arrays from 0, as TOML++'s own path syntax does: plugin[0] is the first [[plugin]].
#pragma once

#include <string>
#include <string_view>

#include "config/config.hpp"

namespace arun::config_detail {

// "<origin>:<line>:<column>", or just origin when TOML++ has no position.
std::string position_prefix(const std::string& origin, const toml::source_region& where);
// A Status with `code` and the message "<origin>:<l>:<c>: <key>: <reason>".
Status error_at(Errc code, const std::string& origin, const toml::source_region& where, std::string_view key,
                std::string_view reason);
// "table", "integer", ... for messages.
const char* type_name(toml::node_type t);
// `s` in double quotes, with quotes, backslashes and control characters escaped.
std::string quote(std::string_view s);
// A short rendering of a TOML value for messages: strings quoted, scalars as written.
std::string describe_value(const toml::node& node);
// Errc::file_attr_invalid: "expected <expected>, got <type>".
Status wrong_type(const std::string& origin, const toml::node& node, std::string_view key, std::string_view expected);
// Errc::file_attr_invalid: "unknown key (valid: <valid>)".
Status unknown_key(const std::string& origin, const toml::key& key, const std::string& path, std::string_view valid);
// "parent.key", or "key" at the top level.
std::string child_path(const std::string& parent, std::string_view key);

// Reads a CANN acl.json (acl_json.cpp): CANN's keys are acknowledged with a notice each and
// configure nothing; sets cfg->from_acl_json. Errors: Errc::parse_file (not JSON, not an object),
// Errc::file_attr_invalid (a key CANN does not know either).
Status parse_acl_json(std::string_view text, const std::string& origin, RuntimeConfig* cfg);

}  // namespace arun::config_detail
