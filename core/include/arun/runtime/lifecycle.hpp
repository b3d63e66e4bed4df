// Front door: the runtime's lifecycle (aclInit / aclFinalize) and the installed packages' versions
// (spec 2.1); see front_door.hpp for the conventions. Unlike most of the front door, these run
// before aclInit too (as do soc_name, set_scheduler_override and runtime_report).
#pragma once

#include <cstdint>
#include <string>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclInit: creates the runtime from `config_path` (NULL or "": the environment's, else the
// installed default), reference-counted. A failure other than a repeat is also logged as an
// error. Errors: repeat_initialize (already initialised with the same config; the count goes up),
// invalid_param (already initialised with another config), invalid_file, the config's and the
// plugins' errors.
Status initialize(const char* config_path);
// aclFinalize: drains and destroys the runtime and everything it owns. Errors: repeat_finalize
// (not initialised), a leak report's code (the runtime is gone all the same).
Status finalize();
// aclFinalizeReference: drops one aclInit reference and writes how many are left to `*left`; the
// last one finalises as finalize() does. Errors: repeat_finalize (none left: `*left` = 0),
// finalize()'s.
Status finalize_reference(uint64_t* left);

// aclsysGetCANNVersion (`name` one of the eight aclCANNPackageName values, `out` non-NULL: checked
// by the caller): the "Version=" line of $ASCEND_HOME_PATH/share/info/<package dir>/version.info
// (DRIVER: <Driver_Install_Path_Param of /etc/ascend_install.info>/driver/version.info), split
// into its parts. Errors: invalid_file (no ASCEND_HOME_PATH, no file, no Version= line, fewer than
// two parts, a part too long for its field).
Status cann_package_version(int name, aclCANNPackageVersion* out);

// aclsysGetVersionStr / aclsysGetVersionNum: the "Version=" line of
// <prefix>/share/info/<package>/version.info, and that version as a number (major*10^7 +
// minor*10^5 + patch*10^3, less 300/200/100 for alpha/beta/rc, plus the pre-release number).
// Errors: invalid_param (pkgName NULL, empty or not a package name), invalid_file (no version
// file), internal_error (no valid Version= line; as a number: not major.minor.patch[-tag.N]).
Status package_version(const char* package, std::string* version);
Status package_version_number(const char* package, int32_t* number);

}  // namespace arun::rt
