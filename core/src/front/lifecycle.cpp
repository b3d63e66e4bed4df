// Front door implementation: lifecycle and package versions (arun/runtime/lifecycle.hpp).
#include "arun/runtime/lifecycle.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl_rt.h"
#include "base/install_paths.hpp"
#include "base/logging.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {

namespace {
// Where a CANN installation records its driver's install folder.
constexpr const char* kAscendInstallInfo = "/etc/ascend_install.info";
}  // namespace

Status initialize(const char* config_path) {
  Status st = Runtime::initialize(config_path);
  // A runtime that cannot start is worth a line on stderr at the default log level (a repeated
  // aclInit is informational only).
  if (!st.ok() && st.code() != Errc::repeat_initialize) arun::log().error("aclInit: {}", st.message());
  return st;
}

Status finalize() {
  return Runtime::finalize();
}

Status finalize_reference(uint64_t* left) {
  return Runtime::finalize_reference(left);
}

namespace {

// The text after "Version=" in `file`; false when the file cannot be read or has no such line.
bool read_version_line(const std::filesystem::path& file, std::string* version) {
  std::ifstream in(file);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Version=", 0) == 0) {
      *version = line.substr(8);
      while (!version->empty() && (version->back() == '\r' || version->back() == ' ')) version->pop_back();
      return true;
    }
  }
  return false;
}

// The package directory aclsysGetCANNVersion reads for `name` (DRIVER is handled apart).
const char* cann_package_dir(int name) {
  switch (name) {
    case ACL_PKG_NAME_CANN:
    case ACL_PKG_NAME_RUNTIME:
      return "runtime";
    case ACL_PKG_NAME_COMPILER:
      return "bisheng-compiler";
    case ACL_PKG_NAME_HCCL:
      return "hccl";
    case ACL_PKG_NAME_TOOLKIT:
      return "oam-tools";
    default:  // ACL_PKG_NAME_OPP, ACL_PKG_NAME_OPP_KERNEL
      return "ops-legacy";
  }
}

Status cann_version_file(int name, std::filesystem::path* file) {
  if (name == ACL_PKG_NAME_DRIVER) {
    std::ifstream info(kAscendInstallInfo);
    if (!info) return Status(Errc::invalid_file, std::string("cannot read ") + kAscendInstallInfo);
    std::string line;
    constexpr std::string_view kKey = "Driver_Install_Path_Param=";
    while (std::getline(info, line)) {
      if (line.rfind(kKey, 0) == 0) {
        *file = std::filesystem::path(line.substr(kKey.size())) / "driver" / "version.info";
        return Status::Ok();
      }
    }
    return Status(Errc::invalid_file, std::string(kAscendInstallInfo) + " has no Driver_Install_Path_Param= line");
  }
  const char* home = std::getenv("ASCEND_HOME_PATH");
  if (home == nullptr || home[0] == '\0') return Status(Errc::invalid_file, "ASCEND_HOME_PATH is not set");
  std::string dir = cann_package_dir(name);
  *file = std::filesystem::path(home) / "share" / "info" / dir / "version.info";
  if (!std::filesystem::exists(*file)) {
    std::replace(dir.begin(), dir.end(), '-', '_');
    *file = std::filesystem::path(home) / "share" / "info" / dir / "version.info";
  }
  return Status::Ok();
}

void copy_field(char* field, size_t capacity, const std::string& text) {
  std::memset(field, 0, capacity);
  std::memcpy(field, text.data(), std::min(text.size(), capacity - 1));
}

}  // namespace

Status cann_package_version(int name, aclCANNPackageVersion* out) {
  std::filesystem::path file;
  ARUN_RETURN_IF_ERROR(cann_version_file(name, &file));
  std::string v;
  if (!read_version_line(file, &v)) {
    return Status(Errc::invalid_file, "no version file " + file.string() + " with a Version= line");
  }
  // "X.Y.Z-rc.1" becomes "X.Y.Z.rc1": the part after the first '-' loses its dots.
  if (auto dash = v.find('-'); dash != std::string::npos) {
    std::string suffix = v.substr(dash + 1);
    suffix.erase(std::remove(suffix.begin(), suffix.end(), '.'), suffix.end());
    v = v.substr(0, dash) + "." + suffix;
  }
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = v.find('.', start);
    parts.push_back(v.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() < 2) {
    return Status(Errc::invalid_file, "version \"" + v + "\" in " + file.string() + " has fewer than two parts");
  }
  if (v.size() >= ACL_PKG_VERSION_MAX_SIZE) {
    return Status(Errc::invalid_file, "version in " + file.string() + " is longer than " +
                                          std::to_string(ACL_PKG_VERSION_MAX_SIZE - 1) + " characters");
  }
  for (size_t i = 0; i < 4 && i < parts.size(); ++i) {
    if (parts[i].size() >= ACL_PKG_VERSION_PARTS_MAX_SIZE) {
      return Status(Errc::invalid_file, "version part \"" + parts[i] + "\" in " + file.string() + " is too long");
    }
  }
  parts.resize(std::max<size_t>(parts.size(), 4), "0");
  std::memset(out, 0, sizeof *out);
  copy_field(out->version, sizeof out->version, v);
  copy_field(out->majorVersion, sizeof out->majorVersion, parts[0]);
  copy_field(out->minorVersion, sizeof out->minorVersion, parts[1]);
  copy_field(out->releaseVersion, sizeof out->releaseVersion, parts[2]);
  copy_field(out->patchVersion, sizeof out->patchVersion, parts[3]);
  return Status::Ok();
}

Status package_version(const char* package, std::string* version) {
  if (package == nullptr || package[0] == '\0') return Status(Errc::invalid_param, "pkgName is NULL or empty");
  std::string name = package;
  if (name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
    return Status(Errc::invalid_param, "pkgName \"" + name + "\" is not a package name");
  }
  auto file = std::filesystem::path(library_dir()).parent_path() / "share" / "info" / name / "version.info";
  std::ifstream in(file);
  if (!in) return Status(Errc::invalid_file, "no version file " + file.string() + " for package \"" + name + "\"");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Version=", 0) == 0) {
      *version = line.substr(8);
      while (!version->empty() && (version->back() == '\r' || version->back() == ' ')) version->pop_back();
      if (version->empty() || version->size() >= ACL_PKG_VERSION_MAX_SIZE) break;
      return Status::Ok();
    }
  }
  return Status(Errc::internal_error, "version file " + file.string() + " has no valid Version= line");
}

Status package_version_number(const char* package, int32_t* number) {
  std::string v;
  ARUN_RETURN_IF_ERROR(package_version(package, &v));
  // major.minor.patch[-alpha|beta|rc.N]
  int major = 0, minor = 0, patch = 0, pre = 0;
  char tag[16] = {0};
  int n = std::sscanf(v.c_str(), "%d.%d.%d-%15[a-z].%d", &major, &minor, &patch, tag, &pre);
  if (n < 3) return Status(Errc::internal_error, "version \"" + v + "\" is not major.minor.patch");
  int32_t num = major * 10000000 + minor * 100000 + patch * 1000;
  if (n >= 4) {
    std::string t = tag;
    int offset = t == "alpha" ? 300 : t == "beta" ? 200 : t == "rc" ? 100 : -1;
    if (offset < 0) return Status(Errc::internal_error, "version \"" + v + "\" has an unknown pre-release tag");
    num = num - offset + pre;
  }
  *number = num;
  return Status::Ok();
}

}  // namespace arun::rt
