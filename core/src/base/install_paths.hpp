// Where the runtime finds its plugins and installed configs: relative to the folder that holds
// libascendcl.so (lib64/), so the build tree and any install prefix work without environment.
#pragma once

#include <string>

namespace arun {

std::string library_dir();           // folder of the library (or executable) the core is linked into
std::string builtin_plugin_dir();    // <library_dir>/ascend-run
std::string installed_config_dir();  // <library_dir>/../share/ascend-run/configs
std::string installed_default_config();

}  // namespace arun
