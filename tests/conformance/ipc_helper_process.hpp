// The other process of the IPC tests (ipc_helper, fork + exec) as the tests drive it, and the
// pattern it writes and checks.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"

extern char** environ;

namespace conformance {

// The helper's pattern (ipc_helper.cpp).
inline std::vector<uint8_t> ipcPattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 9)) & 0xff);
  return v;
}

// The importer's half of the ordering tests (ipc_helper's `event` and `notify` modes): on `s`,
// right behind the wait, copies the `size` bytes the helper exported under `key` and checks them
// against its pattern `seed`. The copy would read before the helper's 300 ms write ends unless the
// wait holds it. Key "-": the backend cannot share memory, and the wait alone is checked.
inline void expectWrittenBeforeTheRecord(const std::string& key, aclrtStream s, size_t size, uint32_t seed) {
  if (key == "-") {
    EXPECT_ACL_OK(aclrtSynchronizeStream(s));
    return;
  }
  void* imp = nullptr;
  ASSERT_ACL_OK(aclrtIpcMemImportByKey(&imp, key.c_str(), 0));
  void* host = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, size));
  std::memset(host, 0xee, size);
  ASSERT_ACL_OK(aclrtMemcpyAsync(host, size, imp, size, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  const std::vector<uint8_t> want = ipcPattern(size, seed);
  EXPECT_EQ(0, std::memcmp(host, want.data(), size)) << "the data the other process wrote before its record";
  EXPECT_ACL_OK(aclrtFreeHost(host));
  EXPECT_ACL_OK(aclrtIpcMemClose(key.c_str()));
}

// ipc_helper running with a pipe to its stdin and one from its stdout.
class Helper {
 public:
  explicit Helper(const std::vector<std::string>& args) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<std::string> all = {ARUN_IPC_HELPER};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, ARUN_IPC_HELPER, &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Helper() {
    if (to_ >= 0) close(to_);
    if (from_ >= 0) close(from_);
    if (pid_ > 0) wait();
  }
  pid_t pid() const { return pid_; }
  void go() { (void)!write(to_, "g", 1); }
  std::string line() {
    std::string s;
    char c;
    while (read(from_, &c, 1) == 1 && c != '\n') s += c;
    return s;
  }
  // The helper's exit status (-1 if it did not exit normally).
  int wait() {
    int status = 0;
    if (pid_ <= 0) return -1;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

}  // namespace conformance
