#include "profile_command.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace profile_command {
namespace fs = std::filesystem;
namespace {

// The files under `dir` written by this run: those whose name carries one of the program's pids is
// not enough (a program may fork), so everything modified since the run started.
std::vector<fs::path> written_since(const fs::path& dir, fs::file_time_type start) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code fec;
    if (it->is_regular_file(fec) && it->last_write_time(fec) >= start) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int run(const Options& o) {
  std::error_code ec;
  const fs::path dir = fs::absolute(o.output_dir, ec);
  if (ec || (fs::create_directories(dir, ec), !fs::is_directory(dir))) {
    std::fprintf(stderr, "ascend-run profile: --output %s: cannot create the folder%s%s\n", o.output_dir.c_str(),
                 ec ? ": " : "", ec ? ec.message().c_str() : "");
    return 1;
  }
  // The program may change its working folder: hand it the absolute path.
  if (setenv("ASCEND_RUN_PROFILING", o.sinks.c_str(), 1) != 0 ||
      setenv("ASCEND_RUN_PROFILING_DIR", dir.c_str(), 1) != 0 ||
      (!o.config.empty() && setenv("ASCEND_RUN_CONFIG", o.config.c_str(), 1) != 0)) {
    std::perror("ascend-run profile: setenv");
    return 1;
  }
  // File times have the file system's granularity; step back a second so nothing written is missed.
  const auto start = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  std::vector<char*> argv;
  for (const auto& a : o.program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "ascend-run profile: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (child == 0) {
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "ascend-run profile: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  // Like time(1): an interrupt reaches the program (same process group); this waits for its exit.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (WIFEXITED(status) && rc == 127) return rc;  // not started: the child said why

  const std::vector<fs::path> files = written_since(dir, start);
  std::fprintf(stderr, "\nascend-run profile: '%s' exited with %d%s\n", o.program[0].c_str(), rc,
               WIFSIGNALED(status) ? " (killed by a signal)" : "");
  if (files.empty()) {
    std::fprintf(stderr,
                 "ascend-run profile: no profile was written to %s (did the program call aclInit? "
                 "did its aclInit fail?)\n",
                 dir.c_str());
    return rc != 0 ? rc : 1;
  }
  std::printf("profile written to %s:\n", dir.c_str());
  for (const auto& f : files) std::printf("  %s\n", fs::relative(f, dir, ec).c_str());
  return rc;
}

}  // namespace profile_command
