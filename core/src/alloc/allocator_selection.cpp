// Choosing the device-memory allocator policy (Runtime::choose_allocator).
//
// Precedence (choose_setting, config/setting.hpp): ASCEND_RUN_ALLOC ("NAME[:key=value,...]", the
// syntax of ASCEND_RUN_SCHED), then the config's [allocator] table (`policy` plus that policy's
// options), then `direct`. `direct` is built
// in and takes no options; any other name is an allocator plugin (libarun_allocator_<name>.so, found
// through a [[plugin]] entry or in the plugin folders) whose option schema checks the options.
#include <cstdlib>

#include "base/logging.hpp"
#include "config/setting.hpp"
#include "runtime/runtime.hpp"
#include "sched/policy_registry.hpp"

namespace arun {

namespace {

std::string describe_options(const plugin::OptionValues& values) {
  std::string out;
  for (const auto& [key, value] : values.all()) {
    if (!out.empty()) out += ", ";
    out += key + " = ";
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            out += "\"" + v + "\"";
          } else if constexpr (std::is_same_v<T, bool>) {
            out += v ? "true" : "false";
          } else {
            out += std::to_string(v);
          }
        },
        value);
  }
  return out.empty() ? "(no options)" : out;
}

}  // namespace

Status Runtime::choose_allocator() {
  PolicySpec spec;
  Errc code = Errc::invalid_param;
  const SettingChoice from = choose_setting("", std::nullopt, "ASCEND_RUN_ALLOC", !config_.source_path.empty());
  if (from.from == SettingChoice::From::Environment) {
    ARUN_RETURN_IF_ERROR(parse_policy_spec(from.text, "ASCEND_RUN_ALLOC=\"" + from.text + "\"", &spec));
  } else {
    spec.name = config_.allocator_policy;
    spec.options = std::move(config_.allocator_options);  // moved: keeps the source positions
    spec.origin = config_.source_path.empty() ? std::string("built-in defaults") : config_.source_path;
    spec.from_toml = true;
    code = Errc::file_attr_invalid;
  }
  spec.source = from.source;
  const std::string where = spec.origin + (spec.from_toml ? ": allocator" : "");
  auto choice = std::make_shared<AllocatorChoice>();
  choice->name = spec.name;
  choice->source = spec.source;
  if (spec.name == "direct") {
    if (!spec.options.empty()) {
      auto first = spec.options.begin();  // kept: its element refers into the iterator
      const auto& [key, node] = *first;
      std::string at;
      if (spec.from_toml && node.source().begin.line != 0)
        at = ":" + std::to_string(node.source().begin.line) + ":" + std::to_string(node.source().begin.column);
      return Status(code, spec.origin + at + (spec.from_toml ? ": allocator." : ": ") + std::string(key.str()) +
                              ": the direct allocator takes no options");
    }
    choice->options = "(no options)";
  } else {
    // An allocator plugin: the config's [[plugin]] entry for it, or one found in the plugin folders.
    PluginEntry implicit;
    const PluginEntry* entry = nullptr;
    for (const auto& e : config_.plugins) {
      if (e.kind == plugin::PluginKind::Allocator && e.name == spec.name) entry = &e;
    }
    if (entry == nullptr) {
      std::string found;
      bool exists = false;
      for (const auto& name : installed_plugins("allocator")) {
        found += ", " + name;
        exists = exists || name == spec.name;
      }
      if (!exists) {
        return Status(code,
                      (spec.from_toml ? spec.origin + config_.allocator_policy_at + ": allocator.policy" : where) +
                          ": unknown allocator policy \"" + spec.name + "\" (valid: direct" + found + ")");
      }
      implicit.kind = plugin::PluginKind::Allocator;
      implicit.name = spec.name;
      implicit.origin = "allocator policy \"" + spec.name + "\"";
      entry = &implicit;
    }
    if (!entry->options.empty()) {
      return Status(Errc::file_attr_invalid, entry->origin +
                                                 ".options: allocator options belong in the [allocator] "
                                                 "table (or ASCEND_RUN_ALLOC), not in the [[plugin]] entry");
    }
    // The options come from the [allocator] table (or ASCEND_RUN_ALLOC), and the policy's code
    // reports a bad option or a failed factory.
    PluginInstance<plugin::AllocatorPlugin> loaded;
    PluginLoadStep failed = PluginLoadStep::Load;
    Status st = load_plugin_object(*entry, plugin_search(config_), spec.options, where, &loaded, &failed);
    if (!st.ok()) {
      if (failed == PluginLoadStep::Options) return Status(code, st.message());
      if (failed == PluginLoadStep::Create) return Status(code, where + ": " + st.message());
      return st;
    }
    choice->plugin = std::move(loaded.object);
    choice->options = describe_options(loaded.options);
    plugins_.push_back(describe_plugin(loaded.library, entry->origin));
  }
  // Diagnostics that apply to every policy.
  if (const char* path = std::getenv("ASCEND_RUN_ALLOC_TRACE"); path != nullptr && path[0] != '\0') {
    ARUN_RETURN_IF_ERROR(AllocTrace::open(path, &choice->trace));
  }
  choice->report_at_close = config_.memory_report;
  if (const SettingChoice report = choose_setting("", std::nullopt, "ASCEND_RUN_MEM_REPORT", true);
      report.from == SettingChoice::From::Environment) {
    const std::string& v = report.text;
    if (v == "1" || v == "true" || v == "on") {
      choice->report_at_close = true;
    } else if (v == "0" || v == "false" || v == "off") {
      choice->report_at_close = false;
    } else {
      return Status(Errc::invalid_param, "ASCEND_RUN_MEM_REPORT=\"" + v + "\": expected 1/true/on or 0/false/off");
    }
  }
  allocator_ = choice;
  log().debug("allocator: {} ({}) from {}", choice->name, choice->options, choice->source);
  return Status::Ok();
}

}  // namespace arun
