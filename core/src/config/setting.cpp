// choose_setting: the one override > environment > config > default precedence (setting.hpp).
#include "config/setting.hpp"

#include <cstdlib>

namespace arun {

SettingChoice choose_setting(const char* override_name, const std::optional<std::string>& override_text,
                             const char* env_var, bool in_config) {
  SettingChoice choice;
  if (override_text) {
    choice.from = SettingChoice::From::Override;
    choice.source = override_name;
    choice.text = *override_text;
  } else if (const char* env = std::getenv(env_var); env != nullptr && env[0] != '\0') {
    choice.from = SettingChoice::From::Environment;
    choice.source = env_var;
    choice.text = env;
  } else if (in_config) {
    choice.from = SettingChoice::From::Config;
    choice.source = "config";
  } else {
    choice.from = SettingChoice::From::Default;
    choice.source = "default";
  }
  return choice;
}

}  // namespace arun
