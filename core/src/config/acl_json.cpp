// Reading a CANN acl.json (aclInit(path) with a ".json" path): CANN's own keys are acknowledged and
// ignored (none configures anything ascend-run does); anything else is an error. The runtime then
// takes its whole configuration from the installed default config (default_config.cpp).
// nlohmann_json exceptions are caught and turned into Status values.
#include <nlohmann/json.hpp>

#include "config/config_detail.hpp"

namespace arun::config_detail {
namespace {

// Top-level keys CANN's aclInit understands (dump, profiling, error-message mode, default device,
// op-cache ageing, AI Core stack size, printf FIFO sizes, aclGraph event mode, op debugging).
// None of them configures anything ascend-run does, so each is acknowledged with a notice.
constexpr std::string_view kCannKeys[] = {
    "dump",          "profiler",         "err_msg_mode",
    "defaultDevice", "max_opqueue_num",  "StackSize",
    "stack_size",    "printf_fifo_size", "simd_printf_fifo_size_per_core",
    "acl_graph",     "op_debug_config",
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
    while (after < text.size() &&
           (text[after] == ' ' || text[after] == '\t' || text[after] == '\r' || text[after] == '\n'))
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

}  // namespace

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
      return Status(Errc::file_attr_invalid, origin + json_key_position(text, key) + ": " + key + ": " + quote(key) +
                                                 " is not an acl.json option (CANN options: " + cann_key_list() +
                                                 "); ascend-run's own settings go in a TOML configuration file");
    }
    notices.push_back(origin + ": key " + quote(key) + " is a CANN option ascend-run does not use; ignored");
  }
  for (auto& n : notices) cfg->notices.push_back(std::move(n));
  cfg->from_acl_json = true;
  return Status::Ok();
}

}  // namespace arun::config_detail
