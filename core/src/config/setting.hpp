// Where a runtime setting comes from, for the settings a program or its environment may override
// (scheduler policy, allocator policy, profiling). One precedence everywhere, highest first:
//   1. a programmatic override (arunSetSchedulerPolicy, made before aclInit);
//   2. an environment variable (ASCEND_RUN_SCHED, ASCEND_RUN_ALLOC, ASCEND_RUN_PROFILING), when set
//      and not empty;
//   3. the configuration file;
//   4. the built-in default (no configuration file, or the setting is off in it).
// The winner is taken whole: nothing from a lower level is merged into it.
#pragma once

#include <optional>
#include <string>

namespace arun {

struct SettingChoice {
  enum class From { Override, Environment, Config, Default };
  From from = From::Default;
  std::string source;  // "<override_name>", "<env_var>", "config" or "default", for messages and logs
  std::string text;    // the override's or the environment variable's value; empty otherwise
};

// Picks the level a setting comes from. `override_text` is the programmatic override (none when
// empty-optional), named `override_name`; `env_var` is read with getenv; `in_config` says whether
// the configuration file decides the setting (else it is the built-in default).
SettingChoice choose_setting(const char* override_name, const std::optional<std::string>& override_text,
                             const char* env_var, bool in_config);

}  // namespace arun
