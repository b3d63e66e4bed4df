#include "plugins/plugin_loader.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <filesystem>

#include "base/install_paths.hpp"
#include "base/logging.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_elf.hpp"

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
    case PluginKind::Collective:
      return "collective";
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

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Why `st` (of `what`: "file" or "folder") is unsafe to load from, or "".
std::string unsafe_reason(const struct stat& st, const std::string& what, const std::string& path) {
  if (st.st_uid != 0 && st.st_uid != geteuid()) {
    return "its " + what + " " + path + " is owned by uid " + std::to_string(st.st_uid) +
           " (only root's or the current user's are loaded)";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "its " + what + " " + path + " is writable by " +
           ((st.st_mode & S_IWOTH) ? std::string("others") : std::string("its group")) + " (mode " +
           octal_mode(st.st_mode) + ")";
  }
  return "";
}

// Checks the header fields of a descriptor (read from the file or from the loaded library).
Status check_header(const std::string& path, uint32_t magic, uint16_t abi_major, uint16_t abi_minor,
                    uint32_t struct_size) {
  if (magic != plugin::kPluginMagic) {
    return Status(Errc::invalid_file, "plugin " + path + " has a descriptor with a wrong magic number");
  }
  if (abi_major != plugin::kAbiMajor || abi_minor > plugin::kAbiMinor) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " was built for plugin ABI " +
                                               abi_string(abi_major, abi_minor) + " but this runtime provides ABI " +
                                               abi_string(plugin::kAbiMajor, plugin::kAbiMinor) +
                                               " (same major and a minor no newer are required); rebuild the plugin");
  }
  if (struct_size < sizeof(plugin::PluginDescriptor)) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " has a truncated descriptor (" +
                                               std::to_string(struct_size) + " bytes, expected at least " +
                                               std::to_string(sizeof(plugin::PluginDescriptor)) + ")");
  }
  return Status::Ok();
}

bool valid_kind(uint32_t kind) {
  return kind >= static_cast<uint32_t>(plugin::PluginKind::Device) &&
         kind <= static_cast<uint32_t>(plugin::PluginKind::Collective);
}

// The file's descriptor, checked; no code of the plugin runs.
Status read_checked_descriptor(const std::string& path, FileDescriptor* fd) {
  ARUN_RETURN_IF_ERROR(read_plugin_descriptor_file(path, fd));
  ARUN_RETURN_IF_ERROR(check_header(path, fd->magic, fd->abi_major, fd->abi_minor, fd->struct_size));
  if (fd->name.empty() || !fd->has_factory) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " has a descriptor without name, version or factory");
  }
  if (!valid_kind(fd->kind)) {
    return Status(Errc::file_attr_invalid,
                  "plugin " + path + " has a descriptor of unknown kind " + std::to_string(fd->kind));
  }
  for (char c : fd->name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return Status(Errc::file_attr_invalid,
                    "plugin " + path + " has a name that is not lowercase letters, digits and '_'");
    }
  }
  if (fd->option_count > kPluginOptionMax) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " declares " + std::to_string(fd->option_count) +
                                               " options (at most " + std::to_string(kPluginOptionMax) + ")");
  }
  return Status::Ok();
}

// The loaded segments of one library, for checking that what its descriptor points at lies in it.
struct LoadedRange {
  uintptr_t begin, end;
  bool exec;
};

std::vector<LoadedRange> loaded_ranges(void* handle) {
  struct link_map* lm = nullptr;
  std::vector<LoadedRange> ranges;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr) return ranges;
  struct Ctx {
    struct link_map* lm;
    std::vector<LoadedRange>* ranges;
  } ctx{lm, &ranges};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        if (info->dlpi_addr != c->lm->l_addr || info->dlpi_name == nullptr || c->lm->l_name == nullptr ||
            std::strcmp(info->dlpi_name, c->lm->l_name) != 0) {
          return 0;
        }
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_R) == 0) continue;
          uintptr_t b = info->dlpi_addr + ph.p_vaddr;
          c->ranges->push_back({b, b + ph.p_memsz, (ph.p_flags & PF_X) != 0});
        }
        return 1;
      },
      &ctx);
  return ranges;
}

const LoadedRange* range_of(const std::vector<LoadedRange>& ranges, const void* p, size_t n) {
  auto a = reinterpret_cast<uintptr_t>(p);
  for (const auto& r : ranges) {
    if (a >= r.begin && a < r.end && n <= r.end - a) return &r;
  }
  return nullptr;
}

// A NUL-terminated string inside the library's data, at most `max` bytes long.
bool bounded_string(const std::vector<LoadedRange>& ranges, const char* s, size_t max, std::string* out) {
  const LoadedRange* r = range_of(ranges, s, 1);
  if (r == nullptr) return false;
  const size_t avail = std::min<size_t>(r->end - reinterpret_cast<uintptr_t>(s), max + 1);
  const size_t len = strnlen(s, avail);
  if (len == avail) return false;
  out->assign(s, len);
  return true;
}

// Checks the loaded library's descriptor against the file's and that everything it points at lies
// in the library: the object behind the symbol, the strings (bounded), the option table and its
// strings, the factory (in code).
Status check_loaded_descriptor(void* handle, const std::string& path, const FileDescriptor& fd, LoadedPlugin* out) {
  void* sym = dlsym(handle, "arun_plugin_descriptor");
  if (sym == nullptr) {
    return Status(Errc::invalid_file, "plugin " + path + " does not export the symbol arun_plugin_descriptor");
  }
  Dl_info info{};
  void* extra = nullptr;
  const int found = dladdr1(sym, &info, &extra, RTLD_DL_SYMENT);
  const auto* entry = static_cast<const ElfW(Sym)*>(extra);
  if (found == 0 || entry == nullptr || ELF64_ST_TYPE(entry->st_info) != STT_OBJECT ||
      entry->st_size != sizeof(void*)) {
    return Status(Errc::invalid_file,
                  "plugin " + path + ": the loaded arun_plugin_descriptor is not a pointer-sized data object");
  }
  const std::vector<LoadedRange> ranges = loaded_ranges(handle);
  if (range_of(ranges, sym, sizeof(void*)) == nullptr) {
    return Status(Errc::invalid_file, "plugin " + path + ": arun_plugin_descriptor resolves outside the library");
  }
  const auto* d = *static_cast<const plugin::PluginDescriptor* const*>(sym);
  if (d == nullptr || range_of(ranges, d, sizeof(*d)) == nullptr) {
    return Status(Errc::invalid_file, "plugin " + path + ": its descriptor pointer is null or outside the library");
  }
  if (d->magic != fd.magic || d->abi_major != fd.abi_major || d->abi_minor != fd.abi_minor ||
      d->struct_size != fd.struct_size || static_cast<uint32_t>(d->kind) != fd.kind ||
      d->option_count != fd.option_count) {
    return Status(Errc::invalid_file, "plugin " + path + ": its loaded descriptor differs from the one in its file");
  }
  if (d->name == nullptr || d->version == nullptr || d->create == nullptr) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " has a descriptor without name, version or factory");
  }
  const LoadedRange* code = range_of(ranges, reinterpret_cast<const void*>(d->create), 1);
  if (code == nullptr || !code->exec) {
    return Status(Errc::invalid_file, "plugin " + path + ": its factory is not in the library's code");
  }
  auto field = [&](const char* s, const char* what, size_t max, std::string* dst) -> Status {
    if (s == nullptr) return Status::Ok();
    if (!bounded_string(ranges, s, max, dst)) {
      return Status(Errc::invalid_file, "plugin " + path + ": its descriptor's " + what +
                                            " is not a NUL-terminated string of at most " + std::to_string(max) +
                                            " bytes in the library");
    }
    return Status::Ok();
  };
  ARUN_RETURN_IF_ERROR(field(d->name, "name", kPluginStringMax, &out->name));
  ARUN_RETURN_IF_ERROR(field(d->version, "version", kPluginStringMax, &out->version));
  ARUN_RETURN_IF_ERROR(field(d->build_id, "build id", kPluginStringMax, &out->build_id));
  ARUN_RETURN_IF_ERROR(field(d->description, "description", kPluginTextMax, &out->description));
  if (out->name != fd.name) {
    return Status(Errc::invalid_file, "plugin " + path + ": its loaded descriptor differs from the one in its file");
  }
  if (d->option_count > 0) {
    if (d->options == nullptr ||
        range_of(ranges, d->options, sizeof(plugin::OptionSpec) * d->option_count) == nullptr) {
      return Status(Errc::invalid_file, "plugin " + path + ": its option table is outside the library");
    }
    std::string scratch;
    for (uint32_t i = 0; i < d->option_count; ++i) {
      const plugin::OptionSpec& o = d->options[i];
      if (o.key == nullptr) {
        return Status(Errc::invalid_file, "plugin " + path + ": option " + std::to_string(i) + " has no key");
      }
      ARUN_RETURN_IF_ERROR(field(o.key, "option key", kPluginStringMax, &scratch));
      ARUN_RETURN_IF_ERROR(field(o.default_value, "option default", kPluginStringMax, &scratch));
      ARUN_RETURN_IF_ERROR(field(o.help, "option help", kPluginTextMax, &scratch));
    }
  }
  out->descriptor = d;
  return Status::Ok();
}

}  // namespace

PluginSearch plugin_search(const RuntimeConfig& config) {
  PluginSearch search;
  search.dirs = config.plugin_search_paths;
  search.dirs.push_back(builtin_plugin_dir());
  search.allow_insecure = config.allow_insecure_plugins;
  return search;
}

Status check_plugin_file(const std::string& path, bool allow_insecure, std::string* canonical) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) return Status(Errc::invalid_file, "plugin file " + path + " does not exist (" + ec.message() + ")");
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status(Errc::invalid_file, "plugin " + path + " is not a regular file");
  }
  *canonical = real.string();
  if (allow_insecure) return Status::Ok();
  std::string why = unsafe_reason(st, "file", real.string());
  struct stat dst {};
  const fs::path dir = real.parent_path();
  if (why.empty()) {
    if (::stat(dir.c_str(), &dst) != 0) {
      why = "its folder " + dir.string() + " cannot be examined";
    } else {
      why = unsafe_reason(dst, "folder", dir.string());
    }
  }
  if (!why.empty()) {
    return Status(Errc::invalid_file, "refused plugin " + path + ": " + why +
                                          "; fix the permissions (chmod go-w) or, for a development tree, set "
                                          "[runtime] allow_insecure_plugins = true");
  }
  return Status::Ok();
}

Status load_plugin_library(const std::string& path, const plugin::PluginKind* expected_kind,
                           const std::string* expected_name, LoadedPlugin* out, bool allow_insecure) {
  std::error_code fec;
  if (!fs::exists(path, fec)) return Status(Errc::invalid_file, "plugin file " + path + " does not exist");
  std::string real;
  ARUN_RETURN_IF_ERROR(check_plugin_file(path, allow_insecure, &real));
  // Everything that can be checked without running the plugin's code is checked first.
  FileDescriptor fd;
  ARUN_RETURN_IF_ERROR(read_checked_descriptor(path, &fd));
  const auto kind = static_cast<plugin::PluginKind>(fd.kind);
  if (expected_kind && kind != *expected_kind) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " is a " + plugin::kind_name(kind) +
                                               " plugin, but the config asks for a " +
                                               plugin::kind_name(*expected_kind) + " plugin");
  }
  if (expected_name && *expected_name != fd.name) {
    return Status(Errc::file_attr_invalid, "plugin " + path + " is named \"" + fd.name +
                                               "\", but the config asks for \"" + *expected_name + "\"");
  }

  auto library = std::make_shared<boost::dll::shared_library>();
  boost::system::error_code ec;
  library->load(real, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) {
    // Boost.DLL consumes dlerror(); ask the dynamic loader again for the real reason.
    std::string why = ec.message();
    if (void* h = dlopen(real.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      dlclose(h);
    } else if (const char* e = dlerror()) {
      why = e;
    }
    return Status(Errc::invalid_file, "cannot load plugin " + path + ": " + why);
  }
  LoadedPlugin loaded;
  ARUN_RETURN_IF_ERROR(check_loaded_descriptor(library->native(), path, fd, &loaded));
  loaded.library = std::move(library);
  loaded.path = real;
  *out = std::move(loaded);
  return Status::Ok();
}

Status call_plugin_factory(const LoadedPlugin& plugin, const plugin::OptionValues& options,
                           plugin::PluginObject** out) {
  char error[512];
  std::memset(error, 0, sizeof error);
  const std::string who = "plugin " + plugin.name + " (" + plugin.path + ")";
  plugin::PluginObject* raw = nullptr;
  try {
    // One byte fewer than the buffer: the last stays NUL whatever the plugin writes within its size.
    raw = plugin.descriptor->create(plugin_host_services_for_factory(), &options, error, sizeof(error) - 1);
  } catch (const std::exception& e) {
    std::string what(e.what(), strnlen(e.what(), kPluginTextMax));
    return Status(Errc::file_attr_invalid, who + " failed to start: its factory threw an exception: " + what);
  } catch (...) {
    return Status(Errc::file_attr_invalid, who + " failed to start: its factory threw an exception");
  }
  if (raw == nullptr) {
    const std::string why(error, strnlen(error, sizeof(error) - 1));
    return Status(Errc::file_attr_invalid, who + " failed to start: " + (why.empty() ? "no reason given" : why));
  }
  *out = raw;
  return Status::Ok();
}

Status load_plugin_entry(const PluginEntry& entry, const PluginSearch& search, LoadedPlugin* out,
                         std::vector<std::string>* tried) {
  // The folders a plugin may come from, canonical (a folder that does not exist holds nothing).
  std::vector<fs::path> allowed;
  for (const auto& dir : search.dirs) {
    std::error_code ec;
    fs::path real = fs::canonical(dir, ec);
    if (!ec) allowed.push_back(real);
  }
  auto load_checked = [&](const std::string& candidate) -> Status {
    std::string real;
    Status st = check_plugin_file(candidate, search.allow_insecure, &real);
    if (st.ok()) {
      const fs::path folder = fs::path(real).parent_path();
      if (std::find(allowed.begin(), allowed.end(), folder) == allowed.end()) {
        std::string dirs;
        for (const auto& d : allowed) dirs += (dirs.empty() ? "" : ", ") + d.string();
        st = Status(Errc::invalid_file, "refused plugin " + candidate + ": it resolves to " + real +
                                            ", outside the plugin folders (" + dirs +
                                            "); add its folder to [runtime] plugin_search_paths");
      }
    }
    if (st.ok()) st = load_plugin_library(real, &entry.kind, &entry.name, out, search.allow_insecure);
    if (!st.ok()) return Status(st.code(), entry.origin + ": " + st.message());
    return st;
  };
  if (!entry.path.empty()) {
    if (tried) tried->push_back(entry.path);
    std::error_code ec;
    if (!fs::exists(entry.path, ec)) {
      return Status(Errc::invalid_file, entry.origin + ": plugin file " + entry.path + " does not exist");
    }
    return load_checked(entry.path);
  }
  const std::string file = plugin_file_name(entry.kind, entry.name);
  std::string looked;
  for (const auto& dir : search.dirs) {
    std::string candidate = (fs::path(dir) / file).string();
    if (tried) tried->push_back(candidate);
    looked += "\n  " + candidate;
    std::error_code ec;
    if (!fs::exists(candidate, ec)) continue;
    return load_checked(candidate);
  }
  return Status(Errc::invalid_file, entry.origin + ": " + plugin::kind_name(entry.kind) + " plugin \"" + entry.name +
                                        "\" not found; looked for:" + looked);
}

LoadedPluginInfo describe_plugin(const LoadedPlugin& plugin, const std::string& origin, uint32_t device_count) {
  const plugin::PluginDescriptor& d = *plugin.descriptor;
  return {plugin::kind_name(d.kind),
          plugin.name,
          plugin.version,
          plugin.path,
          plugin.build_id,
          origin,
          d.abi_major,
          d.abi_minor,
          device_count};
}

PluginProbe probe_plugin_file(const std::string& path, bool allow_insecure) {
  PluginProbe probe;
  probe.path = path;
  std::string real;
  FileDescriptor fd;
  Status st = check_plugin_file(path, allow_insecure, &real);
  if (st.ok()) st = read_checked_descriptor(real, &fd);
  if (!st.ok()) {
    probe.reason = st.message();
    return probe;
  }
  probe.ok = true;
  probe.kind = plugin::kind_name(static_cast<plugin::PluginKind>(fd.kind));
  probe.name = fd.name;
  probe.version = fd.version;
  probe.build_id = fd.build_id;
  probe.description = fd.description;
  probe.abi_major = fd.abi_major;
  probe.abi_minor = fd.abi_minor;
  return probe;
}

std::vector<PluginProbe> probe_plugin_dir(const std::string& dir, bool allow_insecure) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libarun_", 0) == 0 && e.path().extension() == ".so") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<PluginProbe> probes;
  for (const auto& f : files) probes.push_back(probe_plugin_file(f, allow_insecure));
  return probes;
}

}  // namespace arun
