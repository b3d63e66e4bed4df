// PluginLoader: finds, loads and checks plugin libraries with Boost.DLL.
// A loaded library stays mapped as long as anything holds its LoadedPlugin::library, and every
// object a plugin creates holds it through its deleter, so no code is unmapped while in use.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "arun/core/status.hpp"
#include "arun/plugin/plugin_abi.hpp"
#include "config/config.hpp"

namespace arun {

struct LoadedPlugin {
  std::shared_ptr<boost::dll::shared_library> library;
  const plugin::PluginDescriptor* descriptor = nullptr;
  std::string path;
};

// One library looked at, for `ascend-run info` and error messages.
struct PluginProbe {
  std::string path;
  bool ok = false;
  std::string reason;  // why it was rejected, when !ok
  std::string kind, name, version, build_id, description;
  uint16_t abi_major = 0, abi_minor = 0;
};

// Loads `path` and checks its descriptor: magic, ABI (same major, minor not newer than ours),
// struct size; and, when given, kind and name. Errors name the file and both ABI versions.
Status load_plugin_library(const std::string& path, const plugin::PluginKind* expected_kind,
                           const std::string* expected_name, LoadedPlugin* out);

// Resolves a [[plugin]] entry: its explicit path, or libarun_<kind>_<name>.so in the search
// folders (config folders first, then the built-in plugin folder). `tried` lists every path looked at.
Status load_plugin_entry(const PluginEntry& entry, const std::vector<std::string>& search_paths, LoadedPlugin* out,
                         std::vector<std::string>* tried);

// Every libarun_*.so in `dir`, loaded and described or with the reason it was rejected.
std::vector<PluginProbe> probe_plugin_dir(const std::string& dir);
PluginProbe probe_plugin_file(const std::string& path);

std::string plugin_file_name(plugin::PluginKind kind, const std::string& name);

plugin::HostServices* plugin_host_services_for_factory();

// Calls the plugin's factory; the returned object keeps the library loaded.
template <class Interface>
Status create_plugin_object(const LoadedPlugin& plugin, const plugin::OptionValues& options,
                            std::shared_ptr<Interface>* out) {
  char error[512] = {0};
  plugin::PluginObject* raw =
      plugin.descriptor->create(plugin_host_services_for_factory(), &options, error, sizeof(error));
  if (raw == nullptr) {
    return Status(Errc::file_attr_invalid, "plugin " + std::string(plugin.descriptor->name) + " (" + plugin.path +
                                               ") failed to start: " + (error[0] ? error : "no reason given"));
  }
  auto* typed = dynamic_cast<Interface*>(raw);
  if (typed == nullptr) {
    delete raw;
    return Status(Errc::file_attr_invalid,
                  "plugin " + plugin.path + " returned an object that is not of its kind's interface");
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
Status load_plugin_object(const PluginEntry& entry, const std::vector<std::string>& search_paths,
                          const toml::table& options, const std::string& options_origin, PluginInstance<Interface>* out,
                          PluginLoadStep* failed = nullptr) {
  PluginLoadStep step = PluginLoadStep::Load;
  Status st = load_plugin_entry(entry, search_paths, &out->library, nullptr);
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
