// Spec 2.1: initialisation, version and system queries; the thread's last error and messages.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "api_call.hpp"
#include "arun/arun_ext.h"
#include "base/install_paths.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclInit(const char *configPath) {
  try {
    Status st = Runtime::initialize(configPath);
    if (st.ok()) return ACL_SUCCESS;
    // A runtime that cannot start is worth a line on stderr at the default log level (a repeated
    // aclInit is informational only).
    if (st.code() != Errc::repeat_initialize) log().error("aclInit: {}", st.message());
    return record_failure("aclInit", st);
  } catch (...) {
    return record_failure("aclInit", Status(Errc::internal_error, "internal error during initialisation"));
  }
}

aclError aclFinalize() {
  try {
    Status st = Runtime::finalize();
    return st.ok() ? ACL_SUCCESS : record_failure("aclFinalize", st);
  } catch (...) {
    return record_failure("aclFinalize", Status(Errc::internal_error, "internal error during finalisation"));
  }
}

const char *aclGetRecentErrMsg() { return take_recent_messages(); }

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  if (raw(level) != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
  return last_error(true);
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  if (raw(level) != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
  return last_error(false);
}

aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion) {
  return api_call_no_runtime("aclrtGetVersion", [&] {
    if (!majorVersion || !minorVersion || !patchVersion) return invalid_param("an output pointer is NULL");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return Status::Ok();
  });
}

}  // extern "C"

namespace {

// Reads "Version=..." from <prefix>/share/info/<package>/version.info.
Status read_package_version(const char* pkgName, std::string* version) {
  if (pkgName == nullptr || pkgName[0] == '\0') return invalid_param("pkgName is NULL or empty");
  std::string name = pkgName;
  if (name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
    return invalid_param("pkgName \"" + name + "\" is not a package name");
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

}  // namespace

extern "C" {

aclError aclsysGetVersionStr(char *pkgName, char *versionStr) {
  return api_call_no_runtime("aclsysGetVersionStr", [&] {
    if (versionStr == nullptr) return invalid_param("versionStr is NULL");
    std::string v;
    ARUN_RETURN_IF_ERROR(read_package_version(pkgName, &v));
    std::snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", v.c_str());
    return Status::Ok();
  });
}

aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum) {
  return api_call_no_runtime("aclsysGetVersionNum", [&] {
    if (versionNum == nullptr) return invalid_param("versionNum is NULL");
    std::string v;
    ARUN_RETURN_IF_ERROR(read_package_version(pkgName, &v));
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
    *versionNum = num;
    return Status::Ok();
  });
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
  return api_call_no_runtime("aclrtGetRunMode", [&] {
    if (runMode == nullptr) return invalid_param("runMode is NULL");
    *runMode = ACL_HOST;  // the host drives the (simulated) device, as with a PCIe card
    return Status::Ok();
  });
}

const char *aclrtGetSocName() {
  static thread_local std::string name;
  Runtime* rt = Runtime::instance();
  if (rt == nullptr || rt->device_count() == 0) return nullptr;
  name = rt->device(0)->device()->properties().soc_name;
  return name.c_str();
}

size_t aclDataTypeSize(aclDataType dataType) {
  switch (raw(dataType)) {
    case ACL_DT_UNDEFINED:
    case ACL_STRING:
      return 0;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 8;  // the reference's default branch, which the FLOAT6 / FLOAT4 types fall into
  }
}

const char *arunGetVersion(void) { return ARUN_VERSION; }

}  // extern "C"
