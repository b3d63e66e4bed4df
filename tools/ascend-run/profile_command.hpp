// ascend-run profile: runs an unmodified program with profiling from start to exit, as
// `msprof --application` does (profile_command.cpp).
#pragma once

#include <string>
#include <vector>

namespace profile_command {

struct Options {
  std::string output_dir = "ascend-run-profile";      // --output
  std::string sinks = "timeline,msprof_csv,summary";  // --sinks: profiler sink names, comma-separated
  std::string config;                                 // --config: ASCEND_RUN_CONFIG for the program
  std::vector<std::string> program;                   // PROGRAM ARGS...
};

// Runs the program with ASCEND_RUN_PROFILING and ASCEND_RUN_PROFILING_DIR set, waits for it and lists
// the files its sessions wrote (the summary sink prints its report, top operators first, at exit). Returns the
// program's exit status (128 + signal if a signal ended it), 127 if it could not be started.
int run(const Options& options);

}  // namespace profile_command
