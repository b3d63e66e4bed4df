// PluginLoader: finds, loads and checks plugin libraries with Boost.DLL.
// A loaded library stays mapped as long as anything holds its LoadedPlugin::library, and every
// object a plugin creates holds it through its deleter, so no code is unmapped while in use.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "config/config.hpp"
#include "arun/core/status.hpp"
#include "arun/plugin/plugin_abi.hpp"

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
Status load_plugin_entry(const PluginEntry& entry, const std::vector<std::string>& search_paths,
                         LoadedPlugin* out, std::vector<std::string>* tried);

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

}  // namespace arun
