// The rendezvous store of the gloo collective plugin: a gloo::rendezvous::Store whose keys live in
// a small server (one thread, one listening TCP socket) run by the root, and the client every rank
// uses to reach it. Only the rendezvous goes through it (who joined, Gloo's link addresses); the
// collectives themselves are Gloo's, over Gloo's own TCP pairs.
//
// Wire format, client to server, one request at a time: op (1 byte), key length (u32), key,
// value length (u64), value; the reply is a status byte, then for a get the value length and value.
//   'S' set key = value      reply 1
//   'G' get key              reply 1 + value, or 0 when the key is not there (yet)
//   'D' done (value = u32 ranks of the communicator): after a rank finished joining; the server
//       exits when every rank of every communicator that said hello has said done
//   'H' hello (value = u32 ranks)
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gloo/rendezvous/store.h>

namespace arun::gloo_plugin {

class StoreServer {
 public:
  // Listens on `address`, on the first free port of [lo, hi] (0, 0: any); throws std::runtime_error.
  // With `allowed`, only clients from those numeric addresses are served (std::invalid_argument
  // for an entry that is not one); the others are disconnected on accept.
  StoreServer(const std::string& address, uint32_t lo, uint32_t hi, const std::vector<std::string>* allowed = nullptr);
  ~StoreServer();  // stops the thread
  uint32_t port() const { return port_; }
  uint32_t clients() const { return clients_.load(); }
  uint32_t refused() const { return refused_.load(); }

 private:
  void serve();
  bool admits(const std::string& host) const;
  bool restricted_ = false;
  std::vector<std::string> allowed_;  // canonical numeric forms
  std::atomic<uint32_t> refused_{0};
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  uint32_t port_ = 0;
  std::atomic<uint32_t> clients_{0};
  std::thread thread_;
};

// Thrown by wait() when keys are still missing at the deadline; `missing` lists them.
struct StoreTimeout : std::runtime_error {
  StoreTimeout(const std::string& what, std::vector<std::string> keys)
      : std::runtime_error(what), missing(std::move(keys)) {}
  std::vector<std::string> missing;
};

class StoreClient : public gloo::rendezvous::Store {
 public:
  // Connects to the server, retrying until `deadline` (the root may start later than a rank).
  StoreClient(const std::string& address, uint32_t port, std::chrono::steady_clock::time_point deadline,
              std::chrono::milliseconds default_timeout);
  ~StoreClient() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, default_timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

  bool try_get(const std::string& key, std::vector<char>* out);
  void hello(uint32_t ranks) { request('H', "", u32(ranks)); }
  void done(uint32_t ranks) { request('D', "", u32(ranks)); }

 private:
  static std::vector<char> u32(uint32_t v);
  // Sends one request; returns the reply's status byte and fills `value` for a get.
  uint8_t request(char op, const std::string& key, const std::vector<char>& data, std::vector<char>* value = nullptr);
  int fd_ = -1;
  std::chrono::milliseconds default_timeout_;
};

}  // namespace arun::gloo_plugin
