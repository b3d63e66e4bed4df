// Spec 2.1: initialisation, version and system queries; the thread's last error and messages.
#include <cstdio>
#include <string>

#include "api_call.hpp"
#include "arun/arun_ext.h"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclInit(const char* configPath) {
  try {
    Status st = rt::initialize(configPath);
    return st.ok() ? ACL_SUCCESS : record_failure("aclInit", st);
  } catch (...) {
    return record_failure("aclInit", Status(Errc::internal_error, "internal error during initialisation"));
  }
}

aclError aclFinalize() {
  try {
    Status st = rt::finalize();
    return st.ok() ? ACL_SUCCESS : record_failure("aclFinalize", st);
  } catch (...) {
    return record_failure("aclFinalize", Status(Errc::internal_error, "internal error during finalisation"));
  }
}

// Serialised with aclInit / aclFinalize by the core's init lock; like aclFinalize it runs whether or
// not the runtime is up (none: ACL_ERROR_REPEAT_FINALIZE with *refCount = 0).
aclError aclFinalizeReference(uint64_t* refCount) {
  try {
    uint64_t left = 0;
    Status st = rt::finalize_reference(&left);
    if (refCount != nullptr) *refCount = left;
    return st.ok() ? ACL_SUCCESS : record_failure("aclFinalizeReference", st);
  } catch (...) {
    return record_failure("aclFinalizeReference", Status(Errc::internal_error, "internal error during finalisation"));
  }
}

const char* aclGetRecentErrMsg() {
  return take_recent_messages();
}

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  if (raw(level) != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
  return last_error(true);
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  if (raw(level) != ACL_RT_THREAD_LEVEL) return ACL_ERROR_INVALID_PARAM;
  return last_error(false);
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  return api_call_no_runtime("aclrtGetVersion", [&] {
    if (!majorVersion || !minorVersion || !patchVersion) return invalid_param("an output pointer is NULL");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return Status::Ok();
  });
}

aclError aclsysGetVersionStr(char* pkgName, char* versionStr) {
  return api_call_no_runtime("aclsysGetVersionStr", [&] {
    if (versionStr == nullptr) return invalid_param("versionStr is NULL");
    std::string v;
    ARUN_RETURN_IF_ERROR(rt::package_version(pkgName, &v));
    std::snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", v.c_str());
    return Status::Ok();
  });
}

aclError aclsysGetVersionNum(char* pkgName, int32_t* versionNum) {
  return api_call_no_runtime("aclsysGetVersionNum", [&] {
    if (versionNum == nullptr) return invalid_param("versionNum is NULL");
    return rt::package_version_number(pkgName, versionNum);
  });
}

aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion* version) {
  return api_call_no_runtime("aclsysGetCANNVersion", [&] {
    if (version == nullptr) return invalid_param("version is NULL");
    const auto n = raw(name);
    if (n < ACL_PKG_NAME_CANN || n > ACL_PKG_NAME_DRIVER) {
      return invalid_param("name " + std::to_string(n) + " is not an aclCANNPackageName");
    }
    return rt::cann_package_version(static_cast<int>(n), version);
  });
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return api_call_no_runtime("aclrtGetRunMode", [&] {
    if (runMode == nullptr) return invalid_param("runMode is NULL");
    *runMode = ACL_HOST;  // the host drives the (simulated) device, as with a PCIe card
    return Status::Ok();
  });
}

const char* aclrtGetSocName() {
  return rt::soc_name();
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

const char* arunGetVersion(void) {
  return ARUN_VERSION;
}

// Need no aclInit: the attributes depend on the installed version and, once a runtime is up, its SoC.
aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  return api_call_no_runtime("aclGetCannAttributeList", [&] {
    if (cannAttrList == nullptr || num == nullptr) return invalid_param("cannAttrList or num is NULL");
    return rt::cann_attributes(cannAttrList, num);
  });
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  return api_call_no_runtime("aclGetCannAttribute", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    const auto attr = raw(cannAttr);
    if (attr < ACL_CANN_ATTR_INF_NAN || attr > ACL_CANN_ATTR_JIT_COMPILE) {
      return invalid_param("cannAttr " + std::to_string(attr) + " is not INF_NAN, BF16 or JIT_COMPILE");
    }
    const aclCannAttr* list = nullptr;
    size_t num = 0;
    ARUN_RETURN_IF_ERROR(rt::cann_attributes(&list, &num));
    *value = 0;
    for (size_t i = 0; i < num; ++i) {
      if (list[i] == attr) *value = 1;
    }
    return Status::Ok();
  });
}

}  // extern "C"
