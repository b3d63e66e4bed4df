// Front door implementation: lifecycle and package versions (arun/runtime/lifecycle.hpp).
#include "arun/runtime/lifecycle.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "acl/acl_rt.h"
#include "base/install_paths.hpp"
#include "base/logging.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {

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
