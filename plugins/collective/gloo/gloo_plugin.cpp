// The gloo collective plugin: arunCollectiveOps (arun/collective.h) on Gloo (Debian's libgloo):
// Gloo's TCP transport, Gloo's algorithms, and our rendezvous store (tcp_store.hpp) for joining.
// Every entry point catches everything: no exception crosses the C table.
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/config.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arun/plugin/collective.hpp"
#include "arun/plugin/plugin_abi.hpp"
#include "tcp_store.hpp"

namespace arun::gloo_plugin {
namespace {

using namespace std::chrono;
using plugin::PluginObject;

struct Comm {
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> ctx;
  milliseconds timeout{0};
  std::vector<uint32_t> sent, received;         // point-to-point messages per peer (their slots)
  std::vector<std::vector<std::string>> addrs;  // per rank: its link addresses as Gloo's messages show them
};

Comm* as_comm(arunCollComm c) {
  return reinterpret_cast<Comm*>(c);
}

int32_t fail(char* err, size_t n, int32_t code, const std::string& what) {
  if (err != nullptr && n > 0) std::snprintf(err, n, "%s", what.c_str());
  return code;
}

// Gloo reports a peer that went away and a peer that did not answer in time as IoException. Its
// message names the peer by the address its links listen on: add which rank that is.
int32_t from_exception(const Comm& c, char* err, size_t n, const char* op, const std::exception& e) {
  std::string msg = std::string(op) + ": " + e.what();
  const bool timeout = msg.find("imed out") != std::string::npos || msg.find("imeout") != std::string::npos;
  auto names = [&](const std::string& a) {
    const size_t at = msg.find(a), end = at + a.size();
    // The whole port: "[ip]:555" must not match "[ip]:5559".
    return !a.empty() && at != std::string::npos &&
           (end >= msg.size() || !std::isdigit(static_cast<unsigned char>(msg[end])));
  };
  for (size_t r = 0; r < c.addrs.size(); ++r) {
    if (int(r) == c.ctx->rank) continue;
    std::string hit;
    for (const auto& a : c.addrs[r])
      if (hit.empty() && names(a)) hit = a;
    if (!hit.empty()) {
      msg += " (the peer at " + hit + " is rank " + std::to_string(r) + ")";
      break;
    }
  }
  return fail(err, n, timeout ? ARUN_COLL_E_TIMEOUT : ARUN_COLL_E_REMOTE, msg);
}

// "[ip]:port" of a link address (Gloo appends a sequence number to a pair's address).
std::string listen_address(const std::string& s) {
  const size_t colon = s.find("]:");
  if (colon == std::string::npos) return s;
  size_t end = colon + 2;
  while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
  return s.substr(0, end);
}

// The local ports of this process's TCP sockets (Linux: the socket inodes of /proc/self/fd found in
// /proc/net/tcp and tcp6): its links' listening port and the ports of the links it opened. A peer
// names a dead rank's link by one of them.
std::vector<uint32_t> process_ports() {
  std::vector<uint32_t> out;
  std::vector<unsigned long> inodes;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      char link[64] = {};
      const std::string path = std::string("/proc/self/fd/") + e->d_name;
      const ssize_t len = readlink(path.c_str(), link, sizeof link - 1);
      unsigned long ino = 0;
      if (len > 0 && std::sscanf(link, "socket:[%lu]", &ino) == 1) inodes.push_back(ino);
    }
    closedir(d);
  }
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    FILE* f = std::fopen(table, "r");
    if (f == nullptr) continue;
    char line[512];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      char local[64];
      unsigned long ino = 0;
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (std::sscanf(line, "%*s %63s %*s %*s %*s %*s %*s %*s %*s %lu", local, &ino) != 2) continue;
      const char* lp = std::strrchr(local, ':');
      if (lp != nullptr && std::find(inodes.begin(), inodes.end(), ino) != inodes.end())
        out.push_back(uint32_t(std::strtoul(lp + 1, nullptr, 16)));
    }
    std::fclose(f);
  }
  return out;
}

// Gloo writes to its sockets without MSG_NOSIGNAL: a write to a link whose peer died would raise
// SIGPIPE and kill the process, where the call should fail. A library must not change the
// process's handler, so SIGPIPE is blocked on the writing threads: Gloo's loop thread inherits the
// mask from the thread that creates the device, and each call blocks it on the caller's thread
// while it runs, consuming one it raised before restoring the mask.
class NoSigpipe {
 public:
  NoSigpipe() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  NoSigpipe(const NoSigpipe&) = delete;
  NoSigpipe& operator=(const NoSigpipe&) = delete;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

#define GUARD(op, ...)                                                          \
  NoSigpipe no_sigpipe_;                                                        \
  try {                                                                         \
    __VA_ARGS__;                                                                \
    return ARUN_COLL_OK;                                                        \
  } catch (const std::bad_alloc&) {                                             \
    return fail(err, err_size, ARUN_COLL_E_INTERNAL, op ": out of memory");     \
  } catch (const std::exception& e) {                                           \
    return from_exception(c, err, err_size, op, e);                             \
  } catch (...) {                                                               \
    return fail(err, err_size, ARUN_COLL_E_INTERNAL, op ": unknown exception"); \
  }

// ---- reductions (integers wrap: computed in the unsigned type) ----

template <class T, bool = std::is_integral_v<T>>
struct Wide {
  using U = T;
};
template <class T>
struct Wide<T, true> {
  using U = std::make_unsigned_t<T>;
};

template <class T, int Op>
void reduce_fn(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  using U = typename Wide<T>::U;
  for (size_t i = 0; i < n; ++i) {
    if constexpr (Op == ARUN_COLL_SUM) {
      out[i] = static_cast<T>(static_cast<U>(x[i]) + static_cast<U>(y[i]));
    } else if constexpr (Op == ARUN_COLL_PROD) {
      out[i] = static_cast<T>(static_cast<U>(x[i]) * static_cast<U>(y[i]));
    } else if constexpr (Op == ARUN_COLL_MAX) {
      // NaN propagates (HCCL's rule on the in-process path too).
      out[i] = (x[i] != x[i] || x[i] > y[i]) ? x[i] : y[i];
    } else {
      out[i] = (x[i] != x[i] || x[i] < y[i]) ? x[i] : y[i];
    }
  }
}

using Fn = void (*)(void*, const void*, const void*, size_t);

// Gloo splits buffers in whole elements of the type it is given: give it a word of the element's size.
template <class F>
void with_word(size_t es, F&& f) {
  switch (es) {
    case 1:
      f(uint8_t{});
      break;
    case 2:
      f(uint16_t{});
      break;
    case 4:
      f(uint32_t{});
      break;
    default:
      f(uint64_t{});
      break;
  }
}

template <class T>
Fn pick_op(int32_t op) {
  switch (op) {
    case ARUN_COLL_SUM:
      return &reduce_fn<T, ARUN_COLL_SUM>;
    case ARUN_COLL_PROD:
      return &reduce_fn<T, ARUN_COLL_PROD>;
    case ARUN_COLL_MAX:
      return &reduce_fn<T, ARUN_COLL_MAX>;
    case ARUN_COLL_MIN:
      return &reduce_fn<T, ARUN_COLL_MIN>;
    default:
      return nullptr;
  }
}

// The element size and reduce function of (type, op); false when the engine has none.
bool reduction(int32_t type, int32_t op, size_t* es, Fn* fn) {
  switch (type) {
    case ARUN_COLL_INT8:
      *es = 1, *fn = pick_op<int8_t>(op);
      break;
    case ARUN_COLL_UINT8:
      *es = 1, *fn = pick_op<uint8_t>(op);
      break;
    case ARUN_COLL_INT16:
      *es = 2, *fn = pick_op<int16_t>(op);
      break;
    case ARUN_COLL_UINT16:
      *es = 2, *fn = pick_op<uint16_t>(op);
      break;
    case ARUN_COLL_INT32:
      *es = 4, *fn = pick_op<int32_t>(op);
      break;
    case ARUN_COLL_UINT32:
      *es = 4, *fn = pick_op<uint32_t>(op);
      break;
    case ARUN_COLL_INT64:
      *es = 8, *fn = pick_op<int64_t>(op);
      break;
    case ARUN_COLL_UINT64:
      *es = 8, *fn = pick_op<uint64_t>(op);
      break;
    case ARUN_COLL_FLOAT32:
      *es = 4, *fn = pick_op<float>(op);
      break;
    case ARUN_COLL_FLOAT64:
      *es = 8, *fn = pick_op<double>(op);
      break;
    default:
      return false;
  }
  return *fn != nullptr;
}

int32_t bad_reduction(char* err, size_t n, int32_t type, int32_t op) {
  return fail(err, n, ARUN_COLL_E_NOT_SUPPORTED,
              "gloo: no reduction for type " + std::to_string(type) + " and op " + std::to_string(op));
}

// ---- the table ----

int32_t serve(const char* address, uint32_t lo, uint32_t hi, arunCollServer* server, uint32_t* port, char* err,
              size_t err_size) {
  if (address == nullptr || server == nullptr || port == nullptr)
    return fail(err, err_size, ARUN_COLL_E_INVALID, "serve: NULL argument");
  try {
    auto* s = new StoreServer(address, lo, hi);
    *port = s->port();
    *server = reinterpret_cast<arunCollServer>(s);
    return ARUN_COLL_OK;
  } catch (const std::exception& e) {
    return fail(err, err_size, ARUN_COLL_E_CONNECT, std::string("rendezvous service: ") + e.what());
  }
}

int32_t serve_only(const char* address, uint32_t lo, uint32_t hi, const char* const* hosts, uint32_t count,
                   arunCollServer* server, uint32_t* port, char* err, size_t err_size) {
  if (address == nullptr || server == nullptr || port == nullptr || (hosts == nullptr && count > 0))
    return fail(err, err_size, ARUN_COLL_E_INVALID, "serve_only: NULL argument");
  std::vector<std::string> allowed;
  for (uint32_t i = 0; i < count; ++i) {
    if (hosts[i] == nullptr) return fail(err, err_size, ARUN_COLL_E_INVALID, "serve_only: NULL host");
    allowed.emplace_back(hosts[i]);
  }
  try {
    auto* s = new StoreServer(address, lo, hi, &allowed);
    *port = s->port();
    *server = reinterpret_cast<arunCollServer>(s);
    return ARUN_COLL_OK;
  } catch (const std::invalid_argument& e) {
    return fail(err, err_size, ARUN_COLL_E_INVALID, std::string("rendezvous service: allowed host ") + e.what());
  } catch (const std::exception& e) {
    return fail(err, err_size, ARUN_COLL_E_CONNECT, std::string("rendezvous service: ") + e.what());
  }
}

uint32_t server_clients(arunCollServer s) {
  return s == nullptr ? 0 : reinterpret_cast<StoreServer*>(s)->clients();
}

void close_server(arunCollServer s) {
  delete reinterpret_cast<StoreServer*>(s);
}

std::string rank_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k.substr(k.rfind('/') + 1);
  return out;
}

constexpr uint8_t kLinkSlotPrefix = 0x5b;  // the join's link check (connect), apart from the others

int32_t connect(const arunCollSpec* spec, arunCollComm* out, char* err, size_t err_size) {
  if (spec == nullptr || out == nullptr || spec->root_address == nullptr || spec->session == nullptr)
    return fail(err, err_size, ARUN_COLL_E_INVALID, "connect: NULL argument");
  if (spec->size == 0 || spec->rank >= spec->size)
    return fail(err, err_size, ARUN_COLL_E_INVALID,
                "connect: rank " + std::to_string(spec->rank) + " of " + std::to_string(spec->size));
  const auto start = steady_clock::now();
  const milliseconds connect_ms(std::max<int64_t>(spec->connect_timeout_ms, 1));
  const auto deadline = start + connect_ms;
  auto left = [&] { return std::max(milliseconds(1), duration_cast<milliseconds>(deadline - steady_clock::now())); };
  const std::string session = spec->session;
  const uint32_t n = spec->size, rank = spec->rank;
  NoSigpipe no_sigpipe;  // also the mask Gloo's loop thread inherits from CreateDevice below
  try {
    StoreClient client(spec->root_address, spec->root_port, deadline, connect_ms);
    client.hello(n);
    // Who joined: each rank posts its world size, so a rank that disagrees is named.
    std::vector<char> mine(4);
    std::memcpy(mine.data(), &n, 4);
    client.set(session + "/joined/" + std::to_string(rank), mine);
    std::vector<std::string> keys;
    for (uint32_t r = 0; r < n; ++r) keys.push_back(session + "/joined/" + std::to_string(r));
    try {
      client.wait(keys, left());
    } catch (const StoreTimeout& t) {
      return fail(err, err_size, ARUN_COLL_E_TIMEOUT,
                  "rank(s) " + rank_list(t.missing) + " of " + std::to_string(n) + " did not join \"" + session +
                      "\" within " + std::to_string(connect_ms.count()) + " ms (rank " + std::to_string(rank) +
                      " waited)");
    }
    for (uint32_t r = 0; r < n; ++r) {
      std::vector<char> v;
      client.try_get(keys[r], &v);
      uint32_t theirs = 0;
      if (v.size() == 4) std::memcpy(&theirs, v.data(), 4);
      if (theirs != n) {
        return fail(err, err_size, ARUN_COLL_E_INVALID,
                    "rank " + std::to_string(r) + " joined \"" + session + "\" with " + std::to_string(theirs) +
                        " ranks, rank " + std::to_string(rank) + " with " + std::to_string(n));
      }
    }
    auto c = std::make_unique<Comm>();
    gloo::transport::tcp::attr attr;
    attr.hostname = spec->local_address != nullptr ? spec->local_address : spec->root_address;
    c->device = gloo::transport::tcp::CreateDevice(attr);
    // The device's listening socket (peers name a link by it until it is connected).
    std::vector<uint32_t> ports = process_ports();
    c->ctx = std::make_shared<gloo::rendezvous::Context>(static_cast<int>(rank), static_cast<int>(n));
    c->ctx->setTimeout(left());
    gloo::rendezvous::PrefixStore prefixed(session + "/gloo", client);
    c->ctx->connectFullMesh(prefixed, c->device);
    // This rank's link addresses, so that a peer's error naming one can name the rank: the pairs'
    // own addresses and the process's socket ports, in both byte orders (Gloo 0.5's Address::str()
    // shows the port as stored, in network order).
    // One byte each way on every link first, so that every socket of the mesh exists (Gloo may
    // finish a link lazily) when the process's ports are read.
    {
      std::vector<char> out(n, 1), in(n, 0);
      std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> bufs;
      for (uint32_t q = 0; q < n; ++q) {
        if (q == rank) continue;
        auto tx = c->ctx->createUnboundBuffer(&out[q], 1);
        auto rx = c->ctx->createUnboundBuffer(&in[q], 1);
        tx->send(int(q), gloo::Slot::build(kLinkSlotPrefix, 0));
        rx->recv(int(q), gloo::Slot::build(kLinkSlotPrefix, 0));
        bufs.push_back(std::move(tx));
        bufs.push_back(std::move(rx));
      }
      for (size_t k = 0; k < bufs.size(); k += 2) {
        bufs[k]->waitSend(left());
        bufs[k + 1]->waitRecv(left());
      }
    }
    std::string addrs, ip;
    for (uint32_t q = 0; q < n; ++q) {
      if (q == rank) continue;
      const std::string a = c->ctx->getPair(int(q))->address().str();
      addrs += (addrs.empty() ? "" : ",") + listen_address(a);
      if (ip.empty()) ip = a.substr(0, a.rfind("]:") + 1);
    }
    for (uint32_t p : process_ports()) ports.push_back(p);
    for (uint32_t p : ports)
      addrs += "," + ip + ":" + std::to_string(p) + "," + ip + ":" + std::to_string(((p & 0xff) << 8) | (p >> 8));
    client.set(session + "/addrs/" + std::to_string(rank), std::vector<char>(addrs.begin(), addrs.end()));
    gloo::BarrierOptions posted(c->ctx);
    posted.setTimeout(left());
    gloo::barrier(posted);
    c->addrs.assign(n, {});
    for (uint32_t q = 0; q < n; ++q) {
      std::vector<char> v;
      if (q == rank || !client.try_get(session + "/addrs/" + std::to_string(q), &v)) continue;
      std::string item;
      for (size_t i = 0; i <= v.size(); ++i) {
        if (i == v.size() || v[i] == ',') {
          if (!item.empty()) c->addrs[q].push_back(item);
          item.clear();
        } else {
          item += v[i];
        }
      }
    }
    // Nobody needs the store once every rank has its links: then tell the service we are done.
    gloo::BarrierOptions b(c->ctx);
    b.setTimeout(left());
    gloo::barrier(b);
    try {
      client.done(n);
    } catch (...) {
      // The root's service may already be gone (it closes once its own rank joined): harmless.
    }
    c->timeout = spec->exec_timeout_ms > 0 ? milliseconds(spec->exec_timeout_ms) : hours(24 * 365);
    c->ctx->setTimeout(c->timeout);
    c->sent.assign(n, 0);
    c->received.assign(n, 0);
    *out = reinterpret_cast<arunCollComm>(c.release());
    return ARUN_COLL_OK;
  } catch (const StoreTimeout& t) {
    return fail(err, err_size, ARUN_COLL_E_TIMEOUT, std::string("rank ") + std::to_string(rank) + ": " + t.what());
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    const bool timeout = msg.find("imed out") != std::string::npos || steady_clock::now() >= deadline;
    return fail(err, err_size, timeout ? ARUN_COLL_E_TIMEOUT : ARUN_COLL_E_CONNECT,
                "rank " + std::to_string(rank) + " joining \"" + session + "\": " + msg);
  }
}

void destroy(arunCollComm c) {
  try {
    delete as_comm(c);
  } catch (...) {
  }
}

int32_t allreduce(arunCollComm comm, const void* in, void* out, uint64_t count, int32_t type, int32_t op, char* err,
                  size_t err_size) {
  size_t es = 0;
  Fn fn = nullptr;
  if (!reduction(type, op, &es, &fn)) return bad_reduction(err, err_size, type, op);
  Comm& c = *as_comm(comm);
  GUARD("gloo allreduce", {
    gloo::AllreduceOptions o(c.ctx);
    with_word(es, [&](auto w) {
      using W = decltype(w);
      // Out of place, Gloo reads the input as it reduces each segment: no separate copy pass.
      if (in != out) o.setInput(const_cast<W*>(static_cast<const W*>(in)), count);
      o.setOutput(reinterpret_cast<W*>(out), count);
    });
    o.setReduceFunction(fn);
    o.setTimeout(c.timeout);
    gloo::allreduce(o);
  })
}

int32_t reduce(arunCollComm comm, const void* in, void* out, uint64_t count, int32_t type, int32_t op, uint32_t root,
               char* err, size_t err_size) {
  size_t es = 0;
  Fn fn = nullptr;
  if (!reduction(type, op, &es, &fn)) return bad_reduction(err, err_size, type, op);
  Comm& c = *as_comm(comm);
  GUARD("gloo reduce", {
    // Gloo's reduce works in its output on every rank: non-roots get scratch space.
    std::vector<char> scratch;
    char* dst = static_cast<char*>(out);
    if (static_cast<int>(root) != c.ctx->rank || dst == nullptr) {
      scratch.resize(count * es);
      dst = scratch.data();
    }
    if (in != dst) std::memcpy(dst, in, count * es);
    gloo::ReduceOptions o(c.ctx);
    with_word(es, [&](auto w) { o.setOutput(reinterpret_cast<decltype(w)*>(dst), count); });
    o.setRoot(static_cast<int>(root));
    o.setReduceFunction(fn);
    o.setTimeout(c.timeout);
    gloo::reduce(o);
  })
}

int32_t reduce_scatter(arunCollComm comm, const void* in, void* out, const uint64_t* counts, int32_t type, int32_t op,
                       char* err, size_t err_size) {
  size_t es = 0;
  Fn fn = nullptr;
  if (!reduction(type, op, &es, &fn)) return bad_reduction(err, err_size, type, op);
  Comm& c = *as_comm(comm);
  uint64_t total = 0, offset = 0;
  for (int r = 0; r < c.ctx->size; ++r) {
    if (r == c.ctx->rank) offset = total;
    total += counts[r];
  }
  // Gloo 0.5 has no options-style reduce-scatter: its allreduce, then this rank's block.
  std::vector<char> all;
  GUARD("gloo reduce_scatter", {
    all.resize(total * es);
    std::memcpy(all.data(), in, total * es);
    gloo::AllreduceOptions o(c.ctx);
    with_word(es, [&](auto w) { o.setOutput(reinterpret_cast<decltype(w)*>(all.data()), total); });
    o.setReduceFunction(fn);
    o.setTimeout(c.timeout);
    gloo::allreduce(o);
    std::memcpy(out, all.data() + offset * es, counts[c.ctx->rank] * es);
  })
}

int32_t broadcast(arunCollComm comm, void* buf, uint64_t bytes, uint32_t root, char* err, size_t err_size) {
  Comm& c = *as_comm(comm);
  GUARD("gloo broadcast", {
    gloo::BroadcastOptions o(c.ctx);
    o.setOutput(static_cast<char*>(buf), bytes);  // the root sends from it, the others receive into it
    o.setRoot(static_cast<int>(root));
    o.setTimeout(c.timeout);
    gloo::broadcast(o);
  })
}

int32_t allgatherv(arunCollComm comm, const void* in, void* out, const uint64_t* bytes, char* err, size_t err_size) {
  Comm& c = *as_comm(comm);
  GUARD("gloo allgatherv", {
    std::vector<size_t> counts(bytes, bytes + c.ctx->size);
    gloo::AllgathervOptions o(c.ctx);
    o.setInput(const_cast<char*>(static_cast<const char*>(in)), counts[c.ctx->rank]);
    o.setOutput(static_cast<char*>(out), counts);
    o.setTimeout(c.timeout);
    gloo::allgatherv(o);
  })
}

int32_t scatter(arunCollComm comm, const void* in, void* out, uint64_t bytes, uint32_t root, char* err,
                size_t err_size) {
  Comm& c = *as_comm(comm);
  GUARD("gloo scatter", {
    gloo::ScatterOptions o(c.ctx);
    if (static_cast<int>(root) == c.ctx->rank) {
      std::vector<char*> ins;
      for (int r = 0; r < c.ctx->size; ++r) ins.push_back(const_cast<char*>(static_cast<const char*>(in)) + r * bytes);
      o.setInputs(ins, bytes);
    }
    o.setOutput(static_cast<char*>(out), bytes);
    o.setRoot(static_cast<int>(root));
    o.setTimeout(c.timeout);
    gloo::scatter(o);
  })
}

int32_t alltoallv(arunCollComm comm, const void* in, const uint64_t* send_bytes, void* out, const uint64_t* recv_bytes,
                  char* err, size_t err_size) {
  Comm& c = *as_comm(comm);
  GUARD("gloo alltoallv", {
    std::vector<int64_t> s(send_bytes, send_bytes + c.ctx->size), r(recv_bytes, recv_bytes + c.ctx->size);
    gloo::AlltoallvOptions o(c.ctx);
    o.setInput(const_cast<char*>(static_cast<const char*>(in)), s);
    o.setOutput(static_cast<char*>(out), r);
    o.setTimeout(c.timeout);
    gloo::alltoallv(o);
  })
}

constexpr uint8_t kP2pSlotPrefix = 0x5a;  // apart from the prefixes of Gloo's own algorithms

int32_t sendrecv(arunCollComm comm, const arunCollP2p* items, uint32_t count, char* err, size_t err_size) {
  Comm& c = *as_comm(comm);
  for (uint32_t i = 0; i < count; ++i) {
    if (items[i].peer >= static_cast<uint32_t>(c.ctx->size) || static_cast<int>(items[i].peer) == c.ctx->rank)
      return fail(err, err_size, ARUN_COLL_E_INVALID, "sendrecv: bad peer " + std::to_string(items[i].peer));
  }
  GUARD("gloo send/recv", {
    // Post everything, then wait: a send waits for its receiver's buffer, so posting one at a
    // time would deadlock two ranks that both send first.
    std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> bufs;
    std::vector<bool> sends;
    for (uint32_t i = 0; i < count; ++i) {
      const arunCollP2p& it = items[i];
      if (it.bytes == 0) continue;
      auto b = c.ctx->createUnboundBuffer(it.buf, it.bytes);
      const int peer = static_cast<int>(it.peer);
      if (it.send) {
        b->send(peer, gloo::Slot::build(kP2pSlotPrefix, c.sent[peer]++));
      } else {
        b->recv(peer, gloo::Slot::build(kP2pSlotPrefix, c.received[peer]++));
      }
      bufs.push_back(std::move(b));
      sends.push_back(it.send != 0);
    }
    for (size_t i = 0; i < bufs.size(); ++i) {
      if (sends[i]) {
        bufs[i]->waitSend(c.timeout);
      } else {
        bufs[i]->waitRecv(c.timeout);
      }
    }
  })
}

int32_t barrier(arunCollComm comm, char* err, size_t err_size) {
  Comm& c = *as_comm(comm);
  GUARD("gloo barrier", {
    gloo::BarrierOptions o(c.ctx);
    o.setTimeout(c.timeout);
    gloo::barrier(o);
  })
}

#define ARUN_STR2(x) #x
#define ARUN_STR(x) ARUN_STR2(x)

const arunCollectiveOps kOps{
    sizeof(arunCollectiveOps),
    ARUN_COLLECTIVE_OPS_VERSION,
    "gloo " ARUN_STR(GLOO_VERSION_MAJOR) "." ARUN_STR(GLOO_VERSION_MINOR) "." ARUN_STR(GLOO_VERSION_PATCH),
    &serve,
    &server_clients,
    &close_server,
    &connect,
    &destroy,
    &allreduce,
    &reduce,
    &reduce_scatter,
    &broadcast,
    &allgatherv,
    &scatter,
    &alltoallv,
    &sendrecv,
    &barrier,
    &serve_only,
};

class GlooPlugin : public plugin::CollectivePlugin {
 public:
  const arunCollectiveOps* ops() const override { return &kOps; }
};

PluginObject* create(plugin::HostServices*, const plugin::OptionValues*, char* error, size_t error_size) {
  try {
    return new GlooPlugin();
  } catch (...) {
    std::snprintf(error, error_size, "gloo: out of memory");
    return nullptr;
  }
}

}  // namespace

extern const plugin::PluginDescriptor kGlooDescriptor;
const plugin::PluginDescriptor kGlooDescriptor{
    ARUN_PLUGIN_HEADER,
    plugin::PluginKind::Collective,
    "gloo",
    "0.1.0",
    "",
    "Collectives between processes on Gloo (TCP), for libhccl",
    nullptr,
    0,
    &create,
};

}  // namespace arun::gloo_plugin

ARUN_DECLARE_PLUGIN(arun::gloo_plugin::kGlooDescriptor)
