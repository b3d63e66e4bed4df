#include "runtime/ipc_broker.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "base/logging.hpp"
#include "base/status_helpers.hpp"

namespace arun {
namespace {

constexpr uint32_t kMagic = 0x43504941u;  // "AIPC"
constexpr uint32_t kKindKey = 1;
constexpr uint32_t kKindHandle = 2;
constexpr size_t kKeyBytes = 65;  // ACL's documented key buffer
constexpr int kTimeoutMs = 5000;  // an importer never waits longer for an exporter's answer

struct Request {
  uint32_t magic;
  uint32_t kind;
  char key[kKeyBytes];
  uint64_t handle;
};

struct Reply {
  uint32_t magic;
  int32_t status;  // an ACL code; 0 = the descriptor follows
  uint64_t offset;
  uint64_t size;
  aclrtPhysicalMemProp prop;
  char message[160];
};

// The socket address of the broker of `pid` (abstract namespace: no file, gone with the process).
socklen_t broker_address(pid_t pid, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  const int n = std::snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "arun-ipc-%d", static_cast<int>(pid));
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

bool random_bytes(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  while (n > 0) {
    const ssize_t got = ::getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

void set_timeouts(int fd) {
  timeval tv{kTimeoutMs / 1000, (kTimeoutMs % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

IpcBroker& IpcBroker::instance() {
  static IpcBroker* broker = new IpcBroker();  // never destroyed: no exit-time teardown order
  return *broker;
}

Status IpcBroker::start_locked() {
  if (listen_fd_ >= 0) return Status::Ok();
  const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(Errc::rt_internal_error, std::string("IPC socket: ") + std::strerror(errno));
  sockaddr_un addr;
  const socklen_t len = broker_address(::getpid(), &addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 64) != 0) {
    const int err = errno;
    ::close(fd);
    return Status(Errc::rt_internal_error, std::string("IPC socket of this process: ") + std::strerror(err));
  }
  const int stop = ::eventfd(0, EFD_CLOEXEC);
  if (stop < 0) {
    ::close(fd);
    return Status(Errc::rt_internal_error, std::string("IPC broker: ") + std::strerror(errno));
  }
  listen_fd_ = fd;
  stop_fd_ = stop;
  thread_ = std::thread([this] { serve(); });
  return Status::Ok();
}

void IpcBroker::serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int conn = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    set_timeouts(conn);
    answer(conn);  // short: one request, one reply
    ::close(conn);
  }
}

void IpcBroker::answer(int conn) {
  Request req{};
  Reply rep{};
  rep.magic = kMagic;
  Grant grant;
  Status st = Status::Ok();
  ucred cred{};
  socklen_t cred_len = sizeof cred;
  if (::recv(conn, &req, sizeof req, 0) != static_cast<ssize_t>(sizeof req) || req.magic != kMagic ||
      ::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0) {
    return;  // not one of ours: no answer
  }
  req.key[kKeyBytes - 1] = '\0';
  Source source;
  {
    std::lock_guard lock(mu_);
    const Export* e = nullptr;
    if (req.kind == kKindKey) {
      auto it = keys_.find(req.key);
      if (it != keys_.end()) e = &it->second;
    } else if (req.kind == kKindHandle) {
      auto it = handles_.find(req.handle);
      if (it != handles_.end()) e = &it->second;
    }
    if (e == nullptr) {
      st = param_invalid("the exporting process has no such export (never exported, or closed)");
    } else if (e->pid_check && e->allowed.count(cred.pid) == 0) {
      st = Status(Errc::rt_no_permission, "process " + std::to_string(cred.pid) +
                                              " is not on the export's allow-list (aclrtIpcMemSetImportPid / "
                                              "aclrtMemSetPidToShareableHandle)");
    } else {
      source = e->source;
    }
  }
  grant.importer = cred.pid;
  if (st.ok()) st = source(&grant);
  if (st.ok() && req.kind == kKindKey) {
    std::lock_guard lock(mu_);
    auto it = keys_.find(req.key);
    if (it != keys_.end()) ++it->second.grants;
  }
  rep.status = static_cast<int32_t>(st.code());
  if (st.ok()) {
    rep.offset = grant.offset;
    rep.size = grant.size;
    rep.prop = grant.prop;
  } else {
    std::snprintf(rep.message, sizeof rep.message, "%s", st.message().c_str());
  }
  iovec iov{&rep, sizeof rep};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (st.ok()) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &grant.fd, sizeof(int));
  }
  (void)::sendmsg(conn, &msg, MSG_NOSIGNAL);
  if (grant.fd >= 0) ::close(grant.fd);
}

Status IpcBroker::export_key(Source source, bool pid_check, std::string* key, uint64_t block) {
  unsigned char r[16];
  if (!random_bytes(r, sizeof r)) return Status(Errc::rt_internal_error, "no random bytes for an IPC key");
  char buf[kKeyBytes];
  int n = std::snprintf(buf, sizeof buf, "arun-ipc-%d-", static_cast<int>(::getpid()));
  for (unsigned char b : r) n += std::snprintf(buf + n, sizeof buf - n, "%02x", b);
  std::lock_guard lock(mu_);
  ARUN_RETURN_IF_ERROR(start_locked());
  keys_[buf] = Export{std::move(source), pid_check, {}, block, 0};
  if (block != 0) blocks_exported_.store(true, std::memory_order_relaxed);
  *key = buf;
  return Status::Ok();
}

Status IpcBroker::export_handle(uint64_t local_handle, Source source, bool pid_check, uint64_t* shareable) {
  uint64_t r = 0;
  if (!random_bytes(&r, sizeof r)) return Status(Errc::rt_internal_error, "no random bytes for a shareable handle");
  const uint64_t h = (static_cast<uint64_t>(::getpid()) << 42) | (r & ((uint64_t{1} << 42) - 1));
  std::lock_guard lock(mu_);
  if (handle_of_local_.count(local_handle) != 0) return param_invalid("the handle is already exported");
  ARUN_RETURN_IF_ERROR(start_locked());
  handles_[h] = Export{std::move(source), pid_check, {}};
  handle_of_local_[local_handle] = h;
  *shareable = h;
  return Status::Ok();
}

bool IpcBroker::handle_exported(uint64_t local_handle) const {
  std::lock_guard lock(mu_);
  return handle_of_local_.count(local_handle) != 0;
}

Status IpcBroker::allow_key(const std::string& key, const int32_t* pids, size_t count) {
  std::lock_guard lock(mu_);
  auto it = keys_.find(key);
  if (it == keys_.end()) return param_invalid("key \"" + key + "\" is not an export of this process");
  it->second.allowed.insert(pids, pids + count);
  return Status::Ok();
}

Status IpcBroker::allow_handle(uint64_t shareable, const int32_t* pids, size_t count) {
  std::lock_guard lock(mu_);
  auto it = handles_.find(shareable);
  if (it == handles_.end()) return param_invalid("the shareable handle was not exported by this process");
  it->second.allowed.insert(pids, pids + count);
  return Status::Ok();
}

uint64_t IpcBroker::withdraw_freed(uint64_t block) {
  if (!blocks_exported_.load(std::memory_order_relaxed)) return 0;
  uint64_t granted = 0;
  std::lock_guard lock(mu_);
  for (auto it = keys_.begin(); it != keys_.end();) {
    if (it->second.block == block) {
      granted += it->second.grants;
      it = keys_.erase(it);
    } else {
      ++it;
    }
  }
  return granted;
}

Status IpcBroker::set_key_pid_check(const std::string& key, bool pid_check) {
  std::lock_guard lock(mu_);
  auto it = keys_.find(key);
  if (it == keys_.end()) return param_invalid("key \"" + key + "\" is not an export of this process");
  it->second.pid_check = pid_check;
  return Status::Ok();
}

bool IpcBroker::key_exported(const std::string& key) const {
  std::lock_guard lock(mu_);
  return keys_.count(key) != 0;
}

bool IpcBroker::withdraw_key(const std::string& key) {
  std::lock_guard lock(mu_);
  return keys_.erase(key) != 0;
}

pid_t IpcBroker::key_pid(const std::string& key) {
  int pid = 0;
  char tail[kKeyBytes] = {};
  if (key.size() >= kKeyBytes || std::sscanf(key.c_str(), "arun-ipc-%d-%64s", &pid, tail) != 2 || pid <= 0 ||
      std::strlen(tail) != 32) {
    return 0;
  }
  return pid;
}

Status IpcBroker::request(pid_t pid, uint32_t kind, const std::string& key, uint64_t handle, Grant* grant) {
  const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(Errc::rt_internal_error, std::string("IPC socket: ") + std::strerror(errno));
  set_timeouts(fd);
  sockaddr_un addr;
  const socklen_t len = broker_address(pid, &addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    const int err = errno;
    ::close(fd);
    return param_invalid("the exporting process " + std::to_string(pid) + " does not answer (" + std::strerror(err) +
                         "): it exited, or never exported");
  }
  Request req{};
  req.magic = kMagic;
  req.kind = kind;
  std::snprintf(req.key, sizeof req.key, "%s", key.c_str());
  req.handle = handle;
  Reply rep{};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{&rep, sizeof rep};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t got = -1;
  if (::send(fd, &req, sizeof req, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof req)) {
    got = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  }
  ::close(fd);
  int passed = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); got > 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&passed, CMSG_DATA(c), sizeof(int));
  }
  if (got != static_cast<ssize_t>(sizeof rep) || rep.magic != kMagic) {
    if (passed >= 0) ::close(passed);
    return param_invalid("the exporting process " + std::to_string(pid) + " gave no answer");
  }
  if (rep.status != 0) {
    if (passed >= 0) ::close(passed);
    rep.message[sizeof rep.message - 1] = '\0';
    return Status(static_cast<Errc>(rep.status), std::string("exporter: ") + rep.message);
  }
  if (passed < 0) return param_invalid("the exporting process sent no memory");
  grant->fd = passed;
  grant->offset = rep.offset;
  grant->size = rep.size;
  grant->prop = rep.prop;
  return Status::Ok();
}

Status IpcBroker::import_key(const std::string& key, Grant* grant) {
  const pid_t pid = key_pid(key);
  if (pid == 0) return param_invalid("\"" + key + "\" is not an IPC memory key");
  return request(pid, kKindKey, key, 0, grant);
}

Status IpcBroker::import_handle(uint64_t shareable, Grant* grant) {
  const pid_t pid = handle_pid(shareable);
  if (pid <= 0) return param_invalid("not a shareable handle");
  return request(pid, kKindHandle, "", shareable, grant);
}

void IpcBroker::reset() {
  std::thread t;
  {
    std::lock_guard lock(mu_);
    keys_.clear();
    handles_.clear();
    handle_of_local_.clear();
    if (listen_fd_ < 0) return;
    const uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof one);
    t = std::move(thread_);
  }
  if (t.joinable()) t.join();
  std::lock_guard lock(mu_);
  ::close(listen_fd_);
  ::close(stop_fd_);
  listen_fd_ = stop_fd_ = -1;
}

}  // namespace arun
