// Communicator management (hccl_comm.h): root info, creation, destruction, queries, configuration.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "arun/kernel.h"
#include "hccl_internal.hpp"

namespace hccl {

namespace {

constexpr char kMagic[4] = {'A', 'R', 'H', 'R'};
constexpr uint32_t kRootInfoVersion = 1;
// Root-info layout (hccl-api.md 1.5, ours): magic, version, IP[64], port, identifier[128], device.
constexpr size_t kOffVersion = 4, kOffIp = 8, kOffPort = 72, kOffId = 76, kOffDevice = 204;

// A rendezvous in progress: one per root info, until every rank has joined.
struct Pending {
  uint32_t n = 0;
  std::vector<bool> joined;
  std::vector<int32_t> devices;
  std::vector<void*> staging;
  std::vector<uint64_t> staging_bytes;
  uint32_t count = 0;
  std::shared_ptr<Group> group;  // set by the last rank to join
  bool failed = false;
  bool remote = false;  // ranks of other processes joined: this process's ranks join through the plugin
};

struct Registry {
  std::mutex mu;
  std::condition_variable cv;
  std::map<uintptr_t, std::shared_ptr<Comm>> comms;
  uintptr_t next_handle = 0x4843434c0000ULL;  // "HCCL", never reused
  std::set<std::string> issued_ids;           // root infos HcclGetRootInfo produced
  std::map<std::string, std::shared_ptr<Pending>> pending;
  uint64_t id_counter = 0;
  int32_t set_deterministic = 0;
};

Registry& reg() {
  static Registry* r = new Registry();  // never destroyed: comms may outlive static teardown
  return *r;
}

// Environment, read when a communicator is created (hccl-api.md §3).
HcclResult env_int(const char* name, long lo, long hi, long dflt, long* out) {
  const char* v = std::getenv(name);
  if (v == nullptr || v[0] == '\0') {
    *out = dflt;
    return HCCL_SUCCESS;
  }
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) {
    log_error("environment variable %s=\"%s\" is not an integer in [%ld, %ld]", name, v, lo, hi);
    return HCCL_E_PARA;
  }
  *out = x;
  return HCCL_SUCCESS;
}

// Rendezvous limit: HCCL_CONNECT_TIMEOUT + 20 s; ARUN_HCCL_CONNECT_TIMEOUT_MS (ascend-run only)
// replaces it, so tests of a missing rank need not wait minutes.
HcclResult connect_timeout_ms(long* ms) {
  long ext = 0;
  if (HcclResult r = env_int("ARUN_HCCL_CONNECT_TIMEOUT_MS", 1, 7220000, 0, &ext); r != HCCL_SUCCESS) return r;
  if (ext > 0) {
    *ms = ext;
    return HCCL_SUCCESS;
  }
  long s = 0;
  if (HcclResult r = env_int("HCCL_CONNECT_TIMEOUT", 120, 7200, 120, &s); r != HCCL_SUCCESS) return r;
  *ms = (s + 20) * 1000;
  return HCCL_SUCCESS;
}

int32_t env_deterministic(bool* set) {
  const char* v = std::getenv("HCCL_DETERMINISTIC");
  *set = v != nullptr && v[0] != '\0';
  if (!*set) return 0;
  if (std::strcmp(v, "true") == 0 || std::strcmp(v, "TRUE") == 0) return 1;
  if (std::strcmp(v, "strict") == 0 || std::strcmp(v, "STRICT") == 0) return 2;
  return 0;
}

struct Settings {
  uint64_t buffer_mb = 200;
  int32_t exec_timeout_s = 1836;
  uint32_t deterministic = 0;
  uint32_t expansion_mode = 0;
  std::string name;
  std::string algo;
};

HcclResult env_settings(Settings* s) {
  long v = 0;
  if (HcclResult r = env_int("HCCL_BUFFSIZE", 1, 1L << 20, 200, &v); r != HCCL_SUCCESS) return r;
  s->buffer_mb = static_cast<uint64_t>(v);
  if (HcclResult r = env_int("HCCL_EXEC_TIMEOUT", 0, 2147483647L, 1836, &v); r != HCCL_SUCCESS) return r;
  s->exec_timeout_s = static_cast<int32_t>(v);
  bool set = false;
  int32_t det = env_deterministic(&set);
  s->deterministic = static_cast<uint32_t>(set ? det : reg().set_deterministic);
  if (const char* a = std::getenv("HCCL_ALGO")) s->algo = a;
  return HCCL_SUCCESS;
}

// The versioning rule of hccl-api.md 1.6: copy min(size, ours), honour fields up to the caller's version.
HcclResult apply_config(const HcclCommConfig* config, Settings* s) {
  struct Header {
    size_t size;
    uint32_t magic;
    uint32_t version;
    uint64_t reserved;
  };
  Header h;
  std::memcpy(&h, config, sizeof h);
  if (h.magic != HCCL_COMM_CONFIG_MAGIC_WORD) {
    log_error("config was not prepared by HcclCommConfigInit (magic word 0x%x)", h.magic);
    return HCCL_E_PARA;
  }
  HcclCommConfig c;
  HcclCommConfigInit(&c);
  std::memcpy(&c, config, std::min(h.size, sizeof(HcclCommConfig)));
  const uint32_t ver = h.version;
  if (ver >= 1 && c.hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET) {
    if (c.hcclBufferSize == 0) {
      log_error("config hcclBufferSize is 0 (must be at least 1 MB)");
      return HCCL_E_PARA;
    }
    s->buffer_mb = c.hcclBufferSize;
  }
  if (ver >= 1 && c.hcclDeterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET) {
    if (c.hcclDeterministic > 2) {
      log_error("config hcclDeterministic %u is not 0, 1 or 2", c.hcclDeterministic);
      return HCCL_E_PARA;
    }
    s->deterministic = c.hcclDeterministic;
  }
  if (ver >= 2) s->name.assign(c.hcclCommName, strnlen(c.hcclCommName, COMM_NAME_MAX_LENGTH - 1));
  if (ver >= 4) s->expansion_mode = c.hcclOpExpansionMode;
  if (ver >= 7 && c.aclGraphZeroCopyEnable > 1) {
    log_error("config aclGraphZeroCopyEnable %u is not 0 or 1", c.aclGraphZeroCopyEnable);
    return HCCL_E_PARA;
  }
  if (ver >= 8) {
    if (c.hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
      if (c.hcclExecTimeOut < 0) {
        std::fprintf(stderr, "HCCL warning: config hcclExecTimeOut %d ignored\n", c.hcclExecTimeOut);
      } else {
        s->exec_timeout_s = c.hcclExecTimeOut;
      }
    }
    s->algo.assign(c.hcclAlgo, strnlen(c.hcclAlgo, HCCL_COMM_ALGO_MAX_LENGTH - 1));
  }
  if (ver > HCCL_COMM_CONFIG_VERSION) {
    std::fprintf(stderr, "HCCL warning: config version %u is newer than ours (%u); newer fields ignored\n", ver,
                 HCCL_COMM_CONFIG_VERSION);
  }
  return HCCL_SUCCESS;
}

std::string missing_ranks(const Pending& p) {
  std::string s;
  for (uint32_t i = 0; i < p.n; ++i)
    if (!p.joined[i]) s += (s.empty() ? "" : ", ") + std::to_string(i);
  return s;
}

// A rank of a communicator spanning processes: joins through the collective plugin, then gets a
// handle like any rank (its Group holds only the size and name: no staging buffers).
HcclResult init_remote(uint32_t nRanks, uint32_t rank, const std::string& ip, uint32_t port, const std::string& id,
                       const std::string& name, const Settings& s, long timeout_ms, int32_t device, HcclComm* comm) {
  std::shared_ptr<Remote> remote;
  if (HcclResult r = remote_init(nRanks, rank, ip, port, id, timeout_ms, s.exec_timeout_s, &remote); r != HCCL_SUCCESS)
    return r;
  auto g = std::make_shared<Group>();
  g->n = nRanks;
  g->name = name;
  g->live_ranks = 1;
  g->gone.assign(nRanks, false);
  auto c = std::make_shared<Comm>();
  c->g = g;
  c->remote = remote;
  c->rank = rank;
  c->device = device;
  c->name = name;
  c->exec_timeout_s = s.exec_timeout_s;
  c->deterministic = s.deterministic;
  c->expansion_mode = s.expansion_mode;
  c->algo = s.algo;
  Registry& R = reg();
  std::lock_guard<std::mutex> lk(R.mu);
  const uintptr_t h = R.next_handle;
  R.next_handle += 16;
  R.comms[h] = c;
  *comm = reinterpret_cast<HcclComm>(h);
  return HCCL_SUCCESS;
}

// What a joining rank needs: the environment's settings, overridden by its config (may be NULL),
// and the connect timeout.
HcclResult join_settings(const HcclCommConfig* config, Settings* s, long* timeout_ms) {
  if (HcclResult r = env_settings(s); r != HCCL_SUCCESS) return r;
  if (config != nullptr) {
    if (HcclResult r = apply_config(config, s); r != HCCL_SUCCESS) return r;
  }
  return connect_timeout_ms(timeout_ms);
}

// A rank of a rank table's communicator ("hccl_world_group" unless the config names it).
HcclResult init_cluster_rank(const char* path, uint32_t rank, const HcclCommConfig* config, HcclComm* comm) {
  Settings s;
  long timeout_ms = 0;
  if (HcclResult r = join_settings(config, &s, &timeout_ms); r != HCCL_SUCCESS) return r;
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  const std::string name = s.name.empty() ? "hccl_world_group" : s.name;
  return init_cluster(
      path, rank, config, comm,
      [&](uint32_t n, uint32_t me, const std::string& ip, uint32_t port, bool serve, const std::string& id) {
        {
          Registry& R = reg();
          std::lock_guard<std::mutex> lk(R.mu);
          for (const auto& [h, c] : R.comms) {
            if (c->name == name && c->device == device) {
              log_error("a communicator named \"%s\" already exists on device %d", name.c_str(), device);
              return s.name.empty() ? HCCL_E_UNAVAIL : HCCL_E_PARA;
            }
          }
        }
        if (serve) {
          if (HcclResult r = remote_serve_at(ip, port, id); r != HCCL_SUCCESS) return r;
        }
        const HcclResult r = init_remote(n, me, ip, port, id, name, s, timeout_ms, device, comm);
        if (serve) remote_close_service(id);
        return r;
      });
}

HcclResult init_rank(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank, const HcclCommConfig* config,
                     HcclComm* comm) {
  Settings s;
  long timeout_ms = 0;
  if (HcclResult r = join_settings(config, &s, &timeout_ms); r != HCCL_SUCCESS) return r;
  if (std::memcmp(rootInfo->internal, kMagic, 4) != 0) {
    log_error("root info was not produced by HcclGetRootInfo (bad magic)");
    return HCCL_E_PARA;
  }
  char idbuf[129] = {};
  std::memcpy(idbuf, rootInfo->internal + kOffId, 128);
  const std::string id(idbuf);
  char ipbuf[65] = {};
  std::memcpy(ipbuf, rootInfo->internal + kOffIp, 64);
  uint32_t port = 0;
  std::memcpy(&port, rootInfo->internal + kOffPort, 4);
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;

  Registry& R = reg();
  std::unique_lock<std::mutex> lk(R.mu);
  const std::string name = s.name.empty() ? id : s.name;
  for (const auto& [h, c] : R.comms) {
    if (c->name == name && c->device == device) {
      log_error("a communicator named \"%s\" already exists on device %d", name.c_str(), device);
      return HCCL_E_PARA;
    }
  }
  if (R.issued_ids.count(id) == 0) {
    // Another process made the root info: join through its rendezvous service.
    lk.unlock();
    return init_remote(nRanks, rank, ipbuf, port, id, name, s, timeout_ms, device, comm);
  }
  auto& slot = R.pending[id];
  if (!slot) {
    slot = std::make_shared<Pending>();
    slot->n = nRanks;
    slot->joined.assign(nRanks, false);
    slot->devices.assign(nRanks, -1);
    slot->staging.assign(nRanks, nullptr);
    slot->staging_bytes.assign(nRanks, 0);
  }
  std::shared_ptr<Pending> p = slot;
  if (p->failed) {
    log_error("rendezvous \"%s\" already failed", id.c_str());
    return HCCL_E_TIMEOUT;
  }
  if (p->n != nRanks) {
    log_error("rank %u passed nRanks %u, an earlier rank passed %u", rank, nRanks, p->n);
    return HCCL_E_PARA;
  }
  if (p->joined[rank]) {
    log_error("rank %u of \"%s\" joined twice", rank, id.c_str());
    return HCCL_E_PARA;
  }
  for (uint32_t i = 0; i < nRanks; ++i) {
    if (p->joined[i] && p->devices[i] == device) {
      log_error("rank %u and rank %u of \"%s\" are both on device %d", i, rank, id.c_str(), device);
      return HCCL_E_PARA;
    }
  }
  lk.unlock();
  // Staging: data + scratch halves, allocated before joining so a failure leaves nothing behind.
  const uint64_t bytes = s.buffer_mb << 20;
  void* staging = nullptr;
  if (aclrtMalloc(&staging, 2 * bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    log_error("cannot allocate %llu MB of staging memory on device %d", (unsigned long long)(2 * s.buffer_mb), device);
    return HCCL_E_MEMORY;
  }
  lk.lock();
  p->joined[rank] = true;
  p->devices[rank] = device;
  p->staging[rank] = staging;
  p->staging_bytes[rank] = bytes;
  if (++p->count == nRanks) {
    auto g = std::make_shared<Group>();
    g->n = nRanks;
    g->name = name;
    g->posted.assign(size_t(nRanks) * nRanks, 0);
    g->descs.assign(size_t(nRanks) * nRanks * 4, 0);
    g->staging = p->staging;
    g->devices = p->devices;
    g->live_ranks = nRanks;
    g->gone.assign(nRanks, false);
    g->staging_bytes = *std::min_element(p->staging_bytes.begin(), p->staging_bytes.end());
    p->group = g;
    R.pending.erase(id);
    R.issued_ids.erase(id);
    R.cv.notify_all();
    remote_close_service(id);  // every rank is in this process: nobody else may join
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    // Ranks of other processes contact this process's rendezvous service: then the communicator
    // spans processes and this rank joins it through the collective plugin too.
    bool remote = false;
    while (p->group == nullptr && !p->failed && std::chrono::steady_clock::now() < deadline) {
      R.cv.wait_for(lk, std::chrono::milliseconds(20));
      if (p->group == nullptr && !p->failed && (p->remote || remote_clients(id) > 0)) {
        remote = true;
        break;
      }
    }
    if (remote) {
      // Every rank of this process leaves the in-process rendezvous and joins through the plugin
      // as a member of its own (ranks arriving later find the identifier gone and do the same).
      p->joined[rank] = false;
      --p->count;
      p->staging[rank] = nullptr;
      p->remote = true;
      if (auto it = R.pending.find(id); it != R.pending.end() && it->second == p) R.pending.erase(it);
      R.issued_ids.erase(id);
      R.cv.notify_all();
      lk.unlock();
      aclrtFree(staging);
      const HcclResult r = init_remote(nRanks, rank, ipbuf, port, id, name, s, timeout_ms, device, comm);
      remote_close_service(id);  // every rank has its links now (connect ends with a barrier)
      return r;
    }
    if (p->group == nullptr) {
      // Nobody can complete this rendezvous any more: fail it for every rank that joined.
      p->failed = true;
      const std::string missing = missing_ranks(*p);
      p->joined[rank] = false;
      --p->count;
      p->staging[rank] = nullptr;
      lk.unlock();
      aclrtFree(staging);
      log_error("HcclCommInitRootInfo: rank(s) %s of %u did not join \"%s\" within %ld ms (rank %u waited)",
                missing.c_str(), nRanks, id.c_str(), timeout_ms, rank);
      return HCCL_E_TIMEOUT;
    }
  }
  auto c = std::make_shared<Comm>();
  c->g = p->group;
  c->rank = rank;
  c->device = device;
  c->name = name;
  c->sent.assign(nRanks, 0);
  c->exec_timeout_s = s.exec_timeout_s;
  c->deterministic = s.deterministic;
  c->expansion_mode = s.expansion_mode;
  c->algo = s.algo;
  const uintptr_t h = R.next_handle;
  R.next_handle += 16;
  R.comms[h] = c;
  lk.unlock();
  // Peer access lets this rank's copy engines read the peers' staging buffers.
  for (uint32_t i = 0; i < nRanks; ++i) {
    if (c->g->devices[i] != device && aclrtDeviceEnablePeerAccess(c->g->devices[i], 0) != ACL_SUCCESS) {
      const char* msg = aclGetRecentErrMsg();
      log_error("rank %u: peer access from device %d to device %d: %s", rank, device, c->g->devices[i], msg ? msg : "");
    }
  }
  // A copy runs on the source device's engine, which needs access to the destination: every rank
  // must have enabled its peers before any rank pulls from it. Init returns when all links are up.
  {
    Group& g = *c->g;
    std::unique_lock<std::mutex> glk(g.mu);
    ++g.links_ready;
    g.cv.notify_all();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    if (!g.cv.wait_until(glk, deadline, [&] { return g.links_ready == nRanks; })) {
      glk.unlock();
      log_error("HcclCommInitRootInfo: rank %u: links to the peers not set up within %ld ms", rank, timeout_ms);
      HcclCommDestroy(reinterpret_cast<HcclComm>(h));
      return HCCL_E_TIMEOUT;
    }
  }
  *comm = reinterpret_cast<HcclComm>(h);
  return HCCL_SUCCESS;
}

}  // namespace

void log_error(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "HCCL error: %s\n", buf);
}

HcclResult current_device(int32_t* dev) {
  if (aclrtGetDevice(dev) != ACL_SUCCESS) {
    log_error("the calling thread has no current device (aclrtSetDevice first)");
    return HCCL_E_RUNTIME;
  }
  return HCCL_SUCCESS;
}

std::shared_ptr<Comm> find_comm(HcclComm handle) {
  Registry& R = reg();
  std::lock_guard<std::mutex> lk(R.mu);
  auto it = R.comms.find(reinterpret_cast<uintptr_t>(handle));
  if (it == R.comms.end()) {
    log_error("communicator handle %p is not a live communicator", handle);
    return nullptr;
  }
  return it->second;
}

}  // namespace hccl

using namespace hccl;

namespace {

struct DeferredInit {
  uint32_t n, rank;
  HcclRootInfo root;
  bool has_config;
  HcclCommConfig config;
  HcclComm* out;
  int32_t device;
};

struct GroupState {
  int depth = 0;
  std::vector<DeferredInit> inits;
  std::vector<HcclComm> destroys;
  std::vector<std::tuple<HcclComm, aclrtStream, HcclSendRecvItem>> p2p;
};

thread_local GroupState g_group;

bool defer_init(uint32_t n, const HcclRootInfo* root, uint32_t rank, const HcclCommConfig* config, HcclComm* out) {
  if (g_group.depth == 0) return false;
  DeferredInit d{n, rank, *root, config != nullptr, {}, out, 0};
  if (config != nullptr) std::memcpy(&d.config, config, sizeof d.config);
  aclrtGetDevice(&d.device);
  g_group.inits.push_back(d);
  return true;
}

}  // namespace

namespace hccl {
bool in_group() {
  return g_group.depth > 0;
}
void defer_p2p(HcclComm comm, aclrtStream stream, const HcclSendRecvItem& item) {
  g_group.p2p.emplace_back(comm, stream, item);
}
}  // namespace hccl

extern "C" {

namespace {

// A root info: `serve` starts a rendezvous service for ranks of other processes (HcclGetRootInfo);
// HcclCommInitAll's ranks are all threads of this process and need none.
HcclResult make_root_info(HcclRootInfo* rootInfo, int32_t device, bool serve) {
  uint32_t lo = 0, hi = 0;
  std::string ip = "127.0.0.1";  // HcclCommInitAll's ranks are threads: no NIC is involved
  if (serve) {
    if (HcclResult r = host_ports(&lo, &hi); r != HCCL_SUCCESS) return r;
    if (HcclResult r = local_ip(&ip); r != HCCL_SUCCESS) return r;
  }
  Registry& R = reg();
  std::unique_lock<std::mutex> lk(R.mu);
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch());
  // "<hostIP>_<port>_<devicePhyId>_<timestampUs>" as CANN; the pid and a counter keep it unique.
  char id[128];
  // A random part too: two hosts' processes may share a pid and a microsecond.
  static thread_local uint64_t rnd = uint64_t(us.count()) ^ (uint64_t(::getpid()) << 32) ^ uint64_t(uintptr_t(&rnd));
  rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
  std::snprintf(id, sizeof id, "%.64s_%d_%d_%lld_%llu_%08llx", ip.c_str(), static_cast<int>(::getpid()), device,
                static_cast<long long>(us.count()), static_cast<unsigned long long>(++R.id_counter),
                static_cast<unsigned long long>(rnd >> 32));
  R.issued_ids.insert(id);
  lk.unlock();
  uint32_t port = 0;
  if (serve) {
    if (HcclResult e = remote_serve(ip, id, lo, hi, &port); e != HCCL_SUCCESS) return e;
  }
  std::memset(rootInfo->internal, 0, HCCL_ROOT_INFO_BYTES);
  std::memcpy(rootInfo->internal, kMagic, 4);
  std::memcpy(rootInfo->internal + kOffVersion, &kRootInfoVersion, 4);
  std::snprintf(rootInfo->internal + kOffIp, 64, "%s", ip.c_str());
  std::memcpy(rootInfo->internal + kOffPort, &port, 4);
  std::memcpy(rootInfo->internal + kOffId, id, std::strlen(id));  // id < 128 bytes, rest is zero
  std::memcpy(rootInfo->internal + kOffDevice, &device, 4);
  return HCCL_SUCCESS;
}

}  // namespace

HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (rootInfo == nullptr) return HCCL_E_PTR;
  return make_root_info(rootInfo, device, true);
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank, HcclComm* comm) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (nRanks == 0) {
    log_error("nRanks is 0");
    return HCCL_E_PARA;
  }
  if (rank >= nRanks) {
    log_error("rank %u is not below nRanks %u", rank, nRanks);
    return HCCL_E_PARA;
  }
  if (comm == nullptr || rootInfo == nullptr) return HCCL_E_PTR;
  if (defer_init(nRanks, rootInfo, rank, nullptr, comm)) return HCCL_SUCCESS;
  return init_rank(nRanks, rootInfo, rank, nullptr, comm);
}

HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                      const HcclCommConfig* config, HcclComm* comm) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (nRanks == 0 || rank >= nRanks) {
    log_error("rank %u / nRanks %u out of range", rank, nRanks);
    return HCCL_E_PARA;
  }
  if (comm == nullptr || rootInfo == nullptr) return HCCL_E_PTR;
  if (config == nullptr) {
    log_error("config is NULL");
    return HCCL_E_PARA;
  }
  if (defer_init(nRanks, rootInfo, rank, config, comm)) return HCCL_SUCCESS;
  return init_rank(nRanks, rootInfo, rank, config, comm);
}

HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank, HcclComm* comm) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (clusterInfo == nullptr || comm == nullptr) return HCCL_E_PTR;
  return init_cluster_rank(clusterInfo, rank, nullptr, comm);
}

HcclResult HcclCommInitClusterInfoConfig(const char* clusterInfo, uint32_t rank, HcclCommConfig* config,
                                         HcclComm* comm) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (clusterInfo == nullptr || comm == nullptr || config == nullptr) return HCCL_E_PTR;
  return init_cluster_rank(clusterInfo, rank, config, comm);
}

HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (ndev == 0) {
    log_error("ndev is 0");
    return HCCL_E_PARA;
  }
  if (comms == nullptr || devices == nullptr) return HCCL_E_PTR;
  uint32_t count = 0;
  if (aclrtGetDeviceCount(&count) != ACL_SUCCESS) return HCCL_E_RUNTIME;
  std::set<int32_t> seen;
  for (uint32_t i = 0; i < ndev; ++i) {
    if (!seen.insert(devices[i]).second) {
      log_error("device %d appears twice in devices", devices[i]);
      return HCCL_E_PARA;
    }
    if (devices[i] < 0 || static_cast<uint32_t>(devices[i]) >= count) {
      log_error("device %d is not a device of this process (%u visible)", devices[i], count);
      return HCCL_E_RUNTIME;
    }
  }
  HcclRootInfo root;
  if (HcclResult r = make_root_info(&root, device, false); r != HCCL_SUCCESS) return r;
  std::vector<HcclResult> results(ndev, HCCL_SUCCESS);
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < ndev; ++i) {
    comms[i] = nullptr;
    threads.emplace_back([&, i] {
      if (aclrtSetDevice(devices[i]) != ACL_SUCCESS) {
        results[i] = HCCL_E_RUNTIME;
        return;
      }
      results[i] = HcclCommInitRootInfo(ndev, &root, i, &comms[i]);
    });
  }
  for (auto& t : threads) t.join();
  for (uint32_t i = 0; i < ndev; ++i) {
    if (results[i] == HCCL_SUCCESS) continue;
    for (uint32_t j = 0; j < ndev; ++j) {
      if (comms[j] != nullptr) HcclCommDestroy(comms[j]);
      comms[j] = nullptr;
    }
    return results[i];
  }
  return HCCL_SUCCESS;
}

HcclResult HcclCreateSubCommConfig(HcclComm* comm, uint32_t rankNum, uint32_t* rankIds, uint64_t subCommId,
                                   uint32_t subCommRankId, HcclCommConfig* config, HcclComm* subComm) {
  if (comm == nullptr || *comm == nullptr || config == nullptr || subComm == nullptr) return HCCL_E_PTR;
  log_error("HcclCreateSubCommConfig is not supported by ascend-run yet");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommDestroy(HcclComm comm) {
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  if (comm == nullptr) {
    std::fprintf(stderr, "HCCL warning: HcclCommDestroy(NULL) does nothing\n");
    return HCCL_SUCCESS;
  }
  std::shared_ptr<Comm> c;
  {
    Registry& R = reg();
    std::lock_guard<std::mutex> lk(R.mu);
    auto it = R.comms.find(reinterpret_cast<uintptr_t>(comm));
    if (it == R.comms.end()) {
      log_error("HcclCommDestroy: %p is not a live communicator", comm);
      return HCCL_E_PARA;
    }
    c = it->second;
    if (in_group()) {
      g_group.destroys.push_back(comm);
      return HCCL_SUCCESS;
    }
    std::unique_lock<std::mutex> issue(c->issue_mu, std::try_to_lock);
    if (!issue.owns_lock()) {
      log_error("HcclCommDestroy: another thread is issuing an operation on communicator \"%s\"", c->name.c_str());
      return HCCL_E_AGAIN;
    }
    R.comms.erase(it);
  }
  // Ours (hccl-api.md 2.1): wait for the operations already enqueued. A peer's operations may still
  // read this rank's staging buffer (a failed peer's tasks run on), so the last rank frees them all.
  {
    std::unique_lock<std::mutex> lk(c->inflight->mu);
    c->inflight->cv.wait(lk, [&] { return c->inflight->count == 0; });
  }
  std::vector<void*> to_free;
  {
    std::lock_guard<std::mutex> lk(c->g->mu);
    if (--c->g->live_ranks == 0) to_free = c->g->staging;
    c->g->gone[c->rank] = true;  // peers waiting for it fail now, not at HCCL_EXEC_TIMEOUT
    c->g->cv.notify_all();
  }
  // Every rank's operations ended before its destroy returned (the token): tell the sanitizer.
  if (!to_free.empty()) arunSyncAcquire(nullptr, c->g.get(), UINT64_MAX);
  for (void* p : to_free) aclrtFree(p);
  if (c->remote) remote_destroy(*c);
  return HCCL_SUCCESS;
}

HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  if (comm == nullptr || rankSize == nullptr) return HCCL_E_PTR;
  auto c = find_comm(comm);
  if (!c) return HCCL_E_PARA;
  *rankSize = c->g->n;
  return HCCL_SUCCESS;
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  if (comm == nullptr || rank == nullptr) return HCCL_E_PTR;
  auto c = find_comm(comm);
  if (!c) return HCCL_E_PARA;
  *rank = c->rank;
  return HCCL_SUCCESS;
}

HcclResult HcclGetCommName(HcclComm comm, char* commName) {
  if (comm == nullptr || commName == nullptr) return HCCL_E_PTR;
  auto c = find_comm(comm);
  if (!c) return HCCL_E_PARA;
  std::snprintf(commName, COMM_NAME_MAX_LENGTH, "%s", c->name.c_str());
  return HCCL_SUCCESS;
}

HcclResult HcclCommGetHandleWithName(const char* commName, HcclComm* comm) {
  if (commName == nullptr || comm == nullptr) return HCCL_E_PTR;
  int32_t device = 0;
  if (HcclResult r = current_device(&device); r != HCCL_SUCCESS) return r;
  Registry& R = reg();
  std::lock_guard<std::mutex> lk(R.mu);
  for (const auto& [h, c] : R.comms) {
    if (c->name == commName && c->device == device) {
      *comm = reinterpret_cast<HcclComm>(h);
      return HCCL_SUCCESS;
    }
  }
  log_error("no communicator named \"%s\" on device %d", commName, device);
  return HCCL_E_PARA;
}

HcclResult HcclCommGetStatus(const char* commId, HcclCommStatus* status) {
  if (commId == nullptr || status == nullptr) return HCCL_E_PTR;
  Registry& R = reg();
  std::lock_guard<std::mutex> lk(R.mu);
  for (const auto& [h, c] : R.comms) {
    if (c->name == commId) {
      *status = HCCL_COMM_STATUS_READY;
      return HCCL_SUCCESS;
    }
  }
  log_error("no communicator named \"%s\"", commId);
  return HCCL_E_PARA;
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  if (comm == nullptr || asyncError == nullptr) return HCCL_E_PTR;
  auto c = find_comm(comm);
  if (!c) return HCCL_E_PARA;
  *asyncError = static_cast<HcclResult>(c->async_error->load());
  return HCCL_SUCCESS;
}

const char* HcclGetErrorString(HcclResult code) {
  static const char* const kStrings[] = {"no error",
                                         "parameter error",
                                         "empty pointer",
                                         "memory error",
                                         "internal error",
                                         "not support feature",
                                         "not found specific resource",
                                         "resource unavailable",
                                         "call system interface error",
                                         "timeout",
                                         "open file fail",
                                         "tcp connect fail",
                                         "roce connect fail",
                                         "tcp transfer fail",
                                         "roce transfer fail",
                                         "call runtime api fail",
                                         "call driver api fail",
                                         "call profiling api fail",
                                         "call cce api fail",
                                         "call network api fail",
                                         "try again",
                                         "error cqe",
                                         "error communicator suspending",
                                         "retry constraint",
                                         "out of memory"};
  int v = 0;
  std::memcpy(&v, &code, sizeof v);  // any int may arrive: never load it as the enum
  if (v >= 0 && v <= 24) return kStrings[v];
  if (v > 24 && v < static_cast<int>(HCCL_E_RESERVED)) return "unknown err";
  return "unknown error";
}

uint32_t HcclGetCommConfigCapability() {
  return HCCL_COMM_CONFIG_RESERVED;
}

HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) {
  if (config != HCCL_DETERMINISTIC) return HCCL_SUCCESS;
  if (configValue.value < 0 || configValue.value > 2) {
    log_error("HcclSetConfig: deterministic value %d is not 0, 1 or 2", configValue.value);
    return HCCL_E_PARA;
  }
  bool env_set = false;
  env_deterministic(&env_set);
  if (env_set) return HCCL_SUCCESS;  // the environment wins
  Registry& R = reg();
  std::lock_guard<std::mutex> lk(R.mu);
  R.set_deterministic = configValue.value;
  for (auto& [h, c] : R.comms) c->deterministic = static_cast<uint32_t>(configValue.value);
  return HCCL_SUCCESS;
}

HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue* configValue) {
  if (configValue == nullptr) return HCCL_E_PTR;
  if (config != HCCL_DETERMINISTIC) return HCCL_SUCCESS;
  bool env_set = false;
  const int32_t env = env_deterministic(&env_set);
  std::lock_guard<std::mutex> lk(reg().mu);
  configValue->value = env_set ? env : reg().set_deterministic;
  return HCCL_SUCCESS;
}

HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void* info) {
  if (comm == nullptr || info == nullptr) return HCCL_E_PTR;
  auto c = find_comm(comm);
  if (!c) return HCCL_E_PARA;
  if (cfgType == HCCL_CONFIG_TYPE_OP_EXPANSION_MODE) {
    if (infoLen != sizeof(HcclConfigTypeOpExpansionMode)) return HCCL_E_PARA;
    static const HcclOpExpansionMode kMap[] = {HCCL_OP_EXPANSION_MODE_AIV,       HCCL_OP_EXPANSION_MODE_HOST_TS,
                                               HCCL_OP_EXPANSION_MODE_AI_CPU,    HCCL_OP_EXPANSION_MODE_AIV,
                                               HCCL_OP_EXPANSION_AIV_ONLY,       HCCL_OP_EXPANSION_MODE_CCU_MS,
                                               HCCL_OP_EXPANSION_MODE_CCU_SCHED, HCCL_OP_EXPANSION_MODE_AI_CPU};
    // Mode 0 (default) reports what is used: kernels on the AI cores drive the operations.
    if (c->expansion_mode >= sizeof kMap / sizeof kMap[0]) return HCCL_E_INTERNAL;
    const HcclConfigTypeOpExpansionMode m = kMap[c->expansion_mode];
    std::memcpy(info, &m, sizeof m);
    return HCCL_SUCCESS;
  }
  if (cfgType == HCCL_CONFIG_TYPE_HCCL_ALGO) {
    if (infoLen < HCCL_COMM_ALGO_MAX_LENGTH) return HCCL_E_PARA;
    std::memset(info, 0, infoLen);
    std::memcpy(info, c->algo.data(), std::min<size_t>(c->algo.size(), infoLen - 1));
    return HCCL_SUCCESS;
  }
  return HCCL_E_PARA;
}

// Group calls. Recorded work runs at the outermost HcclGroupEnd: inits concurrently, one thread
// per recorded init (so one thread can initialise every local rank), then destroys, then each
// (communicator, stream)'s Send/Recv as one HcclBatchSendRecv (so a Send and a Recv do not block
// each other).
HcclResult HcclGroupStart() {
  ++g_group.depth;
  return HCCL_SUCCESS;
}

HcclResult HcclGroupEnd() {
  if (g_group.depth == 0) {
    log_error("HcclGroupEnd without HcclGroupStart");
    return HCCL_E_PARA;
  }
  if (--g_group.depth > 0) return HCCL_SUCCESS;
  GroupState work = std::move(g_group);
  g_group = GroupState{};
  HcclResult first = HCCL_SUCCESS;
  auto note = [&](HcclResult r) {
    if (first == HCCL_SUCCESS) first = r;
  };
  std::vector<HcclResult> results(work.inits.size(), HCCL_SUCCESS);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < work.inits.size(); ++i) {
    threads.emplace_back([&, i] {
      DeferredInit& d = work.inits[i];
      if (aclrtSetDevice(d.device) != ACL_SUCCESS) {
        results[i] = HCCL_E_RUNTIME;
        return;
      }
      results[i] = d.has_config ? HcclCommInitRootInfoConfig(d.n, &d.root, d.rank, &d.config, d.out)
                                : HcclCommInitRootInfo(d.n, &d.root, d.rank, d.out);
    });
  }
  for (auto& t : threads) t.join();
  for (HcclResult r : results) note(r);
  for (HcclComm c : work.destroys) note(HcclCommDestroy(c));
  // Send/Recv grouped per (communicator, stream), in the order they were recorded.
  std::vector<bool> done(work.p2p.size(), false);
  for (size_t i = 0; i < work.p2p.size(); ++i) {
    if (done[i]) continue;
    const HcclComm comm = std::get<0>(work.p2p[i]);
    const aclrtStream stream = std::get<1>(work.p2p[i]);
    std::vector<HcclSendRecvItem> items;
    for (size_t j = i; j < work.p2p.size(); ++j) {
      if (!done[j] && std::get<0>(work.p2p[j]) == comm && std::get<1>(work.p2p[j]) == stream) {
        items.push_back(std::get<2>(work.p2p[j]));
        done[j] = true;
      }
    }
    note(HcclBatchSendRecv(items.data(), static_cast<uint32_t>(items.size()), comm, stream));
  }
  return first;
}

HcclResult HcclGroupStatusGet(bool* isGroupEnabled) {
  if (isGroupEnabled == nullptr) return HCCL_E_PTR;
  *isGroupEnabled = g_group.depth > 0;
  return HCCL_SUCCESS;
}

HcclResult HcclCommSuspend(HcclComm comm) {
  if (comm == nullptr) return HCCL_E_PTR;
  log_error("HcclCommSuspend is not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommResume(HcclComm comm) {
  if (comm == nullptr) return HCCL_E_PTR;
  log_error("HcclCommResume is not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommRegCommStateCallback(const char* regName, HcclCommStateCallback cb, void* args) {
  if (regName == nullptr || cb == nullptr) return HCCL_E_PTR;
  const size_t len = std::strlen(regName);
  if (len == 0 || len >= 160) return HCCL_E_PARA;
  log_error("HcclCommRegCommStateCallback is not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t* ranks, bool* useBackup, uint32_t nRanks) {
  if (comm == nullptr || ranks == nullptr || useBackup == nullptr) return HCCL_E_PTR;
  auto c = find_comm(comm);
  if (!c) return HCCL_E_PARA;
  for (uint32_t i = 0; i < nRanks; ++i)
    if (ranks[i] >= c->g->n) return HCCL_E_PARA;
  return HCCL_SUCCESS;  // no NIC switching in ascend-run: the "not applicable" case
}

// Zero-copy ranges and symmetric windows: the simulated devices have no such links (hccl-api.md 2.7).
HcclResult HcclCommSetMemoryRange(HcclComm comm, void* baseVirPtr, size_t size, size_t alignment, uint64_t flags) {
  if (comm == nullptr || baseVirPtr == nullptr) return HCCL_E_PTR;
  if (size == 0 || alignment != 0 || flags != 0) return HCCL_E_PARA;
  log_error("zero-copy memory ranges are not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void* baseVirPtr) {
  if (comm == nullptr || baseVirPtr == nullptr) return HCCL_E_PTR;
  log_error("zero-copy memory ranges are not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommActivateCommMemory(HcclComm comm, void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                      uint64_t flags) {
  if (comm == nullptr || virPtr == nullptr || handle == nullptr) return HCCL_E_PTR;
  if (offset != 0 || flags != 0) return HCCL_E_PARA;
  log_error("zero-copy memory ranges are not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void* virPtr) {
  if (comm == nullptr || virPtr == nullptr) return HCCL_E_PTR;
  log_error("zero-copy memory ranges are not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommSymWinRegister(HcclComm comm, void* addr, uint64_t size, HcclCommSymWindow* winHandle,
                                  uint32_t flag) {
  if (comm == nullptr || addr == nullptr || winHandle == nullptr) return HCCL_E_PTR;
  if (size == 0 || flag != 1) return HCCL_E_PARA;
  log_error("symmetric windows are not supported by ascend-run");
  return HCCL_E_NOT_SUPPORT;
}

HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle) {
  if (winHandle == nullptr) return HCCL_E_PTR;
  return HCCL_E_PARA;  // no window was ever registered
}

HcclResult HcclCommSymWinGet(HcclComm comm, void* ptr, size_t size, HcclCommSymWindow* winHandle, size_t* offset) {
  if (comm == nullptr || ptr == nullptr || winHandle == nullptr || offset == nullptr) return HCCL_E_PTR;
  return HCCL_E_NOT_FOUND;  // no window was ever registered
}

}  // extern "C"
