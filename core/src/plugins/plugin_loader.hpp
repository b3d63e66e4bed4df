// PluginLoader: finds, loads and checks plugin libraries with Boost.DLL.
// A loaded library stays mapped as long as anything holds its LoadedPlugin::library, and every
// object a plugin creates holds it through its deleter, so no code is unmapped while in use.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arun/core/status.hpp"
#include "arun/plugin/plugin_descriptor.hpp"
#include "config/config.hpp"

namespace arun {

struct LoadedPlugin {
  // The Boost.DLL library, type-erased: holders only keep it mapped, and Boost.DLL's headers stay
  // out of every file that includes this one (they cost ~1.5 s of compile time each).
  std::shared_ptr<void> library;
  const plugin::PluginDescriptor* descriptor = nullptr;  // checked: in the library's loaded data
  std::string path;                                      // canonical
  // Copies of the descriptor's strings, each read with a bound (the plugin's own may be anything).
  std::string name, version, build_id, description;
};

// Where plugins may come from and whether unsafe files are accepted ([runtime]
// plugin_search_paths and allow_insecure_plugins; the built-in plugin folder is always last).
struct PluginSearch {
  std::vector<std::string> dirs;
  bool allow_insecure = false;
};
PluginSearch plugin_search(const RuntimeConfig& config);

// One library looked at, for `ascend-run info` and error messages. Probing reads the file (its ELF
// dynamic symbols and descriptor bytes, plugin_elf.hpp) and never loads it: no plugin code runs.
struct PluginProbe {
  std::string path;
  bool ok = false;
  std::string reason;  // why it was rejected, when !ok
  std::string kind, name, version, build_id, description;
  uint16_t abi_major = 0, abi_minor = 0;
};

// Is `path` safe to load? Resolves it canonically (into `canonical`) and refuses anything but a
// regular file, and a file or folder writable by group or others or owned by another user than
// root or the current one (unless `allow_insecure`). Errc::invalid_file, naming the file and why.
Status check_plugin_file(const std::string& path, bool allow_insecure, std::string* canonical);

// Loads `path` and checks its descriptor: first in the file, before anything runs (the file's
// safety, the descriptor symbol's type and size, magic, ABI: same major, minor not newer than
// ours; struct size; and, when given, kind and name), then in the loaded library (the symbol and
// the descriptor lie in its data, the strings are bounded, the factory is in its code). Errors
// name the file and both ABI versions.
Status load_plugin_library(const std::string& path, const plugin::PluginKind* expected_kind,
                           const std::string* expected_name, LoadedPlugin* out, bool allow_insecure = false);

// Resolves a [[plugin]] entry: its explicit path, or libarun_<kind>_<name>.so in the search
// folders (config folders first, then the built-in plugin folder). Either way the file, resolved
// canonically, must lie in one of those folders. `tried` lists every path looked at.
Status load_plugin_entry(const PluginEntry& entry, const PluginSearch& search, LoadedPlugin* out,
                         std::vector<std::string>* tried);

// Every libarun_*.so in `dir`, described from its file or with the reason it was rejected.
std::vector<PluginProbe> probe_plugin_dir(const std::string& dir, bool allow_insecure = false);
PluginProbe probe_plugin_file(const std::string& path, bool allow_insecure = false);

std::string plugin_file_name(plugin::PluginKind kind, const std::string& name);

plugin::HostServices* plugin_host_services_for_factory();

// Calls the plugin's factory; the returned object keeps the library loaded. A factory that fails,
// throws or returns an object of another interface is an error naming the plugin and its file.
Status call_plugin_factory(const LoadedPlugin& plugin, const plugin::OptionValues& options, plugin::PluginObject** out);
template <class Interface>
Status create_plugin_object(const LoadedPlugin& plugin, const plugin::OptionValues& options,
                            std::shared_ptr<Interface>* out) {
  plugin::PluginObject* raw = nullptr;
  ARUN_RETURN_IF_ERROR(call_plugin_factory(plugin, options, &raw));
  auto* typed = dynamic_cast<Interface*>(raw);
  if (typed == nullptr) {
    delete raw;
    return Status(Errc::file_attr_invalid, "plugin " + plugin.name + " (" + plugin.path +
                                               ") returned an object that is not of its kind's interface");
  }
  auto library = plugin.library;
  *out = std::shared_ptr<Interface>(typed, [library](Interface* p) { delete p; });
  return Status::Ok();
}

// What a loaded plugin is, for `ascend-run info` and Runtime::plugins().
struct LoadedPluginInfo {
  std::string kind, name, version, path, build_id, origin;
  uint16_t abi_major = 0, abi_minor = 0;
  uint32_t device_count = 0;
};
LoadedPluginInfo describe_plugin(const LoadedPlugin& plugin, const std::string& origin, uint32_t device_count = 0);

// A plugin object made by load_plugin_object.
template <class Interface>
struct PluginInstance {
  LoadedPlugin library;               // the library and its descriptor
  plugin::OptionValues options;       // the validated options, defaults filled
  std::shared_ptr<Interface> object;  // what the factory made; it keeps the library loaded
};

// The step of load_plugin_object that failed.
enum class PluginLoadStep { Load, Options, Create };

// The one plugin-load sequence, for every kind: resolves and loads `entry` (load_plugin_entry),
// validates `options` against the option schema the plugin declares (messages name
// `options_origin`), and calls its factory for an `Interface`. Each step's Status is returned
// unchanged (see load_plugin_entry, validate_plugin_options, create_plugin_object); `failed`, when
// given, says which step it was, for callers that report a step under their own code.
template <class Interface>
Status load_plugin_object(const PluginEntry& entry, const PluginSearch& search, const toml::table& options,
                          const std::string& options_origin, PluginInstance<Interface>* out,
                          PluginLoadStep* failed = nullptr) {
  PluginLoadStep step = PluginLoadStep::Load;
  Status st = load_plugin_entry(entry, search, &out->library, nullptr);
  if (st.ok()) {
    step = PluginLoadStep::Options;
    const plugin::PluginDescriptor& d = *out->library.descriptor;
    st = validate_plugin_options(options, d.options, d.option_count, options_origin, &out->options);
  }
  if (st.ok()) {
    step = PluginLoadStep::Create;
    st = create_plugin_object(out->library, out->options, &out->object);
  }
  if (!st.ok() && failed != nullptr) *failed = step;
  return st;
}

}  // namespace arun
