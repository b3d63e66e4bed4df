// Which configuration aclInit reads, and what it takes from the installed default config.
//
// The file: aclInit's argument, else $ASCEND_RUN_CONFIG, else the installed default config
// (share/ascend-run/configs/default.toml next to the library's lib64/), else none.
//
// Defaults that name plugins live in the installed default config, never in the core (the core
// names no plugin). A configuration takes from it what it leaves out:
//   - no [[plugin]] entry of kind "device": the default config's device entries (with their options);
//   - no [[plugin]] entry of kind "collective": the default config's (the transport libhccl uses
//     between processes);
//   - no [profiler] default_sinks: the default config's (the sinks an enabled profiler uses when
//     `sinks` is empty); likewise aclprof_sinks (the sinks of aclprofStart);
//   - a CANN acl.json configures nothing ascend-run uses: everything comes from the default config.
// So an empty file, or aclInit(NULL), loads exactly what default.toml says. Nothing else is merged
// (a configuration's own device entries replace the default's; its other keys keep the built-in
// values default.toml writes out). Without an installed default config nothing is added: a
// configuration without a device plugin then has no devices, and an enabled profiler without sinks
// fails aclInit.
#pragma once

#include <string>

#include "config/config.hpp"

namespace arun {

// The file aclInit(path) means (empty when there is none) and how it was chosen: "argument",
// "ASCEND_RUN_CONFIG", "installed default" or "built-in defaults" (no file).
void choose_config_file(const char* path, std::string* file, std::string* how);

// Loads `file` (chosen by choose_config_file; empty = none) and completes it from the installed
// default config by the rule above. Errors: those of load_config_file, for `file` or the default config.
Status load_runtime_config(const std::string& file, const std::string& how, RuntimeConfig* out);

// The rule above with the default config at `default_path` (load_runtime_config passes the
// installed one); a missing `default_path`, or `cfg` read from that very file, adds nothing.
// Errors: those of load_config_file for `default_path`.
Status apply_default_config(const std::string& default_path, RuntimeConfig* cfg);

}  // namespace arun
