#include "base/install_paths.hpp"

#include <dlfcn.h>

#include <filesystem>

namespace arun {

std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) == 0 || info.dli_fname == nullptr) return ".";
  std::error_code ec;
  auto path = std::filesystem::canonical(info.dli_fname, ec);
  if (ec) path = std::filesystem::absolute(info.dli_fname);
  return path.parent_path().string();
}

std::string builtin_plugin_dir() {
  return library_dir() + "/" ARUN_PLUGIN_SUBDIR;
}

std::string installed_config_dir() {
  return (std::filesystem::path(library_dir()).parent_path() / ARUN_CONFIG_SUBDIR).lexically_normal().string();
}

std::string installed_default_config() {
  return installed_config_dir() + "/default.toml";
}

}  // namespace arun
