#include "plugins/plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <boost/dll/import.hpp>
#include <filesystem>

#include "base/install_paths.hpp"
#include "base/logging.hpp"
#include "plugins/host_services.hpp"

namespace arun {
namespace fs = std::filesystem;

const char* plugin::kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::Device:
      return "device";
    case PluginKind::Allocator:
      return "allocator";
    case PluginKind::Profiler:
      return "profiler";
    case PluginKind::Scheduler:
      return "scheduler";
  }
  return "unknown";
}

plugin::HostServices* plugin_host_services_for_factory() {
  return host_services();
}

std::string plugin_file_name(plugin::PluginKind kind, const std::string& name) {
  return std::string("libarun_") + plugin::kind_name(kind) + "_" + name + ".so";
}

namespace {

std::string abi_string(uint16_t major, uint16_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace

Status load_plugin_library(const std::string& path, const plugin::PluginKind* expected_kind,
                           const std::string* expected_name, LoadedPlugin* out) {
  std::error_code fec;
  if (!fs::exists(path, fec)) return Status(Errc::invalid_file, "plugin file " + path + " does not exist");

  auto library = std::make_shared<boost::dll::shared_library>();
  boost::system::error_code ec;
  library->load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) {
    // Boost.DLL consumes dlerror(); ask the dynamic loader again for the real reason.
    std::string why = ec.message();
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      dlclose(h);
    } else if (const char* e = dlerror()) {
      why = e;
    }
    return Status(Errc::invalid_file, "cannot load plugin " + path + ": " + why);
  }
  if (!library->has("arun_plugin_descriptor")) {
    return Status(Errc::invalid_file, "plugin " + path +
                                          " does not export the symbol arun_plugin_descriptor "
                                          "(is it an ascend-run plugin? declare it with ARUN_DECLARE_PLUGIN)");
  }
  const auto& desc = library->get_alias<const plugin::PluginDescriptor>("arun_plugin_descriptor");
  if (desc.magic != plugin::kPluginMagic) {
    return Status(Errc::invalid_file, "plugin " + path + " has a descriptor with a wrong magic number");
  }
  if (desc.abi_major != plugin::kAbiMajor || desc.abi_minor > plugin::kAbiMinor) {
    return Status(Errc::file_attr_invalid,
                  "plugin " + path + " was built for plugin ABI " + abi_string(desc.abi_major, desc.abi_minor) +
                      " but this runtime provides ABI " + abi_string(plugin::kAbiMajor, plugin::kAbiMinor) +
                      " (same major and a minor no newer are required); rebuild the plugin");
  }
  if (desc.struct_size < sizeof(plugin::PluginDescriptor)) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " has a truncated descriptor (" +
                                               std::to_string(desc.struct_size) + " bytes, expected at least " +
                                               std::to_string(sizeof(plugin::PluginDescriptor)) + ")");
  }
  if (desc.name == nullptr || desc.create == nullptr || desc.version == nullptr) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " has a descriptor without name, version or factory");
  }
  if (expected_kind && desc.kind != *expected_kind) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " is a " + plugin::kind_name(desc.kind) +
                                               " plugin, but the config asks for a " +
                                               plugin::kind_name(*expected_kind) + " plugin");
  }
  if (expected_name && *expected_name != desc.name) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " is named \"" + desc.name +
                                               "\", but the config asks for \"" + *expected_name + "\"");
  }
  out->library = std::move(library);
  out->descriptor = &desc;
  out->path = path;
  return Status::Ok();
}

Status load_plugin_entry(const PluginEntry& entry, const std::vector<std::string>& search_paths, LoadedPlugin* out,
                         std::vector<std::string>* tried) {
  if (!entry.path.empty()) {
    if (tried) tried->push_back(entry.path);
    Status st = load_plugin_library(entry.path, &entry.kind, &entry.name, out);
    if (!st.ok()) return Status(st.code(), entry.origin + ": " + st.message());
    return st;
  }
  std::vector<std::string> dirs = search_paths;
  dirs.push_back(builtin_plugin_dir());
  const std::string file = plugin_file_name(entry.kind, entry.name);
  std::string looked;
  for (const auto& dir : dirs) {
    std::string candidate = (fs::path(dir) / file).string();
    if (tried) tried->push_back(candidate);
    looked += "\n  " + candidate;
    std::error_code ec;
    if (!fs::exists(candidate, ec)) continue;
    Status st = load_plugin_library(candidate, &entry.kind, &entry.name, out);
    if (!st.ok()) return Status(st.code(), entry.origin + ": " + st.message());
    return st;
  }
  return Status(Errc::invalid_file, entry.origin + ": " + plugin::kind_name(entry.kind) + " plugin \"" + entry.name +
                                        "\" not found; looked for:" + looked);
}

LoadedPluginInfo describe_plugin(const LoadedPlugin& plugin, const std::string& origin, uint32_t device_count) {
  const plugin::PluginDescriptor& d = *plugin.descriptor;
  return {plugin::kind_name(d.kind),
          d.name,
          d.version,
          plugin.path,
          d.build_id ? d.build_id : "",
          origin,
          d.abi_major,
          d.abi_minor,
          device_count};
}

PluginProbe probe_plugin_file(const std::string& path) {
  PluginProbe probe;
  probe.path = path;
  LoadedPlugin loaded;
  Status st = load_plugin_library(path, nullptr, nullptr, &loaded);
  if (!st.ok()) {
    probe.reason = st.message();
    return probe;
  }
  const auto& d = *loaded.descriptor;
  probe.ok = true;
  probe.kind = plugin::kind_name(d.kind);
  probe.name = d.name;
  probe.version = d.version;
  probe.build_id = d.build_id ? d.build_id : "";
  probe.description = d.description ? d.description : "";
  probe.abi_major = d.abi_major;
  probe.abi_minor = d.abi_minor;
  return probe;
}

std::vector<PluginProbe> probe_plugin_dir(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libarun_", 0) == 0 && e.path().extension() == ".so") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<PluginProbe> probes;
  for (const auto& f : files) probes.push_back(probe_plugin_file(f));
  return probes;
}

}  // namespace arun
