// The rendezvous store (tcp_store.hpp): a one-thread poll() server and a blocking client.
#include "tcp_store.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace arun::gloo_plugin {
namespace {

constexpr uint32_t kMaxKey = 4096;
constexpr uint64_t kMaxValue = 16u << 20;  // Gloo's addresses are a few hundred bytes a rank

bool read_all(int fd, void* p, size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::recv(fd, c, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool write_all(int fd, const void* p, size_t n) {
  const auto* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t r = ::send(fd, c, n, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// getaddrinfo for a numeric or named host; throws with the reason.
addrinfo* resolve(const std::string& address, uint32_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  int rc = ::getaddrinfo(address.empty() ? nullptr : address.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) throw std::runtime_error("cannot resolve \"" + address + "\": " + gai_strerror(rc));
  return res;
}

uint32_t read_u32(const std::vector<char>& v) {
  uint32_t x = 0;
  if (v.size() >= 4) std::memcpy(&x, v.data(), 4);
  return x;
}

// The canonical numeric form of an IPv4 / IPv6 address (an IPv4-mapped IPv6 address as plain
// IPv4), or "" when `text` is not a numeric address.
std::string canonical_host(const std::string& text) {
  in_addr a4{};
  in6_addr a6{};
  char buf[INET6_ADDRSTRLEN] = {};
  if (::inet_pton(AF_INET, text.c_str(), &a4) == 1) return ::inet_ntop(AF_INET, &a4, buf, sizeof buf);
  if (::inet_pton(AF_INET6, text.c_str(), &a6) != 1) return "";
  if (IN6_IS_ADDR_V4MAPPED(&a6)) {
    std::memcpy(&a4, a6.s6_addr + 12, 4);
    return ::inet_ntop(AF_INET, &a4, buf, sizeof buf);
  }
  return ::inet_ntop(AF_INET6, &a6, buf, sizeof buf);
}

// A connected peer's numeric address, canonical as above.
std::string peer_host(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET)
    return ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, buf, sizeof buf);
  if (ss.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, buf, sizeof buf);
    return canonical_host(buf);
  }
  return "";
}

}  // namespace

StoreServer::StoreServer(const std::string& address, uint32_t lo, uint32_t hi,
                         const std::vector<std::string>* allowed) {
  if (allowed != nullptr) {
    restricted_ = true;
    for (const std::string& h : *allowed) {
      std::string c = canonical_host(h);
      if (c.empty()) throw std::invalid_argument("\"" + h + "\" is not a numeric IPv4 or IPv6 address");
      allowed_.push_back(std::move(c));
    }
  }
  if (hi < lo) hi = lo;
  std::string last_error = "no port to try";
  for (uint32_t port = lo; port <= hi && listen_fd_ < 0; ++port) {
    addrinfo* res = resolve(address, port, true);
    for (addrinfo* ai = res; ai != nullptr && listen_fd_ < 0; ai = ai->ai_next) {
      int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
        listen_fd_ = fd;
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
        port_ = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
      } else {
        last_error = "port " + std::to_string(port) + ": " + std::strerror(errno);
        ::close(fd);
      }
    }
    ::freeaddrinfo(res);
    if (hi == 0) break;
  }
  if (listen_fd_ < 0) {
    throw std::runtime_error("cannot listen on " + address + " ports " + std::to_string(lo) + "-" + std::to_string(hi) +
                             " (" + last_error + ")");
  }
  if (::pipe2(wake_, O_CLOEXEC) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  thread_ = std::thread([this] { serve(); });
}

StoreServer::~StoreServer() {
  char c = 0;
  (void)!::write(wake_[1], &c, 1);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

bool StoreServer::admits(const std::string& host) const {
  return !restricted_ || std::find(allowed_.begin(), allowed_.end(), host) != allowed_.end();
}

void StoreServer::serve() {
  std::map<std::string, std::vector<char>> kv;
  std::vector<int> clients;
  uint32_t expected = 0, done = 0;
  for (;;) {
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (int c : clients) fds.push_back({c, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) break;
    std::vector<int> keep;
    if (fds[1].revents & POLLIN) {
      sockaddr_storage from{};
      socklen_t from_len = sizeof from;
      int c = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &from_len, SOCK_CLOEXEC);
      if (c >= 0 && !admits(peer_host(from))) {
        // Not on the allow list (HCCL_WHITELIST_FILE): closed before a byte is read. The client
        // sees its connection reset and fails its join.
        ++refused_;
        std::fprintf(stderr, "gloo rendezvous: refused a client from %s (not an allowed host)\n",
                     peer_host(from).c_str());
        ::close(c);
        c = -1;
      }
      if (c >= 0) {
        int one = 1;
        ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        timeval tv{5, 0};  // a client that stalls mid-request is dropped, not waited for
        ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        keep.push_back(c);  // polled from the next round on
      }
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      const int c = fds[i].fd;
      bool ok = true;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        uint8_t op = 0;
        uint32_t klen = 0;
        uint64_t vlen = 0;
        std::string key;
        std::vector<char> value;
        ok = read_all(c, &op, 1) && read_all(c, &klen, 4) && klen <= kMaxKey;
        if (ok) {
          key.resize(klen);
          ok = read_all(c, key.data(), klen) && read_all(c, &vlen, 8) && vlen <= kMaxValue;
        }
        if (ok) {
          value.resize(vlen);
          ok = read_all(c, value.data(), vlen);
        }
        if (ok) {
          uint8_t status = 1;
          if (op == 'S') {
            kv[key] = std::move(value);
            ok = write_all(c, &status, 1);
          } else if (op == 'G') {
            auto it = kv.find(key);
            status = it != kv.end();
            ok = write_all(c, &status, 1);
            if (ok && status) {
              uint64_t n = it->second.size();
              ok = write_all(c, &n, 8) && write_all(c, it->second.data(), n);
            }
          } else if (op == 'H') {
            if (expected == 0) expected = read_u32(value);
            clients_.fetch_add(1);
            ok = write_all(c, &status, 1);
          } else if (op == 'D') {
            ++done;
            ok = write_all(c, &status, 1);
          } else {
            ok = false;
          }
        }
      }
      if (ok) {
        keep.push_back(c);
      } else {
        ::close(c);
      }
    }
    clients.swap(keep);
    if (expected > 0 && done >= expected) break;  // every rank joined: nobody needs the store any more
  }
  for (int c : clients) ::close(c);
}

StoreClient::StoreClient(const std::string& address, uint32_t port, std::chrono::steady_clock::time_point deadline,
                         std::chrono::milliseconds default_timeout)
    : default_timeout_(default_timeout) {
  std::string why;
  for (;;) {
    addrinfo* res = resolve(address, port, false);
    for (addrinfo* ai = res; ai != nullptr && fd_ < 0; ai = ai->ai_next) {
      int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        fd_ = fd;
      } else {
        why = std::strerror(errno);
        ::close(fd);
      }
    }
    ::freeaddrinfo(res);
    if (fd_ >= 0) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      throw StoreTimeout(
          "cannot reach the rendezvous service at " + address + ":" + std::to_string(port) + " (" + why + ")", {});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

StoreClient::~StoreClient() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<char> StoreClient::u32(uint32_t v) {
  std::vector<char> out(4);
  std::memcpy(out.data(), &v, 4);
  return out;
}

uint8_t StoreClient::request(char op, const std::string& key, const std::vector<char>& data, std::vector<char>* value) {
  const uint32_t klen = static_cast<uint32_t>(key.size());
  const uint64_t vlen = data.size();
  uint8_t status = 0;
  bool ok = write_all(fd_, &op, 1) && write_all(fd_, &klen, 4) && write_all(fd_, key.data(), klen) &&
            write_all(fd_, &vlen, 8) && write_all(fd_, data.data(), vlen) && read_all(fd_, &status, 1);
  if (ok && op == 'G' && status == 1) {
    uint64_t n = 0;
    ok = read_all(fd_, &n, 8) && n <= kMaxValue;
    if (ok) {
      value->resize(n);
      ok = read_all(fd_, value->data(), n);
    }
  }
  if (!ok) throw std::runtime_error("the rendezvous service closed the connection");
  return status;
}

void StoreClient::set(const std::string& key, const std::vector<char>& data) {
  request('S', key, data);
}

bool StoreClient::try_get(const std::string& key, std::vector<char>* out) {
  return request('G', key, {}, out) == 1;
}

std::vector<char> StoreClient::get(const std::string& key) {
  wait({key});
  std::vector<char> out;
  try_get(key, &out);
  return out;
}

void StoreClient::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<std::string> missing = keys;
  for (;;) {
    std::vector<std::string> still;
    std::vector<char> scratch;
    for (const auto& k : missing)
      if (!try_get(k, &scratch)) still.push_back(k);
    if (still.empty()) return;
    missing.swap(still);
    if (std::chrono::steady_clock::now() >= deadline) {
      throw StoreTimeout("rendezvous keys missing after " + std::to_string(timeout.count()) + " ms", missing);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace arun::gloo_plugin
