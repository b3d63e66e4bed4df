// Which configuration aclInit reads, and the defaults it takes from the installed default config
// (the rule is in default_config.hpp).
#include "config/default_config.hpp"

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "base/install_paths.hpp"

namespace arun {
namespace fs = std::filesystem;

namespace {

bool has_device_plugin(const RuntimeConfig& cfg) {
  for (const auto& entry : cfg.plugins) {
    if (entry.kind == plugin::PluginKind::Device) return true;
  }
  return false;
}

bool has_kind(const RuntimeConfig& cfg, plugin::PluginKind kind) {
  for (const auto& entry : cfg.plugins) {
    if (entry.kind == kind) return true;
  }
  return false;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

}  // namespace

void choose_config_file(const char* path, std::string* file, std::string* how) {
  if (path != nullptr && path[0] != '\0') {
    *file = path;
    *how = "argument";
  } else if (const char* env = std::getenv("ASCEND_RUN_CONFIG"); env != nullptr && env[0] != '\0') {
    *file = env;
    *how = "ASCEND_RUN_CONFIG";
  } else if (std::error_code ec; fs::exists(installed_default_config(), ec)) {
    *file = installed_default_config();
    *how = "installed default";
  } else {
    file->clear();
    *how = "built-in defaults";
  }
}

Status apply_default_config(const std::string& default_path, RuntimeConfig* cfg) {
  const bool need_devices = !has_device_plugin(*cfg);
  const bool need_sinks = cfg->profiler_default_sinks.empty();
  const bool need_aclprof_sinks = cfg->profiler_aclprof_sinks.empty();
  const bool need_collective = !has_kind(*cfg, plugin::PluginKind::Collective);
  if (!need_devices && !need_sinks && !need_aclprof_sinks && !need_collective) return Status::Ok();
  std::error_code ec;
  if (default_path.empty() || !fs::exists(default_path, ec)) return Status::Ok();
  if (!cfg->source_path.empty() && same_file(cfg->source_path, default_path)) return Status::Ok();
  RuntimeConfig base;
  ARUN_RETURN_IF_ERROR(load_config_file(default_path, &base));
  if (need_devices) {
    for (auto& entry : base.plugins) {
      if (entry.kind == plugin::PluginKind::Device) cfg->plugins.push_back(std::move(entry));
    }
  }
  if (need_collective) {
    // The transport libhccl uses between processes: a CANN program needs no config of its own.
    for (auto& entry : base.plugins) {
      if (entry.kind == plugin::PluginKind::Collective) cfg->plugins.push_back(std::move(entry));
    }
  }
  if (need_sinks) cfg->profiler_default_sinks = std::move(base.profiler_default_sinks);
  if (need_aclprof_sinks) cfg->profiler_aclprof_sinks = std::move(base.profiler_aclprof_sinks);
  return Status::Ok();
}

Status load_runtime_config(const std::string& file, const std::string& how, RuntimeConfig* out) {
  const std::string def = installed_default_config();
  if (file.empty()) {
    // No file anywhere (no default config installed either): the built-in values, no plugins.
    out->source_kind = how;
    return Status::Ok();
  }
  ARUN_RETURN_IF_ERROR(load_config_file(file, out));
  if (out->from_acl_json) {
    // A CANN acl.json says nothing about plugins: take them from the installed default config.
    RuntimeConfig base;
    std::error_code ec;
    if (fs::exists(def, ec)) ARUN_RETURN_IF_ERROR(load_config_file(def, &base));
    base.notices.insert(base.notices.begin(), out->notices.begin(), out->notices.end());
    base.from_acl_json = true;
    *out = std::move(base);
  } else {
    ARUN_RETURN_IF_ERROR(apply_default_config(def, out));
  }
  out->source_path = file;
  out->source_kind = how;
  return Status::Ok();
}

}  // namespace arun
